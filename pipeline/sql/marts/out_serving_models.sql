-- What the serving model needs of each model in each serving weight format: the bytes a decode step
-- reads (out_model_weights), the active parameters a token computes with, and the KV cache per token
-- as values (multiply by the KV format's bytes): full-attention layers cache every token, windowed layers at
-- most their window, MLA layers one latent (kv_lora_rank + rope dims) per token, linear-attention layers a
-- fixed state per sequence.
-- The Planner (pipeline/sql/plan/plan_options.sql, in the command line and in the page) and the serving
-- measurement bounds read these coefficients, nothing else of a model.
with formats as (
    -- every serving format, and `native`: the format the official checkpoint ships in
    select format, format as resolved_format from core_weight_formats where used_for = 'serving'
    union all
    select 'native', null
)

select
    m.model_id,
    f.format,
    w.format as resolved_format,
    w.native_compute,
    m.name,
    m.layers,
    m.hidden_size,
    m.attention_heads,
    m.kv_heads,
    m.attention_kind = 'mla' as mla,
    m.active_params_b,
    m.params_b,
    m.max_context,
    m.is_moe,
    coalesce(m.moe_layers, 0) as moe_layers,
    coalesce(m.num_experts, 1) as num_experts,
    coalesce(m.experts_per_token, 1) as experts_per_token,
    w.weights_gb,
    w.dense_read_gb,
    coalesce(w.expert_gb, 0) as expert_gb,
    -- cached values per token (K and V, MLA's latent and an indexer key) summed over the layers that keep every
    -- token, over the windowed layers (at most sliding_window tokens each), and the fixed state of the
    -- linear-attention layers per sequence (core_models)
    m.kv_values_per_token_full,
    m.kv_values_per_token_window,
    m.state_values_per_sequence,
    m.sliding_window,
    -- attention FLOPs per token per context token it attends to (QK and AV, 2 FLOPs a multiply-add): per query head
    -- twice its key and value widths, summed over the layers that attend to every token (full) and the windowed
    -- ones; MLA decodes on its latent (absorbed: kv_lora_rank + rope for QK, kv_lora_rank for AV) and prefills on
    -- the expanded heads (qk_nope + rope for QK, v_head_dim for AV); a sparse indexer (DeepSeek V3.2) attends to at
    -- most index_topk tokens; linear-attention layers cost a fixed amount per token (in their parameters)
    case when m.attention_kind = 'mla'
         then 2.0 * m.attention_heads * (2 * m.kv_lora_rank + m.qk_rope_head_dim) * m.layers
         else 2.0 * m.attention_heads / m.kv_heads * m.kv_values_per_token_full end as attention_flops_full,
    case when m.attention_kind = 'mla'
         then 2.0 * m.attention_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) * m.layers
         else 2.0 * m.attention_heads / m.kv_heads * m.kv_values_per_token_full end as prefill_attention_flops_full,
    2.0 * m.attention_heads / m.kv_heads * m.kv_values_per_token_window as attention_flops_window,
    m.index_topk as attention_topk
from core_models as m
cross join formats as f
join out_model_weights as w on w.model_id = m.model_id and w.format = coalesce(f.resolved_format, m.native_format)
