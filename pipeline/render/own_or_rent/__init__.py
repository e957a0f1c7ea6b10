"""Own or rent (seed 003's question): what an owned GPU or server costs per busy hour against renting the same,
the break-even utilisation, a calculator, and what GPUs one owns already run. A page family: `queries.sql` (SQL
over the public views), `context()` (query results to the template's values), `page.md.j2` (the page)."""

from __future__ import annotations

import json

import duckdb
from markupsafe import Markup

from ..family import Family, programs_wanted
from ..i18n import _
from ..markdown import script_json, seen

FAMILY = Family(__file__)
UTILISATIONS = (0.25, 0.5, 1.0)


def per_million(usd_per_hour: float | None, tokens_per_s: float | None) -> float | None:
    if usd_per_hour is None or not tokens_per_s:
        return None
    return usd_per_hour / (tokens_per_s * 3600) * 1e6


def context(con: duckdb.DuckDBPyConnection) -> dict:
    owned = FAMILY.records(con, "ownership")
    parameters = FAMILY.records(con, "parameters")
    values = {p["name"]: float(p["value"]) for p in parameters}
    server = next(o for o in owned if o["ownership_scope"] == "server")
    rental = FAMILY.records(con, "server_rental")
    home_4090 = next((o for o in owned if o["gpu_id"] == "nvidia-rtx-4090-pcie-24gb" and o["hosting"] == "home"), None)
    serving = {r["gpu_id"]: r for r in FAMILY.records(con, "llama_8b")}
    llama = []
    rtx, h100 = serving.get("nvidia-rtx-4090-pcie-24gb"), serving.get("nvidia-h100-sxm-80gb")
    if home_4090 and rtx:
        for u in UTILISATIONS:
            busy_hour = (home_4090["amortisation_usd_per_hour"] + home_4090["hosting_usd_per_hour"]) / u + home_4090[
                "power_usd_per_hour"
            ]
            llama.append(
                {
                    "what": _("RTX 4090 owned, at home, busy %(share)s of hours") % {"share": f"{u:.0%}"},
                    "usd_per_hour": busy_hour,
                    "tokens_per_s": rtx["tokens_per_s"],
                    "per_million": per_million(busy_hour, rtx["tokens_per_s"]),
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
        "items": [
            {
                k: o[k]
                for k in (
                    "item",
                    "gpu_id",
                    "hosting",
                    "purchase_usd",
                    "busy_kw",
                    "gpus",
                    "hosting_usd_per_hour",
                    "rental_usd_per_gpu_hour",
                )
            }
            for o in owned
            if o["ownership_scope"] == "gpu"
        ],
        "parameters": values,
        "gpus": [
            {k: g[k] for k in ("gpu_id", "name", "tdp_w", "launch_price_usd", "rental_usd_per_gpu_hour")}
            for g in FAMILY.records(con, "gpus")
        ],
    }
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
    }


def owned_runs(con: duckdb.DuckDBPyConnection) -> dict:
    """The data behind "I own these GPUs", fetched by the page when asked (too large to embed)."""
    by_gpu: dict[str, list] = {}
    for r in FAMILY.records(con, "owned_runs"):
        by_gpu.setdefault(r["gpu_id"], []).append([r["model"], r["precision"], r["gpus"], r["tokens_per_s"]])
    return {"columns": ["model", "precision", "gpus", "tokens_per_s"], "gpus": by_gpu}


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    files = {"own-or-rent.md": FAMILY.render("page.md.j2", **context(con))}
    if programs_wanted():
        files["charts/owned-runs.json"] = json.dumps(owned_runs(con), separators=(",", ":"))
    return files
