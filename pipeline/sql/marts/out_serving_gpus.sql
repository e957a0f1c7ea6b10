-- What the serving model needs of each GPU: memory a model may use, peak bandwidth, dense compute at
-- 16 bits, FP8 and FP4 (NULL without such units: those weights then compute in 16 bits), whether GPUs talk
-- over NVLink/Infinity Fabric, the latency of one small all-reduce between them and their links' bandwidth
-- (expectation only).
-- A serving engine's kernels follow the die, not the marketing generation: an architecture with HBM and GDDR dies
-- serves them as two (Blackwell's GB20x, compute capability 12.0, against B200's 10.0; Ampere's GA10x, 8.6, against
-- A100's 8.0): other tensor-core instructions, other kernels, other memory. The calibration fits and the Planner
-- picks shares by this architecture.
with g as (
    select
        *,
        architecture || case when memory_type like 'GDDR%'
                                  and bool_or(memory_type like 'HBM%') over (partition by architecture)
                             then ' (GDDR)' else '' end as serving_architecture
    from core_gpus
    where memory_gb is not null and memory_bandwidth_gbs is not null and best_16bit_tflops is not null
)

select
    gpu_id,
    name,
    vendor,
    serving_architecture as architecture,
    memory_gb,
    usable_memory_gb,
    usable_memory_gb * param('usable_memory_fraction') as usable_gb_per_gpu,
    memory_bandwidth_gbs,
    best_16bit_tflops as bf16_compute_tflops,
    fp8_tflops as fp8_compute_tflops,
    fp4_tflops as fp4_compute_tflops,
    interconnect_gbs is not null as has_gpu_link,
    -- the weight formats a serving engine runs on this GPU's architecture (core_engine_formats), and whether its
    -- 16-bit checkpoints compute as FP16 (no BF16 units: Volta, Turing)
    coalesce((select list(e.format order by e.format) from core_engine_formats as e
              where e.architecture = g.architecture), []::varchar[]) as engine_formats,
    bf16_tflops is null as no_bf16_units,
    -- published serving figures on GPUs of this serving architecture (none: the engine's efficiencies, fitted on
    -- other hardware, are applied unseen, e.g. Cloud TPU and Trainium)
    (select count(*) from core_serving_measurements as m join g as mg using (gpu_id)
     where mg.serving_architecture = g.serving_architecture) as serving_figures,
    case when interconnect_gbs is not null then param('allreduce_latency_us_nvlink')
         else param('allreduce_latency_us_pcie') end as allreduce_us,
    -- what one GPU's links carry to the others, GB/s in both directions: NVLink or Infinity Fabric where a source
    -- gives it, else its PCIe link as its datasheet prints it (host_gbs), else PCIe 4.0 x16 (pcie_gbs a direction)
    coalesce(interconnect_gbs, host_gbs, 2 * param('pcie_gbs')) as link_gbs,
    -- how many GPUs that interconnect joins where a bridge joins fewer than a machine holds (2, or 4), and the PCIe
    -- link beyond them (serve_link_gbs)
    interconnect_gpus as link_gpus,
    coalesce(host_gbs, 2 * param('pcie_gbs')) as pcie_link_gbs
from g
