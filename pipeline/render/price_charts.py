"""The price-history charts (a GPU page's, and the Prices page's with a GPU picker): one line per offer, coloured
by provider as on every chart (each row's provider_colour, see charts.provider_scale), each point saying the offer
and its dated price."""

from __future__ import annotations

import copy
import functools

import altair as alt
import pandas as pd

from . import i18n
from .charts import WIDTH, _spec, _tip, provider_scale
from .i18n import _

OFFER = ["provider", "offering", "pricing_tier", "statistic", "region"]


def offer_lines(history: pd.DataFrame) -> pd.DataFrame:
    """The history with its line (provider · tier · statistic · region · offering) and its day. A page with many
    charts adds them once, to all its rows, and passes each chart its slice."""
    return history.assign(
        series=history["provider"]
        + " · "
        + history["pricing_tier"]
        + " · "
        + history["statistic"]
        + " · "
        + history["region"]
        + " · "
        + history["offering"],
        observed_on=history["observed_on"].astype(str).str[:10],
    )


def _lines(base: alt.Chart) -> alt.LayerChart:
    """Lines with a point per observation, the point's shape the tier."""
    points = base.mark_point(filled=True, size=45).encode(
        shape=alt.Shape("pricing_tier:N", title=_("Tier"), legend=alt.Legend(orient="bottom"))
    )
    return alt.layer(base.mark_line(), points)


def _encoding(scale: alt.Scale) -> dict:
    return {
        "x": alt.X("observed_on:T", title=_("Observed on")),
        "y": alt.Y("usd_per_gpu_hour:Q", title=_("$ per GPU-hour")),
        "color": alt.Color(
            "provider:N", title=_("Provider"), scale=scale, legend=alt.Legend(orient="bottom", columns=5)
        ),
        "detail": "series:N",
        "tooltip": _offer_tooltip(),
    }


def _offer_tooltip() -> list:
    """What a point of a price-history line says: the offer and its dated price (in the current locale)."""
    return [
        _tip("provider:N"),
        _tip("offering:N"),
        _tip("pricing_tier:N"),
        _tip("statistic:N"),
        _tip("region:N"),
        alt.Tooltip("observed_on:T", title=_("observed")),
        alt.Tooltip("usd_per_gpu_hour:Q", title=_("$/GPU-hour"), format="$.3f"),
    ]


def _price_history_template() -> dict:
    """The price-history chart of the current locale."""
    return _price_history_spec(i18n.current())


@functools.cache
def _price_history_spec(locale: str) -> dict:
    """The price-history chart, validated once; each page fills in its own data and title. One line per offer
    (provider, tier, statistic, region, offering); colour is the provider and the point's shape the tier, so
    the legend stays readable however many offers a GPU has."""
    base = alt.Chart(alt.Data(values=[])).encode(**_encoding(alt.Scale(domain=[], range=[])))
    return _spec(_lines(base).properties(width=WIDTH, height=260, title=""))


def price_history(history: pd.DataFrame, title: str) -> dict:
    """One GPU's chart. `history`: its price_history rows, or their offer_lines (see there)."""
    lines = history if "series" in history.columns else offer_lines(history)
    data = lines[["series", *OFFER, "observed_on", "usd_per_gpu_hour"]]
    spec = copy.deepcopy(_price_history_template())
    spec["data"] = {"values": data.to_dict(orient="records")}
    scale = provider_scale(lines).to_dict(validate=False)  # checked with the page's charts (_spec)
    for layer in spec.get("layer", [spec]):  # the colours of the providers this chart shows
        if "color" in layer.get("encoding", {}):
            layer["encoding"]["color"]["scale"] = scale
    spec["title"] = title
    return spec


def price_history_picker(history: pd.DataFrame, title: str) -> dict:
    """Price history of one GPU at a time, chosen in a picker above the chart."""
    lines = offer_lines(history)
    data = lines[["name", "series", *OFFER, "observed_on", "usd_per_gpu_hour"]]
    names = sorted(data["name"].unique())
    busiest = data.groupby("name")["series"].nunique().idxmax()
    gpu = alt.param(name="gpu", value=busiest, bind=alt.binding_select(options=names, name="GPU "))
    base = alt.Chart(data).transform_filter("datum.name == gpu").encode(**_encoding(provider_scale(lines)))
    return _spec(_lines(base).add_params(gpu).properties(width=WIDTH, height=260, title=title))
