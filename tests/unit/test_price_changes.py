"""What changed between a provider's two latest snapshots (pipeline/sql/out_price_changes.sql)."""

from __future__ import annotations

import datetime as dt

import duckdb
import pandas as pd
import pytest

from pipeline.db import create_table_from_frame, create_table_from_sql

OLD, NEW = dt.date(2026, 1, 5), dt.date(2026, 2, 9)


def offer(day, offering, price, tier="on-demand", statistic="list", provider="acme", region="r1"):
    return {"provider": provider, "offering": offering, "gpu_id": "g", "provider_gpu_name": "G", "gpu_memory_gb": 80.0,
            "gpu_count": 1, "usd_per_hour": price, "usd_per_gpu_hour": price, "pricing_tier": tier,
            "statistic": statistic, "region": region, "observed_on": day, "source_id": f"s{day}", "note": None,
            "mapped": True, "source_file": "f", "source_row": 1}


@pytest.fixture
def changes():
    def run(rows):
        con = duckdb.connect(":memory:")
        create_table_from_frame(con, "core_price_history", pd.DataFrame(rows))
        create_table_from_sql(con, "out_price_changes")
        got = {tuple(r[:4]): (r[4], r[5]) for r in con.execute(
            "select offering, pricing_tier, statistic, region, change, change_pct from out_price_changes").fetchall()}
        con.close()
        return got
    return run


def test_added_removed_repriced_and_unchanged(changes):
    got = changes([offer(OLD, "a", 2.0), offer(OLD, "b", 1.0), offer(OLD, "gone", 3.0),
                   offer(NEW, "a", 2.5), offer(NEW, "b", 1.0), offer(NEW, "new", 4.0)])
    assert got == {("a", "on-demand", "list", "r1"): ("repriced", 25.0), ("b", "on-demand", "list", "r1"): ("unchanged", 0.0),
                   ("gone", "on-demand", "list", "r1"): ("removed", None), ("new", "on-demand", "list", "r1"): ("added", None)}


def test_a_tier_only_one_snapshot_lists_is_not_compared(changes):
    """The older source printed reserved and spot prices, the newer one on-demand only: those offers are not
    'removed', and a statistic the newer source adds is not 'added'."""
    got = changes([offer(OLD, "a", 2.0), offer(OLD, "a", 1.2, tier="reserved"), offer(OLD, "a", 0.7, tier="spot",
                                                                                    statistic="minimum"),
                   offer(NEW, "a", 2.0), offer(NEW, "a", 1.9, statistic="median")])
    assert got == {("a", "on-demand", "list", "r1"): ("unchanged", 0.0),
                   ("a", "reserved", "list", "r1"): ("not compared", None),
                   ("a", "spot", "minimum", "r1"): ("not compared", None),
                   ("a", "on-demand", "median", "r1"): ("not compared", None)}


def test_a_provider_with_one_snapshot_has_no_changes(changes):
    assert changes([offer(NEW, "a", 2.0)]) == {}


def test_a_region_only_one_snapshot_lists_is_not_compared(changes):
    """The newer fetch asked for one region of two: the other region's offers are not 'removed'."""
    got = changes([offer(OLD, "a", 2.0, region="east"), offer(OLD, "a", 2.4, region="west"),
                   offer(OLD, "b", 1.0, region="east"),
                   offer(NEW, "a", 2.2, region="east")])
    assert got == {("a", "on-demand", "list", "east"): ("repriced", 10.0),
                   ("b", "on-demand", "list", "east"): ("removed", None),
                   ("a", "on-demand", "list", "west"): ("not compared", None)}
