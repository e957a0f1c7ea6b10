-- Every model scenario x GPU x GPU count: memory per GPU, whether it fits, and the GPUs a real
-- deployment needs (narrow: the scenario's description and memory breakdown live in
-- out_memory_requirements; out_vram_fit_detail joins them).
-- Serving shards weights by tensor parallelism: a GPU count must be a degree of 1, 2, 4 or 8 that
-- divides the attention heads; KV heads fewer than the degree are replicated (MLA's latent cache is
-- replicated on every rank). Beyond one node, whole 8-GPU nodes are pipeline stages.
-- Training shards weights, gradients and optimizer states (FSDP / ZeRO-3); each GPU keeps the
-- activations of its own micro-batch.
with g as (
    select gpu_id, usable_memory_gb * param('usable_memory_fraction') as usable_gb_per_gpu, interconnect_gbs is not null as has_gpu_link,
           interconnect_gpus
    from core_gpus
    where usable_memory_gb is not null
),

-- per scenario: what one GPU of a d-GPU deployment holds is sharded + replicated / d + fixed
r as (
    select
        r.scenario_id,
        r.workload = 'inference' as serving,
        m.attention_heads,
        m.kv_heads,
        m.attention_kind = 'mla' as mla,
        1 + param('runtime_overhead_fraction') as grow,
        param('runtime_overhead_gb') as fixed_gb,
        param('gpus_per_node')::integer as node,
        case when r.workload = 'inference' then r.weights_gb
             else r.weights_gb + r.gradients_gb + r.optimizer_gb end as sharded_gb,
        r.kv_cache_gb,
        r.activations_gb,
        list_sort(param_list('gpu_counts')::integer[]) as counts
    from out_memory_requirements as r
    join core_models as m using (model_id)
),

-- per scenario and GPU: the smallest valid count that fits (one node), else the nodes needed
needed as (
    select
        r.*,
        g.gpu_id,
        g.usable_gb_per_gpu,
        g.has_gpu_link,
        g.interconnect_gpus,
        list_min(list_filter(r.counts, d ->
            (not r.serving or r.attention_heads % d = 0)
            and r.fixed_gb + r.grow * (
                case when r.serving
                     then (r.sharded_gb + r.kv_cache_gb * case when r.mla then d else ceil(r.kv_heads / d) * d / r.kv_heads end) / d
                     else r.sharded_gb / d + r.activations_gb end) <= g.usable_gb_per_gpu)) as in_node,
        case
            when r.serving and r.attention_heads % r.node = 0 then
                ceil(r.grow * (r.sharded_gb + r.kv_cache_gb * case when r.mla then r.node
                                                                   else ceil(r.kv_heads / r.node) * r.node / r.kv_heads end)
                     / (r.node * (g.usable_gb_per_gpu - r.fixed_gb)))
            when not r.serving and g.usable_gb_per_gpu - r.fixed_gb - r.grow * r.activations_gb > 0 then
                ceil(r.grow * r.sharded_gb / (r.node * (g.usable_gb_per_gpu - r.fixed_gb - r.grow * r.activations_gb)))
        end as nodes_beyond
    from r cross join g
),

per_count as (
    select
        n.*,
        c.gpu_count,
        not n.serving or n.attention_heads % c.gpu_count = 0 as valid_degree,
        case
            when not n.serving then 1.0
            when n.mla then c.gpu_count
            else ceil(n.kv_heads / c.gpu_count) * c.gpu_count / n.kv_heads
        end as kv_replication
    from needed as n
    cross join (select unnest(param_list('gpu_counts'))::integer as gpu_count) as c
)

select
    scenario_id,
    gpu_id,
    gpu_count,
    usable_gb_per_gpu,
    fixed_gb + grow * case when serving then (sharded_gb + kv_cache_gb * kv_replication) / gpu_count
                           else sharded_gb / gpu_count + activations_gb end as per_gpu_required_gb,
    kv_replication,
    valid_degree,
    cast(coalesce(in_node, node * nodes_beyond) as integer) as gpus_needed,
    cast(case when in_node is not null then 1 else nodes_beyond end as integer) as nodes_needed,
    valid_degree and fixed_gb + grow * case when serving then (sharded_gb + kv_cache_gb * kv_replication) / gpu_count
                                            else sharded_gb / gpu_count + activations_gb end <= usable_gb_per_gpu as fits,
    coalesce(in_node = 1, false) as fits_one_gpu,
    -- a bridge joins two (or four) cards: more of them talk over PCIe
    case when gpu_count > 1 then has_gpu_link and serve_link_joins(gpu_count, interconnect_gpus) end
        as multi_gpu_has_link
from per_count
