-- Published measured speeds (llama.cpp scoreboards, benchmark repositories, engine tables), typed.
-- One row per figure as printed, with the deployment it was measured on and where it was printed.
select
    source_id || ':' || source_row as measurement_id,
    model_id,
    model_as_printed,
    gpu_id,
    gpu_as_printed,
    cast(gpu_count as integer) as gpu_count,
    engine,
    engine_build,
    split_mode,
    format,
    cast(batch_size as integer) as batch_size,
    cast(prompt_tokens as integer) as prompt_tokens,
    cast(generated_tokens as integer) as generated_tokens,
    cast(flash_attention as boolean) as flash_attention,
    metric,
    cast(value as double) as value,
    unit,
    quote,
    source_id,
    source_file,
    source_row
from raw_measurements
