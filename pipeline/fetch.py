"""Fetch a price snapshot from a public, account-free price API and write it as a dated source.

Network is used only here, only when a user runs `gpu-atlas fetch-prices`. Tests replay recorded
responses through an httpx mock transport.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import yaml

AZURE_API = "https://prices.azure.com/api/retail/prices"

# Azure VM sizes with GPUs: (GPU name as Azure's size documentation gives it, memory GB, GPUs per VM).
# The names match sources/aliases/azure.csv, so fetched offers map like the curated snapshot's.
AZURE_GPU_SIZES = {
    "Standard_NC4as_T4_v3": ("NVIDIA T4", 16, 1),
    "Standard_NC8as_T4_v3": ("NVIDIA T4", 16, 1),
    "Standard_NC16as_T4_v3": ("NVIDIA T4", 16, 1),
    "Standard_NC64as_T4_v3": ("NVIDIA T4", 16, 4),
    "Standard_NC24ads_A100_v4": ("NVIDIA A100 PCIe", 80, 1),
    "Standard_NC48ads_A100_v4": ("NVIDIA A100 PCIe", 80, 2),
    "Standard_NC96ads_A100_v4": ("NVIDIA A100 PCIe", 80, 4),
    "Standard_NC40ads_H100_v5": ("NVIDIA H100 NVL", 94, 1),
    "Standard_NC80adis_H100_v5": ("NVIDIA H100 NVL", 94, 2),
    "Standard_ND40rs_v2": ("NVIDIA Tesla V100", 32, 8),
    "Standard_ND96asr_v4": ("NVIDIA Ampere A100 40GB", 40, 8),
    "Standard_ND96amsr_A100_v4": ("NVIDIA Ampere A100 80GB", 80, 8),
    "Standard_ND96isr_H100_v5": ("NVIDIA H100 Tensor Core", 80, 8),
    "Standard_NV36ads_A10_v5": ("NVIDIA A10", 24, 1),
    "Standard_NV36adms_A10_v5": ("NVIDIA A10", 24, 1),
    "Standard_NV72ads_A10_v5": ("NVIDIA A10", 24, 2),
}
REQUIRED_ITEM_KEYS = (
    "armSkuName",
    "armRegionName",
    "retailPrice",
    "unitOfMeasure",
    "type",
    "meterName",
    "productName",
    "currencyCode",
)
PRICE_COLUMNS = [
    "offering",
    "gpu_name",
    "gpu_memory_gb",
    "gpu_count",
    "usd_per_hour",
    "pricing_tier",
    "statistic",
    "region",
    "note",
]


class FetchError(RuntimeError):
    """The price API could not be read, or answered in a shape we do not understand."""


@dataclass
class Snapshot:
    provider: str
    rows: list[dict]
    url: str
    title: str
    publisher: str
    published_on: dt.date | None = None  # the source's own date when it prints one; else the fetch day
    notes: str = ""
    covers: dict | None = None  # what a partial snapshot covers (GPUs, regions, tiers); None: everything


RETRY_STATUS = (429, 500, 502, 503, 504)


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code in RETRY_STATUS:
        raise httpx.HTTPStatusError(f"HTTP {response.status_code}", request=response.request, response=response)
    response.raise_for_status()


def _with_retries(url: str, call, retries: int = 3, backoff: float = 1.0):
    """Run call(); retry timeouts, transport errors, 429 and 5xx with exponential backoff."""
    last: Exception | None = None
    for attempt in range(retries):
        try:
            return call()
        except (httpx.TimeoutException, httpx.HTTPStatusError, httpx.TransportError) as exc:
            last = exc
            status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else None
            if status is not None and status < 500 and status != 429:
                break
            if attempt + 1 < retries:
                time.sleep(backoff * 2**attempt)
    if isinstance(last, httpx.ConnectError):
        raise FetchError(f"cannot reach {httpx.URL(url).host}: are you offline? ({last})") from last
    if isinstance(last, httpx.TimeoutException):
        raise FetchError(f"{httpx.URL(url).host} did not answer in time after {retries} tries") from last
    raise FetchError(f"{url}: {last}") from last


def _get(client: httpx.Client, url: str, params: dict | None, retries: int = 3, backoff: float = 1.0) -> dict:
    def call():
        response = client.get(url, params=params)
        _raise_for_status(response)
        try:
            return response.json()
        except ValueError as exc:
            raise FetchError(f"{url}: the response is not JSON") from exc

    return _with_retries(url, call, retries, backoff)


def _stream_lines(client: httpx.Client, url: str, consume, retries: int = 3, backoff: float = 1.0):
    """GET url as a stream and hand its text lines to consume(lines); the whole read is retried."""

    def call():
        with client.stream("GET", url) as response:
            _raise_for_status(response)
            return consume(response.iter_lines())

    return _with_retries(url, call, retries, backoff)


def azure_items(client: httpx.Client, region: str, max_pages: int = 50) -> list[dict]:
    """All consumption (pay-as-you-go and spot) Linux VM prices of the GPU sizes above in one region."""
    skus = " or ".join(f"armSkuName eq '{sku}'" for sku in AZURE_GPU_SIZES)
    params: dict | None = {
        "$filter": f"serviceName eq 'Virtual Machines' and priceType eq 'Consumption' "
        f"and armRegionName eq '{region}' and ({skus})",
    }
    url, items = AZURE_API, []
    for _ in range(max_pages):
        page = _get(client, url, params)
        if not isinstance(page, dict) or "Items" not in page or not isinstance(page["Items"], list):
            raise FetchError(f"unexpected response from {AZURE_API}: no 'Items' list (keys: {sorted(page)[:10]})")
        for i, item in enumerate(page["Items"]):
            missing = [k for k in REQUIRED_ITEM_KEYS if k not in item]
            if missing:
                raise FetchError(f"unexpected response from {AZURE_API}: item {i} lacks {', '.join(missing)}")
        items += page["Items"]
        url, params = page.get("NextPageLink"), None
        if not url:
            return items
    raise FetchError(f"{AZURE_API}: more than {max_pages} pages; refusing to continue")


def azure_rows(items: list[dict]) -> list[dict]:
    rows = []
    for item in items:
        sku = item["armSkuName"]
        if sku not in AZURE_GPU_SIZES or item["type"] != "Consumption" or item["unitOfMeasure"] != "1 Hour":
            continue
        if "Windows" in item["productName"] or "Low Priority" in item["meterName"] or item["currencyCode"] != "USD":
            continue
        if float(item["retailPrice"]) <= 0:
            continue
        gpu_name, memory, count = AZURE_GPU_SIZES[sku]
        spot = "Spot" in item["meterName"]
        rows.append(
            {
                "offering": sku,
                "gpu_name": gpu_name,
                "gpu_memory_gb": memory,
                "gpu_count": count,
                "usd_per_hour": item["retailPrice"],
                "pricing_tier": "spot" if spot else "on-demand",
                "statistic": "list",
                "region": item["armRegionName"],
                "note": f"Linux; meter {item['meterName']}; effective {str(item.get('effectiveStartDate', ''))[:10]}",
            }
        )
    # one row per offering, tier and region: the API can list a meter twice (older effective dates)
    unique = {}
    for row in rows:
        unique[(row["offering"], row["pricing_tier"], row["region"])] = row
    return sorted(unique.values(), key=lambda r: (r["offering"], r["pricing_tier"]))


def fetch_azure(
    region: str = "eastus", transport: httpx.BaseTransport | None = None, timeout: float = 30.0
) -> Snapshot:
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        rows = azure_rows(azure_items(client, region))
    if not rows:
        raise FetchError(f"{AZURE_API}: no GPU VM prices for region {region!r}")
    return Snapshot(
        "azure", rows, AZURE_API, f"Azure Retail Prices API: GPU virtual machines in {region}", "Microsoft Azure"
    )


AWS_PRICING = "https://pricing.us-east-1.amazonaws.com"
AWS_REGION_INDEX = f"{AWS_PRICING}/offers/v1.0/aws/AmazonEC2/current/region_index.json"

# EC2 instance types with NVIDIA GPUs: (GPU name, memory GB per GPU, GPUs per instance). The names
# and memories are those of sources/prices/aws/2026-02-09 and match sources/aliases/aws.csv, so
# fetched offers map like the curated snapshot's (A10G and H200 have no alias row and stay unmapped).
# Composition as documented in that snapshot's sidecar (AWS EC2 User Guide, RAPIDS AWS table,
# the AWS GPU instance gist, tsaol/aws-gpu data files generated from instances.vantage.sh, dstack
# PR #4110). Added here: g4dn.2x/4x/8x/16xlarge (1x T4) and gr6.4x/8xlarge (1x L4) from
# tsaol/aws-gpu data/g4dn_instances.js and data/gr6_instances.js; p5e.48xlarge (8x H200,
# "1128 GB HBM3e" = 141 GB each) from tsaol/aws-gpu data/p5e_instances.js. Types whose GPU model,
# count or memory was not read from a source (g6f with GPU fractions, g5g, p6-b300, p6e-gb200, ...)
# are left out: their rows are dropped.
AWS_GPU_INSTANCES = {
    "p3.2xlarge": ("NVIDIA Tesla V100", 16, 1),
    "p3.8xlarge": ("NVIDIA Tesla V100", 16, 4),
    "p3.16xlarge": ("NVIDIA Tesla V100", 16, 8),
    "p3dn.24xlarge": ("NVIDIA Tesla V100", 32, 8),
    "p4d.24xlarge": ("NVIDIA A100", 40, 8),
    "p4de.24xlarge": ("NVIDIA A100", 80, 8),
    "p5.4xlarge": ("NVIDIA H100", 80, 1),
    "p5.48xlarge": ("NVIDIA H100", 80, 8),
    "p5e.48xlarge": ("NVIDIA H200", 141, 8),
    "p5en.48xlarge": ("NVIDIA H200", 141, 8),
    "p6-b200.48xlarge": ("NVIDIA B200", 179, 8),
    "g4dn.xlarge": ("NVIDIA T4", 16, 1),
    "g4dn.2xlarge": ("NVIDIA T4", 16, 1),
    "g4dn.4xlarge": ("NVIDIA T4", 16, 1),
    "g4dn.8xlarge": ("NVIDIA T4", 16, 1),
    "g4dn.16xlarge": ("NVIDIA T4", 16, 1),
    "g4dn.12xlarge": ("NVIDIA T4", 16, 4),
    "g4dn.metal": ("NVIDIA T4", 16, 8),
    "g5.xlarge": ("NVIDIA A10G", 24, 1),
    "g5.2xlarge": ("NVIDIA A10G", 24, 1),
    "g5.4xlarge": ("NVIDIA A10G", 24, 1),
    "g5.8xlarge": ("NVIDIA A10G", 24, 1),
    "g5.16xlarge": ("NVIDIA A10G", 24, 1),
    "g5.12xlarge": ("NVIDIA A10G", 24, 4),
    "g5.24xlarge": ("NVIDIA A10G", 24, 4),
    "g5.48xlarge": ("NVIDIA A10G", 24, 8),
    "g6.xlarge": ("NVIDIA L4", 24, 1),
    "g6.2xlarge": ("NVIDIA L4", 24, 1),
    "g6.4xlarge": ("NVIDIA L4", 24, 1),
    "g6.8xlarge": ("NVIDIA L4", 24, 1),
    "g6.16xlarge": ("NVIDIA L4", 24, 1),
    "g6.12xlarge": ("NVIDIA L4", 24, 4),
    "g6.24xlarge": ("NVIDIA L4", 24, 4),
    "g6.48xlarge": ("NVIDIA L4", 24, 8),
    "gr6.4xlarge": ("NVIDIA L4", 24, 1),
    "gr6.8xlarge": ("NVIDIA L4", 24, 1),
    "g6e.xlarge": ("NVIDIA L40S", 48, 1),
    "g6e.2xlarge": ("NVIDIA L40S", 48, 1),
    "g6e.4xlarge": ("NVIDIA L40S", 48, 1),
    "g6e.8xlarge": ("NVIDIA L40S", 48, 1),
    "g6e.16xlarge": ("NVIDIA L40S", 48, 1),
    "g6e.12xlarge": ("NVIDIA L40S", 48, 4),
    "g6e.24xlarge": ("NVIDIA L40S", 48, 4),
    "g6e.48xlarge": ("NVIDIA L40S", 48, 8),
}
# Columns of the EC2 offer file's header row (the sixth line, after five metadata lines) that the
# filter needs. The reserved-term columns are optional: without them only on-demand rows are kept.
AWS_REQUIRED_COLUMNS = (
    "TermType",
    "PricePerUnit",
    "Unit",
    "Currency",
    "Instance Type",
    "Tenancy",
    "Operating System",
    "Pre Installed S/W",
    "CapacityStatus",
    "Region Code",
)
AWS_RESERVED_COLUMNS = ("LeaseContractLength", "PurchaseOption", "OfferingClass")
AWS_MAX_PREAMBLE = 20  # metadata lines tolerated before the header row
# a cheap pre-filter so csv parses only lines naming one of the GPU instance types
_AWS_LINE = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(t) for t in AWS_GPU_INSTANCES) + r")(?![\w.-])")


def aws_region_csv_url(client: httpx.Client, region: str) -> str:
    """The CSV offer file of one region, from the EC2 region index."""
    index = _get(client, AWS_REGION_INDEX, None)
    regions = index.get("regions") if isinstance(index, dict) else None
    if not isinstance(regions, dict):
        raise FetchError(f"unexpected response from {AWS_REGION_INDEX}: no 'regions' mapping")
    if region not in regions:
        known = ", ".join(sorted(regions)[:12]) + (", ..." if len(regions) > 12 else "")
        raise FetchError(f"{AWS_REGION_INDEX} lists no region {region!r} (it lists {len(regions)}: {known})")
    entry = regions[region]
    path = entry.get("currentVersionUrl") if isinstance(entry, dict) else None
    if not isinstance(path, str) or not path.endswith("/index.json"):
        raise FetchError(
            f"unexpected response from {AWS_REGION_INDEX}: region {region!r} has no "
            f"currentVersionUrl ending in /index.json ({path!r})"
        )
    return AWS_PRICING + path[: -len("index.json")] + "index.csv"


def _aws_term(row: dict) -> str | None:
    """'on-demand', 'reserved' (1-year, No Upfront, standard) or None for every other term."""
    if row["TermType"] == "OnDemand":
        return "on-demand"
    if (
        row["TermType"] == "Reserved"
        and row.get("LeaseContractLength") == "1yr"
        and row.get("PurchaseOption") == "No Upfront"
        and row.get("OfferingClass") == "standard"
    ):
        return "reserved"
    return None


def aws_rows(lines, region: str) -> tuple[list[dict], dict[str, str]]:
    """Price rows of the GPU instances from the lines of one region's EC2 offer CSV, and its metadata.

    Kept: Linux, shared tenancy, nothing pre-installed, capacity status Used, hourly USD prices above
    zero, on-demand or 1-year No Upfront standard reserved; everything else (Windows, RHEL, SQL
    Server images, dedicated tenancy, unused reservations, upfront fees, other terms) is dropped.
    """
    lines = iter(lines)
    meta: dict[str, str] = {}
    header: list[str] | None = None
    for _ in range(AWS_MAX_PREAMBLE):
        line = next(lines, None)
        if line is None:
            break
        cells = next(csv.reader([line]), [])
        if cells and cells[0] == "SKU":
            header = cells
            break
        if len(cells) >= 2:
            meta[cells[0]] = cells[1]
    if header is None:
        raise FetchError(f'the offer file has no header row starting with "SKU" in its first {AWS_MAX_PREAMBLE} lines')
    missing = [c for c in AWS_REQUIRED_COLUMNS if c not in header]
    if missing:
        raise FetchError(f"the offer file's header lacks the column(s) {', '.join(missing)}")
    if meta.get("OfferCode", "AmazonEC2") != "AmazonEC2":
        raise FetchError(f"the offer file is for {meta['OfferCode']!r}, not AmazonEC2")
    col = {name: i for i, name in enumerate(header)}
    optional = [c for c in (*AWS_RESERVED_COLUMNS, "SKU", "EffectiveDate", "MarketOption") if c in col]
    wanted = [*AWS_REQUIRED_COLUMNS, *optional]

    found: dict[tuple[str, str], list[dict]] = {}
    for cells in csv.reader(line for line in lines if _AWS_LINE.search(line)):
        if len(cells) != len(header):
            continue
        row = {name: cells[col[name]] for name in wanted}
        itype = row["Instance Type"]
        if itype not in AWS_GPU_INSTANCES:
            continue
        if (
            row["Operating System"] != "Linux"
            or row["Tenancy"] != "Shared"
            or row["Pre Installed S/W"] != "NA"
            or row["CapacityStatus"] != "Used"
            or row["Unit"] != "Hrs"
            or row["Currency"] != "USD"
            or row.get("MarketOption", "OnDemand") not in ("OnDemand", "")
            or row["Region Code"] not in (region, "")
        ):
            continue
        tier = _aws_term(row)
        if tier is None:
            continue
        try:
            price = float(row["PricePerUnit"])
        except ValueError:
            continue
        if price <= 0:
            continue
        found.setdefault((itype, tier), []).append({**row, "price": price})

    version = meta.get("Version", "")
    rows = []
    for (itype, tier), matches in found.items():
        best = min(matches, key=lambda r: r["price"])
        gpu_name, memory, count = AWS_GPU_INSTANCES[itype]
        note = ["Linux, shared tenancy"]
        if tier == "reserved":
            note.insert(0, "Reserved 1yr No Upfront (standard)")
        if best.get("SKU"):
            note.append(f"SKU {best['SKU']}")
        if best.get("EffectiveDate"):
            note.append(f"effective {best['EffectiveDate'][:10]}")
        if version:
            note.append(f"offer version {version}")
        if len({r["price"] for r in matches}) > 1:
            note.append(f"{len(matches)} matching rows with different prices, lowest kept")
        rows.append(
            {
                "offering": itype,
                "gpu_name": gpu_name,
                "gpu_memory_gb": memory,
                "gpu_count": count,
                "usd_per_hour": best["price"],
                "pricing_tier": tier,
                "statistic": "list",
                "region": best["Region Code"] or region,
                "note": "; ".join(note),
            }
        )
    return sorted(rows, key=lambda r: (r["offering"], r["pricing_tier"])), meta


def _publication_date(meta: dict[str, str]) -> dt.date | None:
    try:
        return dt.date.fromisoformat(meta.get("Publication Date", "")[:10])
    except ValueError:
        return None


def fetch_aws(
    region: str = "us-east-1", transport: httpx.BaseTransport | None = None, timeout: float = 60.0
) -> Snapshot:
    """EC2 GPU instance prices of one region from the AWS Price List Bulk API (no account needed).

    The region's offer CSV is hundreds of MB: it is streamed and filtered line by line, never held.
    """
    with httpx.Client(transport=transport, timeout=timeout, headers={"User-Agent": "gpu-atlas"}) as client:
        url = aws_region_csv_url(client, region)
        rows, meta = _stream_lines(client, url, lambda lines: aws_rows(lines, region))
    if not rows:
        raise FetchError(
            f"{url}: no Linux on-demand prices for any of the {len(AWS_GPU_INSTANCES)} "
            f"GPU instance types in region {region!r}"
        )
    return Snapshot(
        "aws",
        rows,
        url,
        f"AWS Price List Bulk API: EC2 GPU instances in {region}",
        "Amazon Web Services",
        _publication_date(meta),
    )


ORACLE_API = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/"

# OCI price-list parts billed per GPU-hour: (GPU name as sources/aliases/oracle.csv spells it, memory GB).
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


FETCHERS = {"azure": fetch_azure, "aws": fetch_aws, "oracle": fetch_oracle, "vastai": fetch_vastai}
API_ROOTS = {"azure": AZURE_API, "aws": AWS_REGION_INDEX, "oracle": ORACLE_API, "vastai": VAST_API}


def snapshot_regions(sources: Path, provider: str) -> list[str]:
    """The regions of the provider's latest snapshot: a new fetch asks for the same ones by default, so
    What changed compares like with like. Empty when there is no snapshot or it names no region."""
    from .sources import latest_price_snapshot

    latest = latest_price_snapshot(sources, provider)
    if latest is None:
        return []
    with (latest / "prices.csv").open(encoding="utf-8", newline="") as fh:
        regions = {row.get("region") or "" for row in csv.DictReader(fh)}
    return sorted(r for r in regions if r and r != "all")


def may_collect(sources: Path, provider: str) -> dict:
    """The terms recorded for the provider, when they let a program collect its prices; FetchError, naming the
    terms and the clause, when they forbid it (checked before any request). The terms are those kept under the
    provider's id in sources/terms.yml, else those of its newest snapshot's sidecar."""
    from .sources import SAFE_LOADER, TERMS_FILE, collection_refusal, latest_price_snapshot, load_terms

    registry, _ = load_terms(sources)
    if provider in registry:
        terms, recorded_in = dict(registry[provider]), f"{sources.name}/{TERMS_FILE} ({provider})"
    else:
        latest = latest_price_snapshot(sources, provider)
        side = latest / "prices.source.yml" if latest is not None else None
        meta = {}
        if side is not None and side.is_file():
            meta = yaml.load(side.read_text(encoding="utf-8"), Loader=SAFE_LOADER) or {}
        terms, recorded_in = meta.get("terms") or {}, str(side.relative_to(sources.parent)) if side else ""
        if isinstance(terms, str):  # a key of sources/terms.yml
            terms = dict(registry.get(terms) or {})
        if not terms:
            raise FetchError(
                f"{provider}: no terms of use recorded: read the provider's terms and record them in "
                f"{sources.name}/{TERMS_FILE} under '{provider}' (url, read_on, automated_collection, "
                "republication, summary) before a program collects its prices"
            )
    refusal = collection_refusal(provider, terms, recorded_in)
    if refusal:
        raise FetchError(refusal)
    return terms


def fetch_regions(provider: str, regions: list[str] | None = None, **kwargs) -> Snapshot:
    """One snapshot of a provider: its default region, or every region asked for, in one dated list.

    A provider's latest snapshot is its whole current price list, so regions fetched on one day belong
    in one snapshot: fetched one per day, each would read as the removal of the other's offers.
    """
    fetcher = FETCHERS[provider]
    regions = list(dict.fromkeys(regions or []))
    if len(regions) <= 1:
        return fetcher(region=regions[0], **kwargs) if regions else fetcher(**kwargs)
    parts = [fetcher(region=region, **kwargs) for region in regions]
    dates = [p.published_on for p in parts if p.published_on is not None]
    first = parts[0]
    return Snapshot(
        provider,
        [row for p in parts for row in p.rows],
        API_ROOTS[provider],
        f"{first.title.rsplit(' in ', 1)[0]} in {', '.join(regions)}",
        first.publisher,
        min(dates) if dates else None,
        "One snapshot of several regions; per region: "
        + "; ".join(f"{region}: {len(p.rows)} offers from {p.url}" for region, p in zip(regions, parts)),
    )


def write_snapshot(snapshot: Snapshot, sources: Path, on: dt.date | None = None, force: bool = False) -> Path:
    """Write sources/prices/<provider>/<date>/prices.csv and its sidecar (with the terms recorded for the provider
    before); never overwrite without force."""
    on = on or dt.date.today()
    terms = may_collect(sources, snapshot.provider)
    folder = sources / "prices" / snapshot.provider / on.isoformat()
    target = folder / "prices.csv"
    if target.exists() and not force:
        raise FetchError(f"{target} exists: snapshots are immutable (use --force to replace today's)")
    folder.mkdir(parents=True, exist_ok=True)
    columns = PRICE_COLUMNS + [c for c in ("sample_size",) if any(c in row for row in snapshot.rows)]
    with target.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(snapshot.rows)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    sidecar = {
        "title": snapshot.title,
        "publisher": snapshot.publisher,
        "kind": "provider_api",
        # every GPU offer of the regions and tiers asked for: what it lists is what it covers
        "scope": "partial" if snapshot.covers else "full",
        **({"covers": snapshot.covers} if snapshot.covers else {}),
        "price_basis": "whole_instance",
        "url": snapshot.url,
        "accessed_on": on,
        "published_on": snapshot.published_on or on,
        "licence": "Public price list; prices as published",
        "checksum": f"sha256:{digest}",
    }
    if snapshot.notes:
        sidecar["notes"] = snapshot.notes
    from .sources import load_terms

    if snapshot.provider in load_terms(sources)[0]:
        sidecar["terms"] = snapshot.provider  # the provider's terms, kept once in sources/terms.yml
    elif terms:
        sidecar["terms"] = terms
    (folder / "prices.source.yml").write_text(
        yaml.safe_dump(sidecar, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8"
    )
    return target
