"""The Planner, Compare and the machine-readable files (JSON API, Atom feed of price changes).

Every file here is read from the public views, so the estimates and prices flow in as they change."""

from __future__ import annotations

import datetime as dt
import json
import math
from xml.sax.saxutils import escape as xml_escape

import duckdb
import pandas as pd

from pipeline.plan import (
    DEFAULT_TOKENS,
    DEFAULTS,
    ENGINES,
    KV_PRECISIONS,
    LIMITS,
    SERVE_PRECISIONS,
    TIERS,
    WORKLOAD_LABELS,
    Question,
    max_contexts,
    plan_options,
    validate,
)

from . import openapi
from .markdown import esc, fixed, link, money, num, plural, seen, table

API = "api/v1"
SCHEMA_VERSION = 1
TOP = 10  # training options kept per scenario in the Planner's data
WEB_TIERS = ("on-demand", "spot", None)
OPTION_COLUMNS = [
    "rank",
    "gpu_id",
    "gpu_name",
    "gpu_count",
    "instance_gpus",
    "tensor_parallel",
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
    "why",
]
# the rows of the public views the page's serving model reads (site/javascripts/planner-model.js), full precision
COEFFICIENT_QUERIES = {
    "models": "select * from serving_models order by model_id, format",
    "gpus": "select * from serving_gpus order by gpu_id",
    "machines": """select machine_id, provider, offering, gpu_id, instance_gpus, usd_per_hour, usd_per_gpu_hour,
                          pricing_tier, statistic, price_kind, region, observed_on, observed_date_known
                   from rentable_machines order by machine_id, gpu_id""",
    "calibration": "select * from serving_calibration order by engine_family, model_kind",
    "parameters": """select name, value from parameters
                     where name in ('runtime_overhead_gb', 'runtime_overhead_fraction', 'bytes_bf16', 'bytes_fp8',
                                    'prefill_mfu')
                     order by name""",
}


def _clean(value, digits: int | None = 4):
    if value is None or value is pd.NaT or value is pd.NA:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return float(f"{value:.{digits}g}") if digits else value
    if hasattr(value, "isoformat"):
        return value.isoformat()[:10]
    if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0):
        return [_clean(v, digits) for v in list(value)]  # list columns (a snapshot's scope)
    if hasattr(value, "item"):
        return _clean(value.item(), digits)
    return value


def _json(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def _table(frame: pd.DataFrame) -> dict:
    """A frame as {columns, rows} with every number at full precision (the page computes from them)."""
    return {
        "columns": list(frame.columns),
        "rows": [[_clean(v, None) for v in row] for row in frame.itertuples(index=False, name=None)],
    }


def coefficients(con: duckdb.DuckDBPyConnection) -> dict:
    out = {name: _table(con.execute(sql).df()) for name, sql in COEFFICIENT_QUERIES.items()}
    params = out.pop("parameters")
    out["parameters"] = {name: float(value) for name, value in params["rows"]}
    return out


def training_scenarios(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Each training workload of each model at each tier the page offers (a fine-tune at DEFAULT_TOKENS; the page
    scales hours and cost with the token budget, which they are proportional to)."""
    models = [r[0] for r in con.execute("select model_id from models order by 1").fetchall()]
    rows = [
        {"model_id": m, "workload": w, "tokens": None if w == "pretrain" else DEFAULT_TOKENS, "tier": t, "users": 1}
        for m in models
        for w in ("full", "lora", "qlora", "pretrain")
        for t in WEB_TIERS
    ]
    return pd.DataFrame(rows)


def question_url(q: Question, prefix: str = "") -> str:
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
    return f"{prefix}planner/?" + "&amp;".join(f"{k}={v}" for k, v in fields.items() if v is not None)


def planner_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    files = {f"{API}/plan/coefficients.json": _json({"schema_version": SCHEMA_VERSION, **coefficients(con)})}
    training = plan_options(con, training_scenarios(con))
    training = training[training["rank"] <= TOP]
    by_model: dict[str, dict[str, list]] = {}
    for row in training.itertuples(index=False):
        key = f"{row.workload}|{row.tier if isinstance(row.tier, str) else 'any'}"
        values = [_clean(getattr(row, c)) for c in OPTION_COLUMNS]
        by_model.setdefault(row.model_id, {}).setdefault(key, []).append(values)
    for model_id in sorted(by_model):
        files[f"{API}/plan/training/{model_id}.json"] = _json(
            {
                "schema_version": SCHEMA_VERSION,
                "model_id": model_id,
                "columns": OPTION_COLUMNS,
                "tokens": DEFAULT_TOKENS,
                "scenarios": by_model[model_id],
            }
        )
    models = con.execute(
        "select model_id, name, params_b, active_params_b, max_context, status from models order by params_b, model_id"
    ).df()
    index = {
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
                "params_b": _clean(m.params_b),
                "max_context": int(m.max_context),
                "status": m.status,
            }
            for m in models.itertuples()
        ],
    }
    files[f"{API}/plan/index.json"] = _json(index)
    q = validate(
        Question(**{k: v for k, v in DEFAULTS.items() if k in Question.__dataclass_fields__}), max_contexts(con)
    )
    first = plan_options(con, pd.DataFrame([q.scenario()]))
    files["planner.md"] = planner_page(first.head(TOP), q, len(first), index, weights_label(con, q))
    return files


def options_table(options: pd.DataFrame, serve: bool = True) -> str:
    rows = []
    for o in options.itertuples():
        machine = f"{int(o.instance_gpus)} × " + link(o.gpu_name, f"gpus/{o.gpu_id}.md")
        if serve:
            split = f"TP {int(o.tensor_parallel)}" + (f" × {int(o.replicas)} replicas" if o.replicas > 1 else "")
            rows.append(
                [
                    str(int(o.rank)),
                    machine,
                    split,
                    esc(o.provider),
                    esc(o.pricing_tier),
                    money(o.usd_per_hour, 2),
                    fixed(o.throughput_tokens_per_s_per_gpu),
                    fixed(o.expected_tokens_per_s_per_user, 1),
                    fixed(o.ttft_s, 2),
                    money(o.usd_per_million_input_tokens, 3),
                    money(o.usd_per_million_output_tokens, 3),
                    money(o.usd_per_million_tokens, 3),
                    seen(o.observed_on, getattr(o, "observed_date_known", True)),
                ]
            )
        else:
            rows.append(
                [
                    str(int(o.rank)),
                    machine,
                    esc(o.provider),
                    esc(o.pricing_tier),
                    money(o.usd_per_hour, 2),
                    fixed(o.expected_tokens_per_s),
                    fixed(o.job_hours, 1),
                    money(o.usd_per_job, 0),
                    seen(o.observed_on, getattr(o, "observed_date_known", True)),
                ]
            )
    if serve:
        headers = [
            "#",
            "Machine",
            "Split",
            "Provider",
            "Tier",
            "$/hour",
            "Output tok/s per GPU (expected)",
            "Tok/s per user (expected)",
            "Time to first token, s",
            "$/M input",
            "$/M output",
            "$/M tokens (blended)",
            "Price date",
        ]
        return table(headers, rows, low=[5, 9, 10, 11])
    headers = ["#", "Machine", "Provider", "Tier", "$/hour", "Tokens/s (expected)", "Hours", "$ per job", "Price date"]
    return table(headers, rows, low=[4, 6, 7])


def planner_page(first: pd.DataFrame, q: Question, total: int, index: dict, weights: str) -> str:
    model_name = next((m["name"] for m in index["models"] if m["model_id"] == q.model), q.model)
    static = options_table(first) if len(first) else "No option fits."
    lim = LIMITS

    def number(name, label, value, low, high, step="1", hint=""):
        v = "" if value is None else f' value="{value}"'
        return (
            f'<label>{label} <input name="{name}" type="number" min="{low}" max="{high}" step="{step}"{v} '
            f'inputmode="decimal"{hint}></label>'
        )

    return "\n".join(
        [
            "---",
            "hide:",
            "  - toc",
            "---",
            "# Planner",
            "",
            "Say what you serve and to how many: every machine one can rent that holds it, split into replicas, "
            "ranked by what a million tokens cost, with the speed each user gets.",
            "",
            '<form class="atlas-form" id="planner-form" data-api="../api/v1/plan/" aria-label="Planner choices" '
            "novalidate>",
            '<label>Model <select name="model"></select></label>',
            '<label>Workload <select name="workload"></select></label>',
            '<label>Weights <select name="precision"></select></label>',
            '<label>KV cache <select name="kv"></select></label>',
            number("users", "Concurrent users", q.users, *lim["users"]),
            number("input", "Input tokens per request", q.input_tokens, *lim["input_tokens"]),
            number("output", "Output tokens per request", q.output_tokens, *lim["output_tokens"]),
            number("context", "Context tokens (longest request)", q.context, lim["context"][0], lim["context"][1]),
            number("min_user", "At least tokens/s per user", None, *lim["min_tokens_per_user"], step="any"),
            number("max_ttft", "At most seconds to first token", None, *lim["max_ttft_s"], step="any"),
            '<label>Engine <select name="engine"></select></label>',
            '<label>Training tokens (billions) <input name="tokens" type="number" min="0.001" max="100000" step="any" '
            'value="1"></label>',
            '<label>Pricing tier <select name="tier"></select></label>',
            "</form>",
            "",
            '<p id="planner-error" class="atlas-error" role="alert" hidden></p>',
            f'<p id="planner-summary" aria-live="polite"><strong>{esc(model_name)}</strong>, serve, {esc(weights)}, '
            f"{esc(q.kv_precision.upper())} KV cache, {plural(q.users, 'concurrent user', 'concurrent users')}, {q.input_tokens:,} input and {q.output_tokens:,} output tokens per "
            f"request, context {q.context:,}, on-demand prices: the {len(first)} cheapest of {total} options.</p>",
            "",
            '<p class="atlas-phone-note">On a narrow screen the split, tier, throughput per GPU, time to first token, '
            "$/M input, price date and load-curve columns are hidden; turn the phone or use a wider screen to see them.</p>",
            '<div id="planner-results" markdown="1">',
            "",
            static,
            "",
            "</div>",
            "",
            '<p id="planner-cli">The same answer from the command line: <code>'
            + esc(
                f"gpu-atlas plan --model {q.model} --precision {q.precision} --users {q.users} "
                f"--input-tokens {q.input_tokens} --output-tokens {q.output_tokens} --context {q.context}"
            )
            + "</code></p>",
            "",
            "**What each number is.** *Expected* figures come from the serving model (continuous batching: each "
            "request's prefill is compute-bound and pauses the others; its answer is decoded one token per step, "
            "every step reading the weights, the experts the batch touches and every user's KV cache) at the share of "
            "peak bandwidth and compute fitted per engine family on published serving measurements "
            "([Measured vs estimated](measured.md)); the *bound* (shown on hover and in the JSON) is the same at 100% "
            "of peak, which no measurement may beat. A machine is rented whole, as its provider lists it: its GPUs are "
            "split into replicas of 1, 2, 4 or 8 tensor-parallel GPUs (the split with the most throughput that meets "
            "your targets), and GPUs of separate listings are never combined. The machine's hour is split between "
            "input and output tokens by the time prefill and decode take. Prices are list prices or marketplace "
            "medians, with their date. Formulas: [Methodology](methodology.md#planner).",
            "",
            '<script src="../javascripts/planner-model.js" defer></script>',
            '<script src="../javascripts/planner.js" defer></script>',
            "",
        ]
    )


# ----------------------------------------------------------------------------- compare
def compare_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    gpus = con.execute("select * from gpus order by name").df()
    return {"compare.md": compare_page(gpus)}


def compare_page(gpus: pd.DataFrame) -> str:
    options = "".join(f'<option value="{esc(g.gpu_id)}">{esc(g.name)}</option>' for g in gpus.itertuples())
    pickers = "\n".join(
        f'<label>GPU {i + 1} <select name="g{i}"><option value="">–</option>{options}</select></label>'
        for i in range(4)
    )
    return "\n".join(
        [
            "---",
            "hide:",
            "  - toc",
            "---",
            "# Compare GPUs",
            "",
            "Pick two to four GPUs: their figures, cheapest current prices, the largest models that fit and the serving "
            "speed of a reference model, side by side. The address keeps the choice, so a comparison can be shared.",
            "",
            f'<form class="atlas-form" id="compare-form" data-api="../api/v1/" aria-label="GPUs to compare">\n{pickers}\n</form>',
            "",
            '<div id="compare-out"><p>Choose GPUs above (JavaScript needed).</p></div>',
            "",
            '<script src="../javascripts/compare.js" defer></script>',
            "",
        ]
    )


# ----------------------------------------------------------------------------- API files and feed
SCHEMA = {
    "schema_version": SCHEMA_VERSION,
    "description": "GPU Atlas static JSON files. Names are stable within a schema version; a breaking change "
    "raises the version and moves the files to a new api/vN/ folder. Units are in the field names "
    "(GB = 10^9 bytes; TFLOPS dense; INT8 in TOPS); a missing figure is null, never 0.",
    "files": {
        "gpus.json": "one object per GPU variant: the `gpus` view (figures) with `cheapest`, the price every page "
        "uses per tier (`price_picks`: current, like for like, China-mainland picks apart; the cheapest "
        "reserved term), `serving_tokens_per_s` (expected) and `serving_tokens_per_s_bound` (the bound) "
        "for the reference model, Llama 3.3 70B, FP8, serving batch (`inference_estimates`), together on "
        "`serving_gpus` GPUs and `training_tokens_per_s_per_gpu` and "
        "`lora_tokens_per_s_per_gpu` (Llama 3.1 8B full and LoRA fine-tunes, `training_estimates`)",
        "offers.json": "one object per current price offer: the `price_offers` view",
        "estimates.json": "serving estimates per model x GPU x weight format: the `inference_estimates` view, and "
        "training estimates: the `training_estimates` view",
        "fits.json": "per GPU, the largest models that fit on one (inference, 4k context, batch 1, KV BF16)",
        "plan/index.json": "the Planner's choices, defaults and the valid range of every input",
        "plan/coefficients.json": "the rows of the views serving_models, serving_gpus, rentable_machines and "
        "serving_calibration (columns listed once, rows as arrays, full precision) and the "
        "parameters the serving model reads: the page evaluates pipeline/sql/plan/"
        "plan_options.sql's formulas on them",
        "plan/training/<model_id>.json": "ranked training options per workload and tier at the default token budget "
        "(hours and cost are proportional to the tokens)",
    },
}


# the rows of each JSON file, one query each: the files are written from them and openapi.json describes them
API_QUERIES = {
    "gpus": "select * from gpus order by gpu_id",
    # the price every page uses: one pick per GPU and tier (price_picks), the cheapest reserved term when several
    "cheapest": """select gpu_id, pick as pricing_tier, term, usd_per_gpu_hour, provider, statistic, observed_on,
                          observed_date_known
                   from price_picks where usd_per_gpu_hour is not null
                   qualify row_number() over (partition by gpu_id, pick order by usd_per_gpu_hour, term) = 1
                   order by gpu_id, pick""",
    "offers": "select * exclude (age_days) from price_offers order by provider, gpu_id, usd_per_gpu_hour",
    "inference": "select * from inference_estimates order by model_id, gpu_id, precision",
    "training": "select * from training_estimates order by model_id, gpu_id, method",
}


def api_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    built = dt.date.today().isoformat()
    gpus = con.execute(API_QUERIES["gpus"]).df()
    cheapest = con.execute(API_QUERIES["cheapest"]).df()
    cheap_by: dict[str, list] = {}
    for r in _records(cheapest):
        cheap_by.setdefault(r.pop("gpu_id"), []).append(r)
    # full precision: Compare divides by the GPU count and rounds, as the GPU pages do
    serving = {
        r["gpu_id"]: {k: _clean(v, None) for k, v in r.items()}
        for r in con.execute("select * from reference_serving").df().to_dict(orient="records")
    }
    training_speed = {
        (g, m): v
        for g, m, v in con.execute("""
        select gpu_id, method, tokens_per_s_per_gpu from training_estimates
        where model_id = (select value from parameters where name = 'reference_training_model')
          and method in ('full', 'lora')""").fetchall()
    }
    gpu_records = []
    for g in _records(gpus):
        g["cheapest"] = cheap_by.get(g["gpu_id"], [])
        s = serving.get(g["gpu_id"], {})
        g["serving_tokens_per_s"] = s.get("expected_tokens_per_s")
        g["serving_tokens_per_s_bound"] = s.get("bound_tokens_per_s")
        g["serving_gpus"] = s.get("gpus_used")
        g["training_tokens_per_s_per_gpu"] = _clean(training_speed.get((g["gpu_id"], "full")))
        g["lora_tokens_per_s_per_gpu"] = _clean(training_speed.get((g["gpu_id"], "lora")))
        gpu_records.append(g)
    offers = con.execute(API_QUERIES["offers"]).df()
    inference = con.execute(API_QUERIES["inference"]).df()
    training = con.execute(API_QUERIES["training"]).df()
    fits = con.execute("""select f.gpu_id, f.precision, f.model_id, m.name, m.params_b
                          from vram_fit as f join models as m using (model_id)
                          where f.workload = 'inference' and f.kv_precision = 'bf16' and f.batch_size = 1
                            and f.gpu_count = 1 and f.fits and f.precision in ('bf16', 'fp8', 'int4')
                            and f.context_tokens = least(4096, coalesce(m.max_context, 4096))
                          qualify row_number() over (partition by f.gpu_id, f.precision
                                                     order by m.params_b desc, f.model_id) = 1
                          order by all""").df()
    fit_by: dict[str, dict] = {}
    for r in _records(fits):
        fit_by.setdefault(r["gpu_id"], {})[r["precision"]] = {
            "model_id": r["model_id"],
            "name": r["name"],
            "params_b": r["params_b"],
        }
    head = {"schema_version": SCHEMA_VERSION, "built_on": built}
    return {
        f"{API}/schema.json": json.dumps(SCHEMA, indent=1),
        f"{API}/openapi.json": json.dumps(openapi.document(con, API_QUERIES, SCHEMA["description"]), indent=1),
        f"{API}/gpus.json": _json({**head, "gpus": gpu_records}),
        f"{API}/offers.json": _json({**head, "offers": _records(offers)}),
        f"{API}/estimates.json": _json({**head, "inference": _records(inference), "training": _records(training)}),
        f"{API}/fits.json": _json({**head, "largest_model_on_one_gpu": fit_by}),
        "feeds/prices.atom": price_feed(con),
        "llms.txt": llms_txt(con, built),
    }


def llms_txt(con: duckdb.DuckDBPyConnection, built: str) -> str:
    """The site's summary for language models (the llms.txt convention): what it is, what each number is, and
    where the pages, the JSON files and the database are."""
    n_gpus, n_models, n_providers = con.execute(
        "select (select count(*) from gpus), (select count(*) from models), "
        "(select count(distinct provider) from price_offers)"
    ).fetchone()
    return "\n".join(
        [
            "# GPU Atlas",
            "",
            f"> Which GPU, how many, where and at what cost, for serving and fine-tuning LLMs: {n_gpus} GPU variants "
            f"(dense TFLOPS per GPU module, each figure with its source), {n_models} LLMs (parameter counts and KV cache from "
            f"their official configs), cloud prices from {n_providers} providers (one like-for-like pick per GPU and "
            f"tier, each with its date), and serving and training estimates: bounds no deployment exceeds, and "
            f"expectations calibrated on published measurements. Built {built}.",
            "",
            "Every figure names its source; a missing figure is missing, never 0. GB = 10^9 bytes.",
            "",
            "## Pages",
            "",
            "- [Planner](planner/): ranked machines to rent for a model, users, prompt and answer lengths, with $ per "
            "million input and output tokens",
            "- [Compare](compare/): two to four GPUs side by side",
            "- [GPUs](gpus/): every GPU variant's figures, prices and fits",
            "- [Models](models/): the LLM catalogue, parameter counts checked against the cards, layer layouts",
            "- [VRAM fit](vram-fit/): which models fit on which GPUs",
            "- [Cloud prices](prices/): every current offer and the picks",
            "- [Methodology](methodology/): every formula and assumption",
            "- [Measured vs estimated](measured/): the estimates against published measurements",
            "",
            "## Data",
            "",
            "- [OpenAPI description of the JSON files](api/v1/openapi.json)",
            "- [gpus.json](api/v1/gpus.json), [offers.json](api/v1/offers.json), "
            "[estimates.json](api/v1/estimates.json), [fits.json](api/v1/fits.json)",
            "- [The DuckDB database](downloads/gpu_atlas.duckdb): every public view; query it with the `duckdb` client",
            "- [Data page](data/): the views, their columns and example queries",
            "- An MCP server for assistants: `gpu-atlas mcp` in a checkout (tools plan, fit, gpu, compare_gpus, prices, "
            "sql)",
            "",
        ]
    )


def price_feed(con: duckdb.DuckDBPyConnection) -> str:
    """An Atom feed: one entry per provider snapshot compared with its previous one."""
    ch = con.execute("""select c.*, g.name from price_changes as c left join gpus as g using (gpu_id)
                        where change in ('added', 'removed', 'replaced', 'repriced')
                        order by current_observed_on desc nulls last, provider, change, offering, pricing_tier,
                                 statistic, region, gpu_count, provider_gpu_name""").df()
    entries = []
    updated = None
    for (provider, prev_on, cur_on), part in ch.groupby(
        ["provider", "previous_observed_on", "current_observed_on"], dropna=False, sort=False
    ):
        day = str(cur_on)[:10] if pd.notna(cur_on) else str(prev_on)[:10]
        updated = max(updated or day, day)
        lines = []
        for c in part.itertuples():
            gpu = c.name if isinstance(c.name, str) else c.provider_gpu_name
            if c.change == "repriced":
                lines.append(
                    f"{gpu} · {c.offering} · {c.pricing_tier} · {c.region}: "
                    f"${c.previous_usd_per_gpu_hour:.3f} → ${c.current_usd_per_gpu_hour:.3f} per GPU-hour "
                    f"({c.change_pct:+.1f}%)"
                )
            else:
                price = c.current_usd_per_gpu_hour if c.change == "added" else c.previous_usd_per_gpu_hour
                lines.append(
                    f"{c.change}: {gpu} · {c.offering} · {c.pricing_tier} · {c.region} (${price:.3f} per GPU-hour)"
                )
        counts = part["change"].value_counts().to_dict()
        title = f"{provider}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f" ({day})"
        content = "\n".join(xml_escape(line) for line in lines)
        entries.append(f"""  <entry>
    <id>tag:gpu-atlas,{day}:prices/{xml_escape(str(provider))}/{day}</id>
    <title>{xml_escape(title)}</title>
    <updated>{day}T00:00:00Z</updated>
    <link href="../changes/"/>
    <content type="text">{content}</content>
  </entry>""")
    return "\n".join(
        [
            '<?xml version="1.0" encoding="utf-8"?>',
            '<feed xmlns="http://www.w3.org/2005/Atom">',
            "  <id>tag:gpu-atlas,2026:prices</id>",
            "  <title>GPU Atlas: cloud GPU price changes</title>",
            f"  <updated>{updated or dt.date.today().isoformat()}T00:00:00Z</updated>",
            "  <author><name>GPU Atlas</name></author>",
            '  <link rel="self" href="prices.atom"/>',
            *entries,
            "</feed>",
            "",
        ]
    )


def weights_label(con: duckdb.DuckDBPyConnection, q: Question) -> str:
    """'FP8 weights', or for the checkpoint's own format 'weights as the checkpoint ships them (MXFP4-MOE)'."""
    if q.precision != "native":
        return f"{q.precision.upper()} weights"
    found = con.execute(
        "select resolved_format from serving_models where model_id = ? and format = 'native'", [q.model]
    ).fetchone()
    return f"weights as the checkpoint ships them ({found[0].upper() if found else 'unknown'})"


# ----------------------------------------------------------------------------- home
HOME_QUESTIONS = [  # (question, the Planner's question)
    (
        "Cheapest way to serve gpt-oss-120b, as it ships (MXFP4 experts), to 50 users at 30 tokens/s each",
        Question(
            model="gpt-oss-120b",
            precision="native",
            users=50,
            input_tokens=2000,
            output_tokens=500,
            min_tokens_per_user=30,
        ),
    ),
    (
        "Cheapest way to serve a 70B model to 50 users at 20 tokens/s each",
        Question(
            model="llama-3.3-70b",
            precision="fp8",
            users=50,
            input_tokens=2000,
            output_tokens=500,
            min_tokens_per_user=20,
        ),
    ),
    (
        "Cheapest way to serve an 8B model to 50 users at 30 tokens/s each",
        Question(
            model="llama-3.1-8b",
            precision="bf16",
            users=50,
            input_tokens=2000,
            output_tokens=500,
            min_tokens_per_user=30,
        ),
    ),
]


def home_page(con: duckdb.DuckDBPyConnection) -> str:
    ranks = con.execute("""select r.*, g.name from rankings as r join gpus as g using (gpu_id)
                           order by workload, rank, gpu_id""").df()
    counts = con.execute("""select (select count(*) from gpus), (select count(distinct provider) from price_offers),
                                   (select count(*) from price_offers), (select count(*) from models),
                                   (select max(observed_on) from price_offers),
                                   (select count(*) from spec_claims where claim_id like 'claim:%')""").fetchone()
    answers = []

    def names(rows) -> str:
        return " and ".join(link(r.name, f"gpus/{r.gpu_id}.md") for r in rows.itertuples())

    for workload in ("training", "inference"):
        w = ranks[ranks.workload == workload]
        top = w[w["rank"] == w["rank"].min()]
        tie = " (a tie)" if len(top) > 1 else ""
        r = top.iloc[0]
        answers.append(
            [
                f"Best GPU for {workload}",
                names(top) + tie,
                f"highest {workload} score, {r.score:.1f} of 100 ([how it is scored]({workload}.md))",
            ]
        )
    for workload in ("training", "inference"):
        w = ranks[(ranks.workload == workload) & ranks.value_rank.notna()]
        top = w[w.value_rank == w.value_rank.min()]
        tie = " (a tie)" if len(top) > 1 else ""
        r = top.iloc[0]
        answers.append(
            [
                f"Best {workload} value per dollar",
                names(top) + tie,
                f"{workload} score {r.score:.1f} ÷ cheapest on-demand {money(r.cheapest_usd_per_gpu_hour, 2)}/GPU-hour "
                f"= {num(r.score_per_usd)} points per $ (the highest)",
            ]
        )
    known = max_contexts(con)
    questions = [validate(q, known) for _, q in HOME_QUESTIONS]
    options = plan_options(con, pd.DataFrame([q.scenario() for q in questions]))
    for i, ((question, _), q) in enumerate(zip(HOME_QUESTIONS, questions)):
        opts = options[options.scenario_id == i + 1]
        url = question_url(q)
        if opts.empty:
            answers.append([question, "no rentable machine holds it", f'<a href="{url}">Planner</a>'])
            continue
        best = opts.iloc[0]
        ties = opts[opts.usd_per_million_tokens <= 1.005 * best.usd_per_million_tokens]
        what = " or ".join(
            f"{int(o.instance_gpus)} × {link(o.gpu_name, f'gpus/{o.gpu_id}.md')} on {esc(o.provider)}"
            for o in ties.head(3).itertuples()
        )
        answers.append(
            [
                question,
                what + (" (a tie)" if len(ties) > 1 else ""),
                f"{esc(best.model_name)}, {weights_label(con, q)}, {plural(q.users, 'user', 'users')}, "
                f"{q.input_tokens:,} input / {q.output_tokens:,} output tokens: "
                f"{money(best.usd_per_million_input_tokens, 3)} per million input and "
                f"{money(best.usd_per_million_output_tokens, 2)} per million output tokens, "
                f"{fixed(best.expected_tokens_per_s_per_user, 0)} tokens/s per user expected, "
                f"{money(best.usd_per_hour, 2)}/hour, "
                f"price of {seen(best.observed_on, best.observed_date_known)}; "
                f'<a href="{url}">other options in the Planner</a>',
            ]
        )
    cheapest = con.execute("""select p.gpu_id, g.name, p.usd_per_gpu_hour, p.provider, p.offering, p.observed_on,
                                     p.observed_date_known
                              from price_picks as p join gpus as g using (gpu_id)
                              where p.pick = 'on-demand' and p.usd_per_gpu_hour is not null
                              order by coalesce(g.bf16_tflops, g.fp16_tflops) desc nulls last, g.name""").df()
    cheap_rows = [
        [
            link(c.name, f"gpus/{c.gpu_id}.md"),
            money(c.usd_per_gpu_hour, 3),
            esc(c.provider),
            esc(c.offering),
            seen(c.observed_on, c.observed_date_known),
        ]
        for c in cheapest.itertuples()
    ]
    return (
        "\n".join(
            [
                "# GPU Atlas",
                "",
                "Which GPU should you rent or buy to train or serve a model, and what will it cost? "
                "**[Open the Planner](planner.md)**: pick a model, a workload and a load, and get every deployment ranked "
                "by cost, with its fit, speed and price date. Or [compare GPUs](compare.md) side by side.",
                "",
                "## Answers",
                "",
                table(["Question", "Answer", "Why"], answers),
                "",
                f"**{counts[0]} GPU variants · {counts[3]} models · {counts[2]} offers from {counts[1]} providers · "
                f"{counts[5]} article claims checked.** Built {dt.date.today().isoformat()}; newest price snapshot "
                f"{counts[4]}. Dense figures only, SXM and PCIe kept apart, every figure linked to its source, every "
                "estimate with its formula ([Methodology](methodology.md)).",
                "",
                "See the [training](training.md) and [inference](inference.md) rankings, [cost per TFLOP](cost-per-tflop.md), "
                "[VRAM fit](vram-fit.md), [cloud prices](prices.md), [what changed](changes.md) and the [data](data.md) "
                "(DuckDB, Parquet, JSON, an Atom feed of price changes).",
                "",
                "## Cheapest current on-demand price per GPU",
                "",
                "The one on-demand price every estimate, ranking and page uses: fresh, comparable, a list price or a median "
                "over enough listings ([how it is chosen](prices.md#prices-used)).",
                "",
                table(["GPU", "$/GPU-hour", "Provider", "Offering", "Observed"], cheap_rows, sortable=True),
                "",
            ]
        )
        + "\n"
    )


def site_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return {**planner_files(con), **compare_files(con), **api_files(con), "index.md": home_page(con)}
