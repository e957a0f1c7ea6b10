"""Fetch a price snapshot from a public, account-free price API and write it as a dated source.

Each price API is a module of `pipeline/providers/`, named by the `fetcher` of a provider's
`sources/prices/<provider>/provider.yml`; this module holds what they share: the snapshot, the retrying HTTP reads,
the terms check and the writing of a dated snapshot with its sidecar.

Network is used only here, only when a user runs `gpu-atlas fetch-prices`. Tests replay recorded
responses through an httpx mock transport.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import yaml

from .sourcefiles import KINDS

# a fetched snapshot has the columns every price file must have (declared once, in the prices schema)
PRICE_COLUMNS = list(KINDS["prices"].columns)


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
    # what the snapshot is: the provider's own API (provider_api), or a catalogue's copy of its prices
    # (catalogue_copy: kept as that catalogue printed them, collected by this program)
    kind: str = "provider_api"
    # a copy that prints no date but was read at a dated commit: observed no later than that day
    observed_no_later_than: dt.date | None = None


RETRY_STATUS = (429, 500, 502, 503, 504)
# whether a refused or failed connection is retried; `refresh_all` turns it off once a provider could not be reached
# at all (offline behind a proxy, or a proxy that refuses): every further provider is then tried once, not three times
RETRY_CONNECT = {"on": True}


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code in RETRY_STATUS:
        raise httpx.HTTPStatusError(f"HTTP {response.status_code}", request=response.request, response=response)
    response.raise_for_status()


def _unresolved(exc: BaseException) -> bool:
    """Whether a transport error is a host name that did not resolve (offline, or a wrong name): no retry helps."""
    import socket

    seen = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror) or "name resolution" in str(seen) or "not known" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _with_retries(url: str, call, retries: int = 3, backoff: float = 1.0):
    """Run call(); retry timeouts, transport errors, 429 and 5xx with exponential backoff (a host name that does
    not resolve is not retried: offline, every provider fails at once)."""
    last: Exception | None = None
    for attempt in range(retries):
        try:
            return call()
        except (httpx.TimeoutException, httpx.HTTPStatusError, httpx.TransportError) as exc:
            last = exc
            status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else None
            if status is not None and status < 500 and status != 429:
                break
            if isinstance(exc, httpx.ConnectError) and (_unresolved(exc) or not RETRY_CONNECT["on"]):
                break
            if attempt + 1 < retries:  # a refused connection is retried sooner than a busy server
                time.sleep((backoff / 2 if isinstance(exc, httpx.ConnectError) else backoff) * 2**attempt)
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


def providers(sources: Path | None = None) -> dict[str, tuple]:
    """Every provider whose provider.yml (sources/prices/<provider>/provider.yml) names a fetcher, by provider id,
    as (fetch, API root). The fetcher is a module of pipeline/providers/: one for one price API defines API_ROOT
    and fetch(region=..., transport=..., timeout=...) -> Snapshot; one that reads a catalogue of many providers
    defines FETCHERS and API_ROOTS keyed by provider id (built from the provider.yml files that name it). Adding a
    provider adds its folder, nothing here. A provider.yml with a problem is left out (the build names it)."""
    import importlib

    from .config import paths
    from .sourcefiles import read_providers

    found = {}
    for provider, record in sorted(read_providers(sources or paths().sources)[0].items()):
        if not record["fetcher"]:
            continue
        module = importlib.import_module(f"pipeline.providers.{record['fetcher']}")
        if provider in getattr(module, "FETCHERS", {}):
            found[provider] = (module.FETCHERS[provider], module.API_ROOTS[provider])
        elif hasattr(module, "fetch") and getattr(module, "PROVIDER", provider) == provider:
            found[provider] = (module.fetch, module.API_ROOT)
    return found


def snapshot_regions(sources: Path, provider: str) -> list[str]:
    """The regions of the provider's latest snapshot: a new fetch asks for the same ones by default, so
    What changed compares like with like. Empty when there is no snapshot or it names no region."""
    from .sourcefiles import latest_price_snapshot

    latest = latest_price_snapshot(sources, provider)
    if latest is None:
        return []
    with (latest / "prices.csv").open(encoding="utf-8", newline="") as fh:
        regions = {row.get("region") or "" for row in csv.DictReader(fh)}
    return sorted(r for r in regions if r and r != "all")


def may_collect(sources: Path, provider: str) -> dict:
    """The terms recorded for the provider, when they let a program collect its prices; FetchError, naming the
    terms and the clause, when they forbid it (checked before any request). The terms are those of sources/terms.yml
    that the provider's provider.yml names."""
    from .sourcefiles import PROVIDER_FILE, TERMS_FILE, collection_refusal, load_terms, read_providers

    registry, _ = load_terms(sources)
    record = read_providers(sources)[0].get(provider)
    key = record["terms"] if record else provider
    if record is None or key not in registry:
        raise FetchError(
            f"{provider}: no terms of use recorded: read the provider's terms and record them in "
            f"{sources.name}/{TERMS_FILE} under '{key}' (url, read_on, automated_collection, republication, "
            f"summary), named by its {sources.name}/prices/{provider}/{PROVIDER_FILE}, before a program collects its "
            "prices"
        )
    refusal = collection_refusal(provider, dict(registry[key]), f"{sources.name}/{TERMS_FILE} ({key})")
    if refusal:
        raise FetchError(refusal)
    return dict(registry[key])


def refusals(sources: Path) -> dict[str, str]:
    """The providers with a fetcher whose recorded terms forbid (or do not record) collection, and why: never
    listed as fetchable."""
    out = {}
    for provider in FETCHERS:
        try:
            may_collect(sources, provider)
        except FetchError as exc:
            out[provider] = str(exc)
    return out


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
    before); never overwrite without force. Both files are written into a hidden folder beside it and moved
    into place together, so a failure leaves no half-written snapshot."""
    import os
    import shutil
    import tempfile

    on = on or dt.date.today()
    may_collect(sources, snapshot.provider)
    folder = sources / "prices" / snapshot.provider / on.isoformat()
    target = folder / "prices.csv"
    if target.exists() and not force:
        raise FetchError(f"{target} exists: snapshots are immutable (use --force to replace today's)")
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{on.isoformat()}-", dir=folder.parent))
    try:
        _write_files(snapshot, staging, on, sources)
        if folder.exists():  # --force: today's snapshot is replaced as a whole
            shutil.rmtree(folder)
        os.replace(staging, folder)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return target


def _write_files(snapshot: Snapshot, folder: Path, on: dt.date, sources: Path) -> None:
    target = folder / "prices.csv"
    columns = PRICE_COLUMNS + [c for c in ("sample_size",) if any(c in row for row in snapshot.rows)]
    with target.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(snapshot.rows)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    bounded = snapshot.observed_no_later_than is not None
    sidecar = {
        "title": snapshot.title,
        "publisher": snapshot.publisher,
        "kind": snapshot.kind,
        # every GPU offer of the regions and tiers asked for: what it lists is what it covers
        "scope": "partial" if snapshot.covers else "full",
        **({"covers": snapshot.covers} if snapshot.covers else {}),
        "price_basis": "whole_instance",
        **(
            {"observed_date_known": False, "observed_no_later_than": snapshot.observed_no_later_than} if bounded else {}
        ),
        "url": snapshot.url,
        "accessed_on": on,
        "published_on": None if bounded else (snapshot.published_on or on),
        "licence": "Public price list; prices as published",
        "checksum": f"sha256:{digest}",
        **({"collected_by": "program"} if snapshot.kind != "provider_api" else {}),
    }
    if snapshot.notes:
        sidecar["notes"] = snapshot.notes
    from .sourcefiles import read_providers

    # the provider's terms, kept once in sources/terms.yml under the key its provider.yml names
    sidecar["terms"] = read_providers(sources)[0][snapshot.provider]["terms"]
    (folder / "prices.source.yml").write_text(
        yaml.safe_dump(sidecar, sort_keys=False, allow_unicode=True, width=120), encoding="utf-8"
    )


@dataclass
class Outcome:
    """What one provider's fetch did: wrote a snapshot, was refused by its terms, or failed (and why)."""

    provider: str
    status: str  # written | refused | failed
    detail: str
    offers: int = 0


def refresh(provider: str, sources: Path, regions: list[str] | None = None, force: bool = False, **kwargs) -> Outcome:
    """Fetch one provider (its terms checked before any request; the regions of its latest snapshot by default,
    so What changed compares like with like) and write the dated snapshot. Never raises FetchError."""
    try:
        may_collect(sources, provider)
    except FetchError as exc:
        return Outcome(provider, "refused", str(exc))
    try:
        snapshot = fetch_regions(provider, regions or snapshot_regions(sources, provider), **kwargs)
        if not snapshot.rows:
            raise FetchError(f"{provider}: the answer held no GPU offer")
        target = write_snapshot(snapshot, sources, force=force)
    except FetchError as exc:
        return Outcome(provider, "failed", str(exc))
    return Outcome(provider, "written", str(target), len(snapshot.rows))


def refresh_all(sources: Path, force: bool = False, **kwargs) -> list[Outcome]:
    """Every provider with a fetcher, one after the other; one that fails or is refused is reported and skipped.
    Once one provider could not be reached after its retries, the others' connections are tried once each, so an
    offline run (a proxy refusing included) ends in seconds."""
    outcomes = []
    try:
        for provider in FETCHERS:
            outcomes.append(refresh(provider, sources, force=force, **kwargs))
            if outcomes[-1].status == "failed" and outcomes[-1].detail.startswith("cannot reach"):
                RETRY_CONNECT["on"] = False
    finally:
        RETRY_CONNECT["on"] = True
    return outcomes


# by provider id: the fetch function and the API it reads, as the providers' provider.yml files name them (the
# provider modules import this module's names above, which exist by now)
_FOUND = providers()
FETCHERS = {provider: fetcher for provider, (fetcher, _) in _FOUND.items()}
API_ROOTS = {provider: root for provider, (_, root) in _FOUND.items()}
