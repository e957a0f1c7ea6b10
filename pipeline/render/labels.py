"""Words for values, shared by page families: kinds of source, units, compute figures, price tiers and offer notes.
Each returns escaped text or safe HTML, in the current locale (the words are marked here, translated where shown:
`pipeline/render/templates/zh.po`)."""

from __future__ import annotations

import re

import pandas as pd
from markupsafe import Markup

from . import i18n
from .i18n import N_, _, ngettext
from .markdown import esc, money, num

KIND_LABELS = {
    "vendor_document": N_("vendor document"),
    "vendor_reprint": N_("vendor reprint"),
    "curated_dataset": N_("curated dataset"),
    "reseller": N_("reseller"),
    "blog_or_wiki": N_("blog or wiki"),
    "article": N_("article"),
    "cloud_price_list": N_("price list"),
    "price_api": N_("price API"),
    "model_card": N_("model card"),
    "curated_mapping": N_("mapping"),
    "provider_api": N_("provider API"),
    "price_tracker": N_("price tracker"),
    "provider_page": N_("provider page"),
    "catalogue_copy": N_("catalogue copy"),
    "exchange_rates": N_("exchange rates"),
    "measurement": N_("measurement"),
}
UNIT_LABELS = {
    "tflops": "TFLOPS",
    "tops": "TOPS",
    "gbs": "GB/s",
    "w": "W",
    "usd": "USD",
    "gb": "GB",
    "year": "",
    "gpus": "",
}
# units that are words, not symbols: translated where shown
UNIT_WORDS = {"count": N_("count")}
# a figure's metric (spec_claims.metric) as the pages name it: the name with spaces
METRIC_LABELS = {
    "memory_size": N_("memory size"),
    "memory_usable": N_("usable memory"),
    "memory_type": N_("memory type"),
    "memory_bandwidth": N_("memory bandwidth"),
    "interconnect_bandwidth": N_("interconnect bandwidth"),
    "host_bandwidth": N_("PCIe link bandwidth"),
    "interconnect_gpus": N_("GPUs the interconnect joins"),
    "tdp": N_("tdp"),
    "module_power": N_("module power"),
    "cuda_cores": N_("cuda cores"),
    "release_year": N_("release year"),
    "launch_price": N_("launch price"),
    "architecture": N_("architecture"),
}
# spec_claims.classification: how a source's figure relates to the canonical one (GPU pages, Sources and conflicts)
CLASSIFICATIONS = {
    "agrees": N_("agrees"),
    "sparse figure": N_("sparse figure"),
    "other rate": N_("other rate"),
    "another precision": N_("another precision"),
    "another variant": N_("another variant"),
    "documents disagree": N_("documents disagree"),
    "no datasheet figure": N_("no datasheet figure"),
    "unexplained": N_("unexplained"),
    "canonical": N_("canonical"),
}
UNIT_KINDS = {"tensor": N_("tensor"), "vector": N_("vector")}
TIERS = {
    "on-demand": N_("on-demand"),
    "spot": N_("spot"),
    "reserved": N_("reserved"),
    "promotional": N_("promotional"),
}
# price picks (price_picks.pick): a tier, or a tier in one market
PICKS = {
    **TIERS,
    "on-demand (China mainland)": N_("on-demand (China mainland)"),
    "spot (China mainland)": N_("spot (China mainland)"),
    "reserved (China mainland)": N_("reserved (China mainland)"),
    "marketplace minimum": N_("marketplace minimum"),
    "marketplace median": N_("marketplace median"),
    "marketplace minimum (China mainland)": N_("marketplace minimum (China mainland)"),
    "marketplace median (China mainland)": N_("marketplace median (China mainland)"),
}
STATISTICS = {"list": N_("list"), "minimum": N_("minimum"), "median": N_("median")}
FORMATTERS = (
    "figure_label",
    "printed",
    "price_used",
    "original_price",
    "offer_flags",
    "tier",
    "pick_label",
    "kind_label",
    "tiers",
    "markets",
    "kinds",
    "pick_why",
    "change_reason",
    "gpu_name",
)


def word(table: dict, value):
    """A value's word in the current locale when the table names it; the value itself otherwise (data)."""
    try:
        return _(table[value]) if value in table else value
    except TypeError:  # an unhashable value: no word for it
        return value


def words(table: dict[str, str]) -> dict[str, str]:
    """A table of words in the current locale."""
    return {value: _(word) for value, word in table.items()}


class LazyMarkup(Markup):
    """Our own Markdown, translated each time it is printed (`__html__`, `str`) rather than when it is created: a
    template global set once for every locale. As a `Markup` it passes the templates' finalize unescaped."""

    def __new__(cls, text: str):
        self = super().__new__(cls, text)
        self.msgid = text
        return self

    def __html__(self) -> Markup:
        return Markup(_(self.msgid))

    def __str__(self) -> str:
        return _(self.msgid)


# our own Markdown: the tier notes' *median* and *minimum* in italics (`statistic_marks` in templates)
STATISTIC_MARKS = LazyMarkup(
    N_(
        'a marketplace *median* or a *minimum* (the lowest listing, or a "from" price) is marked '
        "next to its tier; every other price is the provider's list price"
    )
)


def figure_label(c, tensor_cores: bool = True) -> str:
    """'bf16 tensor, FP32 accumulate' for a compute figure, 'memory bandwidth' for the others. A GPU without
    tensor cores (Pascal, Maxwell) has no tensor rate: its figure is labelled without the word."""
    if c.metric != "compute":
        return esc(_(METRIC_LABELS[c.metric]) if c.metric in METRIC_LABELS else str(c.metric).replace("_", " "))
    kind = getattr(c, "unit_kind", None)
    if not tensor_cores and kind == "tensor":
        kind = None
    parts = [p for p in (c.precision, word(UNIT_KINDS, kind)) if isinstance(p, str)]
    label = " ".join(parts)
    accumulate = getattr(c, "accumulate", None)
    if isinstance(accumulate, str):
        label = _("%(label)s, %(precision)s accumulate") % {"label": label, "precision": accumulate.upper()}
    return esc(label)


def printed(c) -> str:
    """The value with its unit as the source printed it, marked when it is a sparse figure."""
    if isinstance(c.unit, str):
        unit = word(UNIT_WORDS, c.unit) if c.unit in UNIT_WORDS else UNIT_LABELS.get(c.unit, c.unit)
    else:
        unit = ""
    text = f"{num(c.value, 6)} {esc(unit)}".strip()
    return _("%(value)s (sparse)") % {"value": text} if c.sparsity == "sparse" else text


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
    return _(" (%(amount)s %(currency)s/h at %(rate)s %(currency)s/USD)") % {
        "amount": num(o.amount_per_hour),
        "currency": esc(o.currency),
        "rate": num(o.fx_units_per_usd, 4),
    }


def offer_flags(o) -> str:
    """Why an offer is shown but not used for picks: stale, or a GPU-only price without its host."""
    flags = []
    bound = getattr(o, "observed_no_later_than", None)
    undated = str(getattr(o, "observed_date_known", True)) == "False"
    if undated and bound is not None and not pd.isna(bound):
        flags.append(_("undated copy of a list from no later than %(date)s") % {"date": esc(str(bound)[:10])})
    elif undated:
        flags.append(_("undated copy (date read)"))
    if getattr(o, "stale", False) is True:
        flags.append(_("**stale**"))
    if getattr(o, "comparable", True) is False:
        flags.append(_("**GPU only** (host not published)"))
    elif getattr(o, "price_basis", None) == "gpu_and_host":
        flags.append(_("GPU + host"))
    return " · ".join(flags)


def tier(pricing_tier, statistic) -> str:
    """The tier, with the statistic when the price is not a list price: "spot · minimum"."""
    shown = esc(word(TIERS, pricing_tier))
    return shown if statistic == "list" else f"{shown} · *{esc(word(STATISTICS, statistic))}*"


MARKETS = {"global": N_("global"), "cn-mainland": N_("China mainland")}


def _listed(listed, one) -> str:
    """A list as a view joins them ("a, b, c"), each item in words; in English as the view wrote it."""
    if not isinstance(listed, str) or not listed or i18n.current() == i18n.DEFAULT:
        return esc(listed)
    return esc(_(", ").join(one(item) for item in listed.split(", ")))


def tiers(listed) -> str:
    """Tiers as a view joins them ("on-demand, reserved, spot")."""
    return _listed(listed, lambda t: word(TIERS, t))


def markets(listed) -> str:
    """Markets as a view joins them ("cn-mainland, global")."""
    return _listed(listed, lambda m: word(MARKETS, m))


def kinds(listed) -> str:
    """Kinds of source as a view joins them ("catalogue_copy, price_tracker")."""
    return _listed(listed, lambda k: word(KIND_LABELS, k))


# price_picks.why, as pipeline/sql/core/core_price_picks.sql writes it: what was picked from how many, and what was left out
_WHY = re.compile(
    r"^(?:cheapest of (?P<n>\d+) current (?P<pick>.+?) prices?(?P<host> \(GPU plus its host VM\))?"
    r"(?P<seller> \(a third-party host's machine on the provider's marketplace\))?|no price used)"
    r"(?:; left out: (?P<left>\d+) \((?P<reasons>.*)\))?$"
)
_STALE = re.compile(r"^stale \(observed more than (\d+) days ago\)$")
_THIN = re.compile(r"^median over fewer than (\d+) listings$")
REASONS = {
    "GPU-only price: the host is billed apart and its price is not published": N_(
        "GPU-only price: the host is billed apart and its price is not published"
    ),
    'a provider\'s "from" price: not an offer at that price': N_(
        'a provider\'s "from" price: not an offer at that price'
    ),
    "undated copy: when its prices were observed is not known": N_(
        "undated copy: when its prices were observed is not known"
    ),
}


def _reason(text: str) -> str | None:
    if text in REASONS:
        return _(REASONS[text])
    if m := _STALE.match(text):
        return _("stale (observed more than %(days)s days ago)") % {"days": m.group(1)}
    if m := _THIN.match(text):
        return _("median over fewer than %(n)s listings") % {"n": m.group(1)}
    return None


def _why_words(why: str) -> str | None:
    """The pick's explanation in the current locale, or None when its wording is not one the SQL writes."""
    m = _WHY.match(why)
    if not m or (m.group("pick") and m.group("pick") not in PICKS):
        return None
    if m.group("n"):
        text = _("cheapest of %(n)s current %(pick)s prices") % {
            "n": m.group("n"),
            "pick": word(PICKS, m.group("pick")),
        }
        if m.group("host"):
            text += _(" (GPU plus its host VM)")
        if m.group("seller"):
            text += _(" (a third-party host's machine on the provider's marketplace)")
    else:
        text = _("no price used")
    if m.group("left"):
        reasons = [_reason(r) for r in m.group("reasons").split("; ")]
        if None in reasons:
            return None
        left = {"n": m.group("left"), "reasons": _("; ").join(reasons)}
        text += _("; left out: %(n)s (%(reasons)s)") % left
    return text


def pick_why(why) -> str:
    """Why a price is the one used (`price_picks.why`): in English as the view wrote it; in another edition in its
    words, or, when the wording is not one the SQL writes, as written and marked as English."""
    if not isinstance(why, str) or not why or i18n.current() == i18n.DEFAULT:
        return esc(why)
    shown = _why_words(why)
    return esc(shown) if shown is not None else f'<span lang="en">{esc(why)}</span>'


_TERM = re.compile(r"^\s*(\d+)\s*-?\s*(?:(yrs?|years?|y)|(mo|mos|months?))\s*$", re.I)


def term_words(term: str) -> str:
    """A reserved term as a provider wrote it ('1yr', '12 month'); in another edition, in its words when it reads
    as a count of years or months."""
    if i18n.current() == i18n.DEFAULT:
        return term
    m = _TERM.match(term)
    if not m:
        return term
    n = int(m.group(1))
    if m.group(2):
        return ngettext("%(n)s year", "%(n)s years", n) % {"n": n}
    return ngettext("%(n)s month", "%(n)s months", n) % {"n": n}


def pick_label(p) -> str:
    """A price pick's tier with its reserved term: 'reserved (1 year)'."""
    shown = esc(word(PICKS, p.pick))
    if not isinstance(p.term, str):
        return shown
    return shown + _(" (%(term)s)") % {"term": esc(term_words(p.term))}


def kind_label(kind) -> str:
    """What a kind of source is called on the pages: 'vendor document', 'price tracker'."""
    return esc(word(KIND_LABELS, kind))


# price_changes.reason, as pipeline/sql/marts/out_price_changes.sql writes it (the names inside are data)
_CHANGE_REASONS = [
    (re.compile(r"^the newer snapshot does not cover this offer$"), N_("the newer snapshot does not cover this offer")),
    (re.compile(r"^the older snapshot did not cover this offer$"), N_("the older snapshot did not cover this offer")),
    (
        re.compile(
            r"^no longer listed under this name; the newer snapshot lists (?P<name>.+) at the same GPU, GPU "
            r"count, tier and region$"
        ),
        N_(
            "no longer listed under this name; the newer snapshot lists %(name)s at the same GPU, GPU count, tier and "
            "region"
        ),
    ),
    (
        re.compile(r"^the sample of listings changed \((?P<a>[\d?]+) -> (?P<b>[\d?]+)\): not a price move$"),
        N_("the sample of listings changed (%(a)s -> %(b)s): not a price move"),
    ),
    (
        re.compile(r"^sample below the minimum of (?P<n>\d+) listings: not a price$"),
        N_("sample below the minimum of %(n)s listings: not a price"),
    ),
    (re.compile(r"^renamed from (?P<name>.+)$"), N_("renamed from %(name)s")),
]


def change_reason(reason) -> str:
    """Why a price change is what it is (`price_changes.reason`): in the current locale's words where the SQL wrote
    it; a wording it does not know stays as written, marked as English."""
    if not isinstance(reason, str) or not reason:
        return ""
    if i18n.current() == i18n.DEFAULT:
        return esc(reason)
    for pattern, text in _CHANGE_REASONS:
        if m := pattern.match(reason):
            return esc(_(text) % {k: v for k, v in m.groupdict().items()})
    return f'<span lang="en">{esc(reason)}</span>'


# the qualifiers a GPU's display name carries (gpus.csv `name`), in the reader's words; the product name stays
GPU_QUALIFIERS = {
    " (China market)": N_(" (China market)"),
    ", one of two dies,": N_(", one of two dies,"),
    " (AWS)": N_(" (AWS)"),
    " (one of two GPUs per superchip)": N_(" (one of two GPUs per superchip)"),
    " (GPU part)": N_(" (GPU part)"),
}


def gpu_name(name) -> str:
    """A GPU's display name with its qualifiers ('(China market)', 'one of two dies') in the current locale."""
    if not isinstance(name, str) or i18n.current() == i18n.DEFAULT:
        return name
    for english, text in GPU_QUALIFIERS.items():
        name = name.replace(english, _(text))
    return name
