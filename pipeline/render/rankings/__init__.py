"""The rankings (`training.md`, `inference.md`): every GPU's score per workload with each weighted component,
its cheapest price and value; the inference page adds the reference model's serving cost, the training page the
cost of fine-tuning Llama 3.1 8B and where its training speeds come from (utilisation calibrated on published
runs, and the runs the calibration leaves out beside their estimates). And the cost per TFLOP (`cost-per-tflop.md`):
$ per dense TFLOP-hour at each precision for every GPU's price picks.

A page family: `queries.sql` (over the public views), `context()` and `cost_context()` (query results to the
templates' values), `ranking.md.j2` (with `calibration.md.j2` on the training page) and `cost-per-tflop.md.j2`.
"""

from __future__ import annotations

import re

import duckdb
import pandas as pd

from .. import charts
from ..family import Family, param_values
from ..i18n import _

FAMILY = Family(__file__)
WORKLOADS = ("training", "inference")
# how the training_calibration view words the line an unmeasured GPU sits on
FITTED_LINE = re.compile(r"fitted on (\d+) measured GPUs by TFLOPS per GB/s of memory bandwidth")


def line_label(line: str | None) -> str:
    """The calibration line's basis in the current language (plain text: the template escapes it); a wording the
    view does not write today is shown as the view writes it."""
    if not isinstance(line, str):
        return _("no line")
    fitted = FITTED_LINE.fullmatch(line)
    if fitted is None:
        return line
    return _("fitted on %(n)s measured GPUs by TFLOPS per GB/s of memory bandwidth") % {"n": fitted.group(1)}


def calibration(measured: pd.DataFrame, line: str | None, checks: pd.DataFrame) -> dict:
    """Where the training speeds come from: the measured GPUs, the line the others sit on, and the outside checks
    (a pretraining run of a measured GPU is left out: it is that GPU's calibration)."""
    runs = int(measured["runs"].sum()) if len(measured) else 0
    measured_ids = set(measured["gpu_id"])
    return {
        "runs": runs,
        "gpus": list(measured.itertuples(index=False)),
        "median_error": measured["held_out_error"].abs().median() if runs else None,
        "line": line_label(line),
        "checks": [
            {"row": r, "error": r.expected_tokens_per_s_per_gpu / r.measured_tokens_per_s_per_gpu - 1}
            for r in checks.itertuples(index=False)
            if r.method != "pretrain" or r.gpu_id not in measured_ids
        ],
    }


def context(
    workload: str,
    ranks: pd.DataFrame,
    weights: pd.DataFrame,
    parameters,
    serving: pd.DataFrame | None = None,
    finetune: pd.DataFrame | None = None,
    measured: pd.DataFrame | None = None,
    line: str | None = None,
    checks: pd.DataFrame | None = None,
) -> dict:
    """A ranking page's values. `parameters`: rows of the `parameters` view (name, value); the inference page
    takes `serving` (the reference model's estimates), the training page `finetune`, `measured`, `line` and
    `checks` (the calibration)."""
    comps = list(weights["component"])
    params = param_values(parameters)
    ctx = {
        "workload": workload,
        "value_max_gpus": int(float(params["value_max_gpus"])),
        "weights": list(weights.itertuples(index=False)),
        "components": comps,
        "ranks": [
            {"row": r, "components": [getattr(r, f"{c}_component") for c in comps]}
            for r in ranks.itertuples(index=False)
        ],
        "rank_chart": charts.ranking_components(ranks, weights, workload),
    }
    if workload == "inference":
        model = params["reference_model"]
        ctx["serving"] = {
            "model": model,
            "batch": int(params["serving_batch"]),
            "context_tokens": int(params["reference_context"]),
            "chart": charts.token_cost(serving, model),
        }
    else:
        ctx["finetune"] = list(finetune.itertuples(index=False))
        ctx["finetune_model"] = (
            finetune["model_name"].iloc[0] if len(finetune) else params.get("reference_training_model")
        )
        ctx["finetune_billions"] = params["finetune_tokens"] / 1e9
        ctx["calibration"] = {
            **calibration(measured, line, checks),
            "min_context": int(params["training_calibration_min_context"]),
            "max_context": int(params["training_calibration_max_context"]),
        }
    return ctx


def cost_context(costs: pd.DataFrame) -> dict:
    """The cost-per-TFLOP page's values: the BF16 chart and the ten cheapest on-demand picks per precision."""
    best = costs[costs.pick == "on-demand"].sort_values("usd_per_tflop_hour").groupby("precision").head(10)
    return {"chart_spec": charts.cost_per_tflop(costs, "bf16"), "best": list(best.itertuples(index=False))}


def ranking_page(con: duckdb.DuckDBPyConnection, workload: str) -> str:
    parameters = FAMILY.rows(con, "parameters")
    if workload == "inference":
        extra = {"serving": FAMILY.frame(con, "serving")}
    else:
        line = FAMILY.rows(con, "calibration_line")
        extra = {
            "finetune": FAMILY.frame(con, "finetune"),
            "measured": FAMILY.frame(con, "calibration"),
            "line": line[0].basis if line else None,
            "checks": FAMILY.frame(con, "outside_checks"),
        }
    ranks = FAMILY.frame(con, "rankings", workload)
    weights = FAMILY.frame(con, "ranking_weights", workload)
    return FAMILY.render("ranking.md.j2", **context(workload, ranks, weights, parameters, **extra))


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    pages = {f"{w}.md": ranking_page(con, w) for w in WORKLOADS}
    costs = FAMILY.frame(con, "cost_per_tflop")
    pages["cost-per-tflop.md"] = FAMILY.render("cost-per-tflop.md.j2", **cost_context(costs))
    return pages
