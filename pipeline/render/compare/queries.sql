-- Compare's query, over the public views only (the page reads everything else from api/v1/ in the browser).

-- name: gpus
-- every GPU variant one can pick, by name
select gpu_id, name from gpus order by name;
