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
)

select
    t.*,
    t.active_params_b < t.params_b as is_moe,
    t.value / case t.unit when 'tokens/s/gpu' then 1 else t.gpu_count end as tokens_per_s_per_gpu,
    case when t.method in ('pretrain', 'full') then 6 else 4 end
        + case when t.method in ('lora', 'qlora') and t.activation_checkpointing = 'full' then 2 else 0 end
        as flops_per_param_token,
    g.architecture,
    g.best_16bit_tflops as dense_16bit_tflops,
    -- achieved model FLOPs over the dense 16-bit peak: the utilisation the estimates multiply by
    t.value / case t.unit when 'tokens/s/gpu' then 1 else t.gpu_count end
        * (case when t.method in ('pretrain', 'full') then 6 else 4 end
           + case when t.method in ('lora', 'qlora') and t.activation_checkpointing = 'full' then 2 else 0 end)
        * t.active_params_b * 1e9 / (g.best_16bit_tflops * 1e12) as measured_utilisation
from typed as t
join core_gpus as g using (gpu_id)
