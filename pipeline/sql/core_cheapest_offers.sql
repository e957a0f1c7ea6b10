-- The cheapest current on-demand offer per GPU: the price estimates, value rankings and ownership
-- comparisons use. Marketplace minimums are left out (a single listing is not a market price).
select
    gpu_id,
    min(usd_per_gpu_hour) as usd_per_gpu_hour,
    arg_min(provider, usd_per_gpu_hour) as provider,
    arg_min(offering, usd_per_gpu_hour) as offering,
    arg_min(observed_on, usd_per_gpu_hour) as observed_on
from core_price_offers
where pricing_tier = 'on-demand' and statistic <> 'minimum' and gpu_id is not null
group by all
