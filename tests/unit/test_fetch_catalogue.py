"""The SkyPilot catalogue fetcher and `fetch-prices --all`, on recorded answers (tests/fixtures/skypilot/:
verbatim excerpts of the catalogue files; the commits answer is GitHub's documented shape, see its README)."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import httpx
import pytest
import yaml

from pipeline import fetch
from pipeline.providers import skypilot
from pipeline.sources import KINDS, read_kind
from tests.conftest import recorded_terms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skypilot"
SHA = "0123456789abcdef0123456789abcdef01234567"
COMMITTED = "2026-11-20T06:31:07Z"


def catalogue(provider: str) -> str:
    path = skypilot.CLOUDS[provider][0]
    return (FIXTURES / path.split("/")[2] / "vms.csv").read_text(encoding="utf-8")


def replay(files: dict[str, str], seen: list | None = None, committed: str = COMMITTED) -> httpx.MockTransport:
    """GitHub's commits API (the newest commit of the asked path) and the raw file at that commit."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(str(request.url))
        if request.url.host == "api.github.com":
            path = request.url.params["path"]
            if path not in files:
                return httpx.Response(200, json=[])
            return httpx.Response(200, json=[{"sha": SHA, "commit": {"committer": {"date": committed}}}])
        sha, path = str(request.url.path).lstrip("/").split("/", 3)[2:]
        assert sha == SHA, "the file is read at the commit the API named"
        return httpx.Response(200, text=files[path]) if path in files else httpx.Response(404)

    return httpx.MockTransport(handler)


def recorded(*providers: str) -> dict[str, str]:
    return {skypilot.CLOUDS[p][0]: catalogue(p) for p in providers}


# the providers whose catalogue file has a recorded excerpt (tests/fixtures/skypilot/README.md)
RECORDED = sorted(
    p for p, (path, _, _) in skypilot.CLOUDS.items() if (FIXTURES / path.split("/")[2] / "vms.csv").is_file()
)


def test_catalogue_files_are_recorded():
    assert "lambda" in RECORDED


@pytest.mark.parametrize("provider", RECORDED)
def test_every_catalogue_file_parses_into_gpu_offers(provider):
    """Each recorded file: every GPU row of the file is an offer (no CPU-only row, no fractional GPU), with a
    positive price, a whole GPU count and the instance type it came from."""
    text = catalogue(provider)
    raw = list(csv.DictReader(text.splitlines()))
    rows = skypilot.catalogue_rows(text.splitlines(), skypilot.CLOUDS[provider][0], skypilot.CLOUDS[provider][2])
    assert rows
    gpu_types = {
        r["InstanceType"]
        for r in raw
        if r.get("AcceleratorName") and r.get("InstanceType") and float(r.get("AcceleratorCount") or 0) >= 1
    }
    assert {r["offering"] for r in rows} <= gpu_types
    cpu_only = {r["InstanceType"] for r in raw if not r.get("AcceleratorName")}
    assert not cpu_only & {r["offering"] for r in rows}
    for row in rows:
        assert row["usd_per_hour"] > 0 and isinstance(row["gpu_count"], int) and row["gpu_count"] >= 1
        assert row["pricing_tier"] in ("on-demand", "spot") and row["gpu_name"]
    # every on-demand price of the file is kept, in its region or folded into 'all'
    for r in raw:
        if r["InstanceType"] in gpu_types and r.get("Price"):
            kept = [
                o
                for o in rows
                if o["offering"] == r["InstanceType"]
                and o["pricing_tier"] == "on-demand"
                and o["region"] in ("all", r["Region"])
            ]
            assert [o["usd_per_hour"] for o in kept] == [float(r["Price"])], r


def test_regions_sharing_a_price_fold_into_one_row_and_others_stay_apart():
    lines = [
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice",
        "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,23.92,us-east-1,,",
        "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,23.92,us-west-1,,",
        "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,2.49,us-east-1,,",
        "gpu_1x_h100_pcie,H100,1.0,26.0,200.0,2.59,us-west-1,,1.10",
        "cpu_4x_general,,,4.0,16.0,0.2,us-east-1,,",
        "gpu_half_a10,A10,0.5,4.0,16.0,0.4,us-east-1,,",
    ]
    rows = skypilot.catalogue_rows(lines, "catalogs/v7/lambda/vms.csv")
    got = {(r["offering"], r["pricing_tier"], r["region"]): r["usd_per_hour"] for r in rows}
    assert got == {
        ("gpu_8x_h100_sxm5", "on-demand", "all"): 23.92,
        ("gpu_1x_h100_pcie", "on-demand", "us-east-1"): 2.49,
        ("gpu_1x_h100_pcie", "on-demand", "us-west-1"): 2.59,
        ("gpu_1x_h100_pcie", "spot", "us-west-1"): 1.10,
    }
    names = {r["offering"]: r["gpu_name"] for r in rows}
    # the form factor the instance type names is kept: an H100 SXM and an H100 PCIe are different GPUs
    assert names == {"gpu_8x_h100_sxm5": "H100 SXM5", "gpu_1x_h100_pcie": "H100 PCIE"}
    assert "2 regions: us-east-1, us-west-1" in rows[0]["note"]


def test_memory_comes_from_gpu_info():
    info = "{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 40960}}]}"
    assert skypilot._memory_gb(info) == 40
    assert skypilot._memory_gb("not a dict with SizeInMiB") is None
    assert skypilot._memory_gb("") is None


def test_a_fetched_copy_is_dated_by_its_commit_and_is_a_valid_source(tmp_path):
    """The file is read at the newest commit that changed it; the snapshot says observed no later than the
    commit's day, is a catalogue copy collected by a program, and passes every rule a source must."""
    seen = []
    snap = fetch.FETCHERS["lambda"](transport=replay(recorded("lambda"), seen))
    assert httpx.URL(seen[0]).params["path"] == "catalogs/v7/lambda/vms.csv"
    assert (
        seen[1] == f"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/{SHA}/catalogs/v7/lambda/vms.csv"
    )
    assert snap.observed_no_later_than == dt.date(2026, 11, 20) and snap.kind == "catalogue_copy"
    recorded_terms(tmp_path)
    target = fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 25))
    side = yaml.safe_load((target.parent / "prices.source.yml").read_text(encoding="utf-8"))
    assert side["kind"] == "catalogue_copy" and side["collected_by"] == "program"
    assert side["observed_date_known"] is False and str(side["observed_no_later_than"]) == "2026-11-20"
    assert side["published_on"] is None and SHA in side["url"] and side["terms"] == "lambda"
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == len(snap.rows)


def test_an_empty_commit_list_or_a_changed_file_is_a_clear_error():
    with pytest.raises(fetch.FetchError, match="no commit"):
        fetch.FETCHERS["lambda"](transport=replay({}))
    broken = {skypilot.CLOUDS["lambda"][0]: "Name,Cost\nx,1\n"}
    with pytest.raises(fetch.FetchError, match="no column InstanceType"):
        fetch.FETCHERS["lambda"](transport=replay(broken))


def test_fetch_all_covers_at_least_fifteen_providers_and_prefers_their_own_api():
    assert len(fetch.FETCHERS) >= 15
    assert fetch.FETCHERS["oracle"].__module__ == "pipeline.providers.oracle"
    assert set(skypilot.CLOUDS) <= set(fetch.FETCHERS)


def test_a_failed_write_leaves_no_half_snapshot(tmp_path, monkeypatch):
    snap = fetch.FETCHERS["lambda"](transport=replay(recorded("lambda")))
    recorded_terms(tmp_path)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(fetch.yaml, "safe_dump", broken)
    with pytest.raises(OSError):
        fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 25))
    assert list((tmp_path / "prices" / "lambda").iterdir()) == []


def test_fetch_all_writes_each_provider_and_reports_refusals_and_failures(tmp_path, monkeypatch):
    """`gpu-atlas fetch-prices --all`: every provider is tried; one whose terms forbid collection is refused
    before any request, one that fails is reported, and the others are written (exit 1 tells of the failure)."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    monkeypatch.setenv("GPU_ATLAS_SOURCES", str(recorded_terms(tmp_path)))
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    # nebius answers with Lambda's recorded file under its own path: a second provider that succeeds
    files = recorded("lambda") | {skypilot.CLOUDS["nebius"][0]: catalogue("lambda")}
    transport = replay(files)
    requested = []

    def catalogue_fetcher(provider):
        def run(**kwargs):
            requested.append(provider)
            return skypilot.fetch_cloud(provider, transport=transport, **kwargs)

        return run

    def vast(**kwargs):
        requested.append("vastai")
        raise AssertionError("a refused provider is never asked")

    monkeypatch.setattr(
        fetch,
        "FETCHERS",
        {
            "lambda": catalogue_fetcher("lambda"),
            "vastai": vast,
            "mithril": catalogue_fetcher("mithril"),
            "nebius": catalogue_fetcher("nebius"),
        },
    )
    result = CliRunner().invoke(app, ["fetch-prices", "--all"])
    assert result.exit_code == 1, result.output
    assert requested == ["lambda", "mithril", "nebius"]
    assert "vastai: refused" in result.output and "mithril: failed" in result.output
    assert "fetched 2, refused 1, failed 1 of 4 providers" in result.output
    today = dt.date.today().isoformat()
    for provider in ("lambda", "nebius"):
        assert (tmp_path / "prices" / provider / today / "prices.source.yml").is_file()
    assert not (tmp_path / "prices" / "mithril").exists() or not any((tmp_path / "prices" / "mithril").iterdir())
    assert CliRunner().invoke(app, ["fetch-prices"]).exit_code == 2  # neither a provider nor --all
    listed = CliRunner().invoke(app, ["fetch-prices", "--list"])
    assert listed.exit_code == 0 and "lambda" in listed.output
    # a provider whose terms forbid collection is never listed as fetchable, only as not fetchable and why
    fetchable = [line.split()[0] for line in listed.output.splitlines() if not line.startswith("not fetchable")]
    assert "vastai" not in fetchable and "not fetchable: vastai" in listed.output


def test_the_weekly_workflow_fetches_every_provider_then_builds_then_commits():
    """.github/workflows/prices.yml as written: `make fetch` (every provider, failures warned, not fatal), then
    `make build` before anything is committed; make's fetch target runs `fetch-prices --all`."""
    root = Path(__file__).resolve().parents[2]
    workflow = yaml.safe_load((root / ".github" / "workflows" / "prices.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["refresh"]["steps"]
    runs = [s.get("run", "") for s in steps]
    fetch_at = next(i for i, r in enumerate(runs) if "make fetch" in r)
    build_at = next(i for i, r in enumerate(runs) if r.strip() == "make build")
    commit_at = next(i for i, r in enumerate(runs) if "git commit" in r)
    assert fetch_at < build_at < commit_at
    assert "||" in runs[fetch_at]  # a failed provider does not stop the refresh
    assert steps[fetch_at]["env"]["GITHUB_TOKEN"]
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    assert "fetch-prices $(or $(PROVIDER),--all)" in makefile
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as true
    assert triggers["schedule"][0]["cron"]  # it runs weekly by itself


def test_placeholder_prices_and_unreliable_memory_are_dropped():
    """Prime Intellect's file prints SpotPrice 99999999 for "no spot"; Nebius's GpuInfo memory is host RAM."""
    lines = [
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price",
        "gpu-h100-sxm_1gpu-16vcpu-200gb,H100,1.0,16.0,200.0,"
        "\"{'Gpus': [{'Name': 'H100', 'MemoryInfo': {'SizeInMiB': 204800}}]}\",eu-north1,99999999,2.95",
    ]
    rows = skypilot.catalogue_rows(lines, "catalogs/v7/nebius/vms.csv")
    assert [(r["pricing_tier"], r["usd_per_hour"], r["gpu_memory_gb"]) for r in rows] == [("on-demand", 2.95, None)]
    assert rows[0]["gpu_name"] == "H100 SXM"


def test_lambda_names_map_to_the_variants_their_instance_types_name():
    """A wider recorded excerpt of Lambda's file, through sources/aliases/lambda.csv (exact name; memory when the
    row gives one): the form factor the instance type names decides SXM or PCIe; a plain `A100` (PCIe and SXM4
    both sold under it) stays unmapped."""
    text = (FIXTURES / "lambda" / "vms.variety.csv").read_text(encoding="utf-8")
    rows = skypilot.catalogue_rows(text.splitlines(), skypilot.CLOUDS["lambda"][0])
    root = Path(__file__).resolve().parents[2]
    with (root / "sources" / "aliases" / "lambda.csv").open(encoding="utf-8") as fh:
        aliases = list(csv.DictReader(fh))

    def mapped(row):
        hits = [
            a["gpu_id"]
            for a in aliases
            if a["gpu_name"] == row["gpu_name"]
            and (not a["gpu_memory_gb"] or float(a["gpu_memory_gb"]) == (row["gpu_memory_gb"] or -1))
        ]
        assert len(hits) <= 1, row
        return hits[0] if hits else None

    got = {r["offering"]: mapped(r) for r in rows if r["pricing_tier"] == "on-demand"}
    assert got["gpu_8x_h100_sxm5"] == got["gpu_1x_h100_sxm5"] == "nvidia-h100-sxm-80gb"
    assert got["gpu_1x_h100_pcie"] == "nvidia-h100-pcie-80gb"
    assert got["gpu_1x_a100_sxm4"] == "nvidia-a100-sxm-40gb"
    assert got["gpu_8x_a100_80gb_sxm4"] == "nvidia-a100-sxm-80gb"
    assert got["gpu_1x_gh200"] == "nvidia-gh200-sxm-96gb"
    assert got["gpu_1x_a100"] is None and got["gpu_8x_v100"] is None
