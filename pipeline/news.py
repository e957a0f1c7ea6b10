"""What a price refresh brought: the providers whose latest snapshot is new, and how their offers moved
against the snapshot before (from the price_changes view). The CLI prints it after `refresh-prices`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

CHANGES = ("repriced", "added", "removed", "unchanged", "not compared")


@dataclass
class ProviderNews:
    provider: str
    current_on: dt.date
    previous_on: dt.date | None  # None: the provider's first snapshot
    counts: dict[str, int] = field(default_factory=dict)
    repriced: list[tuple] = field(default_factory=list)  # offering, GPU, tier, region, before, after, change %


def latest_snapshots(database: Path) -> dict[str, dt.date]:
    """The date of each provider's latest snapshot in a built database (empty when there is none)."""
    if not database.is_file():
        return {}
    with duckdb.connect(str(database), read_only=True) as con:
        return dict(con.execute("select provider, max(observed_on) from price_history group by all").fetchall())


def price_news(database: Path, before: dict[str, dt.date], largest: int = 8) -> list[ProviderNews]:
    """Providers whose latest snapshot is newer than in `before`, with their change counts and the
    `largest` price moves by size."""
    news = []
    with duckdb.connect(str(database), read_only=True) as con:
        latest = con.execute("select provider, max(observed_on) from price_history group by all order by 1").fetchall()
        for provider, current_on in latest:
            if before.get(provider) == current_on:
                continue
            counts = dict(con.execute("select change, count(*) from price_changes where provider = ? group by all",
                                      [provider]).fetchall())
            previous_on = con.execute("""select max(previous_observed_on) from price_changes where provider = ?""",
                                      [provider]).fetchone()[0]
            repriced = con.execute("""
                select c.offering, coalesce(g.name, c.provider_gpu_name), c.pricing_tier, c.region,
                       c.previous_usd_per_gpu_hour, c.current_usd_per_gpu_hour, c.change_pct
                from price_changes as c left join gpus as g using (gpu_id)
                where c.provider = ? and c.change = 'repriced'
                order by abs(c.change_pct) desc, c.offering, c.pricing_tier, c.region
                limit ?""", [provider, largest]).fetchall()
            news.append(ProviderNews(provider, current_on, previous_on,
                                     {k: counts.get(k, 0) for k in CHANGES}, repriced))
    return news


def describe(news: list[ProviderNews]) -> list[str]:
    """Plain-text lines for the terminal."""
    if not news:
        return ["no provider has a new snapshot: prices are as they were"]
    lines = []
    for n in news:
        if n.previous_on is None:
            lines.append(f"{n.provider}: first snapshot, {n.current_on}")
            continue
        counts = ", ".join(f"{n.counts[k]} {k}" for k in CHANGES if n.counts[k] or k != "not compared")
        lines.append(f"{n.provider}: snapshot {n.current_on} against {n.previous_on}: {counts}")
        for offering, gpu, tier, region, before, after, pct in n.repriced:
            lines.append(f"    {offering} ({gpu}, {tier}, {region}): ${before:,.3f} -> ${after:,.3f} "
                         f"per GPU-hour ({pct:+.1f} %)")
        if n.counts["repriced"] > len(n.repriced):
            lines.append(f"    ... and {n.counts['repriced'] - len(n.repriced)} more (the What changed page lists all)")
    return lines
