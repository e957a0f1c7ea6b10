-- Every published serving measurement beside the bound GPU Atlas computes for the same model, weight format,
-- GPU and deployment with the serving model (pipeline/sql/macros/serving.sql), and the inputs its
-- expectation needs. The bound is at 100% of peak bandwidth and dense compute, whatever the engine does:
-- - throughput: output tokens per second per GPU <= output_tokens / (GPU seconds per request) / GPUs, at the
--   stated concurrency, or, for 'maximum throughput' and MLPerf's server scenario, at as many sequences as
--   the whole memory holds beside the weights (more sequences only raise the bound);
-- - per user: no faster than one decode step of the concurrent sequences' reads (one sequence's where the
--   publication does not state how many ran);
-- - time to first token: no shorter than the prefill at full compute.
-- The bound keeps one copy of each sequence's cache (attention data-parallel, as engines run MLA models), the
-- expectation the copies tensor parallelism makes (serve_kv_replication).
-- A cache format the publication does not state is taken as FP8 for the bound (the smaller cache) and, for
-- the expectation, as FP8 with FP8 weights or where the publication's own figures prove it (cache_proven_8bit),
-- else BF16. Speculative decoding can beat any such bound: those figures are shown, never checked or calibrated on.
with m as (
    select
        x.*,
        case when s.is_moe then 'moe' else 'dense' end as model_kind,
        serve_overhead_scale(s.is_moe, s.layers) as overhead_scale,
        s.layers, s.hidden_size, s.attention_heads, s.kv_heads, s.mla, s.active_params_b, s.weights_gb, s.dense_read_gb, s.expert_gb,
        s.moe_layers, s.num_experts, s.experts_per_token,
        s.kv_values_per_token_full, s.kv_values_per_token_window, s.sliding_window, s.state_values_per_sequence,
        s.attention_flops_full, s.prefill_attention_flops_full, s.attention_flops_window, s.attention_topk,
        g.name as gpu_name, g.architecture, g.memory_gb, g.usable_memory_gb, g.usable_gb_per_gpu, g.memory_bandwidth_gbs,
        serve_allreduce_us(x.tensor_parallel, g.allreduce_us, g.link_gpus) as allreduce_us,
        serve_link_gbs(x.tensor_parallel, g.link_gbs, g.link_gpus, g.pcie_link_gbs) as link_gbs,
        serve_compute_tflops(s.native_compute, g.bf16_compute_tflops, g.fp8_compute_tflops, g.fp4_compute_tflops)
            as compute_tflops,
        case when x.kv_format = 'bf16' then param('bytes_bf16') else param('bytes_fp8') end as kv_bytes_bound,
        x.input_tokens + x.output_tokens / 2 as mean_context,
        serve_kv_replication(s.mla, s.kv_heads, x.tensor_parallel) as replication,
        1.0 as replication_bound
    from core_serving_measurements as x
    join out_serving_models as s on s.model_id = x.model_id and s.format = x.format
    join out_serving_gpus as g on g.gpu_id = x.gpu_id
),

-- engines get faster release by release (the same deployment of DeepSeek R1 on 8 x H200 ran at 10% of its bound in
-- early 2025 and at 34-40% in mid 2026): the expectation describes the engines of today, so it is fitted and scored
-- on the figures a family published within serving_fit_window_days of its newest dated figure (current_engine). An
-- older figure stays: it is checked against its bound and shown with its expectation. A publication without a date
-- counts as current.
dated as (
    select m.*, s.published_on,
           s.published_on is null or s.published_on >= max(s.published_on) over (partition by m.engine_family)
               - to_days(param('serving_fit_window_days')::integer) as current_engine
    from m
    left join (select source_id, max(published_on) as published_on from core_sources group by all) as s
        on s.source_id = m.source_id
),

-- sequences per replica the bound takes: as stated, or as many as the whole memory holds beside the weights. The bound
-- of a user's speed at an unstated concurrency is one user alone (however few sequences ran, none is faster)
bounded as (
    select
        *,
        coalesce(concurrency_per_replica, case when quantity = 'per_user' then 1 end, greatest(1, floor(
            (usable_memory_gb * gpus_per_replica - weights_gb)
            / (serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence, kv_bytes_bound,
                           input_tokens + output_tokens) * replication_bound)))) as u_bound
    from dated
),

-- a cache the publication leaves unstated was at most 8 bits where one of its throughput figures of the model, format
-- and engine is beyond the bound with a 16-bit cache (at the sequences an FP8 cache leaves room for: more than a 16-bit
-- one does, so the test only errs towards 16 bits): no engine reads a 16-bit cache faster than the memory streams it.
-- (TensorRT-LLM's tables of NVIDIA's FP4 checkpoints of Qwen3 30B A3B and Llama 3.3 70B print such figures.)
cache as (
    select source_id, model_id, format, engine_family,
           bool_or(quantity = 'throughput' and kv_format is null and not speculative_decoding
                   and measured > serve_bound_throughput(input_tokens, output_tokens, u_bound, active_params_b,
                       gpus_per_replica, compute_tflops, memory_bandwidth_gbs,
                       serve_step_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, u_bound,
                           serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window,
                                       state_values_per_sequence, param('bytes_bf16'), mean_context),
                           replication_bound))) as cache_proven_8bit
    from bounded
    group by all
),

formatted as (
    select
        b.*, c.cache_proven_8bit,
        -- the cache format the expectation takes: as stated, else FP8 with FP8 weights or where the publication's
        -- figures prove at most 8 bits, else BF16; its attention computes at FP8 with an FP8 cache, else at 16 bits
        coalesce(b.kv_format, case when b.format = 'fp8' or c.cache_proven_8bit then 'fp8' else 'bf16' end)
            as kv_format_expected,
        serve_attention_tflops(kv_format_expected, g.bf16_compute_tflops, g.fp8_compute_tflops) as attention_tflops,
        case kv_format_expected when 'fp8' then param('bytes_fp8') else param('bytes_bf16') end as kv_bytes_expected
    from bounded as b
    join cache as c using (source_id, model_id, format, engine_family)
    join out_serving_gpus as g using (gpu_id)
),

sized as (
    select
        *,
        -- sequences per replica the expectation takes: as stated, or as many as the usable share of memory holds with
        -- the runtime overhead, at most the engine's default batch (serve_max_batch)
        coalesce(concurrency_per_replica, least(serve_max_batch(gpu_id, usable_memory_gb), greatest(1, floor(
            ((usable_gb_per_gpu - param('runtime_overhead_gb')) * gpus_per_replica
                 / (1 + param('runtime_overhead_fraction')) - weights_gb)
            / (serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence, kv_bytes_expected,
                           input_tokens + output_tokens) * replication))))) as u_expected
    from formatted
),

read as (
    select
        *,
        serve_step_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, u_bound,
                           serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence,
                                       kv_bytes_bound, mean_context), replication_bound) as read_gb_bound,
        -- a pipeline of pp stages runs pp micro-batches of u / pp sequences: a GPU reads its weights (and the experts a
        -- micro-batch touches) once per micro-batch, pp times per step of every sequence, and each cache once
        pipeline_parallel * serve_step_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token,
                           u_expected / pipeline_parallel,
                           serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence,
                                       kv_bytes_expected, mean_context), replication) as read_gb_expected,
        serve_kv_read_gb(u_expected, serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window,
                                                 state_values_per_sequence, kv_bytes_expected, mean_context),
                         replication) as kv_read_gb_expected,
        serve_prefill_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, input_tokens)
            as prefill_read_gb,
        -- the tokens of the expectation's tensor-parallel all-reduces (serve_comm_s, among the tensor_parallel GPUs of
        -- a pipeline stage, at the fit's share of the links): a step's decoded tokens and the prompt tokens computed
        -- beside them (input / output per sequence), in pp micro-batches that each cross every layer once (the stages
        -- hand on activations point to point: not counted)
        u_expected * (1 + input_tokens / output_tokens) / pipeline_parallel as comm_tokens,
        -- the expectation's attention compute: per sequence a step (its token at the mean context and its share of
        -- the arriving prompts), and a prompt's prefill (its tokens at half its length on average)
        serve_step_attention_gflop(attention_flops_full, prefill_attention_flops_full, attention_flops_window,
                                   sliding_window, attention_topk, input_tokens, output_tokens) as attention_step_gflop,
        serve_prefill_attention_gflop(prefill_attention_flops_full, attention_flops_window, sliding_window,
                                      attention_topk, input_tokens) as attention_prefill_gflop
    from sized
)

select
    *,
    case quantity
        when 'throughput' then serve_bound_throughput(input_tokens, output_tokens, u_bound, active_params_b,
                                                      gpus_per_replica, compute_tflops, memory_bandwidth_gbs,
                                                      read_gb_bound)
        when 'per_user' then 1 / serve_step_s(read_gb_bound, u_bound, active_params_b, gpus_per_replica,
                                              memory_bandwidth_gbs, compute_tflops, 1, 1)
        when 'ttft' then serve_prefill_s(input_tokens, active_params_b, gpus_per_replica, compute_tflops, 1,
                                         prefill_read_gb, memory_bandwidth_gbs, 1, 0, attention_tflops)
    end as bound,
    not speculative_decoding as checked,
    case when speculative_decoding then null
         when quantity = 'ttft' then measured >= (1 - param('bound_tolerance')) * bound
         else measured <= (1 + param('bound_tolerance')) * bound
    end as within_bound
from read
