"""Words for values, shared by page families: kinds of source, units, compute figures, price tiers and offer notes.
Each returns escaped text or safe HTML."""

from __future__ import annotations

import pandas as pd

from .markdown import esc, money, num

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
FORMATTERS = (
    "figure_label",
    "printed",
    "price_used",
    "original_price",
    "offer_flags",
    "tier",
    "pick_label",
    "kind_label",
)
STATISTIC_MARKS = (
    'a marketplace *median* or a *minimum* (the lowest listing, or a "from" price) is marked '
    "next to its tier; every other price is the provider's list price"
)


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


def tier(pricing_tier, statistic) -> str:
    """The tier, with the statistic when the price is not a list price: "spot · minimum"."""
    return esc(pricing_tier) if statistic == "list" else f"{esc(pricing_tier)} · *{esc(statistic)}*"


def pick_label(p) -> str:
    """A price pick's tier with its reserved term: 'reserved (1 year)'."""
    return esc(p.pick) + (f" ({esc(p.term)})" if isinstance(p.term, str) else "")


def kind_label(kind) -> str:
    """What a kind of source is called on the pages: 'vendor document', 'price list'."""
    return esc(KIND_LABELS.get(kind, kind))
