"""Automation for a deployed instance: a weekly fetch of new price snapshots from the public price APIs,
a sensor that refreshes the price-dependent assets as soon as a new snapshot folder appears under
sources/prices/, and a daily refresh (price ages and snapshots added by hand). All start switched off."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipeline.config import paths
from pipeline.run import price_selection

price_refresh = dg.define_asset_job(
    "price_refresh",
    selection=price_selection(),
    description="Price inputs, everything downstream of them (pages and site included), and the source register.",
)

daily_prices = dg.ScheduleDefinition(
    name="daily_price_refresh",
    job=price_refresh,
    cron_schedule="0 6 * * *",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Rebuild price-dependent assets every morning (turn on in a deployment).",
)


def snapshot_folders(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.glob("prices/*/*") if p.is_dir())


@dg.sensor(
    job=price_refresh,
    minimum_interval_seconds=300,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Starts a price refresh when a new dated snapshot folder appears under sources/prices/.",
)
def new_price_snapshot(context: dg.SensorEvaluationContext):
    folders = snapshot_folders(paths().sources)
    newest = folders[-1] if folders else ""
    cursor = "|".join(folders)
    previous = context.cursor
    if cursor != previous:
        context.update_cursor(cursor)
        if previous is not None:  # the first evaluation only records what is there
            yield dg.RunRequest(run_key=cursor[-200:], tags={"snapshot": newest})


@dg.op(
    description="Fetch a dated snapshot from every public price API (network); a provider that fails is "
    "logged and skipped, and an existing snapshot of today is never overwritten."
)
def fetch_public_prices(context) -> list[str]:
    from pipeline.fetch import refresh_all

    written = []
    for outcome in refresh_all(paths().sources):
        if outcome.status == "written":
            context.log.info(f"{outcome.provider}: wrote {outcome.detail}")
            written.append(outcome.detail)
        else:
            context.log.warning(f"{outcome.provider}: {outcome.status}: {outcome.detail}")
    return written


@dg.job(description="Fetch new price snapshots; the new_price_snapshot sensor then refreshes the site.")
def fetch_prices():
    fetch_public_prices()


weekly_fetch = dg.ScheduleDefinition(
    name="weekly_price_fetch",
    job=fetch_prices,
    cron_schedule="17 6 * * 1",
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description="Fetch the public price APIs every Monday morning (turn on in a deployment, with the sensor).",
)


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(
        jobs=[price_refresh, fetch_prices], schedules=[daily_prices, weekly_fetch], sensors=[new_price_snapshot]
    )
