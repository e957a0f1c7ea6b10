"""The price sensor starts a refresh when a new snapshot folder appears, and not before; the fetch job writes
snapshots from every price API and survives one that fails."""

import dagster as dg

from pipeline import fetch
from pipeline.defs.automation import daily_prices, fetch_prices, new_price_snapshot, price_refresh, weekly_fetch
from tests.conftest import recorded_terms


def evaluate(cursor):
    context = dg.build_sensor_context(cursor=cursor)
    requests = list(new_price_snapshot(context) or [])
    return requests, context.cursor


def test_sensor_fires_on_a_new_snapshot(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ATLAS_SOURCES", str(tmp_path))
    (tmp_path / "prices" / "lambda" / "2026-09-20").mkdir(parents=True)
    requests, cursor = evaluate(None)
    assert requests == [] and cursor  # the first look only records what is there
    requests, same = evaluate(cursor)
    assert requests == [] and same == cursor
    (tmp_path / "prices" / "lambda" / "2026-12-01").mkdir()
    requests, newer = evaluate(cursor)
    assert len(requests) == 1 and requests[0].tags["snapshot"] == "prices/lambda/2026-12-01"
    assert newer != cursor


def test_schedule_targets_the_price_job():
    assert daily_prices.job_name == price_refresh.name == "price_refresh"
    assert daily_prices.cron_schedule == "0 6 * * *"


def test_fetch_job_writes_snapshots_and_skips_a_failing_provider(tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ATLAS_SOURCES", str(recorded_terms(tmp_path)))
    rows = [
        {
            "offering": "x.large",
            "gpu_name": "NVIDIA T4",
            "gpu_memory_gb": 16,
            "gpu_count": 1,
            "usd_per_hour": 0.5,
            "pricing_tier": "on-demand",
            "statistic": "list",
            "region": "r1",
            "note": "",
        }
    ]

    def offline(**_):
        raise fetch.FetchError("cannot reach example: are you offline?")

    asked = []

    def aws(region="us-east-1", **_):
        asked.append(region)
        return fetch.Snapshot(
            "aws",
            [{**rows[0], "region": region}],
            f"https://example.com/{region}/index.csv",
            f"test in {region}",
            "test",
        )

    monkeypatch.setattr(fetch, "FETCHERS", {"azure": offline, "aws": aws})
    previous = tmp_path / "prices" / "aws" / "2026-01-01"
    previous.mkdir(parents=True)
    (previous / "prices.csv").write_text(
        ",".join(fetch.PRICE_COLUMNS)
        + "\n"
        + "\n".join(f"x.large,NVIDIA T4,16,1,0.5,on-demand,list,{r}," for r in ("us-west-2", "us-east-1", "us-east-1"))
        + "\n",
        encoding="utf-8",
    )
    _, cursor = evaluate(None)
    result = fetch_prices.execute_in_process()
    assert result.success
    written = result.output_for_node("fetch_public_prices")
    assert len(written) == 1 and "/prices/aws/" in written[0]
    assert asked == ["us-east-1", "us-west-2"]  # the regions of the latest snapshot, in one new snapshot
    requests, _ = evaluate(cursor)  # the new folder starts a refresh
    assert len(requests) == 1 and requests[0].tags["snapshot"].startswith("prices/aws/")
    assert weekly_fetch.job_name == "fetch_prices"


def test_jobs_run_in_one_process():
    """One DuckDB file has one writer: a deployed job must not run steps in parallel processes."""
    from pipeline.definitions import defs

    for name in ("price_refresh", "fetch_prices"):
        assert defs.resolve_job_def(name).executor_def.name == "in_process"


def test_the_command_line_refreshes_prices_with_the_schedule_s_job():
    """One price refresh: `gpu-atlas refresh-prices` runs the job the schedule and the sensor start, whose assets
    are the price inputs, what depends on them and the source register."""
    from pipeline import jobs
    from pipeline.definitions import defs
    from pipeline.run import price_selection

    assert jobs.PRICE_REFRESH == price_refresh.name == daily_prices.job_name == new_price_snapshot.job_name
    graph = defs.resolve_asset_graph()
    job = defs.resolve_job_def(jobs.PRICE_REFRESH)
    assert {k for k in job.asset_layer.selected_asset_keys} == price_selection().resolve(graph)
