"""Cloud prices (`prices.md`): every current offer, the providers and their snapshots, and the one price used per
GPU and tier; and What changed (`changes.md`): offers added, removed, replaced, repriced and renamed between each
provider's two latest snapshots."""

from __future__ import annotations

import duckdb
import pandas as pd

from .. import price_charts
from ..markets import china_first, is_china_offer, is_china_pick, is_china_provider
from ..family import Family, param_values
from ..i18n import _

FAMILY = Family(__file__)


def context(
    offers: pd.DataFrame,
    history: pd.DataFrame,
    picks: pd.DataFrame,
    providers: pd.DataFrame,
    parameters: pd.DataFrame,
    unpriced: pd.DataFrame | None = None,
) -> dict:
    """The Cloud prices page's values: offers, providers, picks, the price-history chart, the pick rules and the GPUs
    teams rent that have no on-demand pick, with why (`unpriced`)."""
    params = param_values(parameters.itertuples(index=False))
    return {
        # the Chinese edition shows the China-mainland market's rows first (English: the order of the queries)
        "offers": china_first(list(offers.itertuples(index=False)), is_china_offer),
        "providers": china_first(list(providers.itertuples(index=False)), is_china_provider),
        # a provider whose every current price is older than the freshness rule: listed, never used
        "stale_providers": [p for p in providers.itertuples(index=False) if p.all_stale],
        "picks": china_first(list(picks.itertuples(index=False)), is_china_pick),
        "history_chart": (
            price_charts.price_history_picker(history, _("Price history (offers seen in more than one snapshot)"))
            if len(history)
            else None
        ),
        "max_age": int(params["price_max_age_days"]),
        "min_sample": int(params["marketplace_min_sample"]),
        "unpriced": [] if unpriced is None else list(unpriced.itertuples(index=False)),
    }


def changes_context(changes: pd.DataFrame, counts: pd.DataFrame, uncompared: pd.DataFrame) -> dict:
    """The What changed page's values: per-provider counts, the offers that changed, those not compared."""
    return {
        "changes": list(changes.itertuples(index=False)),
        "counts": list(counts.itertuples(index=False)),
        "uncompared": list(uncompared.itertuples(index=False)),
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    prices = context(
        FAMILY.frame(con, "offers"),
        FAMILY.frame(con, "history"),
        FAMILY.frame(con, "picks"),
        FAMILY.frame(con, "providers"),
        FAMILY.frame(con, "parameters"),
        FAMILY.frame(con, "unpriced"),
    )
    changes = changes_context(
        FAMILY.frame(con, "changes"), FAMILY.frame(con, "change_counts"), FAMILY.frame(con, "uncompared")
    )
    return {
        "prices.md": FAMILY.render("prices.md.j2", **prices),
        "changes.md": FAMILY.render("changes.md.j2", **changes),
    }
