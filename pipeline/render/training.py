"""The Training page's account of its speeds: the utilisation each GPU's training estimates use, fitted on
published runs (view training_calibration), and every published run beside its estimate (training_vs_estimate).
Reads the public views only (the page asset depends on public_views)."""

from __future__ import annotations

import duckdb

from .markdown import esc, fixed, link, num, plural, table, url_link


def _pct(value) -> str:
    return "–" if value is None or value != value else f"{value:+.0%}" if abs(value) < 10 else f"{value:+,.0f}×"


def calibration_section(con: duckdb.DuckDBPyConnection, names: dict[str, str]) -> list[str]:
    measured = con.execute("""
        select gpu_id, runs, publications, measured_utilisation, held_out_utilisation, held_out_error, dense_tflops,
               memory_bandwidth_gbs
        from training_calibration where calibration_scope = 'gpu' order by runs desc, gpu_id""").df()
    line = con.execute("""select any_value(calibration_basis) from training_calibration
                          where calibration_scope = 'line'""").fetchone()[0]
    checks = con.execute("""
        select v.*, s.title, s.url
        from training_vs_estimate as v
        join sources as s using (source_id)
        where not in_calibration
        order by v.gpu_id, v.method, v.model_as_printed, v.measured_tokens_per_s_per_gpu""").df()
    runs = int(measured["runs"].sum()) if len(measured) else 0
    if not runs:
        return [
            "",
            "## Where the training speeds come from",
            "",
            "No published training run is loaded: every GPU's estimate assumes the `training_mfu` parameter.",
        ]
    err = measured["held_out_error"].abs().median()
    rows = [
        [
            link(names.get(r.gpu_id, r.gpu_id), f"gpus/{r.gpu_id}.md"),
            num(r.runs),
            num(r.dense_tflops),
            num(r.memory_bandwidth_gbs),
            f"{r.measured_utilisation:.1%}",
            f"{r.held_out_utilisation:.1%}",
            _pct(r.held_out_error),
        ]
        for r in measured.itertuples()
    ]
    check_rows = [
        [
            link(names.get(r.gpu_id, r.gpu_id), f"gpus/{r.gpu_id}.md"),
            esc(r.model_as_printed),
            esc(r.method),
            esc(r.precision),
            num(r.seq_len),
            fixed(r.measured_tokens_per_s_per_gpu),
            fixed(r.expected_tokens_per_s_per_gpu),
            _pct(r.expected_tokens_per_s_per_gpu / r.measured_tokens_per_s_per_gpu - 1),
            url_link(r.title, r.url, 60),
        ]
        for r in checks.itertuples()
        if r.method != "pretrain" or r.gpu_id not in set(measured.gpu_id)
    ]
    return [
        "",
        "## Where the training speeds come from",
        "",
        f"Training speed is an **expectation**: tokens/s = dense 16-bit TFLOPS × utilisation ÷ (FLOPs per token: "
        "6 × active parameters for a full update, 4 × for LoRA and QLoRA, + 2 × where the forward pass is recomputed). "
        f"The utilisation is calibrated on {plural(runs, 'published run', 'published runs')} (BF16 full updates of dense models at "
        f"{int(con.execute('select param(?)', ['training_calibration_min_context']).fetchone()[0]):,}–"
        f"{int(con.execute('select param(?)', ['training_calibration_max_context']).fetchone()[0]):,}-token sequences) "
        f"on {plural(len(measured), 'GPU', 'GPUs')}: a GPU with runs of its own uses their median; every other GPU is "
        "placed on a line fitted through them, 1 ÷ utilisation = a + b × (TFLOPS ÷ GB/s), because the time a training "
        "step spends streaming memory (optimizer, normalisation, activations) grows as a GPU's compute outruns its "
        "memory: A100 40 GB and 80 GB share one peak, and the 80 GB's faster memory gives it the higher utilisation "
        f"in the same runs. Held out (each measured GPU predicted by the line fitted without it) the median error is "
        f"**{err:.0%}**; that is what an unmeasured GPU's estimate carries ({esc(line or 'no line')}). "
        "Every GPU's utilisation and basis is in the `training_calibration` view.",
        "",
        table(
            ["GPU", "Runs", "Dense 16-bit TFLOPS", "Memory GB/s", "Utilisation (measured)", "Held out", "Error"],
            rows,
            sortable=True,
            low=[2, 3, 5],
        ),
        "",
        "### Outside checks: published runs the calibration does not use",
        "",
        "LoRA and QLoRA runs, runs whose precision is not printed and short-sequence runs, each against its "
        "estimate (the formula above, at the GPU's utilisation); Error = expected ÷ measured − 1, so a negative error "
        "means the run was faster than the estimate. All of them are in the `training_vs_estimate` view.",
        "",
        table(
            [
                "GPU",
                "Model",
                "Method",
                "Precision",
                "Sequence",
                "Measured tok/s per GPU",
                "Expected",
                "Error",
                "Source",
            ],
            check_rows,
            sortable=True,
            low=[3, 4, 8],
        ),
    ]
