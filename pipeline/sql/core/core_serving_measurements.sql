-- Published serving-engine measurements (vLLM, SGLang, TensorRT-LLM; MLPerf, engine tables, vendor and
-- independent benchmarks), typed, one row per figure as printed, with its deployment: replicas of
-- tensor_parallel x pipeline_parallel GPUs, the concurrency (per replica: the stated one shared evenly), the
-- request lengths, and the figure restated per GPU or per user (quantity: throughput, per_user, ttft).
with typed as (
    select
        source_id || ':' || source_row as measurement_id,
        model_id, model_as_printed, gpu_id, gpu_as_printed,
        cast(gpu_count as integer) as gpu_count,
        cast(coalesce(nullif(tensor_parallel, ''),
                      cast(cast(gpu_count as integer) // cast(coalesce(nullif(pipeline_parallel, ''), '1') as integer) as varchar))
             as integer) as tensor_parallel,
        cast(coalesce(nullif(pipeline_parallel, ''), '1') as integer) as pipeline_parallel,
        engine,
        case engine when 'tensorrt-llm' then 'tensorrt-llm' when 'vllm' then 'vllm-sglang' when 'sglang' then 'vllm-sglang'
                    else 'other' end as engine_family,
        nullif(engine_version, '') as engine_version,
        format,
        nullif(kv_format, '') as kv_format,
        cast(speculative_decoding as boolean) as speculative_decoding,
        scenario,
        cast(nullif(concurrency, '') as integer) as concurrency,
        cast(input_tokens as double) as input_tokens,
        cast(output_tokens as double) as output_tokens,
        lengths, metric,
        cast(value as double) as value,
        unit, quote, source_id, source_file, source_row
    from raw_serving_measurements
)

select
    *,
    tensor_parallel * pipeline_parallel as gpus_per_replica,
    gpu_count / (tensor_parallel * pipeline_parallel) as replicas,
    concurrency / (gpu_count / (tensor_parallel * pipeline_parallel)) as concurrency_per_replica,
    case when metric in ('output_tokens_per_s', 'total_tokens_per_s', 'requests_per_s') then 'throughput'
         when metric in ('output_tokens_per_s_per_user', 'tpot_ms') then 'per_user'
         when metric = 'ttft_ms' then 'ttft' end as quantity,
    -- the figure restated: output tokens per second per GPU, output tokens per second per user, or seconds
    case metric
        when 'output_tokens_per_s' then value / case unit when 'tokens/s/gpu' then 1 else gpu_count end
        when 'total_tokens_per_s' then value * output_tokens / (input_tokens + output_tokens)
                                       / case unit when 'tokens/s/gpu' then 1 else gpu_count end
        when 'requests_per_s' then value * output_tokens / gpu_count
        when 'output_tokens_per_s_per_user' then value
        when 'tpot_ms' then 1000 / value
        when 'ttft_ms' then value / 1000
    end as measured
from typed
