"""The price refresh re-renders only the pages whose content changed, and its site is the site a full build
of the same sources gives: same pages byte for byte, same search index, same downloads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.bench import add_price_snapshot
from pipeline.config import paths_overridden
from pipeline.contract import DATABASE_FILE, VIEWS, downloads
from pipeline.news import describe, price_news, snapshot_dates
from pipeline.jobs import build, refresh_prices
from pipeline.sourcefiles import build_date
from tests.conftest import copy_of_build, view_fingerprints

ROOT = Path(__file__).resolve().parents[2]
DAY = build_date().isoformat()  # a new snapshot is dated at the latest today


@pytest.fixture(scope="module")
def refreshed(built_site, tmp_path_factory):
    """A full build (a copy of the session's), then a new Lambda snapshot (one price +10 %) and an incremental price
    refresh."""
    base = tmp_path_factory.mktemp("refresh")
    copy = copy_of_build(built_site, base)
    src, db = copy["sources"], copy["db"]
    with paths_overridden(db, copy["build"], src):
        site = base / "build" / "site"
        before = {p.relative_to(site): (p.stat().st_mtime_ns, p.read_bytes()) for p in site.rglob("*.html")}
        snapshots_before = snapshot_dates(db)
        add_price_snapshot(src, day=DAY)
        outcome = refresh_prices()
        assert outcome.ok, outcome.errors
        news = price_news(db, snapshots_before)
        unchanged_news = price_news(db, snapshot_dates(db))
    with paths_overridden(base / "full" / "atlas.duckdb", base / "full-build", src):
        assert build().ok
    yield {
        "site": site,
        "full": base / "full-build" / "site",
        "before": before,
        "outcome": outcome,
        "news": news,
        "unchanged_news": unchanged_news,
        "db": db,
        "build": base / "build",
        "full_build": base / "full-build",
    }


def test_only_changed_pages_are_rendered_again(refreshed):
    site, before = refreshed["site"], refreshed["before"]
    after = {p.relative_to(site): (p.stat().st_mtime_ns, p.read_bytes()) for p in site.rglob("*.html")}
    assert set(after) == set(before)
    rerendered = {str(p) for p in after if after[p][0] != before[p][0]}
    # pages that show prices and were affected; spec, model and method pages are untouched
    assert "changes/index.html" in rerendered and "prices/index.html" in rerendered
    assert (
        not {"methodology/index.html", "vram-fit/index.html", "models/index.html", "conflicts/index.html"} & rerendered
    )
    assert len(rerendered) < len(after) / 2
    site = refreshed["outcome"].site  # what the refresh reports to the user
    assert site["incremental"] and 0 < site["pages_rendered"] < site["html_pages"] / 2


def test_incremental_site_equals_a_full_build(refreshed):
    site, full = refreshed["site"], refreshed["full"]
    pages = sorted(p.relative_to(full) for p in full.rglob("*.html"))
    assert pages == sorted(p.relative_to(site) for p in site.rglob("*.html"))
    differing = [str(p) for p in pages if (site / p).read_bytes() != (full / p).read_bytes()]
    assert differing == []
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    full_index = json.loads((full / "search" / "search_index.json").read_text(encoding="utf-8"))
    key = lambda e: (e["location"], e["title"], e["text"])  # noqa: E731
    assert sorted(map(key, index["docs"])) == sorted(map(key, full_index["docs"]))
    assert index["config"] == full_index["config"]
    assert DAY in (site / "changes" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("folder", ["docs/downloads", "site/downloads"])
def test_refreshed_downloads_equal_a_full_build(refreshed, folder):
    """Every download the refresh publishes is the full build's: the Parquet and CSV files byte for byte (the
    CSV of the view that shows the +10 % price included), the DuckDB file (not byte-deterministic) row for
    row in every public view. `docs/downloads` is what the exports step writes, `site/downloads` what is served."""
    refreshed_dir, full_dir = refreshed["build"] / folder, refreshed["full_build"] / folder
    names = sorted(p.name for p in full_dir.iterdir() if p.is_file())
    assert names == downloads()
    assert sorted(p.name for p in refreshed_dir.iterdir() if p.is_file()) == names
    differing = [
        name
        for name in names
        if name != DATABASE_FILE and (refreshed_dir / name).read_bytes() != (full_dir / name).read_bytes()
    ]
    assert differing == []
    refreshed_rows, full_rows = (
        view_fingerprints(refreshed_dir / DATABASE_FILE),
        view_fingerprints(full_dir / DATABASE_FILE),
    )
    assert [view for view in VIEWS if refreshed_rows[view] != full_rows[view]] == []


def test_a_refresh_without_a_previous_build_builds_everything(isolated_paths):
    """Through the command: with no earlier database, pages and site, `refresh-prices` builds everything
    and says so, then reports each provider's snapshot as new."""
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(app, ["refresh-prices"])
    assert result.exit_code == 0, result.output
    assert "no previous build to start from: built everything instead" in result.output
    assert "(full build)" in result.output and "what changed:" in result.output
    # every provider is new to this build: one with a single snapshot is its first, one with more is
    # reported against its previous snapshot

    database = isolated_paths / "data" / "atlas.duckdb"
    with duckdb.connect(str(database), read_only=True) as con:
        # What changed orders snapshots newest first, an undated catalogue copy counting as older than a dated one
        compared = {
            p: (c, v)
            for p, c, v in con.execute("""select provider, max(current_observed_on),
                    max(previous_observed_on) from price_changes group by 1""").fetchall()
        }
    for provider, dates in snapshot_dates(database).items():
        latest = sorted(dates)
        expected = (
            f"{provider}: first snapshot, {latest[-1]}"
            if len(latest) == 1
            else f"{provider}: snapshot {compared[provider][0]} against {compared[provider][1]}"
        )
        assert expected in result.output
    site = isolated_paths / "build" / "site"
    for page in ("index.html", "about/index.html", "methodology/index.html", "javascripts/vendor/vega-bundle.js"):
        assert (site / page).is_file(), page
    assert (isolated_paths / "data" / "atlas.inputs.json").is_file()


def test_the_refresh_reports_what_changed(refreshed):
    """Only the provider with a new snapshot is reported, with the one price the scenario moved (+10 %)."""
    news = refreshed["news"]
    assert [n.provider for n in news] == ["lambda"]
    lam = news[0]
    assert str(lam.current_on) == DAY and lam.previous_on is not None and str(lam.previous_on) < DAY
    assert lam.counts["repriced"] == 1 and lam.counts["added"] == lam.counts["removed"] == 0
    assert lam.counts["unchanged"] > 0
    ((_, _, _, _, before, after, pct),) = lam.repriced
    assert after == pytest.approx(before * 1.1, rel=1e-3) and pct == pytest.approx(10.0, abs=0.05)
    assert "+10.0 %" in "\n".join(describe(news))
    assert refreshed["unchanged_news"] == [] and "no provider" in describe([])[0]


def test_an_older_snapshot_is_reported_as_history(refreshed):
    """A snapshot dated before the provider's latest fills in history: current prices are unchanged."""
    db = refreshed["db"]
    before = snapshot_dates(db)
    oldest = min(before["aws"])
    before["aws"] = before["aws"] - {oldest}
    (news,) = price_news(db, before)
    assert news.provider == "aws" and news.history_added == [oldest] and news.current_on == max(before["aws"])
    assert "added to the history; current prices unchanged" in describe([news])[0]


def test_a_refresh_after_a_spec_change_builds_everything(built_site, tmp_path):
    """A price refresh re-reads only prices and aliases: when anything else it would otherwise mix into the
    last build changed (here a spec sidecar), it builds everything instead and says why; the next refresh,
    with nothing else changed, is a price refresh again."""
    copy = copy_of_build(built_site, tmp_path)  # the last full build
    src = copy["sources"]
    with paths_overridden(copy["db"], copy["build"], src):
        sidecar = sorted((src / "specs").rglob("*.source.yml"))[0]
        sidecar.write_text(
            sidecar.read_text(encoding="utf-8").replace("title:", "title: (revised)", 1), encoding="utf-8"
        )
        outcome = refresh_prices()
        assert outcome.ok and outcome.full_build_instead, outcome.errors
        assert str(sidecar.relative_to(src)) in outcome.full_build_reason and "core_gpus" in outcome.materialized
        again = refresh_prices()
        assert again.ok and not again.full_build_instead and "core_gpus" not in again.materialized


def test_a_fetched_marketplace_snapshot_gives_the_marketplace_picks(tmp_path):
    """A Vast.ai fetch (recorded answer) written as a dated source: its minimum over listings is the
    marketplace-minimum pick, its median only where the sample is large enough."""
    import datetime as dt

    import httpx

    from pipeline import fetch
    from pipeline.providers import vastai

    import yaml

    src = tmp_path / "sources"
    shutil.copytree(ROOT / "sources", src)
    # the picks are under test, not the terms: Vast.ai's recorded terms refuse a fetch (test_terms), so this
    # copy records terms that allow one, for a marketplace like it
    registry = yaml.safe_load((src / "terms.yml").read_text(encoding="utf-8"))
    registry["vastai"] = {**registry["vastai"], "automated_collection": "allowed"}
    (src / "terms.yml").write_text(yaml.safe_dump(registry, sort_keys=False), encoding="utf-8")
    recorded = json.loads((ROOT / "tests" / "fixtures" / "vastai" / "bundles.json").read_text())
    snap = vastai.fetch_vastai(
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=recorded)), on=dt.date.fromisoformat(DAY)
    )
    fetch.write_snapshot(snap, src, on=dt.date.fromisoformat(DAY), force=True)
    with paths_overridden(tmp_path / "atlas.duckdb", tmp_path / "build", src):
        outcome = refresh_prices()
        assert outcome.ok, outcome.errors
    with duckdb.connect(str(tmp_path / "atlas.duckdb"), read_only=True) as con:
        picks = {
            (g, p): (prov, price, n, why)
            for g, p, prov, price, n, why in con.execute(
                """select gpu_id, pick, provider, usd_per_gpu_hour, sample_size, why from price_picks
               where gpu_id in ('nvidia-h100-sxm-80gb', 'nvidia-a100-sxm-40gb')
                 and pick in ('marketplace minimum', 'marketplace median')"""
            ).fetchall()
        }
    assert picks[("nvidia-h100-sxm-80gb", "marketplace minimum")][:3] == ("vastai", 2.0974, 16)
    assert picks[("nvidia-h100-sxm-80gb", "marketplace median")][:3] == ("vastai", 3.17, 16)
    # four A100 40 GB listings: their median is not a price, and says why
    assert picks[("nvidia-a100-sxm-40gb", "marketplace minimum")][:3] == ("vastai", 0.4296, 4)
    median = picks.get(("nvidia-a100-sxm-40gb", "marketplace median"))
    assert median is None or median[2] != 4
