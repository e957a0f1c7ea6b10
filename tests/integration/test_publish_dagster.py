"""Runs launched by Dagster (`dagster job execute`, as the UI, schedules and sensors launch them) write into a new
generation under the same build lock as the command line and publish only when every step and blocking check
succeeded; killed at any instant, they leave one consistent generation."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.bench import add_price_snapshot
from pipeline.jobs import build, refresh_prices
from pipeline.run import Generation
from pipeline.sourcefiles import write_checksums

from tests.integration.publishing import (
    current_generation_of,
    fingerprint,
    kept_generations,
    previous_of,
    state,
    toggle,
)

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


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
    assert refresh_prices().ok  # the next run cleans what the killed run left and publishes the sources
    assert state(atlas["base"]) != previous
    assert kept_generations(atlas["base"]) <= {current_generation_of(atlas["base"]), previous_of()}
