"""The SQL stage: one asset per pipeline/sql/<layer>/<table>.sql, its dependencies the tables its <table>.yml
says it reads, and the checks that file declares."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipeline import steps
from pipeline.config import ROOT
from pipeline.db import preview
from pipeline.tables import Check, Table, asset_of, sql_tables, tables

from .resources import AtlasPaths


def sql_asset(table: Table) -> dg.AssetsDefinition:
    # the tables it reads, and the parameters: it is built with the SQL macros defined, which need core_parameters
    deps = sorted({asset_of(t) for t in table.reads} | {"core_parameters"})

    @dg.asset(
        name=table.name,
        group_name=table.name.split("_")[0],
        kinds={"duckdb", "sql"},
        deps=deps,
        description=steps.sql_description(table.name) + f" ({table.sql_file.relative_to(ROOT)})",
    )
    def _asset(database: DuckDBResource) -> dg.MaterializeResult:
        with database.get_connection() as con:
            rows = steps.build_table(con, table.name)
            md = preview(con, table.name)
        return dg.MaterializeResult(metadata={"rows": rows, "preview": dg.MetadataValue.md(md)})

    return _asset


sql_assets = [sql_asset(table) for table in sql_tables().values()]


@dg.asset(
    group_name="out",
    kinds={"duckdb"},
    deps=[a.key for a in sql_assets] + ["core_sources"],
    description="The public views: the stable contract for people who query the file (each declared in the "
    "<table>.yml of the table it shows).",
)
def public_views(database: DuckDBResource) -> dg.MaterializeResult:
    with database.get_connection() as con:
        views = steps.create_views(con)
    return dg.MaterializeResult(metadata={"views": len(views), "names": ", ".join(views)})


def table_check(check: Check) -> dg.AssetChecksDefinition:
    """A check of a table's contract, on the asset that writes the table: its problems, one line each; blocking
    unless its severity is warn."""

    @dg.asset_check(
        asset=asset_of(check.table),
        name=check.name,
        blocking=check.blocking,
        description=f"{check.description} ({check.table}.yml)",
    )
    def _check(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.AssetCheckResult:
        with database.get_connection() as con:
            problems = check.problems(con, Path(atlas_paths.sources))
        return dg.AssetCheckResult(
            passed=not problems,
            severity=dg.AssetCheckSeverity.ERROR if check.blocking else dg.AssetCheckSeverity.WARN,
            metadata={
                "problem_count": len(problems),
                "problems": dg.MetadataValue.text("\n".join(problems[:200])),
            },
        )

    return _check


table_checks = [table_check(c) for t in tables().values() for c in t.checks.values()]


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(assets=[*sql_assets, public_views], asset_checks=table_checks)
