-- The reference model's serving expectation per GPU, the one figure GPU pages, Compare (gpus.json) and the MCP server
-- show: the reference model (ranking.yml) with FP8 weights at the serving batch, on the GPUs one node needs;
-- expected and bound, in all and per GPU.
select
    e.gpu_id,
    e.model_id,
    m.name as model_name,
    e.gpus_used,
    e.batch_size,
    e.batch_decode_expected_tokens_per_s as expected_tokens_per_s,
    e.batch_decode_tokens_per_s as bound_tokens_per_s,
    e.batch_decode_expected_tokens_per_s / e.gpus_used as expected_tokens_per_s_per_gpu,
    e.batch_decode_tokens_per_s / e.gpus_used as bound_tokens_per_s_per_gpu
from out_inference_estimates as e
join core_models as m using (model_id)
where e.model_id = (select value_text from core_parameters where name = 'reference_model')
    and e.precision = 'fp8' and e.single_node
