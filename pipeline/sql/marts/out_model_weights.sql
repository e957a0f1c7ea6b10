-- Weights of each model in each format (GB = 10^9 bytes), by component, as a checkpoint stores them,
-- and the bytes one decode step reads: everything but the input embedding table (a lookup reads one
-- row of it) and, for MoE, only the routed experts the batch touches (expert_gb each).
with w as (
select
    m.model_id,
    f.format,
    f.label as format_label,
    f.native_compute,
    ((m.linear_params_b - m.expert_params_b) * f.linear_bits + m.expert_params_b * f.expert_bits
        + m.value_down_params_b * f.value_down_extra_bits) / 8 as linear_gb,
    m.embedding_params_b * f.embedding_bits / 8 as embedding_gb,
    m.head_params_b * f.head_bits / 8 as head_gb,
    m.other_params_b * f.other_bits / 8 as other_gb,
    ((m.linear_params_b - m.expert_params_b) * f.linear_bits + m.expert_params_b * f.expert_bits
        + m.value_down_params_b * f.value_down_extra_bits
        + m.embedding_params_b * f.embedding_bits + m.head_params_b * f.head_bits
        + m.other_params_b * f.other_bits) / 8 as weights_gb,
    m.params_b,
    ((m.linear_params_b - m.expert_params_b) * f.linear_bits
        + (m.value_down_params_b - m.routed_value_down_params_b) * f.value_down_extra_bits
        + m.head_params_b * f.head_bits + m.other_params_b * f.other_bits) / 8 as dense_read_gb,
    case when m.is_moe then
        (m.params_per_expert_layer_b * f.expert_bits
         + m.routed_value_down_params_b / (m.moe_layers * m.num_experts) * f.value_down_extra_bits) / 8
    end as expert_gb
from core_models as m
cross join core_weight_formats as f
where f.format not in ('mxfp4-moe', 'gguf-mxfp4-moe', 'int4-moe') or m.is_moe  -- experts apart only where there are experts
)

select * exclude (params_b), weights_gb * 8 / params_b as bits_per_weight
from w
