"""Resources: where the database, the sources and the build outputs live.

The command line hands a run the paths of the generation it opened (pipeline/run.py). Every other start of a
run (the Dagster UI, `dagster job execute`, a schedule, a sensor, one asset materialised by hand) gets the
resources of `default_resources()` without paths: the first of them set up for the run opens a new generation
under the build lock (a copy of the current one when only part of the graph runs), every step writes there,
and the last one torn down publishes it with the one rename, only when no step failed and every blocking check
passed; otherwise the generation is removed and the current build stays as it was."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource
from pydantic import PrivateAttr

from pipeline.config import paths


def _run_id(context: dg.InitResourceContext) -> str | None:
    return context.run.run_id if context.run is not None else None


class RunGenerations:
    """The generation of each Dagster-launched run, shared by the run's resources (reference counted)."""

    _guard = threading.Lock()
    _open: dict[str, list] = {}  # run id -> [Generation, users, incremental site, inputs to record]

    @classmethod
    def acquire(cls, context: dg.InitResourceContext) -> tuple[Path, bool]:
        """The folder of the run's generation (opened by the first caller) and whether the site is re-rendered
        incrementally in it."""
        from pipeline.run import Generation, _refresh_blocker, build_inputs, current_generation

        run_id = _run_id(context) or "no-run"
        if cls._finished(context):
            # resources built again after the run ended (`dagster job execute` does, to load outputs): they
            # read the current build and publish nothing
            return current_generation(paths()) or paths().build, False
        with cls._guard:
            if run_id in cls._open:
                cls._open[run_id][1] += 1
                return cls._open[run_id][0].path, cls._open[run_id][2]
            p = paths()
            partial = cls._partial(context)
            inputs = build_inputs(p)
            blocker = _refresh_blocker(p, inputs) if partial else ""
            generation = Generation(p, copy_current=partial).open()
            incremental_site = partial and not blocker
            # the inputs record says what the generation was built from: only a full run, or a partial run from
            # a build whose other inputs are unchanged, may record today's; otherwise the copied record stays
            record = inputs if (not partial or not blocker) else None
            cls._open[run_id] = [generation, 1, incremental_site, record]
            if context.log:
                context.log.info(
                    f"writing into generation {generation.path.name}"
                    + (f" (from a copy of the current one: {blocker or 'partial run'})" if partial else "")
                )
            return generation.path, incremental_site

    @classmethod
    def release(cls, context: dg.InitResourceContext) -> None:
        run_id = _run_id(context) or "no-run"
        with cls._guard:
            entry = cls._open.get(run_id)
            if entry is None:  # nothing opened (a run already finished), or released already
                return
            entry[1] -= 1
            if entry[1] > 0:
                return
            del cls._open[run_id]
        generation, _, _, record = entry
        try:
            failures = cls._failures(context)
            if failures:
                generation.discard()
                if context.log:
                    context.log.error("nothing published; the current build is untouched: " + "; ".join(failures[:5]))
            else:
                generation.publish(record)
                if context.log:
                    context.log.info(f"published generation {generation.path.name}")
        finally:
            generation.close()

    @staticmethod
    def _finished(context: dg.InitResourceContext) -> bool:
        if context.instance is None or _run_id(context) is None:
            return False
        run = context.instance.get_run_by_id(_run_id(context))
        return run is not None and run.is_finished

    @staticmethod
    def _partial(context: dg.InitResourceContext) -> bool:
        """Whether the run materialises only part of the asset graph (then it starts from a copy)."""
        run = context.run
        if run is None:
            return True
        from pipeline.definitions import defs

        everything = set(defs.resolve_asset_graph().materializable_asset_keys)
        if run.asset_selection is not None:
            return not everything <= set(run.asset_selection)
        return run.job_name != "__ASSET_JOB"

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


class AtlasDuckDB(DuckDBResource):
    """The DuckDB resource, holding the database open for the whole run: each step gets a cursor on the open
    database instead of reopening the file (which costs about 15 ms a step, a fifth of a small SQL step).
    With `publish`, the database is the one in the run's new generation (see RunGenerations)."""

    publish: bool = False
    _held: Any = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        database = self.database
        if self.publish:
            folder, _ = RunGenerations.acquire(context)
            database = str(folder / Path(self.database).name)
        try:
            for attempt in range(8):  # another process (a second run) may hold the file's write lock for a while
                try:
                    self._held = duckdb.connect(database, config=self.connection_config)
                    return
                except duckdb.IOException:
                    if attempt == 7:
                        raise
                    time.sleep(0.25 * 2**attempt)
        except BaseException:
            if self.publish:
                RunGenerations.release(context)
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
    """Folders the pipeline reads and writes. Defaults come from pipeline.config (env vars). With `publish`,
    the generated pages, downloads and site go to the run's new generation (see RunGenerations)."""

    sources_dir: str
    docs_dir: str = ""
    site_dir: str = ""
    exports_dir: str = ""
    handwritten_dir: str
    mkdocs_config: str
    # re-render only the pages whose Markdown changed, starting from a copy of the last site (price refresh)
    incremental_site: bool = False
    publish: bool = False
    _root: Any = PrivateAttr(default=None)
    _incremental: bool = PrivateAttr(default=False)
    _editions: Any = PrivateAttr(default=None)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        if self.publish:
            self._root, self._incremental = RunGenerations.acquire(context)
        self._start_site_builders(context)

    def teardown_after_execution(self, context: dg.InitResourceContext) -> None:
        if self._editions is not None:
            self._editions.stop()
        self._editions = None
        if self.publish:
            self._root = None
            RunGenerations.release(context)

    def _start_site_builders(self, context: dg.InitResourceContext) -> None:
        """A run that builds the site starts one MkDocs process per edition as soon as its first step sets these
        paths up: they import MkDocs and load jieba's dictionary on the core the pipeline leaves idle while it
        ingests, computes and renders, so the site step starts building at once (pipeline/render/editions.py)."""
        from pipeline.render import i18n
        from pipeline.render.editions import Editions, template_cache

        run = context.run
        selection = run.asset_selection if run is not None else None
        if selection and dg.AssetKey("site") not in selection:  # (none or empty: the whole graph)
            return  # this run builds no site
        if RunGenerations._finished(context):
            return  # resources built again after the run ended
        self._editions = Editions(self.mkdocs_config, i18n.LOCALES, template_cache()).start()

    def take_editions(self):
        """The editions' MkDocs processes started for this run's site, used once (None when none was started)."""
        editions, self._editions = self._editions, None
        return editions

    def pages_written(self, pages: list[str]) -> None:
        """Pages a page family wrote (paths in `docs`). In an incremental run the editions draft them while the
        run renders the other families (Editions.written); a full build renders every page at the end."""
        if self._editions is not None and self.incremental:
            self._editions.written(self.docs, self.site, pages)

    @property
    def sources(self) -> Path:
        return Path(self.sources_dir)

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


def default_resources(database: Path | None = None, build: Path | None = None, incremental: bool = False) -> dict:
    """The resources of a run: into the given database and build folder (the command line's generation), or,
    without them, into a new generation each run opens and publishes itself."""
    p = paths()
    if database is None and build is None:
        return {
            "database": AtlasDuckDB(database=str(p.database), connection_config={"threads": 2}, publish=True),
            "atlas_paths": AtlasPaths(
                sources_dir=str(p.sources),
                handwritten_dir=str(p.handwritten),
                mkdocs_config=str(p.mkdocs_config),
                publish=True,
            ),
        }
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
