"""The Planner, Compare and the machine-readable files (JSON API, Atom feed of price changes).

Every file here is read from the public views, so the estimates and prices flow in as they change."""

from __future__ import annotations

import datetime as dt
import json
import math
from xml.sax.saxutils import escape as xml_escape

import duckdb
import pandas as pd

from pipeline.plan import SERVE_PRECISIONS, USERS, WORKLOAD_LABELS, plan_options

from .markdown import age, esc, link, money, num, seen, table

API = "api/v1"
SCHEMA_VERSION = 1
TOP = 10  # options kept per scenario in the Planner's data
WEB_TIERS = ("on-demand", None)
DEFAULT = {"model": "llama-3.1-70b", "workload": "serve", "precision": "fp8", "context": 32768, "users": 16,
           "tier": "on-demand"}
OPTION_COLUMNS = ["rank", "gpu_id", "gpu_name", "gpu_count", "provider", "offering", "instance_gpus", "pricing_tier",
                  "statistic", "region", "usd_per_hour", "required_gb", "capacity_gb", "headroom_gb",
                  "bound_tokens_per_s", "expected_tokens_per_s", "expected_tokens_per_s_per_user", "limited_by",
                  "usd_per_million_tokens", "job_tokens", "job_hours", "usd_per_job", "observed_on", "why"]


def _clean(value):
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return float(f"{value:.4g}")
    if hasattr(value, "isoformat"):
        return value.isoformat()[:10]
    if isinstance(value, (list, tuple)) or (hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0):
        return [_clean(v) for v in list(value)]  # list columns (a snapshot's scope)
    if hasattr(value, "item"):
        return _clean(value.item())
    return value


def _json(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _records(frame: pd.DataFrame) -> list[dict]:
    return [{k: _clean(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


def scenarios(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every choice the Planner offers: serving at each weight format, context (as vram_fit has it for the model)
    and user count, and each training workload, for each pricing tier the page offers."""
    contexts = con.execute("""select distinct model_id, context_tokens from vram_fit
                              where workload = 'inference' order by all""").df()
    rows = []
    for c in contexts.itertuples():
        for precision in SERVE_PRECISIONS:
            for users in USERS:
                for tier in WEB_TIERS:
                    rows.append({"model_id": c.model_id, "workload": "serve", "precision": precision,
                                 "context_tokens": int(c.context_tokens), "users": users, "tokens": None, "tier": tier})
    for model in contexts.model_id.unique():
        for workload in ("full", "lora", "qlora", "pretrain"):
            for tier in WEB_TIERS:
                rows.append({"model_id": model, "workload": workload, "precision": None, "context_tokens": None,
                             "users": 1, "tokens": None if workload == "pretrain" else 1e9, "tier": tier})
    return pd.DataFrame(rows)


def scenario_key(workload, precision, context, users, tier) -> str:
    if workload == "serve":
        return f"serve|{precision}|{int(context)}|{int(users)}|{tier or 'any'}"
    return f"{workload}|{tier or 'any'}"


def planner_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    scen = scenarios(con)
    options = plan_options(con, scen)
    options = options[options["rank"] <= TOP]
    models = con.execute("""select model_id, name, params_b, active_params_b, max_context from models
                            order by params_b, model_id""").df()
    contexts = scen[scen.workload == "serve"].groupby("model_id")["context_tokens"].apply(
        lambda s: sorted(set(int(v) for v in s))).to_dict()
    files = {}
    # one pass over the ranked options (already ordered by scenario and rank), not one pandas group per scenario
    keys = [scenario_key(w, p, c, u, t if isinstance(t, str) else None) for w, p, c, u, t in
            options[["workload", "precision", "context_tokens", "users", "tier"]].itertuples(index=False, name=None)]
    rows = [[_clean(v) for v in row] for row in options[OPTION_COLUMNS].itertuples(index=False, name=None)]
    by_model: dict[str, dict[str, list]] = {}
    for model_id, key, row in zip(options["model_id"], keys, rows):
        by_model.setdefault(model_id, {}).setdefault(key, []).append(row)
    for model_id in sorted(by_model):
        files[f"{API}/plan/{model_id}.json"] = _json({"schema_version": SCHEMA_VERSION, "model_id": model_id,
                                                      "columns": OPTION_COLUMNS, "scenarios": by_model[model_id]})
    index = {"schema_version": SCHEMA_VERSION, "default": DEFAULT, "users": list(USERS),
             "precisions": list(SERVE_PRECISIONS), "workloads": WORKLOAD_LABELS, "tiers": ["on-demand", "any"],
             "models": [{"model_id": m.model_id, "name": m.name, "params_b": _clean(m.params_b),
                         "contexts": contexts.get(m.model_id, [])} for m in models.itertuples()]}
    files[f"{API}/plan/index.json"] = _json(index)
    d = DEFAULT
    first = options[(options.model_id == d["model"]) & (options.workload == "serve") & (options.precision == d["precision"])
                    & (options.context_tokens == d["context"]) & (options.users == d["users"])
                    & (options.tier == d["tier"])]
    files["planner.md"] = planner_page(first, index)
    return files


def options_table(options: pd.DataFrame, serve: bool = True) -> str:
    rows = []
    for o in options.itertuples():
        cost = (money(o.usd_per_million_tokens, 3) if serve else money(o.usd_per_job, 0))
        speed = f"{num(o.expected_tokens_per_s)} (bound {num(o.bound_tokens_per_s)})"
        rows.append([str(int(o.rank)), f"{int(o.gpu_count)} × " + link(o.gpu_name, f"gpus/{o.gpu_id}.md"),
                     esc(o.provider), esc(o.pricing_tier), cost, money(o.usd_per_hour, 2), speed,
                     f"{num(o.headroom_gb)} GB of {num(o.capacity_gb)}",
                     seen(o.observed_on, getattr(o, "observed_date_known", True)),
                     f'<span class="atlas-why">{esc(o.why)}</span>'])
    headers = ["#", "Deployment", "Provider", "Tier", "$/M tokens" if serve else "$ per job", "$/hour",
               "Tokens/s expected (bound)", "Headroom", "Price date", "Why this rank"]
    return table(headers, rows, low=[3, 5, 6, 7, 9])


def planner_page(first: pd.DataFrame, index: dict) -> str:
    d = DEFAULT
    model_name = next((m["name"] for m in index["models"] if m["model_id"] == d["model"]), d["model"])
    static = (options_table(first) if len(first) else "No option fits.")
    return "\n".join([
        "---", "hide:", "  - navigation", "  - toc", "---",
        "# Planner", "",
        "Pick a model, a workload and a load: every way to run it (GPU × count × provider × tier), ranked by cost.", "",
        '<form class="atlas-form" id="planner-form" data-api="../api/v1/plan/" aria-label="Planner choices">',
        '<label>Model <select name="model"></select></label>',
        '<label>Workload <select name="workload"></select></label>',
        '<label>Weights <select name="precision"></select></label>',
        '<label>Context tokens <select name="context"></select></label>',
        '<label>Concurrent users <select name="users"></select></label>',
        '<label>Training tokens (billions) <input name="tokens" type="number" min="0.001" step="any" value="1"></label>',
        '<label>Pricing tier <select name="tier"></select></label>',
        "</form>", "",
        f'<p id="planner-summary" aria-live="polite"><strong>{esc(model_name)}</strong>, serve, FP8 weights, '
        f'{d["context"]:,} tokens of context, {d["users"]} concurrent users, on-demand prices: '
        f'the {len(first)} cheapest options per million output tokens.</p>', "",
        '<div id="planner-results" markdown="1">', "", static, "", "</div>", "",
        "Serving: memory = weights + one KV cache per user + runtime overhead (`vram_fit`); GPUs = the smallest "
        "tensor-parallel degree (1, 2, 4 or 8) that holds it, or a whole multi-GPU instance. Bound = the roofline "
        "(memory bandwidth for the weights and KV caches read per step, or dense compute); expected = the same at the "
        "bandwidth efficiency and utilisation in `parameters`. A one-GPU offer is priced per GPU (n GPUs cost n × its "
        "price); a marketplace *minimum* is left out. Prices go stale: each shows its date and age. Training: the "
        "memory of the method at the training context, tokens/s = GPUs × dense 16-bit TFLOPS × MFU ÷ (6 × active "
        "parameters; 4 for LoRA and QLoRA). Formulas: [Methodology](methodology.md#planner). The same "
        "ranking from the command line: "
        "`gpu-atlas plan --model llama-3.1-70b --precision fp8 --context 32768 --users 16 [--json]`.", "",
        '<script src="../javascripts/planner.js" defer></script>', ""])


# ----------------------------------------------------------------------------- compare
def compare_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    gpus = con.execute("select * from gpus order by name").df()
    return {"compare.md": compare_page(gpus)}


def compare_page(gpus: pd.DataFrame) -> str:
    options = "".join(f'<option value="{esc(g.gpu_id)}">{esc(g.name)}</option>' for g in gpus.itertuples())
    pickers = "\n".join(f'<label>GPU {i + 1} <select name="g{i}"><option value="">–</option>{options}</select></label>'
                        for i in range(4))
    return "\n".join([
        "---", "hide:", "  - navigation", "  - toc", "---",
        "# Compare GPUs", "",
        "Pick two to four GPUs: their figures, cheapest current prices, the largest models that fit and the serving "
        "speed of a reference model, side by side. The address keeps the choice, so a comparison can be shared.", "",
        f'<form class="atlas-form" id="compare-form" data-api="../api/v1/" aria-label="GPUs to compare">\n{pickers}\n</form>',
        "", '<div id="compare-out"><p>Choose GPUs above (JavaScript needed).</p></div>', "",
        '<script src="../javascripts/compare.js" defer></script>', ""])


# ----------------------------------------------------------------------------- API files and feed
SCHEMA = {
    "schema_version": SCHEMA_VERSION,
    "description": "GPU Atlas static JSON files. Names are stable within a schema version; a breaking change "
                   "raises the version and moves the files to a new api/vN/ folder. Units are in the field names "
                   "(GB = 10^9 bytes; TFLOPS dense; INT8 in TOPS); a missing figure is null, never 0.",
    "files": {
        "gpus.json": "one object per GPU variant: the `gpus` view (figures) with `cheapest` current prices per tier "
                     "(marketplace minimums left out), `serving_tokens_per_s` (Llama 3.1 70B, FP8, serving batch, "
                     "`inference_estimates`) on `serving_gpus` GPUs and `training_tokens_per_s_per_gpu` (Llama 3.1 8B "
                     "full fine-tune, `training_estimates`)",
        "offers.json": "one object per current price offer: the `price_offers` view",
        "estimates.json": "serving estimates per model x GPU x weight format: the `inference_estimates` view, and "
                          "training estimates: the `training_estimates` view",
        "fits.json": "per GPU, the largest models that fit on one (inference, 4k context, batch 1, KV BF16)",
        "plan/index.json": "the Planner's choices; plan/<model_id>.json: its ranked options per scenario "
                           "(columns listed once, rows as arrays), from pipeline/sql/plan/plan_options.sql",
    },
}


def api_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    built = dt.date.today().isoformat()
    gpus = con.execute("select * from gpus order by gpu_id").df()
    cheapest = con.execute("""select gpu_id, pricing_tier, min(usd_per_gpu_hour) as usd_per_gpu_hour,
                                     arg_min(provider, usd_per_gpu_hour) as provider,
                                     arg_min(observed_on, usd_per_gpu_hour) as observed_on
                              from price_offers where gpu_id is not null and statistic <> 'minimum'
                              group by all order by all""").df()
    cheap_by: dict[str, list] = {}
    for r in _records(cheapest):
        cheap_by.setdefault(r.pop("gpu_id"), []).append(r)
    serving = {r["gpu_id"]: r for r in _records(con.execute("""
        select gpu_id, gpus_used, batch_decode_tokens_per_s from inference_estimates
        where model_id = 'llama-3.1-70b' and precision = 'fp8' and single_node""").df())}
    training_speed = dict(con.execute("""select gpu_id, tokens_per_s_per_gpu from training_estimates
                                         where model_id = 'llama-3.1-8b' and method = 'full'""").fetchall())
    gpu_records = []
    for g in _records(gpus):
        g["cheapest"] = cheap_by.get(g["gpu_id"], [])
        s = serving.get(g["gpu_id"], {})
        g["serving_tokens_per_s"] = s.get("batch_decode_tokens_per_s")
        g["serving_gpus"] = s.get("gpus_used")
        g["training_tokens_per_s_per_gpu"] = _clean(training_speed.get(g["gpu_id"]))
        gpu_records.append(g)
    offers = con.execute("select * exclude (age_days) from price_offers order by provider, gpu_id, usd_per_gpu_hour").df()
    inference = con.execute("select * from inference_estimates order by model_id, gpu_id, precision").df()
    training = con.execute("select * from training_estimates order by model_id, gpu_id, method").df()
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
        fit_by.setdefault(r["gpu_id"], {})[r["precision"]] = {"model_id": r["model_id"], "name": r["name"],
                                                              "params_b": r["params_b"]}
    head = {"schema_version": SCHEMA_VERSION, "built_on": built}
    return {
        f"{API}/schema.json": json.dumps(SCHEMA, indent=1),
        f"{API}/gpus.json": _json({**head, "gpus": gpu_records}),
        f"{API}/offers.json": _json({**head, "offers": _records(offers)}),
        f"{API}/estimates.json": _json({**head, "inference": _records(inference), "training": _records(training)}),
        f"{API}/fits.json": _json({**head, "largest_model_on_one_gpu": fit_by}),
        "feeds/prices.atom": price_feed(con),
    }


def price_feed(con: duckdb.DuckDBPyConnection) -> str:
    """An Atom feed: one entry per provider snapshot compared with its previous one."""
    ch = con.execute("""select c.*, g.name from price_changes as c left join gpus as g using (gpu_id)
                        where change in ('added', 'removed', 'replaced', 'repriced')
                        order by current_observed_on desc nulls last, provider, change, offering, pricing_tier,
                                 statistic, region, gpu_count, provider_gpu_name""").df()
    entries = []
    updated = None
    for (provider, prev_on, cur_on), part in ch.groupby(["provider", "previous_observed_on", "current_observed_on"],
                                                        dropna=False, sort=False):
        day = str(cur_on)[:10] if pd.notna(cur_on) else str(prev_on)[:10]
        updated = max(updated or day, day)
        lines = []
        for c in part.itertuples():
            gpu = c.name if isinstance(c.name, str) else c.provider_gpu_name
            if c.change == "repriced":
                lines.append(f"{gpu} · {c.offering} · {c.pricing_tier} · {c.region}: "
                             f"${c.previous_usd_per_gpu_hour:.3f} → ${c.current_usd_per_gpu_hour:.3f} per GPU-hour "
                             f"({c.change_pct:+.1f}%)")
            else:
                price = c.current_usd_per_gpu_hour if c.change == "added" else c.previous_usd_per_gpu_hour
                lines.append(f"{c.change}: {gpu} · {c.offering} · {c.pricing_tier} · {c.region} "
                             f"(${price:.3f} per GPU-hour)")
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
    return "\n".join([
        '<?xml version="1.0" encoding="utf-8"?>',
        '<feed xmlns="http://www.w3.org/2005/Atom">',
        "  <id>tag:gpu-atlas,2026:prices</id>",
        "  <title>GPU Atlas: cloud GPU price changes</title>",
        f"  <updated>{updated or dt.date.today().isoformat()}T00:00:00Z</updated>",
        "  <author><name>GPU Atlas</name></author>",
        '  <link rel="self" href="prices.atom"/>',
        *entries,
        "</feed>", ""])


# ----------------------------------------------------------------------------- home
HOME_SCENARIOS = [  # (question, model, precision, context, users)
    ("Cheapest way to serve a 70B model", "llama-3.1-70b", "fp8", 32768, 16),
    ("Cheapest way to serve an 8B model", "llama-3.1-8b", "bf16", 32768, 16),
]


def planner_url(model, precision, context, users, prefix="") -> str:
    return (f"{prefix}planner/?model={model}&amp;workload=serve&amp;precision={precision}&amp;context={context}"
            f"&amp;users={users}&amp;tier=on-demand")


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
        answers.append([f"Best GPU for {workload}", names(top) + tie,
                        f"highest {workload} score, {r.score:.1f} of 100 ([how it is scored]({workload}.md))"])
    for workload in ("training", "inference"):
        w = ranks[(ranks.workload == workload) & ranks.value_rank.notna()]
        top = w[w.value_rank == w.value_rank.min()]
        tie = " (a tie)" if len(top) > 1 else ""
        r = top.iloc[0]
        answers.append([f"Best {workload} value per dollar", names(top) + tie,
                        f"{workload} score {r.score:.1f} ÷ cheapest on-demand {money(r.cheapest_usd_per_gpu_hour, 2)}/GPU-hour "
                        f"= {num(r.score_per_usd)} points per $ (the highest)"])
    scen = pd.DataFrame([{"model_id": m, "workload": "serve", "precision": p, "context_tokens": c, "users": u,
                          "tokens": None, "tier": "on-demand"} for _, m, p, c, u in HOME_SCENARIOS])
    options = plan_options(con, scen)
    for i, (question, model, precision, context, users) in enumerate(HOME_SCENARIOS):
        opts = options[options.scenario_id == i + 1]
        url = planner_url(model, precision, context, users)
        if opts.empty:
            answers.append([question, "no priced offer holds it", f'<a href="{url}">Planner</a>'])
            continue
        best = opts.iloc[0]
        ties = opts[opts.usd_per_million_tokens <= 1.005 * best.usd_per_million_tokens]
        what = " or ".join(f"{int(o.gpu_count)} × {link(o.gpu_name, f'gpus/{o.gpu_id}.md')} on {esc(o.provider)}"
                           for o in ties.head(3).itertuples())
        answers.append([question, what + (" (a tie)" if len(ties) > 1 else ""),
                        f"{esc(best.model_name)}, {precision.upper()} weights, {context:,} tokens, {users} users: "
                        f"{money(best.usd_per_million_tokens, 2)} per million output tokens at "
                        f"{num(best.expected_tokens_per_s)} tokens/s expected, {money(best.usd_per_hour, 2)}/hour, "
                        f'price of {seen(best.observed_on, best.observed_date_known)}; '
                        f'<a href="{url}">other options in the Planner</a>'])
    cheapest = con.execute("""select p.gpu_id, g.name, p.usd_per_gpu_hour, p.provider, p.offering, p.observed_on,
                                     p.observed_date_known
                              from price_picks as p join gpus as g using (gpu_id)
                              where p.pick = 'on-demand' and p.usd_per_gpu_hour is not null
                              order by coalesce(g.bf16_tflops, g.fp16_tflops) desc nulls last, g.name""").df()
    cheap_rows = [[link(c.name, f"gpus/{c.gpu_id}.md"), money(c.usd_per_gpu_hour, 3), esc(c.provider), esc(c.offering),
                   seen(c.observed_on, c.observed_date_known)] for c in cheapest.itertuples()]
    return "\n".join([
        "# GPU Atlas", "",
        "Which GPU should you rent or buy to train or serve a model, and what will it cost? "
        "**[Open the Planner](planner.md)**: pick a model, a workload and a load, and get every deployment ranked "
        "by cost, with its fit, speed and price date. Or [compare GPUs](compare.md) side by side.", "",
        "## Answers", "",
        table(["Question", "Answer", "Why"], answers), "",
        f"**{counts[0]} GPU variants · {counts[3]} models · {counts[2]} offers from {counts[1]} providers · "
        f"{counts[5]} article claims checked.** Built {dt.date.today().isoformat()}; newest price snapshot "
        f"{counts[4]}. Dense figures only, SXM and PCIe kept apart, every figure linked to its source, every "
        "estimate with its formula ([Methodology](methodology.md)).", "",
        "See the [training](training.md) and [inference](inference.md) rankings, [cost per TFLOP](cost-per-tflop.md), "
        "[VRAM fit](vram-fit.md), [cloud prices](prices.md), [what changed](changes.md) and the [data](data.md) "
        "(DuckDB, Parquet, JSON, an Atom feed of price changes).", "",
        "## Cheapest current on-demand price per GPU", "",
        "The one on-demand price every estimate, ranking and page uses: fresh, comparable, a list price or a median "
        "over enough listings ([how it is chosen](prices.md#prices-used)).", "",
        table(["GPU", "$/GPU-hour", "Provider", "Offering", "Observed"], cheap_rows, sortable=True), ""]) + "\n"


def site_files(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return {**planner_files(con), **compare_files(con), **api_files(con), "index.md": home_page(con)}
