"""Markdown pages generated from the database. Each function returns {path: markdown}."""

from __future__ import annotations

import json

import duckdb
import pandas as pd

from . import charts, measured, training
from .markdown import age, chart, chart_data, esc, link, money, num, plural, seen, table, url_link

FIGURE_COLUMNS = [
    ("memory_gb", "Memory", "GB"),
    ("memory_bandwidth_gbs", "Bandwidth", "GB/s"),
    ("fp32_tflops", "FP32 (vector)", "TFLOPS"),
    ("tf32_tflops", "TF32", "TFLOPS"),
    ("bf16_tflops", "BF16", "TFLOPS"),
    ("fp16_tflops", "FP16", "TFLOPS"),
    ("fp8_tflops", "FP8", "TFLOPS"),
    ("fp4_tflops", "FP4", "TFLOPS"),
    ("int8_tops", "INT8", "TOPS"),
    ("fp64_tflops", "FP64 (vector)", "TFLOPS"),
    ("tdp_w", "TDP", "W"),
    ("interconnect_gbs", "NVLink / fabric", "GB/s"),
    ("launch_price_usd", "Launch price", "USD"),
]


# the GPU index: the columns that decide first
INDEX_COLUMNS = [FIGURE_COLUMNS[i] for i in (0, 1, 4, 6, 7, 8, 10, 5, 3, 2, 9, 11, 12)]


def df(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> pd.DataFrame:
    frame = con.execute(sql, params or []).df()
    for col in frame.columns:  # dates print as YYYY-MM-DD, not timestamps
        if pd.api.types.is_datetime64_any_dtype(frame[col]):
            frame[col] = frame[col].dt.strftime("%Y-%m-%d")
    return frame


SOURCE_CHARS = 60  # source titles in figure tables are shortened (whole title in the tooltip)


WIDE = "---\nhide:\n  - navigation\n  - toc\n---\n"  # front matter: a page that is a wide table gets the whole width
KIND_LABELS = {
    "vendor_document": "vendor document",
    "vendor_reprint": "vendor reprint",
    "curated_dataset": "curated dataset",
    "reseller": "reseller",
    "blog_or_wiki": "blog or wiki",
    "article": "article",
    "cloud_price_list": "price list",
    "price_api": "price API",
    "model_card": "model card",
    "curated_mapping": "mapping",
}
UNIT_LABELS = {"tflops": "TFLOPS", "tops": "TOPS", "gbs": "GB/s", "w": "W", "usd": "USD", "gb": "GB", "year": ""}


def figure_label(c, tensor_cores: bool = True) -> str:
    """'bf16 tensor, FP32 accumulate' for a compute figure, 'memory bandwidth' for the others. A GPU without
    tensor cores (Pascal, Maxwell) has no tensor rate: its figure is labelled without the word."""
    if c.metric != "compute":
        return esc(str(c.metric).replace("_", " "))
    parts = [
        p
        for p in (c.precision, getattr(c, "unit_kind", None))
        if isinstance(p, str) and (tensor_cores or p != "tensor")
    ]
    label = " ".join(parts)
    accumulate = getattr(c, "accumulate", None)
    if isinstance(accumulate, str):
        label += f", {accumulate.upper()} accumulate"
    return esc(label)


def printed(c) -> str:
    """The value with its unit as the source printed it, marked when it is a sparse figure."""
    unit = UNIT_LABELS.get(c.unit, c.unit) if isinstance(c.unit, str) else ""
    text = f"{num(c.value, 6)} {esc(unit)}".strip()
    return text + " (sparse)" if c.sparsity == "sparse" else text


def gpu_link(gpu_id: str, name: str, prefix: str = "gpus/") -> str:
    return link(name, f"{prefix}{gpu_id}.md")


def _names(con) -> dict[str, str]:
    return dict(con.execute("select gpu_id, name from core_gpus").fetchall())


# ----------------------------------------------------------------------------- specs
def spec_pages(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    gpus = df(con, "select * from core_gpus order by best_16bit_tflops desc nulls last, name")
    return {"gpus/index.md": gpu_index(gpus), "conflicts.md": conflicts_page(con), "models.md": models_page(con)}


def gpu_index(gpus: pd.DataFrame) -> str:
    rows = []
    for g in gpus.itertuples():  # vendor and form factor are in the name; memory type on the GPU's page
        rows.append(
            [gpu_link(g.gpu_id, g.name, "")]
            + [num(getattr(g, c)) for c, _, _ in INDEX_COLUMNS]
            + [esc(g.architecture), str(int(g.release_year)) if pd.notna(g.release_year) else "–"]
        )
    headers = ["GPU"] + [f"{t}<br>{u}" for _, t, u in INDEX_COLUMNS] + ["Architecture", "Year"]
    return "\n".join(
        [
            WIDE + "# GPU specifications",
            "",
            f"{len(gpus)} GPU variants. Compute figures are **dense** (2:4 sparsity removed); BF16/FP16 are tensor-core rates (plain rates on GPUs without tensor cores) "
            "with FP32 accumulate; FP32 and FP64 are the plain vector rates; INT8 is in TOPS, never TFLOPS. "
            "A dash means no source we read publishes the figure (see [Coverage](../coverage.md)). "
            "Click a column header to sort.",
            "",
            table(headers, rows, sortable=True, low=list(range(5, 16))),
            "",
            chart("bubble", charts.bubble_compute_bandwidth(gpus)),
            "",
            chart("per-watt", charts.tflops_per_watt(gpus)),
        ]
    )


def gpu_pages(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    gpus = df(con, "select * from core_gpus order by name")
    claims = df(
        con,
        """select c.*, s.title, s.url, s.accessed_on, s.publisher from core_spec_claims as c
                        left join core_sources as s using (source_id)
                        order by metric, precision, sparsity, unit_kind, accumulate, c.source_id, c.source_row""",
    )
    offers = df(
        con,
        """select * from core_price_offers where gpu_id is not null
                        order by usd_per_gpu_hour, provider, offering, pricing_tier, statistic, region""",
    )
    history = df(
        con,
        """select * from core_price_history where gpu_id is not null
                         order by observed_on, provider, offering, pricing_tier, statistic, region""",
    )
    ranks = df(con, "select * from out_rankings order by workload, gpu_id")
    picks = picks_frame(con)
    # the reference model's serving expectation, as Compare and gpus.json show it (expected and bound per GPU)
    serving = df(con, "select * from out_reference_serving")
    fits = df(
        con,
        """select f.gpu_id, f.precision, string_agg(m.name, ', ' order by m.params_b desc, f.model_id) as models,
                             count(*) as n
                      from out_vram_fit_detail as f join core_models as m using (model_id)
                      where f.workload = 'inference' and f.kv_precision = 'bf16' and f.batch_size = 1 and m.is_current
                        and f.gpu_count = 1 and f.fits and f.precision in ('bf16', 'fp8', 'int4')
                        and f.context_tokens = least(4096, coalesce(m.max_context, 4096))
                      group by all""",
    )

    # rows grouped by GPU once (itertuples per page would dominate the render time)
    def grouped(frame: pd.DataFrame) -> dict[str, list]:
        out: dict[str, list] = {}
        for row in frame.itertuples(index=False):
            out.setdefault(row.gpu_id, []).append(row)
        return out

    claims_by, offers_by, ranks_by, fits_by, picks_by, serving_by = (
        grouped(f) for f in (claims, offers, ranks, fits, picks, serving)
    )
    history_by = dict(tuple(history.groupby("gpu_id", sort=False)))
    all_gpus = list(gpus.itertuples(index=False))
    return {
        f"gpus/{g.gpu_id}.md": gpu_page(
            g,
            all_gpus,
            claims_by.get(g.gpu_id, []),
            offers_by.get(g.gpu_id, []),
            history_by.get(g.gpu_id),
            ranks_by.get(g.gpu_id, []),
            fits_by.get(g.gpu_id, []),
            picks_by.get(g.gpu_id, []),
            (serving_by.get(g.gpu_id) or [None])[0],
        )
        for g in all_gpus
    }


def _log_gap(a, b) -> float:
    import math

    if pd.isna(a) or pd.isna(b) or a <= 0 or b <= 0:
        return 1.0
    return abs(math.log(a / b))


def nearest(g, gpus: list, n: int = 3) -> list:
    """The GPUs closest to g in memory, bandwidth and dense 16-bit compute (log distance)."""
    others = [o for o in gpus if o.gpu_id != g.gpu_id]
    return sorted(
        others,
        key=lambda o: (
            _log_gap(g.memory_gb, o.memory_gb)
            + _log_gap(g.memory_bandwidth_gbs, o.memory_bandwidth_gbs)
            + _log_gap(g.best_16bit_tflops, o.best_16bit_tflops),
            o.gpu_id,
        ),
    )[:n]


def _has_tensor_cores(g) -> bool:
    value = getattr(g, "has_tensor_cores", None)
    return value is not None and pd.notna(value) and bool(value)


def glance(g, offers: list, ranks: list, fits: list, picks: list = (), serving=None) -> str:
    """The first screen of a GPU page: its key figures, cheapest price per tier, largest models that fit, rankings."""
    tensor = " tensor" if _has_tensor_cores(g) else ""
    cells = [
        ("Memory", f"{num(g.memory_gb)} GB", esc(g.memory_type) or "type not published"),
        ("Bandwidth", f"{num(g.memory_bandwidth_gbs)} GB/s", "memory"),
        (
            "BF16",
            f"{num(g.bf16_tflops)} TFLOPS",
            f"dense{tensor}" if pd.notna(g.bf16_tflops) else "not in hardware or not published",
        ),
        (
            "FP8",
            f"{num(g.fp8_tflops)} TFLOPS",
            f"dense{tensor}" if pd.notna(g.fp8_tflops) else "not in hardware or not published",
        ),
        ("TDP", f"{num(g.tdp_w)} W", "board power"),
    ]
    best = [p for p in picks if pd.notna(p.usd_per_gpu_hour)]  # the price every page uses, per tier (price_picks)
    for p in best:
        cells.append(
            (
                f"Cheapest {esc(p.pick)}",
                f"{money(p.usd_per_gpu_hour, 2)}/GPU-h",
                f"{esc(p.provider)} · {seen(p.observed_on, p.observed_date_known)}",
            )
        )
    if not best:
        cells.append(("Cloud price", "–", "no current offer"))
    if serving is not None:
        cells.append(
            (
                f"{esc(serving.model_name)}, FP8, batch of {int(serving.batch_size)}",
                f"{serving.expected_tokens_per_s_per_gpu:,.1f} tok/s per GPU",
                f"expected, on {plural(int(serving.gpus_used), 'GPU', 'GPUs')}; bound "
                f"{serving.bound_tokens_per_s_per_gpu:,.1f}",
            )
        )
    for f in sorted(fits, key=lambda f: ["bf16", "fp8", "int4"].index(f.precision)):
        largest = f.models.split(", ")[0]
        cells.append(
            (
                f"Largest on one, {esc(f.precision.upper())}",
                esc(largest),
                f"{plural(int(f.n), 'current model fits', 'current models fit')} (4k context)",
            )
        )
    for r in ranks:
        cells.append(
            (
                f"{esc(r.workload).title()} rank",
                f"#{int(r.rank)}",
                f"score {r.score:.1f}" + (f"; value #{int(r.value_rank)}" if pd.notna(r.value_rank) else ""),
            )
        )
    # spaces between the parts (invisible beside the block-level figure) keep the search index's text readable
    body = "\n".join(f"<div><span>{k}</span> <b>{v}</b> <span>{sub}</span></div>" for k, v, sub in cells)
    return f'<div class="atlas-glance">{body}</div>'


def gpu_page(
    g,
    gpus: list,
    claims: list,
    offers: list,
    history: pd.DataFrame | None,
    ranks: list,
    fits: list,
    picks: list = (),
    serving=None,
) -> str:
    variants = [v for v in gpus if v.family == g.family and v.gpu_id != g.gpu_id]
    near = nearest(g, gpus)
    compare = ",".join([g.gpu_id] + [o.gpu_id for o in near])
    out = [
        f"# {esc(g.name)}",
        "",
        glance(g, offers, ranks, fits, picks, serving),
        "",
        f'**Compare with its nearest alternatives:** <a href="../../compare/?gpus={compare}">all four side by side</a> · '
        + " · ".join(f'<a href="../../compare/?gpus={g.gpu_id},{o.gpu_id}">vs {esc(o.name)}</a>' for o in near),
        "",
        "## Details",
        "",
    ]
    facts = [
        ("Vendor", esc(g.vendor)),
        ("Architecture", esc(g.architecture) or "–"),
        ("Form factor", esc(g.form_factor)),
        ("Segment", esc(g.segment)),
        ("Release year", str(int(g.release_year)) if pd.notna(g.release_year) else "–"),
        ("Memory", f"{num(g.memory_gb)} GB {esc(g.memory_type)}"),
        (
            "GPU-to-GPU link",
            f"{num(g.interconnect_gbs)} GB/s"
            if pd.notna(g.interconnect_gbs)
            else "no NVLink or fabric figure in the sources (PCIe only, or not published)",
        ),
        ("TDP", f"{num(g.tdp_w)} W" if pd.notna(g.tdp_w) else "–"),
        ("Launch price", money(g.launch_price_usd, 0)),
        ("GPUs per product", num(g.gpus_per_product)),
    ]
    out.append(table(["Fact", "Value"], [[k, v] for k, v in facts]))
    if variants:
        out += ["", "**Other variants:** " + " · ".join(gpu_link(v.gpu_id, v.name, "") for v in variants)]
    if ranks:
        out += [
            "",
            "**Rankings:** " + " · ".join(f"{esc(r.workload)} #{int(r.rank)} (score {r.score:.1f})" for r in ranks),
        ]
    if fits:
        out += [
            "",
            "## Models that fit on one",
            "",
            "Current models, inference, 4k context, batch 1, KV cache BF16 (every model and setting: [VRAM fit](../vram-fit.md)).",
            "",
            table(
                ["Weights", "Models", "Which"],
                [[esc(f.precision), str(f.n), esc(f.models)] for f in sorted(fits, key=lambda f: f.precision)],
            ),
        ]
    out += [
        "",
        "## Canonical figures",
        "",
        "Dense figures chosen by rule: vendor datasheet over a copy of it over a curated dataset; "
        "a figure printed only with sparsity is halved.",
        "",
    ]
    tensor_cores = _has_tensor_cores(g)
    rows = [
        [
            figure_label(c, tensor_cores),
            printed(c),
            num(c.value / 2 if c.sparsity == "sparse" else c.value, 6),
            url_link(c.title or c.source_id, c.url, SOURCE_CHARS),
            esc(KIND_LABELS.get(c.source_kind, c.source_kind)),
            esc(c.accessed_on),
        ]
        for c in claims
        if c.is_canonical
    ]
    out.append(table(["Figure", "As printed", "Dense", "Source", "Kind", "Accessed"], rows))
    other = [c for c in claims if not c.is_canonical]
    if other:
        out += ["", "## Every other figure and how it compares", ""]
        rows = [
            [
                figure_label(c, tensor_cores),
                printed(c) if pd.notna(c.value) else esc(c.value_text),
                esc(c.classification),
                esc(c.explanation),
                url_link(c.title or c.source_id, c.url, SOURCE_CHARS),
            ]
            for c in other
        ]
        out.append(table(["Figure", "Value", "Class", "Explanation", "Source"], rows))
    out += ["", "## Cloud prices", ""]
    if picks:
        out += [
            "### Price used",
            "",
            "The one price every ranking, estimate and page uses for this GPU, per tier ([how it is chosen]"
            "(../prices.md#prices-used)).",
            "",
            table(
                ["Tier", "$/GPU-hour", "Provider", "Offering", "Observed", "Why"],
                [
                    [
                        esc(p.pick) + (f" ({esc(p.term)})" if isinstance(p.term, str) else ""),
                        price_used(p),
                        esc(p.provider),
                        esc(p.offering),
                        seen(p.observed_on, p.observed_date_known) if pd.notna(p.observed_on) else "–",
                        esc(p.why),
                    ]
                    for p in picks
                ],
            ),
            "",
            "### Every current offer",
            "",
        ]
    if offers:
        rows = [
            [
                esc(o.provider),
                esc(o.offering),
                num(o.gpu_count),
                money(
                    o.comparable_usd_per_gpu_hour if pd.notna(o.comparable_usd_per_gpu_hour) else o.usd_per_gpu_hour, 3
                )
                + original_price(o),
                tier(o.pricing_tier, o.statistic),
                esc(o.region),
                age(o.observed_on),
                offer_flags(o),
            ]
            for o in offers
        ]
        out.append(f"Tier: {STATISTIC_MARKS}. $/GPU-hour includes the host where it is billed apart and published.")
        out += ["", table(["Provider", "Offering", "GPUs", "$/GPU-hour", "Tier", "Region", "Observed", "Note"], rows)]
    else:
        out.append("No current offer maps to this variant.")
    if history is not None and history["observed_on"].nunique() > 1:  # a single snapshot is not a history
        out += ["", chart("history", charts.price_history(history, f"Price history: {g.name}"))]
    return "\n".join(out) + "\n"


def conflicts_page(con) -> str:
    claims = df(
        con,
        """select c.*, g.name, s.title, s.url from core_spec_claims as c
                        join core_gpus as g using (gpu_id) left join core_sources as s using (source_id)
                        where c.claim_id like 'claim:%' order by s.title, c.source_file, c.source_row""",
    )
    summary = claims.groupby("classification").size().sort_values(ascending=False)
    vendor = df(
        con,
        """select classification, count(*) as n from core_spec_claims
                        where claim_id like 'fig:%' group by all order by n desc, classification""",
    )
    out = [
        WIDE + "# Sources and conflicts",
        "",
        "Every figure printed in the seed articles is a row of `spec_claims`, compared with the canonical "
        "value by a rule that links the two figures (first match wins): **agrees** (within 2.5%); **sparse figure** "
        "(2 × dense); **other rate** (vector vs tensor, FP16 accumulate, base vs boost clock); **another precision** "
        "of the same GPU; **another variant** of the same family; **no datasheet figure** to compare; **documents disagree** (both kept, the canonical one says why); otherwise "
        "**unexplained**. A figure that merely equals an unrelated GPU's explains nothing and stays unexplained.",
        "",
        table(["Class", "Article claims"], [[esc(k), str(v)] for k, v in summary.items()]),
        "",
        "Datasheet and dataset figures are classified the same way: "
        + ", ".join(f"{esc(r.classification)} {r.n}" for r in vendor.itertuples())
        + ".",
        "",
        "## Every article claim",
        "",
    ]
    rows = [
        [
            link(c.name, f"gpus/{c.gpu_id}.md"),
            f"**{esc(c.classification)}**",
            esc(c.explanation),
            esc(c.quote),
            esc(c.canonical) if c.canonical is not None else "–",
            esc(c.metric),
            esc(c.precision),
            url_link(c.source_file.split("/")[2], c.url),
            esc(c.row_label),
        ]
        for c in claims.itertuples()
    ]
    out.append(
        table(
            ["Variant", "Class", "Explanation", "Printed", "Datasheet", "Metric", "Precision", "Article", "Row"],
            rows,
            sortable=True,
            low=[3, 4, 5, 6, 7, 8],
        )
    )
    mc = df(
        con,
        "select c.*, s.url from out_model_claims as c left join core_sources as s using (source_id) order by source_row",
    )
    out += [
        "",
        "## Model memory claims",
        "",
        "The seed articles' model memory figures against our computation (GB = 10⁹ bytes). A claim is matched "
        "to the full inference requirement (4k context, batch 1) or to the weights alone at some format.",
        "",
        table(
            ["Row", "Model", "Claimed GB", "Our BF16 requirement (GB)", "Class", "Matched GB", "Printed"],
            [
                [
                    esc(m.row_label),
                    esc(m.model_id),
                    num(m.vram_gb_claimed),
                    num(m.bf16_required_gb),
                    f"**{esc(m.classification)}**",
                    num(m.matched_gb),
                    esc(m.quote),
                ]
                for m in mc.itertuples()
            ],
        ),
    ]
    return "\n".join(out) + "\n"


def models_page(con) -> str:
    models = df(
        con,
        """select m.*, s.url, p.url as params_url from core_models as m
                        left join core_sources as s using (source_id)
                        left join core_sources as p on p.source_id = m.params_source_id
                        order by family, params_b, model_id""",
    )
    noted = [m for m in models.itertuples() if isinstance(m.params_note, str)]
    mark = {m.model_id: f" [{i}]" for i, m in enumerate(noted, start=1)}
    names = dict(zip(models.model_id, models.name))
    counts = [
        [
            esc(m.name) + mark.get(m.model_id, ""),
            model_status(m, names),
            num(m.params_b),
            num(m.published_params_b),
            "–" if pd.isna(m.params_deviation) else f"{m.params_deviation:+.2%}",
            num(m.active_params_b),
            num(m.embedding_params_b),
            num(m.head_params_b),
            num(m.attention_params_b),
            num(m.mlp_params_b + m.expert_params_b),
            url_link("card", m.params_url),
        ]
        for m in models.itertuples()
    ]
    shape = [
        [
            esc(m.name),
            esc(m.family),
            layer_layout(m),
            esc(m.native_format),
            esc(m.attention_kind),
            num(m.layers),
            num(m.hidden_size),
            num(m.attention_heads),
            num(m.kv_heads),
            num(m.head_dim),
            num(m.vocab_size),
            num(m.max_context),
            num(m.sliding_window),
            num(m.kv_lora_rank),
            f"{num(m.num_experts)}/{num(m.experts_per_token)}" if pd.notna(m.num_experts) else "–",
            url_link("config", m.url),
        ]
        for m in models.itertuples()
    ]
    notes = [f"{i}. **{esc(m.name)}**: {esc(m.params_note)}" for i, m in enumerate(noted, start=1)]
    return (
        "\n".join(
            [
                WIDE + "# Models",
                "",
                f"{len(models)} LLMs, {int(models.is_current.sum())} of them current. Parameter counts are **computed from each official "
                "config** by component (embeddings, output head, attention, MLP or experts, norms) and checked "
                "against the count the model card publishes: a difference above 0.5% stops the build unless "
                "the model carries an explanation (numbered below). Billions throughout.",
                "",
                "## Parameter counts",
                "",
                "**Status**: *current* models are what teams deploy today and the site's defaults; a "
                "*superseded* one has a newer model from its developer in this catalogue; a *legacy* one is no "
                "longer chosen for new work. All stay, so older plans and measurements can be compared.",
                "",
                table(
                    [
                        "Model",
                        "Status",
                        "Params",
                        "Published",
                        "Difference",
                        "Active",
                        "Embeddings",
                        "Head",
                        "Attention",
                        "MLP / experts",
                        "Card",
                    ],
                    counts,
                    sortable=True,
                ),
                "",
                "## Why some counts differ from the card",
                "",
                *notes,
                "",
                "## Architecture (official config.json)",
                "",
                "Grouped by family. **Layer layout** is how the layers attend, which sets the cache a "
                "sequence keeps: full attention keeps every token, a sliding or chunked window at most its "
                "window, a linear-attention layer (Gated DeltaNet) a fixed state whatever the length; MLA keeps "
                "one latent per token; multi-token-prediction layers ship in the checkpoint but are not counted. "
                "**Checkpoint** is the format the official weights ship in (the Planner's *as the checkpoint "
                "ships* choice).",
                "",
                table(
                    [
                        "Model",
                        "Family",
                        "Layer layout",
                        "Checkpoint",
                        "Attention",
                        "Layers",
                        "Hidden",
                        "Heads",
                        "KV heads",
                        "Head dim",
                        "Vocabulary",
                        "Max context",
                        "Window",
                        "MLA latent",
                        "Experts (total/active)",
                        "Config",
                    ],
                    shape,
                    sortable=True,
                ),
            ]
        )
        + "\n"
    )


def model_status(m, names: dict) -> str:
    """'current', 'legacy' or 'superseded by <its successor>'."""
    if m.status == "superseded":
        return f"superseded by {esc(names.get(m.superseded_by, m.superseded_by))}"
    return esc(m.status)


def layer_layout(m) -> str:
    """How a model's layers attend, in words: '18 full + 18 sliding (128 tokens), sinks'."""
    parts = []
    full = int(m.layers) - int(m.window_layers) - int(m.linear_attention_layers)
    parts.append(f"{full} {'MLA' if m.attention_kind == 'mla' else 'full'}")
    if m.window_layers:
        parts.append(f"{int(m.window_layers)} {esc(m.window_kind)} ({int(m.sliding_window):,} tokens)")
    if m.linear_attention_layers:
        parts.append(f"{int(m.linear_attention_layers)} linear (Gated DeltaNet)")
    extras = [
        label
        for flag, label in (
            (m.attention_sinks, "sinks"),
            (pd.notna(m.index_head_dim), "sparse-attention indexer"),
            (m.mtp_layers, f"+{int(m.mtp_layers)} MTP"),
        )
        if flag
    ]
    return " + ".join(parts) + (", " + ", ".join(extras) if extras else "")


# ----------------------------------------------------------------------------- estimates
def estimate_pages(con) -> dict[str, str]:
    return {**vram_fit_page(con), "methodology.md": methodology_page(con), "measured.md": measured.measured_page(con)}


def _rounded(value, digits: int):
    """A number for JSON: rounded, or null when missing."""
    return None if value is None or pd.isna(value) else round(float(value), digits)


def vram_fit_page(con) -> dict[str, str]:
    """The VRAM-fit page, and the data of its heatmaps as JSON files loaded by the charts (the page stays small)."""
    models = df(con, "select model_id, name, params_b from core_models order by params_b desc, model_id")
    gpus = df(
        con,
        """select gpu_id, name, memory_gb, memory_gb * param('usable_memory_fraction') as usable_gb
                      from core_gpus where memory_gb is not null order by memory_gb desc, gpu_id""",
    )
    contexts = [int(c) for c in con.execute("select param_list('inference_contexts')").fetchone()[0]]
    req = df(
        con,
        """select model_id || '|' || precision || '|' || context_tokens as key, required_gb, weights_gb, kv_cache_gb
                     from out_memory_requirements
                     where workload = 'inference' and kv_precision = 'bf16' and batch_size = 1
                     order by key""",
    )
    # contexts capped at a model's maximum: also key the nominal context so every choice resolves
    capped = df(
        con,
        """select r.model_id || '|' || r.precision || '|' || c.ctx as key, r.required_gb, r.weights_gb, r.kv_cache_gb
                        from out_memory_requirements as r join core_models as m using (model_id)
                        cross join (select unnest(param_list('inference_contexts'))::integer as ctx) as c
                        where r.workload = 'inference' and r.kv_precision = 'bf16' and r.batch_size = 1
                          and m.max_context < c.ctx and r.context_tokens = m.max_context
                        order by key""",
    )
    req = pd.concat([req, capped]).drop_duplicates("key")
    heat = {}
    for label, where in [
        (
            "inference, FP8 weights, 4k context, batch 1",
            "workload = 'inference' and precision = 'fp8' and kv_precision = 'bf16' and batch_size = 1 and context_tokens = least(4096, context_tokens)",
        ),
        (
            "LoRA fine-tune, full recomputation, 4k context",
            "workload = 'training' and method = 'lora' and recompute = 'full'",
        ),
        (
            "full fine-tune, mixed-precision AdamW, selective recomputation",
            "workload = 'training' and method = 'full' and recompute = 'selective'",
        ),
    ]:
        fit = df(
            con,
            f"""select f.model_id as model, g.name as gpu, g.memory_gb, m.params_b, f.required_gb, f.gpus_needed
                          from out_vram_fit_detail as f join core_gpus as g using (gpu_id) join core_models as m using (model_id)
                          where gpu_count = 1 and {where}
                            and (f.workload = 'training' or f.context_tokens = least(4096, m.max_context))
                          order by model, gpu""",
        )
        heat[label] = fit
    out = [
        "# VRAM fit",
        "",
        "Which models fit on which GPUs, and how many GPUs each needs. **GB means 10⁹ bytes** throughout. "
        "Memory = weights (every expert of a mixture-of-experts model stays resident) + KV cache (with each "
        "architecture's own shape: GQA, MLA latent, sliding window) + gradients + optimizer states + activations "
        "+ runtime overhead; a GPU offers 95% of its memory. Query `vram_fit` for every scenario "
        "(5 weight formats × 2 KV formats × 3 contexts × 2 batch sizes for inference; full, LoRA and QLoRA "
        "fine-tuning with and without recomputation) × {1, 2, 4, 8} GPUs. Formulas: [Methodology](methodology.md).",
        "",
        "## Explorer",
        "",
        "Pick a model, its weight format and a context: every GPU with the number it takes (inference, batch 1, "
        "KV cache BF16). The heatmaps below show every model at once.",
        "",
        '<form class="atlas-form" id="fit-form" data-src="../charts/vram-fit-explorer.json" aria-label="Model, weights and context">',
        '<label>Model <select name="model"></select></label>',
        '<label>Weights <select name="precision"></select></label>',
        '<label>Context tokens <select name="context"></select></label>',
        "</form>",
        "",
        '<div id="fit-out" class="atlas-fit"><p>The explorer needs JavaScript; every setting is in the <code>vram_fit</code> view.</p></div>',
        "",
        '<script src="../javascripts/fitexplorer.js" defer></script>',
        "",
    ]
    explorer = {
        "default": {"model": "llama-3.3-70b", "precision": "fp8", "context": contexts[0]},
        "models": [
            {"model_id": m.model_id, "name": m.name, "params_b": _rounded(m.params_b, 1)} for m in models.itertuples()
        ],
        "precisions": ["fp32", "bf16", "fp8", "int8", "int4"],
        "contexts": contexts,
        "gpus": [
            {"gpu_id": g.gpu_id, "name": g.name, "usable_gb": round(float(g.usable_gb), 2)} for g in gpus.itertuples()
        ],
        "required": {
            r.key: [_rounded(r.required_gb, 2), _rounded(r.weights_gb, 2), _rounded(r.kv_cache_gb, 3)]
            for r in req.itertuples()
        },
    }
    files = {"charts/vram-fit-explorer.json": json.dumps(explorer, separators=(",", ":"))}
    for i, (label, fit) in enumerate(heat.items()):
        spec, data = chart_data(charts.fit_heatmap(fit, f"GPUs needed: {label}"), f"../charts/vram-fit-heat-{i}.json")
        files[f"charts/vram-fit-heat-{i}.json"] = data
        out += [f"## {label.capitalize()}", "", chart(f"heat-{i}", spec), ""]
    return {"vram-fit.md": "\n".join(out), **files}


def methodology_page(con) -> str:
    params = df(
        con,
        """select name, coalesce(value::varchar, value_text, value_list::varchar) as value, unit, description,
                        citation from core_parameters order by name""",
    )
    weights = df(con, "select * from core_ranking_weights")
    rows = [
        [f"`{esc(p.name)}`", esc(p.value), esc(p.unit), esc(p.description), esc(p.citation)]
        for p in params.itertuples()
    ]
    wrows = [[esc(w.workload), esc(w.component), f"{w.weight:.2f}", esc(w.description)] for w in weights.itertuples()]
    return (
        "\n".join(
            [
                "# Methodology",
                "",
                "Every number on this site is computed in SQL inside the DuckDB file from the parameters below "
                "(stored in the `parameters` view), so anyone can reproduce or change it. Peak figures are not achieved "
                "figures: every speed estimate states its utilisation.",
                "",
                "## Spec figures",
                "",
                "- Canonical compute columns are **dense** tensor-core rates; FP32 and FP64 are vector rates. A datasheet "
                "figure printed only with 2:4 sparsity is halved, and the GPU page says so.",
                "- BF16/FP16 canonical rates use **FP32 accumulate** (what mixed-precision training uses); GeForce cards' "
                "FP16-accumulate rates stay as claims.",
                "- INT8 is in TOPS, never in a TFLOPS column; a precision a GPU lacks is NULL, never 0.",
                "- Priority: vendor datasheet › copy of a vendor datasheet › curated dataset (Epoch AI, TechPowerUp mirrors) › article.",
                "- Variants of one chip (a family) share its architecture: a variant whose source omits it takes the family's.",
                "- Coverage counts a figure as missing only where the architecture supports the precision (TF32 from Ampere "
                "and CDNA 3, BF16 from Ampere and CDNA 2, INT8 tensor from Turing).",
                "",
                "## Models and weights",
                "",
                "- Parameter counts come from each model's official config: embeddings (vocabulary × hidden), output head "
                "(unless tied), attention (q, k, v, o at their own widths; MLA's latent projections), MLP (three matrices "
                "for SwiGLU/GeGLU, two for GeLU) or routed and shared experts with their router, norms and biases. The "
                "model card's published count checks the total (within 0.5%, or an explanation is stored with the model).",
                "- Weights as checkpoints store them (the `weight_formats` and `model_weights` views): quantisation applies to "
                "the linear layers; embeddings, head, norms and routers stay 16-bit unless the format quantises them. "
                "FP8 8 bits (W8A8 only on GPUs with FP8 units, weight-only elsewhere); INT8 weight-only 8 bits; INT4 AWQ/GPTQ "
                "with group size 128 at 4 + 20/128 bits; GGUF Q8_0 8.5 bits, Q4_0 4.5 bits with a Q6_K output, Q4_K_M a "
                "Q4_K (4.5) / Q6_K (6.5625) mixture (4.84 bits per weight on Llama 2 7B, as llama.cpp prints); NF4 with "
                "double quantisation 4.127 bits. MoE: every expert stays resident.",
                "",
                "## Memory",
                "",
                "- KV cache: 2 × layers × kv_heads × head_dim × context × batch × bytes (GQA/MQA/MHA); MLA caches "
                "layers × (kv_lora_rank + qk_rope_head_dim) × context × batch × bytes; sliding-window layers cache at most the window.",
                "- Full fine-tune, mixed-precision AdamW: 16 bytes per parameter (BF16 weights 2 + gradients 2, FP32 master 4, "
                "Adam m 4 and v 4) — Rajbhandari et al. 2020 (ZeRO).",
                "- Activations per layer and token, after Korthikanti et al. 2022 (arXiv 2205.05198) with the model's own "
                "widths: attention 2h (QKV input) + 2·a·d (Q) + 4·kv·d (K, V) + 2·a·d (output projection input); MLP 2h + "
                "2·i per intermediate tensor (3 for a gated MLP, 2 for GeLU; MoE: the experts a token uses); two norm inputs "
                "4h; dropout masks only where the parameter says. For an MHA model with a 4h GeLU MLP and dropout this is "
                "Korthikanti's 34·s·b·h. FlashAttention (the default) stores no s² score matrix; eager attention adds "
                "(2 + 3·dropout)·a·s² per layer. Selective recomputation drops the s² term too; full recomputation keeps "
                "2·s·b·h per layer. The logits for the loss add s × b × vocabulary × 6 bytes (BF16 and FP32 copies).",
                "- LoRA: frozen BF16 weights + rank-r adapters on q, k, v, o with 16 bytes of state per adapter parameter. "
                "QLoRA: NF4 weights (above) + the same adapters.",
                "- Deployments that exist: serving uses tensor-parallel degrees of 1, 2, 4 or 8 that divide the attention "
                "heads; KV heads fewer than the degree are replicated (MLA's latent cache sits on every rank); beyond 8 GPUs, "
                "whole 8-GPU nodes become pipeline stages (flagged). Training shards weights, gradients and optimizer states "
                "(FSDP/ZeRO-3) and keeps each GPU's own activations. A GPU offers 95% of its memory.",
                "",
                "## Speed and cost",
                "",
                "- **Bound** (never beaten by a measurement; the build checks every published figure against it): decode "
                "tokens/s for one sequence = tensor-parallel GPUs × peak bandwidth ÷ bytes one step reads (every weight but "
                "the input embedding table, the active experts, the KV cache). A serving batch of B sequences reads the "
                "shared weights once, E·(1 − (1 − k/E)^B) distinct experts per MoE layer and B caches, and is capped by 100% "
                "of dense compute (FP8 only where the GPU has FP8 units).",
                "- **Expected**: time per token = slope × the bound's memory time + a fixed overhead per layer × layers, "
                "the line fitted by least squares on published single-GPU llama.cpp measurements of the GPU's architecture "
                "([Measured against estimated](measured.md)), plus two all-reduces per layer and token across "
                "tensor-parallel GPUs (PCIe-only GPUs pay more); a batch step is also held to compute at the prefill "
                "utilisation. Serving engines with CUDA graphs and fused kernels pay less overhead than llama.cpp did, so "
                "for them the expectation is conservative; the bound is not.",
                "- Prefill tokens/s: bound = GPUs × dense TFLOPS ÷ (2 × active parameters); expected at the prefill utilisation.",
                "- Training tokens/s per GPU = dense BF16 TFLOPS × utilisation ÷ (F × active parameters), F = 6 for a full "
                "fine-tune, 4 for LoRA/QLoRA (no weight gradients), + 2 when full recomputation repeats the forward pass. The "
                "utilisation is the GPU's median over published BF16 training runs, or, for a GPU nobody published, a line "
                "fitted on the measured GPUs: 1 ÷ utilisation = a + b × (TFLOPS ÷ memory GB/s), with its held-out error "
                "([Training ranking](training.md), view `training_calibration`).",
                "- $ per million tokens = $/hour ÷ (expected tokens/s × 3600) × 10⁶ (at the bound: the floor); "
                "$ per TFLOP-hour = $/GPU-hour ÷ dense TFLOPS.",
                "- Ownership: amortisation (purchase ÷ (years × 8760)) and hosting (rack share in a colocation, nothing at home) "
                "every hour, power (kW × PUE × $/kWh) only while busy; at utilisation u an owned GPU costs (amortisation + "
                "hosting) ÷ u + power per busy hour, and beats renting above u = (amortisation + hosting) ÷ (rental − power). "
                "Seed 003's 8 × H100 example: $300,000 over 3 years ≈ $11.4/h + $1/h power + $1/h rack ≈ $13.4/h; see "
                "[Own or rent](own-or-rent.md) and the `ownership_cost` view.",
                "",
                "## Planner",
                "",
                "- Query: `pipeline/sql/plan/plan_options.sql`, over the public views only (`serving_models`, "
                "`serving_gpus`, `rentable_machines`, `serving_calibration`, `vram_fit`, `models`, `parameters`); its formulas "
                "are DuckDB macros stored in the database (`pipeline/sql/macros/serving.sql`: `serve_kv_gb`, `serve_step_s`, "
                "...). `gpu-atlas plan` runs it for the question asked; the page evaluates the same formulas in the browser "
                "(`planner-model.js`) from the same views' rows (`api/v1/plan/coefficients.json`), and a test compares the two "
                "on 300 random questions.",
                "- **Machines one can rent.** A deployment rents one machine as its provider lists it (`rentable_machines`: "
                "fresh, comparable, open to anyone; list prices and marketplace medians over enough listings, never a "
                "marketplace's lowest listing). Its GPUs are split into replicas of d = 1, 2, 4 or 8 tensor-parallel GPUs (d "
                "divides the attention heads and the machine's GPUs; no more replicas than users), users shared evenly. "
                "Listings are never combined: four 1-GPU listings are not a 4-GPU machine. Several machines joined by "
                "InfiniBand are not planned yet.",
                "- **Memory per GPU** = 1 GB + 1.05 × (weights + the KV cache reserved for max(each user's input + output "
                "tokens, one request at the full context), with KV heads fewer than d replicated) ÷ d. The KV cache sums "
                "layers as they are: sliding-window layers keep at most their window, MLA one latent per token.",
                "- **A decode step** of u sequences reads the weights but the input embeddings, the routed experts u tokens "
                "touch (1 − (1 − k/E)^u of each layer's E), and u caches at the mean context (input + output ÷ 2): "
                "time = max(bytes ÷ (d × bandwidth × e_decode), u × 2 × active parameters ÷ (d × dense TFLOPS × e_compute)) "
                "+ u × a fixed time per sequence (fitted) + two all-reduces per layer across d GPUs. **A prefill** of the input: input × 2 × active parameters ÷ "
                "(d × dense TFLOPS × prefill_mfu). FP8 computes as FP8 only where the GPU has FP8 units.",
                "- **Continuous batching**: each user sends the next request when the last is answered; a request takes "
                "output decode steps, shared with the other users, and one prefill, during which the others wait. Requests "
                "per second per replica = u ÷ (output × step + u × prefill); tokens/s per user = output ÷ (output × step + "
                "(u − 1) × prefill); time to first token = prefill + one step.",
                "- **Bound**: the same at 100% of peak (e = 1), taking the larger of a request's compute (2 × active "
                "parameters per input and output token) and its share of the decode reads, however the engine overlaps "
                "them: no published figure may beat it by more than 2% (checked at every build on the serving measurements).",
                "- **Expected**: the efficiencies e_decode and e_compute of the engine family and model kind "
                "(`serving_calibration`: vLLM and SGLang, or TensorRT-LLM; dense or mixture of experts), fitted on published "
                "serving measurements, and prefill at prefill_mfu ([Measured vs estimated](measured.md)); "
                "never above the bound.",
                "- **$ per million tokens**: the machine's hour is split between input and output tokens by the time prefill "
                "and decode take: $/M input = $/hour × prefill share ÷ input tokens per hour; $/M output = $/hour × decode "
                "share ÷ output tokens per hour; blended = $/hour ÷ all tokens per hour (the stated input:output ratio). "
                "Options are ranked by the blended price (the cost of a request); of a machine's splits, the one with the "
                "most throughput that meets the speed targets (tokens/s per user, time to first token).",
                "- Training: one machine whose GPUs all shard the model (`vram_fit` at the machine's GPU count); tokens/s = "
                "GPUs × dense 16-bit TFLOPS × the GPU's training utilisation ÷ (6 × active parameters); $ per job = tokens ÷ "
                "tokens/s ÷ 3600 × $/hour.",
                "",
                "## Rankings",
                "",
                "Each component is divided by the best GPU's value (so the best scores 1) and weighted; the score is the "
                "weighted sum × 100. A missing component counts 0 and the ranking marks the GPU incomplete. "
                "Value rank = score ÷ cheapest on-demand $/GPU-hour. Weights (from `pipeline/ranking.yml`):",
                "",
                table(["Workload", "Component", "Weight", "What it measures"], wrows),
                "",
                "## Every parameter",
                "",
                table(["Name", "Value", "Unit", "Meaning", "Citation"], rows),
            ]
        )
        + "\n"
    )


# ----------------------------------------------------------------------------- prices
def price_pages(con) -> dict[str, str]:
    pages = {
        "training.md": ranking_page(con, "training"),
        "inference.md": ranking_page(con, "inference"),
        "cost-per-tflop.md": cost_page(con),
        "prices.md": prices_page(con),
        "changes.md": changes_page(con),
        "coverage.md": coverage_page(con),
    }
    pages.update(gpu_pages(con))
    return pages


def ranking_page(con, workload: str) -> str:
    ranks = df(
        con,
        """select r.*, g.name from out_rankings as r join core_gpus as g using (gpu_id)
                       where workload = ? order by rank, gpu_id""",
        [workload],
    )
    weights = df(con, "select * from core_ranking_weights where workload = ?", [workload])
    comps = list(weights.component)
    rows = []
    for r in ranks.itertuples():
        rows.append(
            [
                str(int(r.rank)),
                gpu_link(r.gpu_id, r.name),
                f"{r.score:.1f}" + ("" if r.all_components_known else " *"),
                money(r.cheapest_usd_per_gpu_hour, 3),
                num(r.score_per_usd),
                num(r.value_rank),
            ]
            + [num(getattr(r, f"{c}_component")) for c in comps]
        )
    intro = {
        "training": "Training rewards fine-tuning throughput (dense BF16 compute), the share of "
        "catalogue models whose full fine-tune fits on eight of the GPU, memory bandwidth, and a fast "
        "GPU-to-GPU link for multi-GPU jobs.",
        "inference": "Inference rewards decode speed (memory bandwidth against the bytes read per token), the "
        "share of catalogue models that fit on one GPU, and low-precision throughput.",
    }[workload]
    out = [
        WIDE + f"# {workload.title()} ranking",
        "",
        intro
        + " Components are normalised to the best GPU; weights: "
        + ", ".join(f"{esc(w.component)} {w.weight:.2f}" for w in weights.itertuples())
        + ". * = a component is unknown for this GPU (counted as 0). How every number is made: "
        "[Methodology](methodology.md).",
        "",
        table(
            ["Rank", "GPU", "Score", "Cheapest $/GPU-h", "Score per $", "Value rank"] + [f"{c}" for c in comps],
            rows,
            sortable=True,
            low=list(range(6, 6 + len(comps))),
        ),
        "",
        chart(f"rank-{workload}", charts.ranking_components(ranks, weights, workload)),
    ]
    if workload == "inference":
        est = df(
            con,
            """select e.*, g.name from out_inference_estimates as e join core_gpus as g using (gpu_id)
                         where model_id = (select value_text from core_parameters where name = 'reference_model')
                         order by all""",
        )
        model = con.execute("select value_text from core_parameters where name = 'reference_model'").fetchone()[0]
        out += [
            "",
            f"## Serving cost: {esc(model)}",
            "",
            f"Batch {int(param(con, 'serving_batch'))}, {int(param(con, 'reference_context'))}-token context, "
            "expected speed (the bandwidth bound times the decode efficiency measured on each GPU architecture, "
            "[Methodology](methodology.md)); every offer's cost is in the `token_costs` view.",
            "",
            chart("token-cost", charts.token_cost(est, model)),
        ]
    else:
        est = df(
            con,
            """select t.*, g.name from out_training_estimates as t join core_gpus as g using (gpu_id)
                         where model_id = 'llama-3.1-8b' order by finetune_usd nulls last, gpu_id, method""",
        )
        rows = [
            [
                gpu_link(e.gpu_id, e.name),
                esc(e.method),
                num(e.gpus_needed),
                num(e.tokens_per_s_per_gpu),
                num(e.finetune_hours),
                money(e.finetune_usd, 0),
            ]
            for e in est.itertuples()
        ]
        out += [
            "",
            "## Fine-tuning Llama 3.1 8B on 1 B tokens",
            "",
            "Expected tokens/s per GPU (utilisation from published runs, below), cheapest on-demand price; all "
            "models in `training_estimates`.",
            "",
            table(["GPU", "Method", "GPUs", "Tokens/s per GPU (expected)", "Hours", "Cost"], rows, sortable=True),
        ]
        out += training.calibration_section(con, _names(con))
    return "\n".join(out) + "\n"


def param(con, name: str) -> float:
    return con.execute("select param(?)", [name]).fetchone()[0]


def cost_page(con) -> str:
    costs = df(
        con,
        """select c.*, g.name from out_cost_per_tflop as c join core_gpus as g using (gpu_id)
                       order by precision, usd_per_tflop_hour, gpu_id, provider, offering, region""",
    )
    best = costs[costs.pick == "on-demand"].sort_values("usd_per_tflop_hour").groupby("precision").head(10)
    rows = [
        [
            esc(c.precision),
            gpu_link(c.gpu_id, c.name),
            esc(c.provider),
            esc(c.offering),
            money(c.usd_per_gpu_hour, 3),
            num(c.dense_tflops),
            money(c.usd_per_tflop_hour, 4),
        ]
        for c in best.itertuples()
    ]
    return (
        "\n".join(
            [
                "# Cost per TFLOP",
                "",
                "$ per GPU-hour ÷ dense TFLOPS at each precision, for each GPU's price picks (the cheapest current, "
                "fresh, comparable price per tier: [Prices used](prices.md#prices-used)). INT8 is operations, "
                "not floating-point operations, and is left out. All picks: the `cost_per_tflop` view.",
                "",
                chart("cost-bf16", charts.cost_per_tflop(costs, "bf16")),
                "",
                "## Cheapest ten on-demand prices per precision",
                "",
                table(
                    ["Precision", "GPU", "Provider", "Offering", "$/GPU-hour", "Dense TFLOPS", "$/TFLOP-hour"],
                    rows,
                    sortable=True,
                ),
            ]
        )
        + "\n"
    )


PICK_ORDER = ["on-demand", "spot", "reserved", "marketplace minimum", "marketplace median"]


def picks_frame(con) -> pd.DataFrame:
    """core_price_picks with GPU names, in a stable order (the one definition of the price used)."""
    return df(
        con,
        """select p.*, g.name from core_price_picks as p join core_gpus as g using (gpu_id)
                      order by g.name, p.pick like '%(China mainland)',
                               list_position(['on-demand', 'spot', 'reserved', 'marketplace minimum', 'marketplace median'],
                                             regexp_replace(p.pick, ' \\(China mainland\\)$', '')),
                               p.term, p.pick""",
    )


def price_used(p) -> str:
    """'$2.690', with the amount in its own currency when it was converted ('$0.291 (1.98 CNY)'), or '–'
    when no current price qualifies."""
    if pd.isna(p.usd_per_gpu_hour):
        return "–"
    if isinstance(p.currency, str) and p.currency != "USD" and pd.notna(p.amount_per_hour) and p.gpu_count:
        return f"{money(p.usd_per_gpu_hour, 3)} ({num(p.amount_per_hour / p.gpu_count, 4)} {esc(p.currency)})"
    return money(p.usd_per_gpu_hour, 3)


def original_price(o) -> str:
    """The amount in its own currency when the price was converted ('¥17.43/h at 7.12 CNY/USD')."""
    if getattr(o, "currency", "USD") in (None, "USD") or pd.isna(getattr(o, "fx_units_per_usd", None)):
        return ""
    return f" ({num(o.amount_per_hour)} {esc(o.currency)}/h at {num(o.fx_units_per_usd, 4)} {esc(o.currency)}/USD)"


def offer_flags(o) -> str:
    """Why an offer is shown but not used for picks: stale, or a GPU-only price without its host."""
    flags = []
    bound = getattr(o, "observed_no_later_than", None)
    undated = str(getattr(o, "observed_date_known", True)) == "False"
    if undated and bound is not None and not pd.isna(bound):
        flags.append(f"undated copy of a list from no later than {esc(str(bound)[:10])}")
    elif undated:
        flags.append("undated copy (date read)")
    if getattr(o, "stale", False) is True:
        flags.append("**stale**")
    if getattr(o, "comparable", True) is False:
        flags.append("**GPU only** (host not published)")
    elif getattr(o, "price_basis", None) == "gpu_and_host":
        flags.append("GPU + host")
    return " · ".join(flags)


STATISTIC_MARKS = (
    'a marketplace *median* or a *minimum* (the lowest listing, or a "from" price) is marked '
    "next to its tier; every other price is the provider's list price"
)


def tier(pricing_tier, statistic) -> str:
    """The tier, with the statistic when the price is not a list price: "spot · minimum"."""
    return esc(pricing_tier) if statistic == "list" else f"{esc(pricing_tier)} · *{esc(statistic)}*"


def prices_page(con) -> str:
    offers = df(
        con,
        """select o.*, g.name from core_price_offers as o left join core_gpus as g using (gpu_id)
                        order by o.provider, o.usd_per_gpu_hour, o.offering, o.pricing_tier, o.statistic, o.region, o.gpu_id""",
    )
    # the offers seen in more than one snapshot: one line each (a single point is no history)
    history = df(
        con,
        """select h.*, g.name from core_price_history as h join core_gpus as g using (gpu_id)
                         qualify count(distinct h.observed_on) over (
                             partition by h.gpu_id, h.provider, h.offering, h.pricing_tier, h.statistic, h.region) > 1
                         order by g.name, h.provider, h.offering, h.pricing_tier, h.statistic, h.region, h.observed_on""",
    )
    picks = picks_frame(con)
    providers = df(
        con,
        """select provider, count(*) as offers, count(gpu_id) as mapped,
                                  coalesce(max(observed_on) filter (where observed_date_known), max(observed_on)) as observed_on,
                                  count(*) filter (where observed_date_known) = 0 as undated_only,
                                  count(*) filter (where not observed_date_known) as undated,
                                  string_agg(distinct snapshot_kind, ', ' order by snapshot_kind) as kinds,
                                  string_agg(distinct currency, ', ' order by currency) as currencies,
                                  string_agg(distinct market, ', ' order by market) as markets,
                                  count(*) filter (where stale) as stale,
                                  string_agg(distinct pricing_tier, ', ' order by pricing_tier) as tiers,
                                  string_agg(distinct region, ', ' order by region) as regions,
                                  (select count(distinct h.observed_on) from core_price_history as h
                                   where h.provider = o.provider) as snapshots
                           from core_price_offers as o group by all order by provider""",
    )
    rows = [
        [
            gpu_link(o.gpu_id, o.name) if pd.notna(o.gpu_id) else f"*unmapped:* {esc(o.provider_gpu_name)}",
            money(o.comparable_usd_per_gpu_hour if pd.notna(o.comparable_usd_per_gpu_hour) else o.usd_per_gpu_hour, 3),
            esc(o.provider),
            tier(o.pricing_tier, o.statistic),
            esc(o.region),
            age(o.observed_on),
            esc(o.offering),
            num(o.gpu_count),
            money(o.usd_per_hour, 3) + original_price(o),
            offer_flags(o),
        ]
        for o in offers.itertuples()
    ]
    prow = [
        [
            esc(p.provider),
            esc(p.markets),
            str(p.offers),
            str(p.mapped),
            esc(p.tiers),
            esc(p.regions),
            esc(p.kinds),
            esc(p.currencies),
            age(p.observed_on) + (" (date read: undated copy)" if p.undated_only else ""),
            str(p.stale),
            str(p.snapshots),
        ]
        for p in providers.itertuples()
    ]
    pick_rows = [
        [
            gpu_link(p.gpu_id, p.name),
            esc(p.pick) + (f" ({esc(p.term)})" if isinstance(p.term, str) else ""),
            price_used(p),
            esc(p.provider),
            esc(p.offering),
            seen(p.observed_on, p.observed_date_known) if pd.notna(p.observed_on) else "–",
            esc(p.why),
        ]
        for p in picks.itertuples()
    ]
    max_age = int(param(con, "price_max_age_days"))
    min_sample = int(param(con, "marketplace_min_sample"))
    out = [
        WIDE + "# Cloud prices",
        "",
        f"{len(offers)} current offers from {len(providers)} providers (each provider's latest snapshot). Instance "
        "prices are divided by the GPUs in the instance; tiers are kept apart (on-demand, spot, reserved, "
        f"promotional); {STATISTIC_MARKS}. Each price shows its age: prices go stale. History: the "
        "`price_history` view and [What changed](changes.md).",
        "",
        table(
            [
                "Provider",
                "Market",
                "Offers",
                "Mapped to a variant",
                "Tiers",
                "Regions",
                "Source kinds",
                "Currency",
                "Newest observation",
                "Stale offers",
                "Snapshots kept",
            ],
            prow,
        ),
        "",
        "A snapshot that covers only some GPUs, regions or tiers (its sidecar says which) updates those; every "
        "other offer keeps its last observation and its own date. An article quoting a price list is history, "
        "never a current price. Prices in another currency are converted at a dated, sourced exchange rate; "
        "the original amount is shown beside them. Providers of the *cn-mainland* market (AutoDL, Alibaba Cloud, "
        "Tencent Cloud and others priced in CNY) sell to mainland-China accounts: their prices are compared with "
        "each other in picks marked *(China mainland)*, never with offers open to anyone, and the Planner, "
        "estimates and rankings use the global picks.",
        "",
        "## Prices used",
        "",
        f"The one definition of the cheapest price, used by every page, ranking, estimate and `gpu-atlas fit`: per GPU "
        f"and tier, the cheapest current offer that is **fresh** (observed within {max_age} days), **comparable** "
        "(a whole instance, or a GPU plus its published host price: a GPU-only price is left out) and, for a "
        f'marketplace median, taken over at least {min_sample} listings. A provider\'s "from" price is the floor '
        "of a range, not an offer, and is never used. Query: the `price_picks` view.",
        "",
        table(["GPU", "Tier", "$/GPU-hour", "Provider", "Offering", "Observed", "Why"], pick_rows, sortable=True),
        "",
    ]
    if len(history):
        out += [
            chart(
                "history-all",
                charts.price_history_picker(history, "Price history (offers seen in more than one snapshot)"),
            ),
            "",
        ]
    out += [
        "## Every current offer",
        "",
        table(
            ["GPU", "$/GPU-hour", "Provider", "Tier", "Region", "Observed", "Offering", "GPUs", "$/hour", "Note"],
            rows,
            sortable=True,
            low=[4, 6, 7, 8],
        ),
    ]
    return "\n".join(out) + "\n"


def changes_page(con) -> str:
    ch = df(
        con,
        """select c.*, g.name from out_price_changes as c left join core_gpus as g using (gpu_id)
                    where change in ('added', 'removed', 'replaced', 'repriced', 'renamed')
                    order by provider, change, abs(change_pct) desc nulls last, offering, pricing_tier, region,
                             statistic, gpu_count, provider_gpu_name""",
    )
    counts = df(
        con,
        """select provider, max(previous_observed_on) as previous_on, max(current_observed_on) as current_on,
                               count(*) filter (where change = 'added') as added,
                               count(*) filter (where change = 'removed') as removed,
                               count(*) filter (where change = 'replaced') as replaced,
                               count(*) filter (where change = 'repriced') as repriced,
                               count(*) filter (where change = 'renamed') as renamed,
                               count(*) filter (where change = 'unchanged') as unchanged,
                               count(*) filter (where change = 'not compared') as not_compared
                        from out_price_changes group by all order by provider""",
    )
    uncompared = df(
        con,
        """select provider, pricing_tier, statistic, reason,
                                   string_agg(distinct region, ', ' order by region) as regions,
                                   max(coalesce(current_observed_on, previous_observed_on)) as listed_on, count(*) as n
                            from out_price_changes where change = 'not compared' group by all order by all""",
    )
    rows = [
        [
            esc(c.provider),
            esc(c.offering),
            esc(c.name) if pd.notna(c.name) else esc(c.provider_gpu_name),
            esc(c.pricing_tier),
            esc(c.region),
            f"**{esc(c.change)}**",
            money(c.previous_usd_per_gpu_hour, 3),
            money(c.current_usd_per_gpu_hour, 3),
            f"{c.change_pct:+.1f}%" if pd.notna(c.change_pct) else "–",
            esc(c.reason) if pd.notna(c.reason) else "",
        ]
        for c in ch.itertuples()
    ]
    summary = [
        [
            esc(c.provider),
            esc(c.previous_on),
            esc(c.current_on),
            str(c.added),
            str(c.removed),
            str(c.replaced),
            str(c.repriced),
            str(c.renamed),
            str(c.unchanged),
            str(c.not_compared),
        ]
        for c in counts.itertuples()
    ]
    note = []
    if len(uncompared):
        units = "; ".join(
            f"{esc(u.provider)} {esc(u.pricing_tier)} ({esc(u.statistic)}, {esc(u.regions)}: {u.n} offers, "
            f"{esc(u.reason)})"
            for u in uncompared.itertuples()
        )
        note = [
            f"*Not compared*: offers outside what one of the two snapshots covers (a tier, region or GPU its "
            f"source does not list), or marketplace statistics whose sample changed. Their absence from the other "
            f"snapshot is not a removal: {units}.",
            "",
        ]
    return (
        "\n".join(
            [
                WIDE + "# What changed",
                "",
                "Offers added, removed and repriced between each provider's two latest snapshots "
                "(per GPU-hour). Providers with a single snapshot have no changes yet.",
                "",
                table(
                    [
                        "Provider",
                        "Previous snapshot",
                        "Current snapshot",
                        "Added",
                        "Removed",
                        "Replaced",
                        "Repriced",
                        "Renamed",
                        "Unchanged",
                        "Not compared",
                    ],
                    summary,
                ),
                "",
                *note,
                "A removal is reported only when the newer snapshot covers the offer (its tier, statistic and "
                "region, and its GPU and GPU count if the snapshot is partial) and no longer lists it. An offer whose name "
                "changed at the same provider, GPU, GPU count, tier, statistic and region is *renamed*; one whose name "
                "is gone while other offers are listed at that identity (one offer became two instance types) "
                "is *replaced*, not removed. A "
                "marketplace median whose sample of listings changed is not a price move.",
                "",
                "## Every added, removed, replaced, repriced or renamed offer",
                "",
                "Before and after are per GPU-hour, in the provider's previous and current snapshot (dates above).",
                "",
                table(
                    [
                        "Provider",
                        "Offering",
                        "GPU",
                        "Tier",
                        "Region",
                        "Change",
                        "Before",
                        "After",
                        "Change %",
                        "Detail",
                    ],
                    rows,
                    sortable=True,
                    low=[1, 4],
                ),
            ]
        )
        + "\n"
    )


def coverage_page(con) -> str:
    cov = df(con, "select * from out_coverage order by missing_count desc, name")
    unmapped = df(
        con,
        """select provider, provider_gpu_name, gpu_memory_gb, count(*) as offers, max(observed_on) as last_seen
                          from core_price_history where not mapped group by all order by provider, provider_gpu_name, gpu_memory_gb""",
    )
    models = df(
        con,
        """select model_id, concat_ws(', ',
                            case when hidden_size is null then 'hidden_size' end, case when head_dim is null then 'head_dim' end,
                            case when max_context is null then 'max_context' end,
                            case when intermediate_size is null then 'intermediate_size' end,
                            case when vocab_size is null then 'vocab_size' end) as missing
                        from core_models where hidden_size is null or head_dim is null or max_context is null
                            or intermediate_size is null or vocab_size is null order by model_id""",
    )
    rows = [
        [gpu_link(c.gpu_id, c.name), str(c.missing_count), esc(c.missing_figures) or "none", str(c.current_offers)]
        for c in cov.itertuples()
    ]
    urows = [
        [esc(u.provider), esc(u.provider_gpu_name), num(u.gpu_memory_gb), str(u.offers), esc(u.last_seen)]
        for u in unmapped.itertuples()
    ]
    mrows = [[esc(m.model_id), esc(m.missing)] for m in models.itertuples()]
    return (
        "\n".join(
            [
                "# Coverage",
                "",
                "What we could not source. A missing figure is left empty, never guessed; it shows here until "
                "a source publishes it.",
                "",
                "## GPU figures missing",
                "",
                "Not counted as missing: a precision the architecture does not run in hardware (TF32 before "
                "Ampere and on CDNA 4, BF16 before Ampere and CDNA 2, INT8 tensor on Volta), and launch prices "
                "of data-centre parts, which NVIDIA and AMD do not publish.",
                "",
                table(["GPU", "Missing", "Figures", "Current offers"], rows, sortable=True),
                "",
                "## Provider GPU names not mapped to a variant",
                "",
                "A provider name that cannot be pinned to one variant (SXM vs PCIe, memory size) is listed "
                "here, never merged into a guess. Its offers stay in `price_history` with `gpu_id` NULL.",
                "",
                table(["Provider", "Provider's GPU name", "Memory (GB)", "Offers", "Last seen"], urows),
                "",
                "## Model config fields missing",
                "",
                table(["Model", "Missing fields"], mrows) if mrows else "None.",
            ]
        )
        + "\n"
    )


# ----------------------------------------------------------------------------- data
def data_page(con, downloads: list[str]) -> str:
    from pipeline.contract import COLUMN_DOCS, VIEWS

    out = [
        "# Data",
        "",
        "Everything on this site comes from one DuckDB file. Download it and query the views below with the "
        "`duckdb` CLI, Python or any DuckDB client; names and columns are a stable contract (units are in the "
        "column names; GB = 10⁹ bytes).",
        "",
        "## Downloads",
        "",
    ]
    for name in downloads:
        out.append(f"- [{esc(name)}](downloads/{name})")
    out += [
        "",
        "## JSON files and the price feed",
        "",
        "Static JSON files for programs, versioned (`schema_version` in each file; a breaking change moves them "
        "to a new folder), described in [schema.json](api/v1/schema.json) and, field by field, in an OpenAPI 3.1 "
        "document generated from the queries that write them, [openapi.json](api/v1/openapi.json) (a test "
        "validates every file against it); [llms.txt](llms.txt) summarises the site for language models:",
        "",
        "- [gpus.json](api/v1/gpus.json): every GPU variant's figures with its cheapest current price per tier",
        "- [offers.json](api/v1/offers.json): every current price offer",
        "- [estimates.json](api/v1/estimates.json): serving and training estimates",
        "- [fits.json](api/v1/fits.json): the largest model that fits on one GPU, per weight format",
        "- [plan/index.json](api/v1/plan/index.json): the Planner's choices and the valid range of every input; "
        "[plan/coefficients.json](api/v1/plan/coefficients.json): the rows of `serving_models`, `serving_gpus`, "
        "`rentable_machines` and `serving_calibration` the page computes from; `plan/training/<model_id>.json`: "
        "ranked training options per workload and tier",
        "- [prices.atom](feeds/prices.atom): an Atom feed of price changes, one entry per provider snapshot",
    ]
    out += [
        "",
        "## Example queries",
        "",
        "```sql",
        "-- dense BF16 and memory, fastest first",
        "select name, bf16_tflops, memory_gb from gpus order by bf16_tflops desc nulls last;",
        "-- which GPUs run Llama 3.3 70B with FP8 weights at 32k context on one card",
        "select gpu_id, required_gb, fits_one_gpu from vram_fit",
        "where model_id = 'llama-3.3-70b' and workload = 'inference' and precision = 'fp8'",
        "  and kv_precision = 'bf16' and context_tokens = 32768 and batch_size = 1 and gpu_count = 1;",
        "-- cheapest dense BF16 TFLOP-hour right now",
        "select gpu_id, provider, offering, usd_per_tflop_hour from cost_per_tflop",
        "where precision = 'bf16' and pricing_tier = 'on-demand' order by usd_per_tflop_hour limit 10;",
        "```",
        "",
        "## View reference",
        "",
    ]
    for view, (grain, text) in VIEWS.items():
        cols = con.execute(f"describe {view}").fetchall()
        rows = [[f"`{esc(c[0])}`", esc(c[1]), esc(COLUMN_DOCS.get(c[0], ""))] for c in cols]
        count = con.execute(f"select count(*) from {view}").fetchone()[0]
        out += [
            f"### `{view}`",
            "",
            f"One row per {esc(grain)}. {esc(text)} ({count:,} rows)",
            "",
            table(["Column", "Type", "Meaning"], rows),
            "",
        ]
    return "\n".join(out) + "\n"
