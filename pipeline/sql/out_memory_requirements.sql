-- Memory needed per model and scenario, independent of the GPU (GB = 10^9 bytes).
with m as (
    select
        *,
        -- layers whose KV cache is capped at the sliding window
        case when sliding_window is null then 0 else layers - coalesce(full_attention_layers, 0) end as window_layers
    from core_models
),

weight_formats as (
    select * from (values
        ('fp32', param('bytes_fp32')),
        ('bf16', param('bytes_bf16')),
        ('fp8', param('bytes_fp8') + param('quant_scale_bytes_fp8')),
        ('int8', param('bytes_int8')),
        ('int4', param('bytes_int4') + param('quant_scale_bytes_int4'))
    ) as t(precision, bytes_per_param)
),

kv_formats as (
    select * from (values ('bf16', param('bytes_bf16')), ('fp8', param('bytes_fp8'))) as t(kv_precision, kv_bytes)
),

inference as (
    select distinct
        m.model_id,
        'inference' as workload,
        'serve' as method,
        w.precision,
        k.kv_precision,
        cast(null as varchar) as recompute,
        cast(least(c.ctx, coalesce(m.max_context, c.ctx)) as integer) as context_tokens,
        cast(b.batch as integer) as batch_size,
        m.params_b * w.bytes_per_param as weights_gb,  -- all experts stay resident for MoE
        -- KV cache per token and layer: MLA caches one latent (kv_lora_rank + rope dims);
        -- other kinds 2 (K and V) x kv_heads x head_dim; sliding-window layers keep only the window
        case
            when m.attention_kind = 'mla' then
                m.layers * (m.kv_lora_rank + m.qk_rope_head_dim) * least(c.ctx, coalesce(m.max_context, c.ctx))
            else
                2 * m.kv_heads * m.head_dim * (
                    (m.layers - m.window_layers) * least(c.ctx, coalesce(m.max_context, c.ctx))
                    + m.window_layers * least(c.ctx, coalesce(m.max_context, c.ctx), coalesce(m.sliding_window, c.ctx))
                )
        end * b.batch * k.kv_bytes / 1e9 as kv_cache_gb,
        0.0 as gradients_gb,
        0.0 as optimizer_gb,
        0.0 as activations_gb
    from m
    cross join weight_formats as w
    cross join kv_formats as k
    cross join (select unnest(param_list('inference_contexts')) as ctx) as c
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
        least(param('training_context'), coalesce(m.max_context, param('training_context'))) as s,
        param('training_micro_batch') as b,
        -- LoRA adapters of rank r on q, k, v, o: r x (fan_in + fan_out) per projection per layer
        m.layers * param('lora_rank') * (
            2 * (m.hidden_size + m.attention_heads * m.head_dim)
            + 2 * (m.hidden_size + m.kv_heads * m.head_dim)
        ) / 1e9 as adapter_params_b
    from m cross join training_methods as t
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
        case method
            when 'full' then params_b * param('bytes_bf16')
            when 'lora' then params_b * param('bytes_bf16') + adapter_params_b * param('bytes_bf16')
            when 'qlora' then params_b * (param('bytes_int4') + param('quant_scale_bytes_nf4'))
                + adapter_params_b * param('bytes_bf16')
        end as weights_gb,
        0.0 as kv_cache_gb,
        case method when 'full' then params_b else adapter_params_b end * param('bytes_bf16') as gradients_gb,
        -- FP32 master weights + Adam m and v: the state bytes not already counted as weights and grads
        case method when 'full' then params_b else adapter_params_b end
            * (param('full_ft_state_bytes') - 2 * param('bytes_bf16')) as optimizer_gb,
        -- Korthikanti et al. 2022: bytes per layer s*b*h*(34 + 5*a*s/h); 34 with selective, 2 with full recomputation
        layers * s * b * hidden_size * case recompute
            when 'none' then 34 + 5 * attention_heads * s / hidden_size
            when 'selective' then 34
            when 'full' then 2
        end / 1e9 as activations_gb
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
