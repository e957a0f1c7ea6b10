-- The Measured against estimated page's queries, over the public views only.

-- name: totals
-- how many published decode measurements, on how many GPUs, from how many publications, and how close to the bound
select count(*) as n, count(distinct gpu_id) as gpus, count(distinct source_id) as publications,
       count(*) filter (where not within_bound) as above, max(measured_share_of_bound) as top
from measured_vs_estimate;

-- name: accuracy
-- single-GPU, batch-1 decode: each GPU's median measured and expected speed per model and format
-- (the page ranks them against each other for a few models and formats)
select model_id, format, gpu_id, median(measured_tokens_per_s) as measured,
       median(expected_tokens_per_s) as expected
from measured_vs_estimate
where gpu_count = 1 and batch_size = 1 and expected_tokens_per_s is not null
group by model_id, format, gpu_id
order by model_id, format, gpu_id;

-- name: decode_calibration
-- what the decode expectations use, per architecture
select * from decode_calibration order by gpus_measured desc, architecture;

-- name: by_family
-- single-GPU, batch-1 measurements against bound and expectation, per architecture
select architecture, count(*) as n, count(distinct gpu_id) as gpus,
       median(measured_share_of_bound) as share, median(abs(expected_error)) as err,
       max(measured_share_of_bound) as max_share
from measured_vs_estimate where gpu_count = 1 and batch_size = 1
group by architecture order by n desc, architecture;

-- name: measurements
-- every decode measurement with its source document
select b.*, s.url, s.title
from measured_vs_estimate as b left join sources as s using (source_id)
order by b.model_id, b.format, b.gpu_count, b.measured_tokens_per_s desc, b.gpu_id, b.source_id;

-- name: serving_totals
-- published serving figures: how many, on how many GPUs, from how many publications, how close to the bound
select count(*) as n, count(distinct gpu_id) as gpus, count(distinct source_id) as publications,
       count(*) filter (where within_bound = false) as above,
       max(measured_share_of_bound) filter (where not speculative_decoding and quantity <> 'ttft') as top
from serving_vs_estimate;

-- name: serving_calibration
-- the serving efficiencies fitted per engine family and model kind (the family's row, then its architectures')
select * from serving_calibration order by engine_family, model_kind, architecture nulls first;

-- name: serving_levels
-- the models whose own figures give them a level with an engine family and weights
select * from serving_model_levels order by engine_family desc, level, model_id;

-- name: serving_reproducibility
-- how far publications disagree on the same deployment, beside the expectation's error held out by publication
select * from serving_reproducibility
order by engine_family desc, model_kind, case quantity when 'throughput' then 0 when 'per_user' then 1 else 2 end;

-- name: serving_accuracy
-- throughput figures (no speculative decoding) with their leave-one-GPU-out expectation, and the publication
-- (source snapshot) each comes from
select s.snapshot_id, p.title, p.url, e.engine_family, e.gpu_id, e.measured,
       e.expected_capped as expected, e.measured_share_of_bound, e.current_engine
from serving_vs_estimate as e
join sources as s using (source_id)
left join sources as p on p.source_id = s.snapshot_id
where e.quantity = 'throughput' and e.scenario in ('max_throughput', 'concurrency')
  and not e.speculative_decoding
order by s.snapshot_id, e.engine_family, e.gpu_id, e.source_id;

-- name: serving_detail
-- one row per model, weights, GPU and engine: the figures and how they sit against bound and expectation
select model_id, format, gpu_id, any_value(gpu_name) as gpu_name, engine,
       count(*) as figures, count(distinct source_id) as documents,
       median(measured_share_of_bound) filter (where quantity <> 'ttft') as median_share,
       max(measured_share_of_bound) filter (where quantity <> 'ttft') as max_share,
       median(abs(expected_capped / measured - 1)) filter (where quantity = 'throughput') as median_error,
       count(*) filter (where within_bound = false) as beyond
from serving_vs_estimate where not speculative_decoding
group by all order by model_id, format, gpu_id, engine;
