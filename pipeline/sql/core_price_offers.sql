-- Current offers: each provider's latest snapshot. A price's age is counted when it is read (the
-- public view and the site's pages), never frozen at build time.
with latest as (
    select provider, max(observed_on) as observed_on
    from core_price_history
    group by all
)

select h.*
from core_price_history as h
join latest using (provider, observed_on)
