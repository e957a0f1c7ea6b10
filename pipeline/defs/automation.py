"""Automation for a deployed instance: a daily price refresh, and a sensor that refreshes as soon
as a new price snapshot folder appears under sources/prices/."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipeline.config import paths
from pipeline.run import price_selection

price_refresh = dg.define_asset_job(
    "price_refresh", selection=price_selection(),
    description="Price inputs, everything downstream of them (pages and site included), and the source register.")

daily_prices = dg.ScheduleDefinition(
    name="daily_price_refresh", job=price_refresh, cron_schedule="0 6 * * *",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Rebuild price-dependent assets every morning (turn on in a deployment).")


def snapshot_folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.glob("prices/*/*") if p.is_dir())


@dg.sensor(job=price_refresh, minimum_interval_seconds=300, default_status=dg.DefaultSensorStatus.STOPPED,
           description="Starts a price refresh when a new dated snapshot folder appears under sources/prices/.")
def new_price_snapshot(context: dg.SensorEvaluationContext):
    folders = snapshot_folders(paths().sources)
    newest = folders[-1] if folders else ""
    cursor = "|".join(folders)
    previous = context.cursor
    if cursor != previous:
        context.update_cursor(cursor)
        if previous is not None:  # the first evaluation only records what is there
            yield dg.RunRequest(run_key=cursor[-200:], tags={"snapshot": newest})


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(jobs=[price_refresh], schedules=[daily_prices], sensors=[new_price_snapshot])
