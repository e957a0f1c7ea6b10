-- The serving expectation's two efficiencies per engine family and model kind (dense, or mixture of experts,
-- whose routed expert kernels run at a lower share of peak), fitted on the published throughput
-- measurements (out_serving_bounds: maximum-throughput and fixed-concurrency runs, no speculative decoding):
-- the share of peak bandwidth a decode step streams at (decode_efficiency) and the share of dense peak compute a
-- prefill, or a decode step held by compute, reaches (compute_efficiency): the pair on a grid of 0.02 that
-- minimises the sum of |log(expected / measured)| over the output tokens per second per GPU (absolute, not
-- squared: publications disagree by 3x on the same deployment, and an outlier should not steer the fit). Fitted once on all of a group's GPUs
-- (held_out_gpu_id NULL) and once without each GPU (leave one GPU out), so that every measured figure has an
-- expectation that did not see its GPU.
with obs as (
    select * from out_serving_bounds
    where quantity = 'throughput' and scenario in ('max_throughput', 'concurrency') and not speculative_decoding
        and engine_family <> 'other'
),

grid as (
    select e_bw, e_fl
    from range(4, 101, 2) as a(bw), range(4, 101, 2) as b(fl),
         lateral (select bw / 100.0 as e_bw, fl / 100.0 as e_fl)
),

held as (
    select distinct engine_family, model_kind, gpu_id as held_out_gpu_id from obs
    union all
    select distinct engine_family, model_kind, null from obs
),

errors as (
    select
        h.engine_family, h.model_kind, h.held_out_gpu_id, gr.e_bw, gr.e_fl,
        sum(abs(ln(least(o.bound,
            o.output_tokens * serve_requests_per_s(o.u_expected, o.output_tokens,
                serve_step_s(o.read_gb_expected, o.u_expected, o.active_params_b, o.gpus_per_replica,
                             o.memory_bandwidth_gbs, o.compute_tflops, gr.e_bw, gr.e_fl) + o.comm_s,
                serve_prefill_s(o.input_tokens, o.active_params_b, o.gpus_per_replica, o.compute_tflops, gr.e_fl))
            / o.gpus_per_replica) / o.measured))) as abs_log_error,
        count(*) as measurements,
        count(distinct o.gpu_id) as gpus
    from held as h
    join obs as o on o.engine_family = h.engine_family and o.model_kind = h.model_kind
        and o.gpu_id is distinct from h.held_out_gpu_id
    cross join grid as gr
    group by all
)

-- the best pair; among equal errors the higher efficiencies (the faster expectation)
, best as (
    select engine_family, model_kind, held_out_gpu_id,
           arg_min({'bw': e_bw, 'fl': e_fl, 'n': measurements, 'g': gpus}, [abs_log_error, -e_bw, -e_fl]) as b,
           min(abs_log_error) as abs_log_error
    from errors
    group by all
)

select engine_family, model_kind, held_out_gpu_id, b.bw as decode_efficiency, b.fl as compute_efficiency, abs_log_error,
       b.n as measurements, b.g as gpus
from best
