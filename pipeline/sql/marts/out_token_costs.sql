-- $ per million output tokens for every price pick (serving batch, reference context, expected speed).
select
    e.model_id,
    e.gpu_id,
    e.precision,
    o.pick,
    o.term,
    o.provider,
    o.offering,
    o.pricing_tier,
    o.statistic,
    o.region,
    o.usd_per_gpu_hour,
    e.gpus_used,
    e.batch_decode_tokens_per_s,
    e.batch_decode_expected_tokens_per_s,
    -- at the expected speed; the bound gives the floor
    e.gpus_used * o.usd_per_gpu_hour / (e.batch_decode_expected_tokens_per_s * 3600) * 1e6 as usd_per_million_tokens,
    e.gpus_used * o.usd_per_gpu_hour / (e.batch_decode_tokens_per_s * 3600) * 1e6 as usd_per_million_tokens_at_bound,
    o.observed_on
from out_inference_estimates as e
join core_price_picks as o using (gpu_id)
where o.usd_per_gpu_hour is not null
