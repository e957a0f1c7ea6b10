"""The Planner's query (pipeline/sql/plan/plan_options.sql) on the built database: options that fit, ranked by
cost, GPU counts that are tensor-parallel degrees, and the memory a load needs growing with the users."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from pipeline.plan import plan, plan_options, scenario

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def con(db):
    return db


def test_serving_options_fit_and_are_ranked_by_cost(con):
    opts = plan_options(con, scenario("llama-3.1-70b", "serve", "fp8", 32768, 16, tier="on-demand"))
    assert len(opts) > 10
    assert (opts.required_gb <= opts.capacity_gb + 1e-9).all()
    assert set(opts.gpu_count) <= {1, 2, 4, 8}
    assert set(opts.pricing_tier) == {"on-demand"}
    assert list(opts["rank"]) == list(range(1, len(opts) + 1))
    assert opts.usd_per_million_tokens.is_monotonic_increasing
    assert (opts.expected_tokens_per_s <= opts.bound_tokens_per_s + 1e-9).all()
    # the cost is the hourly price over the expected tokens
    first = opts.iloc[0]
    assert first.usd_per_million_tokens == pytest.approx(first.usd_per_hour / (first.expected_tokens_per_s * 3600) * 1e6)
    # 70B at FP8 holds 70 GB of weights: never on one 80 GB GPU with 16 users at 32k
    assert opts.required_gb.min() > 80


def test_more_users_need_more_memory_and_give_more_tokens(con):
    both = pd.concat([scenario("llama-3.1-8b", "serve", "bf16", 4096, u, tier=None) for u in (1, 64)])
    opts = plan_options(con, both)
    one = opts[opts.users == 1].set_index(["gpu_id", "gpu_count", "provider", "offering", "region", "pricing_tier"])
    many = opts[opts.users == 64].set_index(["gpu_id", "gpu_count", "provider", "offering", "region", "pricing_tier"])
    common = one.index.intersection(many.index)
    assert len(common) > 5
    assert (many.loc[common, "required_gb"] > one.loc[common, "required_gb"]).all()
    assert (many.loc[common, "expected_tokens_per_s"] > one.loc[common, "expected_tokens_per_s"]).all()


def test_training_cost_is_linear_in_the_tokens(con):
    opts = plan_options(con, pd.concat([scenario("llama-3.1-8b", "lora", tokens=t, tier="on-demand") for t in (1e9, 3e9)]))
    a = opts[opts.job_tokens == 1e9].iloc[0]
    b = opts[opts.job_tokens == 3e9].iloc[0]
    assert (a.gpu_id, a.provider) == (b.gpu_id, b.provider)
    assert b.usd_per_job == pytest.approx(3 * a.usd_per_job)


def test_plan_json_matches_the_site_data(built_site):
    """`gpu-atlas plan` and the Planner's file give the same first option for the default scenario."""
    result = plan(built_site["db"], "llama-3.1-70b", "serve", "fp8", 32768, 16, tier="on-demand", limit=1)
    data = json.loads((built_site["site"] / "api" / "v1" / "plan" / "llama-3.1-70b.json").read_text())
    row = dict(zip(data["columns"], data["scenarios"]["serve|fp8|32768|16|on-demand"][0]))
    best = result["options"][0]
    assert (row["gpu_id"], row["gpu_count"], row["provider"], row["offering"]) == (
        best["gpu_id"], best["gpu_count"], best["provider"], best["offering"])
    assert row["usd_per_million_tokens"] == pytest.approx(best["usd_per_million_tokens"], rel=1e-3)


def test_machine_readable_files_are_versioned(built_site):
    api = built_site["site"] / "api" / "v1"
    for name in ("gpus.json", "offers.json", "estimates.json", "fits.json"):
        doc = json.loads((api / name).read_text())
        assert doc["schema_version"] == 1, name
    gpus = json.loads((api / "gpus.json").read_text())["gpus"]
    h100 = next(g for g in gpus if g["gpu_id"] == "nvidia-h100-sxm-80gb")
    assert h100["memory_gb"] == 80 and h100["cheapest"]
    feed = (built_site["site"] / "feeds" / "prices.atom").read_text()
    import xml.etree.ElementTree as ET

    root = ET.fromstring(feed.encode("utf-8"))
    assert root.tag == "{http://www.w3.org/2005/Atom}feed"
    assert root.findall("{http://www.w3.org/2005/Atom}entry")
    data_page = (built_site["site"] / "data" / "index.html").read_text()
    assert "api/v1/gpus.json" in data_page and "feeds/prices.atom" in data_page
