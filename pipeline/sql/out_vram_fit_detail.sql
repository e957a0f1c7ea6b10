-- (view) vram_fit with each scenario's description and memory breakdown joined in.
select
    r.model_id,
    f.gpu_id,
    r.workload,
    r.method,
    r.precision,
    r.kv_precision,
    r.recompute,
    r.context_tokens,
    r.batch_size,
    f.gpu_count,
    r.weights_gb,
    r.kv_cache_gb,
    r.gradients_gb,
    r.optimizer_gb,
    r.activations_gb,
    r.overhead_gb,
    r.required_gb,
    f.usable_gb_per_gpu,
    f.gpus_needed,
    f.fits,
    f.fits_one_gpu,
    f.multi_gpu_has_link,
    f.scenario_id
from out_vram_fit as f
join out_memory_requirements as r using (scenario_id)
