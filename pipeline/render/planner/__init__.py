"""The Planner (`planner.md`): say what you serve and to how many, get every machine one can rent that holds it,
ranked by what a million tokens cost; and its data under api/v1/plan/ (choices and limits, the SQL and the rows
of the views it reads, ranked training options per model).

The page shows the default question's answer, computed by `pipeline/sql/plan/plan_options.sql`; for any other
question the page runs that same file in the browser with DuckDB-WASM (pipeline/vendor.py), over the rows of the
same public views (api/v1/plan/tables/) and the same macros (api/v1/plan/sql/): one formula, one text."""

from __future__ import annotations

from urllib.parse import quote

import duckdb
import pandas as pd
from markupsafe import Markup

from pipeline.plan import (
    DEFAULT_TOKENS,
    DEFAULTS,
    ENGINES,
    KV_PRECISIONS,
    LIMITS,
    PLAN_SQL,
    SCENARIO_COLUMNS,
    SERVE_PRECISIONS,
    TIERS,
    WORKLOAD_LABELS,
    Question,
    plan_options,
    validate,
)

from ..api import API, SCHEMA_VERSION
from ..api.records import clean, column, columns_rows, dumps
from ..browser_sql import engine_files, import_map
from ..family import Family, programs_wanted, relations
from ..markdown import html_text
from ..i18n import N_, _
from .answer import chart, price_date, price_words

# plan_options() runs pipeline/sql/plan/plan_options.sql: the views it reads are read by these pages too
# (plan_scenarios is the temporary table of the questions it answers)
PLAN_VIEWS = relations(PLAN_SQL.read_text(encoding="utf-8")) - {"plan_scenarios"}
FAMILY = Family(__file__, reads=PLAN_VIEWS)

TOP = 10  # training options kept per scenario in the Planner's data
# the options table's words for rentable_machines.pricing_tier, translated where shown (a value not listed prints
# as it is); the JSON files keep the values
TIER_WORDS = {"on-demand": N_("on-demand"), "spot": N_("spot"), "reserved": N_("reserved")}
WEB_TIERS = ("on-demand", "spot", None)
OPTION_COLUMNS = [
    "rank",
    "gpu_id",
    "gpu_name",
    "gpu_count",
    "instance_gpus",
    "tensor_parallel",
    "pipeline_parallel",
    "cluster_network",
    "replicas",
    "provider",
    "offering",
    "pricing_tier",
    "statistic",
    "price_kind",
    "region",
    "usd_per_hour",
    "required_gb",
    "capacity_gb",
    "headroom_gb",
    "throughput_tokens_per_s_per_gpu",
    "expected_tokens_per_s",
    "bound_tokens_per_s",
    "expected_tokens_per_s_per_user",
    "ttft_s",
    "usd_per_million_input_tokens",
    "usd_per_million_output_tokens",
    "usd_per_million_tokens",
    "limited_by",
    "job_tokens",
    "job_hours",
    "usd_per_job",
    "observed_on",
    "observed_date_known",
    "observed_no_later_than",
    "why",
    "expectation_basis",
    "expected_throughput_error",
    "expected_per_user_error",
    "expected_ttft_error",
    "model_level",
]
# the default question's options as the page's script reads them (api/v1/plan/default.json: every option, for the
# chart's points, the filters and the rows past the table's first ones): what the table, headline and chart show
DEFAULT_COLUMNS = [
    *OPTION_COLUMNS,
    "machines",
    "machine_id",
    "users_per_replica",
    "bound_throughput_tokens_per_s_per_gpu",
    "bound_tokens_per_s_per_user",
    "bound_ttft_s",
    "prefill_share",
]
# GPU vendors as the filters name them (serving_gpus.vendor; any other value prints as it is)
VENDOR_NAMES = {"nvidia": "NVIDIA", "amd": "AMD", "intel": "Intel"}
# the tables the page's DuckDB holds, each the rows of a public view (or, for vram_fit, the rows plan_options.sql
# can join: the training fits of machines one can rent) and core_parameters, the numbers param() reads
BROWSER_TABLES = {view: f"select * from {view} order by all" for view in sorted(PLAN_VIEWS)}
BROWSER_TABLES["vram_fit"] = FAMILY.queries["browser_vram_fit"]
BROWSER_TABLES["core_parameters"] = FAMILY.queries["browser_core_parameters"]


def question_url(q: Question, prefix: str = "") -> Markup:
    """The Planner's address answering `q`, for an HTML attribute (each value URL-quoted, '&' as '&amp;')."""
    fields = {
        "model": q.model,
        "workload": q.workload,
        "precision": q.precision,
        "kv": q.kv_precision,
        "context": q.context,
        "users": q.users,
        "input": q.input_tokens,
        "output": q.output_tokens,
        "engine": q.engine,
        "tier": q.tier,
    }
    if q.min_tokens_per_user:
        fields["min_user"] = q.min_tokens_per_user
    if q.max_ttft_s:
        fields["max_ttft"] = q.max_ttft_s
    query = "&amp;".join(f"{k}={quote(str(v), safe='')}" for k, v in fields.items() if v is not None)
    return Markup(f"{quote(prefix)}planner/?{query}")


def weights_label(q: Question, native_formats: dict[str, str]) -> str:
    """'FP8 weights', or for the checkpoint's own format 'weights as the checkpoint ships them (MXFP4-MOE)'.
    `native_formats`: each model's shipped format (the `native_formats` query)."""
    if q.precision != "native":
        return _("%(precision)s weights") % {"precision": q.precision.upper()}
    found = native_formats.get(q.model)
    shipped = found.upper() if found else _("unknown")
    return _("weights as the checkpoint ships them (%(format)s)") % {"format": shipped}


def default_question(max_contexts: dict[str, int]) -> Question:
    """The question the page opens with (DEFAULTS), validated."""
    return validate(Question(**{k: v for k, v in DEFAULTS.items() if k in Question.__dataclass_fields__}), max_contexts)


def training_scenarios(model_ids) -> pd.DataFrame:
    """Each training workload of each model at each tier the page offers (a fine-tune at DEFAULT_TOKENS; the page
    scales hours and cost with the token budget, which they are proportional to)."""
    rows = [
        {"model_id": m, "workload": w, "tokens": None if w == "pretrain" else DEFAULT_TOKENS, "tier": t, "users": 1}
        for m in model_ids
        for w in ("full", "lora", "qlora", "pretrain")
        for t in WEB_TIERS
    ]
    return pd.DataFrame(rows)


def plan_index(models: pd.DataFrame) -> dict:
    """index.json: the choices, defaults and limits of every input, and the models."""
    return {
        "schema_version": SCHEMA_VERSION,
        "defaults": DEFAULTS,
        "limits": LIMITS,
        "precisions": list(SERVE_PRECISIONS),
        "kv_precisions": list(KV_PRECISIONS),
        "workloads": WORKLOAD_LABELS,
        "tiers": list(TIERS),
        "engines": ENGINES,
        "training_tokens": DEFAULT_TOKENS,
        "models": [
            {
                "model_id": m.model_id,
                "name": m.name,
                "params_b": clean(m.params_b),
                "max_context": int(m.max_context),
                "status": m.status,
            }
            for m in models.itertuples()
        ],
    }


def browser_files(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, str], dict]:
    """What the page's DuckDB runs (browser_sql.engine_files): the rows of the views plan_options.sql reads, the macro
    files and plan_options.sql as they are, and the statement that makes plan_scenarios from the page's question.
    Returns (files, index.json's `engine` entry)."""
    return engine_files(con, f"{API}/plan", BROWSER_TABLES, PLAN_SQL, "plan_scenarios", SCENARIO_COLUMNS)


def json_files(browser: dict[str, str], training: pd.DataFrame, index: dict) -> dict:
    """The Planner's data: what the page's DuckDB runs (browser_files), one training file per model, index.json.
    `training`: plan_options' rows for training_scenarios()."""
    files = dict(browser)
    training = training[training["rank"] <= TOP]  # plan_options(..., top=TOP) gives only these
    by_model: dict[str, dict[str, list]] = {}
    values = zip(*(column(training[c]) for c in OPTION_COLUMNS))
    for model_id, workload, tier, row in zip(training["model_id"], training["workload"], training["tier"], values):
        key = f"{workload}|{tier if isinstance(tier, str) else 'any'}"
        by_model.setdefault(model_id, {}).setdefault(key, []).append(list(row))
    for model_id in sorted(by_model):
        files[f"{API}/plan/training/{model_id}.json"] = dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "model_id": model_id,
                "columns": OPTION_COLUMNS,
                "tokens": DEFAULT_TOKENS,
                "scenarios": by_model[model_id],
            }
        )
    files[f"{API}/plan/index.json"] = dumps(index)
    return files


def default_file(options: pd.DataFrame, q: Question) -> str:
    """api/v1/plan/default.json: the default question and every option it has, at full precision."""
    return dumps({"schema_version": SCHEMA_VERSION, "question": q.scenario(), **columns_rows(options[DEFAULT_COLUMNS])})


def filter_choices(options: pd.DataFrame, vendors: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """The filters' choices among the options: (value, label) of each GPU, vendor and provider, by label."""
    gpus = dict(zip(options["gpu_id"], options["gpu_name"]))
    found = {vendors.get(g, "") for g in gpus} - {""}
    return {
        "gpu": sorted(gpus.items(), key=lambda kv: kv[1]),
        "vendor": sorted(((v, VENDOR_NAMES.get(v, v)) for v in found), key=lambda kv: kv[1]),
        "provider": [(p, p) for p in sorted(set(options["provider"]))],
    }


def context(
    options: pd.DataFrame, q: Question, models: pd.DataFrame, weights: str, vendors: dict | None = None
) -> dict:
    """The page's values: `options` are plan_options' rows for the default question `q`, cheapest first;
    `vendors`: each GPU's vendor (the filters' choices)."""
    model_name = next((m.name for m in models.itertuples() if m.model_id == q.model), q.model)
    every = list(options.itertuples())
    return {
        "q": q,
        "model_name": model_name,
        "weights": weights,
        "options": every[:TOP],
        "best": every[0] if every else None,
        "chart": chart(every),
        "choices": filter_choices(options, vendors or {}),
        "h": lambda value: Markup(html_text(value)),  # a value inside raw HTML (no Markdown escapes)
        "price_words": price_words,
        "price_date": price_date,
        "total": len(options),
        "limits": LIMITS,
        # where the engine's modules find the bare names they import (pipeline/vendor.py; trusted constants)
        "import_map": import_map(),
        "tier_words": {value: _(word) for value, word in TIER_WORDS.items()},
        "cli": (
            f"gpu-atlas plan --model {q.model} --precision {q.precision} --users {q.users} "
            f"--input-tokens {q.input_tokens} --output-tokens {q.output_tokens} --context {q.context}"
        ),
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    max_contexts = {r.model_id: int(r.max_context) for r in FAMILY.rows(con, "max_contexts")}
    native_formats = {r.model_id: r.resolved_format for r in FAMILY.rows(con, "native_formats")}
    vendors = {r.gpu_id: r.vendor for r in FAMILY.rows(con, "gpu_vendors")}
    models = FAMILY.frame(con, "models")
    q = default_question(max_contexts)
    # the default question's options: the same in every edition, computed once (Family.once)
    options = FAMILY.once(
        ("default options", q), lambda: plan_options(con, pd.DataFrame([q.scenario()])), pd.DataFrame.copy
    )
    files = {}
    if programs_wanted():  # the Planner's JSON, once (the Chinese page reads the same files)
        browser, engine = browser_files(con)
        training = plan_options(con, training_scenarios(max_contexts), top=TOP)
        index = {
            **plan_index(models),
            "engine": engine,
            "native_formats": native_formats,
            "gpu_vendors": vendors,
            # a pretraining run's tokens when the reader gives none (plan_options.sql reads the same parameter)
            "pretrain_tokens_per_param": FAMILY.rows(con, "pretrain_tokens_per_param")[0][0],
        }
        files = json_files(browser, training, index)
        files[f"{API}/plan/default.json"] = default_file(options, q)
    ctx = context(options, q, models, weights_label(q, native_formats), vendors)
    return {**files, "planner.md": FAMILY.render("planner.md.j2", **ctx)}
