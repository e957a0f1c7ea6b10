-- Memory needed per model and scenario, independent of the GPU (GB = 10^9 bytes).
-- Weights are counted per component at each format's own bits (out_model_weights); the KV cache
-- with the architecture's own shape; training activations after Korthikanti et al. 2022 with the
-- model's real attention and MLP widths, FlashAttention (no s^2 term) and the logits at the real
-- vocabulary.
with m as (
    select
        *,
        -- MLP width a token's activations pass through (MoE: its experts and the shared ones)
        case when is_moe
            then ((layers - moe_layers) * intermediate_size
                  + moe_layers * (experts_per_token + shared_experts) * coalesce(moe_intermediate_size, intermediate_size))
                 / layers
            else intermediate_size end as active_intermediate,
        case mlp_kind when 'gated' then 3 else 2 end as mlp_tensors
    from core_models
),

kv_formats as (
    select * from (values ('bf16', param('bytes_bf16')), ('fp8', param('bytes_fp8'))) as t(kv_precision, kv_bytes)
),

contexts as (
    select unnest(param_list('inference_contexts')) as ctx
),

inference as (
    select distinct
        m.model_id,
        'inference' as workload,
        'serve' as method,
        w.format as precision,
        k.kv_precision,
        cast(null as varchar) as recompute,
        cast(least(c.ctx, m.max_context) as integer) as context_tokens,
        cast(b.batch as integer) as batch_size,
        w.weights_gb,  -- all experts stay resident for MoE
        -- KV cache of the batch (the serving model's formula, pipeline/sql/macros/serving.sql): MLA caches one
        -- latent (kv_lora_rank + rope dims) per token and layer, other kinds K and V; windowed layers keep
        -- at most the window, linear-attention layers a fixed state per sequence
        b.batch * serve_kv_gb(m.kv_values_per_token_full, m.kv_values_per_token_window, m.sliding_window,
                              m.state_values_per_sequence, k.kv_bytes, least(c.ctx, m.max_context)) as kv_cache_gb,
        0.0 as gradients_gb,
        0.0 as optimizer_gb,
        0.0 as activations_gb
    from m
    join out_model_weights as w on w.model_id = m.model_id and w.format <> 'nf4'
    cross join kv_formats as k
    cross join contexts as c
    cross join (select unnest(param_list('inference_batches')) as batch) as b
),

training_methods as (
    select * from (values
        ('full', 'bf16', 'none'), ('full', 'bf16', 'selective'), ('full', 'bf16', 'full'),
        ('lora', 'bf16', 'none'), ('lora', 'bf16', 'full'),
        ('qlora', 'nf4', 'none'), ('qlora', 'nf4', 'full')
    ) as t(method, precision, recompute)
),

training_shapes as (
    select
        m.*,
        t.method, t.precision, t.recompute,
        w.weights_gb as frozen_weights_gb,
        least(param('training_context'), m.max_context) as s,
        param('training_micro_batch') as b,
        -- LoRA adapters of rank r on q, k, v, o: r x (fan_in + fan_out) per projection per layer
        m.layers * param('lora_rank') * (
            2 * (m.hidden_size + m.attention_heads * m.head_dim)
            + 2 * (m.hidden_size + m.kv_heads * m.head_dim)
        ) / 1e9 as adapter_params_b,
        -- bytes per token and layer kept for the backward pass (Korthikanti et al. 2022, generalised):
        -- attention: QKV input 2h, Q 2*a*d, K and V 4*kv*d, output-projection input 2*a*d, dropout mask h;
        -- MLP: input 2h, n intermediate tensors 2*i each, dropout mask h; two norm inputs 4h
        (2 * m.hidden_size + 2 * m.attention_heads * m.head_dim + 4 * m.kv_heads * m.head_dim
            + 2 * m.attention_heads * m.head_dim + param('dropout_masks') * m.hidden_size)
        + (2 * m.hidden_size + m.mlp_tensors * 2 * m.active_intermediate + param('dropout_masks') * m.hidden_size)
        + 4 * m.hidden_size as linear_act_bytes,
        -- the s^2 terms of eager attention: softmax output 2*a*s^2, with dropout its mask a*s^2 and output 2*a*s^2
        (2 + 3 * param('dropout_masks')) * m.attention_heads as score_act_bytes
    from m
    cross join training_methods as t
    join out_model_weights as w on w.model_id = m.model_id and w.format = t.precision
),

training as (
    select
        model_id,
        'training' as workload,
        method,
        precision,
        cast(null as varchar) as kv_precision,
        recompute,
        cast(s as integer) as context_tokens,
        cast(b as integer) as batch_size,
        frozen_weights_gb + case when method = 'full' then 0 else adapter_params_b * param('bytes_bf16') end
            as weights_gb,
        0.0 as kv_cache_gb,
        case method when 'full' then params_b else adapter_params_b end * param('bytes_bf16') as gradients_gb,
        -- FP32 master weights + Adam m and v: the state bytes not already counted as weights and grads
        case method when 'full' then params_b else adapter_params_b end
            * (param('full_ft_state_bytes') - 2 * param('bytes_bf16')) as optimizer_gb,
        (case recompute
            when 'full' then layers * s * b * 2 * hidden_size
            when 'selective' then layers * s * b * linear_act_bytes
            else layers * s * b * (linear_act_bytes + (1 - param('flash_attention')) * score_act_bytes * s)
         end
         -- logits for the loss at the real vocabulary
         + s * b * vocab_size * param('logits_bytes_per_element')) / 1e9 as activations_gb
    from training_shapes
),

parts as (
    select * from inference
    union all
    select * from training
)

select
    -- one id per scenario, stable across builds of the same catalogue
    row_number() over (order by model_id, workload, method, precision, kv_precision, recompute, context_tokens, batch_size)
        as scenario_id,
    *,
    param('runtime_overhead_gb')
        + param('runtime_overhead_fraction') * (weights_gb + kv_cache_gb + gradients_gb + optimizer_gb + activations_gb)
        as overhead_gb,
    weights_gb + kv_cache_gb + gradients_gb + optimizer_gb + activations_gb
        + param('runtime_overhead_gb')
        + param('runtime_overhead_fraction') * (weights_gb + kv_cache_gb + gradients_gb + optimizer_gb + activations_gb)
        as required_gb
from parts
