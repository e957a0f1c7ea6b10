-- Each published training run beside the estimate for its GPU and method: with the calibration as built
-- (the GPU's own runs included) and with the GPU held out (the line fitted without it). LoRA, QLoRA, FP8 and MoE runs are not in the
-- calibration: for them both columns are an outside check of the estimate.
select
    m.measurement_id,
    m.model_id,
    m.model_as_printed,
    m.params_b,
    m.active_params_b,
    m.gpu_id,
    m.gpu_count,
    m.framework,
    m.method,
    m.precision,
    m.seq_len,
    m.activation_checkpointing,
    m.tokens_per_s_per_gpu as measured_tokens_per_s_per_gpu,
    m.measured_utilisation,
    m.printed_mfu,
    c.utilisation,
    c.calibration_scope,
    c.dense_tflops * 1e12 * c.utilisation / (m.flops_per_param_token * m.active_params_b * 1e9)
        as expected_tokens_per_s_per_gpu,
    c.dense_tflops * 1e12 * coalesce(c.held_out_utilisation, c.utilisation) / (m.flops_per_param_token * m.active_params_b * 1e9)
        as held_out_tokens_per_s_per_gpu,
    m.in_calibration,
    m.quote,
    m.source_id
from core_training_measurements as m
join out_training_calibration as c using (gpu_id)
