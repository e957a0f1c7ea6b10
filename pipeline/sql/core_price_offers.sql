-- Current offers: each provider's latest snapshot.
with latest as (
    select provider, max(observed_on) as observed_on
    from core_price_history
    group by all
)

select
    h.*,
    current_date - h.observed_on as age_days
from core_price_history as h
join latest using (provider, observed_on)
