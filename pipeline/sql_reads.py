"""What a SQL statement reads, by DuckDB's own parser: the tables and views it names, those its macros read
(`param(...)` reads core_parameters), its CTEs left out. The tests hold every table's and view's declared inputs
(its <table>.yml `reads`) against this; the pipeline itself reads the declarations."""

from __future__ import annotations

import functools
import json

import duckdb

from .config import MACRO_FILES


class SqlError(ValueError):
    """A statement DuckDB's parser refuses."""


def _walk(node, tables: set[str], ctes: set[str], functions: set[str]) -> None:
    if isinstance(node, dict):
        if node.get("type") == "BASE_TABLE":
            tables.add(node["table_name"])
        if node.get("class") == "FUNCTION":
            functions.add(node["function_name"])
        for entry in (node.get("cte_map") or {}).get("map", []):
            ctes.add(entry["key"])
        for value in node.values():
            _walk(value, tables, ctes, functions)
    elif isinstance(node, list):
        for value in node:
            _walk(value, tables, ctes, functions)


@functools.cache
def _parser() -> duckdb.DuckDBPyConnection:
    """An empty in-memory database with the macros defined (they need core_parameters to exist, not its rows)."""
    con = duckdb.connect()
    con.execute("create table core_parameters (name varchar, value double, value_list double[], value_text varchar)")
    for path in MACRO_FILES:
        con.execute(path.read_text(encoding="utf-8"))
    return con


def _names(sql: str) -> tuple[set[str], set[str]]:
    """The relations (CTEs left out) and the functions a SELECT statement names."""
    parsed = json.loads(_parser().execute("select json_serialize_sql(?)", [sql]).fetchone()[0])
    if parsed.get("error"):
        raise SqlError(parsed.get("error_message", "DuckDB cannot parse the statement"))
    tables: set[str] = set()
    ctes: set[str] = set()
    functions: set[str] = set()
    _walk(parsed, tables, ctes, functions)
    return tables - ctes, functions


@functools.cache
def macro_reads() -> dict[str, frozenset[str]]:
    """Each macro of pipeline/sql/macros/ with the tables it reads, through the macros it calls too."""
    rows = (
        _parser()
        .execute(
            "select function_name, macro_definition from duckdb_functions() where function_type = 'macro' and not internal"
        )
        .fetchall()
    )
    direct = {name: _names("select " + definition) for name, definition in rows}
    reads = {name: set(tables) for name, (tables, _) in direct.items()}
    changed = True
    while changed:  # a macro reads what the macros it calls read
        changed = False
        for name, (_, functions) in direct.items():
            for called in functions & reads.keys():
                if not reads[called] <= reads[name]:
                    reads[name] |= reads[called]
                    changed = True
    return {name: frozenset(tables) for name, tables in reads.items()}


def relations(sql: str, through_macros: bool = True) -> set[str]:
    """The tables and views a SELECT statement reads, directly or (unless `through_macros` is false: what a page's
    query names itself) through the macros it calls."""
    tables, functions = _names(sql)
    if not through_macros:
        return tables
    macros = macro_reads()
    for name in functions & macros.keys():
        tables |= macros[name]
    return tables
