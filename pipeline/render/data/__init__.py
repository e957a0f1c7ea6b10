"""The Data page (`data.md`): the downloads, the JSON files and the feed, example SQL, and the reference of every
public view (its grain, what it holds, and each column's type and meaning from `pipeline/contract.yml`)."""

from __future__ import annotations

import duckdb
import pandas as pd

from pipeline.contract import VIEWS, column_doc, downloads

from ..family import Family

FAMILY = Family(__file__, reads=set(VIEWS))


def row_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Rows in each public view, in one query."""
    sql = " union all ".join(f"select '{view}' as view_name, count(*) as n from {view}" for view in VIEWS)
    return dict(con.execute(sql).fetchall())


def context(columns: pd.DataFrame, counts: dict[str, int], files: list[str]) -> dict:
    by_view = {view: list(group.itertuples(index=False)) for view, group in columns.groupby("view_name", sort=False)}
    return {
        "downloads": files,
        "views": [
            {
                "name": view,
                "grain": grain,
                "holds": holds,
                "rows": counts[view],
                "columns": [
                    {"name": c.column_name, "type": c.data_type, "meaning": column_doc(view, c.column_name) or ""}
                    for c in by_view.get(view, [])
                ],
            }
            for view, (grain, holds) in VIEWS.items()
        ],
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    ctx = context(FAMILY.frame(con, "view_columns"), row_counts(con), downloads())
    return {"data.md": FAMILY.render("data.md.j2", **ctx)}
