-- Planner: ranked deployment options (GPU x count x provider x tier) for each row of `plan_scenarios`
-- (model_id, workload, precision, context_tokens, users, tokens, tier:
-- a pricing tier, or NULL for every tier). Reads only the public views
-- (vram_fit, gpus, models, price_offers, parameters), so it follows the estimates and prices as they change.
--
-- workload 'serve': `users` sequences decode at once at `context_tokens`, weights in `precision`, KV cache BF16.
--   Memory per GPU of a d-GPU deployment = overhead + (weights + users x the KV cache of one sequence x its
--   replication) / d, from vram_fit's batch-1 rows; d a valid tensor-parallel degree (vram_fit's
--   valid_degree: 1, 2, 4, 8 dividing the heads); the smallest d that holds it.
--   Bound and expectation as in inference_estimates: one step reads the weights but the input embeddings
--   (model_weights), the experts `users` tokens touch, every KV cache; bound at 100% of bandwidth and dense
--   compute; expected with the calibration line of the GPU's architecture (decode_calibration) and the
--   prefill utilisation, plus two all-reduces per layer across tensor-parallel GPUs.
--   $ per million tokens = $/hour / (expected tokens/s x 3600) x 10^6; options ranked by it.
-- workload 'full' | 'lora' | 'qlora' | 'pretrain': fine-tune or pre-train on `tokens` tokens at the training
--   context; fit from vram_fit (full and pretrain: selective recomputation, LoRA/QLoRA: full recomputation);
--   tokens/s = GPUs x dense 16-bit TFLOPS x MFU / (6 x active params: a full fine-tune's 6N, or LoRA's 4N plus
--   the 2N of the repeated forward pass); $ per job = hours x $/hour.
-- An offer for one GPU is priced per GPU (n GPUs cost n times its price); an offer for a whole instance of
-- g > 1 GPUs is used whole (g GPUs, its instance price) when it holds the requirement.
with sc as (select *, row_number() over () as scenario_id from plan_scenarios),

p as (
    select
        max(try_cast(value as double)) filter (where name = 'prefill_mfu') as prefill_mfu,
        max(try_cast(value as double)) filter (where name = 'training_mfu') as training_mfu,
        max(try_cast(value as double)) filter (where name = 'pretrain_tokens_per_param') as pretrain_tokens_per_param,
        max(try_cast(value as double)) filter (where name = 'runtime_overhead_gb') as fixed_gb,
        1 + max(try_cast(value as double)) filter (where name = 'runtime_overhead_fraction') as grow,
        max(try_cast(value as double)) filter (where name = 'allreduce_latency_us_nvlink') as allreduce_us_link,
        max(try_cast(value as double)) filter (where name = 'allreduce_latency_us_pcie') as allreduce_us_pcie
    from parameters
),

serve_memory as (
    select model_id, gpu_id, precision, context_tokens, gpu_count, usable_gb_per_gpu, valid_degree, kv_replication,
           weights_gb, kv_cache_gb as kv_gb_per_sequence
    from vram_fit
    where workload = 'inference' and kv_precision = 'bf16' and batch_size = 1
        and (model_id, precision, context_tokens) in (
            select (model_id, precision, context_tokens) from sc where workload = 'serve')
),

serve_fit as (
    select
        s.scenario_id, s.tier, s.model_id, s.workload, s.precision, s.context_tokens, s.users, s.tokens,
        m.gpu_id, m.gpu_count, m.usable_gb_per_gpu, m.weights_gb, m.kv_gb_per_sequence, m.kv_replication,
        m.valid_degree,
        m.gpu_count * (p.fixed_gb + p.grow * (m.weights_gb + s.users * m.kv_gb_per_sequence * m.kv_replication)
                       / m.gpu_count) as required_gb
    from sc as s
    join serve_memory as m using (model_id, precision, context_tokens)
    cross join p
    where s.workload = 'serve'
),

train_fit as (
    select
        s.scenario_id, s.tier, s.model_id, s.workload, f.precision, f.context_tokens, s.users, s.tokens,
        f.gpu_id, f.gpu_count, f.usable_gb_per_gpu, f.weights_gb, null::double as kv_gb_per_sequence,
        1.0 as kv_replication, f.valid_degree,
        f.per_gpu_required_gb * f.gpu_count as required_gb
    from sc as s
    join vram_fit as f
        on f.model_id = s.model_id and f.workload = 'training'
        and f.method = case s.workload when 'pretrain' then 'full' else s.workload end
        and f.recompute = case when s.workload in ('full', 'pretrain') then 'selective' else 'full' end
    where s.workload in ('full', 'lora', 'qlora', 'pretrain')
),

fits as (
    select *, gpu_count * usable_gb_per_gpu as capacity_gb,
        -- the smallest GPU count (tensor-parallel degree) that holds the requirement
        min(gpu_count) filter (where valid_degree and required_gb <= gpu_count * usable_gb_per_gpu)
            over (partition by scenario_id, gpu_id) as min_gpus
    from (select * from serve_fit union all by name select * from train_fit)
),

deployments as (
    select
        f.*,
        o.provider, o.offering, o.gpu_count as instance_gpus, o.pricing_tier, o.statistic, o.region,
        o.observed_on, o.observed_date_known, o.comparable_usd_per_gpu_hour as usd_per_gpu_hour,
        -- the price that compares (GPU-only prices carry their host), for the GPUs the deployment uses
        case when o.gpu_count = 1 then f.gpu_count * o.comparable_usd_per_gpu_hour
             else o.gpu_count * o.comparable_usd_per_gpu_hour end as usd_per_hour
    from fits as f
    join price_offers as o on o.gpu_id = f.gpu_id
    where o.statistic <> 'minimum'  -- a single lowest listing is not a price one can plan on
        -- the rules of price_picks: fresh, comparable, a median only over enough listings
        and not o.stale and o.comparable and o.comparable_usd_per_gpu_hour is not null
        and o.market = 'global'  -- offers open to anyone; mainland-China offers have their own picks
        and (o.statistic <> 'median'
             or o.sample_size >= (select try_cast(value as double) from parameters where name = 'marketplace_min_sample'))
        and (f.tier is null or o.pricing_tier = f.tier)
        and f.required_gb <= f.capacity_gb and f.valid_degree
        and ((o.gpu_count = 1 and f.gpu_count = f.min_gpus) or (o.gpu_count > 1 and f.gpu_count = o.gpu_count))
),

speeds as (
    select
        d.*,
        g.name as gpu_name,
        mo.name as model_name,
        mo.params_b,
        mo.active_params_b,
        mo.layers,
        g.memory_bandwidth_gbs,
        c.slope,
        c.overhead_us_per_layer,
        coalesce(case when d.precision = 'fp8' then g.fp8_tflops end, g.bf16_tflops, g.fp16_tflops) as compute_tflops,
        -- seconds per serving step: every weight but the input embeddings, the experts `users` tokens touch, the caches
        (w.dense_read_gb
         + case when mo.is_moe then mo.moe_layers * mo.num_experts
               * (1 - pow(1 - mo.experts_per_token / mo.num_experts, d.users)) * w.expert_gb else 0 end
         + d.users * coalesce(d.kv_gb_per_sequence, 0) * d.kv_replication)
            / (d.gpu_count * g.memory_bandwidth_gbs) as step_memory_s,
        d.users * (case when d.workload = 'serve' then 2 else 6 end) * mo.active_params_b * 1e9
            / (d.gpu_count * coalesce(case when d.precision = 'fp8' then g.fp8_tflops end, g.bf16_tflops, g.fp16_tflops)
               * 1e12) as step_compute_s,
        case when d.gpu_count > 1 then 2 * mo.layers
             * case when g.interconnect_gbs is not null then p.allreduce_us_link else p.allreduce_us_pcie end / 1e6
             else 0 end as step_comm_s
    from deployments as d
    join gpus as g using (gpu_id)
    join models as mo using (model_id)
    join model_weights as w on w.model_id = d.model_id and w.format = d.precision
    left join decode_calibration as c on c.architecture = g.architecture
    cross join p
    where g.memory_bandwidth_gbs is not null
),

estimates as (
    select
        s.*,
        case when s.workload = 'serve' then s.users / greatest(s.step_memory_s, s.step_compute_s)
             else 1 / s.step_compute_s end as bound_tokens_per_s,
        case when s.workload = 'serve'
             then s.users / (greatest(s.step_memory_s, s.step_memory_s * s.slope + s.layers * s.overhead_us_per_layer / 1e6,
                                      s.step_compute_s / p.prefill_mfu) + s.step_comm_s)
             else p.training_mfu / s.step_compute_s end as expected_tokens_per_s,
        case when s.workload <> 'serve' then 'compute'
             when greatest(s.step_memory_s, s.step_memory_s * s.slope + s.layers * s.overhead_us_per_layer / 1e6)
                  >= s.step_compute_s / p.prefill_mfu
             then 'memory bandwidth' else 'compute' end as limited_by,
        coalesce(s.tokens, case when s.workload = 'pretrain' then p.pretrain_tokens_per_param * s.params_b * 1e9 end)
            as job_tokens
    from speeds as s, p
    where s.step_compute_s is not null
),

costed as (
    select
        *,
        case when workload = 'serve' then usd_per_hour / (expected_tokens_per_s * 3600) * 1e6 end as usd_per_million_tokens,
        case when workload <> 'serve' then job_tokens / expected_tokens_per_s / 3600 end as job_hours,
        case when workload <> 'serve' then job_tokens / expected_tokens_per_s / 3600 * usd_per_hour end as usd_per_job
    from estimates
)

select
    scenario_id, model_id, model_name, workload, precision, context_tokens, users, job_tokens, tier,
    row_number() over scenario as rank,
    gpu_id, gpu_name, gpu_count, provider, offering, instance_gpus, pricing_tier, statistic, region,
    usd_per_gpu_hour, usd_per_hour,
    required_gb, capacity_gb, capacity_gb - required_gb as headroom_gb,
    (capacity_gb - required_gb) / capacity_gb as headroom_fraction,
    bound_tokens_per_s, expected_tokens_per_s,
    expected_tokens_per_s / users as expected_tokens_per_s_per_user,
    limited_by, usd_per_million_tokens, job_hours, usd_per_job,
    observed_on, observed_date_known,
    case when row_number() over scenario = 1
         then (case when workload = 'serve' then 'lowest $ per million tokens' else 'lowest $ per job' end)
         when coalesce(usd_per_million_tokens, usd_per_job)
              <= 1.005 * first_value(coalesce(usd_per_million_tokens, usd_per_job)) over scenario
         then 'ties with #1 (within 0.5%)'
         else printf('%.0f%% more %s than #1',
                     100 * (coalesce(usd_per_million_tokens, usd_per_job)
                            / first_value(coalesce(usd_per_million_tokens, usd_per_job)) over scenario - 1),
                     case when workload = 'serve' then 'per million tokens' else 'per job' end)
    end
    || printf('; %d x %s hold %.0f of %.0f GB; %s-bound', gpu_count, gpu_name, required_gb, capacity_gb, limited_by)
        as why
from costed
window scenario as (
    partition by scenario_id
    order by coalesce(usd_per_million_tokens, usd_per_job), usd_per_hour, capacity_gb - required_gb desc, observed_on desc,
             provider, offering, pricing_tier, region, gpu_id
)
order by scenario_id, rank
