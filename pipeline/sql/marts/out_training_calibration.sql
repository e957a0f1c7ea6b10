-- Training utilisation per GPU (achieved model FLOPs / dense 16-bit peak), from published runs: BF16 full
-- updates (pretraining or full fine-tune) of dense models at sequences of training_calibration_min_context to
-- training_calibration_max_context tokens (the estimates' training_context lies between).
-- A GPU with runs of its own uses their median. Any other GPU is placed on a line fitted through the measured
-- GPUs' medians: 1 / utilisation = a + b x (dense TFLOPS / memory GB/s), i.e. time per FLOP is a compute part
-- a / peak plus a memory part b / bandwidth (optimizer steps, normalisation, activations stream from memory).
-- The published runs show that part: A100 40 GB and 80 GB share one peak, and the 80 GB's faster memory gives
-- it the higher utilisation. Each measured GPU is also predicted by the line fitted without it (held out):
-- that error is what the estimates of unmeasured GPUs carry. With fewer than two measured GPUs the median of
-- the measured ones is used; with none, the training_mfu assumption.
with calibration_runs as (
    select *
    from core_training_measurements
    where in_calibration
),

gpus as (
    select gpu_id, architecture, best_16bit_tflops as dense_tflops, memory_bandwidth_gbs,
           best_16bit_tflops / memory_bandwidth_gbs as flops_per_byte
    from core_gpus
    where best_16bit_tflops is not null
),

per_gpu as (
    select r.gpu_id, g.flops_per_byte, median(r.measured_utilisation) as utilisation, count(*) as runs,
           count(distinct r.source_id) as publications
    from calibration_runs as r
    join gpus as g using (gpu_id)
    group by r.gpu_id, g.flops_per_byte
),

-- the line through every measured GPU, and through all but each one in turn
fits as (
    select null::varchar as held_out_gpu_id,
           regr_slope(1 / utilisation, flops_per_byte) as slope,
           regr_intercept(1 / utilisation, flops_per_byte) as intercept,
           median(utilisation) as median_utilisation,
           count(*) as gpus
    from per_gpu
    union all
    select p.gpu_id,
           regr_slope(1 / q.utilisation, q.flops_per_byte),
           regr_intercept(1 / q.utilisation, q.flops_per_byte),
           median(q.utilisation),
           count(*)
    from per_gpu as p
    join per_gpu as q on q.gpu_id <> p.gpu_id
    group by p.gpu_id
),

predicted as (
    -- rounded to 6 decimals: a regression's sums run in parallel, in no fixed order, and two builds must agree
    select g.gpu_id, f.held_out_gpu_id, f.gpus,
           round(case when f.gpus >= 2 and f.slope >= 0 and g.flops_per_byte is not null
                      then 1 / (f.intercept + f.slope * g.flops_per_byte)
                      else f.median_utilisation end, 6) as utilisation,
           f.gpus >= 2 and f.slope >= 0 and g.flops_per_byte is not null as on_line
    from gpus as g
    join fits as f on f.held_out_gpu_id is null or f.held_out_gpu_id = g.gpu_id
)

select
    g.gpu_id,
    g.architecture,
    g.dense_tflops,
    g.memory_bandwidth_gbs,
    g.flops_per_byte,
    coalesce(p.utilisation, line.utilisation, param('training_mfu')) as utilisation,
    case when p.gpu_id is not null then 'gpu'
         when line.on_line then 'line'
         when line.utilisation is not null then 'median'
         else 'assumed' end as calibration_scope,
    case when p.gpu_id is not null then 'median of ' || p.runs || ' published run' || if(p.runs = 1, '', 's') || ' on this GPU'
         when line.on_line then 'fitted on ' || line.gpus || ' measured GPUs by TFLOPS per GB/s of memory bandwidth'
         when line.utilisation is not null then 'median of ' || line.gpus || ' measured GPU' || if(line.gpus = 1, '', 's')
         else 'assumed (training_mfu): no published run loaded' end as calibration_basis,
    coalesce(p.runs, 0) as runs,
    p.publications,
    p.utilisation as measured_utilisation,
    held.utilisation as held_out_utilisation,
    held.utilisation / p.utilisation - 1 as held_out_error
from gpus as g
left join per_gpu as p using (gpu_id)
left join predicted as line on line.gpu_id = g.gpu_id and line.held_out_gpu_id is null
left join predicted as held on held.gpu_id = g.gpu_id and held.held_out_gpu_id = g.gpu_id
