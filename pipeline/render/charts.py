"""Altair charts. Each returns a validated Vega-Lite dict (Altair validates on to_dict).

Every text a chart shows (its title, axis, legend and tooltip titles) is in the current locale; the data's field
names stay. A spec is written inline in its page (`markdown.chart`), so each edition's page carries its own; a
chart whose data is a file (`markdown.chart_data`) keeps only numbers and names in it."""

from __future__ import annotations


import altair as alt
import pandas as pd

from . import i18n
from .i18n import N_, _
from .labels import gpu_name

WIDTH = "container"


def provider_scale(data: pd.DataFrame) -> alt.Scale:
    """The colours of the providers a chart shows, as the data gives them: each row's `provider_colour` (the
    `colour` of the `providers` view, from the provider's provider.yml), so a provider has one colour on every
    chart of the site."""
    pairs = data[["provider", "provider_colour"]].drop_duplicates("provider").sort_values("provider")
    return alt.Scale(domain=list(pairs["provider"]), range=list(pairs["provider_colour"]))


# per edition, the dates of a chart: month names, and the tooltip's dates written as the pages write them
LOCALE_CONFIG = {
    "zh": {
        "locale": {
            "time": {
                "dateTime": "%x %A %X",
                "date": "%Y年%-m月%-d日",
                "time": "%H:%M:%S",
                "periods": ["上午", "下午"],
                "days": ["星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"],
                "shortDays": ["周日", "周一", "周二", "周三", "周四", "周五", "周六"],
                "months": [
                    "一月",
                    "二月",
                    "三月",
                    "四月",
                    "五月",
                    "六月",
                    "七月",
                    "八月",
                    "九月",
                    "十月",
                    "十一月",
                    "十二月",
                ],
                "shortMonths": ["1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"],
            }
        },
        "timeFormat": "%Y-%m-%d",
    }
}

# the words of the fields a tooltip shows by their name in English
FIELD_WORDS = {
    "architecture": N_("architecture"),
    "component": N_("component"),
    "points": N_("points"),
    "score": N_("score"),
    "provider": N_("provider"),
    "offering": N_("offering"),
    "pricing_tier": N_("tier"),
    "statistic": N_("statistic"),
    "region": N_("region"),
    "precision": N_("weights"),
    "model": N_("model"),
    "gpu": N_("GPU"),
    "tflops_per_watt": N_("TFLOPS per watt"),
    "best_16bit_tflops": N_("dense 16-bit TFLOPS"),
}
WORKLOADS = {"training": N_("Training"), "inference": N_("Inference")}


def _tip(shorthand: str, **kwargs):
    """A tooltip field: in English as it always was (a field without a title shows its name); in another edition
    with its title in that language."""
    field = shorthand.split(":")[0]
    if i18n.current() == i18n.DEFAULT or "title" in kwargs or field not in FIELD_WORDS:
        return alt.Tooltip(shorthand, **kwargs) if kwargs else shorthand
    return alt.Tooltip(shorthand, title=_(FIELD_WORDS[field]), **kwargs)


def _localized(spec: dict) -> dict:
    """The spec with the current locale's date names (English: as Vega writes them)."""
    config = LOCALE_CONFIG.get(i18n.current())
    return {**spec, "config": {**spec.get("config", {}), **config}} if config else spec


def _spec(chart: alt.TopLevelMixin) -> dict:
    """The chart as a Vega-Lite spec. Not validated here (a third of a chart's time, paid on every build): every
    spec the site publishes is validated against the Vega-Lite schema by a test of the built site
    (tests/integration/test_public_views.py::test_every_published_chart_is_a_valid_vega_lite_spec)."""
    return _localized(chart.to_dict(validate=False))


def bubble_compute_bandwidth(gpus: pd.DataFrame) -> dict:
    unknown = _("unknown")
    data = gpus.dropna(subset=["best_16bit_tflops", "memory_bandwidth_gbs"]).assign(
        architecture=lambda d: d["architecture"].fillna(unknown)
    )
    chart = (
        alt.Chart(data)
        .mark_circle(opacity=0.75, stroke="black", strokeWidth=0.4)
        .encode(
            x=alt.X(
                "memory_bandwidth_gbs:Q",
                title=_("Memory bandwidth (GB/s)"),
                scale=alt.Scale(type="log"),
                axis=alt.Axis(labelOverlap="greedy", format="~s", tickCount=6),
            ),
            y=alt.Y(
                "best_16bit_tflops:Q",
                title=_("Dense BF16/FP16 TFLOPS"),
                scale=alt.Scale(type="log"),
                axis=alt.Axis(labelOverlap="greedy", format="~s", tickCount=6),
            ),
            size=alt.Size("memory_gb:Q", title=_("Memory (GB)"), scale=alt.Scale(range=[30, 900])),
            color=alt.Color("architecture:N", title=_("Architecture")),
            tooltip=[
                alt.Tooltip("name:N", title=_("GPU")),
                _tip("architecture:N"),
                alt.Tooltip("best_16bit_tflops:Q", title=_("dense 16-bit TFLOPS"), format=",.1f"),
                alt.Tooltip("has_tensor_cores:N", title=_("tensor cores")),
                alt.Tooltip("memory_bandwidth_gbs:Q", title=_("bandwidth GB/s"), format=",.0f"),
                alt.Tooltip("memory_gb:Q", title=_("memory GB")),
            ],
        )
        .properties(width=WIDTH, height=380, title=_("Dense 16-bit compute against memory bandwidth"))
    )
    return _spec(chart)


def tflops_per_watt(gpus: pd.DataFrame) -> dict:
    unknown = _("unknown")
    data = gpus.dropna(subset=["best_16bit_tflops", "tdp_w"]).assign(
        tflops_per_watt=lambda d: d["best_16bit_tflops"] / d["tdp_w"],
        architecture=lambda d: d["architecture"].fillna(unknown),
    )
    chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("tflops_per_watt:Q", title=_("Dense 16-bit TFLOPS per watt of TDP")),
            y=alt.Y("name:N", sort="-x", title=None),
            color=alt.Color("architecture:N", title=_("Architecture")),
            tooltip=[
                alt.Tooltip("name:N", title=_("GPU")),
                _tip("tflops_per_watt:Q", format=".3f"),
                alt.Tooltip("tdp_w:Q", title=_("TDP W")),
                _tip("best_16bit_tflops:Q", format=",.1f"),
            ],
        )
        .properties(width=WIDTH, title=_("Efficiency: dense 16-bit TFLOPS per watt"))
    )
    return _spec(chart)


def ranking_components(rankings: pd.DataFrame, weights: pd.DataFrame, workload: str) -> dict:
    comps = weights[weights["workload"] == workload]
    rows = []
    for _i, r in rankings[rankings["workload"] == workload].iterrows():
        for _j, w in comps.iterrows():
            value = r.get(f"{w['component']}_component")
            if pd.notna(value):
                rows.append(
                    {
                        "gpu": gpu_name(r["name"]),
                        "component": w["component"],
                        "points": 100 * w["weight"] * value,
                        "score": r["score"],
                    }
                )
    data = pd.DataFrame(rows)
    name = _(WORKLOADS[workload]) if workload in WORKLOADS else workload.title()
    title = _("%(workload)s score by component") % {"workload": name}
    chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X("sum(points):Q", title=_("Score (0-100)")),
            y=alt.Y("gpu:N", sort=alt.EncodingSortField(field="score", op="max", order="descending"), title=None),
            color=alt.Color("component:N", title=_("Component")),
            tooltip=[
                alt.Tooltip("gpu:N", title=_("GPU")),
                _tip("component:N"),
                _tip("points:Q", format=".1f"),
                _tip("score:Q", format=".1f"),
            ],
        )
        .properties(width=WIDTH, title=title)
    )
    return _spec(chart)


def cost_per_tflop(costs: pd.DataFrame, precision: str) -> dict:
    shown = costs[(costs["precision"] == precision) & (costs["pricing_tier"] == "on-demand")]
    data = shown[["name", "provider", "offering", "usd_per_gpu_hour", "usd_per_tflop_hour"]]
    axis_title = _("$ per dense %(precision)s TFLOP-hour") % {"precision": precision.upper()}
    title = _("On-demand cost per dense %(precision)s TFLOP-hour") % {"precision": precision.upper()}
    chart = (
        alt.Chart(data)
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X(
                "usd_per_tflop_hour:Q",
                title=axis_title,
                scale=alt.Scale(type="log"),
                axis=alt.Axis(labelOverlap="greedy", format="$~g", orient="top"),
            ),
            y=alt.Y("name:N", sort=alt.EncodingSortField(field="usd_per_tflop_hour", op="min"), title=None),
            color=alt.Color("provider:N", title=_("Provider"), scale=provider_scale(shown)),
            tooltip=[
                alt.Tooltip("name:N", title=_("GPU")),
                _tip("provider:N"),
                _tip("offering:N"),
                alt.Tooltip("usd_per_gpu_hour:Q", title=_("$/GPU-hour"), format="$.3f"),
                alt.Tooltip("usd_per_tflop_hour:Q", title=_("$/TFLOP-hour"), format="$.4f"),
            ],
        )
        .properties(width=WIDTH, title=title)
    )
    return _spec(chart)


def token_cost(estimates: pd.DataFrame, model: str, top: int = 20) -> dict:
    """The `top` cheapest deployments (GPU x weight format), one bar each, axis on top as well."""
    data = estimates[(estimates["model_id"] == model) & estimates["single_node"]].dropna(
        subset=["usd_per_million_tokens"]
    )[["name", "precision", "gpus_used", "batch_decode_tokens_per_s", "usd_per_million_tokens"]]
    data = data.nsmallest(top, "usd_per_million_tokens").assign(
        deployment=lambda d: (
            d["gpus_used"].astype(int).astype(str)
            + " × "
            + d["name"].map(gpu_name)
            + " · "
            + d["precision"].str.upper()
        )
    )
    title = _("Serving cost for %(model)s: the %(top)s cheapest deployments of up to 8 GPUs") % {
        "model": model,
        "top": top,
    }
    chart = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(
                "usd_per_million_tokens:Q",
                title=_("$ per million output tokens (cheapest on-demand offer)"),
                axis=alt.Axis(orient="top"),
            ),
            y=alt.Y("deployment:N", sort="x", title=None, axis=alt.Axis(labelLimit=260)),
            color=alt.Color("precision:N", title=_("Weights")),
            tooltip=[
                alt.Tooltip("name:N", title=_("GPU")),
                _tip("precision:N"),
                alt.Tooltip("gpus_used:Q", title=_("GPUs")),
                alt.Tooltip("batch_decode_tokens_per_s:Q", title=_("tokens/s (batch)"), format=",.0f"),
                alt.Tooltip("usd_per_million_tokens:Q", title=_("$/M tokens"), format="$.3f"),
            ],
        )
        .properties(width=WIDTH, title=title)
    )
    return _spec(chart)


def fit_heatmap(fit: pd.DataFrame, title: str) -> dict:
    data = fit.assign(
        needed=fit["gpus_needed"].clip(upper=9),
        label=fit["gpus_needed"].map(lambda n: "" if pd.isna(n) else (str(int(n)) if n <= 8 else ">8")),
    )
    base = alt.Chart().encode(
        x=alt.X(
            "gpu:N",
            title=None,
            sort=alt.EncodingSortField(field="memory_gb", order="descending"),
            axis=alt.Axis(labelAngle=-60, labelLimit=160),
        ),
        y=alt.Y("model:N", title=None, sort=alt.EncodingSortField(field="params_b", order="descending")),
    )
    rect = base.mark_rect().encode(
        color=alt.Color("needed:Q", title=_("GPUs needed"), scale=alt.Scale(scheme="yelloworangered", domain=[1, 9])),
        tooltip=[
            _tip("model:N"),
            _tip("gpu:N"),
            alt.Tooltip("required_gb:Q", title=_("required GB"), format=",.1f"),
            alt.Tooltip("label:N", title=_("GPUs needed")),
        ],
    )
    text = base.mark_text(fontSize=9).encode(
        text="label:N", color=alt.condition("datum.needed >= 6", alt.value("white"), alt.value("black"))
    )
    # one 18 px cell per GPU and per model: the chart is as wide as its data (it scrolls on a phone)
    data_cols = ["gpu", "model", "memory_gb", "params_b", "required_gb", "needed", "label"]
    chart = (rect + text).properties(width=alt.Step(18), height=alt.Step(16), title=title)
    spec = _spec(chart.properties(data=alt.Data(values=[])))
    spec["data"] = {"values": data[data_cols].to_dict(orient="records")}
    return spec
