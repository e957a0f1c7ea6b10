"""What a page's DuckDB-WASM runs (site/javascripts/planner-sql.js, `AtlasSql`): the rows of the views a query reads,
as CSV files with the statements that load them at their types, the macro files and the query's own SQL file, copied
as they are, and the statement that makes the question table from the reader's inputs. The Planner and the
Own-or-rent calculator answer any question with the same SQL text the build runs: no formula is written in
JavaScript."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb
from markupsafe import Markup

from pipeline.db import csv_reader, path_literal, question_sql
from pipeline.steps import MACRO_FILES
from pipeline.vendor import IMPORTS as VENDOR_IMPORTS

from . import i18n


def engine_files(
    con: duckdb.DuckDBPyConnection,
    folder: str,
    tables: dict[str, str],
    query: Path,
    question_table: str,
    question_columns: dict[str, str],
) -> tuple[dict[str, str], dict]:
    """The files under `folder` (tables/<name>.csv: each of `tables`' queries' rows, written by DuckDB: numbers at
    full precision, NULL empty; CSV because the core of DuckDB-WASM reads it without an extension; sql/: every macro
    file and `query`) and the engine entry the page's script reads: the statements loading each table, the macro
    files in order, the query's file, the statement making `question_table` from scenarios.csv and its columns."""
    files, load = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, sql in tables.items():
            columns = {c: t for c, t, *_ in con.execute(f"describe {sql}").fetchall()}
            out = Path(tmp) / f"{name}.csv"
            con.execute(f"copy ({sql}) to {path_literal(out)} (header)")
            files[f"{folder}/tables/{name}.csv"] = out.read_text(encoding="utf-8")
            load[name] = f"create table {name} as select * from {csv_reader(f'{name}.csv', columns)}"
    for path in [*MACRO_FILES, query]:
        files[f"{folder}/sql/{path.name}"] = path.read_text(encoding="utf-8")
    reader = csv_reader("scenarios.csv", {c: t.upper() for c, t in question_columns.items()})
    engine = {
        "tables": load,
        "macros": [p.name for p in MACRO_FILES],
        "plan": query.name,
        "scenarios": question_sql(question_table, question_columns, reader),
        "scenario_columns": list(question_columns),
    }
    return files, engine


def import_map() -> Markup:
    """A page's import map: each bare name the engine's modules import, to its file under vendor/ at the site's root
    (one folder up per edition)."""
    imports = {name: f"../{i18n.root()}vendor/{name}/{path}" for name, path in VENDOR_IMPORTS.items()}
    return Markup(json.dumps({"imports": imports}))
