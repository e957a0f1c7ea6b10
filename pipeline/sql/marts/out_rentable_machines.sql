-- Machines one can rent as described: each current offer of a whole machine of `instance_gpus` GPUs, at
-- the price that compares across providers (GPU-only prices carry their published host), open to anyone
-- (market global), fresh (price_max_age_days), and a provider's list price or a marketplace median over at
-- least marketplace_min_sample listings. A marketplace's lowest listing and a provider's "from" price
-- (statistic minimum) are not prices one can plan on, nor is a third-party host's listing on a provider's
-- marketplace (seller host: RunPod Community Cloud), whose machines come and go with their hosts. A deployment of n GPUs runs on one machine of n GPUs
-- or more (tensor parallelism needs the GPUs in one host): single-GPU listings are never combined.
-- A provider that sells an offering's machines joined by a scale-out fabric (core_clusters) lets one replica span
-- several of them.
-- Of the regions where an offer has one price, the cheapest is kept (the others are listed in `regions`).
with eligible as (
    select
        o.*,
        o.gpu_count * o.comparable_usd_per_gpu_hour as machine_usd_per_hour
    from core_price_offers as o
    where o.gpu_id is not null
        and not o.stale
        and o.comparable and o.comparable_usd_per_gpu_hour is not null
        and o.market = 'global'
        and o.pricing_tier in ('on-demand', 'spot', 'reserved')
        and o.seller = 'provider'
        and (o.statistic = 'list'
             or (o.statistic = 'median' and coalesce(o.sample_size, 0) >= param('marketplace_min_sample')))
),

ranked as (
    select
        *,
        row_number() over (partition by provider, offering, gpu_id, gpu_count, pricing_tier, statistic
                           order by machine_usd_per_hour, region) as position,
        string_agg(distinct region, ', ' order by region)
            over (partition by provider, offering, gpu_id, gpu_count, pricing_tier, statistic) as regions
    from eligible
)

select
    provider || ' | ' || offering || ' | ' || pricing_tier || ' | ' || statistic as machine_id,
    provider,
    offering,
    gpu_id,
    gpu_count as instance_gpus,
    machine_usd_per_hour as usd_per_hour,
    comparable_usd_per_gpu_hour as usd_per_gpu_hour,
    pricing_tier,
    statistic,
    sample_size,
    case statistic when 'median' then 'marketplace median over ' || sample_size || ' listings'
                   else 'list price' end as price_kind,
    price_basis,
    region,
    regions,
    observed_on,
    observed_date_known,
    observed_no_later_than,
    ranked.source_id,
    -- the fabric the provider joins such machines with, where it sells them as a cluster (core_clusters)
    c.network as cluster_network,
    c.network_gbps as cluster_network_gbps
from ranked
left join core_clusters as c using (provider, offering)
where position = 1
