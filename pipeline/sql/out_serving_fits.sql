-- The serving expectation's two efficiencies per engine family, fitted on the published throughput
-- measurements (out_serving_bounds: maximum-throughput and fixed-concurrency runs, no speculative decoding):
-- the share of peak bandwidth a decode step streams at (decode_efficiency) and the share of dense peak a
-- prefill reaches (prefill_efficiency), the pair on a grid of 0.02 that minimises the squared log error of
-- expected against measured output tokens per second per GPU. Fitted once on all of a family's GPUs
-- (held_out_gpu_id NULL) and once without each GPU (leave one GPU out), so that every measured figure has an
-- expectation that did not see its GPU.
with obs as (
    select * from out_serving_bounds
    where quantity = 'throughput' and scenario in ('max_throughput', 'concurrency') and not speculative_decoding
        and engine_family <> 'other'
),

grid as (
    select e_bw, e_fl
    from range(30, 101, 2) as a(bw), range(20, 101, 2) as b(fl),
         lateral (select bw / 100.0 as e_bw, fl / 100.0 as e_fl)
),

held as (
    select distinct engine_family, gpu_id as held_out_gpu_id from obs
    union all
    select distinct engine_family, null from obs
),

errors as (
    select
        h.engine_family, h.held_out_gpu_id, gr.e_bw, gr.e_fl,
        sum(pow(ln(least(o.bound,
            o.output_tokens * serve_requests_per_s(o.u_expected, o.output_tokens,
                serve_step_s(o.read_gb_expected, o.u_expected, o.active_params_b, o.gpus_per_replica,
                             o.memory_bandwidth_gbs, o.compute_tflops, gr.e_bw, gr.e_fl) + o.comm_s,
                serve_prefill_s(o.input_tokens, o.active_params_b, o.gpus_per_replica, o.compute_tflops, gr.e_fl))
            / o.gpus_per_replica) / o.measured), 2)) as squared_log_error,
        count(*) as measurements,
        count(distinct o.gpu_id) as gpus
    from held as h
    join obs as o on o.engine_family = h.engine_family and o.gpu_id is distinct from h.held_out_gpu_id
    cross join grid as gr
    group by all
)

-- the best pair; among equal errors the higher efficiencies (the faster expectation)
, best as (
    select engine_family, held_out_gpu_id,
           arg_min({'bw': e_bw, 'fl': e_fl, 'n': measurements, 'g': gpus}, [squared_log_error, -e_bw, -e_fl]) as b,
           min(squared_log_error) as squared_log_error
    from errors
    group by all
)

select engine_family, held_out_gpu_id, b.bw as decode_efficiency, b.fl as prefill_efficiency, squared_log_error,
       b.n as measurements, b.g as gpus
from best
