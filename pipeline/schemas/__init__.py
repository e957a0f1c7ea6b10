"""Schemas: the single source of truth for columns, units and the rules each source must obey.

Raw tables hold the files' text as it was read; these pandera schemas coerce a copy and report
every broken rule at once (lazy validation). Rules that look across rows (sparse = 2 x dense,
tensor >= vector) are dataframe checks that return one boolean per row, so a failure still
names the file and line. One module per kind of source: `specs`, `prices`, `models`, `measurements`; what
they share is in `common`.
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from ..errors import Problem
from .common import ENGINE_FORMATS, NATIVE_FORMATS, PRECISIONS, TIERS, file_columns
from .measurements import measurements_schema, serving_measurements_schema, training_measurements_schema
from .models import models_schema
from .prices import aliases_schema, clusters_schema, fx_rates_schema, prices_schema
from .specs import claims_schema, gpus_schema, model_claims_schema, spec_figures_schema

__all__ = ["ENGINE_FORMATS", "NATIVE_FORMATS", "PRECISIONS", "RAW_SCHEMAS", "TIERS", "file_columns", "validate"]


RAW_SCHEMAS = {
    "gpus": gpus_schema,
    "spec_figures": spec_figures_schema,
    "claims": claims_schema,
    "model_claims": model_claims_schema,
    "prices": prices_schema,
    "fx_rates": fx_rates_schema,
    "aliases": aliases_schema,
    "clusters": clusters_schema,
    "models": models_schema,
    "measurements": measurements_schema,
    "serving_measurements": serving_measurements_schema,
    "training_measurements": training_measurements_schema,
}


def validate(schema: pa.DataFrameSchema, frame: pd.DataFrame) -> list[Problem]:
    """Validate a raw frame (text as read, with source_file/source_row) and name every failure."""
    if frame.empty:
        return []
    try:
        schema.validate(frame.copy(), lazy=True)
        return []
    except pa.errors.SchemaErrors as exc:
        cases = exc.failure_cases
    problems: list[Problem] = []
    files = frame["source_file"]
    rows = frame["source_row"]
    frame_checks = {str(c.error) for c in schema.checks if c.error} | {str(c.name) for c in schema.checks}
    for case in cases.itertuples(index=False):
        index = case.index
        # a dataframe-wide rule is reported once per row, not once per column of the row
        column = case.column if case.column in frame.columns and str(case.check) not in frame_checks else None
        has_row = index is not None and not (isinstance(index, float) and pd.isna(index)) and index in frame.index
        file = files.loc[index] if has_row else ", ".join(sorted(set(files)))
        row = int(rows.loc[index]) if has_row else None
        check = str(case.check)
        value = (
            None
            if case.failure_case is None or (isinstance(case.failure_case, float) and pd.isna(case.failure_case))
            else str(case.failure_case)
        )
        if column is None and has_row:
            value = None  # a row-wise dataframe check: the rule names what is wrong
        if check.startswith("coerce_dtype") or "dtype" in check:
            rule = f"cannot be read as {check.split('(')[-1].rstrip(')')}"
        elif check == "field_uniqueness" or check == "multiple_fields_uniqueness":
            rule = "duplicate key: another row has the same " + (column or ", ".join(schema.unique or []))
        elif check == "not_nullable":
            rule = "required value is missing"
        else:
            rule = check
        if not has_row and value and value.startswith("TypeError("):
            continue  # a check that could not run because the column failed to coerce
        problems.append(Problem(file, row, column, rule, value))
    # pandera reports each duplicated row of a multi-column key; keep one line per row
    seen, out = set(), []
    for p in problems:
        if (p.file, p.row, p.column, p.rule) not in seen:
            seen.add((p.file, p.row, p.column, p.rule))
            out.append(p)
    return sorted(out, key=lambda p: (p.file, p.row or 0, p.column or ""))
