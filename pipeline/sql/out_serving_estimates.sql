-- Every published serving measurement with its bound and its expectation from efficiencies fitted without its
-- GPU (out_serving_fits, leave one GPU out; a GPU alone in its family, or a family with no fit, uses the
-- defaults serving_decode_efficiency_default and serving_compute_efficiency_default). The expectation never
-- exceeds the bound.
with e as (
    select
        b.*,
        coalesce(f.decode_efficiency, param('serving_decode_efficiency_default')) as decode_efficiency,
        coalesce(f.compute_efficiency, param('serving_compute_efficiency_default')) as compute_efficiency,
        coalesce(f.sequence_overhead_us, 0) as sequence_overhead_us,
        f.engine_family is not null as calibrated_without_this_gpu
    from out_serving_bounds as b
    left join out_serving_fits as f
        on f.engine_family = b.engine_family and f.model_kind = b.model_kind and f.held_out_gpu_id = b.gpu_id
),

t as (
    select
        *,
        serve_step_s(read_gb_expected, u_expected, active_params_b, gpus_per_replica, memory_bandwidth_gbs,
                     compute_tflops, decode_efficiency, compute_efficiency)
            + u_expected * sequence_overhead_us / 1e6 + comm_s as step_s,
        serve_prefill_s(input_tokens, active_params_b, gpus_per_replica, compute_tflops, param('prefill_mfu'))
            as prefill_s
    from e
)

select
    measurement_id, model_id, gpu_id, gpu_name, architecture, gpu_count, tensor_parallel, pipeline_parallel,
    gpus_per_replica, replicas, engine, engine_family, model_kind, engine_version, format, kv_format, speculative_decoding,
    scenario, concurrency, u_bound as concurrency_per_replica_bound, u_expected as concurrency_per_replica_expected,
    input_tokens, output_tokens, lengths, metric, value, unit, quantity, measured, bound, within_bound,
    measured / bound as measured_share_of_bound,
    least(bound, case quantity
        when 'throughput' then output_tokens * serve_requests_per_s(u_expected, output_tokens, step_s, prefill_s)
                               / gpus_per_replica
        when 'per_user' then serve_user_tokens_per_s(u_expected, output_tokens, step_s, prefill_s)
    end) as expected_capped,
    case when quantity = 'ttft' then greatest(bound, prefill_s + step_s) end as expected_ttft,
    decode_efficiency, compute_efficiency, sequence_overhead_us, calibrated_without_this_gpu,
    quote, source_id, source_file, source_row
from t
