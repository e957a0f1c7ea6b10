"""DuckDB helpers: run a named SQL file as a table (or view), load a frame, count and preview."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pandas as pd

from .config import SQL_DIR, SQL_LAYERS

IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


def sql_file(name: str) -> Path:
    """The SQL file of a table: pipeline/sql/<layer>/<name>.sql."""
    for layer in SQL_LAYERS:
        path = SQL_DIR / layer / f"{name}.sql"
        if path.is_file():
            return path
    raise FileNotFoundError(f"no pipeline/sql/<layer>/{name}.sql for table {name!r}")


def sql_text(name: str) -> str:
    return sql_file(name).read_text(encoding="utf-8")


def _ident(name: str) -> str:
    if not IDENT.match(name):
        raise ValueError(f"not a table name: {name!r}")
    return name


def path_literal(path: Path | str) -> str:
    """A file path as a SQL string literal (ATTACH and COPY take no parameters)."""
    return "'" + str(path).replace("'", "''") + "'"


def csv_reader(file: str, columns: dict[str, str]) -> str:
    """read_csv of a file DuckDB wrote (a header, "-quoted text, NULL empty) at the given column types: how a page's
    DuckDB-WASM loads its tables and its question (its core reads CSV without an extension)."""
    types = ", ".join(f"{c}: '{t}'" for c, t in columns.items())
    return (
        f"read_csv('{file}', header = true, auto_detect = false, delim = ',', quote = '\"', escape = '\"', "
        f"columns = {{{types}}})"
    )


def question_sql(table: str, columns: dict[str, str], source: str) -> str:
    """The statement that makes the temporary `table` of questions from the rows of `source`, each column cast to its
    type (the Planner's plan_scenarios, the Own-or-rent calculator's own_question)."""
    casts = ", ".join(f"{c}::{t} as {c}" for c, t in columns.items())
    return f"create or replace temp table {table} as select {casts} from {source}"


def create_table_from_sql(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """(Re)create `table` (or a view, for files starting `-- (view)`) from pipeline/sql/<layer>/<table>.sql."""
    table = _ident(table)
    text = sql_text(table)
    kind = "view" if text.lstrip().startswith("-- (view)") else "table"
    con.execute(f"create or replace {kind} {table} as\n{text}")
    return row_count(con, table)


def create_table_from_frame(con: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame) -> int:
    table = _ident(table)
    con.register("_frame", frame)
    try:
        con.execute(f"create or replace table {table} as select * from _frame")
    finally:
        con.unregister("_frame")
    return row_count(con, table)


def row_count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return con.execute(f"select count(*) from {_ident(table)}").fetchall()[0][0]


def preview(con: duckdb.DuckDBPyConnection, table: str, limit: int = 5) -> str:
    """The table's first rows as a Markdown table (the Dagster UI shows it with each materialisation), straight
    from the rows (through a frame it cost 5 ms a table)."""
    from tabulate import tabulate

    cur = con.execute(f"select * from {_ident(table)} limit {int(limit)}")
    return tabulate(cur.fetchall(), headers=[d[0] for d in cur.description], tablefmt="pipe")
