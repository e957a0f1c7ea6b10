"""One atomic publish, whatever starts the run: a build killed at any instant, the swap itself included, leaves
the previous build or the new one current (database, pages, site and inputs record of one generation), never a
mix. Runs launched by Dagster (`dagster job execute`, as the UI, schedules and sensors launch them) write into
a new generation under the same build lock and publish only when every step and blocking check succeeded."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from pipeline.bench import add_price_snapshot
from pipeline.jobs import build
from pipeline.run import GENERATIONS, Generation, current_generation, previous_generation
from pipeline.sourcefiles import build_date, write_checksums

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
DAY = build_date().isoformat()

# runs one full build in a child process, killed (SIGKILL) just before or just after the rename that
# publishes it, or after some seconds
CHILD = """
import os, signal, sys, threading
mode = sys.argv[1]
real = os.replace
def replace(src, dst, *args, **kwargs):
    published = os.path.basename(str(dst)) == "current"
    if published and mode == "before-swap":
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst, *args, **kwargs)
    if published and mode == "after-swap":
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
if mode.startswith("after-seconds="):
    threading.Timer(float(mode.split("=")[1]), lambda: os.kill(os.getpid(), signal.SIGKILL)).start()
from pipeline.jobs import build
print("finished", build().ok)
"""


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    base = tmp_path_factory.mktemp("publish")
    src = base / "sources"
    shutil.copytree(ROOT / "sources", src)
    env = {
        "GPU_ATLAS_SOURCES": str(src),
        "GPU_ATLAS_DB": str(base / "data" / "atlas.duckdb"),
        "GPU_ATLAS_BUILD": str(base / "build"),
    }
    mp = pytest.MonkeyPatch()
    for k, v in env.items():
        mp.setenv(k, v)
    assert build().ok
    yield {"base": base, "src": src, "env": env}
    mp.undo()


def state(base: Path) -> bool:
    """Which build is current (True: the one with the new Lambda snapshot), after checking that the database,
    the inputs record, the pages and the site all belong to one generation and agree."""
    links = [
        base / "data" / "atlas.duckdb",
        base / "data" / "atlas.inputs.json",
        base / "build" / "docs",
        base / "build" / "site",
    ]
    homes = {link.resolve().parent for link in links}
    assert len(homes) == 1, f"a mix of generations: {homes}"
    (home,) = homes
    assert home.parent.name == GENERATIONS and home == current_generation_of(base)
    with duckdb.connect(str(links[0]), read_only=True) as con:
        in_db = (
            con.execute(
                "select count(*) from price_history where provider = 'lambda' and observed_on = ?", [DAY]
            ).fetchone()[0]
            > 0
        )
    in_pages = f"lambda/<wbr>{DAY}" in (links[2] / "sources" / "prices.md").read_text(encoding="utf-8")
    in_site = f"lambda/<wbr>{DAY}" in (links[3] / "sources" / "prices" / "index.html").read_text(encoding="utf-8")
    in_inputs = f"sources/prices/lambda/{DAY}/prices.csv" in links[1].read_text(encoding="utf-8")
    assert in_db == in_pages == in_site == in_inputs, (in_db, in_pages, in_site, in_inputs)
    return in_db


def current_generation_of(base: Path) -> Path:
    from pipeline.config import paths

    return current_generation(paths())


def toggle(src: Path) -> None:
    """The next build differs from the current one: add the new snapshot, or remove it."""
    folder = src / "prices" / "lambda" / DAY
    if folder.exists():
        shutil.rmtree(folder)
        write_checksums(src)
    else:
        add_price_snapshot(src, day=DAY)


def killed_build(atlas, mode: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **atlas["env"]}
    return subprocess.run(
        [sys.executable, "-c", CHILD, mode], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize(
    "mode,expect_new",
    [("before-swap", False), ("after-swap", True), ("after-seconds=6", None), ("after-seconds=12", None)],
)
def test_a_kill_leaves_the_previous_or_the_new_build(atlas, mode, expect_new):
    previous = state(atlas["base"])
    toggle(atlas["src"])  # the killed build would publish the other state
    child = killed_build(atlas, mode)
    assert child.returncode == -9, (child.returncode, child.stdout, child.stderr[-2000:])
    now = state(atlas["base"])  # one generation, consistent: the previous build or the new one
    if expect_new is not None:
        assert now == (not previous if expect_new else previous)
    # the next build cleans what the killed one left and publishes the new sources
    assert build().ok
    assert state(atlas["base"]) != previous
    assert kept_generations(atlas["base"]) <= {current_generation_of(atlas["base"]), previous_of()}


def previous_of() -> Path | None:
    from pipeline.config import paths

    return previous_generation(paths())


def kept_generations(base: Path) -> set[Path]:
    """What is left under generations/: the current build and the one it replaced, nothing a killed run left."""
    return {g.resolve() for g in (base / "build" / GENERATIONS).iterdir()}


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(folder.rglob("*"))
        if f.is_file()
    }


def dagster_refresh(atlas, **kw) -> subprocess.Popen:
    """`dagster job execute` of the price refresh job, as a deployment's UI, schedule or sensor runs it."""
    home = atlas["base"] / "dagster_home"  # the instance of a deployment (runs, event logs), kept out of the checkout
    home.mkdir(exist_ok=True)
    env = {**os.environ, **atlas["env"], "DAGSTER_HOME": str(home)}
    return subprocess.Popen(
        [sys.executable, "-m", "dagster", "job", "execute", "-m", "pipeline.definitions", "-j", "price_refresh"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        **kw,
    )


def test_a_dagster_price_refresh_publishes_a_new_generation(atlas):
    before = state(atlas["base"])
    old = current_generation_of(atlas["base"])
    files = fingerprint(old)
    toggle(atlas["src"])
    run = dagster_refresh(atlas)
    out, _ = run.communicate(timeout=600)
    assert run.returncode == 0, out[-3000:]
    assert state(atlas["base"]) != before  # the new snapshot is on every page of the new generation
    new = current_generation_of(atlas["base"])
    assert new != old and previous_of() == old
    assert fingerprint(old) == files  # the previous generation was never written to
    assert kept_generations(atlas["base"]) == {old, new}


def test_a_failed_check_in_a_dagster_run_publishes_nothing(atlas):
    state(atlas["base"])
    old = current_generation_of(atlas["base"])
    files = fingerprint(old)
    kept = kept_generations(atlas["base"])
    day = "2030-01-01"  # a snapshot whose first price is 100 times the last: the plausibility check blocks it
    add_price_snapshot(atlas["src"], day=day, change=100)
    try:
        run = dagster_refresh(atlas)
        out, _ = run.communicate(timeout=600)
        assert run.returncode != 0
        assert "prices_plausible" in out and "nothing published" in out
        assert current_generation_of(atlas["base"]) == old and fingerprint(old) == files
        assert kept_generations(atlas["base"]) == kept  # the failed run's generation is gone
    finally:
        shutil.rmtree(atlas["src"] / "prices" / "lambda" / day)
        write_checksums(atlas["src"])


def test_a_run_waits_for_no_one_and_corrupts_nothing_while_another_builds(atlas):
    """A Dagster run started while a build holds the build folder refuses with a clear message, and so does the
    command line while a Dagster run holds it; the current build is untouched."""
    from pipeline.config import paths

    state(atlas["base"])
    old = current_generation_of(atlas["base"])
    files = fingerprint(old)
    held = Generation(paths(), partial=False).open()
    try:
        run = dagster_refresh(atlas)
        out, _ = run.communicate(timeout=600)
        assert run.returncode != 0 and "another GPU Atlas build is running" in out
        with pytest.raises(SystemExit, match="another GPU Atlas build is running"):
            build()
    finally:
        held.discard()
        held.close()
    assert current_generation_of(atlas["base"]) == old and fingerprint(old) == files


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_kill_of_a_dagster_run_leaves_one_consistent_generation(atlas, seed):
    previous = state(atlas["base"])
    toggle(atlas["src"])
    run = dagster_refresh(atlas)
    time.sleep(random.Random(seed).uniform(2.0, 12.0))  # anywhere from start-up to the publish
    if run.poll() is None:
        os.killpg(run.pid, signal.SIGKILL)
    run.communicate(timeout=60)
    now = state(atlas["base"])  # one generation, consistent: the previous build or the new one
    assert now in (previous, not previous)
    assert build().ok  # the next build cleans what the killed run left and publishes the sources
    assert state(atlas["base"]) != previous
    assert kept_generations(atlas["base"]) <= {current_generation_of(atlas["base"]), previous_of()}
