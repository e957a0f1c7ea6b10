"""Methodology (`methodology.md`): how every number on the site is made (spec figures, models and weights, memory,
speed and cost, the Planner, rankings), the ranking weights and every parameter with its citation."""

from __future__ import annotations

import duckdb
import pandas as pd

from ..family import Family

FAMILY = Family(__file__)


def context(weights: pd.DataFrame, parameters: pd.DataFrame) -> dict:
    return {
        "weights": list(weights.itertuples(index=False)),
        "parameters": list(parameters.itertuples(index=False)),
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    ctx = context(FAMILY.frame(con, "ranking_weights"), FAMILY.frame(con, "parameters"))
    return {"methodology.md": FAMILY.render("methodology.md.j2", **ctx)}
