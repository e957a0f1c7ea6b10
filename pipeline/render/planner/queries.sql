-- The Planner's queries (planner.md and api/v1/plan/), over the public views only. The ranked options themselves
-- come from pipeline/sql/plan/plan_options.sql (pipeline.plan.plan_options), over the public views too.

-- name: coefficient_models
-- coefficients.json: the rows of the views the page's serving model reads (site/javascripts/planner-model.js),
-- at full precision
select * from serving_models order by model_id, format;

-- name: coefficient_gpus
select * from serving_gpus order by gpu_id;

-- name: coefficient_machines
select machine_id, provider, offering, gpu_id, instance_gpus, usd_per_hour, usd_per_gpu_hour,
       pricing_tier, statistic, price_kind, region, observed_on, observed_date_known,
       observed_no_later_than
from rentable_machines order by machine_id, gpu_id;

-- name: coefficient_calibration
select * from serving_calibration order by engine_family, model_kind;

-- name: coefficient_parameters
-- the parameters the serving model reads
select name, value from parameters
where name in ('runtime_overhead_gb', 'runtime_overhead_fraction', 'bytes_bf16', 'bytes_fp8', 'prefill_mfu')
order by name;

-- name: models
-- index.json: the models one can choose, smallest first
select model_id, name, params_b, active_params_b, max_context, status from models order by params_b, model_id;

-- name: max_contexts
-- every model with its longest context (a question's context is checked against it)
select model_id, max_context from models order by model_id;

-- name: native_formats
-- the weight format each checkpoint ships in (the Planner's `native` precision)
select model_id, resolved_format from serving_models where format = 'native' order by model_id;
