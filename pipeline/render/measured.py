"""The page that holds every speed estimate against published measurements."""

from __future__ import annotations

import duckdb
import pandas as pd

from .markdown import esc, link, num, table, url_link


def _df(con: duckdb.DuckDBPyConnection, sql: str) -> pd.DataFrame:
    return con.execute(sql).df()


def accuracy(con: duckdb.DuckDBPyConnection, model_id: str, fmt: str) -> dict:
    """Spearman rank correlation of expected vs measured across GPUs (one GPU, batch 1) and the median
    |expected / measured - 1|, for one model and format."""
    rows = _df(con, f"""
        select gpu_id, median(measured_tokens_per_s) as measured, median(expected_tokens_per_s) as expected
        from out_measurement_bounds
        where model_id = '{model_id}' and format = '{fmt}' and gpu_count = 1 and batch_size = 1
          and expected_tokens_per_s is not null
        group by gpu_id""")
    if len(rows) < 3:
        return {"gpus": len(rows), "spearman": None, "median_abs_error": None}
    rho = rows["expected"].rank().corr(rows["measured"].rank())  # Spearman: Pearson on ranks
    err = (rows["expected"] / rows["measured"] - 1).abs().median()
    return {"gpus": len(rows), "spearman": float(rho), "median_abs_error": float(err)}


def measured_page(con: duckdb.DuckDBPyConnection) -> str:
    totals = con.execute("""select count(*), count(distinct gpu_id), count(distinct source_id),
                                   count(*) filter (where not within_bound), max(measured_share_of_bound)
                            from out_measurement_bounds""").fetchone()
    calib = _df(con, """select * from out_decode_calibration order by gpus_measured desc, architecture""")
    by_family = _df(con, """
        select architecture, count(*) as n, count(distinct gpu_id) as gpus,
               median(measured_share_of_bound) as share, median(abs(expected_error)) as err,
               max(measured_share_of_bound) as max_share
        from out_measurement_bounds where gpu_count = 1 and batch_size = 1
        group by architecture order by n desc, architecture""")
    detail = _df(con, """
        select b.*, s.url, s.title
        from out_measurement_bounds as b left join core_sources as s using (source_id)
        order by b.model_id, b.format, b.gpu_count, b.measured_tokens_per_s desc, b.gpu_id, b.source_id""")
    checks = [("llama-2-7b", "q4_0"), ("llama-2-7b", "bf16"), ("llama-3-8b", "q4_k_m"), ("llama-3-8b", "bf16"),
              ("llama-3-70b", "q4_k_m"), ("llama-3.1-8b", "q4_k_m")]
    acc_rows = []
    for model_id, fmt in checks:
        a = accuracy(con, model_id, fmt)
        acc_rows.append([esc(model_id), esc(fmt), num(a["gpus"]),
                         "–" if a["spearman"] is None else f"{a['spearman']:.2f}",
                         "–" if a["median_abs_error"] is None else f"{a['median_abs_error']:.0%}"])
    crow = [[esc(c.architecture), f"{c.decode_efficiency:.0%}" if pd.notna(c.decode_efficiency) else "–",
             num(c.overhead_us_per_layer), esc(c.calibration_scope), num(c.gpus_measured), num(c.measurements),
             "–" if pd.isna(c.median_measured_share_of_bound) else f"{c.median_measured_share_of_bound:.0%}"]
            for c in calib.itertuples()]
    frow = [[esc(f.architecture), num(f.n), num(f.gpus), f"{f.share:.0%}", f"{f.max_share:.0%}",
             "–" if pd.isna(f.err) else f"{f.err:.0%}"] for f in by_family.itertuples()]
    drow = [[esc(d.model_id), esc(d.format), link(d.gpu_name, f"gpus/{d.gpu_id}.md"), num(d.gpu_count),
             esc(d.split_mode), esc(d.engine), num(d.prompt_tokens), num(d.generated_tokens),
             num(d.measured_tokens_per_s), num(d.bound_tokens_per_s), f"{d.measured_share_of_bound:.0%}",
             num(d.expected_tokens_per_s), "–" if pd.isna(d.expected_error) else f"{d.expected_error:+.0%}",
             url_link(str(d.source_id), d.url)] for d in detail.itertuples()]
    n, gpus, pubs, above, top = totals
    return "\n".join([
        "# Measured against estimated", "",
        f"**{n} published measurements on {gpus} GPUs from {pubs} publications; {above} above their bound** "
        f"(the highest reaches {top:.0%} of it). Every decode speed GPU Atlas shows is a *bound* (100% of peak "
        "memory bandwidth over the bytes a step reads: nothing can beat it) and an *expectation* (the bound's time "
        "scaled and offset by a line fitted on published measurements of the GPU's architecture). A measured figure more than 2% above its bound stops "
        "the build. How the numbers are made: [Methodology](methodology.md).", "",
        "## How well the expectation ranks GPUs", "",
        "Single-GPU, batch-1 decode; each GPU's expectation uses only the *other* GPUs' measurements "
        "(leave-one-GPU-out), so a GPU never calibrates itself. Llama 3.1 8B's figures are LocalScore's "
        "community runs (llamafile), each the best of runs on unknown hosts: they rank GPUs poorly against any "
        "bandwidth model and are shown as they are.", "",
        table(["Model", "Format", "GPUs", "Spearman ρ (expected vs measured)", "Median error (expected ÷ measured − 1, absolute)"],
              acc_rows), "",
        "## Decode calibration by architecture", "",
        "What the expectations use (the `decode_calibration` view): measured time per token and layer = slope × "
        "the bound's time + a fixed overhead per layer, a least-squares line over the architecture's single-GPU "
        "llama.cpp measurements. Streaming efficiency is 1 ÷ slope; the overhead is what every token pays per "
        "layer whatever the GPU's bandwidth (kernel launches, synchronisation), which is why fast GPUs reach a "
        "smaller share of their bound on small models.", "",
        table(["Architecture", "Streaming efficiency", "Overhead per layer (µs)", "From", "GPUs measured",
               "Measurements", "Median measured ÷ bound"], crow), "",
        "## Calibration error by GPU family", "",
        table(["Architecture", "Measurements", "GPUs", "Median measured ÷ bound", "Highest", "Median absolute error"], frow), "",
        "## Every measurement", "",
        "Layer split (llama.cpp's default across GPUs) makes GPUs take turns, so its bound is one GPU's bandwidth; "
        "a tensor split reads on all GPUs at once. All rows are in the `measured_vs_estimate` view.", "",
        table(["Model", "Format", "GPU", "GPUs", "Split", "Engine", "Prompt", "Generated", "Measured tok/s",
               "Bound tok/s", "Of bound", "Expected tok/s", "Error", "Source"], drow, sortable=True),
    ]) + "\n"
