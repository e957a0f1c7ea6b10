"""Published measurements: single-stream decode speeds, serving-engine figures and training runs."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from .common import ENGINE_FORMATS, _col


MEASURED_FORMATS = ["bf16", "fp8", "int8", "int4", "q8_0", "q4_0", "q4_k_m", "gguf-mxfp4-moe"]


def measurements_schema(gpu_ids: list[str] | None = None, model_ids: list[str] | None = None) -> pa.DataFrameSchema:
    gpu_checks = [pa.Check.isin(gpu_ids)] if gpu_ids is not None else []
    model_checks = [pa.Check.isin(model_ids)] if model_ids is not None else []
    count = lambda nullable=False: _col("Int64", pa.Check.ge(0), nullable=nullable)  # noqa: E731
    return pa.DataFrameSchema(
        {
            "model_id": _col(str, *model_checks),
            "model_as_printed": _col(str),
            "gpu_id": _col(str, *gpu_checks),
            "gpu_as_printed": _col(str),
            "gpu_count": _col("Int64", pa.Check.in_range(1, 1024)),
            "engine": _col(
                str,
                pa.Check.isin(
                    [
                        "llama.cpp",
                        "vllm",
                        "tensorrt-llm",
                        "sglang",
                        "mlc-llm",
                        "exllamav2",
                        "llamafile",
                        "transformers",
                        "other",
                    ]
                ),
            ),
            "engine_build": _col(str, nullable=True),
            "split_mode": _col(str, pa.Check.isin(["none", "layer", "row", "tensor", "pipeline"])),
            "format": _col(str, pa.Check.isin(MEASURED_FORMATS)),
            "batch_size": _col("Int64", pa.Check.in_range(1, 4096)),
            "prompt_tokens": count(),
            "generated_tokens": count(),
            "flash_attention": _col(str, pa.Check.isin(["true", "false"]), nullable=True),
            "metric": _col(str, pa.Check.isin(["decode_tokens_per_s"])),
            "value": _col(float, pa.Check.in_range(0.01, 1_000_000)),
            "unit": _col(str, pa.Check.eq("tokens/s")),
            "quote": _col(str),
            "document_id": _col(str),
        },
        checks=[
            pa.Check(
                lambda df: ~(df["split_mode"].eq("none") & (pd.to_numeric(df["gpu_count"]) > 1)),
                error="more than one GPU needs a split_mode (layer, row, tensor or pipeline)",
            )
        ],
        name="measurements",
    )


SERVING_ENGINES = ["vllm", "sglang", "tensorrt-llm", "other"]


SERVING_METRICS = {  # metric -> the units it may be printed in
    "output_tokens_per_s": ["tokens/s", "tokens/s/gpu"],
    "total_tokens_per_s": ["tokens/s", "tokens/s/gpu"],
    "output_tokens_per_s_per_user": ["tokens/s"],
    "ttft_ms": ["ms"],
    "tpot_ms": ["ms"],
    "requests_per_s": ["requests/s"],
}


def _serving_consistent(df: pd.DataFrame) -> pd.Series:
    num = lambda c: pd.to_numeric(df[c], errors="coerce")  # noqa: E731
    unit_ok = pd.Series([u in SERVING_METRICS.get(m, []) for m, u in zip(df["metric"], df["unit"])], index=df.index)
    concurrency_ok = ~df["scenario"].eq("concurrency") | num("concurrency").notna()
    tp = num("tensor_parallel").fillna(num("gpu_count"))
    pp = num("pipeline_parallel").fillna(1)
    group_ok = (num("gpu_count") % (tp * pp)).eq(0)
    return unit_ok & concurrency_ok & group_ok


def serving_measurements_schema(
    gpu_ids: list[str] | None = None, model_ids: list[str] | None = None
) -> pa.DataFrameSchema:
    gpu_checks = [pa.Check.isin(gpu_ids)] if gpu_ids is not None else []
    model_checks = [pa.Check.isin(model_ids)] if model_ids is not None else []
    return pa.DataFrameSchema(
        {
            "model_id": _col(str, *model_checks),
            "model_as_printed": _col(str),
            "gpu_id": _col(str, *gpu_checks),
            "gpu_as_printed": _col(str),
            "gpu_count": _col("Int64", pa.Check.in_range(1, 1024)),
            "tensor_parallel": _col("Int64", pa.Check.in_range(1, 1024), nullable=True),
            "pipeline_parallel": _col("Int64", pa.Check.in_range(1, 1024), nullable=True),
            "engine": _col(str, pa.Check.isin(SERVING_ENGINES)),
            "engine_version": _col(str, nullable=True),
            "format": _col(str, pa.Check.isin(list(ENGINE_FORMATS))),
            "kv_format": _col(str, pa.Check.isin(["bf16", "fp8"]), nullable=True),
            "speculative_decoding": _col(str, pa.Check.isin(["true", "false"])),
            "scenario": _col(str, pa.Check.isin(["max_throughput", "concurrency", "server"])),
            "concurrency": _col("Int64", pa.Check.in_range(1, 100_000), nullable=True),
            "input_tokens": _col(float, pa.Check.in_range(1, 1_000_000)),
            "output_tokens": _col(float, pa.Check.in_range(1, 1_000_000)),
            "lengths": _col(str, pa.Check.isin(["fixed", "mean"])),
            "metric": _col(str, pa.Check.isin(list(SERVING_METRICS))),
            "value": _col(float, pa.Check.in_range(0.0001, 10_000_000)),
            "unit": _col(str, pa.Check.isin(sorted({u for us in SERVING_METRICS.values() for u in us}))),
            "quote": _col(str),
            "document_id": _col(str),
        },
        checks=[
            pa.Check(
                _serving_consistent,
                error="inconsistent serving measurement: the unit must suit the metric "
                "(output/total tokens in tokens/s or tokens/s/gpu, per-user tokens/s, ms, requests/s), a "
                "concurrency scenario needs its concurrency, and gpu_count must be a multiple of "
                "tensor_parallel x pipeline_parallel",
            )
        ],
        name="serving_measurements",
    )


TRAINING_METHODS = ["pretrain", "full", "lora", "qlora"]


TRAINING_PRECISIONS = ["bf16", "fp8", "mxfp8", "nvfp4", "not stated"]


def training_measurements_schema(
    gpu_ids: list[str] | None = None, model_ids: list[str] | None = None
) -> pa.DataFrameSchema:
    """Published training throughput, one row per run as printed: tokens per second (per GPU or in all) with
    the model's size, the method, precision, sequence length and whether activations were recomputed."""
    gpu_checks = [pa.Check.isin(gpu_ids)] if gpu_ids is not None else []
    model_checks = [pa.Check.isin(model_ids)] if model_ids is not None else []
    return pa.DataFrameSchema(
        {
            "model_id": _col(str, *model_checks, nullable=True),
            "model_as_printed": _col(str),
            "params_b": _col(float, pa.Check.in_range(0.01, 10_000)),
            "active_params_b": _col(float, pa.Check.in_range(0.01, 10_000), nullable=True),
            "gpu_id": _col(str, *gpu_checks),
            "gpu_as_printed": _col(str),
            "gpu_count": _col("Int64", pa.Check.in_range(1, 100_000)),
            "framework": _col(str),
            "method": _col(str, pa.Check.isin(TRAINING_METHODS)),
            "precision": _col(str, pa.Check.isin(TRAINING_PRECISIONS)),
            "seq_len": _col("Int64", pa.Check.in_range(64, 1_048_576)),
            "activation_checkpointing": _col(str, pa.Check.isin(["none", "selective", "full", "not stated"])),
            "value": _col(float, pa.Check.in_range(0.01, 1_000_000_000)),
            "unit": _col(str, pa.Check.isin(["tokens/s", "tokens/s/gpu"])),
            "printed_mfu": _col(float, pa.Check.in_range(0.0, 1.0), nullable=True),
            "quote": _col(str),
            "document_id": _col(str),
        },
        checks=[
            pa.Check(
                lambda df: (
                    pd.to_numeric(df["active_params_b"], errors="coerce").fillna(0)
                    <= pd.to_numeric(df["params_b"], errors="coerce")
                ),
                error="active_params_b cannot exceed params_b",
            )
        ],
        name="training_measurements",
    )
