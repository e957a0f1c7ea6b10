"""Compare (`compare.md`): two to four GPUs side by side, their figures, cheapest current prices, the largest
models that fit and the serving speed of a reference model. The page is a form: its script reads the JSON files
under api/v1/ and keeps the choice in the address."""

from __future__ import annotations

import duckdb
import pandas as pd

from ..family import Family

FAMILY = Family(__file__)
PICKERS = 4  # GPUs one can compare at once


def context(gpus: pd.DataFrame) -> dict:
    return {"gpus": list(gpus.itertuples()), "pickers": range(PICKERS)}


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return {"compare.md": FAMILY.render("compare.md.j2", **context(FAMILY.frame(con, "gpus")))}
