-- The VRAM-fit page's queries, over the public views only.

-- name: models
-- the explorer's models, largest first
select model_id, name, params_b from models order by params_b desc, model_id;

-- name: gpus
-- the explorer's GPUs with the memory a model may use, most memory first
select gpu_id, name, memory_gb,
       usable_memory_gb * (select value::double from parameters where name = 'usable_memory_fraction') as usable_gb
from gpus
where memory_gb is not null
order by memory_gb desc, gpu_id;

-- name: parameters
-- the contexts the explorer offers, and the model it opens on (the inference ranking's reference model)
select name, value from parameters where name in ('inference_contexts', 'reference_model');

-- name: required
-- the explorer's memory per model, weight format and context (inference, batch 1, KV cache BF16), keyed
-- 'model|format|context', with the GPUs each GPU of the `gpus` query needs (vram_fit.gpus_needed, in that query's
-- order: most memory first); a context above a model's maximum is capped there, so the capped rows are also keyed
-- at the nominal context (after every real key) and every choice resolves
with req as (
    select distinct model_id, precision, context_tokens, required_gb, weights_gb, kv_cache_gb
    from vram_fit
    where workload = 'inference' and kv_precision = 'bf16' and batch_size = 1 and gpu_count = 1
),
gpu_order as (
    select gpu_id, row_number() over (order by memory_gb desc, gpu_id) as i from gpus where memory_gb is not null
),
needed as (
    select r.model_id, r.precision, r.context_tokens, list(f.gpus_needed order by o.i) as gpus_needed
    from req as r
    cross join gpu_order as o
    left join vram_fit as f
        on f.model_id = r.model_id and f.precision = r.precision and f.context_tokens = r.context_tokens
        and f.gpu_id = o.gpu_id and f.workload = 'inference' and f.kv_precision = 'bf16' and f.batch_size = 1
        and f.gpu_count = 1
    group by all
),
contexts as (
    select unnest(value::double[])::integer as ctx from parameters where name = 'inference_contexts'
),
keyed as (
    select 1 as part, model_id || '|' || precision || '|' || context_tokens as key, required_gb, weights_gb, kv_cache_gb,
           gpus_needed
    from req join needed using (model_id, precision, context_tokens)
    union all
    select 2 as part, r.model_id || '|' || r.precision || '|' || c.ctx as key, r.required_gb, r.weights_gb, r.kv_cache_gb,
           n.gpus_needed
    from req as r
    join needed as n using (model_id, precision, context_tokens)
    join models as m using (model_id)
    cross join contexts as c
    where m.max_context < c.ctx and r.context_tokens = m.max_context
)
select key, required_gb, weights_gb, kv_cache_gb, gpus_needed
from keyed
qualify row_number() over (partition by key order by part) = 1
order by part, key;

-- name: heat_inference
-- GPUs needed on one GPU's memory: inference, FP8 weights, 4k context (or the model's maximum), batch 1
select f.model_id as model, g.name as gpu, g.memory_gb, m.params_b, f.required_gb, f.gpus_needed
from vram_fit as f
join gpus as g using (gpu_id)
join models as m using (model_id)
where f.gpu_count = 1 and f.workload = 'inference' and f.precision = 'fp8' and f.kv_precision = 'bf16'
  and f.batch_size = 1 and f.context_tokens = least(4096, m.max_context)
order by model, gpu;

-- name: heat_lora
-- GPUs needed: LoRA fine-tune, full recomputation
select f.model_id as model, g.name as gpu, g.memory_gb, m.params_b, f.required_gb, f.gpus_needed
from vram_fit as f
join gpus as g using (gpu_id)
join models as m using (model_id)
where f.gpu_count = 1 and f.workload = 'training' and f.method = 'lora' and f.recompute = 'full'
order by model, gpu;

-- name: heat_full
-- GPUs needed: full fine-tune, mixed-precision AdamW, selective recomputation
select f.model_id as model, g.name as gpu, g.memory_gb, m.params_b, f.required_gb, f.gpus_needed
from vram_fit as f
join gpus as g using (gpu_id)
join models as m using (model_id)
where f.gpu_count = 1 and f.workload = 'training' and f.method = 'full' and f.recompute = 'selective'
order by model, gpu;
