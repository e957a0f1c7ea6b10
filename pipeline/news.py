"""What a price refresh brought: the providers whose latest snapshot is new, and how their offers moved
against the snapshot before (from the price_changes view). The CLI prints it after `refresh-prices`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

CHANGES = ("repriced", "renamed", "added", "removed", "unchanged", "not compared")


@dataclass
class ProviderNews:
    provider: str
    current_on: dt.date
    previous_on: dt.date | None  # None: the provider's first snapshot
    counts: dict[str, int] = field(default_factory=dict)
    repriced: list[tuple] = field(default_factory=list)  # offering, GPU, tier, region, before, after, change %
    history_added: list[dt.date] = field(default_factory=list)  # older snapshots added (current prices unchanged)


def _dates(con: duckdb.DuckDBPyConnection) -> dict[str, set[dt.date]]:
    rows = con.execute("select provider, list(distinct observed_on) from price_history group by all").fetchall()
    return {provider: set(dates) for provider, dates in rows}


def snapshot_dates(database: Path) -> dict[str, set[dt.date]]:
    """The dates of each provider's snapshots in a built database (empty when there is none)."""
    if not database.is_file():
        return {}
    with duckdb.connect(str(database), read_only=True) as con:
        return _dates(con)


def price_news(database: Path, before: dict[str, set[dt.date]], largest: int = 8) -> list[ProviderNews]:
    """Providers with a snapshot that `before` did not have: a newer one (with the change counts against
    the snapshot before it and the `largest` price moves) or only older ones (history filled in)."""
    news = []
    with duckdb.connect(str(database), read_only=True) as con:
        for provider, dates in sorted(_dates(con).items()):
            known = before.get(provider, set())
            added = sorted(dates - known)
            if not added:
                continue
            # the newest snapshot as What changed orders them (an undated copy counts as older than a dated one)
            compared = con.execute(
                """select max(current_observed_on), max(previous_observed_on) from price_changes
                                      where provider = ?""",
                [provider],
            ).fetchone()
            current_on = compared[0] or max(dates)
            if known and current_on in known:  # only older snapshots arrived: the current prices are unchanged
                news.append(ProviderNews(provider, current_on, current_on, history_added=added))
                continue
            rows = con.execute(
                """select change, count(*) from price_changes where provider = ? group by all""", [provider]
            ).fetchall()
            counts = {change: n for change, n in rows}
            previous_on = compared[1]
            repriced = con.execute(
                """
                select c.offering, coalesce(g.name, c.provider_gpu_name), c.pricing_tier, c.region,
                       c.previous_usd_per_gpu_hour, c.current_usd_per_gpu_hour, c.change_pct
                from price_changes as c left join gpus as g using (gpu_id)
                where c.provider = ? and c.change = 'repriced'
                order by abs(c.change_pct) desc, c.offering, c.pricing_tier, c.region
                limit ?""",
                [provider, largest],
            ).fetchall()
            news.append(
                ProviderNews(provider, current_on, previous_on, {k: counts.get(k, 0) for k in CHANGES}, repriced)
            )
    return news


def describe(news: list[ProviderNews]) -> list[str]:
    """Plain-text lines for the terminal."""
    if not news:
        return ["no provider has a new snapshot: prices are as they were"]
    lines = []
    for n in news:
        if n.history_added:
            dates = ", ".join(str(d) for d in n.history_added)
            lines.append(
                f"{n.provider}: older snapshot(s) {dates} added to the history; current prices unchanged "
                f"(latest snapshot {n.current_on})"
            )
            continue
        if n.previous_on is None:
            lines.append(f"{n.provider}: first snapshot, {n.current_on}")
            continue
        counts = ", ".join(f"{n.counts[k]} {k}" for k in CHANGES if n.counts[k] or k != "not compared")
        lines.append(f"{n.provider}: snapshot {n.current_on} against {n.previous_on}: {counts}")
        for offering, gpu, tier, region, before, after, pct in n.repriced:
            lines.append(
                f"    {offering} ({gpu}, {tier}, {region}): ${before:,.3f} -> ${after:,.3f} per GPU-hour ({pct:+.1f} %)"
            )
        if n.counts["repriced"] > len(n.repriced):
            lines.append(f"    ... and {n.counts['repriced'] - len(n.repriced)} more (the What changed page lists all)")
    return lines
