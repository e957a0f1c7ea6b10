-- The Sources section's queries (Source list, Sources and conflicts, Coverage), over the public views only.

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

-- name: article_claims
-- every figure printed in the seed articles (claim_id 'claim:...'), with its GPU's name, the article's address
-- and the article's folder under sources/claims/ as the link text
select c.*, g.name, s.url, split_part(c.source_file, '/', 3) as article
from spec_claims as c
join gpus as g on g.gpu_id = c.gpu_id
left join sources as s on s.source_id = c.source_id
where c.claim_id like 'claim:%'
order by s.title, c.source_file, c.source_row;

-- name: figure_classes
-- datasheet and dataset figures (claim_id 'fig:...') by class, the commonest first
select classification, count(*) as n
from spec_claims
where claim_id like 'fig:%'
group by all
order by n desc, classification;

-- name: model_claims
-- the seed articles' model memory figures against our computation
select * from model_claims order by source_row;

-- name: coverage
-- canonical GPU figures no source we read publishes, the GPU missing most first
select * from coverage order by missing_count desc, name;

-- name: unmapped_offers
-- provider GPU names not mapped to one variant, with their offers over every snapshot
select provider, provider_gpu_name, gpu_memory_gb, offers, last_seen
from unmapped_offers
order by provider, provider_gpu_name, gpu_memory_gb;

-- name: model_gaps
-- models whose official config leaves out a field the estimates read
select model_id, concat_ws(', ',
    case when hidden_size is null then 'hidden_size' end, case when head_dim is null then 'head_dim' end,
    case when max_context is null then 'max_context' end,
    case when intermediate_size is null then 'intermediate_size' end,
    case when vocab_size is null then 'vocab_size' end) as missing
from models
where hidden_size is null or head_dim is null or max_context is null or intermediate_size is null or vocab_size is null
order by model_id;
