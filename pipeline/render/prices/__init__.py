"""Cloud prices (`prices.md`): every current offer, the providers and their snapshots, and the one price used per
GPU and tier; and What changed (`changes.md`): offers added, removed, replaced, repriced and renamed between each
provider's two latest snapshots."""

from __future__ import annotations

import duckdb
import pandas as pd

from .. import charts
from ..family import Family, param_values

FAMILY = Family(__file__)


def context(
    offers: pd.DataFrame,
    history: pd.DataFrame,
    picks: pd.DataFrame,
    providers: pd.DataFrame,
    parameters: pd.DataFrame,
) -> dict:
    """The Cloud prices page's values: offers, providers, picks, the price-history chart and the pick rules."""
    params = param_values(parameters.itertuples(index=False))
    return {
        "offers": list(offers.itertuples(index=False)),
        "providers": list(providers.itertuples(index=False)),
        "picks": list(picks.itertuples(index=False)),
        "history_chart": (
            charts.price_history_picker(history, "Price history (offers seen in more than one snapshot)")
            if len(history)
            else None
        ),
        "max_age": int(params["price_max_age_days"]),
        "min_sample": int(params["marketplace_min_sample"]),
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
    )
    changes = changes_context(
        FAMILY.frame(con, "changes"), FAMILY.frame(con, "change_counts"), FAMILY.frame(con, "uncompared")
    )
    return {
        "prices.md": FAMILY.render("prices.md.j2", **prices),
        "changes.md": FAMILY.render("changes.md.j2", **changes),
    }
