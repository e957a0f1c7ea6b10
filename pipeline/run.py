"""Materialise the asset graph into a new generation folder, then make it current with one rename.

Each build writes its database, generated pages, site and inputs record into
`<build>/generations/<id>/`. `<build>/current` is a symlink to the current generation, replaced in one
atomic rename when a build succeeded; the database (`GPU_ATLAS_DB`), its inputs record, `<build>/docs`
and `<build>/site` are symlinks through `current`, so they change together: a reader, or a build killed
at any instant, sees the previous build or the new one, never a mix. A failed run leaves the last good
build current; older generations are removed once a new one is current.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from . import process
from .config import PACKAGE, ROOT, Paths, paths
from .sources import sha256

# a price change re-runs the price inputs and everything downstream of them, plus the source register
# (a new snapshot is a new source) and the page that lists it
PRICE_ROOTS = ["raw_prices", "raw_aliases"]
SOURCE_REGISTER = ["core_sources", "pages_sources"]
# the source folders a price refresh re-reads; a change anywhere else needs a full build
PRICE_SOURCE_DIRS = ("prices", "aliases")
GENERATIONS = "generations"  # <build>/generations/<id>/: one build's database, docs, site and inputs record
CURRENT = "current"  # <build>/current -> generations/<id>: the one rename that publishes a build
PREVIOUS = "previous"  # <build>/previous -> the generation current before the last publish
INPUTS = "inputs.json"


@dataclass
class Outcome:
    ok: bool
    seconds: float
    materialized: list[str] = field(default_factory=list)
    checks_passed: int = 0
    checks_warned: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    step_seconds: dict[str, float] = field(default_factory=dict)
    site: dict = field(default_factory=dict)  # the site step's metadata: pages rendered, incremental or full
    full_build_instead: bool = False  # a refresh could not start from the last build (see full_build_reason)
    full_build_reason: str = ""


def _definitions() -> dg.Definitions:
    from .definitions import defs

    return defs


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _link(link: Path, target: Path) -> None:
    """Make `link` a relative symlink to `target`, replacing a file or link atomically (a folder left by an
    earlier layout is moved aside first)."""
    relative = os.path.relpath(target, link.parent)
    if link.is_symlink() and os.readlink(link) == relative:
        return
    link.parent.mkdir(parents=True, exist_ok=True)
    tmp = link.with_name(f".{link.name}.link-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    os.symlink(relative, tmp)
    aside = None
    if link.is_dir() and not link.is_symlink():
        aside = link.with_name(f".{link.name}.old-{os.getpid()}")
        link.rename(aside)
    os.replace(tmp, link)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def current_generation(p: Paths) -> Path | None:
    """The generation folder the current build lives in, if any."""
    current = p.build / CURRENT
    return current.resolve() if current.is_symlink() and current.resolve().is_dir() else None


def previous_generation(p: Paths) -> Path | None:
    """The generation that was current before the last publish, kept until the next one (readers that opened
    it keep reading it; it is the build to go back to)."""
    previous = p.build / PREVIOUS
    return previous.resolve() if previous.is_symlink() and previous.resolve().is_dir() else None


def _publish(p: Paths, generation: Path) -> None:
    """Make the generation current: one atomic rename of the `current` symlink (after `previous` is pointed
    at the generation it replaces). Then the fixed links (created once; each is already right when it exists)
    and the removal of every generation but these two."""
    for path in (generation, generation / "site", generation / "docs"):
        if path.is_dir():
            _fsync_dir(path)
    old = current_generation(p)
    if old is not None and old != generation.resolve():
        _link(p.build / PREVIOUS, old)
    tmp = p.build / f".{CURRENT}.link-{os.getpid()}"
    tmp.unlink(missing_ok=True)
    os.symlink(Path(GENERATIONS) / generation.name, tmp)
    os.replace(tmp, p.build / CURRENT)  # the publish
    _fsync_dir(p.build)
    current = p.build / CURRENT
    _link(p.database, current / p.database.name)
    _link(_inputs_file(p), current / INPUTS)
    for sub in ("docs", "site"):
        _link(p.build / sub, current / sub)
    _clean(p)


def _clean(p: Paths) -> None:
    """Remove every generation but the current and the previous one (what killed builds left, and what builds
    of the earlier layout left)."""
    keep = {current_generation(p), previous_generation(p)}
    root = p.build / GENERATIONS
    if root.is_dir():
        for old in root.iterdir():
            if old.resolve() not in keep:
                shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(p.build / ".staging", ignore_errors=True)
    for stale in (
        p.database.with_name(p.database.name + ".staging"),
        p.database.with_name(p.database.name + ".staging.wal"),
    ):
        stale.unlink(missing_ok=True)


class BuildBusy(RuntimeError):
    """Another build (command line or Dagster run) holds the build folder."""


class Generation:
    """One build's folder under `<build>/generations/`, held under the build lock from open() to close().

    Every run writes into a new generation, whatever starts it (the command line, the Dagster UI, `dagster job
    execute`, a schedule or a sensor): from a copy of the current generation when only part of the graph runs,
    empty otherwise. publish() makes it current with the one rename; discard() removes it. The current
    generation is never written to."""

    def __init__(self, p: Paths, copy_current: bool):
        self.p = p
        self.copy_current = copy_current
        self.path: Path | None = None
        self._lock = None
        self._copying: threading.Thread | None = None
        self._copy_failed: BaseException | None = None

    def open(self, wait: bool = True) -> "Generation":
        """Take the build lock and make the generation's folder. With wait=False the copy of the current
        generation (a partial run's starting point, some 240 MB) goes on in a thread while the caller sets up its
        run; `ready()` waits for it."""
        p = self.p
        p.build.mkdir(parents=True, exist_ok=True)
        handle = open(p.build / ".lock", "w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise BuildBusy(f"another GPU Atlas build is running on {p.build}; wait for it to finish") from None
        self._lock = handle
        try:
            _clean(p)  # generations a killed build left
            root = p.build / GENERATIONS
            root.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%dT%H%M%S-"), dir=root))
            self.path.chmod(0o755)  # served and read like any build folder (mkdtemp makes it private)
            current = current_generation(p)
            if self.copy_current and current is not None:
                self._copying = threading.Thread(target=self._copy, args=(current,), name="generation-copy")
                self._copying.start()
                if wait:
                    self.ready()
        except BaseException:
            self.close()
            raise
        return self

    def _copy(self, current: Path) -> None:
        try:
            for name in (n for n in (self.p.database.name, "docs", "site", INPUTS) if (current / n).exists()):
                # copies keep modification times: the site build re-renders only pages rewritten since
                if (current / name).is_dir():
                    shutil.copytree(current / name, self.path / name)
                else:
                    shutil.copy2(current / name, self.path / name)
        except BaseException as exc:  # raised in the caller's thread by ready()
            self._copy_failed = exc

    def ready(self) -> None:
        """Wait for the copy of the current generation; raise what stopped it."""
        if self._copying is not None:
            self._copying.join()
            self._copying = None
        if self._copy_failed is not None:
            raise self._copy_failed

    @property
    def database(self) -> Path:
        return self.path / self.p.database.name

    def publish(self, inputs: dict[str, str] | None) -> None:
        """Record what the build read (None: keep the copied record) and make the generation current."""
        self.ready()
        Path(str(self.database) + ".wal").unlink(missing_ok=True)
        if inputs is not None:
            (self.path / INPUTS).write_text(json.dumps(inputs, indent=0, sort_keys=True), encoding="utf-8")
        _publish(self.p, self.path)

    def discard(self) -> None:
        if self._copying is not None:  # no copy may still write into the folder being removed
            self._copying.join()
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)

    def close(self) -> None:
        if self._copying is not None:  # the lock guards the copy too
            self._copying.join()
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None


def build_inputs(p: Paths) -> dict[str, str]:
    """Everything a build reads: every file under sources/ (data files and sidecars; a symlink leaving it is
    refused by the ingest), the pipeline's code, SQL and parameters, the hand-written pages, the MkDocs
    configuration and the locked dependencies. Path -> SHA-256."""

    def files(label: str, root: Path, keep=lambda rel: True):
        if root.is_dir():
            for path in root.rglob("*"):
                rel = path.relative_to(root)
                if path.is_file() and "__pycache__" not in rel.parts and keep(rel):
                    yield f"{label}/{rel.as_posix()}", path

    found = [*files("sources", p.sources), *files("pipeline", PACKAGE), *files("site", p.handwritten)]
    found += [
        (name, path)
        for name, path in (
            ("mkdocs.yml", p.mkdocs_config),
            ("mkdocs.zh.yml", p.mkdocs_config.with_name("mkdocs.zh.yml")),
            ("uv.lock", ROOT / "uv.lock"),
        )
        if path.is_file()
    ]
    return {name: sha256(path) for name, path in sorted(found)}


def _refresh_reads(name: str) -> bool:
    """An input a price refresh reads again itself (the price snapshots and alias tables)."""
    parts = name.split("/")
    return len(parts) > 2 and parts[0] == "sources" and parts[1] in PRICE_SOURCE_DIRS


def _inputs_file(p: Paths) -> Path:
    return p.database.with_name(p.database.stem + ".inputs.json")


def _refresh_blocker(p: Paths, inputs: dict[str, str]) -> str:
    """Why a price refresh cannot start from the last build ('' when it can)."""
    if not (p.database.is_file() and p.docs.is_dir() and p.site.is_dir()):
        return "no previous build to start from"
    try:
        recorded = json.loads(_inputs_file(p).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "the last build recorded no list of its inputs"
    changed = sorted(
        name
        for name in recorded.keys() | inputs.keys()
        if recorded.get(name) != inputs.get(name) and not _refresh_reads(name)
    )
    if not changed:
        return ""
    shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
    return f"{len(changed)} input(s) a price refresh does not re-read changed since the last build: {shown}"


def materialize(selection: dg.AssetSelection | None = None, incremental: bool = False) -> Outcome:
    """Run the graph (or `selection`) into staging, then swap.

    incremental: start from a copy of the current database and generated pages (price refresh). When the
    last build cannot be started from (none yet, or specs, models, code or hand-written pages changed since
    it), everything is built instead, so a refresh never mixes new inputs into an old build.
    """
    p = paths()
    inputs = build_inputs(p)
    reason = _refresh_blocker(p, inputs) if incremental else ""
    if reason:
        selection, incremental = None, False
    try:
        # the copy of the last build goes on while Dagster sets up the run (_materialize waits for it)
        generation = Generation(p, copy_current=incremental).open(wait=False)
    except BuildBusy as exc:
        raise SystemExit(str(exc)) from None
    try:
        outcome = _materialize(generation, selection, incremental, inputs)
    finally:
        generation.close()
    outcome.full_build_instead = bool(reason)
    outcome.full_build_reason = reason
    return outcome


def _materialize(
    generation: Generation, selection: dg.AssetSelection | None, incremental: bool, inputs: dict[str, str]
) -> Outcome:
    from .defs.resources import default_resources

    started = time.perf_counter()
    staging_db = generation.database
    staging_build = generation.path
    defs = _definitions()
    all_assets = list(defs.assets or [])
    checks = list(defs.asset_checks or [])
    kwargs = {}
    if selection:
        kwargs["selection"] = selection
    instance = dg.DagsterInstance.ephemeral()
    process.loaded()  # the garbage collector looks only at what the run makes (pipeline/process.py)
    try:
        generation.ready()  # the copy of the last build, made while the instance was set up
    except BaseException:
        generation.discard()
        raise
    result = dg.materialize(
        [*all_assets, *checks],
        resources=default_resources(staging_db, staging_build, incremental=incremental),
        instance=instance,
        raise_on_error=False,
        run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},
        **kwargs,
    )
    outcome = Outcome(ok=result.success, seconds=0.0)
    for event in result.get_asset_materialization_events():
        key = event.asset_key.to_user_string()
        outcome.materialized.append(key)
        if key == "site":
            metadata = event.materialization.metadata
            outcome.site = {
                k: metadata[k].value for k in ("html_pages", "pages_rendered", "incremental") if k in metadata
            }
    for ev in result.get_asset_check_evaluations():
        name = f"{ev.asset_key.to_user_string()}:{ev.check_name}"
        if ev.passed:
            outcome.checks_passed += 1
        else:
            md = ev.metadata.get("problems") or ev.metadata.get("names")
            text = md.value if md is not None else ""
            if ev.severity == dg.AssetCheckSeverity.WARN:
                lines = [ln for ln in str(text).splitlines() if ln.strip()]
                outcome.checks_warned.append(f"{name}: {len(lines)} item(s), first: {lines[0] if lines else ''}")
            else:
                outcome.errors.append(f"check {name} failed:\n{text}")
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            err = event.event_specific_data.error
            message = err.message if err else "step failed"
            cause = err.cause.message if err and err.cause else ""
            outcome.errors.append(f"{event.step_key} failed: {cause or message}".strip())
    # per-step wall time from the event log
    for stat in instance.get_run_step_stats(result.run_id):
        if stat.start_time and stat.end_time:
            outcome.step_seconds[stat.step_key] = stat.end_time - stat.start_time

    if outcome.ok and not outcome.errors:
        generation.publish(inputs)  # with what this build read, for the next refresh to compare against
    else:
        outcome.ok = False
        generation.discard()
    outcome.seconds = time.perf_counter() - started
    return outcome


def price_selection() -> dg.AssetSelection:
    """The price inputs, everything downstream of them, and the source register."""
    return dg.AssetSelection.assets(*PRICE_ROOTS).downstream() | dg.AssetSelection.assets(*SOURCE_REGISTER)
