-- Serving estimates per model x GPU x weight precision at the reference context, KV cache in BF16.
-- Decode is bounded by memory bandwidth (bytes read per step), prefill by dense compute.
with fit as (
    select model_id, gpu_id, precision, batch_size, context_tokens, gpus_needed, kv_cache_gb, required_gb
    from out_vram_fit_detail
    where workload = 'inference' and kv_precision = 'bf16' and gpu_count = 1
        and context_tokens = (select least(param('reference_context'), max(context_tokens)) from out_memory_requirements)
        and precision in ('bf16', 'fp8', 'int4')
),

shaped as (
    select
        f.model_id, f.gpu_id, f.precision, f.context_tokens,
        max(f.gpus_needed) filter (where f.batch_size = param('serving_batch')) as gpus,
        max(f.kv_cache_gb) filter (where f.batch_size = 1) as kv_gb_per_sequence
    from fit as f
    group by all
),

est as (
    select
        s.*,
        m.params_b,
        m.active_params_b,
        g.memory_bandwidth_gbs,
        case
            when s.precision = 'fp8' and g.fp8_tflops is not null then g.fp8_tflops
            else g.best_16bit_tflops  -- weight-only quantisation computes in 16-bit
        end as compute_tflops,
        case s.precision when 'bf16' then param('bytes_bf16') when 'fp8' then param('bytes_fp8')
            else param('bytes_int4') + param('quant_scale_bytes_int4') end as bytes_per_param,
        param('serving_batch') as serving_batch
    from shaped as s
    join core_models as m using (model_id)
    join core_gpus as g using (gpu_id)
)

, bounds as (
select
    e.model_id,
    e.gpu_id,
    e.precision,
    e.context_tokens,
    e.gpus as gpus_used,
    e.gpus <= 8 as single_node,  -- more than 8 GPUs means several servers: the bounds ignore the network
    -- one sequence: every step reads the active weights and its KV cache
    e.gpus * e.memory_bandwidth_gbs * 1e9 * param('decode_bandwidth_efficiency')
        / (e.active_params_b * 1e9 * e.bytes_per_param + e.kv_gb_per_sequence * 1e9) as decode_tokens_per_s,
    -- a serving batch shares one read of the weights (MoE: the experts the batch touches, at most all)
    least(
        e.serving_batch * e.gpus * e.memory_bandwidth_gbs * 1e9 * param('decode_bandwidth_efficiency')
            / (least(e.params_b, e.active_params_b * e.serving_batch) * 1e9 * e.bytes_per_param
               + e.serving_batch * e.kv_gb_per_sequence * 1e9),
        e.gpus * e.compute_tflops * 1e12 * param('prefill_mfu') / (2 * e.active_params_b * 1e9)
    ) as batch_decode_tokens_per_s,
    e.serving_batch as batch_size,
    e.gpus * e.compute_tflops * 1e12 * param('prefill_mfu') / (2 * e.active_params_b * 1e9) as prefill_tokens_per_s,
    c.usd_per_gpu_hour as cheapest_usd_per_gpu_hour,
    e.gpus * c.usd_per_gpu_hour as usd_per_hour,
    param('decode_bandwidth_efficiency') as bandwidth_efficiency,
    param('prefill_mfu') as prefill_utilisation
from est as e
left join core_cheapest_offers as c using (gpu_id)
where e.memory_bandwidth_gbs is not null
)

select
    * exclude (bandwidth_efficiency, prefill_utilisation),
    -- $ per million output tokens = $/hour / (tokens/s x 3600) x 10^6
    usd_per_hour / (batch_decode_tokens_per_s * 3600) * 1e6 as usd_per_million_tokens,
    bandwidth_efficiency,
    prefill_utilisation
from bounds
