"""The SkyPilot catalogue fetcher and `fetch-prices --all`, on recorded answers: tests/fixtures/skypilot/ holds
verbatim excerpts of the catalogue files under their paths in the repository (catalogs/v8/..., and the older
v7/v6 files), tests/fixtures/skypilot/github/commits.json a real answer of GitHub's commits API (see their READMEs)."""

from __future__ import annotations

import csv
import datetime as dt
import json
from pathlib import Path

import httpx
import pytest
import yaml

from pipeline import fetch
from pipeline.providers import skypilot
from pipeline.sourcefiles import KINDS, read_kind
from tests.conftest import recorded_terms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "skypilot"
# a real answer of GitHub's "List commits" (tests/fixtures/skypilot/github/README.md): the newest commit's sha and day
COMMITS = json.loads((FIXTURES / "github" / "commits.json").read_text(encoding="utf-8"))
SHA = COMMITS[0]["sha"]
COMMITTED = dt.date.fromisoformat(COMMITS[0]["commit"]["committer"]["date"][:10])


def catalogue(path: str) -> str:
    """The recorded excerpt of a catalogue file, by its path in the repository."""
    return (FIXTURES / path).read_text(encoding="utf-8")


def replay(files: dict[str, str], seen: list | None = None) -> httpx.MockTransport:
    """GitHub's commits API (the recorded answer for a path the repository holds, an empty list for any other)
    and the raw file at that commit."""

    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(str(request.url))
        if request.url.host == "api.github.com":
            return httpx.Response(200, json=COMMITS if request.url.params["path"] in files else [])
        sha, path = str(request.url.path).lstrip("/").split("/", 3)[2:]
        assert sha == SHA, "the file is read at the commit the API named"
        return httpx.Response(200, text=files[path]) if path in files else httpx.Response(404)

    return httpx.MockTransport(handler)


def recorded(*providers: str) -> dict[str, str]:
    """The recorded files of the providers, each under the first of its paths that has an excerpt."""
    files = {}
    for provider in providers:
        path = next(p for p in skypilot.paths(provider) if (FIXTURES / p).is_file())
        files[path] = catalogue(path)
    return files


# every recorded excerpt of a cloud the fetcher maps, with that cloud's provider id (tests/fixtures/skypilot/README.md)
FOLDERS = {folder: provider for provider, (folder, *_) in skypilot.CLOUDS.items()}
RECORDED = sorted(
    (str(f.relative_to(FIXTURES)), FOLDERS[f.parent.name])
    for f in FIXTURES.glob("catalogs/v*/*/vms.csv")
    if f.parent.name in FOLDERS
)


def test_catalogue_files_are_recorded():
    """Every cloud the fetcher maps has a recorded excerpt of the file it reads first or of its fallback."""
    assert ("catalogs/v8/lambda/vms.csv", "lambda") in RECORDED
    for provider in skypilot.CLOUDS:
        assert any((FIXTURES / p).is_file() for p in skypilot.paths(provider)), provider


def test_every_mapped_cloud_reads_its_v8_file_first():
    for provider, (folder, _, _, older) in skypilot.CLOUDS.items():
        assert skypilot.paths(provider)[0] == f"catalogs/v8/{folder}/vms.csv"
        assert older is None or not older.startswith("catalogs/v8/")


@pytest.mark.parametrize(("path", "provider"), RECORDED)
def test_every_catalogue_file_parses_into_gpu_offers(path, provider):
    """Each recorded file (v8 and the older layouts): every GPU row of the file is an offer (no CPU-only row, no
    fractional GPU), with a positive price, a whole GPU count and the instance type it came from."""
    text = catalogue(path)
    raw = list(csv.DictReader(text.splitlines()))
    rows = skypilot.catalogue_rows(text.splitlines(), path, skypilot.CLOUDS[provider][2])
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
        assert row["pricing_tier"] in ("on-demand", "spot") and row["gpu_name"] and row["region"]
    # every on-demand price of the file is kept, in its region or folded into 'all'
    for r in raw:
        if r["InstanceType"] in gpu_types and r.get("Price"):
            kept = [
                o
                for o in rows
                if o["offering"] == r["InstanceType"]
                and o["pricing_tier"] == "on-demand"
                and o["region"] in ("all", r["Region"] or skypilot.UNSTATED)
            ]
            assert [o["usd_per_hour"] for o in kept] == [float(r["Price"])], r


def test_v8_files_keep_their_gpu_memory_and_name_rows_without_a_region():
    """Nebius's v8 file prints the GPU's own memory (its v7 file printed host RAM); Seeweb's leaves Region empty
    for some GPU sizes and prints 0 MiB or rounded GiB, so its memory is never read."""
    path = "catalogs/v8/nebius/vms.csv"
    rows = {r["offering"]: r for r in skypilot.catalogue_rows(catalogue(path).splitlines(), path)}
    assert rows["gpu-h100-sxm_8gpu-128vcpu-1600gb"]["gpu_memory_gb"] == 80
    assert rows["gpu-b200-sxm_8gpu-160vcpu-1792gb"]["gpu_memory_gb"] == 180
    path = "catalogs/v8/seeweb/vms.csv"
    rows = skypilot.catalogue_rows(catalogue(path).splitlines(), path)
    assert {r["gpu_memory_gb"] for r in rows} == {None}
    h200 = [r for r in rows if r["offering"] == "ECS8GPU10"]
    assert [(r["region"], r["usd_per_hour"]) for r in h200] == [("unstated", 20.8)]


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
    assert httpx.URL(seen[0]).params["path"] == "catalogs/v8/lambda/vms.csv"
    assert (
        seen[1] == f"https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/{SHA}/catalogs/v8/lambda/vms.csv"
    )
    assert len(seen) == 2, "the v7 file is not asked for when the v8 file exists"
    assert snap.observed_no_later_than == COMMITTED and snap.kind == "catalogue_copy"
    assert "catalogue v8" in snap.title and snap.url.endswith(f"/blob/{SHA}/catalogs/v8/lambda/vms.csv")
    recorded_terms(tmp_path)
    target = fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 25))
    side = yaml.safe_load((target.parent / "prices.source.yml").read_text(encoding="utf-8"))
    assert side["kind"] == "catalogue_copy" and side["collected_by"] == "program"
    assert side["observed_date_known"] is False and side["observed_no_later_than"] == COMMITTED
    assert side["published_on"] is None and SHA in side["url"] and side["terms"] == "lambda"
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == len(snap.rows)


def test_a_cloud_without_a_v8_file_falls_back_to_its_older_file(tmp_path):
    """DigitalOcean has no file under catalogs/v8/: GitHub lists no commit for that path, so its v6 file is read,
    dated by its own newest commit; the title says which catalogue version the prices come from."""
    seen = []
    snap = fetch.FETCHERS["digitalocean"](transport=replay(recorded("digitalocean"), seen))
    asked = [httpx.URL(u).params.get("path") for u in seen if "api.github.com" in u]
    assert asked == ["catalogs/v8/do/vms.csv", "catalogs/v6/do/vms.csv"]
    assert seen[-1].endswith(f"/{SHA}/catalogs/v6/do/vms.csv")
    assert "catalogue v6" in snap.title and snap.observed_no_later_than == COMMITTED and snap.rows


def test_an_empty_commit_list_or_a_changed_file_is_a_clear_error():
    with pytest.raises(fetch.FetchError, match="no commit of catalogs/v8/lambda/vms.csv or catalogs/v7/lambda"):
        fetch.FETCHERS["lambda"](transport=replay({}))
    broken = {skypilot.paths("lambda")[0]: "Name,Cost\nx,1\n"}
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
    assert [p.name for p in (tmp_path / "prices" / "lambda").iterdir()] == ["provider.yml"]


def test_fetch_all_writes_each_provider_and_reports_refusals_and_failures(tmp_path, monkeypatch):
    """`gpu-atlas fetch-prices --all`: every provider is tried; one whose terms forbid collection is refused
    before any request, one that fails is reported, and the others are written (exit 1 tells of the failure)."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    monkeypatch.setenv("GPU_ATLAS_SOURCES", str(recorded_terms(tmp_path)))
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    # nebius answers with Lambda's recorded file under its own path: a second provider that succeeds
    files = recorded("lambda") | {skypilot.paths("nebius")[0]: catalogue(skypilot.paths("lambda")[0])}
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
    assert [p.name for p in (tmp_path / "prices" / "mithril").iterdir()] == ["provider.yml"]  # no snapshot
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
    """A wider recorded excerpt of Lambda's file, through sources/prices/lambda/aliases.csv (exact name; memory when the
    row gives one): the form factor the instance type names decides SXM or PCIe; a plain `A100` (PCIe and SXM4
    both sold under it) stays unmapped."""
    text = catalogue("catalogs/v7/lambda/vms.variety.csv")
    rows = skypilot.catalogue_rows(text.splitlines(), "catalogs/v7/lambda/vms.csv")
    root = Path(__file__).resolve().parents[2]
    with (root / "sources" / "prices" / "lambda" / "aliases.csv").open(encoding="utf-8") as fh:
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
