"""Price snapshots, exchange rates, provider GPU aliases and the machines a provider joins into clusters."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from .common import CURRENCIES, TIERS, _col, _opt, _opt_isin


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


# a name of a provider's (offering, GPU, region) starts with a letter or digit and holds no control character: a
# cell that starts with `=`, `+`, `-` or `@` would be a formula in a spreadsheet, and no provider names a thing so
NAME = pa.Check.str_matches(
    r"^\w[^\x00-\x1f\x7f]*\Z", error="a name starts with a letter or digit and holds no control character"
)


def prices_schema() -> pa.DataFrameSchema:
    return pa.DataFrameSchema(
        {
            "offering": _col(str, NAME),
            "gpu_name": _col(str, NAME),
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
            "region": _col(str, NAME),
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
                    # who sells the machine: the provider itself (default) or a third-party host on the provider's
                    # marketplace (RunPod Community Cloud): a host's offer is a marketplace offer, never a list price
                    ("seller", object, [_opt_isin(["provider", "host"])], "optional"),
                    # from the sidecar (sourcefiles.KINDS["prices"].sidecar_columns), checked against the rows
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


# the scale-out fabrics a provider joins its machines with, as its documentation names them
CLUSTER_NETWORKS = ["InfiniBand", "EFA", "RoCE", "GPUDirect-TCPX", "GPUDirect-TCPXO"]


def clusters_schema() -> pa.DataFrameSchema:
    """A provider's offerings that it sells joined into clusters by a scale-out fabric (RDMA between machines, at the
    offering's listed price): the fabric and its bandwidth per machine, in Gbit/s as documented, all its NICs
    together."""
    return pa.DataFrameSchema(
        {
            "offering": _col(str, description="the offering as the provider's price files spell it"),
            "network": _col(str, pa.Check.isin(CLUSTER_NETWORKS)),
            "network_gbps": _col(float, pa.Check.in_range(100, 30_000), description="Gbit/s per machine"),
            "document_id": _col(str),
            "quote": _col(str),
        },
        unique=["collection", "offering"],
        name="clusters",
    )
