-- Every model scenario x GPU x GPU count: memory per GPU, whether it fits, and the GPUs a real
-- deployment needs (narrow: the scenario's description and memory breakdown live in
-- out_memory_requirements; out_vram_fit_detail joins them).
-- Serving shards weights by tensor parallelism: a GPU count must be a degree of 1, 2, 4 or 8 that
-- divides the attention heads; KV heads fewer than the degree are replicated (MLA's latent cache is
-- replicated on every rank). Beyond one node, whole 8-GPU nodes are pipeline stages.
-- Training shards weights, gradients and optimizer states (FSDP / ZeRO-3); each GPU keeps the
-- activations of its own micro-batch.
with g as (
    select gpu_id, memory_gb * param('usable_memory_fraction') as usable_gb_per_gpu, interconnect_gbs is not null as has_gpu_link
    from core_gpus
    where memory_gb is not null
),

counts as (
    select unnest(param_list('gpu_counts'))::integer as gpu_count
),

r as (
    select
        r.scenario_id, r.workload, r.weights_gb, r.kv_cache_gb, r.gradients_gb, r.optimizer_gb, r.activations_gb,
        m.attention_heads, m.kv_heads, m.attention_kind,
        1 + param('runtime_overhead_fraction') as grow,
        param('runtime_overhead_gb') as fixed_gb,
        param('gpus_per_node')::integer as node
    from out_memory_requirements as r
    join core_models as m using (model_id)
),

per_count as (
    select
        r.*,
        g.gpu_id,
        g.usable_gb_per_gpu,
        g.has_gpu_link,
        c.gpu_count,
        r.workload <> 'inference' or r.attention_heads % c.gpu_count = 0 as valid_degree,
        case
            when r.workload <> 'inference' then 1.0
            when r.attention_kind = 'mla' then c.gpu_count
            else ceil(r.kv_heads / c.gpu_count) * c.gpu_count / r.kv_heads
        end as kv_replication
    from r cross join g cross join counts as c
),

sized as (
    select
        *,
        fixed_gb + grow * case when workload = 'inference'
            then (weights_gb + kv_cache_gb * kv_replication) / gpu_count
            else (weights_gb + gradients_gb + optimizer_gb) / gpu_count + activations_gb
        end as per_gpu_required_gb
    from per_count
),

needed as (
    select
        scenario_id,
        gpu_id,
        min(gpu_count) filter (where valid_degree and per_gpu_required_gb <= usable_gb_per_gpu) as in_node,
        -- more than one node: nodes of `node` GPUs, each a pipeline stage (serving) or FSDP shard group (training)
        any_value(case
            when workload = 'inference' and attention_heads % node = 0 then
                ceil(grow * (weights_gb + kv_cache_gb * case when attention_kind = 'mla' then node
                                                              else ceil(kv_heads / node) * node / kv_heads end)
                     / (node * (usable_gb_per_gpu - fixed_gb)))
            when workload = 'training' and usable_gb_per_gpu - fixed_gb - grow * activations_gb > 0 then
                ceil(grow * (weights_gb + gradients_gb + optimizer_gb)
                     / (node * (usable_gb_per_gpu - fixed_gb - grow * activations_gb)))
        end) as nodes_beyond,
        any_value(node) as node
    from sized
    group by all
)

select
    s.scenario_id,
    s.gpu_id,
    s.gpu_count,
    s.usable_gb_per_gpu,
    s.per_gpu_required_gb,
    s.kv_replication,
    s.valid_degree,
    cast(coalesce(n.in_node, n.node * n.nodes_beyond) as integer) as gpus_needed,
    cast(case when n.in_node is not null then 1 else n.nodes_beyond end as integer) as nodes_needed,
    s.valid_degree and s.per_gpu_required_gb <= s.usable_gb_per_gpu as fits,
    coalesce(n.in_node = 1, false) as fits_one_gpu,
    case when s.gpu_count > 1 then s.has_gpu_link end as multi_gpu_has_link
from sized as s
join needed as n using (scenario_id, gpu_id)
