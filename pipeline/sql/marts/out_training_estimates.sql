-- Training throughput, time and cost per model x GPU: full fine-tune (selective recomputation:
-- 6N FLOPs per token), LoRA and QLoRA (frozen weights: no weight gradients, 4N, plus 2N for the
-- forward pass full recomputation repeats, taken only where the activations would not fit otherwise)
-- and pretraining compute. Utilisation per GPU from published runs (out_training_calibration).
with fit as (
    select model_id, gpu_id, method, recompute, gpus_needed
    from out_vram_fit_detail
    where workload = 'training' and gpu_count = 1
        and ((method = 'full' and recompute = 'selective') or method in ('lora', 'qlora'))
    -- LoRA and QLoRA: the fewest GPUs, and without recomputation when that many GPUs hold the activations
    qualify row_number() over (partition by model_id, gpu_id, method
                               order by gpus_needed nulls last, case recompute when 'none' then 0 else 1 end) = 1
),

est as (
    select
        f.model_id, f.gpu_id, f.method, f.recompute, f.gpus_needed,
        m.params_b, m.active_params_b,
        g.best_16bit_tflops,
        u.utilisation,
        u.calibration_scope,
        u.calibration_basis,
        train_flops_per_param_token(f.method, f.recompute) as flops_per_param_token,
        c.usd_per_gpu_hour
    from fit as f
    join core_models as m using (model_id)
    join core_gpus as g using (gpu_id)
    join out_training_calibration as u using (gpu_id)
    left join core_cheapest_offers as c using (gpu_id)
    where g.best_16bit_tflops is not null
)

select
    model_id,
    gpu_id,
    method,
    recompute,
    gpus_needed,
    flops_per_param_token,
    best_16bit_tflops as dense_tflops,
    utilisation,
    calibration_scope,
    calibration_basis,
    train_tokens_per_s(1, best_16bit_tflops, utilisation, flops_per_param_token, active_params_b) as tokens_per_s_per_gpu,
    param('finetune_tokens') as finetune_tokens,
    param('finetune_tokens') / (gpus_needed * best_16bit_tflops * 1e12 * utilisation
        / (flops_per_param_token * active_params_b * 1e9)) / 3600 as finetune_hours,
    usd_per_gpu_hour as cheapest_usd_per_gpu_hour,
    -- GPU-hours x price, for a deployment that exists (no GPU count fits: no time, no cost)
    case when gpus_needed is not null then
        param('finetune_tokens') * flops_per_param_token * active_params_b * 1e9
            / (best_16bit_tflops * 1e12 * utilisation) / 3600 * usd_per_gpu_hour
    end as finetune_usd,
    -- pretraining on tokens_per_param x N tokens at 6N FLOPs per token, in GPU-hours
    case when method = 'full' then
        param('pretrain_tokens_per_param') * params_b * 1e9 * 6 * active_params_b * 1e9
            / (best_16bit_tflops * 1e12 * utilisation) / 3600
    end as pretrain_gpu_hours,
    case when method = 'full' then
        param('pretrain_tokens_per_param') * params_b * 1e9 * 6 * active_params_b * 1e9
            / (best_16bit_tflops * 1e12 * utilisation) / 3600 * usd_per_gpu_hour
    end as pretrain_usd
from est
