"""What every source schema shares: the words a column may hold (precisions, tiers, formats), and column builders."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from ..sourcefiles.kinds import CURRENCIES as _CURRENCIES


PRECISIONS = ["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "fp6", "fp4", "int8", "int4"]


INTEGER_PRECISIONS = ["int8", "int4"]


MEMORY_TYPES = ["HBM2", "HBM2e", "HBM3", "HBM3e", "GDDR5", "GDDR5X", "GDDR6", "GDDR6X", "GDDR7"]


TIERS = ["on-demand", "spot", "reserved", "promotional"]


FIGURE_UNITS = {
    "memory_bandwidth": "gbs",
    "tdp": "w",
    "module_power": "w",  # power of a whole module (CPU + GPU + memory), never the GPU's TDP
    "memory_size": "gb",  # memory as a figure, where vendor documents disagree with the identity row
    "memory_usable": "gb",  # memory a system leaves to software, where the vendor prints one below the physical size
    "interconnect_bandwidth": "gbs",
    "host_bandwidth": "gbs",  # the PCIe link to the host, both directions
    "interconnect_gpus": "gpus",  # how many GPUs the interconnect joins (a bridge: 2 or 4), where it joins fewer
    "launch_price": "usd",
    "release_year": "year",
}


# plausible ranges per unit-bearing metric (inclusive); outside is a typo or a wrong unit
RANGES = {
    "memory_bandwidth": (50, 20_000),  # GB/s
    "tdp": (20, 2_500),  # W
    "module_power": (20, 5_000),  # W
    "memory_size": (2, 1_024),  # GB
    "memory_usable": (2, 1_024),  # GB
    "interconnect_bandwidth": (10, 5_000),  # GB/s
    "host_bandwidth": (4, 512),  # GB/s, PCIe x1 Gen 3 to x16 Gen 7
    "interconnect_gpus": (2, 576),  # GPUs, a two-card bridge to the largest NVLink domain
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


CURRENCIES = list(_CURRENCIES)  # the currencies a price may be printed in (sourcefiles.kinds)


def _opt(df: pd.DataFrame, name: str) -> pd.Series:
    """An optional column, empty when the file leaves it out."""
    return df[name] if name in df.columns else pd.Series(None, index=df.index, dtype=object)


# current: what teams deploy today; superseded: its developer's newer model in this catalogue takes its place
# (superseded_by); legacy: no longer deployed for new work, with no successor from its developer here
MODEL_STATUSES = ["current", "superseded", "legacy"]


# weight formats the serving engines load (core_weight_formats rows used_for 'serving'; a test keeps them equal)
ENGINE_FORMATS = ("bf16", "fp8", "fp8-block", "int8", "int4", "nvfp4", "mxfp4", "mxfp4-moe", "int4-moe")


# how an official checkpoint ships its weights (models.native_format): a row of core_weight_formats
NATIVE_FORMATS = ("bf16", "fp8", "fp8-block", "mxfp4-moe", "int4-moe", "int4")
