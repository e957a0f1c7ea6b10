-- Training and inference scores: each component normalised to the best GPU (= 1), weighted by
-- ranking.yml, summed to 0-100. Value = score per $ of the cheapest on-demand GPU-hour, ranked among the GPUs that
-- hold the workload's reference model on at most value_max_gpus of them (inference: the reference model at FP8 for
-- one sequence; training: a full fine-tune of the reference training model): a card too small for a model a team
-- serves or tunes is cheap, not good value. A GPU-to-GPU link: a PCIe card without one has 0; a module (SXM, OAM,
-- socket) whose link no source gives is unknown (the score is flagged), not 0.
with reference as (
    select
        gpu_id,
        -- expected decode speed of the smallest deployment that serves one sequence, per GPU it uses
        decode_expected_tokens_per_s / batch1_gpus as decode_per_gpu,
        batch1_gpus
    from out_inference_estimates
    where model_id = (select value_text from core_parameters where name = 'reference_model')
        and precision = 'fp8'
),

fits as (
    select gpu_id, avg(fits_one_gpu::integer) as share_fitting
    from out_vram_fit_detail
    where workload = 'inference' and precision = 'int4' and kv_precision = 'bf16'
        and batch_size = 1 and gpu_count = 1
        and context_tokens = (select min(context_tokens) from out_memory_requirements where workload = 'inference')
    group by all
),

training_reference as (
    select gpu_id, tokens_per_s_per_gpu, gpus_needed
    from out_training_estimates
    where model_id = (select value_text from core_parameters where name = 'reference_training_model')
        and method = 'full'
),

training_fits as (
    select gpu_id, avg(fits::integer) as share_fitting
    from out_vram_fit_detail
    where workload = 'training' and method = 'full' and recompute = 'selective' and gpu_count = 8
    group by all
),

component_inputs as (
    select
        g.gpu_id,
        t.tokens_per_s_per_gpu as training_throughput,
        tf.share_fitting as training_fit,
        g.memory_bandwidth_gbs as bandwidth,
        coalesce(g.interconnect_gbs, case when g.form_factor = 'pcie' then 0 end) as interconnect,
        r.decode_per_gpu as decode,
        f.share_fitting as fit,
        coalesce(g.fp8_tflops, g.int8_tops, g.best_16bit_tflops) as low_precision_compute,
        c.usd_per_gpu_hour,
        r.batch1_gpus <= param('value_max_gpus') as holds_inference_reference,
        t.gpus_needed <= param('value_max_gpus') as holds_training_reference
    from core_gpus as g
    left join reference as r using (gpu_id)
    left join fits as f using (gpu_id)
    left join training_reference as t using (gpu_id)
    left join training_fits as tf using (gpu_id)
    left join core_cheapest_offers as c using (gpu_id)
),

normalised as (
    unpivot (
        select
            gpu_id,
            training_throughput / max(training_throughput) over () as training_throughput,
            training_fit / nullif(max(training_fit) over (), 0) as training_fit,
            bandwidth / max(bandwidth) over () as bandwidth,
            interconnect / nullif(max(interconnect) over (), 0) as interconnect,
            decode / max(decode) over () as decode,
            fit / nullif(max(fit) over (), 0) as fit,
            low_precision_compute / max(low_precision_compute) over () as low_precision_compute
        from component_inputs
    )
    on training_throughput, training_fit, bandwidth, interconnect, decode, fit, low_precision_compute
    into name component value normalised
),

weighted as (
    select
        w.workload,
        n.gpu_id,
        w.component,
        n.normalised,
        w.weight
    from core_ranking_weights as w
    join normalised as n using (component)
),

scores as (
    select
        gpu_id,
        workload,
        100 * sum(weight * normalised) as score,
        -- unpivot drops unknown (NULL) components: complete when every weighted component is present
        count(*) = (select count(*) from core_ranking_weights as w2 where w2.workload = any_value(weighted.workload)) as complete,
        max(normalised) filter (where component = 'training_throughput') as training_throughput_component,
        max(normalised) filter (where component = 'training_fit') as training_fit_component,
        max(normalised) filter (where component = 'bandwidth') as bandwidth_component,
        max(normalised) filter (where component = 'interconnect') as interconnect_component,
        max(normalised) filter (where component = 'decode') as decode_component,
        max(normalised) filter (where component = 'fit') as fit_component,
        max(normalised) filter (where component = 'low_precision_compute') as low_precision_compute_component
    from weighted
    group by all
)

, valued as (
    select
        s.*,
        c.usd_per_gpu_hour,
        coalesce(case s.workload when 'inference' then i.holds_inference_reference
                                 else i.holds_training_reference end, false) as holds_reference_model
    from scores as s
    join component_inputs as i using (gpu_id)
    left join core_cheapest_offers as c using (gpu_id)
)

select
    s.gpu_id,
    s.workload,
    round(s.score, 2) as score,
    rank() over (partition by s.workload order by s.score desc) as rank,
    s.complete as all_components_known,
    s.training_throughput_component,
    s.training_fit_component,
    s.bandwidth_component,
    s.interconnect_component,
    s.decode_component,
    s.fit_component,
    s.low_precision_compute_component,
    s.usd_per_gpu_hour as cheapest_usd_per_gpu_hour,
    s.score / s.usd_per_gpu_hour as score_per_usd,
    s.holds_reference_model,
    case when s.usd_per_gpu_hour is not null and s.holds_reference_model then
        rank() over (partition by s.workload, s.usd_per_gpu_hour is not null and s.holds_reference_model
                     order by s.score / s.usd_per_gpu_hour desc)
    end as value_rank
from valued as s
