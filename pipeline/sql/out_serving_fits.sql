-- The serving expectation per engine family and model kind (dense, or mixture of experts, whose routed expert
-- kernels run at a lower share of peak), fitted on the published throughput measurements (out_serving_bounds:
-- maximum-throughput and fixed-concurrency runs, no speculative decoding): the share of peak bandwidth a decode
-- step streams at (decode_efficiency), the share of dense peak compute a decode step held by compute reaches
-- (compute_efficiency; prefill runs at prefill_mfu) and a fixed time each sequence adds to a step
-- (sequence_overhead_us: scheduling, sampling, the attention kernels' own cost): the triple on a grid (0.05 steps;
-- 0 to 320 us) that minimises the sum of |log(expected / measured)| over output tokens per second per GPU
-- (absolute, not squared: publications disagree by 3x on the same deployment, and one should not steer the fit).
-- Fitted once on all of a group's GPUs (held_out_gpu_id NULL) and once without each GPU (leave one GPU out), so
-- that every measured figure has an expectation that did not see its GPU.
with obs as (
    select * from out_serving_bounds
    where quantity = 'throughput' and scenario in ('max_throughput', 'concurrency') and not speculative_decoding
        and engine_family <> 'other'
),

grid as (
    select e_bw, e_fl, c_us
    from range(10, 101, 5) as a(bw), range(5, 101, 5) as b(fl),
         (values (0), (10), (20), (40), (80), (160), (320)) as c(c_us),
         lateral (select bw / 100.0 as e_bw, fl / 100.0 as e_fl)
),

-- each GPU's error at every grid point, computed once; a fit without a GPU is then the group's total less that GPU's
-- share (evaluating the serving model once per observation and grid point, not once per held-out set as well).
-- Errors are rounded to 1e-9 so that grid points whose errors are equal stay equal whatever the summing order.
per_gpu as (
    select
        o.engine_family, o.model_kind, o.gpu_id, gr.e_bw, gr.e_fl, gr.c_us,
        sum(abs(ln(least(o.bound,
            o.output_tokens * serve_requests_per_s(o.u_expected, o.output_tokens,
                serve_step_s(o.read_gb_expected, o.u_expected, o.active_params_b, o.gpus_per_replica,
                             o.memory_bandwidth_gbs, o.compute_tflops, gr.e_bw, gr.e_fl)
                    + o.u_expected * gr.c_us / 1e6 + o.comm_s,
                serve_prefill_s(o.input_tokens, o.active_params_b, o.gpus_per_replica, o.compute_tflops,
                                param('prefill_mfu')))
            / o.gpus_per_replica) / o.measured))) as abs_log_error,
        count(*) as measurements
    from obs as o
    cross join grid as gr
    group by all
),

totals as (
    select engine_family, model_kind, e_bw, e_fl, c_us, sum(abs_log_error) as abs_log_error,
           sum(measurements) as measurements, count(*) as gpus
    from per_gpu
    group by all
),

errors as (
    select engine_family, model_kind, null::varchar as held_out_gpu_id, e_bw, e_fl, c_us,
           round(abs_log_error, 9) as abs_log_error, measurements, gpus
    from totals
    union all
    select p.engine_family, p.model_kind, p.gpu_id, p.e_bw, p.e_fl, p.c_us,
           round(t.abs_log_error - p.abs_log_error, 9), t.measurements - p.measurements, t.gpus - 1
    from per_gpu as p
    join totals as t using (engine_family, model_kind, e_bw, e_fl, c_us)
    where t.measurements > p.measurements
)

-- the best triple; among equal errors the smallest overhead and the higher efficiencies (the faster expectation)
, best as (
    select engine_family, model_kind, held_out_gpu_id,
           arg_min({'bw': e_bw, 'fl': e_fl, 'c': c_us, 'n': measurements, 'g': gpus}, [abs_log_error, c_us, -e_bw, -e_fl])
               as b,
           min(abs_log_error) as abs_log_error
    from errors
    group by all
)

select engine_family, model_kind, held_out_gpu_id, b.bw as decode_efficiency, b.fl as compute_efficiency,
       b.c as sequence_overhead_us, abs_log_error,
       b.n as measurements, b.g as gpus
from best
