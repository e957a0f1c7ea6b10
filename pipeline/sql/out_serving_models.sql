-- What the serving model needs of each model in each serving weight format: the bytes a decode step
-- reads (out_model_weights), the active parameters a token computes with, and the KV cache per token
-- as values (multiply by the KV format's bytes): full-attention layers cache every token, sliding-window
-- layers at most their window, MLA layers one latent (kv_lora_rank + rope dims) per token.
-- The Planner (pipeline/sql/plan/plan_options.sql and the page's planner-model.js) and the serving
-- measurement bounds read these coefficients, nothing else of a model.
with m as (
    select
        *,
        case when sliding_window is null then 0 else layers - coalesce(full_attention_layers, 0) end as window_layers
    from core_models
)

select
    m.model_id,
    w.format,
    w.native_compute,
    m.name,
    m.layers,
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
    -- cached values per token (K and V, or MLA's latent), summed over the layers that keep every token
    cast(case when m.attention_kind = 'mla' then m.layers * (m.kv_lora_rank + m.qk_rope_head_dim)
              else 2 * m.kv_heads * m.head_dim * (m.layers - m.window_layers) end as double) as kv_values_per_token_full,
    -- ... and over the sliding-window layers, which keep at most sliding_window tokens
    cast(case when m.attention_kind = 'mla' then 0 else 2 * m.kv_heads * m.head_dim * m.window_layers end as double)
        as kv_values_per_token_window,
    m.sliding_window
from m
join out_model_weights as w on w.model_id = m.model_id
where w.format in (select format from core_weight_formats where used_for = 'serving')
