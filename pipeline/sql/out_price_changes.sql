-- What changed between each provider's two latest snapshots: added, removed, repriced offers.
-- Sources differ in what they list: an offer whose tier, statistic and region appear together in only
-- one of the two snapshots (say, reserved prices that only the older source printed, or a region the
-- newer fetch did not ask for) is 'not compared', never 'removed' or 'added'.
with dates as (
    select provider, observed_on, dense_rank() over (partition by provider order by observed_on desc) as age
    from (select distinct provider, observed_on from core_price_history)
),

cur as (
    select h.* from core_price_history as h join dates as d using (provider, observed_on) where d.age = 1
),

prev as (
    select h.* from core_price_history as h join dates as d using (provider, observed_on) where d.age = 2
),

compared_units as (
    select provider, pricing_tier, statistic, region from cur
    intersect
    select provider, pricing_tier, statistic, region from prev
),

providers_with_history as (
    select provider, max(observed_on) filter (where age = 2) as previous_on
    from dates group by all having count(*) > 1
),

joined as (
    select
        coalesce(c.provider, p.provider) as provider,
        coalesce(c.offering, p.offering) as offering,
        coalesce(c.gpu_id, p.gpu_id) as gpu_id,
        coalesce(c.provider_gpu_name, p.provider_gpu_name) as provider_gpu_name,
        coalesce(c.gpu_count, p.gpu_count) as gpu_count,
        coalesce(c.pricing_tier, p.pricing_tier) as pricing_tier,
        coalesce(c.statistic, p.statistic) as statistic,
        coalesce(c.region, p.region) as region,
        p.usd_per_gpu_hour as previous_usd_per_gpu_hour,
        c.usd_per_gpu_hour as current_usd_per_gpu_hour,
        p.observed_on as previous_observed_on,
        c.observed_on as current_observed_on
    from cur as c
    full outer join prev as p
        on c.provider = p.provider and c.offering = p.offering and c.provider_gpu_name = p.provider_gpu_name
        and c.gpu_count = p.gpu_count and c.pricing_tier = p.pricing_tier
        and c.statistic = p.statistic and c.region = p.region
)

select
    j.*,
    case
        when u.provider is null then 'not compared'
        when previous_usd_per_gpu_hour is null then 'added'
        when current_usd_per_gpu_hour is null then 'removed'
        when current_usd_per_gpu_hour <> previous_usd_per_gpu_hour then 'repriced'
        else 'unchanged'
    end as change,
    round(100 * (current_usd_per_gpu_hour / previous_usd_per_gpu_hour - 1), 2) as change_pct
from joined as j
left join compared_units as u
    on j.provider = u.provider and j.pricing_tier = u.pricing_tier and j.statistic = u.statistic and j.region = u.region
where j.provider in (select provider from providers_with_history)
