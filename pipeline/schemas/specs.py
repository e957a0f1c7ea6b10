"""GPU identities, spec figures and article claims: a figure's shape, unit and range, sparse = 2 × dense, tensor ≥ vector."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from .common import FIGURE_UNITS, INTEGER_PRECISIONS, MEMORY_TYPES, PRECISIONS, RANGES, SLUG, _col, _opt_isin


# ---------------------------------------------------------------- row-wise dataframe checks
def _figure_shape(df: pd.DataFrame) -> pd.Series:
    """compute rows carry precision, unit_kind and sparsity; other metrics carry none."""
    compute = df["metric"].eq("compute")
    typed = df["precision"].notna() & df["unit_kind"].notna() & df["sparsity"].notna()
    untyped = df["precision"].isna() & df["unit_kind"].isna() & df["sparsity"].isna()
    return (compute & typed) | (~compute & untyped)


def _figure_unit(df: pd.DataFrame) -> pd.Series:
    """INT8/INT4 are operations (TOPS); float precisions are TFLOPS; other metrics have one unit."""
    compute = df["metric"].eq("compute")
    integer = df["precision"].isin(INTEGER_PRECISIONS)
    expected = df["metric"].map(FIGURE_UNITS)
    ok_compute = compute & ((integer & df["unit"].eq("tops")) | (~integer & df["unit"].eq("tflops")))
    return ok_compute | (~compute & df["unit"].eq(expected))


def _figure_range(df: pd.DataFrame) -> pd.Series:
    """memory bandwidth, TDP, interconnect, price and compute within plausible ranges."""
    lo = df["metric"].map({k: v[0] for k, v in RANGES.items()})
    hi = df["metric"].map({k: v[1] for k, v in RANGES.items()})
    per_gpu = df["value"] / df["per_gpus"].fillna(1)
    return per_gpu.between(lo, hi) | lo.isna()


def _year_is_whole(df: pd.DataFrame) -> pd.Series:
    """a release year is a whole year of the whole product (never divided per GPU)."""
    year = df["metric"].eq("release_year")
    return ~year | ((df["value"] % 1 == 0) & df["per_gpus"].fillna(1).eq(1))


def _accumulate_only_half(df: pd.DataFrame) -> pd.Series:
    """accumulate is stated only for BF16/FP16 tensor figures."""
    half_tensor = df["precision"].isin(["bf16", "fp16"]) & df["unit_kind"].eq("tensor")
    return df["accumulate"].isna() | half_tensor


def _compute_key(df: pd.DataFrame) -> pd.DataFrame:
    key = df[["gpu_id", "precision", "unit_kind", "accumulate", "document_id"]].copy()
    return key.fillna({"accumulate": "-"})


def _sparse_is_twice_dense(df: pd.DataFrame) -> pd.Series:
    """Where one document prints both, the sparse figure is 2 x the dense one (within 2%)."""
    compute = df[df["metric"].eq("compute")]
    key = list(_compute_key(compute).columns)
    k = _compute_key(compute).assign(value=compute["value"], sparsity=compute["sparsity"])
    dense = k[k["sparsity"].eq("dense")].groupby(key)["value"].max().rename("dense")
    joined = k.join(dense, on=key)
    bad = (
        joined["sparsity"].eq("sparse")
        & joined["dense"].notna()
        & ((joined["value"] / joined["dense"] - 2).abs() > 0.04)
    )
    return ~bad.reindex(df.index, fill_value=False)


def _tensor_at_least_vector_fp32(df: pd.DataFrame) -> pd.Series:
    """Dense tensor BF16/FP16 is never below the vector FP32 rate of the same GPU."""
    compute = df[df["metric"].eq("compute")]
    per_gpu = compute["value"] / compute["per_gpus"].fillna(1)
    fp32 = per_gpu[compute["precision"].eq("fp32") & compute["unit_kind"].eq("vector")]
    fp32_by_gpu = fp32.groupby(compute.loc[fp32.index, "gpu_id"]).max()
    half = (
        compute["precision"].isin(["bf16", "fp16"])
        & compute["unit_kind"].eq("tensor")
        & compute["sparsity"].eq("dense")
    )
    floor = compute["gpu_id"].map(fp32_by_gpu)
    bad = half & floor.notna() & (per_gpu < floor * 0.999)
    return ~bad.reindex(df.index, fill_value=False)


def _claim_has_value(df: pd.DataFrame) -> pd.Series:
    """a claim carries a number or a text value."""
    return df["value"].notna() | df["value_text"].notna()


# ---------------------------------------------------------------- raw source schemas
def gpus_schema() -> pa.DataFrameSchema:
    return pa.DataFrameSchema(
        {
            "gpu_id": _col(
                str,
                pa.Check.str_matches(SLUG),
                unique=True,
                description="vendor-model-form factor-memory, the variant key",
            ),
            "vendor": _col(str, pa.Check.isin(["nvidia", "amd", "intel", "google", "aws", "huawei"])),
            "family": _col(str, pa.Check.str_matches(SLUG)),
            "name": _col(str),
            "form_factor": _col(str, pa.Check.isin(["sxm", "pcie", "nvl", "oam", "socket", "tpu", "trainium", "npu"])),
            "segment": _col(str, pa.Check.isin(["datacenter", "workstation", "consumer"])),
            "architecture": _col(object, nullable=True),
            "release_year": _col("Int64", pa.Check.in_range(2010, 2030), nullable=True),
            "memory_gb": _col(float, pa.Check.in_range(2, 1024), nullable=True),
            "memory_type": _col(object, _opt_isin(MEMORY_TYPES), nullable=True),
            "gpus_per_product": _col("Int64", pa.Check.in_range(1, 8), nullable=True),
            "tensor_cores": _col(object, _opt_isin(["true", "false"]), nullable=True),
            "document_id": _col(str),
        },
        name="gpus",
    )


def spec_figures_schema(gpu_ids: list[str] | None = None) -> pa.DataFrameSchema:
    gpu_checks = [pa.Check.isin(gpu_ids, error="gpu_id is not in any gpus.csv")] if gpu_ids is not None else []
    return pa.DataFrameSchema(
        {
            "gpu_id": _col(str, *gpu_checks),
            "metric": _col(str, pa.Check.isin(["compute", *FIGURE_UNITS])),
            "precision": _col(object, _opt_isin(PRECISIONS), nullable=True),
            "unit_kind": _col(object, _opt_isin(["tensor", "vector"]), nullable=True),
            "accumulate": _col(object, _opt_isin(["fp32", "fp16"]), nullable=True),
            "sparsity": _col(object, _opt_isin(["dense", "sparse"]), nullable=True),
            "value": _col(float, pa.Check.gt(0, error="must be > 0 (unsupported = no row, never 0)")),
            "unit": _col(str, pa.Check.isin(["tflops", "tops", *set(FIGURE_UNITS.values())])),
            "per_gpus": _col("Int64", pa.Check.in_range(1, 8), nullable=True),
            "document_id": _col(str),
            "note": _col(object, nullable=True),
        },
        checks=[
            pa.Check(_figure_shape, error="compute needs precision, unit_kind and sparsity; other metrics none"),
            pa.Check(_figure_unit, error="unit does not fit the metric (INT8/INT4 in tops, floats in tflops)"),
            pa.Check(_figure_range, error="value outside the plausible range for the metric"),
            pa.Check(_accumulate_only_half, error="accumulate is only for bf16/fp16 tensor figures"),
            pa.Check(_year_is_whole, error="a release year is a whole number with per_gpus empty or 1"),
            pa.Check(_sparse_is_twice_dense, error="sparse figure is not 2 x the dense figure of the same document"),
            pa.Check(_tensor_at_least_vector_fp32, error="dense tensor bf16/fp16 is below the vector fp32 rate"),
        ],
        unique=["gpu_id", "metric", "precision", "unit_kind", "accumulate", "sparsity", "document_id"],
        name="spec_figures",
    )


def claims_schema(gpu_ids: list[str] | None = None) -> pa.DataFrameSchema:
    gpu_checks = [pa.Check.isin(gpu_ids, error="gpu_id is not in any gpus.csv")] if gpu_ids is not None else []
    return pa.DataFrameSchema(
        {
            "table_ref": _col(str),
            "row_label": _col(str),
            "gpu_id": _col(str, *gpu_checks),
            "metric": _col(
                str,
                pa.Check.isin(
                    [
                        "compute",
                        "memory_size",
                        "memory_bandwidth",
                        "tdp",
                        "memory_type",
                        "architecture",
                        "launch_price",
                        "release_year",
                        "cuda_cores",
                        "interconnect_bandwidth",
                    ]
                ),
            ),
            "precision": _col(object, _opt_isin(PRECISIONS), nullable=True),
            "sparsity_stated": _col(object, _opt_isin(["sparse", "dense", "unstated"]), nullable=True),
            "value": _col(float, pa.Check.gt(0), nullable=True),
            "value_text": _col(object, nullable=True),
            "unit": _col(object, nullable=True),
            "quote": _col(str),
        },
        checks=[pa.Check(_claim_has_value, error="a claim needs a value or a value_text")],
        name="claims",
    )


def model_claims_schema(model_ids: list[str] | None = None) -> pa.DataFrameSchema:
    model_checks = [_opt_isin(model_ids)] if model_ids is not None else []
    return pa.DataFrameSchema(
        {
            "table_ref": _col(str),
            "row_label": _col(str),
            "model_id": _col(object, *model_checks, nullable=True),
            "params_b": _col(float, pa.Check.gt(0), nullable=True),
            "vram_gb_claimed": _col(float, pa.Check.gt(0), nullable=True),
            "recommended_gpu": _col(object, nullable=True),
            "quote": _col(str),
        },
        name="model_claims",
    )
