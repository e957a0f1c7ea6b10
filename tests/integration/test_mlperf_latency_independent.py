"""MLPerf Inference Server latencies as the independent check of the expected per-user speed and time to first token.

test_mlperf_independent.py checks the expected throughput against MLPerf Inference v5.1's results; this module checks
the other two kinds of serving number the Planner prints, each user's speed and the time to the first token, against
the same 21 Server runs (tests/references/mlperf/mlperf_server_latency.csv, read from each run's
mlperf_log_summary.txt: its "Mean Time to Output Token" and "Mean First Token latency"). MLPerf stays out of the
calibration; the rows go through the pipeline's own SQL over the built database exactly as the throughput check's do
(its `evaluate` helper), expected with the fit on all the calibration data.

A Server run is an open loop (LoadGen sends requests at random times at a target rate); the expectation is a closed
loop of u users per replica. The load a run's steps carried is known without guessing: by Little's law the mean
number of requests in the system is its completed samples per second times its mean latency, both printed in the same
log; the fixture states it as the row's concurrency (split over the replicas as the SQL splits any concurrency). That
count includes requests still waiting for their prefill, so it is an upper estimate of the decode batch.

Assertions: no figure beats its bound (a user never decodes faster than one step of the bound allows; no first token
comes before the bound's prefill), and the median |expected / measured - 1| of each quantity stays within the limits
below, set just above what the model scores today so that a regression fails. Run with `pytest -s` for the report.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.integration.test_mlperf_independent import evaluate, read_fixture

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parent.parent / "references" / "mlperf" / "mlperf_server_latency.csv"

# median |expected / measured - 1| over the 21 Server runs, per quantity. Measured on 2026-11-29 when this check was
# added: per user 0.117 (TensorRT-LLM 0.100, vLLM 0.192; median ratio 0.98), first token 0.479 (median ratio 0.52: the
# expectation has no queue, and an open loop near its rate limit makes requests wait for their prefill; TensorRT-LLM
# 0.422, vLLM 0.739). Per user is held to the goal for throughput (0.15); the first token's limit only catches a
# regression.
LIMIT = {"per_user": 0.15, "ttft": 0.55}


@pytest.fixture(scope="module")
def latency(built_site):
    frame = read_fixture(FIXTURE)
    with evaluate(built_site["db"], frame) as con:
        con.register("_fixture_rows", frame[["source_row", "mlperf_id", "submitter"]])
        figures = con.execute("""
            select e.*, coalesce(e.expected_capped, e.expected_ttft) as expected,
                   coalesce(e.expected_capped, e.expected_ttft) / e.measured as ratio, r.mlperf_id, r.submitter
            from out_serving_estimates as e join _fixture_rows as r using (source_row)
            order by e.quantity, e.model_id, e.gpu_id""").df()
        yield {"con": con, "fixture": frame, "figures": figures}


def test_the_latency_fixture_is_traced_to_its_logs(latency):
    """Two rows (first token, time per output token) per Server run, each naming its log, with the load the
    concurrency states recomputed from the same log's printed rate and mean latency."""
    frame = latency["fixture"]
    assert len(frame) == 42 and frame["mlperf_id"].nunique() >= 8 and frame["gpu_id"].nunique() >= 8
    assert sorted(frame["metric"].unique()) == ["tpot_ms", "ttft_ms"]
    assert (frame.groupby(["mlperf_id", "model_as_printed"])["metric"].nunique() == 2).all()
    assert frame["result_path"].str.endswith("/Server/performance/run_1/mlperf_log_summary.txt").all()
    little = (frame["completed_samples_per_s"].astype(float) * frame["mean_latency_ns"].astype(float) / 1e9).round()
    assert (little == frame["concurrency"].astype(float)).all()


def test_no_mlperf_latency_beats_its_bound(latency):
    figures = latency["figures"]
    assert len(figures) == len(latency["fixture"])
    assert set(figures["quantity"]) == {"per_user", "ttft"}
    assert figures[["bound", "expected", "measured"]].notna().all().all()
    assert figures["within_bound"].all(), figures.loc[~figures["within_bound"], ["mlperf_id", "model_id", "quantity"]]


def test_expected_user_speed_and_first_token_against_mlperf(latency):
    figures = latency["figures"]
    report = figures.assign(
        gpu=figures["gpu_id"].str.removeprefix("nvidia-"), u=figures["concurrency_per_replica_expected"]
    )
    print("\nMLPerf Inference v5.1 Server latencies against the serving model (ratio = expected / measured)")
    columns = [
        "mlperf_id",
        "model_id",
        "gpu",
        "tensor_parallel",
        "u",
        "quantity",
        "measured",
        "bound",
        "expected",
        "ratio",
    ]
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(report[columns].to_string(index=False, float_format=lambda v: f"{v:,.3f}"))
    errors = {}
    for quantity, group in figures.groupby("quantity"):
        errors[quantity] = (group["ratio"] - 1).abs().median()
        by_family = {f: round((g["ratio"] - 1).abs().median(), 3) for f, g in group.groupby("engine_family")}
        print(
            f"  {quantity:<9} median |ratio - 1| {errors[quantity]:.3f} ({len(group)}), by family {by_family}, "
            f"median ratio {group['ratio'].median():.3f}, limit {LIMIT[quantity]}"
        )
    for quantity, error in errors.items():
        assert error <= LIMIT[quantity], (quantity, error)
