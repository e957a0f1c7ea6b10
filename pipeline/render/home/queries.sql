-- The home page's queries, over the public views only. Its answers to three serving questions come from
-- pipeline/sql/plan/plan_options.sql (pipeline.plan.plan_options), over the public views too.

-- name: rankings
-- each GPU's training and inference score and value per dollar, best first, with the reference model value is
-- ranked by (the GPUs that hold it on at most value_max_gpus of them)
select r.workload, r.rank, r.gpu_id, g.name, r.score, r.value_rank, r.cheapest_usd_per_gpu_hour, r.score_per_usd,
       m.name as reference_model_name, cast(v.value as integer) as value_max_gpus
from rankings as r join gpus as g using (gpu_id)
join parameters as p on p.name = case r.workload when 'inference' then 'reference_model'
                                                 else 'reference_training_model' end
join models as m on m.model_id = p.value
join parameters as v on v.name = 'value_max_gpus'
order by r.workload, r.rank, r.gpu_id;

-- name: counts
-- what the site holds, and the newest price snapshot
select (select count(*) from gpus) as gpus, (select count(distinct provider) from price_offers) as providers,
       (select count(*) from price_offers) as offers, (select count(*) from models) as models,
       (select max(observed_on) from price_offers) as newest,
       (select count(*) from spec_claims where claim_id like 'claim:%') as claims;

-- name: cheapest
-- each GPU's on-demand price pick, fastest GPU first
select p.gpu_id, g.name, p.usd_per_gpu_hour, p.provider, p.offering, p.observed_on, p.observed_date_known
from price_picks as p join gpus as g using (gpu_id)
where p.pick = 'on-demand' and p.usd_per_gpu_hour is not null
order by coalesce(g.bf16_tflops, g.fp16_tflops) desc nulls last, g.name;

-- name: cheapest_china
-- each GPU's on-demand price pick in the China-mainland market (mainland providers, priced in CNY; compared only
-- with each other), fastest GPU first: the Chinese edition shows these before the global picks
select p.gpu_id, g.name, case when p.currency = 'CNY' then p.amount_per_hour / p.gpu_count end as cny_per_gpu_hour,
       p.usd_per_gpu_hour, p.provider, p.offering, p.observed_on, p.observed_date_known
from price_picks as p join gpus as g using (gpu_id)
where p.pick = 'on-demand (China mainland)' and p.usd_per_gpu_hour is not null
order by coalesce(g.bf16_tflops, g.fp16_tflops) desc nulls last, g.name;
