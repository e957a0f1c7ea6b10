-- Serving estimates per model x GPU x weight format at the reference context, KV cache in BF16: the
-- deployment a batch of one needs and the one the serving batch needs (tensor-parallel degrees 1, 2,
-- 4, 8; whole nodes beyond), each with a bound and an expectation.
-- Bound: 100% of peak memory bandwidth over the bytes a decode step reads (weights but the input
-- embedding table, for MoE the distinct experts the batch touches, the KV cache), and 100% of dense
-- peak compute; never beaten by a measurement (checked in out_measurement_bounds).
-- Expected: the bound's memory time times the slope calibrated on published measurements, plus the
-- fixed overhead per layer (out_decode_calibration); compute at prefill_mfu; plus two all-reduces per
-- layer and token across tensor-parallel GPUs. Never faster than the bound.
with fit as (
    select model_id, gpu_id, precision, batch_size, context_tokens, gpus_needed, kv_cache_gb
    from out_vram_fit_detail
    where workload = 'inference' and kv_precision = 'bf16' and gpu_count = 1
        and context_tokens = (select least(param('reference_context'), max(context_tokens)) from out_memory_requirements)
        and precision in ('bf16', 'fp8', 'int8', 'int4')
        and batch_size in (1, param('serving_batch'))
),

shaped as (
    select
        f.model_id, f.gpu_id, f.precision, f.context_tokens,
        max(f.gpus_needed) filter (where f.batch_size = 1) as batch1_gpus,
        max(f.gpus_needed) filter (where f.batch_size = param('serving_batch')) as gpus,
        max(f.kv_cache_gb) filter (where f.batch_size = 1) as kv_gb_per_sequence
    from fit as f
    group by all
),

est as (
    select
        s.*,
        m.layers, m.kv_heads, m.attention_kind, m.active_params_b, m.is_moe, m.moe_layers, m.num_experts,
        m.experts_per_token,
        w.dense_read_gb,
        w.expert_gb,
        g.memory_bandwidth_gbs,
        g.interconnect_gbs is not null as has_gpu_link,
        g.architecture,
        case when s.precision = 'fp8' and g.fp8_tflops is not null then 'fp8 (W8A8)'
             when s.precision in ('fp8', 'int8', 'int4') then 'weight-only, 16-bit compute'
             when g.bf16_tflops is null then '16-bit as FP16 (no BF16 units)'
             else '16-bit' end as compute_mode,
        case when s.precision = 'fp8' and g.fp8_tflops is not null then g.fp8_tflops
             else g.best_16bit_tflops end as compute_tflops,
        c.slope,
        c.overhead_us_per_layer,
        c.decode_efficiency,
        c.calibration_scope,
        param('serving_batch') as serving_batch,
        param('gpus_per_node') as node,
        case when g.interconnect_gbs is not null then param('allreduce_latency_us_nvlink')
             else param('allreduce_latency_us_pcie') end as allreduce_us,
        g.interconnect_gpus
    from shaped as s
    join core_models as m using (model_id)
    join core_gpus as g using (gpu_id)
    join out_model_weights as w on w.model_id = s.model_id and w.format = s.precision
    left join out_decode_calibration as c using (architecture)
    -- only formats a serving engine runs on the GPU's architecture (core_engine_formats)
    join core_engine_formats as e on e.architecture = g.architecture and e.format = s.precision
    where g.memory_bandwidth_gbs is not null and s.batch1_gpus is not null
),

steps as (
    select
        *,
        least(batch1_gpus, node) as tp1,           -- GPUs reading in parallel for one sequence
        least(gpus, node) as tp,
        -- bytes of one decode step, GB: one sequence
        dense_read_gb + case when is_moe then moe_layers * experts_per_token * expert_gb else 0 end
            + kv_gb_per_sequence * case when attention_kind = 'mla' then least(batch1_gpus, node)
                                        else ceil(kv_heads / least(batch1_gpus, node)) * least(batch1_gpus, node) / kv_heads end
            as read1_gb,
        -- the serving batch: shared weights, the distinct experts B tokens touch, B caches
        dense_read_gb
            + case when is_moe then moe_layers * num_experts
                  * (1 - pow(1 - experts_per_token / num_experts, serving_batch)) * expert_gb else 0 end
            + serving_batch * kv_gb_per_sequence
                * case when attention_kind = 'mla' then least(gpus, node)
                       else ceil(kv_heads / least(gpus, node)) * least(gpus, node) / kv_heads end
            as read_batch_gb,
        case when is_moe then num_experts * (1 - pow(1 - experts_per_token / num_experts, serving_batch)) end
            as experts_touched_per_layer
    from est
),

timed as (
    select
        *,
        read1_gb / (tp1 * memory_bandwidth_gbs) as t1_mem_s,
        case when tp1 > 1 then 2 * layers * serve_allreduce_us(tp1, allreduce_us, interconnect_gpus) / 1e6 else 0 end
            as t1_comm_s,
        read_batch_gb / (gpus * memory_bandwidth_gbs) as tb_mem_s,
        serving_batch * 2 * active_params_b * 1e9 / (gpus * compute_tflops * 1e12) as tb_compute_s,
        case when tp > 1 then 2 * layers * serve_allreduce_us(tp, allreduce_us, interconnect_gpus) / 1e6 else 0 end
            as tb_comm_s
    from steps
),

stepped as (
    select
        *,
        -- one serving step: the bound's, and the expected (calibrated memory time, compute at prefill_mfu,
        -- all-reduces)
        greatest(tb_mem_s, coalesce(tb_compute_s, 0)) as tb_bound_s,
        greatest(tb_mem_s, tb_mem_s * slope + layers * overhead_us_per_layer / 1e6,
                 coalesce(tb_compute_s / param('prefill_mfu'), 0)) + tb_comm_s as tb_expected_s
    from timed
)

select
    model_id,
    gpu_id,
    precision,
    compute_mode,
    context_tokens,
    cast(batch1_gpus as integer) as batch1_gpus,
    cast(gpus as integer) as gpus_used,
    cast(ceil(gpus / node) as integer) as nodes,
    gpus <= node as single_node,
    has_gpu_link,
    -- one sequence
    1 / t1_mem_s as decode_tokens_per_s,
    1 / (greatest(t1_mem_s, t1_mem_s * slope + layers * overhead_us_per_layer / 1e6) + t1_comm_s)
        as decode_expected_tokens_per_s,
    -- the serving batch
    cast(serving_batch as integer) as batch_size,
    serving_batch / tb_bound_s as batch_decode_tokens_per_s,
    serving_batch / tb_expected_s as batch_decode_expected_tokens_per_s,
    experts_touched_per_layer,
    gpus * compute_tflops * 1e12 / (2 * active_params_b * 1e9) as prefill_tokens_per_s,
    gpus * compute_tflops * 1e12 * param('prefill_mfu') / (2 * active_params_b * 1e9) as prefill_expected_tokens_per_s,
    read1_gb as bytes_read_per_token_gb,
    t1_comm_s * 1e6 as allreduce_us_per_token,
    c.usd_per_gpu_hour as cheapest_usd_per_gpu_hour,
    gpus * c.usd_per_gpu_hour as usd_per_hour,
    -- $ per million output tokens = $/hour / (tokens/s x 3600) x 10^6, at the expected batch speed
    gpus * c.usd_per_gpu_hour / (serving_batch / tb_expected_s * 3600) * 1e6 as usd_per_million_tokens,
    -- the floor: the same at the bound
    gpus * c.usd_per_gpu_hour / (serving_batch / tb_bound_s * 3600) * 1e6 as usd_per_million_tokens_at_bound,
    decode_efficiency,
    overhead_us_per_layer,
    calibration_scope,
    param('prefill_mfu') as prefill_utilisation
from stepped
left join core_cheapest_offers as c using (gpu_id)
