"""JSON the way every file under api/v1/ is written (the Planner's files too): compact, UTF-8, no NaN; numbers
rounded to 4 significant digits unless a file needs them at full precision, dates as YYYY-MM-DD."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd


def clean(value, digits: int | None = 4):
    """One value as JSON can hold it: None for a missing or infinite number, a date as YYYY-MM-DD."""
    if isinstance(value, (str, bool, int)):  # the commonest values first (bool and int: a number as it is)
        return value
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


def column(series: pd.Series, digits: int | None = 4) -> list:
    """One column's values as `clean` gives them, a whole column at a time: a float column is rounded without
    the per-value dispatch (the API's largest files are mostly floats), any other column goes through `clean`."""
    values = series.tolist()
    if isinstance(series.dtype, np.dtype) and series.dtype.kind == "f":
        if not digits:
            return [v if math.isfinite(v) else None for v in values]
        spec = f".{digits}g"
        return [float(format(v, spec)) if math.isfinite(v) else None for v in values]
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub":
        return values
    return [clean(v, digits) for v in values]


def records(frame: pd.DataFrame) -> list[dict]:
    """A frame as one object per row, numbers to 4 significant digits."""
    names = list(frame.columns)
    columns = [column(frame.iloc[:, i]) for i in range(len(names))]
    return [dict(zip(names, row)) for row in zip(*columns)]


def columns_rows(frame: pd.DataFrame) -> dict:
    """A frame as {columns, rows} with every number at full precision (the page computes from them)."""
    columns = [column(frame.iloc[:, i], None) for i in range(frame.shape[1])]
    return {"columns": list(frame.columns), "rows": [list(row) for row in zip(*columns)]}
