"""Schemas: the single source of truth for columns, units and the rules each source must obey.

Raw tables hold the files' text as it was read; these pandera schemas coerce a copy and report
every broken rule at once (lazy validation). Rules that look across rows (sparse = 2 x dense,
tensor >= vector) are dataframe checks that return one boolean per row, so a failure still
names the file and line. The public view reference (`VIEWS`) documents the DuckDB contract and
is what the Data page prints.
"""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from .errors import Problem

PRECISIONS = ["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"]
INTEGER_PRECISIONS = ["int8", "int4"]
MEMORY_TYPES = ["HBM2", "HBM2e", "HBM3", "HBM3e", "GDDR5", "GDDR5X", "GDDR6", "GDDR6X", "GDDR7"]
TIERS = ["on-demand", "spot", "reserved", "promotional"]
FIGURE_UNITS = {
    "memory_bandwidth": "gbs",
    "tdp": "w",
    "module_power": "w",  # power of a whole module (CPU + GPU + memory), never the GPU's TDP
    "memory_size": "gb",  # memory as a figure, where vendor documents disagree with the identity row
    "interconnect_bandwidth": "gbs",
    "launch_price": "usd",
    "release_year": "year",
}
# plausible ranges per unit-bearing metric (inclusive); outside is a typo or a wrong unit
RANGES = {
    "memory_bandwidth": (50, 20_000),  # GB/s
    "tdp": (20, 2_500),  # W
    "module_power": (20, 5_000),  # W
    "memory_size": (2, 1_024),  # GB
    "interconnect_bandwidth": (10, 5_000),  # GB/s
    "launch_price": (50, 100_000),  # USD
    "release_year": (2010, 2030),
    "compute": (0.01, 50_000),  # TFLOPS / TOPS
}

SLUG = r"^[a-z0-9][a-z0-9.\-]*$"


def _opt_isin(values):
    return pa.Check(lambda s: s.isna() | s.isin(values), element_wise=False, error=f"must be empty or one of {values}")


def _col(dtype, *checks, nullable=False, description="", unique=False, optional=False):
    """A column of a source file; `optional`: a file may leave it out (the reader fills it with empty values)."""
    return pa.Column(
        dtype,
        checks=list(checks),
        nullable=nullable,
        coerce=True,
        description=description,
        unique=unique,
        metadata={"file": "optional"} if optional else None,
    )


def file_columns(schema: pa.DataFrameSchema) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The columns a source file of this schema has: (required, optional), in the schema's order. A column filled
    from the file's sidecar (metadata file: sidecar) is neither."""
    kinds = {name: (col.metadata or {}).get("file", "required") for name, col in schema.columns.items()}
    return (
        tuple(n for n, k in kinds.items() if k == "required"),
        tuple(n for n, k in kinds.items() if k == "optional"),
    )


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


def _model_consistent(df: pd.DataFrame) -> pd.Series:
    """kv_heads divides the heads; MLA carries its ranks; MoE its routing and published active count;
    a sliding window says how many layers keep full attention."""
    num = lambda c: pd.to_numeric(df[c], errors="coerce")  # noqa: E731
    heads, kv = num("attention_heads"), num("kv_heads")
    ok = kv.isna() | ((kv <= heads) & (heads % kv == 0))
    mla = df["attention_kind"].eq("mla")
    for col in ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
        ok &= ~mla | df[col].notna()
    moe = num("num_experts").fillna(0) > 1
    ok &= ~moe | (
        num("experts_per_token").notna()
        & (num("experts_per_token") <= num("num_experts"))
        & (df["published_active_params_b"].notna() | df["params_note"].notna())
    )
    ok &= df["sliding_window"].isna() | df["full_attention_layers"].notna()
    ok &= df["published_params_b"].notna() | df["params_note"].notna()  # no published count: say why
    # linear-attention layers carry the shape of their state; full + windowed + linear layers are the layers
    linear = num("linear_attention_layers").fillna(0) > 0
    for col in (
        "linear_key_heads",
        "linear_value_heads",
        "linear_key_head_dim",
        "linear_value_head_dim",
        "linear_conv_kernel",
    ):
        ok &= ~linear | df[col].notna()
    ok &= ~linear | (
        num("full_attention_layers").notna()
        & (num("full_attention_layers") + num("linear_attention_layers") == num("layers"))
    )
    ok &= df["index_head_dim"].isna() | (df["index_n_heads"].notna() & df["index_topk"].notna() & mla)
    ok &= df["window_kind"].isna() | df["sliding_window"].notna()
    # a superseded model names its successor, a model of this catalogue that is itself not superseded
    superseded = df["status"].eq("superseded")
    successor_status = df["superseded_by"].map(dict(zip(df["model_id"], df["status"].fillna("current"))))
    ok &= superseded == df["superseded_by"].notna()
    ok &= ~superseded | successor_status.eq("current")
    return ok


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
            "vendor": _col(str, pa.Check.isin(["nvidia", "amd", "intel"])),
            "family": _col(str, pa.Check.str_matches(SLUG)),
            "name": _col(str),
            "form_factor": _col(str, pa.Check.isin(["sxm", "pcie", "nvl", "oam", "socket"])),
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


CURRENCIES = ["USD", "CNY", "EUR", "GBP"]


def _opt(df: pd.DataFrame, name: str) -> pd.Series:
    """An optional column, empty when the file leaves it out."""
    return df[name] if name in df.columns else pd.Series(None, index=df.index, dtype=object)


def _price_in_one_currency(df: pd.DataFrame) -> pd.Series:
    """A USD price is in usd_per_hour; any other currency gives amount_per_hour and leaves usd_per_hour
    empty (it is converted at the dated exchange rate)."""
    usd = _opt(df, "currency").isna() | _opt(df, "currency").eq("USD")
    return (usd & df["usd_per_hour"].notna() & _opt(df, "amount_per_hour").isna()) | (
        ~usd & df["usd_per_hour"].isna() & _opt(df, "amount_per_hour").notna()
    )


def _median_has_sample(df: pd.DataFrame) -> pd.Series:
    """A marketplace median or minimum says how many listings it was taken over when the source prints it;
    a list price has no sample."""
    return _opt(df, "sample_size").isna() | df["statistic"].isin(["median", "minimum"])


def _host_only_for_split_billing(df: pd.DataFrame) -> pd.Series:
    """A host price is only added where the sidecar says GPU and host are billed apart."""
    return _opt(df, "host_usd_per_hour").isna() | _opt(df, "price_basis").eq("gpu_and_host")


def _inside_scope(df: pd.DataFrame) -> pd.Series:
    """A partial snapshot lists only offers inside the regions and tiers it says it covers."""

    def within(values, allowed):
        return [not isinstance(a, str) or v in a.split(",") for v, a in zip(values, allowed)]

    ok_region = pd.Series(within(df["region"], _opt(df, "scope_regions")), index=df.index)
    ok_tier = pd.Series(within(df["pricing_tier"], _opt(df, "scope_tiers")), index=df.index)
    ok_count = pd.Series(within(df["gpu_count"].astype(str), _opt(df, "scope_gpu_counts")), index=df.index)
    return ok_region & ok_tier & ok_count


def prices_schema() -> pa.DataFrameSchema:
    return pa.DataFrameSchema(
        {
            "offering": _col(str),
            "gpu_name": _col(str),
            "gpu_memory_gb": _col(float, pa.Check.in_range(2, 1024), nullable=True),
            "gpu_count": _col("Int64", pa.Check.in_range(1, 72)),
            "usd_per_hour": _col(
                float,
                pa.Check.gt(0, error="price must be > 0"),
                pa.Check.lt(2_000, error="price above $2,000/hour: wrong unit?"),
                nullable=True,
            ),
            "pricing_tier": _col(str, pa.Check.isin(TIERS)),
            "statistic": _col(str, pa.Check.isin(["list", "minimum", "median"])),
            "region": _col(str),
            "note": _col(object, nullable=True),
            **{
                name: pa.Column(
                    dtype, checks=checks, nullable=True, coerce=True, required=False, metadata={"file": where}
                )
                for name, dtype, checks, where in [
                    ("currency", object, [_opt_isin(CURRENCIES)], "optional"),
                    ("amount_per_hour", float, [pa.Check.gt(0, error="price must be > 0")], "optional"),
                    ("host_usd_per_hour", float, [pa.Check.gt(0, error="host price must be > 0")], "optional"),
                    ("sample_size", "Int64", [pa.Check.ge(1)], "optional"),
                    # from the sidecar (sources.KINDS["prices"].sidecar_columns), checked against the rows
                    ("price_basis", object, [], "sidecar"),
                    ("scope_regions", object, [], "sidecar"),
                    ("scope_tiers", object, [], "sidecar"),
                    ("scope_gpu_counts", object, [], "sidecar"),
                ]
            },
        },
        checks=[
            pa.Check(_price_in_one_currency, error="give usd_per_hour (USD) or currency + amount_per_hour, not both"),
            pa.Check(_median_has_sample, error="sample_size is only for a median or minimum over listings"),
            pa.Check(
                _host_only_for_split_billing, error="host_usd_per_hour needs price_basis: gpu_and_host in the sidecar"
            ),
            pa.Check(_inside_scope, error="offer outside the regions, tiers or GPU counts the sidecar's covers: lists"),
        ],
        unique=["snapshot_id", "offering", "gpu_name", "gpu_count", "pricing_tier", "statistic", "region"],
        name="prices",
    )


def fx_rates_schema() -> pa.DataFrameSchema:
    return pa.DataFrameSchema(
        {
            "currency": _col(str, pa.Check.isin(CURRENCIES)),
            "units_per_usd": _col(float, pa.Check.gt(0)),
            "rate_date": _col("datetime64[ns]"),
            "document_id": _col(str),
        },
        unique=["snapshot_id", "currency", "rate_date"],
        name="fx_rates",
    )


def aliases_schema(gpu_ids: list[str] | None = None) -> pa.DataFrameSchema:
    gpu_checks = (
        [pa.Check.isin(gpu_ids, error="alias points to a GPU that is in no gpus.csv")] if gpu_ids is not None else []
    )
    return pa.DataFrameSchema(
        {
            "gpu_name": _col(str),
            "gpu_memory_gb": _col(float, pa.Check.in_range(2, 1024), nullable=True),
            "gpu_id": _col(str, *gpu_checks),
            "evidence": _col(str),
        },
        unique=["collection", "gpu_name", "gpu_memory_gb"],
        name="aliases",
    )


def models_schema() -> pa.DataFrameSchema:
    pos_int = lambda nullable=False, optional=False: _col(  # noqa: E731
        "Int64", pa.Check.gt(0), nullable=nullable, optional=optional
    )
    flag = lambda nullable=False, optional=False: _col(  # noqa: E731
        str, pa.Check.isin(["true", "false"]), nullable=nullable, optional=optional
    )
    return pa.DataFrameSchema(
        {
            "model_id": _col(str, pa.Check.str_matches(SLUG), unique=True),
            "name": _col(str),
            "family": _col(str),
            "developer": _col(str),
            "layers": pos_int(),
            "hidden_size": pos_int(),
            "intermediate_size": pos_int(),
            "moe_intermediate_size": pos_int(True),
            "attention_heads": pos_int(),
            "kv_heads": pos_int(),
            "head_dim": pos_int(True),
            "vocab_size": pos_int(),
            "tied_embeddings": flag(),
            "max_context": pos_int(),
            "attention_kind": _col(str, pa.Check.isin(["mha", "gqa", "mqa", "mla"])),
            "sliding_window": pos_int(True),
            "full_attention_layers": _col("Int64", pa.Check.ge(0), nullable=True),
            "q_lora_rank": pos_int(True),
            "kv_lora_rank": pos_int(True),
            "qk_nope_head_dim": pos_int(True),
            "qk_rope_head_dim": pos_int(True),
            "v_head_dim": pos_int(True),
            "num_experts": pos_int(True),
            "experts_per_token": pos_int(True),
            "shared_experts": _col("Int64", pa.Check.ge(0), nullable=True),
            "first_dense_layers": _col("Int64", pa.Check.ge(0), nullable=True),
            "mlp_kind": _col(str, pa.Check.isin(["gated", "plain"])),
            "qkv_bias": flag(),
            "linear_bias": flag(),
            "norm_kind": _col(str, pa.Check.isin(["rmsnorm", "layernorm"])),
            "norms_per_layer": pos_int(),
            "published_params_b": _col(float, pa.Check.in_range(0.01, 5_000), nullable=True),
            "published_active_params_b": _col(float, pa.Check.gt(0), nullable=True),
            "params_note": _col(str, nullable=True),
            "document_id": _col(str),
            "params_document_id": _col(str),
            "window_kind": _col(str, pa.Check.isin(["sliding", "chunked"]), nullable=True, optional=True),
            "attention_sinks": flag(True, optional=True),
            "linear_attention_layers": _col("Int64", pa.Check.ge(0), nullable=True, optional=True),
            "linear_key_heads": pos_int(True, optional=True),
            "linear_value_heads": pos_int(True, optional=True),
            "linear_key_head_dim": pos_int(True, optional=True),
            "linear_value_head_dim": pos_int(True, optional=True),
            "linear_conv_kernel": pos_int(True, optional=True),
            "index_n_heads": pos_int(True, optional=True),
            "index_head_dim": pos_int(True, optional=True),
            "index_topk": pos_int(True, optional=True),
            "mtp_layers": _col("Int64", pa.Check.ge(0), nullable=True, optional=True),
            "native_format": _col(str, pa.Check.isin(NATIVE_FORMATS), nullable=True, optional=True),
            "status": _col(str, pa.Check.isin(MODEL_STATUSES), nullable=True, optional=True),
            "superseded_by": _col(str, pa.Check.str_matches(SLUG), nullable=True, optional=True),
        },
        checks=[
            pa.Check(
                _model_consistent,
                error="inconsistent model shape: kv_heads must divide the heads; "
                "MLA needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim; MoE needs "
                "experts_per_token <= num_experts and a published active count; a sliding window needs "
                "full_attention_layers; a model without a published count needs a params_note; linear-attention "
                "layers need their state's shape and full_attention_layers + linear_attention_layers = layers; "
                "an indexer needs index_n_heads, index_topk and MLA; a window_kind needs a sliding_window; status "
                "superseded needs superseded_by, a current model of the catalogue, and only it",
            )
        ],
        name="models",
    )


# current: what teams deploy today; superseded: its developer's newer model in this catalogue takes its place
# (superseded_by); legacy: no longer deployed for new work, with no successor from its developer here
MODEL_STATUSES = ["current", "superseded", "legacy"]

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
# weight formats the serving engines load (core_weight_formats rows used_for 'serving'; a test keeps them equal)
ENGINE_FORMATS = ("bf16", "fp8", "fp8-block", "int8", "int4", "nvfp4", "mxfp4", "mxfp4-moe")
# how an official checkpoint ships its weights (models.native_format): a row of core_weight_formats
NATIVE_FORMATS = ("bf16", "fp8", "fp8-block", "mxfp4-moe", "int4")
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


RAW_SCHEMAS = {
    "gpus": gpus_schema,
    "spec_figures": spec_figures_schema,
    "claims": claims_schema,
    "model_claims": model_claims_schema,
    "prices": prices_schema,
    "fx_rates": fx_rates_schema,
    "aliases": aliases_schema,
    "models": models_schema,
    "measurements": measurements_schema,
    "serving_measurements": serving_measurements_schema,
    "training_measurements": training_measurements_schema,
}


def validate(schema: pa.DataFrameSchema, frame: pd.DataFrame) -> list[Problem]:
    """Validate a raw frame (text as read, with source_file/source_row) and name every failure."""
    if frame.empty:
        return []
    try:
        schema.validate(frame.copy(), lazy=True)
        return []
    except pa.errors.SchemaErrors as exc:
        cases = exc.failure_cases
    problems: list[Problem] = []
    files = frame["source_file"]
    rows = frame["source_row"]
    frame_checks = {str(c.error) for c in schema.checks if c.error} | {str(c.name) for c in schema.checks}
    for case in cases.itertuples(index=False):
        index = case.index
        # a dataframe-wide rule is reported once per row, not once per column of the row
        column = case.column if case.column in frame.columns and str(case.check) not in frame_checks else None
        has_row = index is not None and not (isinstance(index, float) and pd.isna(index)) and index in frame.index
        file = files.loc[index] if has_row else ", ".join(sorted(set(files)))
        row = int(rows.loc[index]) if has_row else None
        check = str(case.check)
        value = (
            None
            if case.failure_case is None or (isinstance(case.failure_case, float) and pd.isna(case.failure_case))
            else str(case.failure_case)
        )
        if column is None and has_row:
            value = None  # a row-wise dataframe check: the rule names what is wrong
        if check.startswith("coerce_dtype") or "dtype" in check:
            rule = f"cannot be read as {check.split('(')[-1].rstrip(')')}"
        elif check == "field_uniqueness" or check == "multiple_fields_uniqueness":
            rule = "duplicate key: another row has the same " + (column or ", ".join(schema.unique or []))
        elif check == "not_nullable":
            rule = "required value is missing"
        else:
            rule = check
        if not has_row and value and value.startswith("TypeError("):
            continue  # a check that could not run because the column failed to coerce
        problems.append(Problem(file, row, column, rule, value))
    # pandera reports each duplicated row of a multi-column key; keep one line per row
    seen, out = set(), []
    for p in problems:
        if (p.file, p.row, p.column, p.rule) not in seen:
            seen.add((p.file, p.row, p.column, p.rule))
            out.append(p)
    return sorted(out, key=lambda p: (p.file, p.row or 0, p.column or ""))
