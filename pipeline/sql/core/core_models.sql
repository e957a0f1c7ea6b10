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
        coalesce(cast(window_kind as varchar), case when sliding_window is not null then 'sliding' end) as window_kind,
        coalesce(cast(attention_sinks as boolean), false) as attention_sinks,
        coalesce(cast(linear_attention_layers as integer), 0) as linear_attention_layers,
        cast(linear_key_heads as integer) as linear_key_heads,
        cast(linear_value_heads as integer) as linear_value_heads,
        cast(linear_key_head_dim as integer) as linear_key_head_dim,
        cast(linear_value_head_dim as integer) as linear_value_head_dim,
        cast(linear_conv_kernel as integer) as linear_conv_kernel,
        cast(index_n_heads as integer) as index_n_heads,
        cast(index_head_dim as integer) as index_head_dim,
        cast(index_topk as integer) as index_topk,
        coalesce(cast(mtp_layers as integer), 0) as mtp_layers,
        coalesce(cast(native_format as varchar), 'bf16') as native_format,
        coalesce(cast(status as varchar), 'current') as status,
        cast(superseded_by as varchar) as superseded_by,
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
        case norm_kind when 'layernorm' then 2 else 1 end as norm_vectors,  -- LayerNorm: weight and bias
        -- layers by attention kind: windowed (sliding or chunked) keep at most the window, linear-attention
        -- layers a fixed state, the others every token
        case when sliding_window is null then 0
             else layers - coalesce(full_attention_layers, 0) - linear_attention_layers end as window_layers,
        linear_key_heads * linear_key_head_dim as linear_key_dim,
        linear_value_heads * linear_value_head_dim as linear_value_dim
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
        -- MLA keeps two small norms inside attention (on the q and kv latents); learned sinks are one logit per
        -- head (gpt-oss)
        case when attention_kind = 'mla' then coalesce(q_lora_rank, 0) + kv_lora_rank else 0 end
            + case when attention_sinks then attention_heads else 0 end as attention_norm_params,
        -- a sparse-attention indexer (DeepSeek V3.2): its query heads from the q latent, one key, head weights
        case when index_head_dim is null then 0
             else q_lora_rank * index_n_heads * index_head_dim + hidden_size * index_head_dim
                  + hidden_size * index_n_heads + 2 * index_head_dim end as indexer_params,
        -- a Gated DeltaNet layer (Qwen3-Next): q, k, v and gate projections, per-head decay and step inputs, the
        -- short convolution over q, k and v, a gated norm and the output projection
        case when linear_attention_layers = 0 then 0
             else hidden_size * (2 * linear_key_dim + 2 * linear_value_dim) + hidden_size * 2 * linear_value_heads
                  + (2 * linear_key_dim + linear_value_dim) * linear_conv_kernel + 2 * linear_value_heads
                  + linear_value_head_dim + linear_value_dim * hidden_size end as linear_attention_params,
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
        (layers - linear_attention_layers) * (attention_matrix_params + attention_bias_params + attention_norm_params)
            + layers * indexer_params + linear_attention_layers * linear_attention_params as attention_params,
        dense_layers * (dense_mlp_params + dense_mlp_bias_params)
            + moe_layers * (shared_experts * expert_params + router_params) as mlp_params,
        moe_layers * coalesce(num_experts, 0) * expert_params as expert_params_total,
        (layers * norms_per_layer + 1) * norm_vectors * hidden_size as norm_params,
        -- matrices a quantised checkpoint stores at low bits (attention, MLP, experts)
        (layers - linear_attention_layers) * attention_matrix_params + linear_attention_layers * linear_attention_params
            + dense_layers * dense_mlp_params
            + moe_layers * (shared_experts + coalesce(num_experts, 0)) * expert_params as linear_params,
        (layers - linear_attention_layers) * value_matrix_params + dense_layers * dense_down_params
            + moe_layers * (shared_experts + coalesce(num_experts, 0)) * expert_down_params as value_down_params,
        moe_layers * coalesce(num_experts, 0) * expert_down_params as routed_value_down_params,
        -- routed experts a token does not use
        moe_layers * (coalesce(num_experts, 0) - coalesce(experts_per_token, 0)) * expert_params as idle_expert_params,
        -- multi-token-prediction layers the checkpoint ships beside the model (DeepSeek V3, GLM-4.5): one more
        -- layer each (MoE where the model is), its projection of two hidden states and two norms; published
        -- counts leave them out
        mtp_layers * (attention_matrix_params + attention_bias_params + attention_norm_params + indexer_params
                      + case when coalesce(num_experts, 0) > 1
                             then (shared_experts + num_experts) * expert_params + router_params
                             else dense_mlp_params end
                      + 2 * hidden_size * hidden_size + (norms_per_layer + 3) * norm_vectors * hidden_size) as mtp_params,
        -- cached values per token: K and V (or MLA's latent, plus an indexer key) on every layer that keeps
        -- every token, and on the windowed layers, which keep at most sliding_window tokens
        case when attention_kind = 'mla' then layers * (kv_lora_rank + qk_rope_head_dim + coalesce(index_head_dim, 0))
             else 2 * kv_heads * head_dim * (layers - window_layers - linear_attention_layers) end as kv_values_per_token_full,
        case when attention_kind = 'mla' then 0 else 2 * kv_heads * head_dim * window_layers end as kv_values_per_token_window,
        -- the fixed state a linear-attention layer keeps per sequence, whatever its length: the recurrent
        -- state (value heads x key dim x value dim) and the convolution's last kernel - 1 inputs
        case when linear_attention_layers = 0 then 0
             else linear_attention_layers * (linear_value_heads * linear_key_head_dim * linear_value_head_dim
                  + (2 * linear_key_dim + linear_value_dim) * (linear_conv_kernel - 1)) end as state_values_per_sequence
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
    mtp_params / 1e9 as mtp_params_b,
    -- what the checkpoint's files hold: each MTP module stores its own copy of the embedding table and output head
    -- (DeepSeek-V3's card: 685B = 671B main model + 14B MTP module)
    (embedding_params + head_params + attention_params + mlp_params + expert_params_total + norm_params + mtp_params
        + mtp_layers * (embedding_params + vocab_size * hidden_size)) / 1e9 as checkpoint_params_b,
    cast(kv_values_per_token_full as double) as kv_values_per_token_full,
    cast(kv_values_per_token_window as double) as kv_values_per_token_window,
    cast(state_values_per_sequence as double) as state_values_per_sequence,
    window_layers,
    window_kind,
    attention_sinks,
    linear_attention_layers,
    linear_key_heads,
    linear_value_heads,
    linear_key_head_dim,
    linear_value_head_dim,
    linear_conv_kernel,
    index_n_heads,
    index_head_dim,
    index_topk,
    mtp_layers,
    native_format,
    status,
    status = 'current' as is_current,
    superseded_by,
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
