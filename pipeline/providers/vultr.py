"""Vultr's public plan list: `GET https://api.vultr.com/v2/plans?type=vcg` answers without an account, one
entry per Cloud GPU plan with its GPU type, GPU count (a share such as "1/8" for a fraction of a card), the
video memory allotted and the hourly cost."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import httpx

from pipeline.fetch import FetchError, Snapshot, _get

VULTR_API = "https://api.vultr.com/v2/plans"
VULTR_QUERY = {"type": "vcg", "per_page": 500}


def _share(raw) -> Fraction | None:
    try:
        return Fraction(str(raw).strip()) if raw not in (None, "") else None
    except (ValueError, ZeroDivisionError):
        return None


def vultr_rows(payload: dict) -> tuple[list[dict], int]:
    """Plans that rent whole GPUs (a fraction of a card is not a GPU one can rent; counted, left out), whole
    machine per hour; and how many fractional plans were left out."""
    if not isinstance(payload, dict) or not isinstance(payload.get("plans"), list):
        raise FetchError(f"unexpected response from {VULTR_API}: no 'plans' list")
    if ((payload.get("meta") or {}).get("links") or {}).get("next"):
        raise FetchError(f"{VULTR_API}: the answer has another page; only one is read")
    rows, fractional = [], 0
    for plan in payload["plans"]:
        gpu = plan.get("gpu_type")
        if not gpu or plan.get("gpu_brand") in (None, "", "none"):
            continue
        share, hourly = _share(plan.get("gpu_count")), plan.get("hourly_cost")
        if share is None or not isinstance(hourly, (int, float)) or hourly <= 0:
            raise FetchError(f"{VULTR_API}: plan {plan.get('id')} has no GPU count or hourly cost we can read")
        if share < 1 or share.denominator != 1:
            fractional += 1
            continue
        count, vram = int(share), plan.get("gpu_vram_gb")
        rows.append(
            {
                "offering": str(plan.get("id")),
                "gpu_name": str(gpu),
                "gpu_memory_gb": round(vram / count) if isinstance(vram, (int, float)) and vram > 0 else None,
                "gpu_count": count,
                "usd_per_hour": float(hourly),
                "pricing_tier": "on-demand",
                "statistic": "list",
                "region": "all",
                "note": f"plan {plan.get('id')}; {count} GPU(s), {vram} GB of video memory allotted; "
                f"{plan.get('vcpu_count')} vCPU, {round((plan.get('ram') or 0) / 1024)} GB RAM; "
                f"{len(plan.get('locations') or [])} locations",
            }
        )
    return rows, fractional


def fetch_vultr(
    region: str | None = None, transport: httpx.BaseTransport | None = None, timeout: float = 30.0
) -> Snapshot:
    """Vultr's public Cloud GPU plan list (no account): every plan of whole GPUs, per hour."""
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        payload = _get(client, VULTR_API, VULTR_QUERY)
    rows, fractional = vultr_rows(payload)
    if not rows:
        raise FetchError(f"{VULTR_API}: no plan of whole GPUs in the response")
    return Snapshot(
        "vultr",
        rows,
        VULTR_API,
        "Vultr Cloud GPU plan prices (Vultr API v2, plans of type vcg)",
        "Vultr",
        dt.date.today(),
        f"{len(rows)} plans of whole GPUs; {fractional} plans of a fraction of a GPU left out (not a GPU one can "
        "rent). Whole machine per hour, the same in every location a plan lists. Bare-metal GPU plans "
        "(another endpoint) are not read.",
    )


PROVIDER = "vultr"
API_ROOT = VULTR_API
fetch = fetch_vultr
