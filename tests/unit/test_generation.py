"""A build's generation (pipeline/run.py), without running the pipeline: a successful run switches `current` with
one rename (the database, its inputs record, the pages and the site with it), a failed one publishes nothing and
leaves the current build as it was, a second build is refused while one holds the lock, and a partial run starts
from a whole copy of the current build."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg
import pytest

from pipeline.config import Paths
from pipeline.defs.resources import AtlasDuckDB, AtlasPaths, default_resources
from pipeline.run import CURRENT, GENERATIONS, INPUTS, PREVIOUS, BuildBusy, Generation, current_generation


def current_build(tmp_path: Path) -> Paths:
    """A build folder whose current generation holds a database, a page, a site and an inputs record."""
    build = tmp_path / "build"
    gen = build / GENERATIONS / "20261126T000000-old"
    (gen / "docs" / "gpus").mkdir(parents=True)
    (gen / "site").mkdir()
    (gen / "atlas.duckdb").write_bytes(b"old db")
    (gen / "docs" / "gpus" / "h100.md").write_text("# H100\n", encoding="utf-8")
    (gen / "site" / "index.html").write_text("<html>old</html>", encoding="utf-8")
    (gen / INPUTS).write_text("{}", encoding="utf-8")
    os.utime(gen / "docs" / "gpus" / "h100.md", (1_700_000_000, 1_700_000_000))
    os.symlink(Path(GENERATIONS) / gen.name, build / CURRENT)
    p = Paths(
        sources=tmp_path / "sources",
        database=tmp_path / "data" / "atlas.duckdb",
        build=build,
        handwritten=tmp_path / "site",
        mkdocs_config=tmp_path / "mkdocs.yml",
    )
    (p.sources / "prices").mkdir(parents=True)
    (p.sources / "prices" / "a.csv").write_text("x\n", encoding="utf-8")
    return p


def served(p: Paths) -> tuple[bytes, str]:
    """What a reader of the database and the site sees."""
    return p.database.read_bytes(), (p.site / "index.html").read_text(encoding="utf-8")


def write_new_build(generation: Generation) -> None:
    (generation.path / "site").mkdir(exist_ok=True)
    (generation.path / "docs").mkdir(exist_ok=True)
    generation.database.write_bytes(b"new db")
    (generation.path / "site" / "index.html").write_text("<html>new</html>", encoding="utf-8")


def test_a_successful_run_switches_current_with_one_rename(tmp_path, monkeypatch):
    import pipeline.run as run

    p = current_build(tmp_path)
    old = current_generation(p)
    generation = Generation(p, partial=False).open()
    write_new_build(generation)
    renames = []
    real = os.replace

    def replace(src, dst, *args, **kwargs):
        if Path(dst).name == CURRENT:
            assert current_generation(p) == old  # nothing of the new build is current before the one rename
            renames.append(dst)
        real(src, dst, *args, **kwargs)

    monkeypatch.setattr(run.os, "replace", replace)
    generation.finish(failed=False)
    monkeypatch.undo()
    assert renames == [p.build / CURRENT]
    assert current_generation(p) == generation.path and (p.build / PREVIOUS).resolve() == old
    # the database, its inputs record, the pages and the site are links through `current`: they switched with it
    for link in (p.database, p.database.with_name("atlas.inputs.json"), p.docs, p.site):
        assert link.is_symlink() and link.resolve().parent == generation.path, link
    assert served(p) == (b"new db", "<html>new</html>")
    assert "sources/prices/a.csv" in json.loads((generation.path / INPUTS).read_text(encoding="utf-8"))
    # the next publish removes every generation but the current one and the one it replaced
    third = Generation(p, partial=False).open()
    write_new_build(third)
    third.finish(failed=False)
    assert {g.name for g in (p.build / GENERATIONS).iterdir()} == {generation.path.name, third.path.name}


def test_a_failed_run_publishes_nothing_and_leaves_the_current_build(tmp_path):
    p = current_build(tmp_path)
    generation = Generation(p, partial=False).open()
    write_new_build(generation)
    generation.finish(failed=False)
    before = served(p), current_generation(p)
    failed = Generation(p, partial=True).open()
    failed.database.write_bytes(b"half-written db")
    (failed.path / "site" / "index.html").write_text("<html>half</html>", encoding="utf-8")
    failed.finish(failed=True)
    assert (served(p), current_generation(p)) == before
    assert not failed.path.exists()  # the failed run's folder is gone
    Generation(p, partial=False).open().close()  # and the lock is released


def test_the_lock_refuses_a_second_build_until_the_first_ends(tmp_path):
    p = current_build(tmp_path)
    first = Generation(p, partial=False).open()
    try:
        with pytest.raises(BuildBusy, match="another GPU Atlas build is running"):
            Generation(p, partial=False).open()
        assert len(list((p.build / GENERATIONS).iterdir())) == 2  # the refused build made no folder
    finally:
        first.finish(failed=True)
    second = Generation(p, partial=False).open()
    second.finish(failed=True)


def test_a_partial_run_starts_from_a_whole_copy_of_the_current_build(tmp_path):
    p = current_build(tmp_path)
    generation = Generation(p, partial=True).open()
    try:
        new = generation.path
        assert (new / "atlas.duckdb").read_bytes() == b"old db"
        assert (new / "docs" / "gpus" / "h100.md").read_text(encoding="utf-8") == "# H100\n"
        assert (new / "site" / "index.html").is_file() and (new / INPUTS).is_file()
        # modification times kept: the incremental site build re-renders only pages written since
        assert (new / "docs" / "gpus" / "h100.md").stat().st_mtime == 1_700_000_000
        # the last build is no build to start from (no published database, no inputs record): a full site build
        assert not generation.incremental and generation.blocker
        assert (p.build / CURRENT).resolve() != new
    finally:
        generation.finish(failed=True)
    full = Generation(p, partial=False).open()
    try:
        assert list(full.path.iterdir()) == []  # a run of the whole graph starts empty
    finally:
        full.finish(failed=True)


def test_a_copy_that_fails_stops_the_run_with_its_error(tmp_path, monkeypatch):
    p = current_build(tmp_path)

    def broken(src, dst, **kwargs):
        raise OSError(28, "No space left on device", str(dst))

    monkeypatch.setattr("pipeline.run.shutil.copytree", broken)
    with pytest.raises(OSError, match="No space left on device"):
        Generation(p, partial=True).open()
    assert [g.name for g in (p.build / GENERATIONS).iterdir()] == ["20261126T000000-old"]  # nothing half-copied
    assert (p.build / CURRENT).resolve().name == "20261126T000000-old"
    Generation(p, partial=False).open().close()  # the lock is released: the next run opens


def run_with_the_pipeline_s_resources(tmp_path: Path, monkeypatch, fail: bool = False, refuse_database: bool = False):
    """A one-asset run with the resources every run of the definitions gets (pipeline/defs/resources.py): it writes
    a database table and a site page into the run's generation, then fails when asked to (`refuse_database`: the
    database resource cannot open its file)."""
    import duckdb

    p = current_build(tmp_path)
    database = current_generation(p) / p.database.name
    database.unlink()
    duckdb.connect(str(database)).close()  # the partial run copies it
    if refuse_database:

        def refused(*args, **kwargs):
            raise duckdb.IOException("Could not set lock on file")

        monkeypatch.setattr("pipeline.defs.resources.duckdb.connect", refused)
    monkeypatch.setenv("GPU_ATLAS_DB", str(p.database))
    monkeypatch.setenv("GPU_ATLAS_BUILD", str(p.build))
    monkeypatch.setenv("GPU_ATLAS_SOURCES", str(p.sources))

    @dg.asset
    def page(database: AtlasDuckDB, atlas_paths: AtlasPaths) -> None:
        with database.get_connection() as con:
            con.execute("create or replace table t as select 1 as x")
        (atlas_paths.site / "index.html").write_text("<html>new</html>", encoding="utf-8")
        if fail:
            raise RuntimeError("a broken source")

    result = dg.materialize(
        [page], resources=default_resources(), instance=dg.DagsterInstance.ephemeral(), raise_on_error=False
    )
    return p, result


def test_a_run_of_the_definitions_resources_publishes_its_generation(tmp_path, monkeypatch):
    old = current_generation(current_build(tmp_path / "probe"))  # the hand-made generation's name
    p, result = run_with_the_pipeline_s_resources(tmp_path, monkeypatch, fail=False)
    assert result.success
    assert current_generation(p).name != old.name and served(p)[1] == "<html>new</html>"
    Generation(p, partial=False).open().close()  # the lock is released


def test_a_failed_step_of_the_definitions_resources_publishes_nothing(tmp_path, monkeypatch):
    p, result = run_with_the_pipeline_s_resources(tmp_path, monkeypatch, fail=True)
    assert not result.success
    assert (p.build / CURRENT).resolve().name == "20261126T000000-old"
    assert [g.name for g in (p.build / GENERATIONS).iterdir()] == ["20261126T000000-old"]
    Generation(p, partial=False).open().close()


def test_a_resource_that_cannot_be_set_up_publishes_nothing(tmp_path, monkeypatch):
    p, result = run_with_the_pipeline_s_resources(tmp_path, monkeypatch, refuse_database=True)
    assert not result.success
    assert [g.name for g in (p.build / GENERATIONS).iterdir()] == ["20261126T000000-old"]
    Generation(p, partial=False).open().close()
