"""Vast.ai's offer search API: the minimum and median on-demand price per GPU model over verified listings."""

from __future__ import annotations

import datetime as dt
import json

import httpx

from pipeline.fetch import FetchError, Snapshot, _get

VAST_API = "https://console.vast.ai/api/v0/bundles/"
# The search `vastai search offers` runs by default: verified hosts, rentable now, Vast's own machines
# (not external listings), on-demand (not interruptible bids).
VAST_QUERY = {
    "verified": {"eq": True},
    "external": {"eq": False},
    "rentable": {"eq": True},
    "type": "on-demand",
    "limit": 10000,
}
VAST_REQUIRED_KEYS = ("gpu_name", "gpu_ram", "num_gpus", "dph_total")
# Nominal memory sizes a card is sold with, in GB. Vast reports the usable MiB the driver sees (an
# "80 GB" H100 shows 81559 MiB, a "48 GB" L40S 46068 MiB with ECC on), so each offer is put in the
# smallest nominal size at or above 99% of what it reports: A100 40 GB and 80 GB stay apart.
NOMINAL_MEMORY_GB = (4, 6, 8, 10, 11, 12, 16, 20, 24, 32, 40, 48, 64, 80, 94, 96, 128, 141, 180, 192, 256, 288)


def nominal_memory_gb(mib: float) -> int | None:
    gib = mib / 1024 * 0.99
    return next((size for size in NOMINAL_MEMORY_GB if size >= gib), None)


def vast_rows(payload: dict, fetched_on: dt.date) -> list[dict]:
    """Marketplace minimum and median per GPU-hour of each GPU name and memory size, with their sample.

    An offer of n GPUs costs dph_total per hour for the machine: its per-GPU price is dph_total / n.
    """
    if not isinstance(payload, dict) or not isinstance(payload.get("offers"), list):
        raise FetchError(f"unexpected response from {VAST_API}: no 'offers' list")
    groups: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for i, offer in enumerate(payload["offers"]):
        missing = [k for k in VAST_REQUIRED_KEYS if not isinstance(offer, dict) or offer.get(k) is None]
        if missing:
            raise FetchError(f"unexpected response from {VAST_API}: offer {i} lacks {', '.join(missing)}")
        count, total, mib = int(offer["num_gpus"]), float(offer["dph_total"]), float(offer["gpu_ram"])
        memory = nominal_memory_gb(mib)
        if count < 1 or total <= 0 or memory is None:
            continue
        groups.setdefault((str(offer["gpu_name"]).strip(), memory), []).append((total / count, mib))
    rows = []
    for (name, memory), offers in sorted(groups.items()):
        prices = sorted(price for price, _ in offers)
        n = len(prices)
        median = prices[n // 2] if n % 2 else (prices[n // 2 - 1] + prices[n // 2]) / 2
        lo, hi = min(m for _, m in offers), max(m for _, m in offers)
        reported = f"{lo:.0f} MiB" if lo == hi else f"{lo:.0f}-{hi:.0f} MiB"
        for statistic, value in (("minimum", prices[0]), ("median", median)):
            rows.append(
                {
                    "offering": f"{name}, {memory} GB offers (verified, rentable)",
                    "gpu_name": name,
                    "gpu_memory_gb": memory,
                    "gpu_count": 1,
                    "usd_per_hour": round(value, 4),
                    "pricing_tier": "on-demand",
                    "statistic": statistic,
                    "region": "all",
                    "note": f"{statistic} per GPU-hour over {n} verified rentable on-demand offers "
                    f"(dph_total / num_gpus; GPUs report {reported}), fetched {fetched_on}; "
                    "marketplace prices move hourly",
                    "sample_size": n,
                }
            )
    return rows


def fetch_vastai(
    region: str | None = None,
    transport: httpx.BaseTransport | None = None,
    timeout: float = 60.0,
    on: dt.date | None = None,
) -> Snapshot:
    """Vast.ai's public offer search (no account): the minimum and median on-demand price per GPU model."""
    on = on or dt.date.today()
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        payload = _get(client, VAST_API, {"q": json.dumps(VAST_QUERY)})
    rows = vast_rows(payload, on)
    if not rows:
        raise FetchError(f"{VAST_API}: no priced GPU offers in the response")
    return Snapshot(
        "vastai",
        rows,
        VAST_API,
        "Vast.ai offer search API: minimum and median on-demand price per GPU model",
        "Vast.ai",
        on,
        f"{len(payload['offers'])} offers (verified, rentable, on-demand) in {len(rows) // 2} GPU models. "
        "Each offer is one host's machine; its per-GPU price is dph_total / num_gpus (GPU, host share "
        "and Vast's default disk allocation; bandwidth excluded). A median over fewer listings than "
        "marketplace_min_sample is kept but is not a price.",
        covers={"tiers": ["on-demand"]},
    )


PROVIDER = "vastai"
API_ROOT = VAST_API
fetch = fetch_vastai
