-- Every figure from every source, one row each, classified against the canonical value by rule.
-- A claim is explained only by a rule that links it to a figure of the same GPU or of another
-- variant of the same family. Classes, first match wins: agrees; sparse figure (2 x dense); other
-- rate (vector vs tensor, FP16 accumulate, base vs boost clock); another precision of the same GPU;
-- another variant of the family; unexplained. An equal figure of an unrelated GPU is a coincidence,
-- never an explanation.
with canonical_numbers as (
    select gpu_id, metric, precision, value from core_canonical where metric not in ('release_year', 'memory_size')
    union all
    select gpu_id, 'memory_size', null, memory_gb from core_gpus
    union all
    select gpu_id, 'release_year', null, release_year from core_gpus where release_year is not null
),

canonical_texts as (
    select gpu_id, 'memory_type' as metric, memory_type as value_text from core_gpus
    union all
    select gpu_id, 'architecture', architecture from core_gpus
),

-- what a claimed number may equal, with a label saying which figure it is
refs as (
    select c.gpu_id, g.family, g.name, c.metric, c.precision, c.value, 'dense' as label
    from canonical_numbers as c join core_gpus as g using (gpu_id)
    union all
    select c.gpu_id, g.family, g.name, c.metric, c.precision, 2 * c.value, 'sparse'
    from core_canonical as c join core_gpus as g using (gpu_id)
    where c.metric = 'compute' and c.precision not in ('fp32', 'fp64')
        -- 2:4 structured sparsity exists from Ampere (and CDNA 3) on
        and coalesce(g.architecture, '') not in ('Maxwell', 'Pascal', 'Volta', 'Turing', 'CDNA 2')
    union all
    -- printed rates that are not canonical: vector FP16, FP16-accumulate, tensor FP64/FP32,
    -- rates at the base clock
    select f.gpu_id, g.family, g.name, f.metric, f.precision, f.value,
        case
            when f.accumulate = 'fp16' then 'fp16-accumulate'
            when f.note ilike '%base clock%' then 'base-clock'
            else f.unit_kind
        end || case when f.sparsity = 'sparse' then ' sparse' else '' end
    from core_spec_figures as f join core_gpus as g using (gpu_id)
    where f.metric = 'compute'
        and (f.accumulate = 'fp16' or f.note ilike '%base clock%'
            or f.unit_kind <> case when f.precision in ('fp32', 'fp64') then 'vector' else 'tensor' end)
),

vendor_claims as (
    select
        'fig:' || f.source_file || ':' || f.source_row as claim_id,
        f.gpu_id, f.metric, f.precision, f.unit_kind, f.accumulate,
        f.sparsity, f.value, null as value_text, f.unit, f.source_id, f.source_kind,
        f.source_file, f.source_row, null as quote, null as row_label,
        (c.source_file = f.source_file and c.source_row = f.source_row) is true as is_canonical
    from core_spec_figures as f
    left join core_canonical as c
        on c.gpu_id = f.gpu_id and c.metric = f.metric
        and c.precision is not distinct from f.precision
),

article_claims as (
    select
        'claim:' || a.source_file || ':' || a.source_row as claim_id,
        a.gpu_id, a.metric, a.precision, null as unit_kind, null as accumulate,
        a.sparsity_stated as sparsity, cast(a.value as double) as value, a.value_text, a.unit,
        a.source_id, s.kind as source_kind, a.source_file, cast(a.source_row as integer),
        a.quote, a.row_label, false as is_canonical
    from raw_claims as a
    left join core_sources as s using (source_id)
),

claims as (
    select * from vendor_claims
    union all
    select * from article_claims
),

claims_with_family as (
    select c.*, g.family, g.name as gpu_name
    from claims as c join core_gpus as g using (gpu_id)
),

number_matches as (
    select
        c.claim_id,
        case
            when r.gpu_id = c.gpu_id and r.precision is not distinct from c.precision and r.label = 'dense' then 1
            when r.gpu_id = c.gpu_id and r.precision is not distinct from c.precision and r.label = 'sparse' then 2
            when r.gpu_id = c.gpu_id and r.precision is not distinct from c.precision then 3
            when r.gpu_id = c.gpu_id then 4
            when r.family = c.family and r.precision is not distinct from c.precision then 5
        end as match_rank,
        r.gpu_id as ref_gpu_id, r.name as ref_name, r.precision as ref_precision,
        r.value as ref_value, r.label as ref_label,
        abs(c.value / r.value - 1) as gap
    from claims_with_family as c
    join refs as r
        on r.metric = c.metric
        and r.family = c.family  -- the same GPU or another variant of its family; never an unrelated GPU
        and abs(c.value / r.value - 1) <= 0.025  -- rounding in print ("3.35 TB/s" vs 3352 GB/s)
    where c.value is not null
),

best_number as (
    select distinct on (claim_id) *
    from number_matches
    where match_rank is not null
    order by claim_id, match_rank, gap, ref_gpu_id, ref_precision, ref_label  -- ties broken the same way every build
),

text_matches as (
    select
        c.claim_id,
        case when t.gpu_id = c.gpu_id then 1 else 5 end as match_rank,
        t.gpu_id as ref_gpu_id, g.name as ref_name, t.value_text as ref_text
    from claims_with_family as c
    join canonical_texts as t
        on t.metric = c.metric
        and lower(replace(t.value_text, ' ', '')) = lower(replace(c.value_text, ' ', ''))
    join core_gpus as g on g.gpu_id = t.gpu_id
    where c.value_text is not null and (t.gpu_id = c.gpu_id or g.family = c.family)
),

best_text as (
    select distinct on (claim_id) * from text_matches order by claim_id, match_rank, ref_gpu_id
),

own_canonical as (
    select
        c.claim_id,
        n.value as canonical_value,
        t.value_text as canonical_text,
        k.source_kind as canonical_kind,
        k.source_id as canonical_source_id,
        k.canonical_reason
    from claims_with_family as c
    left join core_canonical as k
        on k.gpu_id = c.gpu_id and k.metric = c.metric and k.precision is not distinct from c.precision
    left join canonical_numbers as n
        on n.gpu_id = c.gpu_id and n.metric = c.metric and n.precision is not distinct from c.precision
    left join canonical_texts as t
        on t.gpu_id = c.gpu_id and t.metric = c.metric
),

classified as (
    select
        c.*,
        o.canonical_value,
        o.canonical_text,
        o.canonical_kind,
        o.canonical_source_id,
        o.canonical_reason,
        coalesce(bn.match_rank, bt.match_rank) as match_rank,
        coalesce(bn.ref_name, bt.ref_name) as ref_name,
        bn.ref_precision,
        bn.ref_value,
        bn.ref_label
    from claims_with_family as c
    left join own_canonical as o using (claim_id)
    left join best_number as bn using (claim_id)
    left join best_text as bt using (claim_id)
)

select
    claim_id,
    gpu_id,
    metric,
    precision,
    unit_kind,
    accumulate,
    sparsity,
    value,
    value_text,
    unit,
    source_id,
    source_kind,
    is_canonical,
    coalesce(canonical_value::varchar, canonical_text) as canonical,
    canonical_value,
    match_rank = 1 as agrees_with_canonical,
    case
        when is_canonical then 'canonical'
        when match_rank = 1 then 'agrees'
        when match_rank = 2 then 'sparse figure'
        when match_rank = 3 then 'other rate'
        when match_rank = 4 then 'another precision'
        when match_rank = 5 then 'another variant'
        when canonical_value is null and canonical_text is null then 'no datasheet figure'
        -- two spec documents print different figures (both vendor documents, or the canonical one states
        -- why it was chosen): both are kept, the canonical one says why
        when claim_id like 'fig:%' and ((source_kind in ('vendor_document', 'vendor_reprint')
            and canonical_kind in ('vendor_document', 'vendor_reprint')) or canonical_reason is not null)
            then 'documents disagree'
        else 'unexplained'
    end as classification,
    case
        when is_canonical and canonical_reason is not null then 'canonical figure (' || source_kind || '): ' || canonical_reason
        when is_canonical then 'canonical figure (' || source_kind || ')'
        when match_rank = 1 then 'matches the canonical figure'
        when match_rank = 2 then printf('sparse figure: 2 x the dense %.4g', ref_value / 2)
        when match_rank = 3 then printf('the %s rate (%.4g), not the canonical rate', ref_label, ref_value)
        when match_rank = 4 then printf('equals the %s %s figure (%.4g)', upper(ref_precision), ref_label, ref_value)
        when match_rank = 5 and ref_value is not null then printf('figure of another variant: %s (%.4g%s)', ref_name, ref_value, case when ref_label = 'sparse' then ', sparse' else '' end)
        when match_rank = 5 then printf('figure of another variant: %s', ref_name)
        when canonical_value is null and canonical_text is null then 'no canonical figure to compare with'
        when claim_id like 'fig:%' and value is not null and ((source_kind in ('vendor_document', 'vendor_reprint')
            and canonical_kind in ('vendor_document', 'vendor_reprint')) or canonical_reason is not null)
            then printf('documents disagree: this one prints %.4g, the canonical %.4g comes from %s (%s); %s',
                value, canonical_value, canonical_source_id, canonical_kind,
                coalesce(canonical_reason, 'the better-ranked source kind wins'))
        when canonical_value is not null and value is not null then printf('unexplained: the canonical figure is %.4g; the claim differs by %+.0f%% and no rule links the two', canonical_value, 100 * (value / canonical_value - 1))
        else printf('unexplained: the canonical figure is %s', canonical_text)
    end as explanation,
    row_label,
    quote,
    source_file,
    source_row
from classified
