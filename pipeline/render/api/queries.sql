-- The machine-readable files' queries (api/v1/*.json, llms.txt, feeds/prices.atom), over the public views only.
-- gpus, cheapest, offers, inference and training are also what openapi.json describes (one row schema each).

-- name: gpus
-- one object per GPU variant in gpus.json
select * from gpus order by gpu_id;

-- name: cheapest
-- the price every page uses: one pick per GPU and tier (price_picks), the cheapest reserved term when several
select gpu_id, pick as pricing_tier, term, usd_per_gpu_hour, provider, statistic, observed_on,
       observed_date_known
from price_picks where usd_per_gpu_hour is not null
qualify row_number() over (partition by gpu_id, pick order by usd_per_gpu_hour, term) = 1
order by gpu_id, pick;

-- name: offers
-- offers.json: every current price offer
select * exclude (age_days) from price_offers order by provider, gpu_id, usd_per_gpu_hour;

-- name: inference
-- estimates.json: serving estimates per model x GPU x weight format
select * from inference_estimates order by model_id, gpu_id, precision;

-- name: training
-- estimates.json: training estimates
select * from training_estimates order by model_id, gpu_id, method;

-- name: reference_serving
-- gpus.json: the reference model's serving speed per GPU
select * from reference_serving;

-- name: reference_training
-- gpus.json: full and LoRA fine-tune speed per GPU of the reference training model
select gpu_id, method, tokens_per_s_per_gpu from training_estimates
where model_id = (select value from parameters where name = 'reference_training_model')
  and method in ('full', 'lora');

-- name: fits
-- fits.json: per GPU and weight format, the largest current model that fits on one (inference, 4k context, batch 1,
-- KV BF16): the first of the list a GPU's page shows (pipeline/render/gpus/queries.sql, fits)
select f.gpu_id, f.precision, f.model_id, m.name, m.params_b
from vram_fit as f join models as m using (model_id)
where f.workload = 'inference' and f.kv_precision = 'bf16' and f.batch_size = 1 and m.is_current
  and f.gpu_count = 1 and f.fits and f.precision in ('bf16', 'fp8', 'int4')
  and f.context_tokens = least(4096, coalesce(m.max_context, 4096))
qualify row_number() over (partition by f.gpu_id, f.precision
                           order by m.params_b desc, f.model_id) = 1
order by all;

-- name: counts
-- llms.txt: how many GPU variants, models and price providers
select (select count(*) from gpus) as gpus, (select count(*) from models) as models,
       (select count(distinct provider) from price_offers) as providers;

-- name: price_changes
-- feeds/prices.atom: every change between a provider's snapshot and its previous one, newest first
select c.*, g.name from price_changes as c left join gpus as g using (gpu_id)
where change in ('added', 'removed', 'replaced', 'repriced')
order by current_observed_on desc nulls last, provider, change, offering, pricing_tier,
         statistic, region, gpu_count, provider_gpu_name;
