"""The price sensor starts a refresh when a new snapshot folder appears, and not before."""

import dagster as dg

from pipeline.defs.automation import daily_prices, new_price_snapshot, price_refresh


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
