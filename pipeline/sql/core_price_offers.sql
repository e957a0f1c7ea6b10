-- Current offers: each provider's latest snapshot. A price's age is counted when it is read (the
-- public view and the site's pages), never frozen at build time.
-- A snapshot that lists no offer (its sidecar declares that the provider withdrew every one) is still
-- the provider's latest: the provider then has no current offer.
with latest as (
    select provider, max(observed_on) as observed_on
    from (
        select provider, observed_on from core_price_history
        union all
        select split_part(snapshot_id, '/', 2), cast(split_part(snapshot_id, '/', 3) as date)
        from core_sources
        where snapshot_id like 'prices/%/prices'
    )
    group by all
)

select h.*
from core_price_history as h
join latest using (provider, observed_on)
