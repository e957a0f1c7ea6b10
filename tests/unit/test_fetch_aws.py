"""The AWS price fetcher on recorded-format files: region index, streamed CSV filter, errors, retries.

captured_index.csv holds verbatim lines of a real EC2 offer file (tests/fixtures/aws/CAPTURED.md); its only GPU
line is a g5.48xlarge one (Dedicated, SUSE). region_index.json and index.csv stay built by hand (build_fixture.py):
no real regional offer file with on-demand GPU rows, nor a real region index, could be found in the stored corpora
(2026-11-28, searched again 2026-11-29: tests/fixtures/aws/README.md)."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import httpx
import pytest
import yaml

from pipeline import fetch
from pipeline.providers import aws, azure, oracle, vastai
from pipeline.sourcefiles import KINDS, read_kind
from tests.conftest import recorded_terms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "aws"
INDEX = (FIXTURES / "region_index.json").read_bytes()
CSV = (FIXTURES / "index.csv").read_bytes()
CSV_URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/20250912225308/us-east-1/index.csv"

KEPT = {
    ("g4dn.metal", "on-demand"): 7.824,
    ("g4dn.xlarge", "on-demand"): 0.526,
    ("g5.12xlarge", "on-demand"): 5.672,
    ("g6.xlarge", "on-demand"): 0.8048,
    ("g6e.xlarge", "on-demand"): 1.861,
    ("p3dn.24xlarge", "on-demand"): 31.212,
    ("p4d.24xlarge", "on-demand"): 21.957642,
    ("p4d.24xlarge", "reserved"): 13.5,
    ("p5.48xlarge", "on-demand"): 55.04,
}


def replay(index: bytes = INDEX, offer: bytes = CSV, seen: list | None = None) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(str(request.url))
        if request.url.path.endswith("region_index.json"):
            return httpx.Response(200, content=index, headers={"content-type": "application/json"})
        if request.url.path.endswith("/index.csv"):
            return httpx.Response(200, content=offer, headers={"content-type": "text/csv"})
        return httpx.Response(404)

    return httpx.MockTransport(handler)


def without_column(name: str) -> bytes:
    """The fixture with one column removed from the header and every row."""
    lines = CSV.decode().splitlines()
    rows = list(csv.reader(lines))
    at = rows[5].index(name)
    out = lines[:5] + [",".join(f'"{v}"' if v else "" for v in r[:at] + r[at + 1 :]) for r in rows[5:]]
    return ("\n".join(out) + "\n").encode()


def test_rows_are_kept_and_dropped():
    seen = []
    snap = aws.fetch_aws(transport=replay(seen=seen))
    assert seen == [aws.AWS_REGION_INDEX, CSV_URL]
    got = {(r["offering"], r["pricing_tier"]): r["usd_per_hour"] for r in snap.rows}
    # dropped: Windows, dedicated tenancy, SQL Std, unused reservation, m5.large (no GPU),
    # reserved 1yr convertible, 3yr, All Upfront (zero hourly rate, upfront fee in Quantity)
    assert got == KEPT
    p4d = next(r for r in snap.rows if r["offering"] == "p4d.24xlarge" and r["pricing_tier"] == "on-demand")
    assert (p4d["gpu_name"], p4d["gpu_memory_gb"], p4d["gpu_count"]) == ("NVIDIA A100", 40, 8)
    assert p4d["region"] == "us-east-1" and p4d["statistic"] == "list"
    assert "SKU FIXTURESKU000001" in p4d["note"] and "offer version 20250912225308" in p4d["note"]
    reserved = next(r for r in snap.rows if r["pricing_tier"] == "reserved")
    assert reserved["note"].startswith("Reserved 1yr No Upfront (standard)")
    assert snap.url == CSV_URL and snap.published_on == dt.date(2025, 9, 12)
    assert snap.title == "AWS Price List Bulk API: EC2 GPU instances in us-east-1"
    assert snap.publisher == "Amazon Web Services"


def test_gpu_names_match_the_alias_file():
    aliases = Path(__file__).resolve().parents[2] / "sources" / "prices" / "aws" / "aliases.csv"
    names = {line.split(",")[0] for line in aliases.read_text().splitlines()[1:]}
    unmapped = {name for name, _, _ in aws.AWS_GPU_INSTANCES.values()} - names
    assert unmapped == set()  # every GPU the fetcher knows maps to a variant


def test_snapshot_is_a_valid_dated_source(tmp_path):
    snap = aws.fetch_aws(transport=replay())
    recorded_terms(tmp_path)
    target = fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))
    assert target == tmp_path / "prices" / "aws" / "2026-11-23" / "prices.csv"
    frame, records, problems = read_kind(tmp_path, KINDS["prices"])
    assert problems == [] and len(frame) == len(KEPT)
    meta = records[0]["meta"]
    assert meta["kind"] == "provider_api" and meta["url"] == CSV_URL and meta["publisher"] == "Amazon Web Services"
    side = yaml.safe_load((target.parent / "prices.source.yml").read_text())
    assert side["published_on"] == dt.date(2025, 9, 12) and side["accessed_on"] == dt.date(2026, 11, 23)
    with pytest.raises(fetch.FetchError, match="immutable"):
        fetch.write_snapshot(snap, tmp_path, on=dt.date(2026, 11, 23))


def test_other_region_reads_its_own_file():
    seen = []
    with pytest.raises(fetch.FetchError, match="no Linux on-demand prices"):
        # the fixture's rows say us-east-1, so none belongs to us-west-2
        aws.fetch_aws(region="us-west-2", transport=replay(seen=seen))
    assert seen[1].endswith("/20250912225308/us-west-2/index.csv")


def test_missing_region_is_named():
    with pytest.raises(fetch.FetchError, match=r"lists no region 'mars-1'.*us-east-1, us-west-2"):
        aws.fetch_aws(region="mars-1", transport=replay())


def test_missing_column_is_named():
    with pytest.raises(fetch.FetchError, match="header lacks the column\\(s\\) CapacityStatus"):
        aws.fetch_aws(transport=replay(offer=without_column("CapacityStatus")))


def test_no_header_row_is_reported():
    with pytest.raises(fetch.FetchError, match="no header row"):
        aws.fetch_aws(transport=replay(offer=b'"FormatVersion","v1.0"\n<html>not a price list</html>\n'))


def test_no_gpu_rows_is_an_error():
    lines = CSV.decode().splitlines()
    only_m5 = lines[:6] + [line for line in lines[6:] if '"m5.large"' in line]
    with pytest.raises(fetch.FetchError, match="no Linux on-demand prices"):
        aws.fetch_aws(transport=replay(offer=("\n".join(only_m5) + "\n").encode()))


# offline: tests/unit/test_fetch.py::test_offline_gives_a_clear_error covers every fetcher


@pytest.mark.parametrize("failing", ["region_index.json", "index.csv"])
def test_server_errors_are_retried(monkeypatch, failing):
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    inner, state = replay(), {"n": 0}

    def handler(request):
        if request.url.path.endswith(failing) and state["n"] == 0:
            state["n"] += 1
            return httpx.Response(503)
        return inner.handle_request(request)

    snap = aws.fetch_aws(transport=httpx.MockTransport(handler))
    assert state["n"] == 1 and len(snap.rows) == len(KEPT)


def test_client_errors_are_not_retried(monkeypatch):
    monkeypatch.setattr(fetch.time, "sleep", lambda s: None)
    calls = []

    def handler(request):
        calls.append(1)
        return httpx.Response(403)

    with pytest.raises(fetch.FetchError, match="403"):
        aws.fetch_aws(transport=httpx.MockTransport(handler))
    assert len(calls) == 1


def test_azure_aws_and_oracle_are_registered():
    """The providers' own price APIs are registered under their ids, and win over any catalogue's copy."""
    own = {k: fetch.FETCHERS[k] for k in ("azure", "aws", "oracle", "vastai")}
    assert own == {
        "azure": azure.fetch_azure,
        "aws": aws.fetch_aws,
        "oracle": oracle.fetch_oracle,
        "vastai": vastai.fetch_vastai,
    }


def test_cli_leaves_the_default_region_to_each_fetcher(monkeypatch, tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    monkeypatch.setenv("GPU_ATLAS_SOURCES", str(recorded_terms(tmp_path)))
    calls = []

    def fake(name):
        def fetcher(**kwargs):
            calls.append((name, kwargs))
            row = {"offering": "x", "gpu_name": "H100", "gpu_memory_gb": 80, "gpu_count": 1, "usd_per_hour": 2.0}
            row |= {"pricing_tier": "on-demand", "statistic": "list", "region": "r", "note": ""}
            return fetch.Snapshot(name, [row], "https://example.invalid", "t", "p")

        return fetcher

    monkeypatch.setattr(fetch, "FETCHERS", {"azure": fake("azure"), "aws": fake("aws")})
    runner = CliRunner()
    assert runner.invoke(app, ["fetch-prices", "aws"]).exit_code == 0
    assert runner.invoke(app, ["fetch-prices", "azure", "--region", "westeurope"]).exit_code == 0
    assert calls == [("aws", {}), ("azure", {"region": "westeurope"})]
    assert runner.invoke(app, ["fetch-prices", "gcp"]).exit_code == 2


CAPTURED = (FIXTURES / "captured_index.csv").read_text(encoding="utf-8")  # verbatim lines, see CAPTURED.md


def test_a_captured_offer_file_parses_and_every_row_it_should_drop_is_dropped():
    """Lines of a real EC2 offer file (91 columns, ten-decimal prices, upfront fees, Dedicated Host, unused
    reservations, Local Zones): its only GPU row (g5.48xlarge, Dedicated SUSE, unused reservation) and
    everything else are dropped in every region they name."""
    lines = CAPTURED.splitlines()
    header = next(csv.reader([lines[5]]))
    assert len(header) == 91 and header[0] == "SKU"
    regions = {next(csv.reader([line]))[header.index("Region Code")] for line in lines[6:]}
    for region in sorted(regions):
        rows, meta = aws.aws_rows(iter(lines), region)
        assert rows == [], region
    assert meta["Version"] == "20250912225308" and aws._publication_date(meta) == dt.date(2025, 9, 12)


def test_the_captured_gpu_row_is_kept_once_its_terms_are_the_ones_we_keep():
    """The captured g5.48xlarge line with tenancy, OS and capacity status set to shared Linux in use: the
    fetcher reads its price and region from the right columns of the real 91-column header."""
    lines = CAPTURED.splitlines()
    header = next(csv.reader([lines[5]]))
    g5 = next(next(csv.reader([line])) for line in lines[6:] if '"g5.48xlarge"' in line)
    g5[header.index("Tenancy")], g5[header.index("Operating System")] = "Shared", "Linux"
    g5[header.index("CapacityStatus")] = "Used"
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(g5)
    rows, _ = aws.aws_rows(iter([*lines[:6], buffer.getvalue().rstrip("\n")]), "ap-southeast-2")
    assert [(r["offering"], r["pricing_tier"], r["usd_per_hour"], r["region"], r["gpu_count"]) for r in rows] == [
        ("g5.48xlarge", "on-demand", 21.30264, "ap-southeast-2", 8)
    ]
