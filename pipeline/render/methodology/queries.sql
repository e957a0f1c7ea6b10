-- The Methodology page's queries, over the public views only.

-- name: ranking_weights
-- each ranking component's weight and what it measures, in the order of pipeline/ranking.yml
-- (the view keeps the file's order: no column holds it, so the rows are read as stored)
select workload, component, weight, description from ranking_weights;

-- name: parameters
-- every parameter the SQL computes with, by name
select name, value, unit, description, citation from parameters order by name;
