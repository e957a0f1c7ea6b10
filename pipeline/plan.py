"""The Planner: ranked deployment options for a model, a workload and a load (`pipeline/sql/plan/plan_options.sql`).

The command line runs the SQL for the question asked; the page runs the same SQL files in the browser with
DuckDB-WASM (`site/javascripts/planner-sql.js`) over the rows of the same public views, which the build writes to
`api/v1/plan/`, with the same question table (`scenarios_sql`). The valid range of every input is defined here, once: the command line refuses a value outside
it (exit 2, naming the option), and the page reads the same limits from `api/v1/plan/index.json`."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import duckdb
import pandas as pd

from .config import SQL_DIR
from .db import question_sql
from .schemas import ENGINE_FORMATS

PLAN_SQL = SQL_DIR / "plan" / "plan_options.sql"
WORKLOADS = ("serve", "full", "lora", "qlora", "pretrain")
WORKLOAD_LABELS = {
    "serve": "serve",
    "full": "fine-tune (full)",
    "lora": "fine-tune (LoRA)",
    "qlora": "fine-tune (QLoRA)",
    "pretrain": "pre-train",
}
# `native`: the weights as the official checkpoint ships them (models.native_format: MXFP4 experts for gpt-oss,
# block-scaled FP8 for DeepSeek, BF16 for most)
SERVE_PRECISIONS = ("native",) + ENGINE_FORMATS
KV_PRECISIONS = ("bf16", "fp8")
TIERS = ("on-demand", "spot", "reserved", "any")
ENGINES = {"vllm-sglang": "vLLM / SGLang", "tensorrt-llm": "TensorRT-LLM (NVIDIA only)"}
DEFAULT_TOKENS = 1_000_000_000  # a fine-tune's token budget unless given

# the valid range of every numeric input: (minimum, maximum); the context's maximum is the model's own
LIMITS = {
    "users": (1, 4096),
    "input_tokens": (1, 1_000_000),
    "output_tokens": (1, 1_000_000),
    "context": (256, 10_000_000),
    "min_tokens_per_user": (0, 10_000),  # 0: no speed target
    "max_ttft_s": (0.001, 3600),
    "tokens": (1e6, 1e14),
    "limit": (1, 1000),
}
DEFAULTS = {
    "model": "llama-3.3-70b",
    "workload": "serve",
    "precision": "native",
    "kv_precision": "bf16",
    "users": 50,
    "input_tokens": 2000,
    "output_tokens": 500,
    "context": 8192,
    "tier": "on-demand",
    "engine": "vllm-sglang",
    # a chat user's floor, applied unless changed (0 for none): an answer streamed at 20 tokens/s (about 15 words/s)
    # stays ahead of any reader (4 to 5 words/s) with room for a burst of code or a table; InferenceX's
    # interactivity axis starts there. Without a target the cheapest option gives 50 users 5 tokens/s each.
    "min_tokens_per_user": 20.0,
    "max_ttft_s": None,
    "tokens": None,
}
SCENARIO_COLUMNS = {
    "model_id": "varchar",
    "workload": "varchar",
    "precision": "varchar",
    "kv_precision": "varchar",
    "context_tokens": "integer",
    "users": "integer",
    "input_tokens": "double",
    "output_tokens": "double",
    "tokens": "double",
    "tier": "varchar",
    "engine_family": "varchar",
    "min_tokens_per_user": "double",
    "max_ttft_s": "double",
    # one machine, fleet and split only (the load curve of an option); NULL: every machine, its cheapest fleet and split
    "machine_id": "varchar",
    "machines": "integer",
    "tensor_parallel": "integer",
    "pipeline_parallel": "integer",
}


def scenarios_sql(source: str) -> str:
    """The statement that makes `plan_scenarios` (what plan_options.sql answers) from the rows of `source`, each
    column cast to its type: the command line's and the page's (scenarios.csv) differ by the source only."""
    return question_sql("plan_scenarios", SCENARIO_COLUMNS, source)


class PlanInputError(ValueError):
    """An input outside its valid range; `option` names the command-line option."""

    def __init__(self, option: str, message: str):
        super().__init__(f"{option}: {message}")
        self.option = option


@dataclass(frozen=True)
class Question:
    """A Planner question; every default is DEFAULTS' (the page, the CLI and the MCP server take theirs from here)."""

    model: str
    workload: str = DEFAULTS["workload"]
    precision: str = DEFAULTS["precision"]
    kv_precision: str = DEFAULTS["kv_precision"]
    context: int | None = None
    users: int = DEFAULTS["users"]
    input_tokens: int = DEFAULTS["input_tokens"]
    output_tokens: int = DEFAULTS["output_tokens"]
    tier: str = DEFAULTS["tier"]
    engine: str = DEFAULTS["engine"]
    min_tokens_per_user: float | None = DEFAULTS["min_tokens_per_user"]
    max_ttft_s: float | None = DEFAULTS["max_ttft_s"]
    tokens: float | None = DEFAULTS["tokens"]

    def scenario(self) -> dict:
        serve = self.workload == "serve"
        tokens = self.tokens
        if not serve and tokens is None and self.workload != "pretrain":
            tokens = DEFAULT_TOKENS
        return {
            "model_id": self.model,
            "workload": self.workload,
            "precision": self.precision if serve else None,
            "kv_precision": self.kv_precision if serve else None,
            "context_tokens": self.context if serve else None,
            "users": self.users if serve else 1,
            "input_tokens": self.input_tokens if serve else None,
            "output_tokens": self.output_tokens if serve else None,
            "tokens": None if serve else tokens,
            "tier": None if self.tier == "any" else self.tier,
            "engine_family": self.engine if serve else None,
            "min_tokens_per_user": self.min_tokens_per_user if serve else None,
            "max_ttft_s": self.max_ttft_s if serve else None,
        }


def _in_range(option: str, value, low, high) -> None:
    if value is None or value != value or not (low <= value <= high):
        raise PlanInputError(f"--{option.replace('_', '-')}", f"must be between {low:,} and {high:,} (got {value})")


def validate(question: Question, max_context: dict[str, int]) -> Question:
    """The question with its defaults filled in, or PlanInputError naming the first input out of range."""
    q = question
    if q.model not in max_context:
        raise PlanInputError("--model", f"unknown model {q.model!r}; known: {', '.join(sorted(max_context))}")
    if q.workload not in WORKLOADS:
        raise PlanInputError("--workload", f"must be one of {', '.join(WORKLOADS)} (got {q.workload!r})")
    if q.tier not in TIERS:
        raise PlanInputError("--tier", f"must be one of {', '.join(TIERS)} (got {q.tier!r})")
    if q.workload != "serve":
        if q.tokens is not None:
            _in_range("tokens", q.tokens, *LIMITS["tokens"])
        return q
    if q.precision not in SERVE_PRECISIONS:
        raise PlanInputError("--precision", f"must be one of {', '.join(SERVE_PRECISIONS)} (got {q.precision!r})")
    if q.kv_precision not in KV_PRECISIONS:
        raise PlanInputError("--kv-precision", f"must be one of {', '.join(KV_PRECISIONS)} (got {q.kv_precision!r})")
    if q.engine not in ENGINES:
        raise PlanInputError("--engine", f"must be one of {', '.join(ENGINES)} (got {q.engine!r})")
    for name in ("users", "input_tokens", "output_tokens"):
        _in_range(name, getattr(q, name), *LIMITS[name])
    top = max_context[q.model]
    context = (
        q.context if q.context is not None else min(top, max(DEFAULTS["context"], q.input_tokens + q.output_tokens))
    )
    _in_range("context", context, LIMITS["context"][0], top)
    if q.input_tokens + q.output_tokens > context:
        raise PlanInputError(
            "--input-tokens",
            f"input + output tokens ({q.input_tokens + q.output_tokens:,}) must fit "
            f"the context ({context:,}); the model allows up to {top:,}",
        )
    if q.min_tokens_per_user is not None:
        _in_range("min_tokens_per_user", q.min_tokens_per_user, *LIMITS["min_tokens_per_user"])
    if q.max_ttft_s is not None:
        _in_range("max_ttft_s", q.max_ttft_s, *LIMITS["max_ttft_s"])
    return Question(**{**asdict(q), "context": int(context)})


def plan_options(con: duckdb.DuckDBPyConnection, scenarios: pd.DataFrame, top: int | None = None) -> pd.DataFrame:
    """Every option of every scenario (columns of SCENARIO_COLUMNS), ranked within its scenario; with `top`, only
    the first `top` of each (chosen in DuckDB: the rows not wanted never become a frame)."""
    frame = scenarios.reindex(columns=list(SCENARIO_COLUMNS))
    con.register("_plan_scenarios_in", frame)
    try:
        con.execute(scenarios_sql("_plan_scenarios_in"))
    finally:
        con.unregister("_plan_scenarios_in")
    sql = PLAN_SQL.read_text(encoding="utf-8")
    if top is None:
        return con.execute(sql).df()
    return con.execute(f"select * from ({sql}) where rank <= ? order by scenario_id, rank", [int(top)]).df()


def _plain(value):
    if value is None or (isinstance(value, float) and value != value):
        return None
    if hasattr(value, "isoformat"):
        return value.isoformat()[:10]
    if hasattr(value, "item"):
        return value.item()
    return value


def max_contexts(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    return dict(con.execute("select model_id, max_context from models order by 1").fetchall())


def applicable_formats(con: duckdb.DuckDBPyConnection, model: str) -> list[str]:
    """The serving weight formats that apply to a model (`mxfp4-moe` and `int4-moe` only to a model with experts)."""
    return [
        r[0] for r in con.execute("select format from serving_models where model_id = ? order by 1", [model]).fetchall()
    ]


def plan(database, question: Question, limit: int | None = 20) -> dict:
    """One question against the built database: the ranked options as plain data (PlanInputError naming the
    option for a question out of range)."""
    if limit is not None:
        _in_range("limit", limit, *LIMITS["limit"])
    con = duckdb.connect(str(database), read_only=True)
    try:
        q = validate(question, max_contexts(con))
        if q.workload == "serve" and q.precision not in (formats := applicable_formats(con, q.model)):
            raise PlanInputError(
                "--precision",
                f"the format {q.precision!r} does not apply to {q.model} "
                f"({'a dense model: it stores MoE experts' if q.precision.endswith('-moe') else 'no such checkpoint'}); "
                f"formats for this model: {', '.join(formats)}",
            )
        options = plan_options(con, pd.DataFrame([q.scenario()]))
        # the weight format the answer uses: the one asked for, or the checkpoint's own for `native`
        found = con.execute(
            "select resolved_format from serving_models where model_id = ? and format = ?", [q.model, q.precision]
        ).fetchone()
    finally:
        con.close()
    total = len(options)
    if limit:
        options = options.head(limit)
    records = [
        {k: _plain(v) for k, v in row.items()}
        for row in options.drop(columns=["scenario_id"]).to_dict(orient="records")
    ]
    return {
        **{k: v for k, v in asdict(q).items()},
        "weights_format": found[0] if found else None,
        "options_total": total,
        "options": records,
    }


def error_note(option: dict) -> str:
    """How far the first option's kind of expectation was from published figures the calibration did not see (the
    median held out by publication, serving_calibration), the model's measured level where its own figures give one
    (serving_model_levels), and that the bounds are firm."""
    parts = [
        f"{option[key]:.0%} on {what}"
        for key, what in (
            ("expected_throughput_error", "tok/s/GPU"),
            ("expected_per_user_error", "tok/s/user"),
            ("expected_ttft_error", "TTFT"),
        )
        if option.get(key) is not None
    ]
    said = "; ".join(parts) if parts else "not measured"
    level = option.get("model_level")
    measured = f"; this model at {level:.2f}x the family's expectation, as its own figures put it" if level else ""
    return (
        f"expected speeds, median error on publications the calibration did not see: {said}{measured}; "
        "bounds are firm (--json)"
    )
