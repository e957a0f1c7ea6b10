"""A partial run starts from a copy of the current generation, made in a thread while Dagster sets up the run
(pipeline/run.py, Generation.open(wait=False) and ready()): the copy is whole and keeps modification times, and a
copy that fails stops the run with its error, the current build untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pipeline.config import Paths
from pipeline.run import CURRENT, GENERATIONS, INPUTS, Generation


def current_build(tmp_path: Path) -> Paths:
    build = tmp_path / "build"
    gen = build / GENERATIONS / "20261126T000000-old"
    (gen / "docs" / "gpus").mkdir(parents=True)
    (gen / "site").mkdir()
    (gen / "atlas.duckdb").write_bytes(b"db" * 1000)
    (gen / "docs" / "gpus" / "h100.md").write_text("# H100\n", encoding="utf-8")
    (gen / "site" / "index.html").write_text("<html></html>", encoding="utf-8")
    (gen / INPUTS).write_text("{}", encoding="utf-8")
    os.utime(gen / "docs" / "gpus" / "h100.md", (1_700_000_000, 1_700_000_000))
    os.symlink(Path(GENERATIONS) / gen.name, build / CURRENT)
    return Paths(
        sources=tmp_path / "sources",
        database=tmp_path / "atlas.duckdb",
        build=build,
        handwritten=tmp_path / "site",
        mkdocs_config=tmp_path / "mkdocs.yml",
    )


def test_the_copy_made_while_the_run_is_set_up_is_whole(tmp_path):
    p = current_build(tmp_path)
    generation = Generation(p, copy_current=True).open(wait=False)
    try:
        generation.ready()
        new = generation.path
        assert (new / "atlas.duckdb").read_bytes() == b"db" * 1000
        assert (new / "docs" / "gpus" / "h100.md").read_text(encoding="utf-8") == "# H100\n"
        assert (new / "site" / "index.html").is_file() and (new / INPUTS).is_file()
        # modification times kept: the incremental site build re-renders only pages written since
        assert (new / "docs" / "gpus" / "h100.md").stat().st_mtime == 1_700_000_000
    finally:
        generation.discard()
        generation.close()


def test_a_copy_that_fails_stops_the_run_with_its_error(tmp_path, monkeypatch):
    p = current_build(tmp_path)

    def broken(src, dst, **kwargs):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr("pipeline.run.shutil.copytree", broken)
    generation = Generation(p, copy_current=True).open(wait=False)
    try:
        with pytest.raises(OSError, match="No space left on device"):
            generation.ready()
        with pytest.raises(OSError, match="No space left on device"):
            generation.publish({})  # nothing half-copied is ever published
        generation.discard()
        assert not generation.path.exists()
        assert (p.build / CURRENT).resolve().name == "20261126T000000-old"
    finally:
        generation.close()
    # the lock is released: the next run opens
    Generation(p, copy_current=False).open().close()
