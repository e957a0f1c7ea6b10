-- Which canonical figures are missing, per GPU (NULL = nobody we read publishes it). A precision the
-- architecture does not support is not missing: TF32 from Ampere and CDNA 3 (CDNA 4 emulates it in
-- software through BF16, per AMD's ROCm documentation), BF16 from Ampere and CDNA 2, INT8 tensor from
-- Turing (Volta has none); FP8 from Ada Lovelace, Hopper, Blackwell, CDNA 3 and Gaudi, and where Google's and
-- AWS's documents print an FP8 rate (TPU v5p, v6e, TPU7x; Trainium2's NeuronCore-v3); FP4 from Blackwell and CDNA 4.
with expected as (
    select
        *,
        coalesce(architecture in ('Ampere', 'Ada Lovelace', 'Hopper', 'Blackwell', 'CDNA 3'), true) as has_tf32,
        coalesce(architecture in ('Ampere', 'Ada Lovelace', 'Hopper', 'Blackwell', 'CDNA 2', 'CDNA 3', 'CDNA 4'), true) as has_bf16,
        coalesce(architecture <> 'Volta', true) as has_int8_tensor,
        coalesce(architecture in ('Ada Lovelace', 'Hopper', 'Blackwell', 'CDNA 3', 'CDNA 4', 'Gaudi 2', 'Gaudi 3',
                                     'TPU v5p', 'TPU v6e', 'TPU7x', 'NeuronCore-v3'), false) as has_fp8,
        coalesce(architecture in ('Blackwell', 'CDNA 4'), false) as has_fp4
    from core_gpus
),

cols as (
    unpivot (
        select
            gpu_id,
            memory_bandwidth_gbs is null as memory_bandwidth_gbs,
            fp32_tflops is null as fp32_tflops,
            tf32_tflops is null and has_tensor_cores and has_tf32 as tf32_tflops,
            bf16_tflops is null and has_tensor_cores and has_bf16 as bf16_tflops,
            fp16_tflops is null and has_tensor_cores as fp16_tflops,
            fp8_tflops is null and has_tensor_cores and has_fp8 as fp8_tflops,
            fp4_tflops is null and has_tensor_cores and has_fp4 as fp4_tflops,
            int8_tops is null and has_tensor_cores and has_int8_tensor as int8_tops,
            fp64_tflops is null as fp64_tflops,
            tdp_w is null as tdp_w,
            -- NVIDIA and AMD publish list prices for workstation and consumer cards, not for data-centre parts
            launch_price_usd is null and segment <> 'datacenter' as launch_price_usd,
            release_year is null as release_year,
            architecture is null as architecture,
            memory_type is null as memory_type,
            memory_gb is null as memory_gb
        from expected
    )
    on memory_bandwidth_gbs, fp32_tflops, tf32_tflops, bf16_tflops, fp16_tflops, fp8_tflops, fp4_tflops, int8_tops,
        fp64_tflops, tdp_w, launch_price_usd, release_year, architecture, memory_type, memory_gb
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
