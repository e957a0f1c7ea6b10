-- The ranking pages' (training, inference) and the cost-per-TFLOP page's queries, over the public views only.

-- name: rankings
-- every GPU's score for one workload (the parameter), best first, with its name
select r.*, g.name
from rankings as r
join gpus as g using (gpu_id)
where workload = ?
order by rank, gpu_id;

-- name: ranking_weights
-- the weight of each component of one workload's score (the parameter), in the order of pipeline/ranking.yml
select * from ranking_weights where workload = ?;

-- name: parameters
-- the parameters the pages print: the reference model, its serving batch and context, the calibration's sequences
select name, value
from parameters
where name in ('reference_model', 'serving_batch', 'reference_context', 'finetune_tokens',
               'training_calibration_min_context', 'training_calibration_max_context', 'value_max_gpus');

-- name: serving
-- the reference model's deployments on every GPU, for the serving-cost chart
select e.*, g.name
from inference_estimates as e
join gpus as g using (gpu_id)
where model_id = (select value from parameters where name = 'reference_model')
order by all;

-- name: finetune
-- fine-tuning the reference training model (parameter reference_training_model) on every GPU by method, cheapest first
select t.*, g.name, m.name as model_name
from training_estimates as t
join gpus as g using (gpu_id)
join models as m using (model_id)
where t.model_id = (select value from parameters where name = 'reference_training_model')
order by finetune_usd nulls last, gpu_id, method;

-- name: calibration
-- the GPUs with published runs of their own: their measured and held-out utilisation
select c.gpu_id, coalesce(g.name, c.gpu_id) as name, c.runs, c.publications, c.measured_utilisation,
       c.held_out_utilisation, c.held_out_error, c.dense_tflops, c.memory_bandwidth_gbs
from training_calibration as c
left join gpus as g using (gpu_id)
where c.calibration_scope = 'gpu'
order by c.runs desc, c.gpu_id;

-- name: calibration_line
-- how an unmeasured GPU's utilisation is placed (the line fitted through the measured GPUs)
select any_value(calibration_basis) as basis from training_calibration where calibration_scope = 'line';

-- name: outside_checks
-- published training runs the calibration does not use, each beside its estimate, with its source
select v.*, coalesce(g.name, v.gpu_id) as name, s.title, s.url
from training_vs_estimate as v
join sources as s on s.source_id = v.source_id
left join gpus as g on g.gpu_id = v.gpu_id
where not v.in_calibration
order by v.gpu_id, v.method, v.model_as_printed, v.measured_tokens_per_s_per_gpu;

-- name: cost_per_tflop
-- $ per dense TFLOP-hour of every GPU's price picks at each precision, in its provider's colour
select c.*, g.name, v.colour as provider_colour
from cost_per_tflop as c
join gpus as g using (gpu_id)
join providers as v using (provider)
order by c.precision, c.usd_per_tflop_hour, c.gpu_id, c.provider, c.offering, c.region;
