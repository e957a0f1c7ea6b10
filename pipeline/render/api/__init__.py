"""The machine-readable files: the versioned JSON files under api/v1/ (GPUs with their price picks and reference
speeds, offers, estimates, fits, the schema and its OpenAPI description), llms.txt for language models and the
Atom feed of price changes.

Names are stable within a schema version: `API` is the folder and `SCHEMA_VERSION` the version every file states.
The Planner's own files (api/v1/plan/) are written by `pipeline/render/planner/`, with the helpers of
`records.py`."""

from __future__ import annotations

import datetime as dt
import json
from xml.sax.saxutils import escape as xml_escape

import duckdb
import pandas as pd
from markupsafe import Markup

from .. import openapi
from ..family import Family
from .records import clean, dumps, records

FAMILY = Family(__file__, locales=("en",))  # files for programs: English only
API = "api/v1"
SCHEMA_VERSION = 1
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
        "plan/tables/<view>.json": "the rows of each view pipeline/sql/plan/plan_options.sql reads (an array of "
        "objects, full precision; vram_fit: the training fits of machines one can rent), loaded at their types "
        "by the statements of plan/index.json's `engine`; the page runs plan/sql/ (the macros and "
        "plan_options.sql, as the command line does) over them with DuckDB-WASM",
        "plan/training/<model_id>.json": "ranked training options per workload and tier at the default token budget "
        "(hours and cost are proportional to the tokens)",
    },
}
# the rows of each JSON file, one query each: the files are written from them and openapi.json describes them
API_QUERIES = {name: FAMILY.queries[name] for name in ("gpus", "cheapest", "offers", "inference", "training")}


def xml_text(value) -> Markup:
    """Text escaped for XML (& < >), for the Atom feed."""
    return Markup(xml_escape(str(value)))


FAMILY.env.filters["xml"] = xml_text


def json_files(
    gpus: pd.DataFrame,
    cheapest: pd.DataFrame,
    offers: pd.DataFrame,
    inference: pd.DataFrame,
    training: pd.DataFrame,
    reference_serving: pd.DataFrame,
    reference_training: pd.DataFrame,
    fits: pd.DataFrame,
    built: str,
) -> dict[str, str]:
    """gpus.json, offers.json, estimates.json and fits.json from the rows of their queries."""
    cheap_by: dict[str, list] = {}
    for r in records(cheapest):
        cheap_by.setdefault(r.pop("gpu_id"), []).append(r)
    # full precision: Compare divides by the GPU count and rounds, as the GPU pages do
    serving = {
        r["gpu_id"]: {k: clean(v, None) for k, v in r.items()} for r in reference_serving.to_dict(orient="records")
    }
    training_speed = {(r.gpu_id, r.method): r.tokens_per_s_per_gpu for r in reference_training.itertuples()}
    gpu_records = []
    for g in records(gpus):
        g["cheapest"] = cheap_by.get(g["gpu_id"], [])
        s = serving.get(g["gpu_id"], {})
        g["serving_tokens_per_s"] = s.get("expected_tokens_per_s")
        g["serving_tokens_per_s_bound"] = s.get("bound_tokens_per_s")
        g["serving_gpus"] = s.get("gpus_used")
        g["training_tokens_per_s_per_gpu"] = clean(training_speed.get((g["gpu_id"], "full")))
        g["lora_tokens_per_s_per_gpu"] = clean(training_speed.get((g["gpu_id"], "lora")))
        gpu_records.append(g)
    fit_by: dict[str, dict] = {}
    for r in records(fits):
        fit_by.setdefault(r["gpu_id"], {})[r["precision"]] = {
            "model_id": r["model_id"],
            "name": r["name"],
            "params_b": r["params_b"],
        }
    head = {"schema_version": SCHEMA_VERSION, "built_on": built}
    return {
        f"{API}/gpus.json": dumps({**head, "gpus": gpu_records}),
        f"{API}/offers.json": dumps({**head, "offers": records(offers)}),
        f"{API}/estimates.json": dumps({**head, "inference": records(inference), "training": records(training)}),
        f"{API}/fits.json": dumps({**head, "largest_model_on_one_gpu": fit_by}),
    }


def change_line(c) -> str:
    """One price change as a line of plain text (the feed entry's content)."""
    gpu = c.name if isinstance(c.name, str) else c.provider_gpu_name
    if c.change == "repriced":
        return (
            f"{gpu} · {c.offering} · {c.pricing_tier} · {c.region}: "
            f"${c.previous_usd_per_gpu_hour:.3f} → ${c.current_usd_per_gpu_hour:.3f} per GPU-hour "
            f"({c.change_pct:+.1f}%)"
        )
    price = c.current_usd_per_gpu_hour if c.change == "added" else c.previous_usd_per_gpu_hour
    return f"{c.change}: {gpu} · {c.offering} · {c.pricing_tier} · {c.region} (${price:.3f} per GPU-hour)"


def context(counts, changes: pd.DataFrame, built: str) -> dict:
    """llms.txt's counts and the Atom feed's entries: one per provider snapshot compared with its previous one.
    `built` is the build's date (the feed's date when no change is dated)."""
    entries = []
    updated = None
    for (provider, prev_on, cur_on), part in changes.groupby(
        ["provider", "previous_observed_on", "current_observed_on"], dropna=False, sort=False
    ):
        day = str(cur_on)[:10] if pd.notna(cur_on) else str(prev_on)[:10]
        updated = max(updated or day, day)
        counts_by = part["change"].value_counts().to_dict()
        entries.append(
            {
                "provider": str(provider),
                "day": day,
                "title": f"{provider}: " + ", ".join(f"{n} {k}" for k, n in sorted(counts_by.items())) + f" ({day})",
                "lines": [change_line(c) for c in part.itertuples()],
            }
        )
    return {
        "gpus": int(counts.gpus),
        "models": int(counts.models),
        "providers": int(counts.providers),
        "built": built,
        "entries": entries,
        "updated": updated or built,
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    built = dt.date.today().isoformat()
    frames = {
        name: FAMILY.frame(con, name)
        for name in (*API_QUERIES, "reference_serving", "reference_training", "fits", "price_changes")
    }
    changes = frames.pop("price_changes")
    ctx = context(FAMILY.rows(con, "counts")[0], changes, built)
    return {
        f"{API}/schema.json": json.dumps(SCHEMA, indent=1),
        f"{API}/openapi.json": json.dumps(openapi.document(con, API_QUERIES, SCHEMA["description"]), indent=1),
        **json_files(**frames, built=built),
        "feeds/prices.atom": FAMILY.render("prices.atom.j2", **ctx),
        "llms.txt": FAMILY.render("llms.txt.j2", **ctx),
    }
