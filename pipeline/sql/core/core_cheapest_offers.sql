-- The cheapest current on-demand list price per GPU: the 'on-demand' pick of core_price_picks, which
-- estimates, rankings, ownership comparisons and the command line use.
select gpu_id, usd_per_gpu_hour, provider, offering, region, observed_on, why
from core_price_picks
where pick = 'on-demand' and usd_per_gpu_hour is not null
