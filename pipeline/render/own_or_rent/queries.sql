-- The Own-or-rent page's queries, over the public views only (a reader of the DuckDB file can run them).

-- name: ownership
-- every owned item and hosting with what renting the same costs
select * from ownership_cost order by ownership_scope desc, item, hosting;

-- name: server_rental
-- the rental the seed's server is compared with: the cheapest on-demand 8 x H100 SXM machine
select provider, offering, usd_per_hour, usd_per_gpu_hour, statistic, observed_on,
       observed_date_known, source_id
from rentable_machines
where gpu_id = 'nvidia-h100-sxm-80gb' and instance_gpus = 8 and pricing_tier = 'on-demand'
order by usd_per_hour, provider, offering limit 1;

-- name: llama_8b
-- serving Llama 3.1 8B (FP8 weights, a batch of 16) on one RTX 4090 or one H100 SXM: expected tokens/s and the
-- on-demand price pick
select e.gpu_id, g.name, e.batch_size, e.batch_decode_expected_tokens_per_s as tokens_per_s,
       p.usd_per_gpu_hour, p.provider, p.observed_on, p.observed_date_known
from inference_estimates as e join gpus as g using (gpu_id)
left join price_picks as p on p.gpu_id = e.gpu_id and p.pick = 'on-demand'
where e.model_id = 'llama-3.1-8b' and e.precision = 'fp8' and e.gpus_used = 1
  and e.gpu_id in ('nvidia-rtx-4090-pcie-24gb', 'nvidia-h100-sxm-80gb')
order by e.gpu_id;

-- name: parameters
select name, value, unit, description, citation from parameters
where name in ('amortisation_years', 'electricity_usd_per_kwh', 'pue', 'rack_usd_per_month',
               'servers_per_rack', 'server_gpus', 'gpu_host_share', 'server_price_usd',
               'server_power_kw', 'hours_per_year');

-- name: owned_runs
-- "I own these GPUs": per GPU, what one to eight of them run and how fast (current models, one user)
select e.gpu_id, m.name as model, e.precision, e.batch1_gpus as gpus,
       round(e.decode_expected_tokens_per_s, 1) as tokens_per_s
from inference_estimates as e join models as m using (model_id)
where m.is_current and e.batch1_gpus <= 8 and e.precision in ('bf16', 'fp8', 'int4')
order by e.gpu_id, m.params_b desc, m.name, e.precision;

-- name: gpus
-- every GPU with its board power, launch price and on-demand price pick (the calculator's starting values)
-- (purchase_usd: the card's launch price with its share of a host, as ownership_cost prices it)
select g.gpu_id, g.name, g.tdp_w, g.launch_price_usd,
       (select any_value(o.purchase_usd) from ownership_cost as o
        where o.ownership_scope = 'gpu' and o.gpu_id = g.gpu_id) as purchase_usd,
       p.usd_per_gpu_hour as rental_usd_per_gpu_hour
from gpus as g
left join price_picks as p on p.gpu_id = g.gpu_id and p.pick = 'on-demand'
order by g.name;

-- name: browser_core_parameters
-- the numbers param() reads in the calculator's DuckDB (pipeline/sql/macros/params.sql), from the parameters view
select name, try_cast(value as double) as value, try_cast(value as double[]) as value_list
from parameters order by name;

-- name: home_4090
-- an RTX 4090 owned at home: what a busy hour costs at a quarter, half and all of the hours busy
select u, own_usd_per_busy_gpu_hour(amortisation_usd_per_hour, hosting_usd_per_hour, power_usd_per_hour, gpus, u)
           as usd_per_busy_gpu_hour
from ownership_cost cross join (values (0.25), (0.5), (1.0)) as t(u)
where ownership_scope = 'gpu' and gpu_id = 'nvidia-rtx-4090-pcie-24gb' and hosting = 'home'
order by u;
