-- Planner: ranked deployment options (GPU x count x provider x tier) for each row of `plan_scenarios`
-- (model_id, workload, precision, context_tokens, users, tokens, tier:
-- a pricing tier, or NULL for every tier). Reads only the public views
-- (vram_fit, gpus, models, price_offers, parameters), so it follows the estimates and prices as they change.
--
-- workload 'serve': `users` sequences decode at once at `context_tokens`, weights in `precision`, KV cache BF16.
--   memory(users) = the batch-1 requirement + (users - 1) x the per-sequence requirement, both read from
--   vram_fit (its batch-1 and largest-batch rows; the requirement is linear in the batch).
--   GPUs: the smallest tensor-parallel degree in vram_fit's GPU counts (1, 2, 4, 8) that holds it.
--   bound tokens/s   = min(users x GPUs x bandwidth / bytes read per step, GPUs x dense TFLOPS / (2 x active params))
--   expected tokens/s = the same with the bandwidth efficiency and the prefill utilisation of `parameters`.
--   $ per million tokens = $/hour / (expected tokens/s x 3600) x 10^6; options ranked by it.
-- workload 'full' | 'lora' | 'qlora' | 'pretrain': fine-tune or pre-train on `tokens` tokens at the training
--   context; fit from vram_fit (full and pretrain: selective recomputation, LoRA/QLoRA: full recomputation);
--   tokens/s = GPUs x dense 16-bit TFLOPS x MFU / (6 or 4 x active params); $ per job = hours x $/hour.
-- An offer for one GPU is priced per GPU (n GPUs cost n times its price); an offer for a whole instance of
-- g > 1 GPUs is used whole (g GPUs, its instance price) when it holds the requirement.
with sc as (select *, row_number() over () as scenario_id from plan_scenarios),

p as (
    select
        max(try_cast(value as double)) filter (where name = 'decode_bandwidth_efficiency') as bandwidth_efficiency,
        max(try_cast(value as double)) filter (where name = 'prefill_mfu') as prefill_mfu,
        max(try_cast(value as double)) filter (where name = 'training_mfu') as training_mfu,
        max(try_cast(value as double)) filter (where name = 'pretrain_tokens_per_param') as pretrain_tokens_per_param
    from parameters
),

serve_memory as (
    select
        model_id, gpu_id, precision, context_tokens, gpu_count, any_value(usable_gb_per_gpu) as usable_gb_per_gpu,
        max(required_gb) filter (where batch_size = 1) as required_one_gb,
        max(weights_gb) filter (where batch_size = 1) as weights_gb,
        max(kv_cache_gb) filter (where batch_size = 1) as kv_gb_per_sequence,
        (arg_max(required_gb, batch_size) - max(required_gb) filter (where batch_size = 1))
            / nullif(max(batch_size) - 1, 0) as per_sequence_gb
    from vram_fit
    where workload = 'inference' and kv_precision = 'bf16'
        and (model_id, precision, context_tokens) in (
            select (model_id, precision, context_tokens) from sc where workload = 'serve')
    group by all
),

serve_fit as (
    select
        s.scenario_id, s.tier, s.model_id, s.workload, s.precision, s.context_tokens, s.users, s.tokens,
        m.gpu_id, m.gpu_count, m.usable_gb_per_gpu, m.weights_gb, m.kv_gb_per_sequence,
        m.required_one_gb + (s.users - 1) * m.per_sequence_gb as required_gb
    from sc as s
    join serve_memory as m using (model_id, precision, context_tokens)
    where s.workload = 'serve'
),

train_fit as (
    select
        s.scenario_id, s.tier, s.model_id, s.workload, f.precision, f.context_tokens, s.users, s.tokens,
        f.gpu_id, f.gpu_count, f.usable_gb_per_gpu, f.weights_gb, null::double as kv_gb_per_sequence,
        f.required_gb
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
        min(gpu_count) filter (where required_gb <= gpu_count * usable_gb_per_gpu)
            over (partition by scenario_id, gpu_id) as min_gpus
    from (select * from serve_fit union all by name select * from train_fit)
),

deployments as (
    select
        f.*,
        o.provider, o.offering, o.gpu_count as instance_gpus, o.pricing_tier, o.statistic, o.region,
        o.observed_on, o.usd_per_gpu_hour,
        case when o.gpu_count = 1 then f.gpu_count * o.usd_per_gpu_hour else o.usd_per_hour end as usd_per_hour
    from fits as f
    join price_offers as o on o.gpu_id = f.gpu_id
    where o.statistic <> 'minimum'  -- a single lowest listing is not a price one can plan on
        and (f.tier is null or o.pricing_tier = f.tier)
        and f.required_gb <= f.capacity_gb
        and ((o.gpu_count = 1 and f.gpu_count = f.min_gpus) or (o.gpu_count > 1 and f.gpu_count = o.gpu_count))
),

speeds as (
    select
        d.*,
        g.name as gpu_name,
        mo.name as model_name,
        mo.params_b,
        mo.active_params_b,
        g.memory_bandwidth_gbs,
        coalesce(case when d.precision = 'fp8' then g.fp8_tflops end, g.bf16_tflops, g.fp16_tflops) as compute_tflops,
        -- serving: the batch shares one read of the weights (MoE: the experts the batch touches, at most all)
        d.users * d.gpu_count * g.memory_bandwidth_gbs * 1e9
            / (d.weights_gb * least(1.0, mo.active_params_b * d.users / mo.params_b) * 1e9
               + d.users * d.kv_gb_per_sequence * 1e9) as bandwidth_tokens_per_s,
        d.gpu_count * coalesce(case when d.precision = 'fp8' then g.fp8_tflops end, g.bf16_tflops, g.fp16_tflops) * 1e12
            / (case when d.workload = 'serve' then 2 when d.workload in ('lora', 'qlora') then 4 else 6 end
               * mo.active_params_b * 1e9) as compute_tokens_per_s
    from deployments as d
    join gpus as g using (gpu_id)
    join models as mo using (model_id)
    where g.memory_bandwidth_gbs is not null
),

estimates as (
    select
        s.*,
        case when s.workload = 'serve' then least(s.bandwidth_tokens_per_s, s.compute_tokens_per_s)
             else s.compute_tokens_per_s end as bound_tokens_per_s,
        case when s.workload = 'serve'
             then least(s.bandwidth_tokens_per_s * p.bandwidth_efficiency, s.compute_tokens_per_s * p.prefill_mfu)
             else s.compute_tokens_per_s * p.training_mfu end as expected_tokens_per_s,
        case when s.workload <> 'serve' then 'compute'
             when s.bandwidth_tokens_per_s * p.bandwidth_efficiency <= s.compute_tokens_per_s * p.prefill_mfu
             then 'memory bandwidth' else 'compute' end as limited_by,
        coalesce(s.tokens, case when s.workload = 'pretrain' then p.pretrain_tokens_per_param * s.params_b * 1e9 end)
            as job_tokens
    from speeds as s, p
    where s.compute_tokens_per_s is not null
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
    observed_on,
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
