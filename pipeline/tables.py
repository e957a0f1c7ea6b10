"""Every table of the database with its contract: what one row is (grain), the tables it reads, its columns (type,
meaning, unit), its checks and the public views over it.

The layers:
- staging: `raw_<kind>`, one per kind of source file, read as text by `steps.ingest`. Its contract is the kind's
  pandera schema (pipeline/schemas/): the columns in the file's order, each with the type it must read as; nothing
  is repeated in a .yml.
- core and marts: `pipeline/sql/core/` and `pipeline/sql/marts/`, one `<table>.sql` per derived table and its
  contract `<table>.yml` beside it. A `.yml` without a `.sql` is a table a Python step writes (`asset:` names it).

A `<table>.yml`: `grain`; `reads`, the tables it reads (explicit: the asset graph is built from them, and a test
holds them against what DuckDB's parser finds in the SQL); `columns`, in the table's order, each `name: TYPE`, or
`{type, description, unit}` where the column means something of its own; `checks`, each a query returning one row
per problem (or `python:`, a function of the connection and the sources folder returning problems), blocking unless
`severity: warn`; `views`, the public views over the table, each with what it `holds`, a `key` where its leading
columns tell rows apart, its `sql` unless it is `select * from <table>`, the other tables it `reads` and the
`columns` it adds or retypes. What a column means is in `pipeline/sql/columns.yml` (one meaning per name) unless a
table or view gives its own. Every file is read with a loader that refuses a key given twice."""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from pathlib import Path

from .config import SQL_DIR, SQL_LAYERS
from .sourcefiles.files import DuplicateKeyError, load_yaml

GLOSSARY_FILE = SQL_DIR / "columns.yml"
__all__ = [
    "Check",
    "Column",
    "ContractError",
    "DuplicateKeyError",
    "Table",
    "View",
    "asset_of",
    "column_doc",
    "glossary",
    "load_table",
    "raw_table",
    "sql_tables",
    "tables",
    "view_reads",
    "view_statements",
    "views",
]

TABLE_FIELDS = {"grain", "asset", "reads", "views", "columns", "checks"}
VIEW_FIELDS = {"grain", "holds", "key", "sql", "reads", "columns"}
CHECK_FIELDS = {"description", "sql", "python", "severity"}
COLUMN_FIELDS = {"type", "description", "unit"}
# the type a pandera column reads its text as, in DuckDB's words
PANDERA_TYPES = {"Int64": "BIGINT", "float64": "DOUBLE", "datetime64[ns]": "DATE"}


class ContractError(ValueError):
    """A contract file that is not what this module reads."""


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str | None  # None: no meaning anywhere (a test fails)
    unit: str | None = None


@dataclass(frozen=True)
class Check:
    table: str
    name: str
    description: str
    sql: str | None = None  # one row per problem: its columns, joined, say what is wrong
    python: str | None = None  # module.function(con, sources_dir) -> problems
    blocking: bool = True  # severity error (stops what reads the table) or warn (listed)

    def problems(self, con, sources_dir: Path | None = None) -> list[str]:
        """What is wrong, one line each (none: the check passes)."""
        if self.python:
            module, function = self.python.rsplit(".", 1)
            return [str(p) for p in getattr(importlib.import_module(module), function)(con, sources_dir)]
        return [" ".join("" if v is None else str(v) for v in row) for row in con.execute(self.sql).fetchall()]


@dataclass(frozen=True)
class View:
    name: str
    table: str
    grain: str
    holds: str
    key: tuple[str, ...]
    sql: str
    reads: frozenset[str]  # its table and the other tables it declares
    own: dict[str, Column]  # the columns it adds or retypes
    table_columns: dict[str, Column] = field(repr=False)

    @property
    def statement(self) -> str:
        return f"create or replace view {self.name} as {self.sql}"

    def column(self, name: str) -> Column | None:
        """A column of the view: its own, or its table's."""
        return self.own.get(name) or self.table_columns.get(name)


@dataclass(frozen=True)
class Table:
    name: str
    layer: str  # staging, core or marts
    grain: str
    reads: frozenset[str]
    columns: dict[str, Column]
    checks: dict[str, Check]
    views: dict[str, View]
    contract: Path  # the file that declares it: its <table>.yml, or a raw table's pandera schema module
    sql_file: Path | None  # the SQL that builds it; None: a Python step writes it
    asset: str  # the Dagster asset that writes it


def _read(path: Path):
    """A contract file's data; a key given twice is refused, naming the file and the lines."""
    try:
        return load_yaml(path.read_text(encoding="utf-8"))
    except DuplicateKeyError as error:
        raise DuplicateKeyError(f"{path}: {error}") from None


@functools.cache
def glossary() -> dict[str, dict]:
    """What each column name means (description, unit) wherever a table does not say otherwise."""
    return _mapping(_read(GLOSSARY_FILE), GLOSSARY_FILE, "the glossary")


def _mapping(value, path: Path, what: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ContractError(f"{path}: {what} is not a mapping")
    return value


def _keys(spec: dict, allowed: set[str], path: Path, what: str) -> None:
    unknown = set(spec) - allowed
    if unknown:
        raise ContractError(f"{path}: {what} has unknown key(s) {sorted(unknown)} (known: {sorted(allowed)})")


def _column(name: str, spec, path: Path, what: str) -> Column:
    if isinstance(spec, str):
        spec = {"type": spec}
    spec = _mapping(spec, path, f"{what} column {name}")
    _keys(spec, COLUMN_FIELDS, path, f"{what} column {name}")
    if not spec.get("type"):
        raise ContractError(f"{path}: {what} column {name} has no type")
    meaning = glossary().get(name) or {}
    return Column(
        name,
        str(spec["type"]),
        spec.get("description") or meaning.get("description"),
        spec.get("unit", meaning.get("unit")),
    )


def _columns(spec, path: Path, what: str) -> dict[str, Column]:
    return {name: _column(name, c, path, what) for name, c in _mapping(spec, path, f"{what} columns").items()}


def _names(value, path: Path, what: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ContractError(f"{path}: {what} is not a list of table names")
    return frozenset(value)


def _check(table: str, name: str, spec, path: Path) -> Check:
    spec = _mapping(spec, path, f"check {name}")
    _keys(spec, CHECK_FIELDS, path, f"check {name}")
    if bool(spec.get("sql")) == bool(spec.get("python")) or not spec.get("description"):
        raise ContractError(f"{path}: check {name} needs a description and either sql or python")
    if spec.get("severity", "error") not in ("error", "warn"):
        raise ContractError(f"{path}: check {name}: severity is error or warn")
    return Check(
        table, name, spec["description"], spec.get("sql"), spec.get("python"), spec.get("severity", "error") == "error"
    )


def _view(table: str, grain: str, columns: dict[str, Column], name: str, spec, path: Path) -> View:
    spec = _mapping(spec, path, f"view {name}")
    _keys(spec, VIEW_FIELDS, path, f"view {name}")
    if not spec.get("holds"):
        raise ContractError(f"{path}: view {name} does not say what it holds")
    return View(
        name,
        table,
        spec.get("grain", grain),
        spec["holds"],
        tuple(spec.get("key") or ()),
        spec.get("sql") or f"select * from {table}",
        _names(spec.get("reads", []), path, f"view {name} reads") | {table},
        _columns(spec.get("columns"), path, f"view {name}"),
        columns,
    )


def load_table(path: Path) -> Table:
    """One table from its <table>.yml (the .sql beside it, if any, builds it)."""
    name, layer = path.stem, path.parent.name
    spec = _mapping(_read(path), path, "the contract")
    _keys(spec, TABLE_FIELDS, path, "the contract")
    for required in ("grain", "reads", "columns"):
        if required not in spec:
            raise ContractError(f"{path}: no {required}")
    sql_file = path.with_suffix(".sql")
    sql_file = sql_file if sql_file.is_file() else None
    if (sql_file is None) == (not spec.get("asset")):
        raise ContractError(f"{path}: `asset` names the Python step of a table without a .sql, and only of one")
    columns = _columns(spec["columns"], path, "table")
    checks = {n: _check(name, n, c, path) for n, c in _mapping(spec.get("checks"), path, "checks").items()}
    table_views = {
        n: _view(name, spec["grain"], columns, n, v, path)
        for n, v in _mapping(spec.get("views"), path, "views").items()
    }
    reads = _names(spec["reads"], path, "reads")
    return Table(
        name, layer, spec["grain"], reads, columns, checks, table_views, path, sql_file, spec.get("asset") or name
    )


def raw_table(kind_name: str) -> Table:
    """raw_<kind> as its pandera schema declares it: the file's columns (required, optional), the sidecar's and the
    provenance, each with the type its text must read as and its meaning (the schema's description, else the
    glossary's)."""
    from .schemas import RAW_SCHEMAS
    from .sourcefiles import KINDS, PROVENANCE_COLUMNS

    kind = KINDS[kind_name]
    schema = RAW_SCHEMAS[kind_name]().columns
    columns = {}
    for name in (*kind.columns, *kind.optional, *kind.sidecar_columns, *PROVENANCE_COLUMNS):
        declared = schema.get(name)  # a sidecar's and the provenance columns are text (source_row a number)
        kind_of = PANDERA_TYPES.get(str(declared.dtype), "VARCHAR") if declared else "VARCHAR"
        meaning = glossary().get(name) or {}
        columns[name] = Column(
            name,
            "INTEGER" if name == "source_row" else kind_of,
            (declared.description if declared else None) or meaning.get("description"),
            meaning.get("unit"),
        )
    module = RAW_SCHEMAS[kind_name].__module__.rsplit(".", 1)[-1]
    return Table(
        f"raw_{kind_name}",
        "staging",
        f"line of a sources/{kind.pattern} file",
        frozenset(),
        columns,
        {},
        {},
        SQL_DIR.parent / "schemas" / f"{module}.py",
        None,
        f"raw_{kind_name}",
    )


@functools.cache
def tables() -> dict[str, Table]:
    """Every table of the database, by name: staging (from the pandera schemas), core and marts (their .yml)."""
    from .sourcefiles import KINDS

    found = [raw_table(kind) for kind in KINDS]
    found += [load_table(path) for layer in SQL_LAYERS for path in sorted((SQL_DIR / layer).glob("*.yml"))]
    return _by_name(found, "table")


@functools.cache
def views() -> dict[str, View]:
    """Every public view, by name (in name order)."""
    return _by_name([v for t in tables().values() for v in t.views.values()], "view")


def _by_name(items: list, what: str) -> dict:
    """Tables or views by name, in name order; a name declared twice is refused."""
    found: dict = {}
    for item in items:
        if item.name in found:
            raise ContractError(f"{what} {item.name} is declared twice")
        found[item.name] = item
    return dict(sorted(found.items()))


def sql_tables() -> dict[str, Table]:
    """The tables a pipeline/sql/<layer>/<table>.sql builds."""
    return {name: t for name, t in tables().items() if t.sql_file}


def asset_of(table: str) -> str:
    """The asset that writes a table (the parameters step writes core_ranking_weights beside core_parameters, the
    price files' step core_providers beside raw_prices)."""
    return tables()[table].asset


def view_statements() -> dict[str, str]:
    """Each public view with the statement that creates it."""
    return {name: v.statement for name, v in views().items()}


def view_reads() -> dict[str, set[str]]:
    """Each public view with the tables it reads."""
    return {name: set(v.reads) for name, v in views().items()}


def column_doc(view: str, column: str) -> str | None:
    """What a public view's column means: the view's own meaning, its table's, or the glossary's."""
    found = views()[view].column(column) if view in views() else None
    return found.description if found else None


def column_unit(view: str, column: str) -> str | None:
    """The unit a public view's column is in (None: a count, a name, a flag or a ratio without one)."""
    found = views()[view].column(column) if view in views() else None
    return found.unit if found else None
