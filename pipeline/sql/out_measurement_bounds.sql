-- Every measured decode speed next to the bound GPU Atlas computes for the same model, format, GPU
-- and deployment, and the expectation calibrated on the other GPUs' measurements.
-- Bound: one decode step reads the weights except the input embedding table (for MoE the experts the
-- batch touches) and the KV cache at the measurement's mean context, at 100% of peak bandwidth, over
-- the GPUs that read in parallel: all of them in a tensor or row split, one at a time in a layer or
-- pipeline split (llama.cpp's default, where GPUs take turns).
with meas as (
    select
        x.*,
        g.name as gpu_name,
        g.architecture,
        g.memory_bandwidth_gbs,
        w.dense_read_gb,
        w.expert_gb,
        m.moe_layers,
        m.num_experts,
        m.experts_per_token,
        m.is_moe,
        -- KV bytes per token of context, BF16 cache
        case when m.attention_kind = 'mla' then m.layers * (m.kv_lora_rank + m.qk_rope_head_dim)
             else 2 * m.layers * m.kv_heads * m.head_dim end * param('bytes_bf16') / 1e9 as kv_gb_per_token,
        x.prompt_tokens + x.generated_tokens / 2.0 as mean_context,
        case when x.split_mode in ('tensor', 'row') then x.gpu_count else 1 end as parallel_readers
    from core_measurements as x
    join core_gpus as g using (gpu_id)
    join core_models as m using (model_id)
    join out_model_weights as w on w.model_id = x.model_id and w.format = x.format
    where x.metric = 'decode_tokens_per_s'
),

bounded as (
    select
        *,
        dense_read_gb
            + case when is_moe then moe_layers * num_experts
                  * (1 - pow(1 - experts_per_token / num_experts, batch_size)) * expert_gb else 0 end
            + batch_size * kv_gb_per_token * mean_context as step_read_gb,
        parallel_readers * memory_bandwidth_gbs * batch_size
            / (dense_read_gb
               + case when is_moe then moe_layers * num_experts
                     * (1 - pow(1 - experts_per_token / num_experts, batch_size)) * expert_gb else 0 end
               + batch_size * kv_gb_per_token * mean_context) as bound_tokens_per_s
    from meas
),

ratios as (
    select *, value / bound_tokens_per_s as measured_share_of_bound from bounded
),

-- leave-one-GPU-out: the efficiency of this GPU's architecture measured on the other GPUs, else of all others
loo as (
    select
        r.measurement_id,
        (select median(o.measured_share_of_bound) from ratios as o
          where o.architecture = r.architecture and o.gpu_id <> r.gpu_id and o.engine = r.engine) as arch_efficiency,
        (select count(distinct o.gpu_id) from ratios as o
          where o.architecture = r.architecture and o.gpu_id <> r.gpu_id and o.engine = r.engine) as arch_gpus,
        (select median(o.measured_share_of_bound) from ratios as o
          where o.gpu_id <> r.gpu_id and o.engine = r.engine) as engine_efficiency
    from ratios as r
)

select
    r.measurement_id,
    r.model_id,
    r.gpu_id,
    r.gpu_name,
    r.architecture,
    r.gpu_count,
    r.engine,
    r.split_mode,
    r.format,
    r.batch_size,
    r.prompt_tokens,
    r.generated_tokens,
    r.metric,
    r.value as measured_tokens_per_s,
    r.bound_tokens_per_s,
    r.measured_share_of_bound,
    r.value <= r.bound_tokens_per_s * (1 + param('bound_tolerance')) as within_bound,
    case when l.arch_gpus >= param('min_calibration_points') then l.arch_efficiency else l.engine_efficiency end
        as calibrated_efficiency,
    case when l.arch_gpus >= param('min_calibration_points') then 'architecture' else 'engine' end as calibration_scope,
    r.bound_tokens_per_s
        * case when l.arch_gpus >= param('min_calibration_points') then l.arch_efficiency else l.engine_efficiency end
        as expected_tokens_per_s,
    r.bound_tokens_per_s
        * case when l.arch_gpus >= param('min_calibration_points') then l.arch_efficiency else l.engine_efficiency end
        / r.value - 1 as expected_error,
    r.step_read_gb,
    r.quote,
    r.source_id,
    r.source_file,
    r.source_row
from ratios as r
join loo as l using (measurement_id)
