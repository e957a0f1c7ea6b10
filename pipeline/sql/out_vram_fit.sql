-- Every model scenario x GPU x GPU count: GPUs needed and whether it fits (narrow: the scenario's
-- description and memory breakdown live in out_memory_requirements; out_vram_fit_detail joins them).
-- Multi-GPU assumes weights, states and activations shard evenly (tensor/FSDP parallelism).
with g as (
    select gpu_id, memory_gb * param('usable_memory_fraction') as usable_gb_per_gpu, interconnect_gbs is not null as has_gpu_link
    from core_gpus
    where memory_gb is not null
),

counts as (
    select unnest(param_list('gpu_counts'))::integer as gpu_count
)

select
    r.scenario_id,
    g.gpu_id,
    c.gpu_count,
    g.usable_gb_per_gpu,
    cast(ceil(r.required_gb / g.usable_gb_per_gpu) as integer) as gpus_needed,
    r.required_gb <= c.gpu_count * g.usable_gb_per_gpu as fits,
    r.required_gb <= g.usable_gb_per_gpu as fits_one_gpu,
    case when c.gpu_count > 1 then g.has_gpu_link end as multi_gpu_has_link
from out_memory_requirements as r
cross join g
cross join counts as c
