-- The serving expectation's efficiencies per engine family and model kind (dense or mixture of experts; fitted on all of the family's published
-- throughput measurements, out_serving_fits), with how well they predict: the median |expected / measured - 1|
-- of each figure from the fit without its GPU (held out), and of the fit on all. The Planner uses these; an
-- engine family without measurements uses the defaults in parameters.
with fits as (
    select * from out_serving_fits where held_out_gpu_id is null
),

errs as (
    select engine_family, model_kind,
           median(abs(expected / measured - 1)) as held_out_median_abs_error,
           count(*) as held_out_figures
    from (select engine_family, model_kind, measured, coalesce(expected_capped, expected_ttft) as expected
          from out_serving_estimates
          where quantity = 'throughput' and scenario in ('max_throughput', 'concurrency') and not speculative_decoding)
    group by all
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
    fa.label,
    coalesce(f.decode_efficiency, param('serving_decode_efficiency_default')) as decode_efficiency,
    coalesce(f.compute_efficiency, param('serving_compute_efficiency_default')) as compute_efficiency,
    coalesce(f.sequence_overhead_us, 0) as sequence_overhead_us,
    f.engine_family is not null as calibrated,
    coalesce(f.measurements, 0) as measurements,
    coalesce(f.gpus, 0) as gpus_measured,
    e.held_out_median_abs_error,
    e.held_out_figures
from families as fa
left join fits as f using (engine_family, model_kind)
left join errs as e using (engine_family, model_kind)
