"""The tables' contracts (pipeline/sql/<layer>/<table>.yml, pipeline/tables.py): every SQL file has its contract
and the reverse, every table declares exactly the tables its SQL reads (as DuckDB's parser finds them), every
check reads only its table's inputs, every meaning of the glossary is used, and a file with a key given twice or a
key nobody reads is refused. Against the built database: tests/integration/test_table_contracts.py."""

from __future__ import annotations

import re

import pytest

from pipeline.config import SQL_DIR, SQL_LAYERS
from pipeline.contract import VIEW_KEYS, VIEWS, column_doc
from pipeline.sql_reads import relations
from pipeline.tables import ContractError, DuplicateKeyError, glossary, load_table, sql_tables, tables, views

SQL_TABLES = sorted(sql_tables())
CHECKS = sorted((t.name, c) for t in tables().values() for c in t.checks)
# a column whose name ends so carries a unit
UNIT_SUFFIXES = ("_gb", "_gbs", "_tflops", "_tops", "_w", "_kw", "_usd", "_usd_per_hour", "_usd_per_gpu_hour", "_ms")


def test_every_sql_file_has_its_contract_and_every_contract_its_sql_or_its_step():
    from pipeline.definitions import defs

    assets = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    for layer in SQL_LAYERS:
        sql = {p.stem for p in (SQL_DIR / layer).glob("*.sql")}
        yml = {p.stem for p in (SQL_DIR / layer).glob("*.yml")}
        assert sql - yml == set(), f"{layer}: SQL without a contract"
        assert {p.name for p in (SQL_DIR / layer).iterdir()} == {f"{s}.sql" for s in sql} | {f"{s}.yml" for s in yml}
        for name in yml - sql:  # written by a Python step, which must exist
            assert tables()[name].asset in assets, name
        for name in sql:
            assert tables()[name].asset == name and name in assets
    assert {p.name for p in SQL_DIR.iterdir()} == {*SQL_LAYERS, "columns.yml", "macros", "plan", "own"}


def test_each_layer_holds_its_tables():
    layers = {name: t.layer for name, t in tables().items()}
    assert {n for n, layer in layers.items() if layer == "staging"} == {n for n in layers if n.startswith("raw_")}
    assert {n for n, layer in layers.items() if layer == "core"} == {n for n in layers if n.startswith("core_")}
    assert {n for n, layer in layers.items() if layer == "marts"} == {n for n in layers if n.startswith("out_")}


@pytest.mark.parametrize("table", SQL_TABLES)
def test_a_table_reads_what_its_contract_declares_and_nothing_else(table):
    contract = tables()[table]
    read = relations(contract.sql_file.read_text(encoding="utf-8")) - {table}
    assert read - contract.reads == set(), f"{table}.sql reads tables its {table}.yml does not declare"
    assert contract.reads - read == set(), f"{table}.yml declares tables its {table}.sql does not read"


@pytest.mark.parametrize("view", sorted(views()))
def test_a_view_reads_its_table_and_what_it_declares(view):
    assert relations(views()[view].sql) == views()[view].reads


def test_every_input_is_a_table_and_no_view_is_named_as_a_table():
    known = set(tables())
    for name, contract in tables().items():
        assert contract.reads <= known, name
        assert contract.grain and contract.columns, name
    for name, view in views().items():
        assert view.reads <= known and name not in known, name
    assert VIEWS == {name: (v.grain, v.holds) for name, v in views().items()}
    assert VIEW_KEYS == {name: list(v.key) for name, v in views().items() if v.key} and "vram_fit" in VIEW_KEYS


@pytest.mark.parametrize(("table", "check"), CHECKS)
def test_a_check_reads_only_its_table_and_its_inputs(table, check):
    contract = tables()[table]
    declared = contract.checks[check]
    if declared.python:
        module, function = declared.python.rsplit(".", 1)
        assert callable(getattr(__import__(module, fromlist=[function]), function))
    else:
        assert relations(declared.sql) <= contract.reads | {table}


def test_the_parser_finds_reads_through_macros_and_subqueries_not_in_comments_strings_or_ctes():
    sql = """-- core_gpus in a comment
        with core_models as (select 1 as x), picked as (select * from core_models)
        select 'out_rankings', param('bytes_fp8'), (select max(x) from out_vram_fit)
        from picked join core_price_offers using (x)"""
    assert relations(sql) == {"core_parameters", "out_vram_fit", "core_price_offers"}
    # a macro that calls param() through another macro reads core_parameters too
    assert "core_parameters" in relations("select serve_kv_gb(1, 1, 1, 1, 1, 1)")


def test_every_meaning_of_the_glossary_is_used_and_every_unit_named_column_has_its_unit():
    used = {c for t in tables().values() for c in t.columns} | {c for v in views().values() for c in v.own}
    assert set(glossary()) - used == set()
    for name, contract in tables().items():
        for column in contract.columns.values():
            if column.name.endswith(UNIT_SUFFIXES):
                assert column.unit, f"{name}.{column.name}"


def test_a_view_column_means_what_its_view_says_else_its_table_else_the_glossary():
    assert column_doc("gpus", "source_id") == glossary()["source_id"]["description"]  # the view's own, renamed
    assert column_doc("providers", "name").startswith("the provider's name")  # its table's own meaning
    assert column_doc("models", "name") == "display name"  # the glossary's
    assert column_doc("parameters", "value") == glossary()["value"]["description"]  # retyped by the view
    assert column_doc("gpus", "no_such_column") is None and column_doc("no_such_view", "gpu_id") is None


def test_a_key_given_twice_is_refused_with_its_lines(tmp_path):
    path = tmp_path / "core" / "core_x.yml"
    path.parent.mkdir()
    path.with_suffix(".sql").write_text("select 1 as gpu_id", encoding="utf-8")
    path.write_text("grain: g\nreads: []\ncolumns:\n  gpu_id: VARCHAR\n  gpu_id: DOUBLE\n", encoding="utf-8")
    with pytest.raises(DuplicateKeyError, match=r"line 5: key 'gpu_id' given twice \(first on line 4\)"):
        load_table(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("grain: g\nreads: []\ncolumns: {gpu_id: VARCHAR}\nread: [core_gpus]\n", r"unknown key\(s\) \['read'\]"),
        ("grain: g\ncolumns: {gpu_id: VARCHAR}\n", "no reads"),
        ("grain: g\nreads: core_gpus\ncolumns: {gpu_id: VARCHAR}\n", "not a list of table names"),
        ("grain: g\nreads: []\ncolumns: {gpu_id: {description: d}}\n", "column gpu_id has no type"),
        ("grain: g\nreads: []\nasset: core_parameters\ncolumns: {gpu_id: VARCHAR}\n", "`asset` names"),
        ("grain: g\nreads: []\ncolumns: {gpu_id: VARCHAR}\nchecks: {c: {sql: select 1}}\n", "needs a description"),
        ("grain: g\nreads: []\ncolumns: {gpu_id: VARCHAR}\nviews: {v: {sql: select 1}}\n", "does not say what"),
    ],
)
def test_a_contract_nobody_could_read_is_refused(tmp_path, text, message):
    path = tmp_path / "core" / "core_x.yml"
    path.parent.mkdir()
    path.with_suffix(".sql").write_text("select 1 as gpu_id", encoding="utf-8")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ContractError, match=message):
        load_table(path)


def test_no_pipeline_module_finds_tables_by_pattern():
    """The inputs are declared, never guessed: no regex over table names in the pipeline."""
    from pipeline.config import PACKAGE

    for path in PACKAGE.rglob("*.py"):
        assert not re.search(r"\(\?:raw\|core\|out\)_", path.read_text(encoding="utf-8")), path
