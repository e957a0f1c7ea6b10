-- Current offers: the latest observation of every offer that no later snapshot of its provider covers.
-- A snapshot covers an offer when it lists the offer's tier, statistic and region and, for a partial
-- snapshot, names its GPU (by variant or by the provider's name) and its GPU count among those it covers. So a partial
-- snapshot updates what it covers and everything else keeps its last observation with its own date.
-- A snapshot whose source prints no date (its folder date is the day it was read) counts as older than
-- any dated one. Articles quoting a price list are history only, never a current price. `stale` marks a price older
-- than the `price_max_age_days` parameter at build time: kept and shown, never used for picks.
with snapshots as (
    select distinct provider, observed_on, observed_date_known, scope_gpus, scope_regions, scope_tiers, scope_gpu_counts
    from core_price_history
    where snapshot_kind <> 'article'
),

units as (
    select distinct provider, observed_on, pricing_tier, statistic, region
    from core_price_history
    where snapshot_kind <> 'article'
),

superseded as (
    select distinct h.source_file, h.source_row
    from core_price_history as h
    join snapshots as s
        on s.provider = h.provider
        and ((s.observed_date_known and not h.observed_date_known)
             or (s.observed_date_known = h.observed_date_known and s.observed_on > h.observed_on))
        and (s.scope_gpus is null or list_contains(s.scope_gpus, h.gpu_id) or list_contains(s.scope_gpus, h.provider_gpu_name))
        and (s.scope_regions is null or list_contains(s.scope_regions, h.region))
        and (s.scope_tiers is null or list_contains(s.scope_tiers, h.pricing_tier))
        and (s.scope_gpu_counts is null or list_contains(s.scope_gpu_counts, h.gpu_count))
    join units as u
        on u.provider = s.provider and u.observed_on = s.observed_on
        and u.pricing_tier = h.pricing_tier and u.statistic = h.statistic and u.region = h.region
    union
    -- a later snapshot that lists no offer (its sidecar declares that the provider withdrew every one)
    select h.source_file, h.source_row
    from core_price_history as h
    join (
        select split_part(snapshot_id, '/', 2) as provider, cast(split_part(snapshot_id, '/', 3) as date) as observed_on
        from core_sources
        where snapshot_id like 'prices/%/prices' and rows = 0
    ) as w on w.provider = h.provider and w.observed_on > h.observed_on
)

select
    h.*,
    -- an undated copy of a list known to be no later than some day is as old as that day at least
    coalesce(h.observed_no_later_than, h.observed_on) < current_date - cast(param('price_max_age_days') as integer) as stale
from core_price_history as h
anti join superseded as s using (source_file, source_row)
where h.snapshot_kind <> 'article'
