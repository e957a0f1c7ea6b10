"""The Azure price fetcher on recorded responses: pagination, filtering, offline and bad shapes.

The Azure answers in tests/fixtures/azure are real recorded answers of the Retail Prices API, kept by two public
projects (tests/fixtures/azure/README.md says which, at which commit): a whole one-page answer for GPU sizes in eastus,
and the eastus items of a tracker's recorded items. The Oracle answer is a real recorded one
(tests/fixtures/oracle/README.md)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import httpx
import pytest

from pipeline import fetch
from pipeline.providers import azure, oracle, vastai
from pipeline.sourcefiles import KINDS, read_kind
from tests.conftest import recorded_terms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "azure"
NEXT_PAGE = "https://prices.azure.com/api/retail/prices?$skip=1000"

# The recorded GPU answer for eastus (12 meters): Linux pay-as-you-go and Spot kept; Windows and Low Priority left out.
RECORDED_EASTUS = {
    ("Standard_NC24ads_A100_v4", "on-demand"): 3.673,
    ("Standard_NC24ads_A100_v4", "spot"): 0.67877,
    ("Standard_NC4as_T4_v3", "on-demand"): 0.526,
    ("Standard_NC4as_T4_v3", "spot"): 0.149174,
}


def recorded() -> dict:
    """The whole recorded answer (one page: NextPageLink null)."""
    return json.loads((FIXTURES / "gpu_eastus.recorded.json").read_text(encoding="utf-8"))


def tracker_items() -> dict:
    """The eastus items of the tracker's recorded items, in the API's {"Items": [...]} envelope."""
    return json.loads((FIXTURES / "tracker_eastus.json").read_text(encoding="utf-8"))


def replay(pages: list[dict], seen: list | None = None) -> httpx.MockTransport:
    """Serves pages[0] to the first request and pages[1] to the one that follows its NextPageLink."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(str(request.url))
        page = pages[1] if "skip" in str(request.url) else pages[0]
        return httpx.Response(200, json=page)

    return httpx.MockTransport(handler)


def test_a_recorded_answer_is_filtered():
    seen = []
    snap = azure.fetch_azure(transport=replay([recorded()], seen))
    assert len(seen) == 1 and "armRegionName eq 'eastus'" in httpx.URL(seen[0]).params["$filter"]
    got = {(r["offering"], r["pricing_tier"]): r["usd_per_hour"] for r in snap.rows}
    assert got == RECORDED_EASTUS  # 4 Windows and 4 Low Priority meters left out
    a100 = next(r for r in snap.rows if r["offering"] == "Standard_NC24ads_A100_v4" and r["pricing_tier"] == "spot")
    assert (a100["gpu_name"], a100["gpu_count"], a100["region"]) == ("NVIDIA A100 PCIe", 1, "eastus")
    assert a100["note"] == "Linux; meter NC24ads_A100_v4 Spot; effective 2026-07-01"


def test_pages_are_followed_and_filtered():
    """The recorded answer is one page; here its NextPageLink is set to a second page, the tracker's eastus items,
    so the fetcher must follow it. A meter on both pages is kept once."""
    first = recorded()
    first["NextPageLink"] = NEXT_PAGE
    seen = []
    snap = azure.fetch_azure(transport=replay([first, tracker_items()], seen))
    assert len(seen) == 2 and seen[1] == NEXT_PAGE
    got = {(r["offering"], r["pricing_tier"]): r["usd_per_hour"] for r in snap.rows}
    assert got == {
        **RECORDED_EASTUS,
        ("Standard_NC40ads_H100_v5", "on-demand"): 6.98,
        ("Standard_NC48ads_A100_v4", "on-demand"): 7.346,
        ("Standard_NC80adis_H100_v5", "on-demand"): 13.96,
        ("Standard_NC96ads_A100_v4", "on-demand"): 14.692,
        ("Standard_ND96amsr_A100_v4", "on-demand"): 32.77,
        ("Standard_ND96asr_v4", "on-demand"): 27.197,
        ("Standard_ND96asr_v4", "spot"): 5.904469,
        ("Standard_ND96isr_H100_v5", "on-demand"): 98.32,
    }
    nc48 = next(r for r in snap.rows if r["offering"] == "Standard_NC48ads_A100_v4")
    assert nc48["gpu_count"] == 2 and nc48["gpu_name"] == "NVIDIA A100 PCIe"


def test_an_item_in_another_currency_is_left_out():
    page = recorded()
    for item in page["Items"]:
        item["currencyCode"] = "EUR"
    with pytest.raises(fetch.FetchError, match="no GPU VM prices"):
        azure.fetch_azure(transport=replay([page]))


def test_snapshot_is_a_valid_dated_source(tmp_path):
    snap = azure.fetch_azure(transport=replay([recorded()]))
    recorded_terms(tmp_path)
    target = fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))
    assert target == tmp_path / "prices" / "azure" / "2026-11-23" / "prices.csv"
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == 4 and records[0]["meta"]["kind"] == "provider_api"
    with pytest.raises(fetch.FetchError, match="immutable"):
        fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))


@pytest.mark.parametrize("provider", sorted(fetch.FETCHERS))
def test_offline_gives_a_clear_error(monkeypatch, provider):
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    calls = []

    def handler(request):
        calls.append(1)
        raise httpx.ConnectError("Name or service not known", request=request)

    with pytest.raises(fetch.FetchError, match="offline"):
        fetch.FETCHERS[provider](transport=httpx.MockTransport(handler))
    assert len(calls) == 1  # a name that does not resolve is not retried: offline, --all ends at once


def test_a_refused_connection_is_retried(monkeypatch):
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    calls = []

    def handler(request):
        calls.append(1)
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    with pytest.raises(fetch.FetchError, match="offline"):
        fetch.FETCHERS["azure"](transport=httpx.MockTransport(handler))
    assert len(calls) == 3


def test_once_one_provider_is_unreachable_the_others_are_tried_once(tmp_path, monkeypatch):
    """`fetch-prices --all` behind a proxy that refuses every connection: the first provider is retried, the rest
    are tried once each (so the run ends in seconds), and a later single fetch retries again."""
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    calls = []

    def handler(request):
        calls.append(request.url.host)
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    def unreachable(**kwargs):
        return azure.fetch_azure(transport=httpx.MockTransport(handler))

    monkeypatch.setattr(fetch, "FETCHERS", {"azure": unreachable, "aws": unreachable})
    outcomes = fetch.refresh_all(recorded_terms(tmp_path))
    assert [(o.provider, o.status) for o in outcomes] == [("azure", "failed"), ("aws", "failed")]
    assert len(calls) == 3 + 1 and fetch.RETRY_CONNECT["on"] is True


def test_server_errors_are_retried(monkeypatch):
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    page, state = recorded(), {"n": 0}

    def handler(request):
        state["n"] += 1
        if state["n"] == 1:
            return httpx.Response(503)
        return httpx.Response(200, json=page)

    assert len(azure.fetch_azure(transport=httpx.MockTransport(handler)).rows) == 4 and state["n"] == 2


@pytest.mark.parametrize(
    "body,message",
    [
        ({"items": []}, "no 'Items' list"),
        ({"Items": [{"armSkuName": "Standard_NC24ads_A100_v4"}], "NextPageLink": None}, "lacks"),
    ],
)
def test_unexpected_shape_is_named(body, message):
    transport = httpx.MockTransport(lambda r: httpx.Response(200, json=body))
    with pytest.raises(fetch.FetchError, match=message):
        azure.fetch_azure(transport=transport)


def test_regions_fetched_together_make_one_snapshot(tmp_path):
    """Each region is asked for in turn; their offers go into one dated snapshot whose sidecar says which
    region gave how many offers from where."""
    asked = []

    def handler(request):
        flt = request.url.params.get("$filter")
        if flt:
            asked.append(flt.split("armRegionName eq '")[1].split("'")[0])
        region = asked[-1]
        page = recorded()
        for item in page["Items"]:
            item["armRegionName"] = region
        return httpx.Response(200, json=page)

    snap = fetch.fetch_regions("azure", ["eastus", "westeurope", "eastus"], transport=httpx.MockTransport(handler))
    assert asked == ["eastus", "westeurope"]
    assert sorted({r["region"] for r in snap.rows}) == ["eastus", "westeurope"] and len(snap.rows) == 8
    assert snap.url == azure.AZURE_API and snap.title.endswith("in eastus, westeurope")
    assert "eastus: 4 offers" in snap.notes and "westeurope: 4 offers" in snap.notes
    recorded_terms(tmp_path)
    fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == 8 and records[0]["meta"]["notes"] == snap.notes
    # one region: the fetcher's own snapshot, unchanged
    single = fetch.fetch_regions("azure", ["westeurope"], transport=httpx.MockTransport(handler))
    assert {r["region"] for r in single.rows} == {"westeurope"} and single.notes == ""


ORACLE = Path(__file__).resolve().parents[1] / "fixtures" / "oracle" / "products.json"


def answering(recorded: Path, seen: list) -> httpx.MockTransport:
    """Replays one recorded JSON answer to every request, noting each request's URL in seen."""

    def handler(request):
        seen.append(request.url)
        return httpx.Response(200, json=json.loads(recorded.read_text()))

    return httpx.MockTransport(handler)


def test_oracle_price_list_keeps_gpu_hour_parts_only(tmp_path):
    seen = []
    snap = oracle.fetch_oracle(transport=answering(ORACLE, seen))
    assert seen[0].params["currencyCode"] == "USD"
    got = {r["gpu_name"]: r["usd_per_hour"] for r in snap.rows}
    # VMware node, Roving Edge day, Cloud@Customer and the unmapped H100T part are left out
    assert got == {
        "L40S": 3.5,
        "MI300X": 6,
        "H200": 10,
        "B200": 14,
        "B300": 15,
        "RTX PRO 6000": 4.5,
        "A100-80GB": 4,
        "A10": 2,
        "H100": 10,
    }
    assert all(r["gpu_count"] == 1 and r["region"] == "all" for r in snap.rows)
    assert snap.published_on == dt.date(2026, 10, 1) and "2 other GPU-hour parts" in snap.notes
    recorded_terms(tmp_path)
    target = fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == 9 and records[0]["meta"]["published_on"] == dt.date(2026, 10, 1)
    assert target.parent.name == "2026-11-23"


def test_oracle_bad_shape_is_a_clear_error():
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json={"products": []}))
    with pytest.raises(fetch.FetchError, match="no 'items' list"):
        oracle.fetch_oracle(transport=transport)


VAST = Path(__file__).resolve().parents[1] / "fixtures" / "vastai" / "bundles.json"


def test_vast_offers_become_minimum_and_median_per_gpu_with_their_sample(tmp_path):
    seen = []
    snap = vastai.fetch_vastai(transport=answering(VAST, seen), on=dt.date(2026, 11, 23))
    query = json.loads(seen[0].params["q"])
    assert query["verified"] == {"eq": True} and query["rentable"] == {"eq": True} and query["type"] == "on-demand"
    got = {
        (r["gpu_name"], r["gpu_memory_gb"], r["statistic"]): (r["usd_per_hour"], r["sample_size"]) for r in snap.rows
    }
    # per GPU: an 8x B200 machine at $65.01/hour is $8.13 per GPU-hour
    assert got[("B200", 180, "minimum")] == (6.251, 7) and got[("B200", 180, "median")] == (8.1263, 7)
    assert got[("H100 SXM", 80, "minimum")] == (2.0974, 16) and got[("H100 SXM", 80, "median")] == (3.17, 16)
    # 40 GB and 80 GB A100s stay apart; 39936 MiB is a 40 GB card, 46068 MiB an L40S's 48 GB
    assert got[("A100 SXM4", 40, "minimum")] == (0.4296, 4) and got[("A100 SXM4", 80, "median")] == (1.056, 3)
    assert got[("L40S", 48, "median")] == (0.7009, 4)
    assert all(r["gpu_count"] == 1 and r["pricing_tier"] == "on-demand" for r in snap.rows)
    recorded_terms(tmp_path, allow=("vastai",))
    fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    meta = records[0]["meta"]
    assert problems == [] and len(frame) == 10 and frame["sample_size"].astype(int).tolist()[:2] == [4, 4]
    assert meta["scope"] == "partial" and meta["covers"] == {"tiers": ["on-demand"]} and meta["kind"] == "provider_api"


@pytest.mark.parametrize(
    "body,message",
    [
        ({"bundles": []}, "no 'offers' list"),
        ({"offers": [{"gpu_name": "H100 SXM", "num_gpus": 1, "dph_total": 2.0}]}, "offer 0 lacks gpu_ram"),
        ({"offers": []}, "no priced GPU offers"),
    ],
)
def test_vast_bad_shape_is_a_clear_error(body, message):
    with pytest.raises(fetch.FetchError, match=message):
        vastai.fetch_vastai(transport=httpx.MockTransport(lambda request: httpx.Response(200, json=body)))


def test_nominal_memory_keeps_card_sizes_apart():
    assert [vastai.nominal_memory_gb(m) for m in (24564, 39936, 40960, 46068, 81559, 95830, 143771, 183359)] == [
        24,
        40,
        40,
        48,
        80,
        94,
        141,
        180,
    ]
