-- One canonical value per (GPU, metric, precision), chosen by rule: a figure whose note begins
-- 'canonical:' (an explicit choice between disagreeing documents, its reason after the colon); then
-- the best source kind (vendor document > vendor reprint > curated dataset > reseller > blog or wiki
-- > article); dense over sparse/2; FP32 accumulate over
-- unstated; tensor rates except FP32 and FP64, which are the plain vector rates.
with candidates as (
    select
        *,
        -- 2:4 structured sparsity doubles the headline; dense = sparse / 2
        case when sparsity = 'sparse' then value / 2 else value end as dense_value,
        sparsity = 'sparse' as derived_from_sparse
    from core_spec_figures
    where metric <> 'compute'
        or (
            unit_kind = case when precision in ('fp32', 'fp64') then 'vector' else 'tensor' end
            and coalesce(accumulate, 'fp32') = 'fp32'
        )
),

ranked as (
    select
        *,
        row_number() over (
            partition by gpu_id, metric, coalesce(precision, '')
            order by coalesce(note, '') ilike 'canonical:%' desc, source_priority, derived_from_sparse,
                accumulate nulls last, source_id
        ) as pick
    from candidates
)

select
    gpu_id,
    metric,
    precision,
    dense_value as value,
    unit,
    derived_from_sparse,
    source_id,
    source_kind,
    source_file,
    source_row,
    -- why this figure was chosen over a disagreeing one, when the choice was stated
    case when coalesce(note, '') ilike 'canonical:%' then trim(substr(note, 11)) end as canonical_reason
from ranked
where pick = 1
