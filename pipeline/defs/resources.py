"""Resources: where the database, the sources and the build outputs live (configurable)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipeline.config import paths


class AtlasPaths(dg.ConfigurableResource):
    """Folders the pipeline reads and writes. Defaults come from pipeline.config (env vars)."""

    sources_dir: str
    docs_dir: str
    site_dir: str
    exports_dir: str
    handwritten_dir: str
    mkdocs_config: str
    # re-render only the pages whose Markdown changed, starting from a copy of the last site (price refresh)
    incremental_site: bool = False

    @property
    def sources(self) -> Path:
        return Path(self.sources_dir)


def default_resources(database: Path | None = None, build: Path | None = None, incremental: bool = False) -> dict:
    p = paths()
    db = database or p.database
    build = build or p.build
    return {
        "database": DuckDBResource(database=str(db), connection_config={"threads": 2}),
        "atlas_paths": AtlasPaths(
            sources_dir=str(p.sources),
            docs_dir=str(build / "docs"),
            site_dir=str(build / "site"),
            exports_dir=str(build / "docs" / "downloads"),
            handwritten_dir=str(p.handwritten),
            mkdocs_config=str(p.mkdocs_config),
            incremental_site=incremental,
        ),
    }


@dg.definitions
def resources() -> dg.Definitions:
    return dg.Definitions(resources=default_resources())
