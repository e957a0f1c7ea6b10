"""LLM configs: one row per model, its shape consistent (heads, MLA, experts, windows, linear attention, status)."""

from __future__ import annotations

import pandas as pd
import pandera.pandas as pa

from .common import MODEL_STATUSES, NATIVE_FORMATS, SLUG, _col


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
