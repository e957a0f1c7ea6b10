-- The seed articles' model memory claims, compared with what the weights alone take at each format
-- and with the full inference requirement (4k context, batch 1, BF16 KV cache). First match within
-- 10% wins, closest first. Weights only includes plain 4-bit weights without quantisation scales.
with claims as (
    select
        row_label,
        model_id,
        cast(params_b as double) as params_b_claimed,
        cast(vram_gb_claimed as double) as vram_gb_claimed,
        recommended_gpu,
        quote,
        source_id,
        source_file,
        cast(source_row as integer) as source_row
    from raw_model_claims
),

reference as (
    -- the 4k-context, batch-1, BF16-KV inference scenario (capped at the model's maximum context)
    select r.*
    from out_memory_requirements as r
    join core_models as m using (model_id)
    where r.workload = 'inference' and r.kv_precision = 'bf16' and r.batch_size = 1
        and r.context_tokens = least(4096, coalesce(m.max_context, 4096))
),

candidates as (
    select model_id, precision, 'full inference requirement' as what, required_gb as gb, 1 as priority
    from reference
    union all
    select model_id, precision, 'weights only', weights_gb, 2
    from reference
    union all
    select model_id, 'int4 without scales', 'weights only', params_b * param('bytes_int4'), 3
    from core_models
),

matches as (
    select distinct on (c.source_file, c.source_row)
        c.source_file,
        c.source_row,
        k.precision,
        k.what,
        k.gb
    from claims as c
    join candidates as k
        on k.model_id = c.model_id and abs(c.vram_gb_claimed / k.gb - 1) <= 0.10
    order by c.source_file, c.source_row, abs(c.vram_gb_claimed / k.gb - 1), k.priority
),

ours as (
    select model_id, required_gb as bf16_required_gb from reference where precision = 'bf16'
)

select
    c.row_label,
    c.model_id,
    c.params_b_claimed,
    c.vram_gb_claimed,
    c.recommended_gpu,
    o.bf16_required_gb,
    m.precision as matched_precision,
    m.gb as matched_gb,
    case
        when c.model_id is null then 'no model named'
        when c.vram_gb_claimed is null then 'no figure'
        when m.precision is not null then 'matches ' || m.what || ' at ' || m.precision
        else 'unexplained'
    end as classification,
    c.quote,
    c.source_id,
    c.source_file,
    c.source_row
from claims as c
left join matches as m using (source_file, source_row)
left join ours as o using (model_id)
