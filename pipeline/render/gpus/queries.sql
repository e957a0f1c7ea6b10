-- The GPU index and one page per GPU: queries over the public views only.
-- `best_16bit_tflops` is core_gpus' dense 16-bit rate (BF16, else FP16, else the FP32 vector rate), which the
-- `gpus` view leaves out: it orders the index, feeds its charts and measures how near two GPUs are.

-- name: gpu_index
-- every GPU variant, fastest dense 16-bit rate first (the columns in core_gpus' order: the charts embed them)
select gpu_id, name, vendor, family, architecture, form_factor, segment, release_year, memory_gb, memory_type,
       memory_bandwidth_gbs, fp32_tflops, tf32_tflops, bf16_tflops, fp16_tflops, fp8_tflops, fp4_tflops, int8_tops,
       fp64_tflops, tdp_w, interconnect_gbs, host_gbs, launch_price_usd, gpus_per_product, has_tensor_cores,
       has_derived_dense, coalesce(bf16_tflops, fp16_tflops, fp32_tflops) as best_16bit_tflops,
       source_id as identity_source_id
from gpus
order by best_16bit_tflops desc nulls last, name;

-- name: gpus
-- every GPU variant by name, with its dense 16-bit rate
select *, coalesce(bf16_tflops, fp16_tflops, fp32_tflops) as best_16bit_tflops
from gpus
order by name;

-- name: claims
-- every figure of every GPU with its source
select c.*, s.title, s.url, s.accessed_on, s.publisher
from spec_claims as c
left join sources as s using (source_id)
order by metric, precision, sparsity, unit_kind, accumulate, c.source_id, c.source_row;

-- name: offers
-- the current offers mapped to a variant, cheapest first
select *
from price_offers
where gpu_id is not null
order by usd_per_gpu_hour, provider, offering, pricing_tier, statistic, region;

-- name: history
-- every observation of the offers mapped to a variant, in its provider's colour
select h.*, v.colour as provider_colour
from price_history as h
join providers as v using (provider)
where h.gpu_id is not null
order by h.observed_on, h.provider, h.offering, h.pricing_tier, h.statistic, h.region;

-- name: rankings
-- each GPU's rank and score per workload
select * from rankings order by workload, gpu_id;

-- name: serving
-- the reference model's serving expectation per GPU (expected and bound), as Compare and gpus.json show it
select * from reference_serving;

-- name: fits
-- the current models that fit on one GPU per weight format (inference, 4k context or the model's maximum, batch 1,
-- KV cache BF16), largest first
select f.gpu_id, f.precision, string_agg(m.name, ', ' order by m.params_b desc, f.model_id) as models, count(*) as n
from vram_fit as f
join models as m using (model_id)
where f.workload = 'inference' and f.kv_precision = 'bf16' and f.batch_size = 1 and m.is_current
  and f.gpu_count = 1 and f.fits and f.precision in ('bf16', 'fp8', 'int4')
  and f.context_tokens = least(4096, coalesce(m.max_context, 4096))
group by all;
