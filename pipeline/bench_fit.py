"""Benchmark (not a test): vram_fit's inference scenarios at a catalogue scaled up, in DuckDB against NumPy and
against row-by-row Python (why the SQL stage is vectorised). Run by `make bench` (pipeline.bench)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from .db import create_table_from_sql, path_literal, sql_text
from .steps import define_macros

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
        select * replace (gpu_id || '-syn' || i as gpu_id, memory_gb * (1 + i / 10) as memory_gb,
                          usable_memory_gb * (1 + i / 10) as usable_memory_gb)
        from atlas.core_gpus, range({factor}) as t(i) where memory_gb is not null""")
    con.execute("detach atlas")
    define_macros(con)
    for table in ("core_weight_formats", "out_model_weights"):
        create_table_from_sql(con, table)


def _inference_inputs(con: duckdb.DuckDBPyConnection) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    models = con.execute("select * from core_models order by model_id").df()
    formats = con.execute("select * from core_weight_formats where format <> 'nf4' order by format").df()
    gpus = con.execute(
        "select gpu_id, usable_memory_gb from core_gpus where usable_memory_gb is not null order by gpu_id"
    ).df()
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
    # formats that store experts apart (their expert bits differ from the linear layers'): only for models with
    # experts, as out_model_weights has it
    apart = formats["expert_bits"].ne(formats["linear_bits"]).to_numpy()
    ctxs = np.array(params["inference_contexts"], float)
    batches = np.array(params["inference_batches"], float)
    kv_bytes = np.array([params["bytes_bf16"], params["bytes_fp8"]])
    counts = np.array(params["gpu_counts"], float)
    usable = gpus["usable_memory_gb"].to_numpy(float) * params["usable_memory_fraction"]
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
            if f.expert_bits != f.linear_bits and not m.is_moe:  # experts apart: only models with experts
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
                            usable = g.usable_memory_gb * params["usable_memory_fraction"]
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
