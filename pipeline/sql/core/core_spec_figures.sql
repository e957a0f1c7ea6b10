-- Datasheet figures, typed and normalised to one GPU.
with imported as (
    select * from raw_spec_figures
),

typed as (
    select
        f.gpu_id,
        f.metric,
        f.precision,
        f.unit_kind,
        f.accumulate,
        f.sparsity,
        cast(f.value as double) as value_as_printed,
        coalesce(cast(f.per_gpus as integer), 1) as per_gpus,
        -- a figure printed for a pair (or a two-die module) covers per_gpus GPUs
        cast(f.value as double) / coalesce(cast(f.per_gpus as integer), 1) as value,
        f.unit,
        f.note,
        f.source_id,
        s.kind as source_kind,
        f.source_file,
        cast(f.source_row as integer) as source_row
    from imported as f
    left join core_sources as s using (source_id)
)

select
    *,
    -- best kind first: vendor document, vendor reprint, curated dataset, reseller, blog or wiki, article
    case source_kind
        when 'vendor_document' then 1
        when 'vendor_reprint' then 2
        when 'curated_dataset' then 3
        when 'reseller' then 4
        when 'blog_or_wiki' then 5
        else 6
    end as source_priority
from typed
