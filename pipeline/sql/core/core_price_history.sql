-- Every offer of every snapshot, priced per GPU-hour in USD and mapped to a variant through the alias
-- table, with what its snapshot covers and what its price covers.
with prices as (
    select
        collection as provider,
        offering,
        gpu_name,
        cast(gpu_memory_gb as double) as gpu_memory_gb,
        cast(gpu_count as integer) as gpu_count,
        cast(usd_per_hour as double) as listed_usd_per_hour,
        coalesce(currency, 'USD') as currency,
        cast(amount_per_hour as double) as amount_per_hour,
        cast(host_usd_per_hour as double) as host_usd_per_hour,
        cast(sample_size as integer) as sample_size,
        coalesce(seller, 'provider') as seller,
        pricing_tier,
        statistic,
        region,
        note,
        cast(snapshot_date as date) as observed_on,
        snapshot_kind,
        scope,
        string_split(scope_gpus, ',') as scope_gpus,
        string_split(scope_regions, ',') as scope_regions,
        string_split(scope_tiers, ',') as scope_tiers,
        cast(string_split(scope_gpu_counts, ',') as integer[]) as scope_gpu_counts,
        price_basis,
        billing,
        min_commitment,
        observed_date_known = 'true' as observed_date_known,
        cast(observed_no_later_than as date) as observed_no_later_than,
        -- who can buy: the provider's market, as its provider.yml says
        v.market,
        source_id,
        source_file,
        cast(source_row as integer) as source_row
    from raw_prices
    left join (select provider, market from core_providers) as v on v.provider = raw_prices.collection
),

rates as (
    select currency, cast(units_per_usd as double) as units_per_usd, cast(rate_date as date) as rate_date,
        source_id as fx_source_id
    from raw_fx_rates
),

converted as (
    -- a price in another currency is converted at the latest dated rate on or before its observation
    select p.*, r.units_per_usd as fx_units_per_usd, r.rate_date as fx_rate_date, r.fx_source_id
    from prices as p
    asof left join rates as r on p.currency = r.currency and p.observed_on >= r.rate_date
),

aliases as (
    select
        collection as provider,
        gpu_name,
        cast(gpu_memory_gb as double) as gpu_memory_gb,
        gpu_id
    from raw_aliases
),

mapped as (
    -- an alias that names the memory size beats one that does not
    select distinct on (p.source_file, p.source_row)
        p.*,
        a.gpu_id
    from converted as p
    left join aliases as a
        on a.provider = p.provider
        and a.gpu_name = p.gpu_name
        and (a.gpu_memory_gb is null or a.gpu_memory_gb = p.gpu_memory_gb)
    order by p.source_file, p.source_row, a.gpu_memory_gb nulls last
),

priced as (
    select
        *,
        case
            when currency = 'USD' then listed_usd_per_hour
            when fx_units_per_usd is null then error(source_file || ' row ' || source_row
                || ': currency ' || currency || ' has no exchange rate dated on or before ' || observed_on
                || ' in sources/fx (rule: a price in another currency needs a dated, sourced rate)')
            else amount_per_hour / fx_units_per_usd
        end as usd_per_hour,
        case
            when scope_gpus is not null and not (list_contains(scope_gpus, gpu_id) or list_contains(scope_gpus, gpu_name))
            then error(source_file || ' row ' || source_row || ': GPU ' || gpu_name
                || ' is outside the GPUs its sidecar''s covers: lists (rule: a partial snapshot lists only what it covers)')
        end as _scope_check
    from mapped
)

select
    provider,
    offering,
    gpu_id,
    gpu_name as provider_gpu_name,
    gpu_memory_gb,
    gpu_count,
    usd_per_hour,
    -- instance price / GPUs in the instance (the GPU part alone where the host is billed apart)
    usd_per_hour / gpu_count as usd_per_gpu_hour,
    pricing_tier,
    statistic,
    region,
    observed_on,
    source_id,
    note,
    gpu_id is not null as mapped,
    -- what the price covers: a whole instance, the GPU alone, or GPU and host billed apart
    price_basis,
    host_usd_per_hour,
    -- the price a reader pays for a usable GPU-hour: GPU plus its host where the host is billed apart
    case
        when price_basis = 'whole_instance' then usd_per_hour / gpu_count
        when price_basis = 'gpu_and_host' and host_usd_per_hour is not null
            then (usd_per_hour + host_usd_per_hour) / gpu_count
    end as comparable_usd_per_gpu_hour,
    -- GPU-only prices without a published host price are kept out of cross-provider comparisons
    price_basis = 'whole_instance' or host_usd_per_hour is not null as comparable,
    currency,
    coalesce(amount_per_hour, listed_usd_per_hour) as amount_per_hour,
    fx_units_per_usd,
    fx_rate_date,
    fx_source_id,
    sample_size,
    seller,
    billing,
    min_commitment,
    snapshot_kind,
    observed_date_known,
    observed_no_later_than,
    market,
    scope,
    scope_gpus,
    scope_regions,
    scope_tiers,
    scope_gpu_counts,
    source_file,
    source_row
from priced
where _scope_check is null  -- evaluates the check on every row (it raises the error)
