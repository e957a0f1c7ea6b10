"""The GPU specifications (`gpus/index.md`): every variant's dense figures in one sortable table, with compute against
bandwidth and per watt; and one page per GPU (`gpus/<gpu_id>.md`): its key figures, cheapest prices, the models that
fit on one, rankings, every canonical and other figure with its source, and its cloud prices and their history.

In the Chinese edition a GPU page shows the China-mainland market's prices (CNY, mainland providers) first, then the
global ones; in English the order of the queries."""

from __future__ import annotations

import math

import duckdb
import pandas as pd

from .. import charts, i18n, price_charts
from ..markets import china_first, is_china_offer, is_china_pick
from ..family import Family
from ..i18n import N_, _
from ..labels import CLASSIFICATIONS, words
from ..prices import FAMILY as PRICES

# the price used per GPU and tier is the Prices page's query (one definition of its order), read from price_picks
FAMILY = Family(__file__, reads={"price_picks"})

# the GPU index's figure columns, those that decide first: (column, title, unit)
# (titles in words are translated where shown; precisions and units stay as they are)
INDEX_COLUMNS = [
    ("memory_gb", N_("Memory"), "GB"),
    ("memory_bandwidth_gbs", N_("Bandwidth"), "GB/s"),
    ("bf16_tflops", "BF16", "TFLOPS"),
    ("fp8_tflops", "FP8", "TFLOPS"),
    ("fp4_tflops", "FP4", "TFLOPS"),
    ("int8_tops", "INT8", "TOPS"),
    ("tdp_w", "TDP", "W"),
    ("fp16_tflops", "FP16", "TFLOPS"),
    ("tf32_tflops", "TF32", "TFLOPS"),
    ("fp32_tflops", N_("FP32 (vector)"), "TFLOPS"),
    ("fp64_tflops", N_("FP64 (vector)"), "TFLOPS"),
    ("interconnect_gbs", N_("NVLink / fabric"), "GB/s"),
    ("launch_price_usd", N_("Launch price"), "USD"),
]
TRANSLATED_TITLES = {"Memory", "Bandwidth", "FP32 (vector)", "FP64 (vector)", "NVLink / fabric", "Launch price"}
SOURCE_CHARS = 60  # source titles in figure tables are shortened (whole title in the tooltip)
# what every GPU page shares
PAGE_WORDS = {"source_chars": SOURCE_CHARS}
# words for values of the views, translated where shown (a value not listed prints as it is)
WORKLOADS = {"training": N_("training"), "inference": N_("inference")}
RANK_LABELS = {"training": N_("Training rank"), "inference": N_("Inference rank")}
SEGMENTS = {"datacenter": N_("datacenter"), "workstation": N_("workstation"), "consumer": N_("consumer")}
# the glance's label of each price pick (price_picks.pick)
CHEAPEST = {
    "on-demand": N_("Cheapest on-demand"),
    "spot": N_("Cheapest spot"),
    "reserved": N_("Cheapest reserved"),
    "marketplace minimum": N_("Cheapest marketplace minimum"),
    "marketplace median": N_("Cheapest marketplace median"),
    "on-demand (China mainland)": N_("Cheapest on-demand (China mainland)"),
    "spot (China mainland)": N_("Cheapest spot (China mainland)"),
    "reserved (China mainland)": N_("Cheapest reserved (China mainland)"),
    "marketplace minimum (China mainland)": N_("Cheapest marketplace minimum (China mainland)"),
    "marketplace median (China mainland)": N_("Cheapest marketplace median (China mainland)"),
}


def rank_label(workload: str) -> str:
    """The glance's label of a ranking: 'Training rank'."""
    if workload in RANK_LABELS:
        return _(RANK_LABELS[workload])
    return _("%(workload)s rank") % {"workload": str(workload).title()}


def cheapest_label(pick: str) -> str:
    """The glance's label of a price pick: 'Cheapest on-demand'."""
    if pick in CHEAPEST:
        return _(CHEAPEST[pick])
    return _("Cheapest %(pick)s") % {"pick": pick}


def index_context(gpus: pd.DataFrame) -> dict:
    """The GPU index's values: the variants (fastest dense 16-bit rate first), the columns and the two charts."""
    return {
        "gpus": list(gpus.itertuples(index=False)),
        "columns": [(c, _(t) if t in TRANSLATED_TITLES else t, u) for c, t, u in INDEX_COLUMNS],
        "bubble": charts.bubble_compute_bandwidth(gpus),
        "per_watt": charts.tflops_per_watt(gpus),
    }


def _log_gap(a, b) -> float:
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


def _grouped(frame: pd.DataFrame) -> dict[str, list]:
    """Rows by GPU, grouped once (a scan per page would dominate the render time)."""
    out: dict[str, list] = {}
    for row in frame.itertuples(index=False):
        out.setdefault(row.gpu_id, []).append(row)
    return out


def pages_context(
    gpus: pd.DataFrame,
    claims: pd.DataFrame,
    offers: pd.DataFrame,
    history: pd.DataFrame,
    rankings: pd.DataFrame,
    picks: pd.DataFrame,
    serving: pd.DataFrame,
    fits: pd.DataFrame,
) -> dict[str, dict]:
    """Each GPU page's values, by gpu_id."""
    claims_by, offers_by, ranks_by, fits_by, picks_by, serving_by = (
        _grouped(f) for f in (claims, offers, rankings, fits, picks, serving)
    )
    history_by = dict(tuple(price_charts.offer_lines(history).groupby("gpu_id", sort=False)))
    all_gpus = list(gpus.itertuples(index=False))
    page_words = {
        **PAGE_WORDS,
        "workload_words": words(WORKLOADS),
        "rank_labels": {w: rank_label(w) for w in rankings["workload"].dropna().unique()},
        "segment_words": words(SEGMENTS),
        "class_words": words(CLASSIFICATIONS),
    }
    pages = {}
    for g in all_gpus:
        gpu_claims = claims_by.get(g.gpu_id, [])
        # the Chinese edition shows the China-mainland market's prices first (English: the order of the queries)
        gpu_picks = china_first(picks_by.get(g.gpu_id, []), is_china_pick)
        gpu_offers = china_first(offers_by.get(g.gpu_id, []), is_china_offer)
        gpu_history = history_by.get(g.gpu_id)
        pages[g.gpu_id] = {
            **page_words,
            "g": g,
            "tensor_cores": _has_tensor_cores(g),
            "near": nearest(g, all_gpus),
            "variants": [v for v in all_gpus if v.family == g.family and v.gpu_id != g.gpu_id],
            "picks": gpu_picks,
            # the price every page uses, per tier (price_picks), where one qualifies
            "best": [p for p in gpu_picks if pd.notna(p.usd_per_gpu_hour)],
            "cheapest_labels": {p.pick: cheapest_label(p.pick) for p in gpu_picks},
            "serving": (serving_by.get(g.gpu_id) or [None])[0],
            # bf16, fp8, int4: the order of the glance and of the table
            "fits": sorted(fits_by.get(g.gpu_id, []), key=lambda f: f.precision),
            "ranks": ranks_by.get(g.gpu_id, []),
            "canonical": [c for c in gpu_claims if c.is_canonical],
            "other": [c for c in gpu_claims if not c.is_canonical],
            "offers": gpu_offers,
            # a note on the order, where the Chinese edition moved the China-mainland market's rows first
            "china_note": i18n.current() == "zh"
            and (any(map(is_china_pick, gpu_picks)) or any(map(is_china_offer, gpu_offers))),
            # a single snapshot is not a history
            "history_chart": (
                price_charts.price_history(gpu_history, _("Price history: %(gpu)s") % {"gpu": g.name})
                if gpu_history is not None and gpu_history["observed_on"].nunique() > 1
                else None
            ),
        }
    return pages


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    index = index_context(FAMILY.frame(con, "gpu_index"))
    frames = {name: FAMILY.frame(con, name) for name in ("gpus", "claims", "offers", "history", "rankings")}
    frames["picks"] = PRICES.frame(con, "picks")
    frames.update({name: FAMILY.frame(con, name) for name in ("serving", "fits")})
    pages = pages_context(*frames.values())
    out = {"gpus/index.md": FAMILY.render("index.md.j2", **index)}
    out.update({f"gpus/{gpu_id}.md": FAMILY.render("gpu.md.j2", **page) for gpu_id, page in pages.items()})
    return out
