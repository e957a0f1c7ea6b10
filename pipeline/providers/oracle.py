"""Oracle Cloud's price list API: GPU parts billed per GPU-hour (one list for every region)."""

from __future__ import annotations

import datetime as dt
import re

import httpx

from pipeline.fetch import FetchError, Snapshot, _get

ORACLE_API = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/"

# OCI price-list parts billed per GPU-hour: (GPU name as sources/prices/oracle/aliases.csv spells it, memory GB).
# Parts not listed here (VMware, Cloud@Customer, Roving Edge, new GPUs) are left out and counted in the notes.
ORACLE_GPU_PARTS = {
    "B98415": ("H100", None),
    "B110519": ("H200", None),
    "B110978": ("B200", None),
    "B112237": ("B300", None),
    "B109479": ("L40S", None),
    "B109485": ("MI300X", None),
    "B95907": ("A100-80GB", 80),
    "B95909": ("A10", 24),
    "B89734": ("V100", 16),
    "B112613": ("RTX PRO 6000", None),
    "B110979": ("GB200", None),
    "B112140": ("GB300", None),
    "B111758": ("MI355X", None),
}
ORACLE_REQUIRED_KEYS = ("partNumber", "displayName", "metricName", "currencyCodeLocalizations")


def oracle_rows(payload: dict) -> tuple[list[dict], int]:
    """Pay-as-you-go USD prices per GPU-hour of the GPU parts above; and how many other GPU parts were skipped."""
    if not isinstance(payload, dict) or not isinstance(payload.get("items"), list):
        raise FetchError(f"unexpected response from {ORACLE_API}: no 'items' list")
    rows, skipped = [], 0
    for i, item in enumerate(payload["items"]):
        missing = [k for k in ORACLE_REQUIRED_KEYS if k not in item]
        if missing:
            raise FetchError(f"unexpected response from {ORACLE_API}: item {i} lacks {', '.join(missing)}")
        if item["metricName"] != "GPU Per Hour":
            continue
        if item["partNumber"] not in ORACLE_GPU_PARTS:
            skipped += 1
            continue
        prices = [
            p
            for loc in item["currencyCodeLocalizations"]
            if loc.get("currencyCode") == "USD"
            for p in loc.get("prices", [])
            if p.get("model") == "PAY_AS_YOU_GO"
        ]
        if not prices or float(prices[0]["value"]) <= 0:
            continue
        gpu_name, memory = ORACLE_GPU_PARTS[item["partNumber"]]
        rows.append(
            {
                "offering": f"{item['displayName'].strip()} (per GPU)",
                "gpu_name": gpu_name,
                "gpu_memory_gb": memory,
                "gpu_count": 1,
                "usd_per_hour": prices[0]["value"],
                "pricing_tier": "on-demand",
                "statistic": "list",
                "region": "all",
                "note": f"part {item['partNumber']}; pay as you go, GPU Per Hour (one price for every region)",
            }
        )
    return sorted(rows, key=lambda r: r["offering"]), skipped


def fetch_oracle(
    region: str | None = None, transport: httpx.BaseTransport | None = None, timeout: float = 30.0
) -> Snapshot:
    """OCI's public price list (no account): every GPU part priced per GPU-hour, one price for all regions."""
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        payload = _get(client, ORACLE_API, {"currencyCode": "USD"})
    rows, skipped = oracle_rows(payload)
    if not rows:
        raise FetchError(f"{ORACLE_API}: no GPU prices in the response")
    updated = str(payload.get("lastUpdated") or "")[:10]
    published = dt.date.fromisoformat(updated) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", updated) else None
    return Snapshot(
        "oracle",
        rows,
        ORACLE_API,
        "Oracle Cloud price list API: GPU parts per GPU-hour (all regions)",
        "Oracle",
        published,
        f"{len(rows)} GPU parts priced per GPU-hour; {skipped} other GPU-hour parts not mapped here were left out.",
    )


PROVIDER = "oracle"
API_ROOT = ORACLE_API
fetch = fetch_oracle
