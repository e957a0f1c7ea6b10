-- The cheapest current on-demand offer per GPU: the price estimates, value rankings and ownership
-- comparisons use. Marketplace minimums are left out (a single listing is not a market price).
select
    gpu_id,
    usd_per_gpu_hour,
    provider,
    offering,
    observed_on
from core_price_offers
where pricing_tier = 'on-demand' and statistic <> 'minimum' and gpu_id is not null
-- one whole offer per GPU; equal prices are broken the same way every build
qualify row_number() over (partition by gpu_id order by usd_per_gpu_hour, provider, offering, region, statistic) = 1
