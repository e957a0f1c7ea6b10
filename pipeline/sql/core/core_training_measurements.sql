-- Published training throughput (framework benchmark tables, vendor performance summaries), typed: one row
-- per run as printed, restated as tokens per second per GPU, with the model FLOPs each token costs by the
-- same count the estimates use (6 x active parameters for a full update, 4 x for LoRA and QLoRA, whose frozen
-- weights get no gradients, plus 2 x where the forward pass is recomputed in full; attention not counted).
with typed as (
    select
        source_id || ':' || source_row as measurement_id,
        nullif(model_id, '') as model_id,
        model_as_printed,
        cast(params_b as double) as params_b,
        cast(coalesce(nullif(active_params_b, ''), params_b) as double) as active_params_b,
        gpu_id,
        gpu_as_printed,
        cast(gpu_count as integer) as gpu_count,
        framework,
        method,
        precision,
        cast(seq_len as integer) as seq_len,
        activation_checkpointing,
        cast(value as double) as value,
        unit,
        cast(nullif(printed_mfu, '') as double) as printed_mfu,
        quote,
        source_id,
        source_file,
        source_row
    from raw_training_measurements
),

per_gpu as (
    select
        *,
        active_params_b < params_b as is_moe,
        value / case unit when 'tokens/s/gpu' then 1 else gpu_count end as tokens_per_s_per_gpu,
        case when method in ('pretrain', 'full') then 6 else 4 end
            + case when method in ('lora', 'qlora') and activation_checkpointing = 'full' then 2 else 0 end
            as flops_per_param_token,
        -- the runs the training utilisation is calibrated on (out_training_calibration): BF16 full updates of
        -- dense models at sequences around the estimates' training_context
        precision = 'bf16' and method in ('pretrain', 'full') and active_params_b >= params_b
            and seq_len between param('training_calibration_min_context') and param('training_calibration_max_context')
            as in_calibration
    from typed
)

select
    t.*,
    g.architecture,
    g.best_16bit_tflops as dense_16bit_tflops,
    -- achieved model FLOPs over the dense 16-bit peak: the utilisation the estimates multiply by
    t.tokens_per_s_per_gpu * t.flops_per_param_token * t.active_params_b * 1e9 / (g.best_16bit_tflops * 1e12)
        as measured_utilisation
from per_gpu as t
join core_gpus as g using (gpu_id)
