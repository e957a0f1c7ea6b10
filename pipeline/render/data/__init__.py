"""The Data pages: `data.md` (the downloads, the JSON files and the feed, example SQL, and every public view with
its grain and how many rows it holds) and `views.md`, the View reference (each view's grain, what it holds, and
each column's type, unit and meaning, from the contract of the table the view shows: pipeline/sql/<layer>/<table>.yml).
Views are listed by name. The reference changes only with the code, so a price refresh leaves it as it is; the row
counts, which change with the data, are on the Data page.

The contract is an English data dictionary: in the Chinese edition the views' grains, contents and column meanings
stay in English (marked `lang="en"`); the page's own texts and the example queries' comments are translated."""

from __future__ import annotations

import duckdb
import pandas as pd
from markupsafe import Markup

from pipeline.contract import VIEWS, column_doc, column_unit, downloads

from ..family import Family
from ..i18n import N_, _

FAMILY = Family(__file__, reads=set(VIEWS))

# the example queries: what each does (a comment, translated where shown) and its SQL
EXAMPLES = [
    (
        N_("dense BF16 and memory, fastest first"),
        "select name, bf16_tflops, memory_gb from gpus order by bf16_tflops desc nulls last;",
    ),
    (
        N_("which GPUs run Llama 3.3 70B with FP8 weights at 32k context on one card"),
        "select gpu_id, required_gb, fits_one_gpu from vram_fit\n"
        "where model_id = 'llama-3.3-70b' and workload = 'inference' and precision = 'fp8'\n"
        "  and kv_precision = 'bf16' and context_tokens = 32768 and batch_size = 1 and gpu_count = 1;",
    ),
    (
        N_("cheapest dense BF16 TFLOP-hour right now"),
        "select gpu_id, provider, offering, usd_per_tflop_hour from cost_per_tflop\n"
        "where precision = 'bf16' and pricing_tier = 'on-demand' order by usd_per_tflop_hour limit 10;",
    ),
]


def examples() -> Markup:
    """The example queries as a fenced SQL block (our own text: printed as it is, no escape shows in code)."""
    lines = []
    for comment, sql in EXAMPLES:
        said = _(comment)
        lines += [f"-- {said}", sql]
    return Markup("```sql\n" + "\n".join(lines) + "\n```")


def row_counts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Rows in each public view, in one query."""
    sql = " union all ".join(f"select '{view}' as view_name, count(*) as n from {view}" for view in VIEWS)
    return dict(con.execute(sql).fetchall())


def context(columns: pd.DataFrame, counts: dict[str, int], files: list[str]) -> dict:
    by_view = {view: list(group.itertuples(index=False)) for view, group in columns.groupby("view_name", sort=False)}
    return {
        "examples": examples(),
        "downloads": files,
        "views": [
            {
                "name": view,
                # the view's section in the reference (a view's name is ours, letters and '_': no escape needed)
                "anchor": Markup(view),
                "grain": grain,
                "holds": holds,
                "rows": counts[view],
                "columns": [
                    {
                        "name": c.column_name,
                        "type": c.data_type,
                        "unit": column_unit(view, c.column_name) or "",
                        "meaning": column_doc(view, c.column_name) or "",
                    }
                    for c in by_view.get(view, [])
                ],
            }
            for view, (grain, holds) in VIEWS.items()
        ],
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    ctx = context(FAMILY.frame(con, "view_columns"), row_counts(con), downloads())
    return {"data.md": FAMILY.render("data.md.j2", **ctx), "views.md": FAMILY.render("views.md.j2", **ctx)}
