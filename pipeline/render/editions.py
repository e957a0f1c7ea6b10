"""The site's editions (English, and each other locale under its folder: `zh/`), each built by an MkDocs process of
its own (`EditionBuilder`), started and warmed up while the run renders its pages, so the site step builds at once
and both cores work. In an incremental build (the price refresh) each edition drafts the pages already written
while the run renders others (`Editions.written`), and the site step renders only what is left. The build of one
edition is `pipeline.render.site.build_site`."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from pipeline import process

from .site import SiteBuild, build_site, edition_config

RESULT = "site-build: "  # the line an edition's process prints for each build it made
# a draft is worth its fixed cost (reading the configuration, the files and the theme: ~0.15 s) once the pages
# written and not yet drafted hold this much Markdown (a price refresh: the Prices pages, then the GPU pages)
DRAFT_BYTES = 256_000


def template_cache() -> Path:
    """Where the theme's compiled templates are kept between builds (keyed by their source's checksum)."""
    from pipeline.config import paths

    return paths().cache / "jinja"


class EditionBuilder:
    """A process that builds one edition of the site. Started early (a run starts one per edition when it sets up,
    see pipeline.defs.resources.AtlasPaths), it imports MkDocs and the theme and loads jieba's dictionary on the
    core the pipeline leaves idle, then waits for its jobs: drafts (`draft`), then the build (`build`), which it
    starts at once. It dies with the process that started it."""

    def __init__(self, config_file: str | Path):
        self.config_file = str(config_file)
        command = [sys.executable, "-m", "pipeline.render.editions", "--serve", self.config_file]
        self.process = subprocess.Popen(
            [*command, "--parent", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def draft(self, **job) -> None:
        """Send a draft (build_site's arguments with `only`); the process builds it and waits for the next job."""
        try:
            self.process.stdin.write(json.dumps({**job, "final": False}, default=str) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:  # the process ended: result() tells why
            pass

    def build(self, **job) -> None:
        """Send the last job (build_site's arguments but the configuration); it starts once the process is ready."""
        stdin, self.process.stdin = self.process.stdin, None  # communicate() must not write to it again
        try:
            stdin.write(json.dumps(job, default=str) + "\n")
            stdin.close()
        except BrokenPipeError:  # the process ended before its job: result() tells why
            pass

    def result(self, what: str) -> SiteBuild:
        """The edition's build, its drafts' pages counted in (unless the last build had to start over in full)."""
        out, err = self.process.communicate()
        if self.process.returncode != 0:
            tail = "\n".join(err.strip().splitlines()[-20:])
            raise RuntimeError(f"{what}'s MkDocs build failed (exit {self.process.returncode}):\n{tail}")
        builds = [SiteBuild(**json.loads(ln[len(RESULT) :])) for ln in out.splitlines() if ln.startswith(RESULT)]
        last = builds[-1]
        drafted = sum(b.pages_rendered for b in builds[:-1]) if last.incremental else 0
        return SiteBuild(last.incremental, last.pages_rendered + drafted, last.search_entries)

    def stop(self) -> None:
        if self.alive():
            self.process.kill()
        if self.process.stdin is not None:
            self.process.stdin.close()
            self.process.stdin = None
        self.process.communicate()


class Editions:
    """Every edition's build in one run, each by a process of its own (an EditionBuilder, started by `start` to warm
    up while the run renders, or when first needed): the first locale's into the site folder, each other
    edition (`zh/`) into a folder beside it, moved to its place in the site when all are done (a full build of the
    first edition empties the site folder, so nothing of another edition may sit there while it runs). An
    incremental build moves the edition's last site out first and builds on it there, in drafts while the run
    writes pages (`written`) and then in full (`build`)."""

    def __init__(
        self,
        config_file: str | Path,
        locales: tuple[str, ...],
        template_cache: Path | None = None,
    ):
        self.config_file = config_file
        self.locales = tuple(locales)
        self.template_cache = template_cache
        self.builders: dict[str, EditionBuilder] = {}
        self.staged: dict[str, Path] = {}
        self.pending: list[str] = []  # pages written and not yet drafted
        self.drafted: set[str] = set()  # editions whose builder has drafted: it alone may finish the build
        self._folders: dict[str, tuple[Path, Path]] | None = None

    def start(self) -> "Editions":
        """Start every edition's builder now, to warm up while the run renders its pages."""
        for locale in self.locales:
            self._builder(locale)
        return self

    def _builder(self, locale: str) -> EditionBuilder:
        """The edition's builder; one that has ended is replaced, unless it drafted (its result tells why it ended:
        a draft that failed fails the build)."""
        config = edition_config(self.config_file, locale)
        builder = self.builders.get(locale)
        if locale in self.drafted:
            return builder
        if builder is None or not builder.alive() or builder.config_file != str(config):
            builder = self.builders[locale] = EditionBuilder(config)
        return builder

    def _folders_of(self, docs_dir: str | Path, site_dir: str | Path) -> dict[str, tuple[Path, Path]]:
        """Each edition's pages and the folder its site is built in (another edition's last site moved out)."""
        from pipeline.render.i18n import prefix

        if self._folders is None:
            site = Path(site_dir)
            folders = {self.locales[0]: (Path(docs_dir), site)}
            for locale in self.locales[1:]:
                staged = self.staged[locale] = site.parent / f".{site.name}-{locale}"
                shutil.rmtree(staged, ignore_errors=True)
                if (site / prefix(locale)).is_dir():
                    (site / prefix(locale)).rename(staged)
                folders[locale] = (Path(docs_dir) / prefix(locale), staged)
            self._folders = folders
        return self._folders

    def _job(self, locale: str, docs_dir, site_dir, incremental: bool) -> dict:
        from pipeline.render.i18n import prefix

        docs, site = self._folders_of(docs_dir, site_dir)[locale]
        job = {"docs_dir": docs, "site_dir": site, "incremental": incremental, "edition": prefix(locale)}
        job["template_cache"] = self.template_cache
        if locale == self.locales[0]:
            job["others"] = tuple(prefix(other) for other in self.locales[1:])
        return job

    def written(self, docs_dir: str | Path, site_dir: str | Path, pages: list[str]) -> None:
        """Pages an incremental run has written (paths in `docs_dir`, each final: the run writes a page once).
        Once they hold DRAFT_BYTES of Markdown, each edition drafts its own while the run goes on."""
        from pipeline.render.i18n import prefix

        self.pending += [page for page in pages if page.endswith(".md")]
        if sum((Path(docs_dir) / page).stat().st_size for page in self.pending) < DRAFT_BYTES:
            return
        others = tuple(prefix(locale) for locale in self.locales[1:])
        for locale in self.locales:
            mine = prefix(locale)
            if mine:
                only = [page[len(mine) :] for page in self.pending if page.startswith(mine)]
            else:
                only = [page for page in self.pending if not page.startswith(others)]
            if only:
                self._builder(locale).draft(**self._job(locale, docs_dir, site_dir, True), only=only)
                self.drafted.add(locale)
        self.pending = []

    def build(self, docs_dir: str | Path, site_dir: str | Path, incremental: bool = False) -> dict[str, SiteBuild]:
        """Every edition's build, once every page is written; then each other edition's site moved to its place."""
        from pipeline.render.i18n import prefix

        for locale in self.locales:
            self._builder(locale).build(**self._job(locale, docs_dir, site_dir, incremental))
        results = {locale: self.builders[locale].result(f"the {locale} edition") for locale in self.locales}
        for locale, staging in self.staged.items():
            staging.rename(self._folders[self.locales[0]][1] / prefix(locale))
        self.staged = {}
        return results

    def stop(self) -> None:
        for builder in self.builders.values():
            builder.stop()
        for staging in self.staged.values():
            shutil.rmtree(staging, ignore_errors=True)


def build_editions(
    config_file: str | Path,
    docs_dir: str | Path,
    site_dir: str | Path,
    locales: tuple[str, ...],
    incremental: bool = False,
    template_cache: Path | None = None,
    editions: Editions | None = None,
) -> dict[str, SiteBuild]:
    """Every edition of the site at once (see Editions), by the run's `editions` when it started them."""
    editions = editions or Editions(config_file, locales, template_cache)
    try:
        return editions.build(docs_dir, site_dir, incremental)
    finally:
        editions.stop()


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when the build that started it dies (Linux), so a build killed mid-way
    leaves no process writing into its folder while the next build cleans it up."""
    import ctypes
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the edition's build simply finishes
        return
    if os.getppid() != parent:  # the build died before the request was made
        os._exit(1)


def _warm_up() -> None:
    """What every build of a fresh process pays before its first page: MkDocs, the theme and its plugins, and
    jieba's dictionary (the search index splits Chinese words, in both editions)."""
    import mkdocs.commands.build  # noqa: F401
    import mkdocs.plugins

    mkdocs.plugins.get_plugins()
    try:
        import jieba
    except ImportError:
        return
    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


def serve(config_file: str) -> None:
    """An EditionBuilder's process: warm up, then read jobs from standard input, one JSON line each: build, print
    the SiteBuild as a RESULT line; after the last job (not a draft) end at once; standard input closed: exit."""
    process.start()  # no garbage collection while MkDocs, the theme and jieba load (pipeline/process.py)
    _warm_up()
    process.loaded()
    while True:
        line = sys.stdin.readline()
        if not line.strip():
            return
        job = json.loads(line)
        last = job.pop("final", True)
        cache, others = job.pop("template_cache"), tuple(job.pop("others", ()))
        result = build_site(config_file, template_cache=Path(cache) if cache else None, others=others, **job)
        print(RESULT + json.dumps(asdict(result)), flush=True)
        if last:
            process.exit_now(0)  # the site is written and closed: end at once (the build waits for this process)


def main(argv: list[str] | None = None) -> None:
    """One edition's build in a process of its own, as EditionBuilder runs it."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m pipeline.render.editions", description=main.__doc__)
    parser.add_argument("--serve", metavar="CONFIG_FILE", required=True, help="the edition's MkDocs configuration")
    parser.add_argument("--parent", type=int, help="the build's process: this one ends with it")
    args = parser.parse_args(argv)
    if args.parent:
        _die_with(args.parent)
        # it warms up while the build's steps run: at a lower priority, it takes the idle core's time, not theirs
        # (a refresh took 0.4 s less, medians of 8); while it builds, the build only waits for it
        os.nice(10)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    serve(args.serve)


if __name__ == "__main__":
    main()
