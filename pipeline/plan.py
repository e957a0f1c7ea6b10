"""The Planner: ranked deployment options for a model and workload (`pipeline/sql/plan/plan_options.sql`).

The same query answers `gpu-atlas plan` (one scenario) and writes the Planner's data (every scenario of
its choice lists), so the command line and the site give the same ranking."""

from __future__ import annotations

import duckdb
import pandas as pd

from .config import SQL_DIR

PLAN_SQL = SQL_DIR / "plan" / "plan_options.sql"
WORKLOADS = ("serve", "full", "lora", "qlora", "pretrain")
WORKLOAD_LABELS = {"serve": "serve", "full": "fine-tune (full)", "lora": "fine-tune (LoRA)",
                   "qlora": "fine-tune (QLoRA)", "pretrain": "pre-train"}
SERVE_PRECISIONS = ("bf16", "fp8", "int8", "int4")
USERS = (1, 4, 16, 64)          # concurrent users the Planner offers
TIERS = ("on-demand", "spot", None)  # None: every tier
DEFAULT_TOKENS = 1_000_000_000  # a fine-tune's token budget unless given
SCENARIO_COLUMNS = {"model_id": "varchar", "workload": "varchar", "precision": "varchar", "context_tokens": "integer",
                    "users": "integer", "tokens": "double", "tier": "varchar"}


def plan_options(con: duckdb.DuckDBPyConnection, scenarios: pd.DataFrame) -> pd.DataFrame:
    """Every option of every scenario (columns of SCENARIO_COLUMNS), ranked within its scenario."""
    frame = scenarios.reindex(columns=list(SCENARIO_COLUMNS))
    con.register("_plan_scenarios_in", frame)
    try:
        casts = ", ".join(f"{c}::{t} as {c}" for c, t in SCENARIO_COLUMNS.items())
        con.execute(f"create or replace temp table plan_scenarios as select {casts} from _plan_scenarios_in")
    finally:
        con.unregister("_plan_scenarios_in")
    return con.execute(PLAN_SQL.read_text(encoding="utf-8")).df()


def scenario(model: str, workload: str = "serve", precision: str = "fp8", context: int = 4096, users: int = 1,
             tokens: float | None = None, tier: str | None = "on-demand") -> pd.DataFrame:
    if workload not in WORKLOADS:
        raise ValueError(f"unknown workload {workload!r}; one of {', '.join(WORKLOADS)}")
    if workload != "serve" and tokens is None and workload != "pretrain":
        tokens = DEFAULT_TOKENS
    return pd.DataFrame([{"model_id": model, "workload": workload, "precision": precision, "context_tokens": context,
                          "users": users if workload == "serve" else 1, "tokens": tokens, "tier": tier}])


def plan(database, model: str, workload: str = "serve", precision: str = "fp8", context: int = 4096, users: int = 1,
         tokens: float | None = None, tier: str | None = "on-demand", limit: int | None = 20) -> dict:
    """One scenario against the built database: the ranked options as plain data."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        known = [r[0] for r in con.execute("select model_id from models order by 1").fetchall()]
        if model not in known:
            raise ValueError(f"unknown model {model!r}; known: {', '.join(known)}")
        options = plan_options(con, scenario(model, workload, precision, context, users, tokens, tier))
    finally:
        con.close()
    if limit:
        options = options.head(limit)
    records = []
    for row in options.drop(columns=["scenario_id"]).to_dict(orient="records"):
        records.append({k: (None if isinstance(v, float) and v != v else
                            v.isoformat()[:10] if hasattr(v, "isoformat") else v) for k, v in row.items()})
    return {"model_id": model, "workload": workload, "precision": precision, "context_tokens": context,
            "users": users if workload == "serve" else None, "tokens": tokens, "tier": tier, "options": records}
