"""Where things live. Every path can be overridden by an environment variable; defaults are
relative to the repository root, so nothing assumes a machine-specific location."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(__file__).resolve().parent


def _path(env: str, default: Path) -> Path:
    """An absolute path, its symlinks kept: the database and the build's docs and site are links into the
    current build generation, and must stay the links (see run.py)."""
    value = os.environ.get(env)
    return Path(os.path.abspath(value)) if value else default


@dataclass(frozen=True)
class Paths:
    sources: Path
    database: Path
    build: Path
    handwritten: Path
    mkdocs_config: Path

    @property
    def docs(self) -> Path:
        """Assembled MkDocs input: hand-written pages plus generated ones."""
        return self.build / "docs"

    @property
    def site(self) -> Path:
        """Built static site (never `site/`, which holds the hand-written pages)."""
        return self.build / "site"

    @property
    def cache(self) -> Path:
        """What builds keep between runs because it depends only on library versions (Vega bundle, templates)."""
        return self.build / ".cache"


def paths() -> Paths:
    return Paths(
        sources=_path("GPU_ATLAS_SOURCES", ROOT / "sources"),
        database=_path("GPU_ATLAS_DB", ROOT / "data" / "gpu_atlas.duckdb"),
        build=_path("GPU_ATLAS_BUILD", ROOT / "build"),
        handwritten=_path("GPU_ATLAS_SITE_SRC", ROOT / "site"),
        mkdocs_config=_path("GPU_ATLAS_MKDOCS", ROOT / "mkdocs.yml"),
    )


@contextlib.contextmanager
def paths_overridden(database: Path, build: Path, sources: Path | None = None):
    """Point the pipeline at another database and build folder (and sources) for the duration (benchmarks, tests)."""
    names = {"GPU_ATLAS_DB": str(database), "GPU_ATLAS_BUILD": str(build)}
    if sources is not None:
        names["GPU_ATLAS_SOURCES"] = str(sources)
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(names)
    try:
        yield paths()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


PARAMETERS_FILE = PACKAGE / "parameters.yml"
SQL_DIR = PACKAGE / "sql"
# the SQL stage's layers: a folder each under SQL_DIR, every table a <table>.sql with its contract <table>.yml beside it
SQL_LAYERS = ("core", "marts")
# the SQL macros every table is built with: params.sql first (every other file's macros call param()), the rest by name
MACRO_FILES = sorted((SQL_DIR / "macros").glob("*.sql"), key=lambda p: (p.name != "params.sql", p.name))
