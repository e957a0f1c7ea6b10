-- LLM catalogue, typed, with parameter counts computed from the architecture by component.
-- Counts are raw parameters; *_params_b columns are billions. Total and active counts are checked
-- against the model card's published figure (core_models check: within 0.5% or explained).
with typed as (
    select
        model_id, name, family, developer,
        cast(layers as integer) as layers,
        cast(hidden_size as bigint) as hidden_size,
        cast(intermediate_size as bigint) as intermediate_size,
        cast(moe_intermediate_size as bigint) as moe_intermediate_size,
        cast(attention_heads as integer) as attention_heads,
        cast(kv_heads as integer) as kv_heads,
        -- an absent head_dim means hidden_size / heads in every architecture of the catalogue
        coalesce(cast(head_dim as integer), cast(hidden_size as integer) // cast(attention_heads as integer)) as head_dim,
        cast(vocab_size as bigint) as vocab_size,
        cast(tied_embeddings as boolean) as tied_embeddings,
        cast(max_context as integer) as max_context,
        attention_kind,
        cast(sliding_window as integer) as sliding_window,
        cast(full_attention_layers as integer) as full_attention_layers,
        cast(q_lora_rank as integer) as q_lora_rank,
        cast(kv_lora_rank as integer) as kv_lora_rank,
        cast(qk_nope_head_dim as integer) as qk_nope_head_dim,
        cast(qk_rope_head_dim as integer) as qk_rope_head_dim,
        cast(v_head_dim as integer) as v_head_dim,
        cast(num_experts as integer) as num_experts,
        cast(experts_per_token as integer) as experts_per_token,
        coalesce(cast(shared_experts as integer), 0) as shared_experts,
        coalesce(cast(first_dense_layers as integer), 0) as first_dense_layers,
        mlp_kind,
        cast(qkv_bias as boolean) as qkv_bias,
        cast(linear_bias as boolean) as linear_bias,
        norm_kind,
        cast(norms_per_layer as integer) as norms_per_layer,
        cast(published_params_b as double) as published_params_b,
        cast(published_active_params_b as double) as published_active_params_b,
        params_note,
        params_document_id as params_source_id,
        source_id
    from raw_models
),

shape as (
    select
        *,
        coalesce(num_experts, 0) > 1 as is_moe,
        case when coalesce(num_experts, 0) > 1 then layers - first_dense_layers else 0 end as moe_layers,
        case when coalesce(num_experts, 0) > 1 then first_dense_layers else layers end as dense_layers,
        coalesce(moe_intermediate_size, intermediate_size) as expert_intermediate_size,
        case mlp_kind when 'gated' then 3 else 2 end as mlp_matrices,
        case norm_kind when 'layernorm' then 2 else 1 end as norm_vectors  -- LayerNorm: weight and bias
    from typed
),

per_layer as (
    select
        *,
        -- attention weight matrices of one layer
        case when attention_kind = 'mla' then
            (case when q_lora_rank is null
                  then hidden_size * attention_heads * (qk_nope_head_dim + qk_rope_head_dim)
                  else hidden_size * q_lora_rank + q_lora_rank * attention_heads * (qk_nope_head_dim + qk_rope_head_dim) end)
            + hidden_size * (kv_lora_rank + qk_rope_head_dim)
            + kv_lora_rank * attention_heads * (qk_nope_head_dim + v_head_dim)
            + attention_heads * v_head_dim * hidden_size
        else
            hidden_size * attention_heads * head_dim            -- q
            + 2 * hidden_size * kv_heads * head_dim              -- k, v
            + attention_heads * head_dim * hidden_size           -- o
        end as attention_matrix_params,
        -- the value projection (GGUF Q4_K_M stores it at more bits in some layers)
        case when attention_kind = 'mla' then 0 else hidden_size * kv_heads * head_dim end as value_matrix_params,
        case when coalesce(linear_bias, false) then attention_heads * head_dim + 2 * kv_heads * head_dim + hidden_size
             when coalesce(qkv_bias, false) then attention_heads * head_dim + 2 * kv_heads * head_dim
             else 0 end as attention_bias_params,
        -- MLA keeps two small norms inside attention (on the q and kv latents)
        case when attention_kind = 'mla' then coalesce(q_lora_rank, 0) + kv_lora_rank else 0 end as attention_norm_params,
        mlp_matrices * hidden_size * intermediate_size as dense_mlp_params,
        hidden_size * intermediate_size as dense_down_params,
        case when coalesce(linear_bias, false) then (mlp_matrices - 1) * intermediate_size + hidden_size else 0 end
            as dense_mlp_bias_params,
        mlp_matrices * hidden_size * expert_intermediate_size as expert_params,
        hidden_size * expert_intermediate_size as expert_down_params,
        hidden_size * coalesce(num_experts, 0) as router_params
    from shape
),

counts as (
    select
        *,
        vocab_size * hidden_size as embedding_params,
        case when tied_embeddings then 0 else vocab_size * hidden_size end as head_params,
        layers * (attention_matrix_params + attention_bias_params + attention_norm_params) as attention_params,
        dense_layers * (dense_mlp_params + dense_mlp_bias_params)
            + moe_layers * (shared_experts * expert_params + router_params) as mlp_params,
        moe_layers * coalesce(num_experts, 0) * expert_params as expert_params_total,
        (layers * norms_per_layer + 1) * norm_vectors * hidden_size as norm_params,
        -- matrices a quantised checkpoint stores at low bits (attention, MLP, experts)
        layers * attention_matrix_params + dense_layers * dense_mlp_params
            + moe_layers * (shared_experts + coalesce(num_experts, 0)) * expert_params as linear_params,
        layers * value_matrix_params + dense_layers * dense_down_params
            + moe_layers * (shared_experts + coalesce(num_experts, 0)) * expert_down_params as value_down_params,
        moe_layers * coalesce(num_experts, 0) * expert_down_params as routed_value_down_params,
        -- routed experts a token does not use
        moe_layers * (coalesce(num_experts, 0) - coalesce(experts_per_token, 0)) * expert_params as idle_expert_params
    from per_layer
)

select
    model_id,
    name,
    family,
    developer,
    (embedding_params + head_params + attention_params + mlp_params + expert_params_total + norm_params) / 1e9 as params_b,
    (embedding_params + head_params + attention_params + mlp_params + expert_params_total + norm_params
        - idle_expert_params) / 1e9 as active_params_b,
    published_params_b,
    published_active_params_b,
    (embedding_params + head_params + attention_params + mlp_params + expert_params_total + norm_params) / 1e9
        / published_params_b - 1 as params_deviation,
    (embedding_params + head_params + attention_params + mlp_params + expert_params_total + norm_params
        - idle_expert_params) / 1e9 / published_active_params_b - 1 as active_params_deviation,
    params_note,
    embedding_params / 1e9 as embedding_params_b,
    head_params / 1e9 as head_params_b,
    attention_params / 1e9 as attention_params_b,
    mlp_params / 1e9 as mlp_params_b,
    expert_params_total / 1e9 as expert_params_b,
    norm_params / 1e9 as norm_params_b,
    linear_params / 1e9 as linear_params_b,
    value_down_params / 1e9 as value_down_params_b,
    -- parameters kept at 16 bits by every format except GGUF: norms, biases, MoE routers
    (embedding_params + head_params + attention_params + mlp_params + expert_params_total + norm_params
        - linear_params - embedding_params - head_params) / 1e9 as other_params_b,
    expert_params / 1e9 as params_per_expert_layer_b,
    routed_value_down_params / 1e9 as routed_value_down_params_b,
    layers,
    cast(hidden_size as integer) as hidden_size,
    cast(intermediate_size as integer) as intermediate_size,
    cast(moe_intermediate_size as integer) as moe_intermediate_size,
    attention_heads,
    kv_heads,
    head_dim,
    cast(vocab_size as integer) as vocab_size,
    tied_embeddings,
    max_context,
    attention_kind,
    sliding_window,
    full_attention_layers,
    q_lora_rank,
    kv_lora_rank,
    qk_nope_head_dim,
    qk_rope_head_dim,
    v_head_dim,
    num_experts,
    experts_per_token,
    shared_experts,
    first_dense_layers,
    moe_layers,
    mlp_kind,
    qkv_bias,
    linear_bias,
    norm_kind,
    norms_per_layer,
    is_moe,
    params_source_id,
    source_id
from counts
