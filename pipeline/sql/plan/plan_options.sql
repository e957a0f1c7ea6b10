-- Planner: ranked deployment options for each row of `plan_scenarios` (model_id, workload, precision,
-- kv_precision, context_tokens, users, input_tokens, output_tokens, tokens, tier, engine_family,
-- min_tokens_per_user, max_ttft_s; a NULL tier means every tier; machine_id and tensor_parallel, when set, keep
-- that machine and split only: an option's load curve). Reads only public views (serving_models, serving_gpus,
-- rentable_machines, serving_calibration, serving_model_levels, vram_fit, models, parameters); the Planner's page
-- runs this same text in the browser (DuckDB-WASM) over the same views' rows (api/v1/plan/tables/).
--
-- workload 'serve': k identical machines of one offer (rentable_machines: one host of instance_gpus GPUs; k from 1 to
--   64, behind a load balancer: no interconnect between them), each split into replicas of d GPUs (tensor
--   parallel: d in 1, 2, 4, 8, dividing the attention heads and the machine's GPUs; no more replicas than users);
--   where the provider sells the offering as a cluster (rentable_machines.cluster_network: a scale-out fabric
--   between machines), a replica may also span p = 2 or 4 whole machines, tensor parallel within each and p pipeline
--   stages across them (as published pipeline-parallel figures are expected: p micro-batches a step, each GPU
--   reading its weights once per micro-batch; the stages hand on activations over the fabric, not counted);
--   the users are shared evenly by the k x instance_gpus / (d x p) replicas.
--   Memory per GPU: weights + a cache reserved for max(each user's input + output tokens, one sequence at the
--   full context) + the runtime overhead (serve_per_gpu_gb). Speeds from the serving model
--   (pipeline/sql/macros/serving.sql: continuous batching with chunked prefill, serve_expected_step_s) with the
--   efficiencies and overheads calibrated for the engine family and the model's kind (dense or mixture of
--   experts: serving_calibration), the step time divided by the model's measured level where its own figures with
--   the engine family and weights give one (serving_model_levels); the bound at 100% of peak. Of a machine's
--   fitting splits that meet the targets, the one with the most throughput. The machine's hour is split between
--   input and output tokens by the time each takes in a step (serve_prefill_share): the prompt tokens' compute buys
--   the input tokens, the rest the output tokens. Ranked by $ per million tokens at the stated input:output ratio
--   (equivalently, $ per request).
-- workload 'full' | 'lora' | 'qlora' | 'pretrain': fine-tune or pre-train on `tokens` tokens on one machine,
--   every GPU of it sharding the model (vram_fit at the machine's GPU count: full and pretrain with selective
--   recomputation, LoRA/QLoRA without recomputation where the machine holds the activations, else with full);
--   tokens/s = GPUs x dense 16-bit TFLOPS x the GPU's training utilisation (training_calibration: its published
--   runs, or the line fitted on the measured GPUs) / (FLOPs per parameter per token x active params)
--   (macros/training.sql, as the training estimates); $ per job = hours x the machine's $/hour.
with sc as (select *, row_number() over () as scenario_id from plan_scenarios),

p as (
    select
        max(try_cast(value as double)) filter (where name = 'pretrain_tokens_per_param') as pretrain_tokens_per_param,
        max(try_cast(value as double)) filter (where name = 'runtime_overhead_gb') as fixed_gb,
        max(try_cast(value as double)) filter (where name = 'runtime_overhead_fraction') as overhead_fraction,
        max(try_cast(value as double)) filter (where name = 'bytes_bf16') as bytes_bf16,
        max(try_cast(value as double)) filter (where name = 'bytes_fp8') as bytes_fp8
    from parameters
),

degrees as (select unnest([1, 2, 4, 8]) as d),

-- machines one replica spans: one, or several of an offering sold as a cluster (pipeline stages across them)
stages as (select unnest([1, 2, 4]) as p),

-- how many identical machines a deployment rents (more machines: more replicas, fewer users each, faster)
fleet as (select unnest([1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64]) as k),

serve_cases as (
    select
        s.scenario_id, s.model_id, s.workload, s.precision, s.kv_precision, s.context_tokens, s.users,
        s.input_tokens, s.output_tokens, s.tokens, s.tier, s.engine_family, s.min_tokens_per_user, s.max_ttft_s,
        mo.name as model_name, mo.layers, serve_overhead_scale(mo.is_moe, mo.layers) as overhead_scale, mo.hidden_size,
        mo.active_params_b, mo.weights_gb, mo.dense_read_gb, mo.expert_gb,
        mo.moe_layers, mo.num_experts, mo.experts_per_token, mo.kv_values_per_token_full,
        mo.kv_values_per_token_window, mo.sliding_window, mo.state_values_per_sequence, mo.mla, mo.kv_heads,
        mo.attention_flops_full, mo.prefill_attention_flops_full, mo.attention_flops_window, mo.attention_topk,
        m.machine_id, m.provider, m.offering, m.gpu_id, m.instance_gpus, m.usd_per_hour, m.usd_per_gpu_hour,
        m.pricing_tier, m.statistic, m.price_kind, m.region, m.observed_on, m.observed_date_known,
        m.observed_no_later_than, g.name as gpu_name, g.usable_gb_per_gpu, g.memory_bandwidth_gbs,
        serve_allreduce_us(dg.d, g.allreduce_us, g.link_gpus) as allreduce_us,
        serve_link_gbs(dg.d, g.link_gbs, g.link_gpus, g.pcie_link_gbs) as link_gbs,
        -- tensor parallelism over a bridged card's NVLink bridge: a listing rarely says whether its cards are bridged
        dg.d > 1 and g.link_gpus is not null and serve_link_joins(dg.d, g.link_gpus) as over_bridge,
        g.serving_figures,
        serve_compute_tflops(mo.native_compute, g.bf16_compute_tflops, g.fp8_compute_tflops, g.fp4_compute_tflops)
            as compute_tflops,
        serve_attention_tflops(s.kv_precision, g.bf16_compute_tflops, g.fp8_compute_tflops) as attention_tflops,
        case when mo.native_compute = 'bf16' and mo.resolved_format = 'bf16' and g.no_bf16_units
             then '16-bit as FP16 (no BF16 units)'
             else serve_compute_mode(mo.resolved_format, mo.native_compute, g.fp8_compute_tflops, g.fp4_compute_tflops)
        end as compute_mode,
        -- the GPU's architecture's own shares where the engine family has them, else the family's
        coalesce(ca.decode_efficiency, c.decode_efficiency) as decode_efficiency,
        coalesce(ca.compute_efficiency, c.compute_efficiency) as compute_efficiency,
        ca.architecture is not null as architecture_fitted,
        -- how far the expectation has been from published figures it did not see (the calibration's median
        -- |expected / measured - 1| held out by publication): the architecture's where it has shares of its own
        coalesce(ca.publication_held_out_median_abs_error, c.publication_held_out_median_abs_error)
            as expected_throughput_error,
        coalesce(ca.per_user_publication_held_out_median_abs_error, c.per_user_publication_held_out_median_abs_error)
            as expected_per_user_error,
        coalesce(ca.ttft_publication_held_out_median_abs_error, c.ttft_publication_held_out_median_abs_error)
            as expected_ttft_error,
        c.step_overhead_us, c.sequence_overhead_us, c.comm_efficiency, c.first_token_overhead_ms,
        -- how fast the engine family runs this model, measured: its own figures' level (serving_model_levels)
        ml.level as model_level, ml.figures as model_level_figures,
        case s.kv_precision when 'fp8' then p.bytes_fp8 else p.bytes_bf16 end as kv_bytes,
        p.fixed_gb, p.overhead_fraction,
        dg.d,
        st.p,
        dg.d * st.p as gpr,
        m.cluster_network, m.cluster_network_gbps,
        fl.k,
        fl.k * (m.instance_gpus // dg.d) // st.p as replicas,
        s.users / (fl.k * (m.instance_gpus // dg.d) // st.p) as u
    from sc as s
    join serving_models as mo on mo.model_id = s.model_id and mo.format = s.precision
    join rentable_machines as m on (s.tier is null or m.pricing_tier = s.tier)
    join serving_gpus as g on g.gpu_id = m.gpu_id
    join serving_calibration as c on c.engine_family = s.engine_family
        and c.model_kind = case when mo.is_moe then 'moe' else 'dense' end and c.architecture is null
    left join serving_calibration as ca on ca.engine_family = c.engine_family and ca.model_kind = c.model_kind
        and ca.architecture = g.architecture
    left join serving_model_levels as ml on ml.engine_family = s.engine_family and ml.model_id = s.model_id
        and ml.weights = serve_weight_class(mo.resolved_format)
    cross join degrees as dg
    cross join stages as st
    cross join fleet as fl
    cross join p
    where s.workload = 'serve'
        and m.instance_gpus % dg.d = 0 and mo.attention_heads % dg.d = 0
        -- a replica spans whole machines of a cluster, tensor parallel over each one's GPUs
        and (st.p = 1 or (m.cluster_network is not null and dg.d = m.instance_gpus and fl.k % st.p = 0
                          and mo.layers >= st.p))
        and fl.k * (m.instance_gpus // dg.d) // st.p <= s.users
        and (s.pipeline_parallel is null or st.p = s.pipeline_parallel)
        and (s.machines is null or fl.k = s.machines)
        and (s.machine_id is null or m.machine_id = s.machine_id)
        and (s.tensor_parallel is null or dg.d = s.tensor_parallel)
        and (s.engine_family <> 'tensorrt-llm' or g.vendor = 'nvidia')
        and list_contains(g.engine_formats, mo.resolved_format)  -- an engine runs this format on this GPU
),

serve_memory as (
    select
        *,
        serve_kv_replication(mla, kv_heads, d) as replication,
        greatest(ceil(u) * serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence, kv_bytes,
                                       input_tokens + output_tokens),
                 serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence, kv_bytes,
                             context_tokens)) as kv_reserved_gb,
        serve_kv_gb(kv_values_per_token_full, kv_values_per_token_window, sliding_window, state_values_per_sequence, kv_bytes,
                    input_tokens + output_tokens / 2) as kv_mean_gb
    from serve_cases
),

serve_fit as (
    select
        *,
        serve_per_gpu_gb(weights_gb, kv_reserved_gb, replication, gpr, fixed_gb, overhead_fraction)
            as per_gpu_required_gb,
        -- p stages run p micro-batches of u / p sequences: a GPU reads its weights (and the experts a micro-batch
        -- touches) once per micro-batch, and each cache once (as out_serving_bounds)
        p * serve_step_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, u / p, kv_mean_gb,
                               replication) as read_gb,
        serve_kv_read_gb(u, kv_mean_gb, replication) as kv_read_gb,
        serve_prefill_read_gb(dense_read_gb, expert_gb, moe_layers, num_experts, experts_per_token, input_tokens)
            as prefill_read_gb,
        -- attention compute (as out_serving_bounds): a sequence's step at the mean context with its share of the
        -- arriving prompts, and one prompt's prefill
        serve_step_attention_gflop(attention_flops_full, prefill_attention_flops_full, attention_flops_window,
                                   sliding_window, attention_topk, input_tokens, output_tokens) as attention_step_gflop,
        serve_prefill_attention_gflop(prefill_attention_flops_full, attention_flops_window, sliding_window,
                                      attention_topk, input_tokens) as attention_prefill_gflop,
        serve_comm_s(d, layers, allreduce_us, u * (1 + input_tokens / output_tokens) / p, hidden_size, link_gbs,
                     comm_efficiency) as comm_s
    from serve_memory
),

serve_timed as (
    select
        *,
        serve_expected_step_s(read_gb, kv_read_gb, u, input_tokens, output_tokens, active_params_b, gpr,
                              memory_bandwidth_gbs, compute_tflops, decode_efficiency, compute_efficiency,
                              step_overhead_us, sequence_overhead_us, comm_s, attention_step_gflop, attention_tflops,
                              overhead_scale) / coalesce(model_level, 1) as step_s,
        serve_prefill_s(input_tokens, active_params_b, gpr, compute_tflops, compute_efficiency, prefill_read_gb,
                        memory_bandwidth_gbs, decode_efficiency, attention_prefill_gflop, attention_tflops) as prefill_s,
        serve_step_s(read_gb, u, active_params_b, gpr, memory_bandwidth_gbs, compute_tflops, 1, 1) as bound_step_s,
        serve_prefill_s(input_tokens, active_params_b, gpr, compute_tflops, 1, prefill_read_gb, memory_bandwidth_gbs, 1,
                        0, attention_tflops)
            as bound_prefill_s,
        serve_bound_request_s(input_tokens, output_tokens, u, active_params_b, gpr, compute_tflops,
                              memory_bandwidth_gbs, read_gb) as bound_request_s
    from serve_fit
    where per_gpu_required_gb <= usable_gb_per_gpu
),

serve_speeds as (
    select
        *,
        -- output tokens per second of the whole deployment (all replicas): expected (never above the bound), bound
        least(replicas * u / step_s, replicas * output_tokens / bound_request_s) as throughput_tokens_per_s,
        replicas * output_tokens / bound_request_s as bound_throughput_tokens_per_s,
        least(1 / step_s, 1 / bound_step_s) as expected_tokens_per_s_per_user,
        1 / bound_step_s as bound_tokens_per_s_per_user,
        serve_first_token_s(prefill_s, step_s, first_token_overhead_ms, d, layers, allreduce_us, input_tokens / p,
                            hidden_size, link_gbs) as ttft_s,
        bound_prefill_s as bound_ttft_s,
        -- the share of the machine's time spent prefilling (the rest decodes): of the step before the model's level,
        -- which scales prompts and decoding alike
        serve_prefill_share(step_s * coalesce(model_level, 1), u, input_tokens, output_tokens, active_params_b, gpr,
                            compute_tflops, compute_efficiency) as prefill_share
    from serve_timed
),

serve_best as (
    select
        *,
        -- of a machine's fleets and splits, the cheapest per token (the fewest machines that meet the targets)
        row_number() over (partition by scenario_id, machine_id
                           order by k * usd_per_hour / throughput_tokens_per_s, k, d, p) as split_rank
    from serve_speeds
    where (min_tokens_per_user is null or expected_tokens_per_s_per_user >= min_tokens_per_user)
        and (max_ttft_s is null or ttft_s <= max_ttft_s)
),

serve as (
    select
        scenario_id, model_id, model_name, workload, precision, kv_precision, context_tokens, users, input_tokens,
        output_tokens, tokens, tier, engine_family, min_tokens_per_user, max_ttft_s,
        gpu_id, gpu_name, k * instance_gpus as gpu_count, instance_gpus, k as machines, d as tensor_parallel,
        p as pipeline_parallel, case when p > 1 then cluster_network end as cluster_network,
        case when p > 1 then cluster_network_gbps end as cluster_network_gbps,
        replicas, u as users_per_replica, machine_id, provider, offering, pricing_tier, statistic, price_kind, region,
        observed_on, observed_date_known, observed_no_later_than, k * usd_per_hour as usd_per_hour, usd_per_gpu_hour,
        compute_mode,
        -- what the expectation rests on: no published figure on the GPU's architecture leaves only the bound physical
        case when architecture_fitted
             then 'calibrated: the engine family''s efficiencies for this architecture, fitted on its published figures'
             when serving_figures > 0
             then 'calibrated: the engine family''s efficiencies, fitted on published figures that include this architecture'
             else 'not measured: no published serving figure on this architecture; the expectation applies the engine '
                  || 'family''s efficiencies fitted on other hardware, only the bound is physical' end
        -- a replica across machines: the pipeline-parallel terms are checked within one machine only
        || case when p > 1 then '; across machines as pipeline stages, as published pipeline-parallel figures within '
                                || 'one machine are expected (no published figure across machines)' else '' end
        || case when over_bridge then '; tensor parallel over the cards'' NVLink bridge, which the listing does not '
                                      || 'state (over PCIe alone the all-reduces take longer)' else '' end
        -- the model's own published figures with this engine family and weights set its level
        || case when model_level is not null
                then printf('; this model''s speed with the engine family and weights as its %d published figures put '
                            || 'it: %.2f times the family''s expectation', model_level_figures, model_level)
                else '' end
            as expectation_basis,
        model_level,
        per_gpu_required_gb * k * instance_gpus as required_gb,
        usable_gb_per_gpu * k * instance_gpus as capacity_gb,
        throughput_tokens_per_s / (k * instance_gpus) as throughput_tokens_per_s_per_gpu,
        bound_throughput_tokens_per_s / (k * instance_gpus) as bound_throughput_tokens_per_s_per_gpu,
        throughput_tokens_per_s as expected_tokens_per_s,
        bound_throughput_tokens_per_s as bound_tokens_per_s,
        expected_tokens_per_s_per_user, bound_tokens_per_s_per_user, ttft_s, bound_ttft_s,
        expected_throughput_error, expected_per_user_error, expected_ttft_error,
        prefill_share,
        throughput_tokens_per_s * input_tokens / output_tokens as input_tokens_per_s,
        k * usd_per_hour * prefill_share / (throughput_tokens_per_s * input_tokens / output_tokens * 3600) * 1e6
            as usd_per_million_input_tokens,
        k * usd_per_hour * (1 - prefill_share) / (throughput_tokens_per_s * 3600) * 1e6
            as usd_per_million_output_tokens,
        k * usd_per_hour / (throughput_tokens_per_s * (input_tokens + output_tokens) / output_tokens * 3600) * 1e6
            as usd_per_million_tokens,
        case when prefill_share > 0.5 then 'prefill (compute)'
             when read_gb / (gpr * memory_bandwidth_gbs * decode_efficiency)
                  >= u * 2 * active_params_b * 1e9 / (gpr * compute_tflops * 1e12 * compute_efficiency)
             then 'decode (memory bandwidth)' else 'decode (compute)' end as limited_by,
        null::double as job_tokens, null::double as job_hours, null::double as usd_per_job
    from serve_best
    where split_rank = 1
),

train as (
    select
        s.scenario_id, s.model_id, mo.name as model_name, s.workload, f.precision, null::varchar as kv_precision,
        f.context_tokens, 1 as users, null::double as input_tokens, null::double as output_tokens, s.tokens, s.tier,
        null::varchar as engine_family, null::double as min_tokens_per_user, null::double as max_ttft_s,
        m.gpu_id, g.name as gpu_name, m.instance_gpus as gpu_count, m.instance_gpus, 1 as machines,
        null::integer as tensor_parallel, 1 as replicas, null::double as users_per_replica, m.machine_id, m.provider, m.offering, m.pricing_tier,
        m.statistic, m.price_kind, m.region, m.observed_on, m.observed_date_known, m.observed_no_later_than,
        m.usd_per_hour, m.usd_per_gpu_hour, '16-bit' as compute_mode,
        'training utilisation: ' || tc.calibration_basis as expectation_basis,
        f.per_gpu_required_gb * m.instance_gpus as required_gb,
        f.usable_gb_per_gpu * m.instance_gpus as capacity_gb,
        train_tokens_per_s(1, g.bf16_compute_tflops, tc.utilisation,
                           train_flops_per_param_token(f.method, f.recompute), mo.active_params_b)
            as throughput_tokens_per_s_per_gpu,
        train_tokens_per_s(1, g.bf16_compute_tflops, 1, train_flops_per_param_token(f.method, f.recompute),
                           mo.active_params_b) as bound_throughput_tokens_per_s_per_gpu,
        train_tokens_per_s(m.instance_gpus, g.bf16_compute_tflops, tc.utilisation,
                           train_flops_per_param_token(f.method, f.recompute), mo.active_params_b)
            as expected_tokens_per_s,
        train_tokens_per_s(m.instance_gpus, g.bf16_compute_tflops, 1, train_flops_per_param_token(f.method, f.recompute),
                           mo.active_params_b) as bound_tokens_per_s,
        null::double as expected_tokens_per_s_per_user, null::double as bound_tokens_per_s_per_user,
        null::double as ttft_s, null::double as bound_ttft_s, null::double as prefill_share,
        null::double as input_tokens_per_s, null::double as usd_per_million_input_tokens,
        null::double as usd_per_million_output_tokens, null::double as usd_per_million_tokens,
        'compute' as limited_by,
        coalesce(s.tokens, case when s.workload = 'pretrain' then p.pretrain_tokens_per_param * mo.params_b * 1e9 end)
            as job_tokens
    from sc as s
    join models as mo using (model_id)
    join vram_fit as f
        on f.model_id = s.model_id and f.workload = 'training'
        and f.method = case s.workload when 'pretrain' then 'full' else s.workload end
        -- full updates with selective recomputation; LoRA and QLoRA without recomputation where the machine holds
        -- the activations, else with full recomputation (as out_training_estimates)
        and f.recompute in (case when s.workload in ('full', 'pretrain') then 'selective' else 'none' end,
                            case when s.workload in ('full', 'pretrain') then 'selective' else 'full' end)
    join rentable_machines as m on m.gpu_id = f.gpu_id and m.instance_gpus = f.gpu_count
        and (s.tier is null or m.pricing_tier = s.tier)
    join serving_gpus as g on g.gpu_id = m.gpu_id
    join training_calibration as tc on tc.gpu_id = m.gpu_id
    cross join p
    where s.workload in ('full', 'lora', 'qlora', 'pretrain') and f.fits
    qualify row_number() over (partition by s.scenario_id, m.machine_id
                               order by case f.recompute when 'full' then 1 else 0 end) = 1
),

options as (
    select * from serve
    union all by name
    select *, job_tokens / expected_tokens_per_s / 3600 as job_hours,
           job_tokens / expected_tokens_per_s / 3600 * usd_per_hour as usd_per_job
    from train
)

select
    * exclude (scenario_id), scenario_id,
    row_number() over scenario as rank,
    capacity_gb - required_gb as headroom_gb,
    (capacity_gb - required_gb) / capacity_gb as headroom_fraction,
    case when row_number() over scenario = 1
         then (case when workload = 'serve' then 'lowest $ per million tokens' else 'lowest $ per job' end)
         when coalesce(usd_per_million_tokens, usd_per_job)
              <= 1.005 * first_value(coalesce(usd_per_million_tokens, usd_per_job)) over scenario
         then 'ties with #1 (within 0.5%)'
         else printf('%.0f%% more %s than #1',
                     100 * (coalesce(usd_per_million_tokens, usd_per_job)
                            / first_value(coalesce(usd_per_million_tokens, usd_per_job)) over scenario - 1),
                     case when workload = 'serve' then 'per million tokens' else 'per job' end)
    end as why
from options
window scenario as (
    partition by scenario_id
    order by coalesce(usd_per_million_tokens, usd_per_job), usd_per_hour, capacity_gb - required_gb desc,
             observed_on desc, provider, offering, pricing_tier, region, gpu_id, tensor_parallel
)
order by scenario_id, rank
