"""SkyPilot's public price catalogue (github.com/skypilot-org/skypilot-catalog): one CSV per cloud, which a
SkyPilot bot refreshes from each cloud's own API and commits. It reaches providers that publish no
account-free price API of their own.

A catalogue file prints no date, but the newest commit that touched it does: the prices it holds were
observed no later than that commit's day (`observed_no_later_than`), so staleness counts from the commit,
not from the day we read it. The copy is kept as the catalogue prints it (kind `catalogue_copy`), one row
per instance type and price, the regions that share a price folded into one row.
"""

from __future__ import annotations

import ast
import csv
import datetime as dt
import functools
import os
import re
from pathlib import Path

import httpx

from pipeline.fetch import FetchError, Snapshot, _get, _stream_lines

REPOSITORY = "skypilot-org/skypilot-catalog"
COMMITS_API = f"https://api.github.com/repos/{REPOSITORY}/commits"
RAW_FILE = f"https://raw.githubusercontent.com/{REPOSITORY}/{{sha}}/{{path}}"
BLOB_PAGE = f"https://github.com/{REPOSITORY}/blob/{{sha}}/{{path}}"

# provider id in sources/: (the cloud's folder in the catalogue, the provider's name, whether each row is one host's
# listing on a marketplace, the older file read only when catalogs/v8/ has none), as the `catalogue:` of each
# provider.yml naming `fetcher: skypilot` says. A marketplace listing is kept as statistic `minimum` (that host's
# price, never a list price: the picks leave it out unless a sample size says how many listings it is the minimum of).
# The clouds whose older file is a v6 one have no v7 file either.
CATALOGUE = "catalogs/v8"


def clouds(sources: Path | None = None) -> dict[str, tuple[str, str, bool, str | None]]:
    """The providers this catalogue serves, from their provider.yml (the sources folder's, by default)."""
    from pipeline.config import paths as source_paths
    from pipeline.sourcefiles import read_providers

    found = read_providers(sources or source_paths().sources)[0]
    return {
        provider: (c["cloud"], record["name"], c["marketplace"], c["older_file"])
        for provider, record in sorted(found.items())
        if record["fetcher"] == "skypilot" and (c := record["catalogue"])
    }


CLOUDS = clouds()


def paths(provider: str) -> tuple[str, ...]:
    """The catalogue files of a provider in the order they are tried: the v8 file, then the older one."""
    folder, _, _, older = CLOUDS[provider]
    return (f"{CATALOGUE}/{folder}/vms.csv",) + ((older,) if older else ())


REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
# a form factor printed in an instance type's name (Lambda's gpu_8x_h100_sxm5, gpu_1x_h100_pcie): it tells
# variants apart that the accelerator name alone does not
FORM_FACTOR = re.compile(r"(?:^|[_\-.])(sxm\d*|pcie|nvl)(?:$|[_\-.])", re.IGNORECASE)


# a price at or above this per hour is a placeholder some files print for "not offered" (99999999), not a price
NOT_OFFERED = 100_000.0
# files whose GpuInfo memory is not the GPU's (Nebius's v7 file prints host RAM per GPU, its v8 file the GPU's
# memory; Seeweb prints 0 or rounded GiB in both)
MEMORY_UNRELIABLE = ("catalogs/v7/nebius/", "catalogs/v7/seeweb/", "catalogs/v8/seeweb/")
# the region of a row whose Region cell is empty (Seeweb's file leaves it empty for some GPU sizes)
UNSTATED = "unstated"


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text not in (None, "") else None
    except ValueError:
        return None
    return value if value is not None and 0 < value < NOT_OFFERED else None


def _memory_gb(gpu_info: str | None) -> int | None:
    """Per-GPU memory from SkyPilot's GpuInfo ({'Gpus': [{'MemoryInfo': {'SizeInMiB': 81920}}], ...}), in GB
    as sold (81920 MiB -> 80). None when the column is absent or says nothing."""
    if not gpu_info or "SizeInMiB" not in gpu_info:
        return None
    try:
        info = ast.literal_eval(gpu_info)
        mib = float(info["Gpus"][0]["MemoryInfo"]["SizeInMiB"])
    except (ValueError, SyntaxError, KeyError, IndexError, TypeError):
        return None
    return round(mib / 1024) if mib > 0 else None


def gpu_name(accelerator: str, instance_type: str) -> str:
    """The accelerator name, with the form factor its instance type names when the accelerator name lacks one."""
    found = FORM_FACTOR.search(instance_type or "")
    if found and found.group(1).lower().rstrip("0123456789") not in accelerator.lower():
        return f"{accelerator} {found.group(1).upper()}"
    return accelerator


def catalogue_rows(lines: list[str], path: str, marketplace: bool = False) -> list[dict]:
    """The GPU offers of one catalogue file: per instance type, tier (on-demand `Price`, spot `SpotPrice`) and
    price, one row; region `all` when every region the file lists it in has that price, else one row per
    region and price. Rows without an accelerator, or with a fractional GPU count, are left out."""
    reader = csv.DictReader(lines)
    missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise FetchError(f"{path}: unexpected catalogue file: no column {', '.join(missing)}")
    offers: dict[tuple, dict] = {}
    for line, row in enumerate(reader, start=2):
        accelerator = (row.get("AcceleratorName") or "").strip()
        count = _number(row.get("AcceleratorCount"))
        instance = (row.get("InstanceType") or "").strip()
        if not accelerator or count is None or not instance:
            continue
        if count != int(count):
            continue
        for tier, column in (("on-demand", "Price"), ("spot", "SpotPrice")):
            price = _number(row.get(column))
            if price is None:
                continue
            key = (instance, tier)
            offer = offers.setdefault(
                key,
                {
                    "name": gpu_name(accelerator, instance),
                    "accelerator": accelerator,
                    "memory": None if path.startswith(MEMORY_UNRELIABLE) else _memory_gb(row.get("GpuInfo")),
                    "count": int(count),
                    "prices": {},
                    "line": line,
                },
            )
            offer["prices"].setdefault(price, set()).add((row.get("Region") or "").strip() or UNSTATED)
    rows = []
    for (instance, tier), offer in sorted(offers.items(), key=lambda kv: kv[1]["line"]):
        regions = sorted({r for rs in offer["prices"].values() for r in rs})
        folded = len(offer["prices"]) == 1 and len(regions) > 1  # one price wherever it is listed
        for price, where in sorted(offer["prices"].items()):
            for region in ["all"] if folded else sorted(where):
                note = (
                    f"SkyPilot catalogue {path}: instance type {instance}, accelerator {offer['accelerator']}"
                    f" x{offer['count']}; whole instance per hour"
                )
                if folded:
                    note += f"; the same price in {len(regions)} regions: {', '.join(regions)}"
                if marketplace:
                    note += "; one host's listing on a marketplace"
                rows.append(
                    {
                        "offering": instance,
                        "gpu_name": offer["name"],
                        "gpu_memory_gb": offer["memory"],
                        "gpu_count": offer["count"],
                        "usd_per_hour": price,
                        "pricing_tier": tier,
                        "statistic": "minimum" if marketplace else "list",
                        "region": region,
                        "note": note,
                    }
                )
    return rows


def newest_commit(client: httpx.Client, path: str) -> tuple[str, dt.date] | None:
    """The sha and day of the newest commit that changed the file (GitHub's commits API); None when no commit
    did (GitHub answers an empty list for a path the repository never held)."""
    answer = _get(client, COMMITS_API, {"path": path, "per_page": 1})
    if answer == []:
        return None
    try:
        commit = answer[0]
        sha, stamp = str(commit["sha"]), str(commit["commit"]["committer"]["date"])
    except (IndexError, KeyError, TypeError) as exc:
        raise FetchError(f"{COMMITS_API}?path={path}: no commit in the answer") from exc
    if not re.fullmatch(r"[0-9a-f]{40}", sha) or not re.match(r"\d{4}-\d{2}-\d{2}", stamp):
        raise FetchError(f"{COMMITS_API}?path={path}: unexpected commit {sha!r} dated {stamp!r}")
    return sha, dt.date.fromisoformat(stamp[:10])


def current_file(client: httpx.Client, provider: str) -> tuple[str, str, dt.date]:
    """The provider's catalogue file (v8 when the repository holds it, else the older one), with the sha and day
    of the newest commit that changed it."""
    tried = paths(provider)
    for path in tried:
        found = newest_commit(client, path)
        if found is not None:
            return (path, *found)
    raise FetchError(f"{COMMITS_API}: no commit of {' or '.join(tried)}: the catalogue holds no file for {provider}")


def fetch_cloud(
    provider: str, region: str | None = None, transport: httpx.BaseTransport | None = None, timeout: float = 30.0
) -> Snapshot:
    """One provider's prices from its SkyPilot catalogue file, read at the file's newest commit."""
    _, name, marketplace, _ = CLOUDS[provider]
    headers = {"User-Agent": "gpu-atlas"}
    if os.environ.get("GITHUB_TOKEN"):  # GitHub's API allows 60 unauthenticated requests an hour
        headers["Authorization"] = f"Bearer {os.environ['GITHUB_TOKEN']}"
    with httpx.Client(transport=transport, timeout=timeout, headers=headers, follow_redirects=True) as client:
        path, sha, day = current_file(client, provider)
        url = RAW_FILE.format(sha=sha, path=path)
        lines = _stream_lines(client, url, list)
    rows = catalogue_rows(lines, path, marketplace)
    if region is not None:
        rows = [r for r in rows if r["region"] in (region, "all")]
    if not rows:
        raise FetchError(f"{url}: no GPU offer in the catalogue file")
    names = sorted({r["gpu_name"] for r in rows})
    return Snapshot(
        provider,
        rows,
        BLOB_PAGE.format(sha=sha, path=path),
        f"{name} GPU instance prices (SkyPilot catalogue {path.split('/')[1]}, commit {sha[:8]} of {day})",
        f"SkyPilot ({REPOSITORY}), copying {name}'s instance list",
        None,
        f"{len(rows)} GPU offers from {path} at commit {sha} (committed {day}): the file prints no date, so the "
        f"prices were observed no later than the commit's day. Whole instance prices in USD per hour; the regions "
        f"sharing a price are folded into one row (region all, listed in the note)."
        + (
            " Each row is one host's listing on a marketplace (statistic minimum), never a list price."
            if marketplace
            else ""
        ),
        {"gpus": names},
        kind="catalogue_copy",
        observed_no_later_than=day,
    )


FETCHERS = {provider: functools.partial(fetch_cloud, provider) for provider in CLOUDS}
API_ROOTS = {provider: RAW_FILE.format(sha="<newest commit>", path=paths(provider)[0]) for provider in CLOUDS}
