-- How far publications disagree with one another on the same deployment, beside how far the serving expectation is
-- from a publication it was not fitted on (out_serving_calibration's error held out by publication). A deployment is
-- the same when everything the serving model reads is: model, weight and cache formats, GPU, GPUs, tensor and
-- pipeline parallelism, engine, scenario, concurrency and mean lengths (to the token); the engine's release may
-- differ (the figures are of today's engines, the only ones fitted). Each publication's figure for it is the
-- geometric mean of its figures there; each pair of publications then disagrees by max(a / b, b / a) - 1. No
-- expectation is nearer to both figures of a pair than (1 - min / max) / 2 on average (least_error): where
-- publications disagree by 30%, an error of 12% is the floor, not a fault of the model. Figures scored as the
-- calibration scores them (per-user speeds and first tokens at a stated concurrency only). Beside them, the error left
-- in the shape of each sweep once its level is set aside (sweep_shape_error). One row per calibrated engine family,
-- model kind and quantity (the pair columns empty where no two publications measured one deployment).
-- the figures of today's engines, scored as the calibration scores them
with scored_figures as (
    select * from out_serving_estimates
    where scenario in ('max_throughput', 'concurrency') and not speculative_decoding and current_engine
        and (quantity = 'throughput' or scenario = 'concurrency') and engine_family <> 'other'
),

figures as (
    select engine_family, model_kind, quantity, source_id, model_id, format, coalesce(kv_format, '') as kv_format,
           gpu_id, gpu_count, tensor_parallel, pipeline_parallel, engine, scenario, coalesce(concurrency, -1) as concurrency,
           round(input_tokens) as input_tokens, round(output_tokens) as output_tokens,
           exp(avg(ln(measured))) as measured
    from scored_figures
    where measured > 0
    group by all
),

pairs as (
    select a.engine_family, a.model_kind, a.quantity, a.source_id as source_a, b.source_id as source_b,
           concat_ws('|', a.model_id, a.format, a.kv_format, a.gpu_id, a.gpu_count, a.tensor_parallel,
                     a.pipeline_parallel, a.engine, a.scenario, a.concurrency, a.input_tokens, a.output_tokens)
               as deployment,
           greatest(a.measured, b.measured) / least(a.measured, b.measured) - 1 as disagreement
    from figures as a
    join figures as b
        on b.engine_family = a.engine_family and b.model_kind = a.model_kind and b.quantity = a.quantity
        and b.model_id = a.model_id and b.format = a.format and b.kv_format = a.kv_format and b.gpu_id = a.gpu_id
        and b.gpu_count = a.gpu_count and b.tensor_parallel = a.tensor_parallel
        and b.pipeline_parallel = a.pipeline_parallel and b.engine = a.engine and b.scenario = a.scenario
        and b.concurrency = a.concurrency and b.input_tokens = a.input_tokens and b.output_tokens = a.output_tokens
        and b.source_id > a.source_id
),

-- the expectation's error on a publication it was not fitted on, and what is left of its error (fitted without the
-- figure's GPU) once each publication's figures of one GPU, model and weight format are given their own scale (the
-- median of their measured / expected): the error in the shape of a sweep across concurrency, lengths and
-- parallelism, its level aside
scored as (
    select engine_family, model_kind, quantity, measured, expected_without_publication,
           coalesce(expected_capped, expected_ttft) as expected,
           exp(median(ln(measured / coalesce(expected_capped, expected_ttft))) over (
               partition by engine_family, model_kind, quantity, source_id, gpu_id, model_id, format)) as own_scale
    from scored_figures
),

errors as (
    select engine_family, model_kind, quantity, count(*) as figures,
           median(abs(expected_without_publication / measured - 1)) as publication_held_out_median_abs_error,
           median(abs(expected * own_scale / measured - 1)) as sweep_shape_error
    from scored
    group by all
),

summary as (
    select engine_family, model_kind, quantity, count(distinct deployment) as deployments,
           count(distinct source_id) as publications, count(*) // 2 as pairs,
           median(disagreement) as median_disagreement
    -- each pair twice, once for each of its publications (the median is that of the pairs)
    from (select engine_family, model_kind, quantity, deployment, disagreement,
                 unnest([source_a, source_b]) as source_id
          from pairs)
    group by all
)

select e.engine_family, e.model_kind, e.quantity, e.figures,
       coalesce(s.deployments, 0) as deployments, coalesce(s.publications, 0) as publications,
       coalesce(s.pairs, 0) as pairs, s.median_disagreement,
       s.median_disagreement / (2 * (1 + s.median_disagreement)) as least_error,
       e.publication_held_out_median_abs_error, e.sweep_shape_error
from errors as e
left join summary as s using (engine_family, model_kind, quantity)
order by all
