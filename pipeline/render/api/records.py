"""JSON the way every file under api/v1/ is written (the Planner's files too): compact, UTF-8, no NaN; numbers
rounded to 4 significant digits unless a file needs them at full precision, dates as YYYY-MM-DD."""

from __future__ import annotations

import json
import math

import pandas as pd


def clean(value, digits: int | None = 4):
    """One value as JSON can hold it: None for a missing or infinite number, a date as YYYY-MM-DD."""
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return float(f"{value:.{digits}g}") if digits else value
    if hasattr(value, "isoformat"):
        return value.isoformat()[:10]
    if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0):
        return [clean(v, digits) for v in list(value)]  # list columns (a snapshot's scope)
    if hasattr(value, "item"):
        return clean(value.item(), digits)
    return value


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def records(frame: pd.DataFrame) -> list[dict]:
    """A frame as one object per row, numbers to 4 significant digits."""
    return [{k: clean(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def columns_rows(frame: pd.DataFrame) -> dict:
    """A frame as {columns, rows} with every number at full precision (the page computes from them)."""
    return {
        "columns": list(frame.columns),
        "rows": [[clean(v, None) for v in row] for row in frame.itertuples(index=False, name=None)],
    }
