from __future__ import annotations

import csv
import hashlib
import io
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def write_source(
    root: Path,
    rel: str,
    header: list[str],
    rows: list[list],
    kind: str = "vendor_document",
    documents: list[str] = ("doc-a",),
    **meta,
) -> Path:
    """Write a CSV and its provenance sidecar (with a correct checksum) under root."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    docs = "".join(f"  - id: {d}\n    title: Test document {d}\n    url: https://example.com/{d}\n" for d in documents)
    side = (
        f"title: {meta.get('title', 'Test source')}\npublisher: Test\nkind: {kind}\n"
        f"url: https://example.com/\naccessed_on: 2026-11-22\npublished_on: null\nlicence: test\n"
        f"checksum: sha256:{digest}\n"
        "terms:\n  url: https://example.com/terms\n  read_on: 2026-11-22\n  automated_collection: not-stated\n"
        "  republication: not-stated\n  summary: Test terms, silent on programs and republication.\n"
        + (f"documents:\n{docs}" if docs else "")
    )
    path.with_suffix(".source.yml").write_text(side, encoding="utf-8")
    return path


def recorded_terms(root: Path, allow: tuple[str, ...] = ()) -> Path:
    """The real sources/terms.yml and every provider's provider.yml (which names its terms) copied under root (a
    fetcher writes only for providers whose terms are recorded); providers in `allow` get terms that let a program
    collect (a test of parsing, not of terms)."""
    import yaml

    registry = yaml.safe_load((ROOT / "sources" / "terms.yml").read_text(encoding="utf-8"))
    for provider in allow:
        registry[provider] = {**registry[provider], "automated_collection": "allowed"}
    root.mkdir(parents=True, exist_ok=True)
    (root / "terms.yml").write_text(yaml.safe_dump(registry, sort_keys=False, allow_unicode=True), encoding="utf-8")
    for described in (ROOT / "sources" / "prices").glob("*/provider.yml"):
        (root / "prices" / described.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(described, root / "prices" / described.parent.name / "provider.yml")
    return root


@pytest.fixture
def sources_copy(tmp_path) -> Path:
    """A private copy of the real sources tree, safe to break."""
    dest = tmp_path / "sources"
    shutil.copytree(ROOT / "sources", dest)
    return dest


@pytest.fixture
def isolated_paths(tmp_path, monkeypatch):
    """Point the pipeline at temporary database and build folders."""
    monkeypatch.setenv("GPU_ATLAS_DB", str(tmp_path / "data" / "atlas.duckdb"))
    monkeypatch.setenv("GPU_ATLAS_BUILD", str(tmp_path / "build"))
    return tmp_path


@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The real pipeline run once on the real sources into a temporary folder (database + site)."""
    from pipeline.config import paths_overridden
    from pipeline.jobs import build

    base = tmp_path_factory.mktemp("atlas")
    with paths_overridden(base / "data" / "gpu_atlas.duckdb", base / "build"):
        outcome = build()
        assert outcome.ok, "\n".join(outcome.errors)
        yield {"db": base / "data" / "gpu_atlas.duckdb", "site": base / "build" / "site", "outcome": outcome}


def copy_of_build(built_site: dict, base: Path) -> dict[str, Path]:
    """The session's build of the real sources copied under `base`, beside a copy of the sources that is safe to
    change: what a full build there gives (tests/integration/test_deterministic.py), without running one. Returns
    where a run there reads and writes (`paths_overridden(copy["db"], copy["build"], copy["sources"])`)."""
    built = built_site["db"].parent.parent
    shutil.copytree(ROOT / "sources", base / "sources")
    for folder in ("data", "build"):
        shutil.copytree(built / folder, base / folder, symlinks=True)
    return {"sources": base / "sources", "db": base / "data" / built_site["db"].name, "build": base / "build"}


def view_fingerprints(database: Path) -> dict[str, tuple[int, int]]:
    """Each public view's rows as a multiset, computed in DuckDB: how many, and the sum of every row's hash (a view
    has no order of its own; 3 million rows of vram_fit in a second, where fetching them took a minute)."""
    import duckdb

    from pipeline.contract import VIEWS

    with duckdb.connect(str(database), read_only=True) as con:
        return {
            view: con.execute(f"select count(*), sum(hash(r)::hugeint) from {view} as r").fetchone() for view in VIEWS
        }


@pytest.fixture(scope="module")
def db(built_site):
    """The built database, read-only."""
    import duckdb

    con = duckdb.connect(str(built_site["db"]), read_only=True)
    yield con
    con.close()
