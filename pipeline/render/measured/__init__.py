"""Measured against estimated (`measured.md`): every decode and serving speed estimate against the published
measurements, with the calibrations the expectations use and how well they predict each GPU and publication."""

from __future__ import annotations

import re

import duckdb
import pandas as pd

from ..family import Family
from ..i18n import N_, _

FAMILY = Family(__file__)

# (model, format) pairs whose single-GPU, batch-1 expectations are ranked against the measurements
CHECKS = [
    ("llama-2-7b", "q4_0"),
    ("llama-2-7b", "bf16"),
    ("llama-3-8b", "q4_k_m"),
    ("llama-3-8b", "bf16"),
    ("llama-3-70b", "q4_k_m"),
    ("llama-3.1-8b", "q4_k_m"),
]

# how the views word a calibration's scope and an engine family's label (out_decode_calibration.sql,
# out_serving_calibration.sql), to show them in the page's language
DECODE_SCOPE = re.compile(r"llama\.cpp on (.+)")
ENGINE_FAMILIES = {"vllm-sglang": N_("vLLM and SGLang"), "tensorrt-llm": "TensorRT-LLM"}
QUANTITIES = {
    "throughput": N_("output tokens/s per GPU"),
    "per_user": N_("tokens/s per user"),
    "ttft": N_("time to first token"),
}
MODEL_KINDS = {"dense": N_("%(engines)s, dense models"), "moe": N_("%(engines)s, mixture-of-experts models")}


def scope_label(scope):
    """A decode calibration's scope ('llama.cpp on Ada Lovelace') in the current language; a wording the view
    does not write today is shown as written."""
    if scope == "llama.cpp on all architectures":
        return _("llama.cpp on all architectures")
    found = DECODE_SCOPE.fullmatch(scope) if isinstance(scope, str) else None
    if found is None:
        return scope
    return _("llama.cpp on %(architecture)s") % {"architecture": found.group(1)}


def serving_label(label, engine_family, model_kind):
    """An engine family's row label ('vLLM and SGLang, dense models') in the current language; a label other than
    the one the view writes for its engine family and model kind is shown as written."""
    engines, kind = ENGINE_FAMILIES.get(engine_family), MODEL_KINDS.get(model_kind)
    if engines is None or kind is None or kind % {"engines": engines} != label:
        return label
    return family_label(engine_family, model_kind)


def family_name(engine_family):
    """'vLLM and SGLang' or 'TensorRT-LLM' in the current language (an id the page knows no words for as written)."""
    engines = ENGINE_FAMILIES.get(engine_family)
    if engines is None:
        return engine_family
    return engines if engines == "TensorRT-LLM" else _(engines)  # a name, not translated


def family_label(engine_family, model_kind):
    """'vLLM and SGLang, dense models' for an engine family and model kind, in the current language (the ids as
    written where the page knows no words for them)."""
    engines, kind = ENGINE_FAMILIES.get(engine_family), MODEL_KINDS.get(model_kind)
    if engines is None or kind is None:
        return f"{engine_family}, {model_kind}"
    return _(kind) % {"engines": family_name(engine_family)}


def accuracy(rows: pd.DataFrame) -> dict:
    """Spearman rank correlation of expected vs measured across GPUs (one row per GPU) and the median
    |expected / measured - 1|; none below three GPUs."""
    if len(rows) < 3:
        return {"gpus": len(rows), "spearman": None, "median_abs_error": None}
    rho = rows["expected"].rank().corr(rows["measured"].rank())  # Spearman: Pearson on ranks
    err = (rows["expected"] / rows["measured"] - 1).abs().median()
    return {"gpus": len(rows), "spearman": float(rho), "median_abs_error": float(err)}


def serving_accuracy(rows: pd.DataFrame) -> list[dict]:
    """Per publication (a source snapshot: a publisher's table or post, all its releases together) and engine
    family: throughput figures, GPUs, the median |expected / measured - 1| with each figure's expectation fitted
    without its GPU, and Spearman's rho between expected and measured over the figures, with the share of its
    bound the best figure reaches."""
    out = []
    for (snapshot, family), part in rows.groupby(["snapshot_id", "engine_family"], sort=True):
        rho = part["expected"].rank().corr(part["measured"].rank()) if len(part) >= 3 else None
        title = part["title"].iloc[0]
        out.append(
            {
                "title": str(title or snapshot),
                "url": part["url"].iloc[0],
                "engine_family": family,
                "figures": len(part),
                "current": int(part["current_engine"].sum()),
                "gpus": part["gpu_id"].nunique(),
                "median_abs_error": float((part["expected"] / part["measured"] - 1).abs().median()),
                "spearman": None if rho is None or pd.isna(rho) else float(rho),
                "max_share": float(part["measured_share_of_bound"].max()),
            }
        )
    return out


def context(
    totals: pd.DataFrame,
    accuracy_rows: pd.DataFrame,
    calibration: pd.DataFrame,
    by_family: pd.DataFrame,
    measurements: pd.DataFrame,
    serving_totals: pd.DataFrame,
    serving_calibration: pd.DataFrame,
    serving_levels: pd.DataFrame,
    serving_reproducibility: pd.DataFrame,
    serving_rows: pd.DataFrame,
    serving_detail: pd.DataFrame,
) -> dict:
    checks = []
    for model_id, fmt in CHECKS:
        part = accuracy_rows[(accuracy_rows["model_id"] == model_id) & (accuracy_rows["format"] == fmt)]
        checks.append({"model_id": model_id, "format": fmt, **accuracy(part)})
    calibration = calibration.assign(calibration_scope=calibration["calibration_scope"].map(scope_label))
    if {"engine_family", "model_kind"} <= set(serving_calibration.columns):
        serving_calibration = serving_calibration.assign(
            label=[
                serving_label(*row)
                for row in serving_calibration[["label", "engine_family", "model_kind"]].itertuples(index=False)
            ]
        )
    return {
        "totals": next(totals.itertuples(index=False)),
        "checks": checks,
        "calibration": list(calibration.itertuples(index=False)),
        "by_family": list(by_family.itertuples(index=False)),
        "measurements": list(measurements.itertuples(index=False)),
        "serving": next(serving_totals.itertuples(index=False)),
        "serving_calibration": list(serving_calibration.itertuples(index=False)),
        "serving_levels": [
            row._replace(engine_family=family_name(row.engine_family)) for row in serving_levels.itertuples(index=False)
        ],
        "serving_reproducibility": [
            row._replace(
                engine_family=family_label(row.engine_family, row.model_kind),
                quantity=_(QUANTITIES[row.quantity]) if row.quantity in QUANTITIES else row.quantity,
            )
            for row in serving_reproducibility.itertuples(index=False)
        ],
        "serving_accuracy": serving_accuracy(serving_rows),
        "serving_detail": list(serving_detail.itertuples(index=False)),
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    names = (
        "totals",
        "accuracy",
        "decode_calibration",
        "by_family",
        "measurements",
        "serving_totals",
        "serving_calibration",
        "serving_levels",
        "serving_reproducibility",
        "serving_accuracy",
        "serving_detail",
    )
    ctx = context(*(FAMILY.frame(con, name) for name in names))
    return {"measured.md": FAMILY.render("measured.md.j2", **ctx)}
