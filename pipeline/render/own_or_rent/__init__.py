"""Own or rent (seed 003's question): what an owned GPU or server costs per busy hour against renting the same,
the break-even utilisation, a calculator, and what GPUs one owns already run. A page family: `queries.sql` (SQL
over the public views), `context()` (query results to the template's values), `page.md.j2` (the page).

The calculator's answers come from `pipeline/sql/own/own_answer.sql` over the formulas of
`pipeline/sql/macros/ownership.sql` (those of the ownership_cost view): the build runs it for the page's first
answer, the page runs the same files in the browser with DuckDB-WASM (api/v1/own/) for any other."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
from markupsafe import Markup

from pipeline.config import SQL_DIR
from pipeline.db import question_sql

from ..api import API
from ..api.records import clean
from ..browser_sql import engine_files, import_map
from ..family import Family, programs_wanted
from ..i18n import _
from ..markdown import script_json, seen

FAMILY = Family(__file__)
OWN_SQL = SQL_DIR / "own" / "own_answer.sql"
# the calculator's question: one row of own_question per question (own-or-rent.js writes it as scenarios.csv)
QUESTION_COLUMNS = {
    "question_id": "integer",
    "gpus": "integer",
    "purchase_usd": "double",
    "busy_w": "double",
    "usd_per_kwh": "double",
    "hosting": "varchar",
    "years": "double",
    "busy_percent": "double",
    "rental_usd_per_gpu_hour": "double",
}


# the tables the calculator's DuckDB holds: core_parameters, the numbers param() reads
OWN_TABLES = {"core_parameters": FAMILY.queries["browser_core_parameters"]}
DEFAULT_GPU = "nvidia-rtx-4090-pcie-24gb"  # the calculator's first GPU: one card at home
DEFAULT_BUSY_PERCENT = 50


def answers(con: duckdb.DuckDBPyConnection, questions: pd.DataFrame) -> list[dict]:
    """own_answer.sql's rows for `questions` (columns of QUESTION_COLUMNS), as the page's script reads them."""
    con.register("_own_questions_in", questions.reindex(columns=list(QUESTION_COLUMNS)))
    try:
        con.execute(question_sql("own_question", QUESTION_COLUMNS, "_own_questions_in"))
    finally:
        con.unregister("_own_questions_in")
    frame = con.execute(OWN_SQL.read_text(encoding="utf-8")).df()
    return [{k: clean(v, None) for k, v in r.items()} for r in frame.to_dict("records")]


def default_question(gpus: list[dict], values: dict[str, float]) -> dict:
    """The calculator's first question: one RTX 4090 at home, bought at its launch price with its host, at its board
    power, the parameters' electricity price and years, half the hours busy, against its on-demand price pick (what
    the page's script fills the form with for any GPU and count)."""
    g = next(g for g in gpus if g["gpu_id"] == DEFAULT_GPU)
    return {
        "question_id": 1,
        "gpus": 1,
        "purchase_usd": round(g["purchase_usd"]),
        "busy_w": g["tdp_w"],
        "usd_per_kwh": values["electricity_usd_per_kwh"],
        "hosting": "home",
        "years": values["amortisation_years"],
        "busy_percent": DEFAULT_BUSY_PERCENT,
        "rental_usd_per_gpu_hour": g["rental_usd_per_gpu_hour"],
    }


def per_million(usd_per_hour: float | None, tokens_per_s: float | None) -> float | None:
    if usd_per_hour is None or not tokens_per_s:
        return None
    return usd_per_hour / (tokens_per_s * 3600) * 1e6


def context(con: duckdb.DuckDBPyConnection, engine: dict | None = None) -> dict:
    """The page's values; `engine`: the calculator's DuckDB-WASM entry (browser_sql.engine_files)."""
    owned = FAMILY.records(con, "ownership")
    parameters = FAMILY.records(con, "parameters")
    values = {p["name"]: float(p["value"]) for p in parameters}
    server = next(o for o in owned if o["ownership_scope"] == "server")
    rental = FAMILY.records(con, "server_rental")
    serving = {r["gpu_id"]: r for r in FAMILY.records(con, "llama_8b")}
    llama = []
    rtx, h100 = serving.get("nvidia-rtx-4090-pcie-24gb"), serving.get("nvidia-h100-sxm-80gb")
    if rtx:
        for h in FAMILY.records(con, "home_4090"):
            llama.append(
                {
                    "what": _("RTX 4090 owned, at home, busy %(share)s of hours") % {"share": f"{h['u']:.0%}"},
                    "usd_per_hour": h["usd_per_busy_gpu_hour"],
                    "tokens_per_s": rtx["tokens_per_s"],
                    "per_million": per_million(h["usd_per_busy_gpu_hour"], rtx["tokens_per_s"]),
                    "price": _("owned"),
                }
            )
    for r, gpu in ((rtx, "RTX 4090"), (h100, "H100 SXM")):
        if r and r["usd_per_gpu_hour"] is not None:
            llama.append(
                {
                    "what": _("%(gpu)s rented on demand (%(provider)s)") % {"gpu": gpu, "provider": r["provider"]},
                    "usd_per_hour": r["usd_per_gpu_hour"],
                    "tokens_per_s": r["tokens_per_s"],
                    "per_million": per_million(r["usd_per_gpu_hour"], r["tokens_per_s"]),
                    "price": Markup(seen(r["observed_on"], r["observed_date_known"])),
                }
            )
    data = {
        "parameters": values,
        "gpus": [
            {k: g[k] for k in ("gpu_id", "name", "tdp_w", "purchase_usd", "rental_usd_per_gpu_hour")}
            for g in FAMILY.records(con, "gpus")
        ],
    }
    question = default_question(data["gpus"], values)
    data["question"] = question
    data["question_gpu"] = DEFAULT_GPU
    data["answer"] = answers(con, pd.DataFrame([question]))[0]
    data["engine"] = engine
    return {
        "server": server,
        "years": values["amortisation_years"],
        "rental": rental[0] if rental else None,
        "owned": owned,
        "llama": llama,
        "batch": next((r["batch_size"] for r in serving.values()), None),
        "parameters": parameters,
        "calculator_json": script_json(data),
        "gpus": data["gpus"],
        "import_map": import_map(),
    }


def owned_runs(con: duckdb.DuckDBPyConnection) -> dict:
    """The data behind "I own these GPUs", fetched by the page when asked (too large to embed)."""
    by_gpu: dict[str, list] = {}
    for r in FAMILY.records(con, "owned_runs"):
        by_gpu.setdefault(r["gpu_id"], []).append([r["model"], r["precision"], r["gpus"], r["tokens_per_s"]])
    return {"columns": ["model", "precision", "gpus", "tokens_per_s"], "gpus": by_gpu}


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    # the calculator's engine files, written once for every edition (Family.once); only the default edition keeps
    # them, another edition's page reads its files
    files, engine = FAMILY.once(
        ("engine files",),
        lambda: engine_files(con, f"{API}/own", OWN_TABLES, OWN_SQL, "own_question", QUESTION_COLUMNS),
        lambda found: (dict(found[0]), found[1]),
    )
    programs = {}
    if programs_wanted():
        programs = {**files, "charts/owned-runs.json": json.dumps(owned_runs(con), separators=(",", ":"))}
    return {"own-or-rent.md": FAMILY.render("page.md.j2", **context(con, engine)), **programs}
