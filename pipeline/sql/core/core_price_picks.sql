-- The one definition of "cheapest": per GPU and pick (on-demand list, spot/preemptible list, reserved list
-- per commitment term, marketplace minimum, marketplace median), the offer whose price is used and why.
-- Eligible: a current offer (core_price_offers) mapped to a variant, not stale (older than
-- price_max_age_days), dated (an undated copy's age is unknown), comparable across providers (whole
-- instance, or GPU plus its published host price), and, for a median, taken over at least marketplace_min_sample listings. "From" prices
-- (statistic minimum) of a provider's own list are never a list price. Every page, view, ranking,
-- estimate and the command line read their prices from here (core_cheapest_offers: the on-demand pick).
-- Picks are made per market: an offer only a mainland-China account can buy (market cn-mainland) competes
-- with its own market in picks named "... (China mainland)", never with offers open to anyone.
with offers as (
    select
        o.*,
        case
            when o.statistic = 'median' then 'marketplace median'
            -- a marketplace's lowest listing: read by a tracker, or by an API answer that counts its listings
            when o.statistic = 'minimum' and o.pricing_tier = 'on-demand'
                and (o.snapshot_kind = 'price_tracker' or o.sample_size is not null)
                then 'marketplace minimum'
            -- a third-party host's machine on a provider's marketplace (RunPod Community Cloud) is a marketplace
            -- listing at its listed price: it competes with marketplace minimums, never with list prices
            when o.seller = 'host' and o.pricing_tier = 'on-demand' then 'marketplace minimum'
            when o.seller = 'host' then null
            when o.statistic = 'minimum' then null  -- a provider's "from" price: the floor of a range, not an offer
            when o.pricing_tier = 'on-demand' then 'on-demand'
            when o.pricing_tier = 'spot' then 'spot'
            when o.pricing_tier = 'reserved' then 'reserved'
        end || case when o.market = 'cn-mainland' then ' (China mainland)' else '' end as pick,
        case when o.pricing_tier = 'reserved' then coalesce(
            o.min_commitment,
            nullif(lower(regexp_extract(o.note, '(\d+)[ -]?(yr|year|month)', 0)), ''),
            'term not stated') end as term
    from core_price_offers as o
    where o.gpu_id is not null
),

judged as (
    select
        *,
        case
            when pick is null and seller = 'host' then 'a third-party host''s offer outside on-demand: not a list price'
            when pick is null then 'a provider''s "from" price: not an offer at that price'
            when stale then 'stale (observed more than ' || param('price_max_age_days')::integer || ' days ago)'
            -- a copy that prints no date and was read at no dated commit: its age is unknown, so it is never picked
            when not observed_date_known and observed_no_later_than is null
                then 'undated copy: when its prices were observed is not known'
            when not comparable then 'GPU-only price: the host is billed apart and its price is not published'
            when pick = 'marketplace median' and coalesce(sample_size, 0) < param('marketplace_min_sample')
                then 'median over fewer than ' || param('marketplace_min_sample')::integer || ' listings'
        end as left_out_because
    from offers
),

eligible as (
    select * from judged where left_out_because is null
),

ranked as (
    select
        *,
        -- the cheapest; at the same price, the fresher observation (an undated copy counts from the latest day it
        -- can date from), then by name
        row_number() over (partition by gpu_id, pick, term
                           order by comparable_usd_per_gpu_hour, coalesce(observed_no_later_than, observed_on) desc,
                                    provider, offering, region) as position,
        count(*) over (partition by gpu_id, pick, term) as candidates
    from eligible
),

left_out as (
    select gpu_id, pick, term, count(*) as left_out,
        string_agg(distinct left_out_because, '; ' order by left_out_because) as left_out_reasons
    from judged where left_out_because is not null and pick is not null
    group by all
),

picked as (
    select * from ranked where position = 1
)

-- a GPU and pick with no eligible price still gets a row saying why no price is used
select
    coalesce(r.gpu_id, l.gpu_id) as gpu_id,
    coalesce(r.pick, l.pick) as pick,
    coalesce(r.term, l.term) as term,
    r.comparable_usd_per_gpu_hour as usd_per_gpu_hour,
    r.provider,
    r.offering,
    r.pricing_tier,
    r.statistic,
    r.region,
    r.gpu_count,
    r.price_basis,
    r.currency,
    r.amount_per_hour,
    r.sample_size,
    r.seller,
    r.observed_on,
    r.observed_date_known,
    r.source_id,
    coalesce(r.candidates, 0) as candidates,
    coalesce(l.left_out, 0) as left_out,
    case when r.gpu_id is null then 'no price used'
        else 'cheapest of ' || r.candidates || ' current ' || r.pick || ' price' || case when r.candidates > 1 then 's' else '' end
            || case when r.price_basis = 'gpu_and_host' then ' (GPU plus its host VM)' else '' end
            || case when r.seller = 'host' then ' (a third-party host''s machine on the provider''s marketplace)' else '' end
    end || coalesce('; left out: ' || l.left_out || ' (' || l.left_out_reasons || ')', '') as why
from picked as r
full outer join left_out as l
    on l.gpu_id = r.gpu_id and l.pick = r.pick and l.term is not distinct from r.term
