-- Every model x GPU x scenario x GPU count: does it fit, and how many GPUs are needed.
-- Multi-GPU assumes weights, states and activations shard evenly (tensor/FSDP parallelism).
with g as (
    select gpu_id, memory_gb, memory_gb * param('usable_memory_fraction') as usable_gb_per_gpu, nvlink_gbs
    from core_gpus
),

counts as (
    select unnest(param_list('gpu_counts'))::integer as gpu_count
)

select
    r.model_id,
    g.gpu_id,
    r.workload,
    r.method,
    r.precision,
    r.kv_precision,
    r.recompute,
    r.context_tokens,
    r.batch_size,
    c.gpu_count,
    r.weights_gb,
    r.kv_cache_gb,
    r.gradients_gb,
    r.optimizer_gb,
    r.activations_gb,
    r.overhead_gb,
    r.required_gb,
    g.usable_gb_per_gpu,
    cast(ceil(r.required_gb / g.usable_gb_per_gpu) as integer) as gpus_needed,
    r.required_gb <= c.gpu_count * g.usable_gb_per_gpu as fits,
    r.required_gb <= g.usable_gb_per_gpu as fits_one_gpu,
    case when c.gpu_count > 1 then g.nvlink_gbs is not null end as multi_gpu_has_nvlink
from out_memory_requirements as r
cross join g
cross join counts as c
