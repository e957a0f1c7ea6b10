-- The serving expectation per engine family and model kind (dense, or mixture of experts, whose routed expert
-- kernels run at a lower share of peak), fitted on the published measurements (out_serving_bounds:
-- maximum-throughput and fixed-concurrency runs, no speculative decoding; output tokens per second per GPU and per
-- user): the share of peak bandwidth a step streams at (decode_efficiency), the share of dense peak its compute
-- reaches (compute_efficiency, decode and chunked prefill alike), a fixed time per step (step_overhead_us:
-- scheduling, kernel launches) and per sequence (sequence_overhead_us), in serve_expected_step_s, and the share of
-- the GPU links' bandwidth a tensor-parallel all-reduce reaches (comm_efficiency, serve_comm_s). Each is searched on
-- a grid inside its physical range: bandwidth 30% to 90% of peak, compute 20% to 85% of dense peak, overheads from
-- 0, links 25% to 100%; the point that minimises the sum of |log(expected / measured)| (absolute, not squared:
-- publications disagree by 3x on the same deployment, and one should not steer the fit).
-- Fitted once on all of a group's figures (held_out_gpu_id and held_out_source_id NULL), once without each GPU and
-- once without each publication, so that every measured figure has expectations that did not see its GPU, nor its
-- publication.
-- Then per architecture generation (Hopper, Blackwell, CDNA 3, ...: each has its own kernels and its engines' own
-- maturity): with the group's overheads of the same fit, the two shares are searched again on that architecture's
-- figures alone, where they come from at least serving_architecture_min_publications publications and
-- serving_architecture_min_gpus GPUs (an architecture's effect, not one GPU's or one setup's; architecture NULL: the
-- group's fit, which every other architecture uses). A GPU held out leaves its architecture's fit to its
-- siblings; a GPU alone in its architecture is expected from the group's fit, as a new architecture would be.
with obs as (
    select * from out_serving_bounds
    where quantity in ('throughput', 'per_user') and scenario in ('max_throughput', 'concurrency')
        and not speculative_decoding and engine_family <> 'other' and current_engine
),

grid as (
    select e_bw, e_fl, step_us, seq_us, e_comm
    from range(30, 91, 5) as a(bw), range(20, 86, 5) as b(fl),
         (values (0), (250), (500), (1000), (2000), (4000), (8000)) as s(step_us),
         (values (0), (10), (20), (40), (80), (160)) as c(seq_us),
         (values (25), (35), (50), (70), (100)) as m(comm),
         lateral (select bw / 100.0 as e_bw, fl / 100.0 as e_fl, comm / 100.0 as e_comm)
),

-- each (GPU, publication) cell's error at every grid point, computed once; a fit without a GPU or a publication is
-- then the group's total less that GPU's or publication's cells (the serving model is evaluated once per
-- observation and grid point, not once per held-out set as well). Errors are rounded to 1e-9 so that grid points
-- whose errors are equal stay equal whatever the summing order.
-- A figure of one GPU per stage sends no all-reduce: it is evaluated at one share of the links and counted at every
-- share.
figure_cells as (
    select
        o.engine_family, o.model_kind, o.gpu_id, o.source_id, gr.e_bw, gr.e_fl, gr.step_us, gr.seq_us, gr.e_comm,
        o.tensor_parallel = 1 as sends_nothing,
        sum(abs(ln(least(o.bound,
            (case o.quantity when 'throughput' then o.u_expected / o.gpus_per_replica else 1 end)
            / serve_expected_step_s(o.read_gb_expected, o.kv_read_gb_expected, o.u_expected, o.input_tokens, o.output_tokens,
                                    o.active_params_b, o.gpus_per_replica, o.memory_bandwidth_gbs, o.compute_tflops,
                                    gr.e_bw, gr.e_fl, gr.step_us, gr.seq_us,
                                    serve_comm_s(o.tensor_parallel, o.layers, o.allreduce_us, o.comm_tokens,
                                                 o.hidden_size, o.link_gbs, gr.e_comm),
                                    o.attention_step_gflop, o.attention_tflops, o.overhead_scale))
            / o.measured))) as abs_log_error,
        count(*) as measurements
    from obs as o
    cross join grid as gr
    where o.tensor_parallel > 1 or gr.e_comm = 1
    group by all
),

cells as (
    select c.engine_family, c.model_kind, c.gpu_id, c.source_id, c.e_bw, c.e_fl, c.step_us, c.seq_us, m.e_comm,
           sum(c.abs_log_error) as abs_log_error, sum(c.measurements) as measurements
    from figure_cells as c
    join (select distinct e_comm from grid) as m on m.e_comm = c.e_comm or c.sends_nothing
    group by all
),

-- every publication weighs the same in its group, however many figures it prints (one sweep of 600 figures must not
-- outvote ten publications of ten figures)
weighted as (
    select c.* replace (c.abs_log_error / n.measurements as abs_log_error)
    from cells as c
    join (select engine_family, model_kind, source_id, count(*) as measurements from obs group by all) as n
        using (engine_family, model_kind, source_id)
),

totals as (
    select engine_family, model_kind, e_bw, e_fl, step_us, seq_us, e_comm, sum(abs_log_error) as abs_log_error,
           sum(measurements) as measurements, count(distinct gpu_id) as gpus
    from weighted
    group by all
),

held_out as (
    select engine_family, model_kind, 'gpu' as held_out_kind, gpu_id as held_out, e_bw, e_fl, step_us, seq_us, e_comm,
           sum(abs_log_error) as abs_log_error, sum(measurements) as measurements
    from weighted group by all
    union all
    select engine_family, model_kind, 'source', source_id, e_bw, e_fl, step_us, seq_us, e_comm,
           sum(abs_log_error), sum(measurements)
    from weighted group by all
),

errors as (
    select engine_family, model_kind, null::varchar as held_out_kind, null::varchar as held_out, e_bw, e_fl, step_us,
           seq_us, e_comm, round(abs_log_error, 9) as abs_log_error, measurements, gpus
    from totals
    union all
    select h.engine_family, h.model_kind, h.held_out_kind, h.held_out, h.e_bw, h.e_fl, h.step_us, h.seq_us, h.e_comm,
           round(t.abs_log_error - h.abs_log_error, 9), t.measurements - h.measurements,
           t.gpus - (h.held_out_kind = 'gpu')::integer
    from held_out as h
    join totals as t using (engine_family, model_kind, e_bw, e_fl, step_us, seq_us, e_comm)
    where t.measurements > h.measurements
)

-- the best point; among equal errors the smallest overheads and the higher efficiencies (the faster expectation)
, best as (
    select engine_family, model_kind, held_out_kind, held_out,
           arg_min({'bw': e_bw, 'fl': e_fl, 's': step_us, 'c': seq_us, 'm': e_comm, 'n': measurements, 'g': gpus},
                   [abs_log_error, step_us, seq_us, -e_bw, -e_fl, -e_comm]) as b,
           min(abs_log_error) as abs_log_error
    from errors
    group by all
)


, fitted as (
    select engine_family, model_kind, null::varchar as architecture,
           case when held_out_kind = 'gpu' then held_out end as held_out_gpu_id,
           case when held_out_kind = 'source' then held_out end as held_out_source_id,
           b.bw as decode_efficiency, b.fl as compute_efficiency, b.s as step_overhead_us, b.c as sequence_overhead_us,
           b.m as comm_efficiency, abs_log_error, b.n as measurements, b.g as gpus
    from best
),

-- the architecture stage: every figure's error at each (bandwidth, compute) point of the grid with each set of
-- overheads a fit chose, summed per (GPU, publication) cell once; a fit then takes the cells of its architectures (a
-- GPU held out: its own architecture only; a publication held out: those it measured) but the held-out ones
arch_cells as (
    select ov.engine_family, ov.model_kind, ov.step_overhead_us, ov.sequence_overhead_us, ov.comm_efficiency,
           o.architecture, o.gpu_id, o.source_id, gr.e_bw, gr.e_fl,
           sum(abs(ln(least(o.bound,
               (case o.quantity when 'throughput' then o.u_expected / o.gpus_per_replica else 1 end)
               / serve_expected_step_s(o.read_gb_expected, o.kv_read_gb_expected, o.u_expected, o.input_tokens,
                                       o.output_tokens, o.active_params_b, o.gpus_per_replica, o.memory_bandwidth_gbs,
                                       o.compute_tflops, gr.e_bw, gr.e_fl, ov.step_overhead_us, ov.sequence_overhead_us,
                                       serve_comm_s(o.tensor_parallel, o.layers, o.allreduce_us, o.comm_tokens,
                                                    o.hidden_size, o.link_gbs, ov.comm_efficiency),
                                       o.attention_step_gflop, o.attention_tflops, o.overhead_scale))
               / o.measured))) as abs_log_error,
           count(*) as measurements
    from (select distinct engine_family, model_kind, step_overhead_us, sequence_overhead_us, comm_efficiency
          from fitted) as ov
    join obs as o on o.engine_family = ov.engine_family and o.model_kind = ov.model_kind
    cross join (select distinct e_bw, e_fl from grid) as gr
    group by all
),

-- every publication weighs the same, as in the group's fit
arch_totals as (
    select engine_family, model_kind, architecture, held_out_gpu_id, held_out_source_id, e_bw, e_fl,
           any_value(step_overhead_us) as step_overhead_us, any_value(sequence_overhead_us) as sequence_overhead_us,
           any_value(comm_efficiency) as comm_efficiency,
           round(sum(abs_log_error / n), 9) as abs_log_error, sum(measurements) as measurements,
           count(distinct gpu_id) as gpus, count(distinct source_id) as publications
    from (select f.engine_family, f.model_kind, f.held_out_gpu_id, f.held_out_source_id, f.step_overhead_us,
                 f.sequence_overhead_us, f.comm_efficiency, c.architecture, c.gpu_id, c.source_id, c.e_bw, c.e_fl,
                 c.abs_log_error, c.measurements,
                 sum(c.measurements) over (partition by f.engine_family, f.model_kind, f.held_out_gpu_id,
                                           f.held_out_source_id, c.architecture, c.source_id, c.e_bw, c.e_fl) as n
          from fitted as f
          join arch_cells as c
              on c.engine_family = f.engine_family and c.model_kind = f.model_kind
              and c.step_overhead_us = f.step_overhead_us and c.sequence_overhead_us = f.sequence_overhead_us
              and c.comm_efficiency = f.comm_efficiency
              and c.gpu_id is distinct from f.held_out_gpu_id and c.source_id is distinct from f.held_out_source_id
          where (f.held_out_gpu_id is null or c.architecture = (select any_value(architecture) from obs
                                                                where gpu_id = f.held_out_gpu_id))
            and (f.held_out_source_id is null or c.architecture in (select architecture from obs
                                                                    where source_id = f.held_out_source_id)))
    group by all
),

arch_fitted as (
    select engine_family, model_kind, architecture, held_out_gpu_id, held_out_source_id,
           b.bw as decode_efficiency, b.fl as compute_efficiency, b.s as step_overhead_us,
           b.c as sequence_overhead_us, b.m as comm_efficiency, abs_log_error, b.n as measurements, b.g as gpus
    from (select engine_family, model_kind, architecture, held_out_gpu_id, held_out_source_id,
                 arg_min({'bw': e_bw, 'fl': e_fl, 's': step_overhead_us, 'c': sequence_overhead_us,
                          'm': comm_efficiency, 'n': measurements, 'g': gpus}, [abs_log_error, -e_bw, -e_fl]) as b,
                 min(abs_log_error) as abs_log_error, max(publications) as publications
          from arch_totals group by all)
    where publications >= param('serving_architecture_min_publications')
        and b.g >= param('serving_architecture_min_gpus')
),

-- the fixed part of the time to first token (the request's scheduling, tokenisation, the first kernels): the median
-- of what published times to first token at low concurrency (no queue) take beyond the prefill, its all-reduces and one
-- step at the fit's efficiencies (serve_first_token_s), each fit without the GPU or the publication it holds out; never
-- below 0
first_token as (
    select f.engine_family, f.model_kind, f.held_out_gpu_id, f.held_out_source_id,
           greatest(0, median(o.measured - serve_first_token_s(
               serve_prefill_s(o.input_tokens, o.active_params_b, o.gpus_per_replica, o.compute_tflops,
                               coalesce(a.compute_efficiency, f.compute_efficiency), o.prefill_read_gb,
                               o.memory_bandwidth_gbs, coalesce(a.decode_efficiency, f.decode_efficiency),
                               o.attention_prefill_gflop, o.attention_tflops),
               serve_expected_step_s(o.read_gb_expected, o.kv_read_gb_expected, o.u_expected, o.input_tokens,
                                     o.output_tokens, o.active_params_b, o.gpus_per_replica, o.memory_bandwidth_gbs,
                                     o.compute_tflops, coalesce(a.decode_efficiency, f.decode_efficiency),
                                     coalesce(a.compute_efficiency, f.compute_efficiency), f.step_overhead_us,
                                     f.sequence_overhead_us,
                                     serve_comm_s(o.tensor_parallel, o.layers, o.allreduce_us, o.comm_tokens,
                                                  o.hidden_size, o.link_gbs, f.comm_efficiency),
                                     o.attention_step_gflop, o.attention_tflops, o.overhead_scale),
               0, o.tensor_parallel, o.layers, o.allreduce_us, o.input_tokens / o.pipeline_parallel, o.hidden_size,
               o.link_gbs)))
               * 1000 as first_token_overhead_ms,
           count(*) as first_token_figures
    from fitted as f
    join out_serving_bounds as o
        on o.engine_family = f.engine_family and o.model_kind = f.model_kind
        and o.quantity = 'ttft' and o.scenario = 'concurrency' and not o.speculative_decoding and o.current_engine
        and o.concurrency_per_replica <= param('first_token_fit_max_concurrency')
        and o.gpu_id is distinct from f.held_out_gpu_id and o.source_id is distinct from f.held_out_source_id
    -- each figure at its architecture's shares where the same fit has them
    left join arch_fitted as a
        on a.engine_family = f.engine_family and a.model_kind = f.model_kind and a.architecture = o.architecture
        and a.held_out_gpu_id is not distinct from f.held_out_gpu_id
        and a.held_out_source_id is not distinct from f.held_out_source_id
    group by all
)

select f.*, coalesce(t.first_token_overhead_ms, 0) as first_token_overhead_ms,
       coalesce(t.first_token_figures, 0) as first_token_figures
from (select * from fitted union all by name select * from arch_fitted) as f
left join first_token as t
    on t.engine_family = f.engine_family and t.model_kind = f.model_kind
    and t.held_out_gpu_id is not distinct from f.held_out_gpu_id
    and t.held_out_source_id is not distinct from f.held_out_source_id
