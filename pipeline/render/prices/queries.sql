-- Cloud prices and What changed: queries over the public views only.

-- name: offers
-- every current offer, mapped to a variant or not
select o.*, g.name
from price_offers as o
left join gpus as g using (gpu_id)
order by o.provider, o.usd_per_gpu_hour, o.offering, o.pricing_tier, o.statistic, o.region, o.gpu_id;

-- name: history
-- the offers seen in more than one snapshot: one line each (a single point is no history), in its provider's colour
select h.*, g.name, v.colour as provider_colour
from price_history as h
join gpus as g using (gpu_id)
join providers as v using (provider)
qualify count(distinct h.observed_on) over (
    partition by h.gpu_id, h.provider, h.offering, h.pricing_tier, h.statistic, h.region) > 1
order by g.name, h.provider, h.offering, h.pricing_tier, h.statistic, h.region, h.observed_on;

-- name: picks
-- the price used per GPU and pick, with the GPU's name (global picks before China-mainland ones, tiers in order)
select p.*, g.name
from price_picks as p
join gpus as g using (gpu_id)
order by g.name, p.pick like '%(China mainland)',
         list_position(['on-demand', 'spot', 'reserved', 'marketplace minimum', 'marketplace median'],
                       regexp_replace(p.pick, ' \(China mainland\)$', '')),
         p.term, p.pick;

-- name: providers
-- one row per provider: its current offers, what they cover, and how many snapshots its history keeps
select provider, count(*) as offers, count(gpu_id) as mapped,
       coalesce(max(observed_on) filter (where observed_date_known), max(observed_on)) as observed_on,
       count(*) filter (where observed_date_known) = 0 as undated_only,
       count(*) filter (where not observed_date_known) as undated,
       string_agg(distinct snapshot_kind, ', ' order by snapshot_kind) as kinds,
       string_agg(distinct currency, ', ' order by currency) as currencies,
       string_agg(distinct market, ', ' order by market) as markets,
       count(*) filter (where stale) as stale,
       -- the day its newest price was observed, or for an undated copy the day it was observed no later than
       max(coalesce(observed_no_later_than, observed_on)) as newest_bound,
       bool_and(stale) as all_stale,
       string_agg(distinct pricing_tier, ', ' order by pricing_tier) as tiers,
       string_agg(distinct region, ', ' order by region) as regions,
       (select count(distinct h.observed_on) from price_history as h where h.provider = o.provider) as snapshots
from price_offers as o
group by all
order by provider;

-- name: parameters
-- the freshness and sample-size rules of the prices used
select name, value from parameters where name in ('price_max_age_days', 'marketplace_min_sample');

-- name: changes
-- every offer added, removed, replaced, repriced or renamed between a provider's two latest snapshots
select c.*, g.name
from price_changes as c
left join gpus as g using (gpu_id)
where change in ('added', 'removed', 'replaced', 'repriced', 'renamed')
order by provider, change, abs(change_pct) desc nulls last, offering, pricing_tier, region,
         statistic, gpu_count, provider_gpu_name;

-- name: change_counts
-- per provider: the two snapshots compared and how many offers changed in each way
select provider, max(previous_observed_on) as previous_on, max(current_observed_on) as current_on,
       count(*) filter (where change = 'added') as added,
       count(*) filter (where change = 'removed') as removed,
       count(*) filter (where change = 'replaced') as replaced,
       count(*) filter (where change = 'repriced') as repriced,
       count(*) filter (where change = 'renamed') as renamed,
       count(*) filter (where change = 'unchanged') as unchanged,
       count(*) filter (where change = 'not compared') as not_compared
from price_changes
group by all
order by provider;

-- name: uncompared
-- offers outside what one of the two snapshots covers, grouped with the reason
select provider, pricing_tier, statistic, reason,
       string_agg(distinct region, ', ' order by region) as regions,
       max(coalesce(current_observed_on, previous_observed_on)) as listed_on, count(*) as n
from price_changes
where change = 'not compared'
group by all
order by all;

-- name: unpriced
-- the GPUs teams rent in 2026 (on the public price lists of the large clouds and GPU clouds) that have no global
-- on-demand price pick, each with why: what the sources read do hold for it
with rented as (
    select unnest(['nvidia-h100-sxm-80gb', 'nvidia-h200-sxm-141gb', 'nvidia-b200-sxm-180gb', 'nvidia-b300-sxm-288gb',
                   'amd-mi300x-oam-192gb', 'amd-mi325x-oam-256gb', 'amd-mi355x-oam-288gb', 'nvidia-l40s-pcie-48gb',
                   'nvidia-rtx-4090-pcie-24gb', 'nvidia-rtx-5090-pcie-32gb', 'nvidia-rtx-pro-6000-server-96gb',
                   'nvidia-a100-sxm-80gb']) as gpu_id
),

held as (
    select
        r.gpu_id,
        count(o.gpu_id) filter (where o.market = 'global' and o.pricing_tier = 'on-demand') as global_on_demand,
        count(o.gpu_id) filter (where o.market = 'global' and o.pricing_tier = 'on-demand' and not o.stale)
            as fresh_on_demand,
        count(o.gpu_id) filter (where o.market = 'global' and o.pricing_tier = 'on-demand' and not o.stale
                                  and o.seller = 'provider' and o.statistic = 'list') as fresh_list,
        count(o.gpu_id) filter (where o.market <> 'global') as other_markets,
        count(o.gpu_id) as current_offers,
        max(coalesce(o.observed_no_later_than, o.observed_on)) filter (where o.market = 'global' and o.pricing_tier = 'on-demand')
            as newest_on_demand
    from rented as r
    left join price_offers as o using (gpu_id)
    group by all
)

select
    h.gpu_id, g.name, h.newest_on_demand,
    case
        when h.current_offers = 0 and not exists (select 1 from price_history as x where x.gpu_id = h.gpu_id)
            then 'never listed'
        when h.global_on_demand = 0 and h.other_markets > 0 then 'other markets only'
        when h.global_on_demand = 0 then 'no on-demand offer'
        when h.fresh_on_demand = 0 then 'stale'
        when h.fresh_list = 0 then 'marketplace only'
        else 'not comparable'
    end as why
from held as h
join gpus as g using (gpu_id)
where not exists (select 1 from price_picks as p
                  where p.gpu_id = h.gpu_id and p.pick = 'on-demand' and p.usd_per_gpu_hour is not null)
order by g.name;
