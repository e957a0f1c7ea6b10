-- Each serving fit (out_serving_fits: the group's fit on every figure, without each GPU, without each publication)
-- resolved for every architecture: the architecture's own shares of peak where the same fit has them, else the
-- group's. What a figure's expectation, and a model's level, is computed with (out_serving_estimates,
-- out_serving_levels).
select f.* replace (coalesce(a.decode_efficiency, f.decode_efficiency) as decode_efficiency,
                    coalesce(a.compute_efficiency, f.compute_efficiency) as compute_efficiency,
                    g.architecture as architecture)
from out_serving_fits as f
cross join (select distinct architecture from out_serving_bounds) as g
left join out_serving_fits as a
    on a.engine_family = f.engine_family and a.model_kind = f.model_kind and a.architecture = g.architecture
    and a.held_out_gpu_id is not distinct from f.held_out_gpu_id
    and a.held_out_source_id is not distinct from f.held_out_source_id
where f.architecture is null
