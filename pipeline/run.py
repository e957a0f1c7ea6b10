"""Build generations: every run writes a new folder, published with one rename under the build lock.

Each run (the command line's `gpu-atlas build` and `refresh-prices`, the Dagster UI, `dagster job execute`, a
schedule or a sensor) writes its database, generated pages, site and inputs record into
`<build>/generations/<id>/` (pipeline/defs/resources.py opens the generation when the run starts and finishes it
when the run ends). `<build>/current` is a symlink to the current generation, replaced in one atomic rename when a
run succeeded; the database (`GPU_ATLAS_DB`), its inputs record, `<build>/docs` and `<build>/site` are symlinks
through `current`, so they change together: a reader, or a build killed at any instant, sees the previous build or
the new one, never a mix. A failed run removes its generation and leaves the last good build current; older
generations are removed once a new one is current.

This module knows nothing of the asset graph but the price refresh's selection; it never imports the definitions.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import dagster as dg

from .config import PACKAGE, ROOT, Paths
from .sourcefiles import sha256

# a price change re-runs the price inputs and everything downstream of them, plus the source register
# (a new snapshot is a new source) and the page that lists it
PRICE_ROOTS = ["raw_prices", "raw_aliases", "raw_clusters"]
SOURCE_REGISTER = ["core_sources", "pages_sources"]
# the source folder a price refresh re-reads (each provider's snapshots and alias table); a change anywhere else
# needs a full build
PRICE_SOURCE_DIR = "prices"
GENERATIONS = "generations"  # <build>/generations/<id>/: one build's database, docs, site and inputs record
CURRENT = "current"  # <build>/current -> generations/<id>: the one rename that publishes a build
PREVIOUS = "previous"  # <build>/previous -> the generation current before the last publish
INPUTS = "inputs.json"


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
    """One run's folder under `<build>/generations/`, held under the build lock from open() to finish().

    A run of the whole graph starts from an empty folder. A run of part of it (`partial`: the price refresh) starts
    from a copy of the current generation and re-renders only the pages whose Markdown changed (`incremental`),
    unless the last build cannot be started from (`blocker`: none yet, or inputs such a run does not re-read changed
    since it): then its site is built in full and the copied inputs record is kept, which still says what the rest
    of the build was made from. finish() publishes the folder with the one rename, or removes it when the run
    failed. The current generation is never written to."""

    def __init__(self, p: Paths, partial: bool):
        self.p = p
        self.partial = partial
        self.path: Path | None = None
        self.incremental = False
        self.blocker = ""
        self._record: dict[str, str] | None = None
        self._lock = None

    def open(self) -> "Generation":
        """Take the build lock (BuildBusy when another build holds it) and make the generation's folder."""
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
            inputs = build_inputs(p)
            self.blocker = refresh_blocker(p, inputs) if self.partial else ""
            self.incremental = self.partial and not self.blocker
            self._record = None if self.blocker else inputs  # what the generation is built from, for the next refresh
            root = p.build / GENERATIONS
            root.mkdir(parents=True, exist_ok=True)
            self.path = Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%dT%H%M%S-"), dir=root))
            self.path.chmod(0o755)  # served and read like any build folder (mkdtemp makes it private)
            current = current_generation(p)
            if self.partial and current is not None:
                self._copy(current)
        except BaseException:
            self.discard()
            self.close()
            raise
        return self

    def _copy(self, current: Path) -> None:
        """The current generation's database, pages, site and inputs record, modification times kept: the site
        build re-renders only the pages written since."""
        for name in (self.p.database.name, "docs", "site", INPUTS):
            if (current / name).is_dir():
                shutil.copytree(current / name, self.path / name)
            elif (current / name).is_file():
                shutil.copy2(current / name, self.path / name)

    @property
    def database(self) -> Path:
        return self.path / self.p.database.name

    def finish(self, failed: bool) -> None:
        """Publish the generation (or remove it, when the run failed), then release the lock."""
        try:
            if failed:
                self.discard()
            else:
                self.publish()
        finally:
            self.close()

    def publish(self) -> None:
        """Record what the build read (a run that could not start from the last build keeps the copied record)
        and make the generation current."""
        Path(str(self.database) + ".wal").unlink(missing_ok=True)
        if self._record is not None:
            (self.path / INPUTS).write_text(json.dumps(self._record, indent=0, sort_keys=True), encoding="utf-8")
        _publish(self.p, self.path)

    def discard(self) -> None:
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)

    def close(self) -> None:
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
    return len(parts) > 2 and parts[0] == "sources" and parts[1] == PRICE_SOURCE_DIR


def _inputs_file(p: Paths) -> Path:
    return p.database.with_name(p.database.stem + ".inputs.json")


def refresh_blocker(p: Paths, inputs: dict[str, str]) -> str:
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


def price_selection() -> dg.AssetSelection:
    """The price inputs, everything downstream of them, and the source register."""
    return dg.AssetSelection.assets(*PRICE_ROOTS).downstream() | dg.AssetSelection.assets(*SOURCE_REGISTER)
