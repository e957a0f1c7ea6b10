"""Two builds of the same sources give byte-identical pages, site files and downloads, and the same
content in every public view."""

from __future__ import annotations

import pytest

from pipeline.contract import VIEWS
from tests.conftest import view_fingerprints

pytestmark = pytest.mark.integration


def files(folder):
    return {p.relative_to(folder): p for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_builds_are_identical(built_site, tmp_path):
    from pipeline.config import paths_overridden
    from pipeline.jobs import build

    with paths_overridden(tmp_path / "data" / "gpu_atlas.duckdb", tmp_path / "build"):
        assert build().ok
    first_build, second_build = built_site["site"].parent, tmp_path / "build"
    for sub in ("site", "docs"):
        first, second = files(first_build / sub), files(second_build / sub)
        assert first.keys() == second.keys()
        assert len(first) > 60
        # DuckDB's storage does not write the same bytes twice: the database file is compared by content below
        differing = [
            str(rel)
            for rel, path in first.items()
            if rel.suffix != ".duckdb" and path.read_bytes() != second[rel].read_bytes()
        ]
        assert differing == [], f"{sub}: {differing}"
    downloads = [rel for rel in files(first_build / "site") if rel.parts[0] == "downloads"]
    assert (
        sum(rel.suffix == ".csv" for rel in downloads) >= 15
        and sum(rel.suffix == ".parquet" for rel in downloads) >= 16
    )
    # every view holds the same rows (a view has no order of its own; the downloads above are ordered)
    reference = view_fingerprints(built_site["db"])
    assert reference.keys() == set(VIEWS) and all(rows for rows, _ in reference.values())
    assert view_fingerprints(tmp_path / "data" / "gpu_atlas.duckdb") == reference
    assert view_fingerprints(first_build / "site" / "downloads" / "gpu_atlas.duckdb") == reference
    assert view_fingerprints(second_build / "site" / "downloads" / "gpu_atlas.duckdb") == reference
