"""The Linode (Akamai) and Vultr plan-list fetchers on answers in their documented shapes (tests/fixtures/akamai,
tests/fixtures/vultr: the GPU plans and prices a public tracker read from these APIs on 2026-10-04), and on the
plan entries of a real recorded Linode answer (tests/fixtures/akamai/types.recorded.json).

Still built by hand (no real answer found in the stored corpora, 2026-11-28; Vultr searched again 2026-11-29):
akamai/types.json (no complete recorded answer of linode/types; only the two plan entries of types.recorded.json) and
vultr/plans.json (no recorded answer of Vultr's plans API that carries gpu_count and hourly_cost). Their READMEs say where each value comes from."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import httpx
import pytest

from pipeline import fetch
from pipeline.providers import akamai, vultr
from pipeline.sourcefiles import KINDS, read_kind
from tests.conftest import recorded_terms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SOURCES = Path(__file__).resolve().parents[2] / "sources"


def answer(path: str) -> dict:
    return json.loads((FIXTURES / path).read_text(encoding="utf-8"))


def replay(payload: dict, seen: list | None = None) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request.url)
        return httpx.Response(200, json=payload)

    return httpx.MockTransport(handler)


def snapshot_prices(provider: str) -> dict:
    with (SOURCES / "prices" / provider / "2026-10-04" / "prices.csv").open(encoding="utf-8") as fh:
        return {
            (r["offering"], r["gpu_name"], int(r["gpu_count"])): float(r["usd_per_hour"]) for r in csv.DictReader(fh)
        }


def test_linode_gpu_plans_are_read_from_their_labels():
    """Every GPU plan, with the model its label names and its GPU count; the plan without a GPU and the video
    transcoding plan (gpus 0) are left out. The names are those the tracker's snapshot used, so they map the same
    (sources/prices/akamai/aliases.csv maps the RTX 4000 Ada; the Quadro RTX 6000 has no variant in the catalogue)."""
    snap = akamai.fetch_akamai(transport=replay(answer("akamai/types.json")))
    got = {(r["offering"], r["gpu_name"], r["gpu_count"]): r["usd_per_hour"] for r in snap.rows}
    assert got == snapshot_prices("akamai")
    with (SOURCES / "prices" / "akamai" / "aliases.csv").open(encoding="utf-8") as fh:
        mapped = {r["gpu_name"] for r in csv.DictReader(fh)}
    assert "RTX4000 Ada" in mapped and {r["gpu_name"] for r in snap.rows} == {"RTX4000 Ada", "RTX6000"}


def test_the_plan_entries_of_a_real_linode_answer_are_read():
    """Two plan objects copied verbatim from a real linode/types answer (tests/fixtures/akamai/README.md): the
    Nanode (gpus 0) is left out, the RTX6000 plan is kept at its hourly price for every region."""
    rows = akamai.linode_rows(answer("akamai/types.recorded.json"))
    assert [(r["offering"], r["gpu_name"], r["gpu_count"], r["usd_per_hour"], r["region"]) for r in rows] == [
        ("g1-gpu-rtx6000-1", "RTX6000", 1, 1.5, "all")
    ]
    assert "8 vCPU, 32 GB RAM" in rows[0]["note"]


def test_a_linode_region_price_is_kept_apart():
    payload = answer("akamai/types.json")
    plan = next(p for p in payload["data"] if p["gpus"] == 1)
    plan["region_prices"] = [{"id": "id-cgk", "hourly": 1.8, "monthly": 1200.0}]
    rows = [r for r in akamai.linode_rows(payload) if r["offering"] == plan["id"]]
    assert {(r["region"], r["usd_per_hour"]) for r in rows} == {("all", plan["price"]["hourly"]), ("id-cgk", 1.8)}


def test_an_unknown_gpu_label_or_a_second_page_is_a_clear_error():
    payload = answer("akamai/types.json")
    payload["data"].append({"id": "g9-gpu-x", "label": "Quantum Frobnicator x1", "gpus": 1, "price": {"hourly": 9}})
    with pytest.raises(fetch.FetchError, match="g9-gpu-x"):
        akamai.linode_rows(payload)
    with pytest.raises(fetch.FetchError, match="pages"):
        akamai.linode_rows({"data": [], "page": 1, "pages": 2})


def test_vultr_plans_of_whole_gpus_are_kept_and_fractions_left_out():
    seen = []
    snap = vultr.fetch_vultr(transport=replay(answer("vultr/plans.json"), seen))
    assert seen[0].params["type"] == "vcg"
    got = {(r["offering"], r["gpu_name"], r["gpu_count"]): r["usd_per_hour"] for r in snap.rows}
    assert got == snapshot_prices("vultr")
    a16 = next(r for r in snap.rows if r["gpu_count"] == 2 and r["gpu_name"] == "NVIDIA_A16")
    assert a16["gpu_memory_gb"] == 16  # 32 GB allotted over 2 GPUs
    assert "1 plans of a fraction of a GPU left out" in snap.notes


def test_vultr_next_page_or_a_plan_without_cost_is_a_clear_error():
    payload = answer("vultr/plans.json")
    payload["meta"]["links"]["next"] = "cursor"
    with pytest.raises(fetch.FetchError, match="another page"):
        vultr.vultr_rows(payload)
    payload = answer("vultr/plans.json")
    del payload["plans"][-1]["hourly_cost"]
    with pytest.raises(fetch.FetchError, match="hourly cost"):
        vultr.vultr_rows(payload)


@pytest.mark.parametrize(
    ("provider", "fetcher", "fixture"),
    [("akamai", akamai.fetch_akamai, "akamai/types.json"), ("vultr", vultr.fetch_vultr, "vultr/plans.json")],
)
def test_each_plan_list_writes_a_valid_source(tmp_path, provider, fetcher, fixture):
    snap = fetcher(transport=replay(answer(fixture)))
    recorded_terms(tmp_path)
    fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 25))
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == len(snap.rows) and records[0]["meta"]["kind"] == "provider_api"
    assert fetch.FETCHERS[provider] is fetcher  # its own API, not a catalogue copy
