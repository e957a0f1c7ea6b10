"""MLPerf Inference results as the independent check of the serving model.

The serving expectation is fitted on published engine measurements (sources/measurements/*/serving.csv); MLPerf
Inference results are deliberately kept out of that calibration. Here they are evaluated with the pipeline's own
SQL files, unchanged, over the built database, without being added to it:

- an in-memory database attaches the built one read-only and searches its own schema first (search_path), so a
  table created here shadows the built table of that name and every other name reads the built one;
- raw_serving_measurements is shadowed by the fixture's rows (tests/references/mlperf/mlperf_inference.csv, as
  read from a source file: text, with provenance), and core_serving_measurements.sql, out_serving_bounds.sql and
  out_serving_estimates.sql run as they are, each creating its table here;
- out_serving_estimates joins the fit without the figure's GPU and the fit without its publication (their shares,
  out_serving_shares, and the models' measured levels, out_serving_levels). MLPerf is in no fit, so both are
  shadowed by the fit on all the calibration data (held_out_gpu_id and held_out_source_id NULL in the built tables),
  repeated under each fixture GPU and publication id: both expectations are then the all-data fit's, with the
  levels the calibration measured for the models MLPerf runs (the Planner's).

MLPerf's Server scenario holds every token to a latency limit (loadgen/mlperf.conf, SERVER_TPOT_MS below): its figure is
compared with the expectation at the most sequences per replica whose expected step (time per output token) stays
within the limit, out of powers of two up to what memory and the engine's default batch hold. Each candidate is a
fixture row with that concurrency stated, through the same SQL; the Offline figure ('max_throughput') is compared at
as many sequences as memory and the default batch hold. (The limit is MLPerf's 99th percentile; the expectation's
step is a mean: the limit it applies is looser.)

Assertions: no figure beats its bound by more than bound_tolerance (2%; a figure above our bound is a bug in the
bound or in our specs); the expectation's median |expected / measured - 1| per engine family, and its rank
correlation with the measured figures across GPUs, stay at least as good as measured when this check was added.
Run with `pytest -s` to print the report.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from pipeline import schemas
from pipeline.db import create_table_from_sql, path_literal
from pipeline.steps import define_macros

pytestmark = pytest.mark.integration

FIXTURE = Path(__file__).resolve().parent.parent / "references" / "mlperf" / "mlperf_inference.csv"
DOCUMENT = "mlperf-inference-v5.1"

# Loose limits on the expectation's median |expected / measured - 1| per engine family over the MLPerf figures
# (Offline and Server), set above what the model scores today so that a regression fails.
# Measured 0.285 (TensorRT-LLM, 30 figures) and 0.430 (vLLM, 12 figures) on 2026-11-28 at commit 587aa46; 0.196 and
# 0.379 once tensor-parallel all-reduces carry their volume (the same day); 0.189 and 0.387 once
# each Server figure is compared at the load that meets its latency limit (2026-11-29); 0.173 and 0.213 once pipeline
# stages read their weights per micro-batch, attention computes at 16 bits (FP8 with an FP8 cache), all-reduces reach a
# fitted share of the links and an architecture with two GPUs and two publications has shares of its own (the same
# day): the expectation stayed pessimistic on MLPerf's Mixtral (expected / measured 0.48 to 0.81). 0.096 and 0.112, all
# 42 figures 0.103 and the worst GPU 0.244 (L40S), once a mixture of experts' overheads scale with its depth (Mixtral's
# 32 layers against DeepSeek R1's 61; 2026-11-29). 0.103 and 0.111, all 42 figures 0.106, the worst GPU 0.244 (L40S),
# once a model's measured level scales its expectation (out_serving_levels: Llama 3.1 8B and 405B, DeepSeek R1; the same
# day). The overall and per-GPU limits are the goal: a median under 0.15 over all figures, no GPU's median above 0.30.
MEDIAN_ABS_ERROR_LIMIT = {"tensorrt-llm": 0.15, "vllm-sglang": 0.18}
OVERALL_LIMIT, GPU_LIMIT = 0.15, 0.30

# MLPerf Inference's time-per-output-token limit of the Server scenario, ms (99th percentile), per benchmark:
# mlcommons/inference loadgen/mlperf.conf @ 001712e9 ('llama2-70b.Server.tpot_latency = 200', 'mixtral-8x7b... = 200',
# 'llama3_1-405b... = 175', 'llama3_1-8b... = 100', 'deepseek-r1... = 80')
SERVER_TPOT_MS = {
    "llama-2-70b": 200,
    "mixtral-8x7b": 200,
    "llama-3.1-405b": 175,
    "llama-3.1-8b": 100,
    "deepseek-r1": 80,
}
SERVER_CANDIDATES = [2**k for k in range(13)]  # sequences per replica tried: 1 to 4,096

# Spearman rank correlation of expected with measured throughput per GPU across the GPUs of one benchmark and
# scenario (those with at least four GPUs). Measured on 2026-11-28: 0.75 to 1.0 per group, mean 0.88; over all
# 42 figures 0.94; then 0.40 to 1.0, mean 0.77, over all 0.92 (Mixtral's Server group: four GPUs, of which MI300X
# and MI325X have the same specs, so one swap moves rho by 0.6: the floor per group is loose, the mean and the
# whole set are the firm checks).
RANK_MIN_PER_GROUP, RANK_MIN_MEAN, RANK_MIN_ALL = 0.3, 0.75, 0.85
RANK_GROUP_MIN_GPUS = 4

# columns of raw_serving_measurements that core_serving_measurements.sql reads, besides provenance
RAW_COLUMNS = [
    "model_id",
    "model_as_printed",
    "gpu_id",
    "gpu_as_printed",
    "gpu_count",
    "tensor_parallel",
    "pipeline_parallel",
    "engine",
    "engine_version",
    "format",
    "kv_format",
    "speculative_decoding",
    "scenario",
    "concurrency",
    "input_tokens",
    "output_tokens",
    "lengths",
    "metric",
    "value",
    "unit",
    "quote",
    "document_id",
]


REPORT_COLUMNS = [
    "mlperf_id",
    "submitter",
    "model_id",
    "gpu",
    "gpu_count",
    "tensor_parallel",
    "pipeline_parallel",
    "format",
    "scenario",
    "measured",
    "bound",
    "expected",
    "share",
    "ratio",
]


def read_fixture(path: Path = FIXTURE) -> pd.DataFrame:
    """A fixture as a source file is read: every value text, an empty cell NULL, with provenance."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame = frame.astype(object).where(frame != "", None)
    frame["source_id"] = frame["document_id"]
    frame["source_file"] = str(path.relative_to(path.parents[3]))
    frame["source_row"] = range(2, len(frame) + 2)
    return frame


def server_candidates(frame: pd.DataFrame) -> pd.DataFrame:
    """For each Server figure, one row per candidate load: the same deployment with SERVER_CANDIDATES sequences per
    replica stated (scenario 'concurrency'), numbered after the fixture's rows, each naming its figure's row."""
    server = frame[frame["scenario"] == "server"]
    rows = []
    for _, row in server.iterrows():
        replicas = int(row["gpu_count"]) // (int(row["tensor_parallel"]) * int(row["pipeline_parallel"]))
        for u in SERVER_CANDIDATES:
            rows.append(
                row.to_dict()
                | {
                    "scenario": "concurrency",
                    "concurrency": str(replicas * u),
                    "of_row": row["source_row"],
                    "tpot_ms": SERVER_TPOT_MS[row["model_id"]],
                }
            )
    candidates = pd.DataFrame(rows)
    candidates["source_row"] = range(len(frame) + 2, len(frame) + 2 + len(candidates))
    return candidates


@contextmanager
def evaluate(db: Path, *frames: pd.DataFrame) -> Iterator[duckdb.DuckDBPyConnection]:
    """Fixture rows through core_serving_measurements.sql, out_serving_bounds.sql and out_serving_estimates.sql, in
    an in-memory database reading the built one (read-only), with the all-data fit and levels under every held-out
    id."""
    con = duckdb.connect()
    con.execute(f"attach {path_literal(db)} as atlas (read_only)")
    con.execute("set search_path = 'memory.main,atlas.main'")
    define_macros(con)  # param() reads atlas's core_parameters through the search path
    columns = RAW_COLUMNS + ["source_id", "source_file", "source_row"]
    ddl = ", ".join(f"{c} {'integer' if c == 'source_row' else 'varchar'}" for c in columns)  # as steps.ingest
    con.execute(f"create table raw_serving_measurements ({ddl})")
    for rows in frames:
        con.register("_fixture", rows[columns])
        con.execute("insert into raw_serving_measurements select * from _fixture")
        con.unregister("_fixture")
    create_table_from_sql(con, "core_serving_measurements")
    create_table_from_sql(con, "out_serving_bounds")
    for table in ("out_serving_shares", "out_serving_levels"):  # the fits' shares, and the models' levels
        con.execute(f"""
            create table {table} as
            with all_data as (
                select * from atlas.main.{table} where held_out_gpu_id is null and held_out_source_id is null
            )
            select a.* replace (g.gpu_id as held_out_gpu_id)
            from all_data as a cross join (select distinct gpu_id from core_serving_measurements) as g
            union all
            select a.* replace (s.source_id as held_out_source_id)
            from all_data as a cross join (select distinct source_id from core_serving_measurements) as s""")
    create_table_from_sql(con, "out_serving_estimates")
    try:
        yield con
    finally:
        con.close()


@pytest.fixture(scope="module")
def mlperf(built_site):
    """The fixture's figures through the pipeline's SQL (evaluate); a Server figure at its best candidate load."""
    frame = read_fixture()
    candidates = server_candidates(frame)
    with evaluate(built_site["db"], frame, candidates) as con:
        yield {"con": con, "fixture": frame, "figures": server_figures(con, frame, candidates)}


def server_figures(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    """Every fixture figure with its expectation, a Server figure's at its best candidate that meets its limit."""
    con.register("_fixture_rows", frame[["source_row", "mlperf_id", "submitter"]])
    con.register("_candidates", candidates[["source_row", "of_row", "tpot_ms"]])
    figures = con.execute("""
        with within_limit as (  -- a Server figure's expectation: its best candidate whose step meets the limit
            select c.of_row, coalesce(max(e.expected_capped) filter (where e.expected_capped * e.gpus_per_replica
                                        / e.concurrency_per_replica_expected * c.tpot_ms / 1e3 >= 1),
                                      arg_min(e.expected_capped, e.concurrency_per_replica_expected)) as expected
            from _candidates as c
            join out_serving_estimates as e on e.source_row = c.source_row
            join out_serving_estimates as o on o.source_row = c.of_row
            where e.concurrency_per_replica_expected <= o.concurrency_per_replica_expected
            group by c.of_row
        )
        select e.* replace (coalesce(w.expected, e.expected_capped) as expected_capped,
                            coalesce(w.expected, e.expected_without_publication) as expected_without_publication),
               coalesce(w.expected, e.expected_capped) as expected,
               coalesce(w.expected, e.expected_capped) / e.measured as ratio, r.mlperf_id, r.submitter
        from out_serving_estimates as e
        join _fixture_rows as r on r.source_row = e.source_row
        left join within_limit as w on w.of_row = e.source_row
        order by e.model_id, e.scenario, e.gpu_id""").df()
    return figures


def spearman(a: pd.Series, b: pd.Series) -> float:
    """Spearman's rank correlation (Pearson's on average ranks; no SciPy)."""
    return a.rank().corr(b.rank())


def median_abs_error(frame: pd.DataFrame) -> float:
    return (frame["ratio"] - 1).abs().median()


def test_the_fixture_is_well_formed_and_broad(mlperf):
    """The fixture passes the schema of a serving.csv source (known GPU and model ids included), and holds at
    least 20 figures on at least 6 GPUs from at least 3 submitters, each traced to its result log and to the
    file that states its deployment."""
    con, frame = mlperf["con"], mlperf["fixture"]
    gpu_ids = [r[0] for r in con.execute("select gpu_id from atlas.main.core_gpus").fetchall()]
    model_ids = [r[0] for r in con.execute("select model_id from atlas.main.core_models").fetchall()]
    schema = schemas.RAW_SCHEMAS["serving_measurements"](gpu_ids=gpu_ids, model_ids=model_ids)
    assert schemas.validate(schema, frame) == []
    assert len(frame) >= 20 and frame["gpu_id"].nunique() >= 6 and frame["submitter"].nunique() >= 3
    assert frame[["mlperf_id", "result_path", "deployment_path"]].notna().all().all()
    assert set(frame["scenario"]) == {"max_throughput", "server"}
    assert set(frame["metric"]) == {"output_tokens_per_s"} and set(frame["lengths"]) == {"mean"}
    assert not frame.duplicated(["mlperf_id", "model_as_printed", "scenario"]).any()


def test_mlperf_stays_out_of_the_calibration(mlperf):
    """No MLPerf figure is among the measurements the expectation is fitted on."""
    con = mlperf["con"]
    leaked = con.execute(
        """select count(*) from atlas.main.core_serving_measurements
           where source_id = ? or quote ilike '%mlperf%' or model_as_printed ilike '%mlperf%'""",
        [DOCUMENT],
    ).fetchone()[0]
    assert leaked == 0
    sources = con.execute("select count(*) from atlas.main.core_sources where source_id = ?", [DOCUMENT]).fetchone()
    assert sources[0] == 0


def test_every_figure_is_evaluated_with_the_all_data_fit(mlperf):
    """Every fixture row reaches the estimates (a model, format or GPU the serving tables lack would drop it), with
    a bound and an expectation, and both expectations are the all-data fit's."""
    figures = mlperf["figures"]
    assert len(figures) == len(mlperf["fixture"])
    assert figures[["bound", "expected", "measured"]].notna().all().all()
    assert figures["calibrated_without_this_gpu"].all()
    assert (figures["expected"] - figures["expected_without_publication"]).abs().max() < 1e-9 * figures["bound"].max()
    assert (figures["quantity"] == "throughput").all()


def test_no_mlperf_figure_beats_its_bound(mlperf):
    """A figure above its bound (more than bound_tolerance, 2%) means our bound, a GPU's spec or a model's size is
    wrong. Figures with speculative decoding are skipped: drafting tokens can beat a bound that decodes one token a
    step (the fixture has none: no v5.1 submission used it)."""
    figures = mlperf["figures"]
    report = figures.assign(
        share=figures["measured"] / figures["bound"], gpu=figures["gpu_id"].str.removeprefix("nvidia-")
    )
    print("\nMLPerf Inference v5.1 (closed, available) against the serving model, output tokens/s per GPU")
    print("share = measured / bound; ratio = expected / measured")
    with pd.option_context("display.width", 250, "display.max_columns", 20):
        print(
            report[REPORT_COLUMNS].to_string(index=False, float_format=lambda v: f"{v:,.3f}" if v < 10 else f"{v:,.0f}")
        )
    checked = figures[~figures["speculative_decoding"]]
    tolerance = mlperf["con"].execute("select param('bound_tolerance')").fetchone()[0]
    assert tolerance <= 0.02
    beyond = checked[checked["measured"] > checked["bound"] * (1 + tolerance)]
    assert beyond.empty, beyond[["mlperf_id", "model_id", "gpu_id", "scenario", "measured", "bound"]]
    assert checked["within_bound"].all()


def test_the_expectation_is_as_accurate_as_when_this_check_was_added(mlperf):
    figures = mlperf["figures"]
    print("\nmedian |expected / measured - 1| (figures), and median measured / bound")
    for keys, group in figures.groupby(["engine_family", "scenario"]):
        print(f"  {keys[0]:<13} {keys[1]:<19} {median_abs_error(group):.3f} ({len(group)})")
    by_gpu = {}
    for gpu, group in figures.groupby("gpu_id"):
        share = (group["measured"] / group["bound"]).median()
        by_gpu[gpu] = median_abs_error(group)
        print(f"  {gpu:<33} {by_gpu[gpu]:.3f} ({len(group)}), share of bound {share:.2f}")
    for family, group in figures.groupby("engine_family"):
        error = median_abs_error(group)
        print(f"  {family:<33} {error:.3f} ({len(group)}), limit {MEDIAN_ABS_ERROR_LIMIT[family]}")
        assert error <= MEDIAN_ABS_ERROR_LIMIT[family], (family, error)
    assert set(figures["engine_family"]) == set(MEDIAN_ABS_ERROR_LIMIT)
    overall = median_abs_error(figures)
    print(f"  all {len(figures)} figures: {overall:.3f}, limit {OVERALL_LIMIT}; worst GPU {max(by_gpu.values()):.3f}")
    # the goal on its own independent set: a median under 0.15 and no GPU's median over 0.30 (2026-11-29:
    # 0.150 over the 42 figures, worst GPU MI300X 0.280); the limits keep a little room for a regression to show
    assert overall <= OVERALL_LIMIT and max(by_gpu.values()) <= GPU_LIMIT, (overall, by_gpu)


def test_the_expectation_ranks_gpus_as_mlperf_does(mlperf):
    figures = mlperf["figures"]
    correlations = {
        keys: spearman(group["expected"], group["measured"])
        for keys, group in figures.groupby(["model_id", "scenario"])
        if group["gpu_id"].nunique() >= RANK_GROUP_MIN_GPUS
    }
    overall = spearman(figures["expected"], figures["measured"])
    print("\nSpearman rank correlation of expected with measured, across GPUs")
    for (model, scenario), rho in correlations.items():
        print(f"  {model:<15} {scenario:<15} {rho:.3f}")
    mean = sum(correlations.values()) / len(correlations)
    print(f"  mean {mean:.3f}; all figures {overall:.3f}")
    assert len(correlations) >= 4
    assert min(correlations.values()) > RANK_MIN_PER_GROUP, correlations
    assert mean > RANK_MIN_MEAN and overall > RANK_MIN_ALL, (mean, overall)


def test_a_server_figure_is_expected_at_a_load_that_meets_its_latency_limit(mlperf):
    """A Server figure's expectation is never above the Offline expectation of the same deployment (the latency limit
    only takes sequences away; 2% for the scenarios' slightly different mean lengths), and the limit binds somewhere
    (DeepSeek R1 at 80 ms a token)."""
    figures = mlperf["figures"]
    keys = ["mlperf_id", "model_id", "gpu_id", "tensor_parallel", "pipeline_parallel"]
    paired = figures[figures["scenario"] == "server"].merge(
        figures[figures["scenario"] == "max_throughput"], on=keys, suffixes=("_server", "_offline")
    )
    assert len(paired) >= 10
    assert (paired["expected_server"] <= paired["expected_offline"] * 1.02).all()
    assert (paired["expected_server"] < paired["expected_offline"] * 0.9).any()
