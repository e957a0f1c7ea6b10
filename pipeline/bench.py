"""Benchmarks (not tests): time each build stage, a price-only refresh, and vram_fit at scale.

uv run python -m pipeline.bench            # everything
uv run python -m pipeline.bench --fit-only # only the vram_fit scale benchmark
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from .db import create_table_from_sql, path_literal, sql_text
from .steps import define_macros

STAGES = [
    ("ingest", lambda k: k.startswith("raw_") and not k.endswith("_schema") or k == "core_sources"),
    ("checks", lambda k: k.endswith("_schema") or k.endswith(("breakdown_sums", "offers_mapped", "claims_classified"))),
    ("sql", lambda k: k.startswith(("core_", "out_")) or k == "public_views"),
    ("render", lambda k: k.startswith("pages_") or k in ("exports", "site_docs_base")),
    ("mkdocs", lambda k: k == "site"),
]


def stage_of(step_key: str) -> str:
    for name, test in STAGES:
        if test(step_key):
            return name
    return "other"


def add_price_snapshot(sources: Path, day: str | None = None, provider: str = "lambda", change: float = 1.1) -> Path:
    """A new dated snapshot of one provider (today's by default): its latest list with the first price changed
    (a price move), read on that day. The benchmark's refresh and the refresh tests use the same scenario."""
    import shutil

    from .sources import build_date, latest_price_snapshot, write_checksums

    day = day or build_date().isoformat()

    latest = latest_price_snapshot(sources, provider)
    new = latest.parent / day
    shutil.copytree(latest, new)
    lines = (new / "prices.csv").read_text(encoding="utf-8").splitlines()
    header, cells = lines[0].split(","), lines[1].split(",")
    col = header.index("usd_per_hour")
    cells[col] = f"{float(cells[col]) * change:.4f}"
    lines[1] = ",".join(cells)
    (new / "prices.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    side = new / "prices.source.yml"
    dated = [
        f"{line.split(':', 1)[0]}: {day}" if line.startswith(("accessed_on:", "published_on:")) else line
        for line in side.read_text(encoding="utf-8").splitlines()
    ]
    side.write_text("\n".join(dated) + "\n", encoding="utf-8")
    write_checksums(sources)
    return new


def bench_build() -> None:
    """Full builds and price refreshes on a private copy of the sources, into a temporary folder."""
    import shutil

    from .config import paths, paths_overridden
    from .run import materialize, price_selection

    with tempfile.TemporaryDirectory() as tmp:
        sources = Path(tmp) / "sources"
        shutil.copytree(paths().sources, sources)
        with paths_overridden(Path(tmp) / "atlas.duckdb", Path(tmp) / "build", sources):
            _bench_build(materialize, price_selection, sources)


def _bench_build(materialize, price_selection, sources: Path, repeats: int = 3) -> None:
    import shutil

    cold = materialize()  # first run in this process: pays the imports and schema loading
    assert cold.ok, cold.errors
    print(f"first (cold) full build in this process: {cold.seconds:.1f} s")
    fulls = []
    for _ in range(repeats):
        full = materialize()
        assert full.ok, full.errors
        fulls.append(full)
    full = min(fulls, key=lambda o: o.seconds)
    totals: dict[str, float] = defaultdict(float)
    for key, seconds in full.step_seconds.items():
        totals[stage_of(key)] += seconds
    print(
        f"full build, warm process: best {full.seconds:.2f} s of {repeats} "
        f"({', '.join(f'{o.seconds:.2f}' for o in fulls)}; {len(full.materialized)} assets, {full.checks_passed} checks)"
    )
    for name, _ in STAGES:
        print(f"  {name:<7} {totals[name]:6.2f} s")
    print(f"  orchestration and start-up: {full.seconds - sum(totals.values()):.2f} s")

    def refresh(label: str) -> None:
        runs = []
        for _ in range(repeats):
            new = add_price_snapshot(
                sources
            )  # the same new snapshot each time: the price moves against the last good build
            outcome = materialize(price_selection(), incremental=True)
            assert outcome.ok, outcome.errors
            runs.append(outcome)
            shutil.rmtree(new)
            materialize(price_selection(), incremental=True)  # back to the real sources
        best = min(runs, key=lambda o: o.seconds)
        print(
            f"price refresh, {label}: best {best.seconds:.2f} s of {repeats} "
            f"({', '.join(f'{o.seconds:.2f}' for o in runs)}; {len(best.materialized)} assets) = "
            f"{best.seconds / full.seconds:.0%} of a full build"
        )
        slowest = sorted(best.step_seconds.items(), key=lambda kv: -kv[1])[:6]
        print("  slowest steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in slowest))

    refresh("new Lambda snapshot, one price +10%")
    unchanged = materialize(price_selection(), incremental=True)
    assert unchanged.ok, unchanged.errors
    print(
        f"price refresh, sources unchanged: {unchanged.seconds:.2f} s = {unchanged.seconds / full.seconds:.0%} of a full build"
    )


# ------------------------------------------------------------------ vram_fit at scale
PARAM_COLUMNS = [
    "params_b",
    "active_params_b",
    "embedding_params_b",
    "head_params_b",
    "attention_params_b",
    "mlp_params_b",
    "expert_params_b",
    "norm_params_b",
    "linear_params_b",
    "value_down_params_b",
    "other_params_b",
    "params_per_expert_layer_b",
    "routed_value_down_params_b",
]


def scaled_catalogue(con: duckdb.DuckDBPyConnection, source_db: Path, factor: int) -> None:
    """Copy the built catalogue and multiply models and GPUs by `factor` (synthetic variants)."""
    con.execute(f"attach {path_literal(source_db)} as atlas (read_only)")
    con.execute("create table core_parameters as select * from atlas.core_parameters")
    scaled = ", ".join(f"{c} * (1 + i / 10) as {c}" for c in PARAM_COLUMNS)
    con.execute(f"""create table core_models as
        select * replace (model_id || '-syn' || i as model_id, {scaled})
        from atlas.core_models, range({factor}) as t(i)""")
    con.execute(f"""create table core_gpus as
        select * replace (gpu_id || '-syn' || i as gpu_id, memory_gb * (1 + i / 10) as memory_gb)
        from atlas.core_gpus, range({factor}) as t(i) where memory_gb is not null""")
    con.execute("detach atlas")
    define_macros(con)
    for table in ("core_weight_formats", "out_model_weights"):
        create_table_from_sql(con, table)


def _inference_inputs(con: duckdb.DuckDBPyConnection) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    models = con.execute("select * from core_models order by model_id").df()
    formats = con.execute("select * from core_weight_formats where format <> 'nf4' order by format").df()
    gpus = con.execute("select gpu_id, memory_gb from core_gpus where memory_gb is not null order by gpu_id").df()
    params = {
        r[0]: (r[1] if r[1] is not None else r[2])
        for r in con.execute("select name, value, value_list from core_parameters").fetchall()
    }
    return models, formats, gpus, params


def numpy_inference_fit(
    models: pd.DataFrame, formats: pd.DataFrame, gpus: pd.DataFrame, params: dict
) -> tuple[int, int]:
    """The inference fit of out_memory_requirements + out_vram_fit, vectorised with NumPy: one model at a time,
    broadcast over formats x KV formats x contexts x batches x GPUs x GPU counts. Returns (rows, rows that fit)."""
    lin_b, exp_b, vd_b, emb_b, head_b, oth_b = (
        formats[c].to_numpy(float)
        for c in ("linear_bits", "expert_bits", "value_down_extra_bits", "embedding_bits", "head_bits", "other_bits")
    )
    apart = formats["format"].eq("mxfp4-moe").to_numpy()  # experts apart: only models with experts
    ctxs = np.array(params["inference_contexts"], float)
    batches = np.array(params["inference_batches"], float)
    kv_bytes = np.array([params["bytes_bf16"], params["bytes_fp8"]])
    counts = np.array(params["gpu_counts"], float)
    usable = gpus["memory_gb"].to_numpy(float) * params["usable_memory_fraction"]
    fixed, grow = params["runtime_overhead_gb"], 1 + params["runtime_overhead_fraction"]
    rows = fits = 0
    for m in models.itertuples():
        keep = ~apart if not m.is_moe else np.ones_like(apart)
        weights = (
            (m.linear_params_b - m.expert_params_b) * lin_b
            + m.expert_params_b * exp_b
            + m.value_down_params_b * vd_b
            + m.embedding_params_b * emb_b
            + m.head_params_b * head_b
            + m.other_params_b * oth_b
        )[keep] / 8  # [F]
        ctx = np.unique(np.minimum(ctxs, m.max_context))  # [C]: contexts capped at the maximum, as in the SQL
        win = ctx if pd.isna(m.sliding_window) else np.minimum(ctx, m.sliding_window)
        kv_values = m.kv_values_per_token_full * ctx + m.kv_values_per_token_window * win  # [C]
        rep = counts if m.attention_kind == "mla" else np.ceil(m.kv_heads / counts) * counts / m.kv_heads
        valid = (m.attention_heads % counts) == 0  # [D]
        kv_gb = (
            (kv_values[None, :, None] * kv_bytes[:, None, None] + m.state_values_per_sequence * params["bytes_bf16"])
            * batches[None, None, :]
            / 1e9
        )  # [K, C, B]
        per_gpu = (
            fixed + grow * (weights[:, None, None, None, None] + kv_gb[None, :, :, :, None] * rep) / counts
        )  # [F, K, C, B, D]
        fit = valid & (per_gpu[..., None, :] <= usable[:, None])  # [F, K, C, B, G, D]
        rows += fit.size
        fits += int(fit.sum())
    return rows, fits


def pandas_row_by_row(
    models: pd.DataFrame, formats: pd.DataFrame, gpus: pd.DataFrame, params: dict, limit_rows: int
) -> tuple[int, float]:
    """The same inference-fit formulas, one row at a time in Python (the approach DuckDB replaces)."""
    started, rows, out = time.perf_counter(), 0, []
    fixed, grow = params["runtime_overhead_gb"], 1 + params["runtime_overhead_fraction"]
    for m in models.itertuples():
        for f in formats.itertuples():
            if f.format == "mxfp4-moe" and not m.is_moe:
                continue
            weights = (
                (m.linear_params_b - m.expert_params_b) * f.linear_bits
                + m.expert_params_b * f.expert_bits
                + m.value_down_params_b * f.value_down_extra_bits
                + m.embedding_params_b * f.embedding_bits
                + m.head_params_b * f.head_bits
                + m.other_params_b * f.other_bits
            ) / 8
            for kv_bytes in (params["bytes_bf16"], params["bytes_fp8"]):
                for ctx in params["inference_contexts"]:
                    for batch in params["inference_batches"]:
                        c = min(ctx, m.max_context)
                        w = c if pd.isna(m.sliding_window) else min(c, m.sliding_window)
                        kv = m.kv_values_per_token_full * c + m.kv_values_per_token_window * w
                        kv_gb = (kv * kv_bytes + m.state_values_per_sequence * params["bytes_bf16"]) * batch / 1e9
                        for g in gpus.itertuples():
                            usable = g.memory_gb * params["usable_memory_fraction"]
                            for count in params["gpu_counts"]:
                                rep = (
                                    count
                                    if m.attention_kind == "mla"
                                    else math.ceil(m.kv_heads / count) * count / m.kv_heads
                                )
                                per_gpu = fixed + grow * (weights + kv_gb * rep) / count
                                out.append(
                                    (
                                        m.model_id,
                                        g.gpu_id,
                                        f.format,
                                        kv_bytes,
                                        c,
                                        batch,
                                        count,
                                        per_gpu,
                                        m.attention_heads % count == 0 and per_gpu <= usable,
                                    )
                                )
                                rows += 1
                                if rows >= limit_rows:
                                    pd.DataFrame(out)
                                    return rows, time.perf_counter() - started
    pd.DataFrame(out)
    return rows, time.perf_counter() - started


def bench_fit(source_db: Path, factor: int = 10) -> None:
    con = duckdb.connect(":memory:")
    con.execute("set threads to 2")
    scaled_catalogue(con, source_db, factor)
    n_models, n_gpus = (con.execute(f"select count(*) from {t}").fetchone()[0] for t in ("core_models", "core_gpus"))
    started = time.perf_counter()
    create_table_from_sql(con, "out_memory_requirements")
    create_table_from_sql(con, "out_vram_fit")
    create_table_from_sql(con, "out_vram_fit_detail")
    seconds = time.perf_counter() - started
    rows = con.execute("select count(*) from out_vram_fit").fetchone()[0]
    print(
        f"vram_fit, catalogue x{factor}: {n_models} models x {n_gpus} GPUs -> {rows:,} rows in {seconds:.2f} s "
        f"in DuckDB ({rows / seconds / 1e6:.1f} M rows/s), inference and training"
    )
    inference_rows, inference_fits = con.execute(
        "select count(*), count(*) filter (where fits) from out_vram_fit_detail where workload = 'inference'"
    ).fetchone()
    # the same inference-fit answer NumPy gives (counts, nothing written): the SQL streamed into an aggregate
    started = time.perf_counter()
    streamed = con.execute(f"""select count(*), count(*) filter (where f.fits)
                               from ({sql_text("out_vram_fit")}) as f
                               join out_memory_requirements as r using (scenario_id)
                               where r.workload = 'inference'""").fetchone()
    stream_seconds = time.perf_counter() - started
    print(
        f"DuckDB, the same SQL streamed into the inference counts (no table written): {streamed[0]:,} rows "
        f"({streamed[1]:,} fit) in {stream_seconds:.2f} s"
    )
    models, formats, gpus, params = _inference_inputs(con)
    started = time.perf_counter()
    np_rows, np_fits = numpy_inference_fit(models, formats, gpus, params)
    np_seconds = time.perf_counter() - started
    same = (
        "same rows and fits as DuckDB"
        if (np_rows, np_fits) == (inference_rows, inference_fits)
        else f"DIFFERS from DuckDB ({inference_rows:,} rows, {inference_fits:,} fit)"
    )
    print(
        f"NumPy, vectorised, same inference formulas: {np_rows:,} rows ({np_fits:,} fit) in {np_seconds:.2f} s "
        f"({np_rows / np_seconds / 1e6:.1f} M rows/s): {same}"
    )
    sample, py_seconds = pandas_row_by_row(models, formats, gpus, params, limit_rows=300_000)
    rate = sample / py_seconds
    print(
        f"row-by-row pandas/Python, same inference formulas: {sample:,} rows in {py_seconds:.2f} s "
        f"({rate / 1e6:.2f} M rows/s) -> {inference_rows:,} inference rows would take ~{inference_rows / rate:.0f} s"
    )
    print(
        f"ratios on the inference counts: DuckDB streamed {stream_seconds:.2f} s; NumPy {np_seconds:.2f} s "
        f"(DuckDB takes {stream_seconds / np_seconds:.1f}x NumPy's time); row-by-row ~{inference_rows / rate:.0f} s "
        f"({(inference_rows / rate) / stream_seconds:.0f}x DuckDB's time)"
    )
    con.close()


PLAN_ARGS = [
    "--model",
    "llama-3.1-70b",
    "--precision",
    "fp8",
    "--context",
    "8192",
    "--users",
    "50",
    "--input-tokens",
    "2000",
    "--output-tokens",
    "500",
]


def bench_plan(db: Path, site: Path, repeats: int = 5) -> None:
    """One Planner answer: the `gpu-atlas plan` command (a new process, as a user runs it), the SQL alone on an
    open connection, and the page's evaluation in Chromium (planner-model.js on the same question)."""
    import os
    import shutil
    import subprocess
    import sys

    from .plan import Question, max_contexts, plan_options, validate

    env = {**os.environ, "GPU_ATLAS_DB": str(db)}
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pipeline.cli", "plan", *PLAN_ARGS, "--json"],
            env=env,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - started)
    print(
        f"Planner, `gpu-atlas plan` (70B FP8, 50 users, 2,000/500 tokens), whole command: median "
        f"{sorted(times)[len(times) // 2]:.2f} s of {repeats}"
    )
    con = duckdb.connect(str(db), read_only=True)
    q = validate(Question(model="llama-3.1-70b", precision="fp8", context=8192, users=50), max_contexts(con))
    sql = []
    for _ in range(repeats):
        started = time.perf_counter()
        n = len(plan_options(con, pd.DataFrame([q.scenario()])))
        sql.append(time.perf_counter() - started)
    con.close()
    print(f"Planner, the SQL on an open connection: median {sorted(sql)[len(sql) // 2] * 1000:.0f} ms ({n} options)")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists() or not site.exists():
        print("Planner in the browser: skipped (no Chromium or no built site; `make browser`, `make build`)")
        return
    import sys as _sys

    _sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))
    from browsing import ARGS, serving
    from playwright.sync_api import sync_playwright

    with serving(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS, headless=True)
        page = browser.new_page()
        page.goto(base + "planner/")
        page.wait_for_function("() => document.body.dataset.plannerReady === '1'")
        ms = page.evaluate(
            """async (q) => {
            const c = await (await fetch('../api/v1/plan/coefficients.json')).json();
            const m = new AtlasPlannerModel.Model(c);
            const times = [];
            let n = 0;
            for (let i = 0; i < 20; i++) { const t = performance.now(); n = m.plan(q).length; times.push(performance.now() - t); }
            times.sort((a, b) => a - b);
            return [times[10], n];
        }""",
            {**q.scenario(), "tier": "on-demand"},
        )
        browser.close()
    print(f"Planner in the browser (planner-model.js, same question): median {ms[0]:.1f} ms of 20 ({ms[1]} options)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fit-only", action="store_true")
    parser.add_argument("--factor", type=int, default=10)
    args = parser.parse_args()
    from .config import paths

    if not args.fit_only:
        bench_build()
    db = paths().database
    if not db.exists():
        raise SystemExit(f"no database at {db}: run `make build` first")
    bench_plan(db, paths().site)
    bench_fit(db, args.factor)


if __name__ == "__main__":
    main()
