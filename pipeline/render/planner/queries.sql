-- The Planner's queries (planner.md and api/v1/plan/), over the public views only. The ranked options themselves
-- come from pipeline/sql/plan/plan_options.sql (pipeline.plan.plan_options), over the public views too.

-- name: browser_vram_fit
-- the rows of vram_fit plan_options.sql's training options can join: a training fit (full and pre-training with
-- selective recomputation, LoRA and QLoRA with full) that fits, at the GPU count of a machine one can rent; the
-- columns it reads
select model_id, workload, method, recompute, gpu_id, gpu_count, precision, context_tokens, per_gpu_required_gb,
       usable_gb_per_gpu, fits
from vram_fit
where workload = 'training' and fits
    and ((method = 'full' and recompute = 'selective') or (method in ('lora', 'qlora') and recompute = 'full'))
    and (gpu_id, gpu_count) in (select (gpu_id, instance_gpus) from rentable_machines)
order by all;

-- name: browser_core_parameters
-- the numbers param() and param_list() read (pipeline/sql/macros/params.sql), from the parameters view
select name, try_cast(value as double) as value, try_cast(value as double[]) as value_list
from parameters order by name;

-- name: models
-- index.json: the models one can choose, smallest first
select model_id, name, params_b, active_params_b, max_context, status from models order by params_b, model_id;

-- name: max_contexts
-- every model with its longest context (a question's context is checked against it)
select model_id, max_context from models order by model_id;

-- name: native_formats
-- the weight format each checkpoint ships in (the Planner's `native` precision)
select model_id, resolved_format from serving_models where format = 'native' order by model_id;

-- name: gpu_vendors
-- each GPU's vendor (the Planner's filters)
select gpu_id, vendor from serving_gpus order by gpu_id;

-- name: pretrain_tokens_per_param
-- the tokens a pretraining run takes per parameter when the question gives none
select value::double from parameters where name = 'pretrain_tokens_per_param';
