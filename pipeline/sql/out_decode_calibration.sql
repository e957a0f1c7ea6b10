-- Decode efficiency (measured speed / bound) per GPU architecture, from every published batch-1
-- llama.cpp measurement on one GPU (the engine the published measurements cover across GPUs);
-- architectures with fewer than min_calibration_points GPUs measured use the median of all of them.
-- The expected decode speed of every estimate is its bound's memory time divided by this.
with single as (
    select architecture, gpu_id, measured_share_of_bound
    from out_measurement_bounds
    where batch_size = 1 and gpu_count = 1 and engine = 'llama.cpp'
),

overall as (
    select median(measured_share_of_bound) as efficiency, count(*) as measurements, count(distinct gpu_id) as gpus
    from single
),

per_arch as (
    select architecture, median(measured_share_of_bound) as efficiency, count(*) as measurements,
           count(distinct gpu_id) as gpus
    from single
    group by architecture
),

archs as (
    select distinct architecture from core_gpus where architecture is not null
)

select
    a.architecture,
    least(1.0, case when p.gpus >= param('min_calibration_points') then p.efficiency else o.efficiency end)
        as decode_efficiency,
    case when p.gpus >= param('min_calibration_points') then 'llama.cpp on ' || a.architecture
         else 'llama.cpp on all architectures' end as calibration_scope,
    coalesce(p.measurements, 0) as measurements,
    coalesce(p.gpus, 0) as gpus_measured,
    o.efficiency as overall_efficiency
from archs as a
cross join overall as o
left join per_arch as p using (architecture)
