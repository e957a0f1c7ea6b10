"""Ingest: one raw_<kind> table per kind of source file, read as it is, with provenance.
Each raw table has a blocking pandera check: a broken rule stops everything downstream."""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipeline import steps
from pipeline.errors import SourceError
from pipeline.sourcefiles import KINDS

from .resources import AtlasPaths

# raw tables whose checks look up ids in another raw table (the schemas' foreign keys, declared once in steps)
UPSTREAM = {kind: [f"raw_{table}" for _, table in keys] for kind, keys in steps.RAW_FOREIGN_KEYS.items()}


def problems_metadata(problems) -> dict:
    shown = "\n".join(str(p) for p in problems[:200])
    return {"problem_count": len(problems), "problems": dg.MetadataValue.text(shown)}


def raw_asset(kind_name: str) -> tuple[dg.AssetsDefinition, dg.AssetChecksDefinition]:
    kind = KINDS[kind_name]

    @dg.asset(
        name=f"raw_{kind_name}",
        group_name="ingest",
        kinds={"duckdb", "csv"},
        deps=UPSTREAM.get(kind_name, []),
        description=f"Files sources/{kind.pattern}, read as text with their file, line and source id."
        + (" Beside them, core_providers: each provider folder's provider.yml." if kind_name == "prices" else ""),
    )
    def _asset(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
        with database.get_connection() as con:
            rows, problems = steps.ingest(con, atlas_paths.sources, kind_name)
            files = con.execute(f"select count(distinct source_file) from raw_{kind_name}").fetchone()[0]
        if problems:
            raise SourceError(problems)
        return dg.MaterializeResult(metadata={"rows": rows, "files": files})

    @dg.asset_check(
        asset=_asset,
        name="schema",
        blocking=True,
        description=f"pandera schema for {kind_name}: types, units, ranges, keys, cross-row rules",
    )
    def _check(database: DuckDBResource) -> dg.AssetCheckResult:
        with database.get_connection() as con:
            problems = steps.validate_raw(con, kind_name)
        return dg.AssetCheckResult(
            passed=not problems, severity=dg.AssetCheckSeverity.ERROR, metadata=problems_metadata(problems)
        )

    return _asset, _check


_raw = [raw_asset(name) for name in KINDS]
raw_assets = [a for a, _ in _raw]
raw_checks = [c for _, c in _raw]


@dg.asset(
    group_name="ingest",
    kinds={"duckdb", "yaml"},
    description="Every snapshot file and every document its provenance sidecar lists (sources/**/*.source.yml).",
)
def core_sources(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    with database.get_connection() as con:
        rows, problems = steps.load_sources(con, atlas_paths.sources)
    if problems:
        raise SourceError(problems)
    return dg.MaterializeResult(metadata={"rows": rows})


@dg.asset(
    group_name="core",
    kinds={"duckdb", "yaml"},
    description="Every assumption (pipeline/parameters.yml) and ranking weight (pipeline/ranking.yml).",
)
def core_parameters(database: DuckDBResource) -> dg.MaterializeResult:
    with database.get_connection() as con:
        rows = steps.load_parameters(con)
    return dg.MaterializeResult(metadata={"rows": rows})


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(assets=[*raw_assets, core_sources, core_parameters], asset_checks=raw_checks)
