"""One atomic publish: a build killed at any instant, the swap itself included, leaves the previous build or the new
one current (database, pages, site and inputs record of one generation), never a mix; the next run cleans what it
left. Runs that Dagster launches: test_publish_dagster.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.jobs import refresh_prices

from tests.integration.publishing import (
    current_generation_of,
    kept_generations,
    previous_of,
    state,
    toggle,
)

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

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
from pipeline.jobs import build, refresh_prices
print("finished", build().ok)
"""


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
    # the next run (a price refresh: only a price snapshot changed) cleans what the killed one left and publishes
    # the new sources
    assert refresh_prices().ok
    assert state(atlas["base"]) != previous
    assert kept_generations(atlas["base"]) <= {current_generation_of(atlas["base"]), previous_of()}
