"""One atomic publish: a build killed at any instant, the swap itself included, leaves the previous build
or the new one current (database, pages, site and inputs record of one generation), never a mix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from pipeline.bench import add_price_snapshot
from pipeline.run import GENERATIONS, current_generation, materialize
from pipeline.sources import build_date, write_checksums

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
from pipeline.run import materialize
print("finished", materialize().ok)
"""


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    base = tmp_path_factory.mktemp("publish")
    src = base / "sources"
    shutil.copytree(ROOT / "sources", src)
    env = {"GPU_ATLAS_SOURCES": str(src), "GPU_ATLAS_DB": str(base / "data" / "atlas.duckdb"),
           "GPU_ATLAS_BUILD": str(base / "build")}
    mp = pytest.MonkeyPatch()
    for k, v in env.items():
        mp.setenv(k, v)
    assert materialize().ok
    yield {"base": base, "src": src, "env": env}
    mp.undo()


def state(base: Path) -> bool:
    """Which build is current (True: the one with the new Lambda snapshot), after checking that the database,
    the inputs record, the pages and the site all belong to one generation and agree."""
    links = [base / "data" / "atlas.duckdb", base / "data" / "atlas.inputs.json", base / "build" / "docs",
             base / "build" / "site"]
    homes = {link.resolve().parent for link in links}
    assert len(homes) == 1, f"a mix of generations: {homes}"
    (home,) = homes
    assert home.parent.name == GENERATIONS and home == current_generation_of(base)
    with duckdb.connect(str(links[0]), read_only=True) as con:
        in_db = con.execute("select count(*) from price_history where provider = 'lambda' and observed_on = ?",
                            [DAY]).fetchone()[0] > 0
    in_pages = f"lambda/<wbr>{DAY}" in (links[2] / "sources.md").read_text(encoding="utf-8")
    in_site = f"lambda/<wbr>{DAY}" in (links[3] / "sources" / "index.html").read_text(encoding="utf-8")
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
    return subprocess.run([sys.executable, "-c", CHILD, mode], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("mode,expect_new", [("before-swap", False), ("after-swap", True),
                                             ("after-seconds=6", None), ("after-seconds=12", None)])
def test_a_kill_leaves_the_previous_or_the_new_build(atlas, mode, expect_new):
    previous = state(atlas["base"])
    toggle(atlas["src"])  # the killed build would publish the other state
    child = killed_build(atlas, mode)
    assert child.returncode == -9, (child.returncode, child.stdout, child.stderr[-2000:])
    now = state(atlas["base"])  # one generation, consistent: the previous build or the new one
    if expect_new is not None:
        assert now == (not previous if expect_new else previous)
    # the next build cleans what the killed one left and publishes the new sources
    assert materialize().ok
    assert state(atlas["base"]) != previous
    generations = list((atlas["base"] / "build" / GENERATIONS).iterdir())
    assert generations == [current_generation_of(atlas["base"])]
