-- How decode time relates to its bound, per GPU architecture, from every published batch-1 llama.cpp
-- measurement on one GPU (the engine the published measurements cover across GPUs): seconds per token
-- and layer = slope x the bound's + a fixed overhead per layer (kernel launches, synchronisation),
-- a least-squares line. 1 / slope is the share of peak bandwidth the weights stream at. Architectures
-- with fewer than min_calibration_points GPUs measured use the line fitted on all of them.
with single as (
    select architecture, gpu_id, measured_share_of_bound, measured_s_per_layer, bound_s_per_layer
    from out_measurement_bounds
    where batch_size = 1 and gpu_count = 1 and engine = 'llama.cpp'
),

overall as (
    select regr_slope(measured_s_per_layer, bound_s_per_layer) as slope,
           regr_intercept(measured_s_per_layer, bound_s_per_layer) as intercept
    from single
),

per_arch as (
    select architecture,
           regr_slope(measured_s_per_layer, bound_s_per_layer) as slope,
           regr_intercept(measured_s_per_layer, bound_s_per_layer) as intercept,
           median(measured_share_of_bound) as median_share,
           count(*) as measurements, count(distinct gpu_id) as gpus
    from single
    group by architecture
),

archs as (
    select distinct architecture from core_gpus where architecture is not null
),

chosen as (
    select
        a.architecture,
        p.gpus >= param('min_calibration_points') as own,
        p.median_share,
        coalesce(p.measurements, 0) as measurements,
        coalesce(p.gpus, 0) as gpus_measured,
        case when p.gpus >= param('min_calibration_points') then p.slope else o.slope end as slope,
        case when p.gpus >= param('min_calibration_points') then p.intercept else o.intercept end as intercept
    from archs as a
    cross join overall as o
    left join per_arch as p using (architecture)
)

select
    architecture,
    -- the slope is never below 1: weights cannot stream faster than peak bandwidth
    greatest(slope, 1.0) as slope,
    1 / greatest(slope, 1.0) as decode_efficiency,
    intercept * 1e6 as overhead_us_per_layer,
    case when own then 'llama.cpp on ' || architecture else 'llama.cpp on all architectures' end as calibration_scope,
    median_share as median_measured_share_of_bound,
    measurements,
    gpus_measured
from chosen
