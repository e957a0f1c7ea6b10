"""The pipeline's work as plain functions of a DuckDB connection. Dagster assets call these;
tests call them directly."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd

from . import assumptions, schemas
from .config import MACRO_FILES, PARAMETERS_FILE, PACKAGE
from .db import _ident, create_table_from_frame, create_table_from_sql, row_count, sql_text
from .errors import Problem
from .sourcefiles import KINDS, PROVENANCE_COLUMNS, read_kind, source_rows

# what the tables' contracts say (pipeline/tables.py), also read through this module by the page families' assets
from .tables import asset_of as asset_of, view_reads as view_reads, view_statements as view_statements

RANKING_FILE = PACKAGE / "ranking.yml"

# upstream tables a raw schema needs (known ids for foreign keys)
RAW_FOREIGN_KEYS = {
    "spec_figures": [("gpu_ids", "gpus")],
    "claims": [("gpu_ids", "gpus")],
    "aliases": [("gpu_ids", "gpus")],
    "model_claims": [("model_ids", "models")],
    "measurements": [("gpu_ids", "gpus"), ("model_ids", "models")],
    "serving_measurements": [("gpu_ids", "gpus"), ("model_ids", "models")],
    "training_measurements": [("gpu_ids", "gpus"), ("model_ids", "models")],
}


# ------------------------------------------------------------------ ingest
def ingest(con: duckdb.DuckDBPyConnection, sources_dir: Path, kind_name: str) -> tuple[int, list[Problem]]:
    """Read one kind of source file into raw_<kind>: every value as text, plus provenance.
    Returns the row count and file-level problems (missing sidecar, bad checksum, bad header)."""
    kind = KINDS[kind_name]
    frame, _, problems = read_kind(sources_dir, kind)
    table = _ident(f"raw_{kind_name}")
    columns = list(kind.columns) + list(kind.optional) + list(kind.sidecar_columns) + list(PROVENANCE_COLUMNS)
    ddl = ", ".join(f"{c} {'integer' if c == 'source_row' else 'varchar'}" for c in columns)
    con.execute(f"create or replace table {table} ({ddl})")
    if len(frame):
        con.register("_raw", frame[columns])
        try:
            con.execute(f"insert into {table} select * from _raw")
        finally:
            con.unregister("_raw")
    if kind_name == "prices":  # the price files' folders: one per provider, described by its provider.yml
        problems = problems + load_providers(con, sources_dir)
    return row_count(con, table), problems


PROVIDER_COLUMNS = ("provider", "name", "market", "currency", "terms", "colour", "fetcher", "file")


def load_providers(con: duckdb.DuckDBPyConnection, sources_dir: Path) -> list[Problem]:
    """core_providers: one row per provider folder of sources/prices/, as its provider.yml says (written by the
    price files' asset, so a price refresh re-reads it). Returns the problems of the provider.yml files."""
    from .sourcefiles import read_providers

    found, problems = read_providers(sources_dir)
    con.execute(f"create or replace table core_providers ({', '.join(f'{c} varchar' for c in PROVIDER_COLUMNS)})")
    rows = [[r[c] for c in PROVIDER_COLUMNS] for _, r in sorted(found.items())]
    if rows:
        con.executemany(f"insert into core_providers values ({', '.join('?' * len(PROVIDER_COLUMNS))})", rows)
    return problems


def load_sources(con: duckdb.DuckDBPyConnection, sources_dir: Path) -> tuple[int, list[Problem]]:
    """core_sources: one row per snapshot file and per document its sidecar lists."""
    from .sourcefiles import discover, load_terms, read_sidecar

    records, problems = [], list(load_terms(sources_dir)[1])
    for kind in KINDS.values():
        for path in discover(sources_dir, kind):
            meta, probs = read_sidecar(path, sources_dir)
            problems += probs
            rows = max(0, sum(1 for line in path.read_bytes().splitlines() if line.strip()) - 1)
            records.append(
                {
                    "snapshot_id": str(path.relative_to(sources_dir).with_suffix("")),
                    "file": str(path.relative_to(sources_dir.parent)),
                    "meta": meta,
                    "rows": rows,
                }
            )
    rows = source_rows(records)
    frame = pd.DataFrame(
        rows,
        columns=[
            "source_id",
            "kind",
            "title",
            "publisher",
            "url",
            "accessed_on",
            "published_on",
            "licence",
            "terms_url",
            "terms_read_on",
            "terms_automated_collection",
            "terms_republication",
            "terms_summary",
            "snapshot_id",
            "file",
            "checksum",
            "rows",
        ],
    )
    clash = frame.groupby("source_id")["url"].nunique()
    for source_id in clash[clash > 1].index:
        files = ", ".join(sorted(set(frame.loc[frame["source_id"] == source_id, "file"])))
        problems.append(Problem(files, None, "documents", "one document id names two different URLs", source_id))
    frame = frame.drop_duplicates("source_id")
    frame["accessed_on"] = pd.to_datetime(frame["accessed_on"], errors="coerce").dt.date
    frame["published_on"] = pd.to_datetime(frame["published_on"], errors="coerce").dt.date
    frame["terms_read_on"] = pd.to_datetime(frame["terms_read_on"], errors="coerce").dt.date
    return create_table_from_frame(con, "core_sources", frame), problems


def validate_raw(con: duckdb.DuckDBPyConnection, kind_name: str) -> list[Problem]:
    """Run the kind's pandera schema over raw_<kind>; every broken rule, named by file/row/column."""
    table = _ident(f"raw_{kind_name}")
    frame = con.execute(f"select * from {table}").df().astype(object)
    frame = frame.where(frame.notna(), None)
    factory = schemas.RAW_SCHEMAS[kind_name]
    known = {}
    for arg, upstream in RAW_FOREIGN_KEYS.get(kind_name, []):
        key = "gpu_id" if upstream == "gpus" else "model_id"
        known[arg] = [
            r[0] for r in con.execute(f"select distinct {key} from raw_{upstream} where {key} is not null").fetchall()
        ]
    schema = factory(**known)
    return schemas.validate(schema, frame)


# ------------------------------------------------------------------ parameters
def load_parameters(
    con: duckdb.DuckDBPyConnection, parameters_file: Path = PARAMETERS_FILE, ranking_file: Path = RANKING_FILE
) -> int:
    """core_parameters and core_ranking_weights from the YAML files, plus the SQL macros
    `param(name)` and `param_list(name)` the SQL stage reads them with."""
    params, ranking = assumptions.load(parameters_file, ranking_file)
    rows = []
    for name, spec in params.items():
        value = spec["value"]
        rows.append(
            {
                "name": name,
                "value": float(value) if isinstance(value, (int, float)) else None,
                "value_list": [float(v) for v in value] if isinstance(value, list) else None,
                "value_text": value if isinstance(value, str) else None,
                "unit": spec.get("unit"),
                "description": spec.get("description"),
                "citation": spec.get("citation"),
            }
        )
    rows.append(
        {
            "name": "reference_model",
            "value": None,
            "value_list": None,
            "value_text": ranking["reference_model"],
            "unit": "model",
            "description": "Model whose decode speed feeds the inference ranking",
            "citation": None,
        }
    )
    rows.append(
        {
            "name": "reference_training_model",
            "value": None,
            "value_list": None,
            "value_text": ranking["reference_training_model"],
            "unit": "model",
            "description": "Model whose fine-tuning throughput feeds the training ranking",
            "citation": None,
        }
    )
    frame = pd.DataFrame(rows)
    con.execute("""create or replace table core_parameters (
        name varchar primary key, value double, value_list double[], value_text varchar,
        unit varchar, description varchar, citation varchar)""")
    con.register("_p", frame)
    try:
        con.execute("insert into core_parameters select * from _p")
    finally:
        con.unregister("_p")
    weights = [
        {"workload": workload, "component": comp, "weight": float(spec["weight"]), "description": spec["description"]}
        for workload in ("training", "inference")
        for comp, spec in ranking[workload].items()
    ]
    create_table_from_frame(con, "core_ranking_weights", pd.DataFrame(weights))
    define_macros(con)
    return len(rows)


def define_macros(con: duckdb.DuckDBPyConnection) -> None:
    """param(name), param_list(name) and the serving model's formulas (pipeline/sql/macros/*.sql: params.sql
    first), stored in the database so that anyone querying the file can use them."""
    for path in MACRO_FILES:
        con.execute(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ SQL stage
def sql_description(table: str) -> str:
    lines = [ln[2:].strip() for ln in sql_text(table).splitlines() if ln.startswith("--")]
    head = []
    for ln in lines:
        head.append(ln)
        if ln.endswith("."):
            break
    return " ".join(head) or table


def build_table(con: duckdb.DuckDBPyConnection, table: str) -> int:
    define_macros(con)
    return create_table_from_sql(con, table)


def ensure_views(con: duckdb.DuckDBPyConnection, names: set[str]) -> None:
    """Create those of the named public views that the database lacks (a page family's asset runs once the tables
    its views read exist, maybe before `public_views`)."""
    present = {r[0] for r in con.execute("select view_name from duckdb_views() where not internal").fetchall()}
    statements = view_statements()
    for name in sorted(names - present):
        con.execute(statements[name])


def create_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every public view, as the tables' contracts declare them."""
    for statement in view_statements().values():
        con.execute(statement)
    return [
        r[0]
        for r in con.execute("select view_name from duckdb_views() where not internal order by view_name").fetchall()
    ]
