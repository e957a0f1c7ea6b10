-- The Models page's queries, over the public views only.

-- name: models
-- every LLM with the address of its config (source_id) and of the card its published count comes from
select m.*, s.url, p.url as params_url
from models as m
left join sources as s using (source_id)
left join sources as p on p.source_id = m.params_source_id
order by family, params_b, model_id;
