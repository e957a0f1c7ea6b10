-- The serving expectation's efficiencies and overheads per engine family and model kind (dense or mixture of
-- experts; fitted on all of the family's published throughput and per-user figures, out_serving_fits), inside their
-- physical ranges, with how well they predict figures they did not see: the median |expected / measured - 1| of
-- each quantity (throughput per GPU, tokens/s per user, time to first token) from the fit without the figure's GPU,
-- and from the fit without its publication. The Planner uses these; an engine family without
-- measurements uses the defaults in parameters. One row per engine family and model kind (architecture NULL: the
-- group's fit, used on every architecture without its own, with the error over all of its figures), and one per
-- architecture with shares of its own (out_serving_fits; the error over that architecture's figures).
with fits as (
    select * from out_serving_fits where held_out_gpu_id is null and held_out_source_id is null
),

figures as (
    select engine_family, model_kind, architecture, quantity, source_id, measured,
           coalesce(expected_capped, expected_ttft) as expected, expected_without_publication
    from out_serving_estimates
    where scenario in ('max_throughput', 'concurrency') and not speculative_decoding and current_engine
        -- a user's speed and time to first token are expected at a stated concurrency: at 'maximum throughput' the
        -- publication does not say how many sequences shared each step (a user's speed is about inversely
        -- proportional to them), and a burst of every request at once measures its queue; such figures are
        -- checked against their bounds (one user alone), not scored
        and (quantity = 'throughput' or scenario = 'concurrency')
),

errs as (
    select engine_family, model_kind, architecture,
           median(abs(expected / measured - 1)) filter (where quantity = 'throughput') as held_out_median_abs_error,
           count(*) filter (where quantity = 'throughput') as held_out_figures,
           median(abs(expected / measured - 1)) filter (where quantity = 'per_user')
               as per_user_held_out_median_abs_error,
           count(*) filter (where quantity = 'per_user') as per_user_held_out_figures,
           median(abs(expected / measured - 1)) filter (where quantity = 'ttft') as ttft_held_out_median_abs_error,
           count(*) filter (where quantity = 'ttft') as ttft_held_out_figures,
           median(abs(expected_without_publication / measured - 1)) filter (where quantity = 'throughput')
               as publication_held_out_median_abs_error,
           median(abs(expected_without_publication / measured - 1)) filter (where quantity = 'per_user')
               as per_user_publication_held_out_median_abs_error,
           median(abs(expected_without_publication / measured - 1)) filter (where quantity = 'ttft')
               as ttft_publication_held_out_median_abs_error,
           count(distinct source_id) as publications
    from figures
    group by grouping sets ((engine_family, model_kind), (engine_family, model_kind, architecture))
),

families as (
    select engine_family, model_kind, label || case model_kind when 'moe' then ', mixture-of-experts models'
                                                              else ', dense models' end as label
    from (values ('vllm-sglang', 'vLLM and SGLang'), ('tensorrt-llm', 'TensorRT-LLM')) as t(engine_family, label)
    cross join (values ('dense'), ('moe')) as k(model_kind)
)

select
    fa.engine_family,
    fa.model_kind,
    f.architecture,
    fa.label,
    coalesce(f.decode_efficiency, param('serving_decode_efficiency_default')) as decode_efficiency,
    coalesce(f.compute_efficiency, param('serving_compute_efficiency_default')) as compute_efficiency,
    coalesce(f.step_overhead_us, 0) as step_overhead_us,
    coalesce(f.sequence_overhead_us, 0) as sequence_overhead_us,
    coalesce(f.comm_efficiency, 1) as comm_efficiency,
    coalesce(f.first_token_overhead_ms, 0) as first_token_overhead_ms,
    coalesce(f.first_token_figures, 0) as first_token_figures,
    f.engine_family is not null as calibrated,
    coalesce(f.measurements, 0) as measurements,
    coalesce(f.gpus, 0) as gpus_measured,
    coalesce(e.publications, 0) as publications,
    e.held_out_median_abs_error,
    e.held_out_figures,
    e.per_user_held_out_median_abs_error,
    e.per_user_held_out_figures,
    e.ttft_held_out_median_abs_error,
    e.ttft_held_out_figures,
    e.publication_held_out_median_abs_error,
    e.per_user_publication_held_out_median_abs_error,
    e.ttft_publication_held_out_median_abs_error
from families as fa
left join fits as f using (engine_family, model_kind)
left join errs as e
    on e.engine_family = fa.engine_family and e.model_kind = fa.model_kind
    and e.architecture is not distinct from f.architecture
