"""AWS Price List Bulk API: EC2 GPU instance prices (on-demand and reserved) of one region, read as a CSV stream."""

from __future__ import annotations

import csv
import datetime as dt
import re

import httpx

from pipeline.fetch import FetchError, Snapshot, _get, _stream_lines

AWS_PRICING = "https://pricing.us-east-1.amazonaws.com"
AWS_REGION_INDEX = f"{AWS_PRICING}/offers/v1.0/aws/AmazonEC2/current/region_index.json"

# EC2 instance types with NVIDIA GPUs: (GPU name, memory GB per GPU, GPUs per instance). The names
# and memories are those of sources/prices/aws/2026-02-09 and match sources/prices/aws/aliases.csv, so
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


PROVIDER = "aws"
API_ROOT = AWS_REGION_INDEX
fetch = fetch_aws
