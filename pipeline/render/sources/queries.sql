-- The Source list's queries, over the public views only.

-- name: sources
-- every snapshot file and every document a sidecar cites
select * from sources order by kind, publisher, title, source_id;

-- name: canonical_kinds
-- where the canonical figures come from, best kind of source first
select source_kind, count(*) as n
from spec_claims
where is_canonical
group by all
order by min(case source_kind when 'vendor_document' then 1 when 'vendor_reprint' then 2
             when 'curated_dataset' then 3 when 'reseller' then 4 when 'blog_or_wiki' then 5 else 6 end);
