-- How fast an engine family runs one model, measured: the family's efficiencies (out_serving_fits) describe its
-- kernels on a typical model, and one model's kernels can be better or worse tuned than another's (SGLang 0.5.6.post1
-- on 8 x B200 takes 9.2 ms a step for one user of DeepSeek R1 and 18.4 ms for Kimi K2, the same architecture and
-- weights). A model's level is the median of measured / expected over its throughput and per-user figures with the
-- engine family and weights (serve_weight_class), each expected with the fit at hand (out_serving_shares) and never
-- capped at the bound; kept where at least serving_model_level_min_figures figures on at least
-- serving_model_level_min_gpus GPUs give it (the model's, not one GPU's setup). The expectation's step time is divided
-- by it (out_serving_estimates, the Planner): its reads, compute and overheads all at the level's share; the bound is
-- unchanged and the expectation never exceeds it. For every fit: a fit without a GPU or a publication takes the level
-- from the model's other GPUs' or other publications' figures, so that each figure's held-out expectation has seen
-- neither its GPU nor its publication, level included.
with figures as (
    select * from out_serving_bounds
    where quantity in ('throughput', 'per_user') and scenario in ('max_throughput', 'concurrency')
        and (quantity = 'throughput' or scenario = 'concurrency') and not speculative_decoding and current_engine
        and engine_family <> 'other'
),

rated as (
    select f.engine_family, f.held_out_gpu_id, f.held_out_source_id, o.model_id, serve_weight_class(o.format) as weights,
           o.gpu_id, o.source_id,
           ln(o.measured
              / (case o.quantity when 'throughput' then o.u_expected / o.gpus_per_replica else 1 end
                 / serve_expected_step_s(o.read_gb_expected, o.kv_read_gb_expected, o.u_expected, o.input_tokens,
                                         o.output_tokens, o.active_params_b, o.gpus_per_replica,
                                         o.memory_bandwidth_gbs, o.compute_tflops, f.decode_efficiency,
                                         f.compute_efficiency, f.step_overhead_us, f.sequence_overhead_us,
                                         serve_comm_s(o.tensor_parallel, o.layers, o.allreduce_us, o.comm_tokens,
                                                      o.hidden_size, o.link_gbs, f.comm_efficiency),
                                         o.attention_step_gflop, o.attention_tflops, o.overhead_scale))) as log_ratio
    from out_serving_shares as f
    join figures as o
        on o.engine_family = f.engine_family and o.model_kind = f.model_kind and o.architecture = f.architecture
        and o.gpu_id is distinct from f.held_out_gpu_id and o.source_id is distinct from f.held_out_source_id
)

select engine_family, held_out_gpu_id, held_out_source_id, model_id, weights,
       exp(median(log_ratio)) as level, count(*) as figures, count(distinct gpu_id) as gpus,
       count(distinct source_id) as publications
from rated
group by all
having count(*) >= param('serving_model_level_min_figures')
    and count(distinct gpu_id) >= param('serving_model_level_min_gpus')
