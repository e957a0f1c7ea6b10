-- $ per dense TFLOP-hour, per price pick and precision (INT8 is operations, not FLOPs: excluded).
with precisions as (
    unpivot (
        select gpu_id, fp32_tflops as fp32, tf32_tflops as tf32, bf16_tflops as bf16,
            fp16_tflops as fp16, fp8_tflops as fp8, fp4_tflops as fp4
        from core_gpus
    )
    on fp32, tf32, bf16, fp16, fp8, fp4
    into name precision value dense_tflops
)

select
    o.gpu_id,
    o.pick,
    o.term,
    o.provider,
    o.offering,
    o.pricing_tier,
    o.statistic,
    o.region,
    p.precision,
    o.usd_per_gpu_hour,
    p.dense_tflops,
    o.usd_per_gpu_hour / p.dense_tflops as usd_per_tflop_hour,
    o.observed_on
from core_price_picks as o
join precisions as p using (gpu_id)
where p.dense_tflops is not null and o.usd_per_gpu_hour is not null
