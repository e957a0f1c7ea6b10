"""Akamai Cloud (Linode)'s public plan list: `GET https://api.linode.com/v4/linode/types` answers without an
account, one entry per plan with its GPU count and hourly price. The GPU model is named only in the plan's
label ("Dedicated 32GB + RTX6000 GPU x1", "RTX4000 Ada x2 Small")."""

from __future__ import annotations

import datetime as dt
import re

import httpx

from pipeline.fetch import FetchError, Snapshot, _get

LINODE_API = "https://api.linode.com/v4/linode/types"
# the GPU model in a plan label, as sources/prices/akamai/aliases.csv spells it ("RTX4000 Ada", "RTX6000")
MODEL = re.compile(r"\b(RTX\s?PRO\s?\d{4}(?:\s?Blackwell)?|RTX\s?\d{4}(?:\s?Ada)?|[AHL]\d{1,3}S?)\b", re.IGNORECASE)


def linode_rows(payload: dict) -> list[dict]:
    """Every plan with at least one GPU and an hourly price: whole machine per hour, all regions at one price
    (a region's own price, when the plan lists one, is kept apart)."""
    if not isinstance(payload, dict) or not isinstance(payload.get("data"), list):
        raise FetchError(f"unexpected response from {LINODE_API}: no 'data' list")
    if payload.get("pages", 1) != 1:
        raise FetchError(f"{LINODE_API}: the answer has {payload.get('pages')} pages; only one is read")
    rows = []
    for plan in payload["data"]:
        gpus = plan.get("gpus") or 0
        if not isinstance(gpus, int) or gpus < 1:
            continue  # CPU plans, and video transcoding cards (gpus 0)
        label = str(plan.get("label") or "")
        found = MODEL.search(label)
        if not found:
            raise FetchError(f"{LINODE_API}: plan {plan.get('id')} ({label!r}) names no GPU model we can read")
        hourly = (plan.get("price") or {}).get("hourly")
        if not isinstance(hourly, (int, float)) or hourly <= 0:
            continue
        memory = plan.get("memory")
        host = f"; {plan.get('vcpus')} vCPU, {round(memory / 1024)} GB RAM" if isinstance(memory, int) else ""
        prices = [("all", float(hourly))] + [
            (str(p.get("id")), float(p["hourly"]))
            for p in plan.get("region_prices") or []
            if isinstance(p, dict) and isinstance(p.get("hourly"), (int, float)) and p["hourly"] > 0
        ]
        for region, price in prices:
            rows.append(
                {
                    "offering": str(plan.get("id")),
                    "gpu_name": found.group(1),
                    "gpu_memory_gb": None,
                    "gpu_count": gpus,
                    "usd_per_hour": price,
                    "pricing_tier": "on-demand",
                    "statistic": "list",
                    "region": region,
                    "note": f"plan {plan.get('id')} ({label}){host}"
                    + ("" if region == "all" else f"; the price in {region}"),
                }
            )
    return rows


def fetch_akamai(
    region: str | None = None, transport: httpx.BaseTransport | None = None, timeout: float = 30.0
) -> Snapshot:
    """Linode's public plan list (no account): every GPU plan's hourly price."""
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        payload = _get(client, LINODE_API, None)
    rows = linode_rows(payload)
    if not rows:
        raise FetchError(f"{LINODE_API}: no GPU plan in the response")
    return Snapshot(
        "akamai",
        rows,
        LINODE_API,
        "Akamai Cloud (Linode) GPU plan prices (Linode API, linode/types)",
        "Akamai (Linode)",
        dt.date.today(),
        f"{len({r['offering'] for r in rows})} GPU plans of {len(payload['data'])} plans; whole machine per hour, "
        "one price for every region unless a plan lists a region's own.",
    )


PROVIDER = "akamai"
API_ROOT = LINODE_API
fetch = fetch_akamai
