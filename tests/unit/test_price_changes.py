"""What changed between a provider's two latest snapshots (pipeline/sql/marts/out_price_changes.sql), which
offers are current (core_price_offers.sql) and which price is used (core_price_picks.sql), on fixture
snapshots."""

from __future__ import annotations

import datetime as dt

import duckdb
import pandas as pd
import pytest

from pipeline.db import create_table_from_frame, create_table_from_sql
from pipeline.steps import load_parameters

OLD, NEW = dt.date(2026, 1, 5), dt.date(2026, 2, 9)


def offer(
    day,
    offering,
    price,
    tier="on-demand",
    statistic="list",
    provider="acme",
    region="r1",
    gpu="g",
    name="G",
    count=1,
    scope=None,
    kind="catalogue_copy",
    sample=None,
    basis="whole_instance",
    host=None,
    counts=None,
    undated_before=None,
    market="global",
    seller="provider",
):
    """One row of core_price_history; `scope` lists the GPUs a partial snapshot covers (None = full), `counts`
    the GPU counts."""
    comparable = basis == "whole_instance" or host is not None
    return {
        "provider": provider,
        "offering": offering,
        "gpu_id": gpu,
        "provider_gpu_name": name,
        "gpu_memory_gb": 80.0,
        "gpu_count": count,
        "usd_per_hour": price * count,
        "usd_per_gpu_hour": price,
        "pricing_tier": tier,
        "statistic": statistic,
        "region": region,
        "observed_on": day,
        "source_id": f"s{day}",
        "note": "",
        "mapped": gpu is not None,
        "price_basis": basis,
        "host_usd_per_hour": host,
        "comparable_usd_per_gpu_hour": (price * count + (host or 0)) / count if comparable else None,
        "comparable": comparable,
        "currency": "USD",
        "amount_per_hour": price * count,
        "fx_units_per_usd": None,
        "fx_rate_date": None,
        "fx_source_id": None,
        "sample_size": sample,
        "seller": seller,
        "billing": None,
        "min_commitment": None,
        "snapshot_kind": kind,
        "observed_date_known": undated_before is None,
        "observed_no_later_than": undated_before,
        "market": market,
        "scope": "partial" if scope or counts else "full",
        "scope_gpus": scope,
        "scope_regions": None,
        "scope_tiers": None,
        "scope_gpu_counts": counts,
        "source_file": f"prices/{provider}/{day}/prices.csv",
        "source_row": abs(hash((offering, tier, statistic, region, gpu, name, count))) % 10**8,
    }


def database(rows) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:")
    load_parameters(con)
    frame = pd.DataFrame(rows)
    frame["scope_gpus"] = frame["scope_gpus"].astype(object)
    frame["scope_gpu_counts"] = frame["scope_gpu_counts"].astype(object)
    create_table_from_frame(con, "core_price_history", frame)
    con.execute("""create or replace table core_price_history as select * replace (
                       cast(scope_gpus as varchar[]) as scope_gpus, cast(scope_regions as varchar[]) as scope_regions,
                       cast(scope_tiers as varchar[]) as scope_tiers, cast(scope_gpu_counts as integer[]) as scope_gpu_counts,
                       cast(observed_no_later_than as date) as observed_no_later_than,
                       cast(sample_size as integer) as sample_size,
                       cast(host_usd_per_hour as double) as host_usd_per_hour, cast(min_commitment as varchar) as min_commitment, cast(billing as varchar) as billing)
                   from core_price_history""")
    # every snapshot of the fixture lists offers (no declared withdrawal)
    con.execute("create table core_sources (snapshot_id varchar, rows integer)")
    for table in ("out_price_changes", "core_price_offers", "core_price_picks", "core_cheapest_offers"):
        create_table_from_sql(con, table)
    return con


@pytest.fixture
def changes():
    def run(rows):
        con = database(rows)
        got = {
            tuple(r[:4]): (r[4], r[5])
            for r in con.execute(
                "select offering, pricing_tier, statistic, region, change, change_pct from out_price_changes"
            ).fetchall()
        }
        con.close()
        return got

    return run


def test_added_removed_repriced_and_unchanged(changes):
    got = changes(
        [
            offer(OLD, "a", 2.0),
            offer(OLD, "b", 1.0),
            offer(OLD, "gone", 3.0, gpu="g2"),
            offer(NEW, "a", 2.5),
            offer(NEW, "b", 1.0),
            offer(NEW, "new", 4.0, gpu="g3"),
        ]
    )
    assert got == {
        ("a", "on-demand", "list", "r1"): ("repriced", 25.0),
        ("b", "on-demand", "list", "r1"): ("unchanged", 0.0),
        ("gone", "on-demand", "list", "r1"): ("removed", None),
        ("new", "on-demand", "list", "r1"): ("added", None),
    }


def test_a_tier_only_one_snapshot_lists_is_not_compared(changes):
    """The older source printed reserved and spot prices, the newer one on-demand only: those offers are not
    'removed', and a statistic the newer source adds is not 'added'."""
    got = changes(
        [
            offer(OLD, "a", 2.0),
            offer(OLD, "a", 1.2, tier="reserved"),
            offer(OLD, "a", 0.7, tier="spot", statistic="minimum"),
            offer(NEW, "a", 2.0),
            offer(NEW, "a", 1.9, statistic="median", sample=20),
        ]
    )
    assert got == {
        ("a", "on-demand", "list", "r1"): ("unchanged", 0.0),
        ("a", "reserved", "list", "r1"): ("not compared", None),
        ("a", "spot", "minimum", "r1"): ("not compared", None),
        ("a", "on-demand", "median", "r1"): ("not compared", None),
    }


def test_a_provider_with_one_snapshot_has_no_changes(changes):
    assert changes([offer(NEW, "a", 2.0)]) == {}


def test_a_region_only_one_snapshot_lists_is_not_compared(changes):
    """The newer fetch asked for one region of two: the other region's offers are not 'removed'."""
    got = changes(
        [
            offer(OLD, "a", 2.0, region="east"),
            offer(OLD, "a", 2.4, region="west"),
            offer(OLD, "b", 1.0, region="east", gpu="g2"),
            offer(NEW, "a", 2.2, region="east"),
        ]
    )
    assert got == {
        ("a", "on-demand", "list", "east"): ("repriced", 10.0),
        ("b", "on-demand", "list", "east"): ("removed", None),
        ("a", "on-demand", "list", "west"): ("not compared", None),
    }


def test_a_partial_snapshot_removes_only_what_it_covers(changes):
    """RunPod's newer snapshot covers only H100 and A100: the B200 and RTX 4090 it does not mention are not
    removed; an H100 offer it covers and no longer lists is."""
    old = [
        offer(OLD, "H100 secure", 3.0, gpu="h100"),
        offer(OLD, "H100 community", 2.7, gpu="h100"),
        offer(OLD, "A100", 1.8, gpu="a100"),
        offer(OLD, "B200", 6.0, gpu="b200"),
        offer(OLD, "4090", 0.34, gpu="4090"),
    ]
    new = [
        offer(NEW, "H100 secure", 3.2, gpu="h100", scope=["h100", "a100"]),
        offer(NEW, "A100", 1.8, gpu="a100", scope=["h100", "a100"]),
    ]
    got = changes(old + new)
    assert got[("B200", "on-demand", "list", "r1")] == ("not compared", None)
    assert got[("4090", "on-demand", "list", "r1")] == ("not compared", None)
    assert got[("H100 community", "on-demand", "list", "r1")] == ("removed", None)
    assert got[("H100 secure", "on-demand", "list", "r1")] == ("repriced", 6.67)
    assert [v for v in got.values() if v[0] == "removed"] == [("removed", None)]


def test_uncovered_offers_stay_current_with_their_own_date():
    old = [offer(OLD, "H100", 3.0, gpu="h100"), offer(OLD, "4090", 0.34, gpu="4090")]
    new = [offer(NEW, "H100", 3.2, gpu="h100", scope=["h100"])]
    con = database(old + new)
    current = con.execute("select offering, observed_on, usd_per_gpu_hour from core_price_offers order by 1").fetchall()
    assert current == [("4090", OLD, 0.34), ("H100", NEW, 3.2)]


def test_a_snapshot_of_one_gpu_offers_leaves_the_eight_gpu_offers_alone(changes):
    """A tracker that records only 1-GPU droplets (covers gpu_counts [1]): the provider's 8-GPU offer is not
    removed and stays current with its own date; the 1-GPU price it covers is updated."""
    old = [offer(OLD, "H100", 3.39, gpu="h100"), offer(OLD, "H100 (8x)", 2.99, gpu="h100", count=8)]
    new = [offer(NEW, "H100", 4.41, gpu="h100", counts=[1])]
    got = changes(old + new)
    assert got[("H100 (8x)", "on-demand", "list", "r1")] == ("not compared", None)
    assert got[("H100", "on-demand", "list", "r1")] == ("repriced", 30.09)
    current = (
        database(old + new)
        .execute("select offering, gpu_count, observed_on, usd_per_gpu_hour from core_price_offers order by 1")
        .fetchall()
    )
    assert current == [("H100", 1, NEW, 4.41), ("H100 (8x)", 8, OLD, 2.99)]


def test_a_rename_at_the_same_identity_is_a_rename(changes):
    """DigitalOcean's 'H100' became 'NVIDIA H100' at the same price, GPU, count, tier and region."""
    got = changes(
        [
            offer(OLD, "H100", 3.39, gpu="h100"),
            offer(OLD, "H100x8", 2.99, gpu="h100", count=8),
            offer(NEW, "NVIDIA H100", 3.39, gpu="h100"),
            offer(NEW, "NVIDIA H100 (8x)", 2.99, gpu="h100", count=8),
        ]
    )
    assert got == {
        ("NVIDIA H100", "on-demand", "list", "r1"): ("renamed", 0.0),
        ("NVIDIA H100 (8x)", "on-demand", "list", "r1"): ("renamed", 0.0),
    }


def test_two_candidates_at_one_identity_are_not_guessed_a_rename(changes):
    got = changes(
        [
            offer(OLD, "x", 3.0, gpu="h100"),
            offer(OLD, "y", 3.1, gpu="h100"),
            offer(NEW, "z", 3.0, gpu="h100"),
            offer(NEW, "w", 3.1, gpu="h100"),
        ]
    )
    # the GPU is still offered at that identity under other names: replaced, never removed
    assert sorted(v[0] for v in got.values()) == ["added", "added", "replaced", "replaced"]
    one_to_two = changes(
        [
            offer(OLD, "H100 SXM (80GB)", 2.29, gpu="h100"),
            offer(NEW, "1H100.80S.30V", 3.737, gpu="h100"),
            offer(NEW, "1H100.80S.32V", 3.737, gpu="h100"),
        ]
    )
    assert one_to_two[("H100 SXM (80GB)", "on-demand", "list", "r1")] == ("replaced", None)
    gone = changes(
        [offer(OLD, "H100", 2.29, gpu="h100"), offer(OLD, "A100", 1.2, gpu="a100"), offer(NEW, "A100", 1.2, gpu="a100")]
    )
    assert gone[("H100", "on-demand", "list", "r1")] == ("removed", None)


def test_a_change_of_sample_is_not_a_price_move(changes):
    got = changes(
        [
            offer(OLD, "median", 6.15, statistic="median", sample=3),
            offer(NEW, "median", 2.40, statistic="median", sample=4),
        ]
    )
    assert got == {("median", "on-demand", "median", "r1"): ("not compared", None)}
    same_sample = changes(
        [
            offer(OLD, "median", 2.0, statistic="median", sample=30),
            offer(NEW, "median", 2.2, statistic="median", sample=30),
        ]
    )
    assert same_sample == {("median", "on-demand", "median", "r1"): ("repriced", 10.0)}


def test_an_article_is_history_never_a_current_price():
    con = database(
        [
            offer(OLD, "H100 promo", 2.5, provider="paper", kind="article", tier="promotional"),
            offer(OLD, "H100", 5.95, provider="paper", kind="article"),
        ]
    )
    assert con.execute("select count(*) from core_price_offers").fetchone()[0] == 0
    assert con.execute("select count(*) from core_price_picks where usd_per_gpu_hour is not null").fetchone()[0] == 0


def test_picks_never_use_a_stale_a_gpu_only_or_a_thin_median_price():
    today = dt.date.today()
    fresh, stale = today - dt.timedelta(days=10), today - dt.timedelta(days=200)
    con = database(
        [
            offer(stale, "old cheap", 1.0, provider="old"),  # stale: never picked
            offer(fresh, "gpu only", 1.5, provider="gcp", basis="gpu_and_host"),  # no host price: left out
            offer(fresh, "gpu+host", 9.8, provider="gcp2", basis="gpu_and_host", host=1.18),  # 9.8 + 1.18
            offer(fresh, "list", 2.69, provider="jl"),
            offer(fresh, "median4", 2.4, provider="vast", statistic="median", sample=4, kind="price_tracker"),
            offer(fresh, "median30", 2.9, provider="vast2", statistic="median", sample=30, kind="price_tracker"),
        ]
    )
    picks = dict(con.execute("select pick, provider from core_price_picks").fetchall())
    assert picks == {"on-demand": "jl", "marketplace median": "vast2"}
    host = con.execute("select comparable_usd_per_gpu_hour from core_price_offers where provider = 'gcp2'").fetchone()[
        0
    ]
    assert host == pytest.approx(10.98)
    why = con.execute("select why from core_price_picks where pick = 'on-demand'").fetchone()[0]
    assert "stale" in why and "GPU-only" in why
    # no pick is older than the stated age
    max_age = con.execute("select value from core_parameters where name = 'price_max_age_days'").fetchone()[0]
    oldest = con.execute(
        "select max(current_date - observed_on) from core_price_picks where usd_per_gpu_hour is not null"
    ).fetchone()[0]
    assert oldest <= max_age


def test_an_undated_list_known_to_be_old_is_stale_and_never_picked():
    """An undated copy whose provider's page stopped printing the list on a known day: its age counts from that
    day, so it is stale and no pick uses it; an undated copy with no such evidence is dated the day it was read."""
    today = dt.date.today()
    old_list = offer(today, "GT4.4XLARGE96", 4.2, gpu="a100", provider="tencent", undated_before=dt.date(2025, 12, 19))
    fresh = offer(today - dt.timedelta(days=10), "A100", 5.0, gpu="a100", provider="other")
    con = database([old_list, fresh])
    stale = dict(con.execute("select provider, stale from core_price_offers").fetchall())
    assert stale == {"tencent": True, "other": False}
    picks = con.execute("select provider, usd_per_gpu_hour from core_price_picks where pick = 'on-demand'").fetchall()
    assert picks == [("other", 5.0)]


def test_a_mainland_china_offer_is_picked_in_its_own_market():
    """AutoDL's A100 at a fifth of the global price sets the China-mainland pick, never the global one."""
    day = dt.date.today() - dt.timedelta(days=5)
    con = database(
        [
            offer(day, "A100 SXM4 80G", 1.03, gpu="a100", provider="autodl", market="cn-mainland"),
            offer(day, "A100 SXM", 1.39, gpu="a100", provider="runpod"),
        ]
    )
    picks = dict(
        con.execute("select pick, provider from core_price_picks where usd_per_gpu_hour is not null").fetchall()
    )
    assert picks == {"on-demand": "runpod", "on-demand (China mainland)": "autodl"}
    assert con.execute("select provider from core_cheapest_offers").fetchall() == [("runpod",)]


def test_a_third_party_hosts_offer_is_the_marketplace_pick_never_the_list_pick():
    """A host's machine on a provider's marketplace (RunPod Community Cloud) is cheaper than the provider's own list
    price: the on-demand pick stays the list price, the host's offer is the cheapest marketplace offer beside it."""
    day = dt.date.today() - dt.timedelta(days=5)
    con = database(
        [
            offer(day, "H100 (Secure Cloud)", 3.99),
            offer(day, "H100 (Community Cloud)", 2.69, seller="host"),
            offer(day, "H100 (Community Cloud)", 1.50, seller="host", tier="spot"),
        ]
    )
    picks = dict(
        con.execute("select pick, offering from core_price_picks where usd_per_gpu_hour is not null").fetchall()
    )
    assert picks == {"on-demand": "H100 (Secure Cloud)", "marketplace minimum": "H100 (Community Cloud)"}
    why = con.execute("select why from core_price_picks where pick = 'marketplace minimum'").fetchone()[0]
    assert "third-party host" in why
