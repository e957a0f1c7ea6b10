"""The page that holds every speed estimate against published measurements."""

from __future__ import annotations

import duckdb
import pandas as pd

from .markdown import esc, fixed, link, num, table, url_link


def _df(con: duckdb.DuckDBPyConnection, sql: str) -> pd.DataFrame:
    return con.execute(sql).df()


def accuracy(con: duckdb.DuckDBPyConnection, model_id: str, fmt: str) -> dict:
    """Spearman rank correlation of expected vs measured across GPUs (one GPU, batch 1) and the median
    |expected / measured - 1|, for one model and format."""
    rows = _df(
        con,
        f"""
        select gpu_id, median(measured_tokens_per_s) as measured, median(expected_tokens_per_s) as expected
        from out_measurement_bounds
        where model_id = '{model_id}' and format = '{fmt}' and gpu_count = 1 and batch_size = 1
          and expected_tokens_per_s is not null
        group by gpu_id""",
    )
    if len(rows) < 3:
        return {"gpus": len(rows), "spearman": None, "median_abs_error": None}
    rho = rows["expected"].rank().corr(rows["measured"].rank())  # Spearman: Pearson on ranks
    err = (rows["expected"] / rows["measured"] - 1).abs().median()
    return {"gpus": len(rows), "spearman": float(rho), "median_abs_error": float(err)}


def serving_accuracy(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Per publication (a source snapshot: a publisher's table or post, all its releases together) and engine
    family: throughput figures, GPUs, the median |expected / measured - 1| with each figure's expectation fitted
    without its GPU, and Spearman's rho between expected and measured over the figures, with the share of its
    bound the best figure reaches."""
    rows = _df(
        con,
        """
        select s.snapshot_id, p.title, p.url, e.engine_family, e.gpu_id, e.measured,
               e.expected_capped as expected, e.measured_share_of_bound
        from out_serving_estimates as e
        join core_sources as s using (source_id)
        left join core_sources as p on p.source_id = s.snapshot_id
        where e.quantity = 'throughput' and e.scenario in ('max_throughput', 'concurrency')
          and not e.speculative_decoding""",
    )
    out = []
    for (snapshot, family), part in rows.groupby(["snapshot_id", "engine_family"], sort=True):
        rho = part["expected"].rank().corr(part["measured"].rank()) if len(part) >= 3 else None
        out.append(
            {
                "snapshot_id": snapshot,
                "title": part["title"].iloc[0],
                "url": part["url"].iloc[0],
                "engine_family": family,
                "figures": len(part),
                "gpus": part["gpu_id"].nunique(),
                "median_abs_error": float((part["expected"] / part["measured"] - 1).abs().median()),
                "spearman": None if rho is None or pd.isna(rho) else float(rho),
                "max_share": float(part["measured_share_of_bound"].max()),
            }
        )
    return pd.DataFrame(out)


def serving_section(con: duckdb.DuckDBPyConnection) -> list[str]:
    totals = con.execute("""select count(*), count(distinct gpu_id), count(distinct source_id),
                                   count(*) filter (where within_bound = false), max(measured_share_of_bound)
                                       filter (where not speculative_decoding and quantity <> 'ttft')
                            from out_serving_estimates""").fetchone()
    n, gpus, pubs, above, top = totals
    if not n:
        return ["## Serving engines", "", "No published serving measurement is ingested yet.", ""]
    calib = _df(con, "select * from out_serving_calibration order by engine_family, model_kind")
    crow = [
        [
            esc(c.label),
            f"{c.decode_efficiency:.0%}",
            f"{c.compute_efficiency:.0%}",
            fixed(c.sequence_overhead_us),
            "fitted" if c.calibrated else "default (no measurements)",
            num(c.measurements),
            num(c.gpus_measured),
            "–" if pd.isna(c.held_out_median_abs_error) else f"{c.held_out_median_abs_error:.0%}",
        ]
        for c in calib.itertuples()
    ]
    acc = serving_accuracy(con)
    arow = [
        [
            url_link(str(a.title or a.snapshot_id), a.url, 90),
            esc(a.engine_family),
            num(a.figures),
            num(a.gpus),
            f"{a.median_abs_error:.0%}",
            "–" if a.spearman is None else f"{a.spearman:.2f}",
            f"{a.max_share:.0%}",
        ]
        for a in acc.itertuples()
    ]
    # one row per model, weights, GPU and engine: the figures and how they sit against bound and expectation
    # (every figure is a row of the serving_vs_estimate view and of its CSV download)
    detail = _df(
        con,
        """
        select model_id, format, gpu_id, any_value(gpu_name) as gpu_name, engine,
               count(*) as figures, count(distinct source_id) as documents,
               median(measured_share_of_bound) filter (where quantity <> 'ttft') as median_share,
               max(measured_share_of_bound) filter (where quantity <> 'ttft') as max_share,
               median(abs(expected_capped / measured - 1)) filter (where quantity = 'throughput') as median_error,
               count(*) filter (where within_bound = false) as beyond
        from out_serving_estimates where not speculative_decoding
        group by all order by model_id, format, gpu_id, engine""",
    )
    pct = lambda v: "–" if pd.isna(v) else f"{v:.0%}"  # noqa: E731
    drow = [
        [
            esc(d.model_id),
            esc(d.format),
            link(d.gpu_name, f"gpus/{d.gpu_id}.md"),
            esc(d.engine),
            num(d.figures),
            num(d.documents),
            pct(d.median_share),
            pct(d.max_share),
            pct(d.median_error),
            "none" if d.beyond == 0 else f"**{int(d.beyond)}**",
        ]
        for d in detail.itertuples()
    ]
    return [
        "## Serving engines",
        "",
        f"**{n} published serving figures (vLLM, SGLang, TensorRT-LLM) on {gpus} GPUs from {pubs} publications; "
        f"{above} beyond their bound** (the highest throughput or per-user speed reaches "
        f"{0 if top is None else top:.0%} of it). The Planner's serving model (continuous batching: prefill "
        "compute-bound, decode bandwidth-bound at the load) gives each figure a bound at 100% of peak and an "
        "expectation from the engine family's fit for the model's kind (dense or mixture of experts): the share of "
        "peak bandwidth a decode step streams at, the share of dense peak a compute-bound step reaches and a fixed "
        "time per sequence and step, fitted on the figures of the *other* GPUs (leave one GPU out). A figure more "
        "than 2% beyond its bound stops the build. The fits rest on what was published: TensorRT-LLM's own tables "
        "(maximum throughput at fixed lengths on NVIDIA GPUs, FP8 and NVFP4, 2024 to 2025) and, for vLLM and SGLang, "
        "runs on MI300X, H100 and H200 by AMD and dstack; a family fitted on two GPUs predicts other GPUs and small "
        "loads poorly, as the held-out errors show.",
        "",
        table(
            [
                "Engine family",
                "Decode: share of peak bandwidth",
                "Compute: share of dense peak",
                "Time per sequence and step (µs)",
                "From",
                "Figures",
                "GPUs",
                "Held-out median error",
            ],
            crow,
        ),
        "",
        "### How well the expectation predicts each publication",
        "",
        "Throughput figures (output tokens per second per GPU), each expected from efficiencies fitted without its "
        "GPU. Spearman ρ ranks expected against measured over the publication's figures.",
        "",
        table(
            [
                "Publication",
                "Engine family",
                "Figures",
                "GPUs",
                "Median |expected ÷ measured − 1|",
                "Spearman ρ",
                "Highest measured ÷ bound",
            ],
            arow,
        ),
        "",
        "### By model, GPU and engine",
        "",
        "Every figure, with its deployment, lengths, concurrency, bound and expectation, is a row of the "
        "`serving_vs_estimate` view (and of its CSV and Parquet downloads). Share of bound: throughput and "
        "per-user speed figures; error: throughput figures, expected without the GPU.",
        "",
        table(
            [
                "Model",
                "Weights",
                "GPU",
                "Engine",
                "Figures",
                "Documents",
                "Median share of bound",
                "Highest share of bound",
                "Median held-out error",
                "Beyond bound",
            ],
            drow,
            sortable=True,
        ),
        "",
    ]


def measured_page(con: duckdb.DuckDBPyConnection) -> str:
    totals = con.execute("""select count(*), count(distinct gpu_id), count(distinct source_id),
                                   count(*) filter (where not within_bound), max(measured_share_of_bound)
                            from out_measurement_bounds""").fetchone()
    calib = _df(con, """select * from out_decode_calibration order by gpus_measured desc, architecture""")
    by_family = _df(
        con,
        """
        select architecture, count(*) as n, count(distinct gpu_id) as gpus,
               median(measured_share_of_bound) as share, median(abs(expected_error)) as err,
               max(measured_share_of_bound) as max_share
        from out_measurement_bounds where gpu_count = 1 and batch_size = 1
        group by architecture order by n desc, architecture""",
    )
    detail = _df(
        con,
        """
        select b.*, s.url, s.title
        from out_measurement_bounds as b left join core_sources as s using (source_id)
        order by b.model_id, b.format, b.gpu_count, b.measured_tokens_per_s desc, b.gpu_id, b.source_id""",
    )
    checks = [
        ("llama-2-7b", "q4_0"),
        ("llama-2-7b", "bf16"),
        ("llama-3-8b", "q4_k_m"),
        ("llama-3-8b", "bf16"),
        ("llama-3-70b", "q4_k_m"),
        ("llama-3.1-8b", "q4_k_m"),
    ]
    acc_rows = []
    for model_id, fmt in checks:
        a = accuracy(con, model_id, fmt)
        acc_rows.append(
            [
                esc(model_id),
                esc(fmt),
                num(a["gpus"]),
                "–" if a["spearman"] is None else f"{a['spearman']:.2f}",
                "–" if a["median_abs_error"] is None else f"{a['median_abs_error']:.0%}",
            ]
        )
    crow = [
        [
            esc(c.architecture),
            f"{c.decode_efficiency:.0%}" if pd.notna(c.decode_efficiency) else "–",
            num(c.overhead_us_per_layer),
            esc(c.calibration_scope),
            num(c.gpus_measured),
            num(c.measurements),
            "–" if pd.isna(c.median_measured_share_of_bound) else f"{c.median_measured_share_of_bound:.0%}",
        ]
        for c in calib.itertuples()
    ]
    frow = [
        [
            esc(f.architecture),
            num(f.n),
            num(f.gpus),
            f"{f.share:.0%}",
            f"{f.max_share:.0%}",
            "–" if pd.isna(f.err) else f"{f.err:.0%}",
        ]
        for f in by_family.itertuples()
    ]
    drow = [
        [
            esc(d.model_id),
            esc(d.format),
            link(d.gpu_name, f"gpus/{d.gpu_id}.md"),
            num(d.gpu_count),
            esc(d.split_mode),
            esc(d.engine),
            num(d.prompt_tokens),
            num(d.generated_tokens),
            num(d.measured_tokens_per_s),
            num(d.bound_tokens_per_s),
            f"{d.measured_share_of_bound:.0%}",
            num(d.expected_tokens_per_s),
            "–" if pd.isna(d.expected_error) else f"{d.expected_error:+.0%}",
            url_link(str(d.source_id), d.url),
        ]
        for d in detail.itertuples()
    ]
    n, gpus, pubs, above, top = totals
    return (
        "\n".join(
            [
                "# Measured against estimated",
                "",
                f"**{n} published measurements on {gpus} GPUs from {pubs} publications; {above} above their bound** "
                f"(the highest reaches {top:.0%} of it). Every decode speed GPU Atlas shows is a *bound* (100% of peak "
                "memory bandwidth over the bytes a step reads: nothing can beat it) and an *expectation* (the bound's time "
                "scaled and offset by a line fitted on published measurements of the GPU's architecture). A measured figure more than 2% above its bound stops "
                "the build. How the numbers are made: [Methodology](methodology.md).",
                "",
                "## How well the expectation ranks GPUs",
                "",
                "Single-GPU, batch-1 decode; each GPU's expectation uses only the *other* GPUs' measurements "
                "(leave-one-GPU-out), so a GPU never calibrates itself. Llama 3.1 8B's figures are LocalScore's "
                "community runs (llamafile), each the best of runs on unknown hosts: they rank GPUs poorly against any "
                "bandwidth model and are shown as they are.",
                "",
                table(
                    [
                        "Model",
                        "Format",
                        "GPUs",
                        "Spearman ρ (expected vs measured)",
                        "Median error (expected ÷ measured − 1, absolute)",
                    ],
                    acc_rows,
                ),
                "",
                "## Decode calibration by architecture",
                "",
                "What the expectations use (the `decode_calibration` view): measured time per token and layer = slope × "
                "the bound's time + a fixed overhead per layer, a least-squares line over the architecture's single-GPU "
                "llama.cpp measurements. Streaming efficiency is 1 ÷ slope; the overhead is what every token pays per "
                "layer whatever the GPU's bandwidth (kernel launches, synchronisation), which is why fast GPUs reach a "
                "smaller share of their bound on small models.",
                "",
                table(
                    [
                        "Architecture",
                        "Streaming efficiency",
                        "Overhead per layer (µs)",
                        "From",
                        "GPUs measured",
                        "Measurements",
                        "Median measured ÷ bound",
                    ],
                    crow,
                ),
                "",
                "## Calibration error by GPU family",
                "",
                table(
                    [
                        "Architecture",
                        "Measurements",
                        "GPUs",
                        "Median measured ÷ bound",
                        "Highest",
                        "Median absolute error",
                    ],
                    frow,
                ),
                "",
                "## Every measurement",
                "",
                "Layer split (llama.cpp's default across GPUs) makes GPUs take turns, so its bound is one GPU's bandwidth; "
                "a tensor split reads on all GPUs at once. All rows are in the `measured_vs_estimate` view.",
                "",
                table(
                    [
                        "Model",
                        "Format",
                        "GPU",
                        "GPUs",
                        "Split",
                        "Engine",
                        "Prompt",
                        "Generated",
                        "Measured tok/s",
                        "Bound tok/s",
                        "Of bound",
                        "Expected tok/s",
                        "Error",
                        "Source",
                    ],
                    drow,
                    sortable=True,
                ),
                "",
                *serving_section(con),
            ]
        )
        + "\n"
    )
