-- What changed between each provider's two latest snapshots: added, removed, repriced, renamed offers.
-- Only what both snapshots cover is compared: an offer is 'removed' only when the newer snapshot covers
-- it (lists its tier, statistic and region and, if partial, names its GPU) and no longer lists it, and
-- 'added' only when the older one covered it. An offer whose name changed at the same identity
-- (provider, GPU variant, GPU count, tier, statistic, region) is 'renamed', not added and removed.
-- A marketplace statistic whose sample changed or is below the minimum sample is not a price move.
with history as (
    select * from core_price_history where snapshot_kind <> 'article'
),

dates as (
    -- newest first, by date: the day its prices were observed, or for a copy that prints no date the latest day
    -- it can date from (observed_no_later_than), else the day it was read; on the same day a dated one is newer
    select provider, observed_on,
        dense_rank() over (partition by provider
                           order by coalesce(observed_no_later_than, observed_on) desc, observed_date_known desc)
            as age
    from (select distinct provider, observed_on, observed_date_known, observed_no_later_than from history)
),

cur as (
    -- compared per GPU-hour as the offers compare: a GPU billed apart from its host carries the host's price
    select h.* replace (coalesce(h.comparable_usd_per_gpu_hour, h.usd_per_gpu_hour) as usd_per_gpu_hour),
        coalesce(h.gpu_id, h.provider_gpu_name) as identity_gpu
    from history as h join dates as d using (provider, observed_on) where d.age = 1
),

prev as (
    -- compared per GPU-hour as the offers compare: a GPU billed apart from its host carries the host's price
    select h.* replace (coalesce(h.comparable_usd_per_gpu_hour, h.usd_per_gpu_hour) as usd_per_gpu_hour),
        coalesce(h.gpu_id, h.provider_gpu_name) as identity_gpu
    from history as h join dates as d using (provider, observed_on) where d.age = 2
),

snapshot_scope as (
    select distinct provider, observed_on, scope_gpus, scope_regions, scope_tiers, scope_gpu_counts from history
),

units as (
    select distinct provider, observed_on, pricing_tier, statistic, region from history
),

providers_with_history as (
    select provider from dates group by all having count(*) > 1
),

exact as (
    select
        coalesce(c.provider, p.provider) as provider,
        coalesce(c.offering, p.offering) as offering,
        p.offering as previous_offering,
        coalesce(c.gpu_id, p.gpu_id) as gpu_id,
        coalesce(c.provider_gpu_name, p.provider_gpu_name) as provider_gpu_name,
        p.provider_gpu_name as previous_gpu_name,
        coalesce(c.gpu_count, p.gpu_count) as gpu_count,
        coalesce(c.pricing_tier, p.pricing_tier) as pricing_tier,
        coalesce(c.statistic, p.statistic) as statistic,
        coalesce(c.region, p.region) as region,
        coalesce(c.identity_gpu, p.identity_gpu) as identity_gpu,
        p.usd_per_gpu_hour as previous_usd_per_gpu_hour,
        c.usd_per_gpu_hour as current_usd_per_gpu_hour,
        p.sample_size as previous_sample_size,
        c.sample_size as current_sample_size,
        p.observed_on as previous_observed_on,
        c.observed_on as current_observed_on
    from cur as c
    full outer join prev as p
        on c.provider = p.provider and c.offering = p.offering and c.provider_gpu_name = p.provider_gpu_name
        and c.gpu_count = p.gpu_count and c.pricing_tier = p.pricing_tier
        and c.statistic = p.statistic and c.region = p.region
),

identity_counts as (
    -- offers left unmatched by name, per identity and side: exactly one on each side is a rename
    select provider, identity_gpu, gpu_count, pricing_tier, statistic, region,
        count(*) filter (where current_usd_per_gpu_hour is not null and previous_usd_per_gpu_hour is null) as only_cur,
        count(*) filter (where previous_usd_per_gpu_hour is not null and current_usd_per_gpu_hour is null) as only_prev
    from exact
    group by all
),

renamed as (
    select
        c.provider, c.offering, p.offering as previous_offering, c.gpu_id, c.provider_gpu_name,
        p.provider_gpu_name as previous_gpu_name, c.gpu_count, c.pricing_tier, c.statistic, c.region, c.identity_gpu,
        p.previous_usd_per_gpu_hour, c.current_usd_per_gpu_hour, p.previous_sample_size, c.current_sample_size,
        p.previous_observed_on, c.current_observed_on
    from exact as c
    join exact as p using (provider, identity_gpu, gpu_count, pricing_tier, statistic, region)
    join identity_counts as n using (provider, identity_gpu, gpu_count, pricing_tier, statistic, region)
    where n.only_cur = 1 and n.only_prev = 1
        and c.previous_usd_per_gpu_hour is null and c.current_usd_per_gpu_hour is not null
        and p.current_usd_per_gpu_hour is null and p.previous_usd_per_gpu_hour is not null
),

joined as (
    select e.*, false as is_rename from exact as e
    where not exists (
        select 1 from renamed as r
        where r.provider = e.provider and r.identity_gpu = e.identity_gpu and r.gpu_count = e.gpu_count
            and r.pricing_tier = e.pricing_tier and r.statistic = e.statistic and r.region = e.region
            and (e.current_usd_per_gpu_hour is null or e.previous_usd_per_gpu_hour is null))
    union all by name
    select *, true as is_rename from renamed
),

covered as (
    -- does the snapshot on the other side cover this offer? The ages (1 newest, 2 previous) of the
    -- provider's snapshots whose tiers, statistics, regions and, when partial, scope include it
    select
        j.*,
        list_contains(c.ages, 1) as newer_covers,
        list_contains(c.ages, 2) as older_covers,
        -- an offer whose name is gone while the newer snapshot lists other offers at its identity (GPU, GPU
        -- count, tier, statistic, region) that no 1:1 rename explains: replaced, not removed
        (select string_agg(e.offering, ', ' order by e.offering) from exact as e
         where e.provider = j.provider and e.identity_gpu = j.identity_gpu and e.gpu_count = j.gpu_count
             and e.pricing_tier = j.pricing_tier and e.statistic = j.statistic and e.region = j.region
             and e.previous_usd_per_gpu_hour is null and e.current_usd_per_gpu_hour is not null
             and j.current_usd_per_gpu_hour is null and not j.is_rename) as replaced_by
    from joined as j,
    lateral (
        select coalesce(list(d.age), []) as ages
        from snapshot_scope as s
        join units as u using (provider, observed_on)
        join dates as d using (provider, observed_on)
        where d.age <= 2 and s.provider = j.provider
            and u.pricing_tier = j.pricing_tier and u.statistic = j.statistic and u.region = j.region
            and (s.scope_gpus is null or list_contains(s.scope_gpus, j.gpu_id)
                 or list_contains(s.scope_gpus, j.provider_gpu_name))
            and (s.scope_regions is null or list_contains(s.scope_regions, j.region))
            and (s.scope_tiers is null or list_contains(s.scope_tiers, j.pricing_tier))
            and (s.scope_gpu_counts is null or list_contains(s.scope_gpu_counts, j.gpu_count))
    ) as c
),

classified as (
select
    provider, offering, previous_offering, gpu_id, provider_gpu_name, previous_gpu_name, gpu_count, pricing_tier,
    statistic, region, previous_usd_per_gpu_hour, current_usd_per_gpu_hour, previous_observed_on,
    current_observed_on, previous_sample_size, current_sample_size,
    case
        when current_usd_per_gpu_hour is null and not newer_covers then 'not compared'
        when previous_usd_per_gpu_hour is null and not older_covers then 'not compared'
        when previous_usd_per_gpu_hour is null then 'added'
        when current_usd_per_gpu_hour is null and replaced_by is not null then 'replaced'
        when current_usd_per_gpu_hour is null then 'removed'
        when statistic <> 'list' and current_usd_per_gpu_hour <> previous_usd_per_gpu_hour and (
            previous_sample_size is distinct from current_sample_size
            or least(previous_sample_size, current_sample_size) < param('marketplace_min_sample')) then 'not compared'
        when is_rename then 'renamed'
        -- sources round differently (a tracker keeps 4 decimals): below 0.01% is not a price move
        when abs(current_usd_per_gpu_hour / previous_usd_per_gpu_hour - 1) >= 1e-4 then 'repriced'
        else 'unchanged'
    end as change,
    case
        when current_usd_per_gpu_hour is null and not newer_covers then 'the newer snapshot does not cover this offer'
        when previous_usd_per_gpu_hour is null and not older_covers then 'the older snapshot did not cover this offer'
        when current_usd_per_gpu_hour is null and replaced_by is not null
            then 'no longer listed under this name; the newer snapshot lists ' || replaced_by
                || ' at the same GPU, GPU count, tier and region'
        when previous_usd_per_gpu_hour is null or current_usd_per_gpu_hour is null then null
        when statistic <> 'list' and current_usd_per_gpu_hour <> previous_usd_per_gpu_hour
            and previous_sample_size is distinct from current_sample_size
            then 'the sample of listings changed (' || coalesce(previous_sample_size::varchar, '?') || ' -> '
                || coalesce(current_sample_size::varchar, '?') || '): not a price move'
        when statistic <> 'list' and current_usd_per_gpu_hour <> previous_usd_per_gpu_hour
            and least(previous_sample_size, current_sample_size) < param('marketplace_min_sample')
            then 'sample below the minimum of ' || param('marketplace_min_sample')::integer || ' listings: not a price'
        when is_rename then 'renamed from ' || previous_offering
            || case when previous_gpu_name <> provider_gpu_name then ' (' || previous_gpu_name || ')' else '' end
    end as reason,
    current_usd_per_gpu_hour / previous_usd_per_gpu_hour - 1 as ratio
from covered
where provider in (select provider from providers_with_history)
)

select
    * exclude (ratio),
    case when change in ('repriced', 'renamed', 'unchanged') then round(100 * ratio, 2) end as change_pct
from classified
