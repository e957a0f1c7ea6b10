"""Resources: where the database, the sources and the build outputs live, and the one publish of a run.

Every run of the definitions (the command line's `gpu-atlas build` and `refresh-prices`, the Dagster UI, `dagster
job execute`, a schedule, a sensor, one asset materialised by hand) gets the resources of `default_resources()`:
the first of them set up for the run opens a new generation under the build lock (pipeline/run.py; a copy of the
current one when only part of the graph runs), every step writes there, and the last one torn down publishes it
with the one rename, only when no step failed and every blocking check passed; otherwise the generation is removed
and the current build stays as it was. Resources given folders of their own (tests) publish nothing."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource
from pydantic import PrivateAttr

from pipeline.config import paths
from pipeline.run import Generation, current_generation


def _run_id(context: dg.InitResourceContext) -> str | None:
    return context.run.run_id if context.run is not None else None


class RunGenerations:
    """The generation of each run, shared by the run's resources (reference counted): opened by the first,
    finished (published or removed) by the last."""

    _guard = threading.Lock()
    _open: dict[str, list] = {}  # run id -> [Generation, users, a resource failed]

    @classmethod
    def acquire(cls, context: dg.InitResourceContext) -> Generation | None:
        """The run's generation, opened by the first caller; None for resources built again after the run ended
        (`dagster job execute` does, to load outputs): they read the current build and publish nothing."""
        if cls._finished(context):
            return None
        run_id = _run_id(context) or "no-run"
        with cls._guard:
            if run_id in cls._open:
                cls._open[run_id][1] += 1
                return cls._open[run_id][0]
            generation = Generation(paths(), partial=cls._partial(context)).open()
            cls._open[run_id] = [generation, 1, False]
        if context.log:
            start = f"from a copy of the current one: {generation.blocker or 'partial run'}"
            context.log.info(
                f"writing into generation {generation.path.name}" + (f" ({start})" if generation.partial else "")
            )
        return generation

    @classmethod
    def release(cls, context: dg.InitResourceContext, failed: bool = False) -> None:
        """One resource is done with the generation (`failed`: it could not be set up); the last one publishes it,
        unless a step, a blocking check or a resource failed."""
        run_id = _run_id(context) or "no-run"
        with cls._guard:
            entry = cls._open.get(run_id)
            if entry is None:  # nothing opened (a run already finished), or released already
                return
            entry[1] -= 1
            entry[2] = entry[2] or failed
            if entry[1] > 0:
                return
            del cls._open[run_id]
        generation = entry[0]
        failures = (["a resource could not be set up"] if entry[2] else []) + cls._failures(context)
        generation.finish(failed=bool(failures))
        if not context.log:
            return
        if failures:
            context.log.error("nothing published; the current build is untouched: " + "; ".join(failures[:5]))
        else:
            context.log.info(f"published generation {generation.path.name}")

    @staticmethod
    def _finished(context: dg.InitResourceContext) -> bool:
        if context.instance is None or _run_id(context) is None:
            return False
        run = context.instance.get_run_by_id(_run_id(context))
        return run is not None and run.is_finished

    @staticmethod
    def _partial(context: dg.InitResourceContext) -> bool:
        """Whether the run materialises only part of the asset graph (then it starts from a copy). A named job
        (price_refresh) is part of it; the asset job is all of it unless the run selected fewer assets (the UI's
        "Materialize all" selects each one). The one import of the definitions below them, at run time."""
        run = context.run
        if run is None or run.job_name != "__ASSET_JOB":
            return True
        if not run.asset_selection:
            return False
        from pipeline.definitions import defs

        return not set(defs.resolve_asset_graph().materializable_asset_keys) <= set(run.asset_selection)

    @staticmethod
    def _failures(context: dg.InitResourceContext) -> list[str]:
        """Failed steps and failed blocking checks of the run so far (read from the run's event log)."""
        instance, run_id = context.instance, _run_id(context)
        if instance is None or run_id is None:
            return ["no run to check"]
        failures = []
        for record in instance.get_records_for_run(run_id, of_type=dg.DagsterEventType.STEP_FAILURE, limit=100).records:
            failures.append(f"step {record.event_log_entry.step_key} failed")
        for record in instance.get_records_for_run(
            run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION, limit=1000
        ).records:
            evaluation = record.event_log_entry.dagster_event.event_specific_data
            if not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR:
                failures.append(f"check {evaluation.asset_key.to_user_string()}:{evaluation.check_name} failed")
        return failures


def _folder(generation: Generation | None) -> Path:
    """The folder a publishing resource works in: the run's generation, or the current build's for resources built
    again after the run ended."""
    if generation is not None:
        return generation.path
    return current_generation(paths()) or paths().build


class AtlasDuckDB(DuckDBResource):
    """The DuckDB resource, holding the database open for the whole run: each step gets a cursor on the open
    database instead of reopening the file (which costs about 15 ms a step, a fifth of a small SQL step).
    With `publish`, the database is the one in the run's new generation (see RunGenerations)."""

    publish: bool = False
    _held: Any = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        database, read_only = self.database, False
        if self.publish:
            generation = RunGenerations.acquire(context)
            database = str(_folder(generation) / paths().database.name)
            read_only = generation is None  # the current build's database: read, never written
        try:
            self._held = duckdb.connect(database, read_only=read_only, config=self.connection_config)
        except BaseException:
            if self.publish:
                RunGenerations.release(context, failed=True)
            raise

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._held is not None:
            self._held.close()  # checkpointed and closed before the generation may be published
            self._held = None
        if self.publish:
            RunGenerations.release(context)

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
    """Folders the pipeline reads and writes; a folder not given is pipeline.config's (environment variables, read
    when the run starts). With `publish`, the generated pages, downloads and site go to the run's new generation
    (see RunGenerations)."""

    sources_dir: str = ""
    docs_dir: str = ""
    site_dir: str = ""
    exports_dir: str = ""
    handwritten_dir: str = ""
    mkdocs_config: str = ""
    # re-render only the pages whose Markdown changed, starting from the last site (set by the run's generation)
    incremental_site: bool = False
    publish: bool = False
    _root: Any = PrivateAttr(default=None)
    _incremental: bool = PrivateAttr(default=False)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        if self.publish:
            generation = RunGenerations.acquire(context)
            self._root = _folder(generation)
            self._incremental = generation is not None and generation.incremental

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self.publish:
            self._root = None
            RunGenerations.release(context)

    @property
    def sources(self) -> Path:
        return Path(self.sources_dir) if self.sources_dir else paths().sources

    @property
    def handwritten(self) -> Path:
        return Path(self.handwritten_dir) if self.handwritten_dir else paths().handwritten

    @property
    def mkdocs(self) -> Path:
        return Path(self.mkdocs_config) if self.mkdocs_config else paths().mkdocs_config

    @property
    def docs(self) -> Path:
        return self._root / "docs" if self._root is not None else Path(self.docs_dir)

    @property
    def site(self) -> Path:
        return self._root / "site" if self._root is not None else Path(self.site_dir)

    @property
    def exports(self) -> Path:
        return self._root / "docs" / "downloads" if self._root is not None else Path(self.exports_dir)

    @property
    def incremental(self) -> bool:
        return self._incremental if self._root is not None else self.incremental_site


def default_resources() -> dict:
    """The resources of every run: each run writes into a new generation it opens and publishes itself."""
    return {
        "database": AtlasDuckDB(database=str(paths().database), connection_config={"threads": 2}, publish=True),
        "atlas_paths": AtlasPaths(publish=True),
    }


@dg.definitions
def resources() -> dg.Definitions:
    # One DuckDB file takes one writer process: jobs run their steps in one process, one after another
    # (in the UI and the daemon too), sharing the connection AtlasDuckDB holds open for the run.
    return dg.Definitions(resources=default_resources(), executor=dg.in_process_executor)
