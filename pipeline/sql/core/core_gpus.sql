-- One row per GPU variant: identity from gpus.csv, figures from the canonical claims.
with identity as (
    select
        gpu_id,
        vendor,
        family,
        name,
        form_factor,
        segment,
        -- variants of one chip share its architecture: a variant whose own source omits it takes the family's
        coalesce(architecture, max(architecture) over (partition by family)) as architecture,
        cast(release_year as integer) as release_year,
        coalesce(cast(gpus_per_product as integer), 1) as gpus_per_product,
        -- per-GPU memory: a two-die module's memory is split between its dies
        cast(memory_gb as double) / coalesce(cast(gpus_per_product as integer), 1) as memory_gb,
        memory_type,
        tensor_cores = 'true' as has_tensor_cores,
        source_id as identity_source_id
    from raw_gpus
),

figures as (
    select
        gpu_id,
        max(value) filter (where metric = 'compute' and precision = 'fp64') as fp64_tflops,
        max(value) filter (where metric = 'compute' and precision = 'fp32') as fp32_tflops,
        max(value) filter (where metric = 'compute' and precision = 'tf32') as tf32_tflops,
        max(value) filter (where metric = 'compute' and precision = 'bf16') as bf16_tflops,
        max(value) filter (where metric = 'compute' and precision = 'fp16') as fp16_tflops,
        max(value) filter (where metric = 'compute' and precision = 'fp8') as fp8_tflops,
        max(value) filter (where metric = 'compute' and precision = 'fp4') as fp4_tflops,
        max(value) filter (where metric = 'compute' and precision = 'int8') as int8_tops,
        max(value) filter (where metric = 'memory_bandwidth') as memory_bandwidth_gbs,
        max(value) filter (where metric = 'tdp') as tdp_w,
        max(value) filter (where metric = 'memory_size') as memory_size_gb,
        max(value) filter (where metric = 'memory_usable') as memory_usable_gb,
        max(value) filter (where metric = 'interconnect_bandwidth') as interconnect_gbs,
        max(value) filter (where metric = 'host_bandwidth') as host_gbs,
        max(value) filter (where metric = 'interconnect_gpus') as interconnect_gpus,
        max(value) filter (where metric = 'launch_price') as launch_price_usd,
        max(value) filter (where metric = 'release_year') as release_year,
        bool_or(derived_from_sparse) as has_derived_dense
    from core_canonical
    group by gpu_id
)

select
    i.gpu_id,
    i.name,
    i.vendor,
    i.family,
    i.architecture,
    i.form_factor,
    i.segment,
    -- a sourced release-year figure wins over the identity row's (which may come from a curated dataset)
    coalesce(cast(f.release_year as integer), i.release_year) as release_year,
    -- a canonical memory figure (where vendor documents disagree) wins over the identity row's
    coalesce(f.memory_size_gb, i.memory_gb) as memory_gb,
    -- the memory software gets where the vendor prints less than the physical size (HGX B300: 270 of 288 GB),
    -- else the physical figure; fit and the Planner size against it
    coalesce(f.memory_usable_gb, f.memory_size_gb, i.memory_gb) as usable_memory_gb,
    i.memory_type,
    f.memory_bandwidth_gbs,
    f.fp32_tflops,
    f.tf32_tflops,
    f.bf16_tflops,
    f.fp16_tflops,
    f.fp8_tflops,
    f.fp4_tflops,
    f.int8_tops,
    f.fp64_tflops,
    f.tdp_w,
    f.interconnect_gbs,
    f.host_gbs,
    cast(f.interconnect_gpus as integer) as interconnect_gpus,
    f.launch_price_usd,
    i.gpus_per_product,
    i.has_tensor_cores,
    coalesce(f.has_derived_dense, false) as has_derived_dense,
    -- the best dense 16-bit tensor rate: BF16, else FP16 (Volta, Turing), else the FP32 vector rate
    coalesce(f.bf16_tflops, f.fp16_tflops, f.fp32_tflops) as best_16bit_tflops,
    i.identity_source_id
from identity as i
left join figures as f using (gpu_id)
