"""The MCP server's `sql` tool: one SELECT over the public views, which can neither write nor wander.

Four walls, each enough on its own for the published database to stay byte-identical:
1. **The query is parsed before it runs** (DuckDB's own parser): exactly one statement, of type SELECT; every table
   it names is a public view, a name the query defines itself (a CTE) or `information_schema`; every table function
   is in `TABLE_FUNCTIONS`. `COPY`, `ATTACH`, `CALL`, `PRAGMA`, `SET`, `INSTALL`, `EXPORT`, DDL, DML, several
   statements, files (`from 'x.csv'`, `read_csv`) and internal tables (`raw_*`, `core_*`, `out_*`) are refused,
   each with a message saying why.
2. **It runs on a copy the server owns**: the public views, materialised as tables in a database file in a private
   temporary folder, remade when the published database changes. The published file is never opened by the tool.
3. **It runs in a process of its own** (`python -m pipeline.mcp_sql COPY`), read-only, with external access off,
   the configuration locked, one thread and a memory limit: a call that crashes, hangs or eats memory ends that
   process, never the server, and parallel calls share nothing.
4. **Limits that hold**: the query is interrupted after `SECONDS` (the process is killed if the engine does not
   stop), at most `ROW_LIMIT` rows and `BYTE_LIMIT` bytes of answer come back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import duckdb

from .db import path_literal

QUERY_LIMIT = 100_000  # characters of one query
ROW_LIMIT = 200
BYTE_LIMIT = 1_000_000  # bytes of JSON rows in one answer
SECONDS = 10.0  # wall clock of one query, start-up of its process excluded
KILL_AFTER = 5.0  # the process is killed this long after SECONDS if the engine did not stop
MEMORY_LIMIT = "1GB"
# table functions a question over the views may use: they generate values, read nothing
TABLE_FUNCTIONS = frozenset({"unnest", "range", "generate_series"})
SCHEMAS = frozenset({"", "main"})
CATALOG_SCHEMAS = frozenset({"information_schema"})


class Refused(ValueError):
    """A query the tool does not run, with the reason."""


def _walk(node: Any):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def check(query: str, views: frozenset[str]) -> str:
    """The query if it is one SELECT over `views`, else Refused naming what is not allowed."""
    if not query or not query.strip().strip(";").strip():
        raise Refused("the query is empty: give one SELECT statement over the public views")
    parser = duckdb.connect(":memory:", config={"enable_external_access": False})
    try:
        try:
            statements = parser.extract_statements(query)
        except duckdb.Error as exc:
            raise Refused(f"the query does not parse: {exc}") from exc
        if len(statements) != 1:
            raise Refused(f"one statement per call, got {len(statements)}")
        kind = statements[0].type
        if kind != duckdb.StatementType.SELECT:
            raise Refused(f"only SELECT is allowed (the statement is {kind.name}); the tool reads, never writes")
        tree = json.loads(parser.execute("select json_serialize_sql(?)", [query]).fetchone()[0])
    finally:
        parser.close()
    if tree.get("error"):
        raise Refused(
            f"only a plain SELECT is allowed (not PRAGMA, SHOW, DESCRIBE, SUMMARIZE): {tree.get('error_message', '?')}"
        )
    nodes = list(_walk(tree["statements"]))
    defined = {
        entry["key"].lower()
        for node in nodes
        if isinstance(node.get("cte_map"), dict)
        for entry in node["cte_map"].get("map", [])
    }
    for node in nodes:
        kind = node.get("type")
        if kind == "BASE_TABLE":
            name, schema = node["table_name"], (node.get("schema_name") or "").lower()
            catalog = (node.get("catalog_name") or "").lower()
            if schema in CATALOG_SCHEMAS and not catalog:
                continue
            if catalog or schema not in SCHEMAS:
                where = ".".join(p for p in (catalog, schema, name) if p)
                raise Refused(f"{where}: only the public views (and information_schema) can be read")
            if name.lower() not in views and name.lower() not in defined:
                raise Refused(
                    f"{name!r} is not a public view; the views are: {', '.join(sorted(views))} "
                    "(files and internal tables cannot be read)"
                )
        elif kind == "TABLE_FUNCTION":
            function = node.get("function") or {}
            name = (function.get("function_name") or "").lower()
            if name not in TABLE_FUNCTIONS:
                raise Refused(
                    f"table function {name or '?'}() is not allowed; allowed: {', '.join(sorted(TABLE_FUNCTIONS))}"
                )
    return query


class PublicCopy:
    """The public views of a published database, as tables in a file of the server's own, remade when the
    published file changes (a new build)."""

    def __init__(self, database: Path, views: list[str]):
        self.database = Path(database)
        self.views = views
        self.folder = Path(tempfile.mkdtemp(prefix="gpu-atlas-mcp-"))
        self._lock = threading.Lock()
        self._made_from: tuple | None = None
        self._generation = 0

    def _stamp(self) -> tuple:
        real = self.database.resolve()
        st = real.stat()
        return (str(real), st.st_ino, st.st_size, st.st_mtime_ns)

    def path(self) -> Path:
        """The copy for the database as published now (made on first use, remade after a build)."""
        with self._lock:
            stamp = self._stamp()
            if stamp != self._made_from:
                self._generation += 1
                target = self.folder / f"public-{self._generation}.duckdb"
                con = duckdb.connect(str(target))
                try:
                    con.execute(f"attach {path_literal(stamp[0])} as published (read_only)")
                    for view in self.views:
                        con.execute(f'create table main."{view}" as select * from published."{view}"')
                    con.execute("detach published")
                    con.execute("checkpoint")
                finally:
                    con.close()
                for old in self.folder.glob("public-*.duckdb"):
                    if old != target:
                        old.unlink(missing_ok=True)
                self._made_from = stamp
            return self.folder / f"public-{self._generation}.duckdb"

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def run(copy: Path, query: str) -> dict[str, Any]:
    """Check and run a query in a process of its own on the copy (the server never parses the hostile text
    itself); its answer, or Refused with why it was refused or stopped."""
    if not isinstance(query, str) or len(query) > QUERY_LIMIT:
        raise Refused(f"a query is a text of at most {QUERY_LIMIT:,} characters")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pipeline.mcp_sql", str(copy)],
            input=query.encode("utf-8"),
            capture_output=True,
            timeout=SECONDS + KILL_AFTER,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
    except subprocess.TimeoutExpired as exc:
        raise Refused(f"the query ran longer than {SECONDS:g} s and was stopped") from exc
    if done.returncode != 0:
        raise Refused(f"the query ended its process (exit {done.returncode}); nothing else was affected")
    answer = json.loads(done.stdout.decode("utf-8"))
    if "error" in answer:
        raise Refused(answer["error"])
    return answer


def _cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        return [_cell(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _cell(v) for k, v in value.items()}
    return str(value)


def _answer(copy: str, query: str) -> dict[str, Any]:
    """In the query's own process: check it against the copy's tables (the public views), run it and collect at
    most ROW_LIMIT rows and BYTE_LIMIT bytes."""
    con = duckdb.connect(
        copy,
        read_only=True,
        config={
            "enable_external_access": False,
            "autoinstall_known_extensions": False,
            "autoload_known_extensions": False,
            "allow_community_extensions": False,
            "threads": 1,
            "memory_limit": MEMORY_LIMIT,
            "max_temp_directory_size": "0KB",
            "lock_configuration": True,
        },
    )
    timer = threading.Timer(SECONDS, con.interrupt)
    timer.start()
    try:
        views = frozenset(r[0].lower() for r in con.execute("select table_name from duckdb_tables()").fetchall())
        cur = con.execute(check(query, views))
        columns = [d[0] for d in cur.description]
        rows, size, cut = [], 2, None
        while True:
            row = cur.fetchone()
            if row is None:
                break
            if len(rows) == ROW_LIMIT:
                cut = "rows"
                break
            cells = [_cell(v) for v in row]
            text = json.dumps(cells, default=str)
            if size + len(text) + 1 > BYTE_LIMIT:
                cut = "bytes"
                break
            rows.append(cells)
            size += len(text) + 1
    except duckdb.InterruptException:
        return {"error": f"the query ran longer than {SECONDS:g} s and was stopped"}
    except (Refused, duckdb.Error) as exc:
        return {"error": str(exc)}
    finally:
        timer.cancel()
        con.close()
    return {
        "columns": columns,
        "rows": rows,
        "truncated": cut is not None,
        "truncated_by": cut,
        "row_limit": ROW_LIMIT,
        "byte_limit": BYTE_LIMIT,
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(_answer(sys.argv[1], sys.stdin.read())))
