-- Every offer of every snapshot, priced per GPU-hour and mapped to a variant through the alias table.
with prices as (
    select
        collection as provider,
        offering,
        gpu_name,
        cast(gpu_memory_gb as double) as gpu_memory_gb,
        cast(gpu_count as integer) as gpu_count,
        cast(usd_per_hour as double) as usd_per_hour,
        pricing_tier,
        statistic,
        region,
        note,
        cast(snapshot_date as date) as observed_on,
        source_id,
        source_file,
        cast(source_row as integer) as source_row
    from raw_prices
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
    from prices as p
    left join aliases as a
        on a.provider = p.provider
        and a.gpu_name = p.gpu_name
        and (a.gpu_memory_gb is null or a.gpu_memory_gb = p.gpu_memory_gb)
    order by p.source_file, p.source_row, a.gpu_memory_gb nulls last
)

select
    provider,
    offering,
    gpu_id,
    gpu_name as provider_gpu_name,
    gpu_memory_gb,
    gpu_count,
    usd_per_hour,
    -- instance price / GPUs in the instance
    usd_per_hour / gpu_count as usd_per_gpu_hour,
    pricing_tier,
    statistic,
    region,
    observed_on,
    source_id,
    note,
    gpu_id is not null as mapped,
    source_file,
    source_row
from mapped
