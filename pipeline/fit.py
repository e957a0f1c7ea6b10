"""`gpu-atlas fit`: one model and setting against every GPU, with the same SQL as the site."""

from __future__ import annotations

import difflib
from pathlib import Path

import duckdb
import pandas as pd

from .db import create_table_from_sql, path_literal
from .schemas import ENGINE_FORMATS
from .steps import define_macros

PARTS = ["weights_gb", "kv_cache_gb", "gradients_gb", "optimizer_gb", "activations_gb", "overhead_gb"]
# the inputs `fit` takes, declared once for the command line and the MCP server
WORKLOADS = ("inference", "training")
# the Planner's workloads (plan.WORKLOADS), which fit takes too: serving is inference, a fine-tune or pre-training is
# training with its method (pre-training: full)
PLAN_WORKLOADS = {
    "serve": ("inference", None),
    "full": ("training", "full"),
    "lora": ("training", "lora"),
    "qlora": ("training", "qlora"),
    "pretrain": ("training", "full"),
}
SERVING_FORMATS = (*ENGINE_FORMATS, "q8_0", "q4_0", "q4_k_m", "fp32")
# the weight format each training method keeps its frozen or trained weights in
TRAINING_FORMATS = {"full": "bf16", "lora": "bf16", "qlora": "nf4"}
KV_PRECISIONS = ("bf16", "fp8")
RECOMPUTE = ("none", "selective", "full")
LIMITS = {"context": (1, 10_000_000), "batch": (1, 65_536)}


class FitInputError(ValueError):
    """An input `fit` does not take; `option` names the command-line option."""

    def __init__(self, option: str, message: str):
        super().__init__(f"Invalid value for {option}: {message}")
        self.option, self.message = option, message


def fit_inputs(
    workload: str,
    precision: str | None,
    context: int,
    batch: int,
    kv_precision: str = "bf16",
    method: str | None = None,
    recompute: str | None = None,
) -> tuple[str, str, str, str]:
    """(workload, precision, method, recompute) with their defaults (a Planner workload such as `lora` read as
    training with that method), or FitInputError naming the first input `fit` refuses."""

    def one_of(option: str, value, valid) -> None:
        if value not in valid:
            raise FitInputError(option, f"must be one of {', '.join(valid)} (got {value!r})")

    one_of("--workload", workload, (*WORKLOADS, *PLAN_WORKLOADS))
    if workload in PLAN_WORKLOADS:
        workload, implied = PLAN_WORKLOADS[workload]
        if implied and method not in (None, implied):
            raise FitInputError("--method", f"the workload is a {implied} training (got --method {method})")
        method = implied or method
    for option, value in (("--context", context), ("--batch", batch)):
        low, high = LIMITS[option[2:]]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise FitInputError(option, f"must be a whole number from {low:,} to {high:,} (got {value!r})")
    one_of("--kv-precision", kv_precision, KV_PRECISIONS)
    if workload == "inference":
        if method not in (None, "lora") or recompute not in (None, "full"):
            raise FitInputError("--method/--recompute", "they apply to --workload training only")
        precision = (precision or "bf16").lower()
        one_of("--precision", precision, SERVING_FORMATS)
        return workload, precision, "lora", "full"
    # recomputation as the training estimates and the Planner take it: selective for a full update, none for LoRA/QLoRA
    method = method or "lora"
    recompute = recompute or ("selective" if method == "full" else "none")
    one_of("--method", method, tuple(TRAINING_FORMATS))
    one_of("--recompute", recompute, RECOMPUTE)
    wanted = TRAINING_FORMATS[method]
    if precision is not None and precision.lower() != wanted:
        raise FitInputError(
            "--precision",
            f"{method} training keeps its weights in {wanted}; omit --precision (valid methods and their formats: "
            + ", ".join(f"{k} {v}" for k, v in TRAINING_FORMATS.items())
            + ")",
        )
    return workload, wanted, method, recompute


def resolve_model(database: Path, model: str) -> str:
    """The model_id a user meant: exact, or case-insensitive; otherwise an error with the closest ids."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        known = [r[0] for r in con.execute("select model_id from core_models order by 1").fetchall()]
    finally:
        con.close()
    if model in known:
        return model
    lowered = {k.lower(): k for k in known}
    if model.strip().lower() in lowered:
        return lowered[model.strip().lower()]
    close = difflib.get_close_matches(model.strip().lower(), list(lowered), n=3, cutoff=0.5)
    hint = f"did you mean {', '.join(lowered[c] for c in close)}? " if close else ""
    raise ValueError(f"Invalid value for --model: unknown model {model!r}; {hint}known: {', '.join(known)}")


def fit(
    database: Path,
    model: str,
    workload: str = "inference",
    precision: str = "bf16",
    context: int = 4096,
    batch: int = 1,
    kv_precision: str = "bf16",
    method: str = "lora",
    recompute: str = "none",
) -> dict:
    """Run out_memory_requirements.sql and out_vram_fit.sql for one setting on the built database's tables."""
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"attach {path_literal(database)} as atlas (read_only)")
        for table in ("core_models", "core_gpus", "core_parameters", "out_model_weights"):
            con.execute(f"create table {table} as select * from atlas.{table}")
        known = [r[0] for r in con.execute("select model_id from core_models order by 1").fetchall()]
        if model not in known:
            raise ValueError(f"unknown model {model!r}; known: {', '.join(known)}")
        con.execute("update core_parameters set value_list = [?] where name = 'inference_contexts'", [context])
        con.execute("update core_parameters set value_list = [?] where name = 'inference_batches'", [batch])
        con.execute("update core_parameters set value = ? where name = 'training_context'", [context])
        con.execute("update core_parameters set value = ? where name = 'training_micro_batch'", [batch])
        con.execute("delete from core_models where model_id <> ?", [model])
        define_macros(con)
        create_table_from_sql(con, "out_memory_requirements")
        create_table_from_sql(con, "out_vram_fit")
        create_table_from_sql(con, "out_vram_fit_detail")
        where = (
            "workload = 'inference' and precision = ? and kv_precision = ?"
            if workload == "inference"
            else "workload = 'training' and method = ? and recompute = ?"
        )
        args = [precision, kv_precision] if workload == "inference" else [method, recompute]
        rows = con.execute(
            f"""
            select f.*, g.name, g.memory_gb, g.interconnect_gbs,
                c.usd_per_gpu_hour as cheapest_usd_per_gpu_hour, c.provider as cheapest_provider,
                c.observed_on as cheapest_observed_on,
                -- training: tokens/s per GPU as the training estimates and the Planner compute it (macros/training.sql)
                case when f.workload = 'training' then train_tokens_per_s(1, g.best_16bit_tflops, u.utilisation,
                    train_flops_per_param_token(f.method, f.recompute), m.active_params_b) end as train_tokens_per_s
            from out_vram_fit_detail as f join core_gpus as g using (gpu_id) join core_models as m using (model_id)
            -- the one definition of the cheapest on-demand price, as built (core_price_picks)
            left join atlas.core_cheapest_offers as c using (gpu_id)
            left join atlas.out_training_calibration as u using (gpu_id)
            where {where}
            -- one row a GPU: the deployment it needs (its gpu_count rows differ only in the split they test)
            qualify row_number() over (partition by f.gpu_id
                                       order by coalesce(f.gpu_count = f.gpus_needed, false) desc, f.gpu_count) = 1
            order by f.gpus_needed nulls last, g.memory_gb, g.name""",
            args,
        ).df()
    finally:
        con.close()
    if rows.empty:
        raise ValueError("no such setting: check --workload, --precision, --kv-precision, --method, --recompute")
    first = rows.iloc[0]
    return {
        "model_id": model,
        "workload": workload,
        "method": first["method"],
        "precision": first["precision"],
        "kv_precision": first["kv_precision"],
        "recompute": first["recompute"],
        "context_tokens": int(first["context_tokens"]),
        "batch_size": int(first["batch_size"]),
        "breakdown_gb": {p: float(first[p]) for p in PARTS},
        "required_gb": float(first["required_gb"]),
        "gpus": [
            {
                "gpu_id": r.gpu_id,
                "name": r.name,
                "memory_gb": float(r.memory_gb),
                "usable_gb_per_gpu": float(r.usable_gb_per_gpu),
                "gpus_needed": None if pd.isna(r.gpus_needed) else int(r.gpus_needed),
                "fits_one_gpu": bool(r.fits_one_gpu),
                # the link joins the GPUs the deployment needs (a bridge joins two or four cards)
                "has_gpu_link": bool(r.multi_gpu_has_link)
                if r.gpu_count > 1
                else r.interconnect_gbs == r.interconnect_gbs and r.interconnect_gbs is not None,
                "train_tokens_per_s_per_gpu": None if pd.isna(r.train_tokens_per_s) else float(r.train_tokens_per_s),
                "cheapest_usd_per_gpu_hour": None
                if r.cheapest_usd_per_gpu_hour != r.cheapest_usd_per_gpu_hour
                else float(r.cheapest_usd_per_gpu_hour),
                "cheapest_provider": r.cheapest_provider if isinstance(r.cheapest_provider, str) else None,
                "cheapest_observed_on": None
                if r.cheapest_provider is None or r.cheapest_provider != r.cheapest_provider
                else str(r.cheapest_observed_on)[:10],
            }
            for r in rows.itertuples()
            if r.memory_gb == r.memory_gb
        ],
    }
