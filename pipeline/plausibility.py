"""Price plausibility: a price per GPU-hour that a unit mistake (a monthly price, cents, a whole instance
read as one GPU) would put far from every comparable price is refused, naming the file, row, column,
value and comparison. A price that is right and still far off is explained in its sidecar.

Three comparisons, all on the price per GPU-hour, all in SQL over every snapshot at once:

- history: the same offer (provider, offering, GPUs, region, tier, statistic) in the provider's other
  snapshots; outside [1/RATIO, RATIO] x its median is refused;
- peers: the same variant, tier and statistic at other providers of the same market (a mainland-China
  price is not a peer of a global one), outside [1/RATIO, RATIO] x their median
  (1/RATIO_ONE_PEER .. RATIO_ONE_PEER when a single other provider lists it), refused only when the
  provider's own other offers of the variant (same tier and statistic) are just as far, or there are none:
  one instance with many CPUs per GPU costs a multiple of its siblings and stays;
- bounds: a price per GPU-hour within the absolute bounds of the GPU's segment (BOUNDS).

An exception is stated in the snapshot's sidecar under `price_exceptions` (sources/README.md).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from .errors import Problem
from .sourcefiles import read_sidecar

RATIO = 5.0
RATIO_ONE_PEER = 10.0
# USD per GPU-hour, inclusive, by the variant's segment; "unmapped" for a name no alias maps
BOUNDS = {
    "consumer": (0.02, 5.0),
    "workstation": (0.02, 10.0),
    "datacenter": (0.02, 40.0),
    "unmapped": (0.01, 100.0),
}
EXCEPTION_KEY = "price_exceptions"

SQL = f"""
with bounds as (
    select * from (values {", ".join(f"('{k}', {lo}, {hi})" for k, (lo, hi) in BOUNDS.items())})
        as t(segment, lo, hi)
),
h as (
    select h.*, coalesce(g.segment, 'unmapped') as segment
    from core_price_history as h
    left join (select distinct gpu_id, segment from raw_gpus) as g using (gpu_id)
),
-- prices a comparison may use: those within their bounds (a wrong price never condemns a right one)
ref as (
    select h.* from h join bounds as b using (segment) where h.usd_per_gpu_hour between b.lo and b.hi
),
history as (
    select a.source_file, a.source_row, median(b.usd_per_gpu_hour) as ref, count(*) as n
    from h as a join ref as b
      on a.provider = b.provider and a.offering = b.offering and a.gpu_count = b.gpu_count
     and a.region = b.region and a.pricing_tier = b.pricing_tier and a.statistic = b.statistic
     and a.observed_on <> b.observed_on
    group by all
),
peers as (
    select a.source_file, a.source_row, median(b.usd_per_gpu_hour) as ref, count(distinct b.provider) as n
    from h as a join ref as b
      on a.gpu_id = b.gpu_id and a.pricing_tier = b.pricing_tier and a.statistic = b.statistic
     and a.provider <> b.provider and a.market = b.market
    group by all
),
own as (
    select a.source_file, a.source_row, median(b.usd_per_gpu_hour) as ref
    from h as a join ref as b
      on a.gpu_id = b.gpu_id and a.pricing_tier = b.pricing_tier and a.statistic = b.statistic
     and a.provider = b.provider and (a.source_file <> b.source_file or a.source_row <> b.source_row)
    group by all
),
judged as (
    select
        h.source_file, h.source_row, h.provider, h.offering, h.region, h.pricing_tier, h.statistic,
        h.gpu_count, h.usd_per_hour, r.usd_per_hour as written, h.usd_per_gpu_hour as price, coalesce(h.gpu_id, h.provider_gpu_name) as gpu,
        h.segment, b.lo, b.hi,
        hi.ref as history_ref, pe.ref as peer_ref, pe.n as peers, ow.ref as own_ref,
        case when pe.n >= 2 then {RATIO} else {RATIO_ONE_PEER} end as peer_ratio
    from h
    join bounds as b using (segment)
    left join raw_prices as r using (source_file, source_row)
    left join history as hi using (source_file, source_row)
    left join peers as pe using (source_file, source_row)
    left join own as ow using (source_file, source_row)
)
select *,
    history_ref is not null and (price > history_ref * {RATIO} or price < history_ref / {RATIO}) as off_history,
    peer_ref is not null and (price > peer_ref * peer_ratio or price < peer_ref / peer_ratio)
        and (own_ref is null or price > own_ref * {RATIO} or price < own_ref / {RATIO}) as off_peers,
    price < lo or price > hi as off_bounds
from judged
where off_history or off_peers or off_bounds
order by source_file, source_row
"""


def _money(x: float) -> str:
    return f"${x:,.4g}" if x < 1 else f"${x:,.2f}"


def _times(price: float, ref: float) -> str:
    r = price / ref
    shown = lambda x: f"{x:,.0f}" if x >= 10 else f"{x:.3g}"  # noqa: E731
    return f"{shown(r)}x" if r >= 1 else f"1/{shown(1 / r)} of"


def _explained(meta: dict, row) -> bool:
    for item in meta.get(EXCEPTION_KEY) or []:
        if (
            isinstance(item, dict)
            and str(item.get("offering")) == row.offering
            and str(item.get("reason") or "").strip()
            and all(str(item[k]) == str(getattr(row, k)) for k in ("region", "pricing_tier") if k in item)
        ):
            return True
    return False


def implausible_prices(con: duckdb.DuckDBPyConnection, sources_dir: Path) -> list[Problem]:
    """Every price per GPU-hour outside its comparisons and not explained by its sidecar."""
    rows = con.execute(SQL).df()
    problems: list[Problem] = []
    sidecars: dict[str, dict] = {}
    for r in rows.itertuples(index=False):  # only the refused rows: a handful at most
        if r.source_file not in sidecars:
            data_file = sources_dir.parent / r.source_file
            if not data_file.is_file():
                data_file = sources_dir / Path(r.source_file).relative_to("sources")
            sidecars[r.source_file] = read_sidecar(data_file, sources_dir)[0]
        if _explained(sidecars[r.source_file], r):
            continue
        per = f"{_money(r.price)} per GPU-hour" + (
            f" ({_money(r.usd_per_hour)} / {r.gpu_count} GPUs)" if r.gpu_count > 1 else ""
        )
        why = []
        if r.off_history:
            why.append(
                f"{_times(r.price, r.history_ref)} the median {_money(r.history_ref)} of the same offer in "
                f"{r.provider}'s other snapshots (allowed 1/{RATIO:g} to {RATIO:g}x)"
            )
        if r.off_peers:
            why.append(
                f"{_times(r.price, r.peer_ref)} the median {_money(r.peer_ref)} of {r.gpu} ({r.pricing_tier}, "
                f"{r.statistic}) at {r.peers} other provider(s) (allowed 1/{r.peer_ratio:g} to {r.peer_ratio:g}x)"
            )
        if r.off_bounds:
            why.append(f"outside {_money(r.lo)} to {_money(r.hi)} per GPU-hour for a {r.segment} GPU")
        rule = (
            f"implausible price: {per} is " + "; ".join(why) + ". A unit mistake (per month, in cents, per "
            f"instance)? If the price is right, explain it in the sidecar: {EXCEPTION_KEY}: "
            f"[{{offering: '{r.offering}', reason: '...'}}]"
        )
        problems.append(Problem(r.source_file, int(r.source_row), "usd_per_hour", rule, str(r.written)))
    return problems
