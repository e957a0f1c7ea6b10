"""Price plausibility: history, peers (with the provider's own offers as a second opinion), bounds, exceptions."""

from __future__ import annotations

import duckdb
import pytest

from pipeline.plausibility import implausible_prices

COLUMNS = (
    "provider",
    "offering",
    "gpu_id",
    "provider_gpu_name",
    "gpu_count",
    "usd_per_hour",
    "usd_per_gpu_hour",
    "pricing_tier",
    "statistic",
    "region",
    "observed_on",
    "source_file",
    "source_row",
)


def db(rows):
    con = duckdb.connect()
    con.execute(
        "create table raw_gpus as select * from (values ('h100', 'datacenter'), ('a4000', 'workstation')) t(gpu_id, segment)"
    )
    con.execute(
        "create table core_price_history (provider varchar, offering varchar, gpu_id varchar, provider_gpu_name varchar,"
        " gpu_count int, usd_per_hour double, usd_per_gpu_hour double, pricing_tier varchar, statistic varchar,"
        " region varchar, observed_on date, source_file varchar, source_row int, market varchar)"
    )
    for i, (provider, offering, gpu, price, day, *market) in enumerate(rows):
        file = f"sources/prices/{provider}/{day}/prices.csv"
        con.execute(
            "insert into core_price_history values (?, ?, ?, ?, 1, ?, ?, 'on-demand', 'list', 'all', ?, ?, ?, ?)",
            [provider, offering, gpu, gpu, price, price, day, file, i + 2, market[0] if market else "global"],
        )
    con.execute(
        "create table raw_prices as select source_file, source_row, cast(usd_per_hour as varchar) as usd_per_hour"
        " from core_price_history"
    )
    return con


PEERS = [
    ("p1", "x", "h100", 2.0, "2026-01-01"),
    ("p2", "x", "h100", 2.5, "2026-01-01"),
    ("p3", "x", "h100", 3.0, "2026-01-01"),
]


def test_real_looking_prices_pass(tmp_path):
    assert implausible_prices(db(PEERS + [("p4", "x", "h100", 9.0, "2026-01-01")]), tmp_path) == []


def test_a_price_far_from_peers_is_refused(tmp_path):
    (problem,) = implausible_prices(db(PEERS + [("p4", "x", "h100", 25.0, "2026-01-01")]), tmp_path)
    assert problem.file == "sources/prices/p4/2026-01-01/prices.csv" and problem.row == 5
    assert problem.column == "usd_per_hour" and problem.value == "25.0"
    assert "10x the median $2.50 of h100 (on-demand, list) at 3 other provider(s)" in problem.rule


def test_the_providers_own_offers_keep_a_big_instance(tmp_path):
    """One instance with many CPUs per GPU: far from other providers, near the provider's own offers."""
    rows = PEERS + [("p4", "big", "h100", 14.0, "2026-01-01"), ("p4", "bigger", "h100", 11.0, "2026-01-01")]
    assert implausible_prices(db(rows), tmp_path) == []


def test_history_of_the_same_offer(tmp_path):
    rows = [
        ("p1", "x", "h100", 2.0, "2026-01-01"),
        ("p1", "x", "h100", 2.1, "2026-02-01"),
        ("p1", "x", "h100", 0.021, "2026-03-01"),
    ]  # dollars read as cents
    (problem,) = implausible_prices(db(rows), tmp_path)
    assert problem.row == 4 and "the median $2.05 of the same offer in p1's other snapshots" in problem.rule


@pytest.mark.parametrize("price,ok", [(9.99, True), (10.5, False), (0.01, False)])
def test_bounds_per_segment(tmp_path, price, ok):
    problems = implausible_prices(db([("p1", "x", "a4000", price, "2026-01-01")]), tmp_path)
    assert (problems == []) == ok
    if not ok:
        assert "for a workstation GPU" in problems[0].rule


def test_a_sidecar_exception_explains_a_price(tmp_path):
    from tests.conftest import write_source

    rows = PEERS + [("p4", "x", "h100", 25.0, "2026-01-01")]
    path = write_source(
        tmp_path / "sources", "prices/p4/2026-01-01/prices.csv", ["a"], [["1"]], kind="cloud_price_list", documents=[]
    )
    side = path.with_suffix(".source.yml")
    side.write_text(side.read_text() + "price_exceptions:\n  - offering: x\n", encoding="utf-8")
    assert len(implausible_prices(db(rows), tmp_path / "sources")) == 1  # an exception needs its reason
    side.write_text(side.read_text() + "    reason: a bundle with 4 TB of RAM\n", encoding="utf-8")
    assert implausible_prices(db(rows), tmp_path / "sources") == []


def test_a_wrong_price_never_condemns_a_right_one(tmp_path):
    """A monthly price (out of bounds) is refused; the other provider's right price it would be compared with
    is not."""
    rows = [("hyper", "a", "a4000", 0.15, "2026-01-01"), ("paper", "b", "a4000", 554.8, "2026-01-01")]
    (problem,) = implausible_prices(db(rows), tmp_path)
    assert problem.file == "sources/prices/paper/2026-01-01/prices.csv" and problem.value == "554.8"


def test_a_mainland_china_price_is_no_peer_of_a_global_one(tmp_path):
    """AutoDL's A4000 at a fifth of a managed cloud's list price: different markets, so neither condemns the other."""
    rows = [
        ("paperspace", "A4000", "a4000", 0.76, "2026-01-01"),
        ("vast", "x", "a4000", 0.15, "2026-01-01"),
        ("autodl", "A4000", "a4000", 0.143, "2026-01-01", "cn-mainland"),
    ]
    assert implausible_prices(db(rows), tmp_path) == []
    global_only = [r[:5] for r in rows]  # the same prices read as one market: the managed cloud is refused
    (problem,) = implausible_prices(db(global_only), tmp_path)
    assert problem.file == "sources/prices/paperspace/2026-01-01/prices.csv"
