-- Which canonical figures are missing, per GPU (NULL = nobody we read publishes it).
with cols as (
    unpivot (
        select
            gpu_id,
            memory_bandwidth_gbs is null as memory_bandwidth_gbs,
            fp32_tflops is null as fp32_tflops,
            tf32_tflops is null and has_tensor_cores as tf32_tflops,
            bf16_tflops is null and has_tensor_cores as bf16_tflops,
            fp16_tflops is null and has_tensor_cores as fp16_tflops,
            int8_tops is null and has_tensor_cores as int8_tops,
            fp64_tflops is null as fp64_tflops,
            tdp_w is null as tdp_w,
            launch_price_usd is null as launch_price_usd,
            release_year is null as release_year
        from core_gpus
    )
    on memory_bandwidth_gbs, fp32_tflops, tf32_tflops, bf16_tflops, fp16_tflops, int8_tops,
        fp64_tflops, tdp_w, launch_price_usd, release_year
    into name figure value missing
)

select
    g.gpu_id,
    g.name,
    count(*) filter (where c.missing) as missing_count,
    string_agg(c.figure, ', ' order by c.figure) filter (where c.missing) as missing_figures,
    (select count(*) from core_price_offers as o where o.gpu_id = g.gpu_id) as current_offers
from core_gpus as g
join cols as c using (gpu_id)
group by all
