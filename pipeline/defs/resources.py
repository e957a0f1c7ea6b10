"""Resources: where the database, the sources and the build outputs live (configurable)."""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource
from pydantic import PrivateAttr

from pipeline.config import paths


class AtlasDuckDB(DuckDBResource):
    """The DuckDB resource, holding the database open for the whole run: each step gets a cursor on the open
    database instead of reopening the file (which costs about 15 ms a step, a fifth of a small SQL step)."""

    _held: Any = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        for attempt in range(8):  # another process (a second run) may hold the file's write lock for a while
            try:
                self._held = duckdb.connect(self.database, config=self.connection_config)
                return
            except duckdb.IOException:
                if attempt == 7:
                    raise
                time.sleep(0.25 * 2**attempt)

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None

    @contextmanager
    def get_connection(self):
        if self._held is None:  # used outside a run
            with super().get_connection() as con:
                yield con
            return
        cursor = self._held.cursor()
        try:
            yield cursor
        finally:
            cursor.close()


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
        "database": AtlasDuckDB(database=str(db), connection_config={"threads": 2}),
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
    # One DuckDB file takes one writer process: jobs run their steps in one process, one after another
    # (in the UI and the daemon too), sharing the connection AtlasDuckDB holds open for the run.
    return dg.Definitions(resources=default_resources(), executor=dg.in_process_executor)
