-- Every published serving measurement with its bound and two expectations: one from the fit without its GPU, one
-- from the fit without its publication (out_serving_fits; a GPU or a publication alone in its family, or a family
-- with no fit, uses the defaults serving_decode_efficiency_default and serving_compute_efficiency_default). The
-- expectation never exceeds the bound. Throughput is output tokens per second per GPU (u / step per replica),
-- per-user speed 1 / step, time to first token the prefill at the fitted efficiencies, its all-reduces and one step
-- (serve_first_token_s) plus the fitted fixed part of the first token (first_token_overhead_ms). Each at its
-- architecture's shares where the fit has them (out_serving_shares), its step time divided by the model's measured
-- level where the same fit gives one (out_serving_levels: from the model's figures on other GPUs, or in other
-- publications).

with e as (
    select
        b.*,
        coalesce(f.decode_efficiency, param('serving_decode_efficiency_default')) as decode_efficiency,
        coalesce(f.compute_efficiency, param('serving_compute_efficiency_default')) as compute_efficiency,
        coalesce(f.step_overhead_us, 0) as step_overhead_us,
        coalesce(f.sequence_overhead_us, 0) as sequence_overhead_us,
        coalesce(f.comm_efficiency, 1) as comm_efficiency,
        coalesce(f.first_token_overhead_ms, 0) as first_token_overhead_ms,
        f.engine_family is not null as calibrated_without_this_gpu,
        coalesce(p.decode_efficiency, param('serving_decode_efficiency_default')) as p_decode_efficiency,
        coalesce(p.compute_efficiency, param('serving_compute_efficiency_default')) as p_compute_efficiency,
        coalesce(p.step_overhead_us, 0) as p_step_overhead_us,
        coalesce(p.sequence_overhead_us, 0) as p_sequence_overhead_us,
        coalesce(p.comm_efficiency, 1) as p_comm_efficiency,
        coalesce(p.first_token_overhead_ms, 0) as p_first_token_overhead_ms,
        p.engine_family is not null as calibrated_without_this_publication,
        lg.level as model_level,
        lp.level as model_level_without_publication
    from out_serving_bounds as b
    left join out_serving_shares as f
        on f.engine_family = b.engine_family and f.model_kind = b.model_kind and f.held_out_gpu_id = b.gpu_id
        and f.architecture = b.architecture
    left join out_serving_shares as p
        on p.engine_family = b.engine_family and p.model_kind = b.model_kind and p.held_out_source_id = b.source_id
        and p.architecture = b.architecture
    -- the model's measured level from the same fits (without the GPU; without the publication)
    left join out_serving_levels as lg
        on lg.engine_family = b.engine_family and lg.model_id = b.model_id
        and lg.weights = serve_weight_class(b.format) and lg.held_out_gpu_id = b.gpu_id
    left join out_serving_levels as lp
        on lp.engine_family = b.engine_family and lp.model_id = b.model_id
        and lp.weights = serve_weight_class(b.format) and lp.held_out_source_id = b.source_id
),

t as (
    select
        *,
        serve_expected_step_s(read_gb_expected, kv_read_gb_expected, u_expected, input_tokens, output_tokens, active_params_b,
                              gpus_per_replica, memory_bandwidth_gbs, compute_tflops, decode_efficiency,
                              compute_efficiency, step_overhead_us, sequence_overhead_us,
                              serve_comm_s(tensor_parallel, layers, allreduce_us, comm_tokens, hidden_size, link_gbs,
                                           comm_efficiency), attention_step_gflop,
                              attention_tflops, overhead_scale) / coalesce(model_level, 1) as step_s,
        serve_prefill_s(input_tokens, active_params_b, gpus_per_replica, compute_tflops, compute_efficiency,
                        prefill_read_gb, memory_bandwidth_gbs, decode_efficiency, attention_prefill_gflop,
                        attention_tflops) as prefill_s,
        serve_expected_step_s(read_gb_expected, kv_read_gb_expected, u_expected, input_tokens, output_tokens, active_params_b,
                              gpus_per_replica, memory_bandwidth_gbs, compute_tflops, p_decode_efficiency,
                              p_compute_efficiency, p_step_overhead_us, p_sequence_overhead_us,
                              serve_comm_s(tensor_parallel, layers, allreduce_us, comm_tokens, hidden_size, link_gbs,
                                           p_comm_efficiency), attention_step_gflop,
                              attention_tflops, overhead_scale) / coalesce(model_level_without_publication, 1)
            as p_step_s,
        serve_prefill_s(input_tokens, active_params_b, gpus_per_replica, compute_tflops, p_compute_efficiency,
                        prefill_read_gb, memory_bandwidth_gbs, p_decode_efficiency, attention_prefill_gflop,
                        attention_tflops)
            as p_prefill_s
    from e
)

select
    measurement_id, model_id, gpu_id, gpu_name, architecture, gpu_count, tensor_parallel, pipeline_parallel,
    gpus_per_replica, replicas, engine, engine_family, model_kind, engine_version, format, kv_format, kv_format_expected,
    cache_proven_8bit, speculative_decoding,
    scenario, concurrency, u_bound as concurrency_per_replica_bound, u_expected as concurrency_per_replica_expected,
    input_tokens, output_tokens, lengths, metric, value, unit, quantity, measured, bound, within_bound,
    measured / bound as measured_share_of_bound,
    case quantity
        when 'throughput' then least(bound, u_expected / step_s / gpus_per_replica)
        when 'per_user' then least(bound, 1 / step_s)
    end as expected_capped,
    case when quantity = 'ttft' then greatest(bound, serve_first_token_s(
        prefill_s, step_s, first_token_overhead_ms, tensor_parallel, layers, allreduce_us,
        input_tokens / pipeline_parallel, hidden_size, link_gbs)) end
        as expected_ttft,
    case quantity
        when 'throughput' then least(bound, u_expected / p_step_s / gpus_per_replica)
        when 'per_user' then least(bound, 1 / p_step_s)
        when 'ttft' then greatest(bound, serve_first_token_s(
            p_prefill_s, p_step_s, p_first_token_overhead_ms, tensor_parallel, layers, allreduce_us,
            input_tokens / pipeline_parallel, hidden_size, link_gbs))
    end as expected_without_publication,
    decode_efficiency, compute_efficiency, step_overhead_us, sequence_overhead_us, comm_efficiency,
    first_token_overhead_ms, model_level, model_level_without_publication, calibrated_without_this_gpu,
    calibrated_without_this_publication,
    published_on, current_engine,
    quote, source_id, source_file, source_row
from t
