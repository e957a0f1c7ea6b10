-- Every measured decode speed next to the bound GPU Atlas computes for the same model, format, GPU
-- and deployment, and the expectation calibrated on the other GPUs' measurements (leave one GPU out).
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
        m.layers,
        m.kv_values_per_token_full,
        m.kv_values_per_token_window,
        m.sliding_window,
        m.state_values_per_sequence,
        x.prompt_tokens + x.generated_tokens / 2.0 as mean_context,
        case when x.split_mode in ('tensor', 'row') then x.gpu_count else 1 end as parallel_readers
    from core_measurements as x
    join core_gpus as g using (gpu_id)
    join core_models as m using (model_id)
    join out_model_weights as w on w.model_id = x.model_id and w.format = x.format
    where x.metric = 'decode_tokens_per_s'
),

stepped as (
    select
        *,
        dense_read_gb
            + case when is_moe then moe_layers * num_experts
                  * (1 - pow(1 - experts_per_token / num_experts, batch_size)) * expert_gb else 0 end
            -- each sequence's BF16 cache at the mean context (the serving model's KV formula)
            + batch_size * serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window,
                                       state_values_per_sequence, param('bytes_bf16'), mean_context) as step_read_gb
    from meas
),

bounded as (
    select *, parallel_readers * memory_bandwidth_gbs * batch_size / step_read_gb as bound_tokens_per_s
    from stepped
),

ratios as (
    select
        *,
        value / bound_tokens_per_s as measured_share_of_bound,
        -- seconds per token and layer: measured, and at the bound
        1 / (value * layers) as measured_s_per_layer,
        1 / (bound_tokens_per_s * layers) as bound_s_per_layer
    from bounded
),

-- leave-one-GPU-out: time per token and layer = slope x the bound's + a fixed overhead, fitted on the other
-- GPUs of this architecture with this engine (at least min_calibration_points GPUs), else on all other GPUs
loo as (
    select
        r.measurement_id,
        (select count(distinct o.gpu_id) from ratios as o
          where o.architecture = r.architecture and o.gpu_id <> r.gpu_id and o.engine = r.engine
            and o.gpu_count = 1) as arch_gpus,
        (select regr_slope(o.measured_s_per_layer, o.bound_s_per_layer) from ratios as o
          where o.architecture = r.architecture and o.gpu_id <> r.gpu_id and o.engine = r.engine
            and o.gpu_count = 1) as arch_slope,
        (select regr_intercept(o.measured_s_per_layer, o.bound_s_per_layer) from ratios as o
          where o.architecture = r.architecture and o.gpu_id <> r.gpu_id and o.engine = r.engine
            and o.gpu_count = 1) as arch_intercept,
        (select regr_slope(o.measured_s_per_layer, o.bound_s_per_layer) from ratios as o
          where o.gpu_id <> r.gpu_id and o.engine = r.engine and o.gpu_count = 1) as engine_slope,
        (select regr_intercept(o.measured_s_per_layer, o.bound_s_per_layer) from ratios as o
          where o.gpu_id <> r.gpu_id and o.engine = r.engine and o.gpu_count = 1) as engine_intercept
    from ratios as r
),

fitted as (
    select
        r.*,
        case when l.arch_gpus >= param('min_calibration_points') then 'architecture' else 'engine' end
            as calibration_scope,
        case when l.arch_gpus >= param('min_calibration_points') then l.arch_slope else l.engine_slope end as slope,
        case when l.arch_gpus >= param('min_calibration_points') then l.arch_intercept else l.engine_intercept end
            as intercept
    from ratios as r
    join loo as l using (measurement_id)
)

select
    measurement_id,
    model_id,
    gpu_id,
    gpu_name,
    architecture,
    gpu_count,
    engine,
    split_mode,
    format,
    batch_size,
    prompt_tokens,
    generated_tokens,
    metric,
    value as measured_tokens_per_s,
    bound_tokens_per_s,
    measured_share_of_bound,
    value <= bound_tokens_per_s * (1 + param('bound_tolerance')) as within_bound,
    1 / slope as calibrated_efficiency,
    intercept * 1e6 as calibrated_overhead_us_per_layer,
    calibration_scope,
    -- never faster than the bound
    1 / (greatest(bound_s_per_layer, slope * bound_s_per_layer + intercept) * layers) as expected_tokens_per_s,
    1 / (greatest(bound_s_per_layer, slope * bound_s_per_layer + intercept) * layers) / value - 1 as expected_error,
    step_read_gb,
    measured_s_per_layer,
    bound_s_per_layer,
    quote,
    source_id,
    source_file,
    source_row
from fitted
