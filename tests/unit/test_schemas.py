"""Each validation rule rejects a failing example and accepts a good one."""

from __future__ import annotations

import pandas as pd
import pytest

from pipeline import schemas

FIG_COLS = [
    "gpu_id",
    "metric",
    "precision",
    "unit_kind",
    "accumulate",
    "sparsity",
    "value",
    "unit",
    "per_gpus",
    "document_id",
    "note",
]


def frame(rows, columns):
    df = pd.DataFrame(rows, columns=columns).astype(object)
    df = df.where(df.notna(), None)
    df["source_file"] = "sources/specs/test/2026-11-22/figures.csv"
    df["source_row"] = range(2, 2 + len(df))
    df["snapshot_id"] = "s"
    df["collection"] = "c"
    return df


def fig(*rows):
    return frame(list(rows), FIG_COLS)


GOOD = [
    ("g1", "compute", "fp32", "vector", None, "dense", "67", "tflops", None, "d", None),
    ("g1", "compute", "bf16", "tensor", "fp32", "dense", "989.5", "tflops", None, "d", None),
    ("g1", "compute", "bf16", "tensor", "fp32", "sparse", "1979", "tflops", None, "d", None),
    ("g1", "compute", "int8", "tensor", None, "sparse", "3958", "tops", None, "d", None),
    ("g1", "memory_bandwidth", None, None, None, None, "3350", "gbs", None, "d", None),
    ("g1", "tdp", None, None, None, None, "700", "w", None, "d", None),
]


def problems(rows, gpu_ids=("g1",)):
    return schemas.validate(schemas.spec_figures_schema(list(gpu_ids)), fig(*rows))


def test_good_figures_pass():
    assert problems(GOOD) == []


def test_sparse_must_be_twice_dense():
    bad = GOOD[:2] + [("g1", "compute", "bf16", "tensor", "fp32", "sparse", "1500", "tflops", None, "d", None)]
    found = problems(bad)
    assert any("sparse figure is not 2 x" in p.rule and p.row == 4 for p in found)


def test_tensor_half_precision_not_below_vector_fp32():
    bad = [GOOD[0], ("g1", "compute", "fp16", "tensor", "fp32", "dense", "20", "tflops", None, "d", None)]
    assert any("below the vector fp32" in p.rule and p.row == 3 for p in problems(bad))


def test_zero_is_rejected_missing_is_no_row():
    bad = [("g1", "compute", "fp8", "tensor", None, "dense", "0", "tflops", None, "d", None)]
    found = problems(bad)
    assert any(p.column == "value" and "> 0" in p.rule for p in found)


def test_int8_only_in_tops():
    bad = [("g1", "compute", "int8", "tensor", None, "dense", "624", "tflops", None, "d", None)]
    assert any("INT8/INT4 in tops" in p.rule for p in problems(bad))


def test_memory_bandwidth_plausible_range():
    bad = [("g1", "memory_bandwidth", None, None, None, None, "3.35", "gbs", None, "d", "TB/s typed as GB/s")]
    assert any("plausible range" in p.rule for p in problems(bad))


def test_tdp_plausible_range():
    bad = [("g1", "tdp", None, None, None, None, "70000", "w", None, "d", None)]
    assert any("plausible range" in p.rule for p in problems(bad))


def test_release_year_is_a_whole_year_of_the_product():
    assert problems([("g1", "release_year", None, None, None, None, "2023", "year", None, "d", None)]) == []
    for value, per_gpus in (("2023.5", None), ("2023", "2")):
        bad = [("g1", "release_year", None, None, None, None, value, "year", per_gpus, "d", None)]
        assert any("whole number" in p.rule for p in problems(bad))
    bad = [("g1", "release_year", None, None, None, None, "1999", "year", None, "d", None)]
    assert any("plausible range" in p.rule for p in problems(bad))


def test_unknown_gpu_and_non_numeric_value_are_named():
    bad = [("nope", "compute", "fp32", "vector", None, "dense", "abc", "tflops", None, "d", None)]
    found = problems(bad)
    assert any(p.column == "gpu_id" and p.row == 2 for p in found)
    assert any(p.column == "value" and p.row == 2 and "cannot be read" in p.rule for p in found)


def test_duplicate_key_is_rejected():
    found = problems([GOOD[0], GOOD[0]])
    assert any("duplicate key" in p.rule for p in found)


def test_compute_figure_needs_its_type():
    bad = [("g1", "compute", "fp16", None, None, "dense", "50", "tflops", None, "d", None)]
    assert any("compute needs precision" in p.rule for p in problems(bad))


PRICE_COLS = [
    "offering",
    "gpu_name",
    "gpu_memory_gb",
    "gpu_count",
    "usd_per_hour",
    "pricing_tier",
    "statistic",
    "region",
    "note",
]


@pytest.mark.parametrize("price", ["0", "-2.5"])
def test_price_must_be_positive(price):
    df = frame([("x1", "H100", "80", "1", price, "on-demand", "list", "all", None)], PRICE_COLS)
    found = schemas.validate(schemas.prices_schema(), df)
    assert [(p.row, p.column) for p in found] == [(2, "usd_per_hour")]


def test_pricing_tier_vocabulary():
    df = frame([("x1", "H100", "80", "1", "2.5", "promo", "list", "all", None)], PRICE_COLS)
    assert [p.column for p in schemas.validate(schemas.prices_schema(), df)] == ["pricing_tier"]


def test_alias_to_unknown_gpu_is_rejected():
    df = frame(
        [("H100 SXM", None, "nvidia-h999-sxm-80gb", "docs")], ["gpu_name", "gpu_memory_gb", "gpu_id", "evidence"]
    )
    found = schemas.validate(schemas.aliases_schema(["nvidia-h100-sxm-80gb"]), df)
    assert [(p.row, p.column) for p in found] == [(2, "gpu_id")]


def test_model_shape_rules():
    from pipeline.sourcefiles import KINDS

    columns = KINDS["models"].columns + KINDS["models"].optional
    base = dict.fromkeys(columns)
    base.update(
        model_id="m",
        name="M",
        family="f",
        developer="d",
        layers="32",
        hidden_size="4096",
        intermediate_size="14336",
        attention_heads="32",
        kv_heads="8",
        head_dim="128",
        vocab_size="128256",
        tied_embeddings="false",
        max_context="131072",
        attention_kind="gqa",
        mlp_kind="gated",
        qkv_bias="false",
        linear_bias="false",
        norm_kind="rmsnorm",
        norms_per_layer="2",
        published_params_b="8.03",
        document_id="doc",
        params_document_id="doc",
    )

    def problems(**changes):
        row = {**base, **changes}
        return schemas.validate(schemas.models_schema(), frame([[row[c] for c in columns]], columns))

    assert problems() == []
    assert problems(kv_heads="12")  # does not divide the 32 heads
    assert problems(attention_kind="mla")  # MLA without its latent size
    assert problems(num_experts="8", experts_per_token="2")  # MoE without a published active count
    assert problems(num_experts="8", experts_per_token="2", published_active_params_b="13") == []
    assert problems(sliding_window="4096")  # which layers keep full attention?
    assert problems(sliding_window="128", full_attention_layers="16", window_kind="sliding") == []
    assert problems(window_kind="chunked")  # a chunk without its size
    assert problems(window_kind="ring", sliding_window="128", full_attention_layers="16")
    # linear-attention layers: their state's shape, and full + linear = every layer
    linear = dict(
        linear_attention_layers="24",
        linear_key_heads="16",
        linear_value_heads="32",
        linear_key_head_dim="128",
        linear_value_head_dim="128",
        linear_conv_kernel="4",
    )
    assert problems(full_attention_layers="8", **linear) == []
    assert problems(full_attention_layers="10", **linear)  # 10 + 24 is not 32
    assert problems(full_attention_layers="8", **{**linear, "linear_conv_kernel": None})
    assert problems(index_head_dim="128", index_n_heads="64", index_topk="2048")  # an indexer needs MLA
    assert problems(native_format="fp6")
    # a NULL formula input is an error naming the column, not a NULL row downstream
    missing = problems(hidden_size=None)
    assert [p.column for p in missing] == ["hidden_size"] and missing[0].row == 2


def test_a_price_sidecar_states_an_upper_date_only_when_undated_and_leaves_the_market_to_its_provider():
    from pipeline.sourcefiles import price_sidecar_facts

    base = {"kind": "provider_page", "scope": "full", "price_basis": "whole_instance"}
    facts, problems = price_sidecar_facts(
        {**base, "observed_date_known": False, "observed_no_later_than": "2025-12-19"}, "side.yml"
    )
    assert problems == [] and facts["observed_no_later_than"] == "2025-12-19"
    # who can buy is the provider's (its provider.yml), never a snapshot's
    (problem,) = price_sidecar_facts({**base, "market": "cn-mainland"}, "side.yml")[1]
    assert problem.column == "market" and "provider.yml" in problem.rule
    _, problems = price_sidecar_facts({**base, "observed_no_later_than": "2025-12-19"}, "side.yml")
    assert [p.column for p in problems] == ["observed_no_later_than"]  # a dated snapshot has its date
    _, problems = price_sidecar_facts({**base, "scope": "partial", "covers": {"gpu_counts": [1, 8]}}, "side.yml")
    assert problems == []
    _, problems = price_sidecar_facts({**base, "scope": "partial", "covers": {"gpu_counts": [0]}}, "side.yml")
    assert [p.column for p in problems] == ["covers.gpu_counts"]


def test_every_file_column_is_declared_once_in_its_schema_and_documented():
    """A source file's columns come from its pandera schema alone; sources/README.md documents each of them, and a
    column the schema marks as coming from the sidecar is one the reader puts there."""
    from pathlib import Path

    from pipeline.schemas import RAW_SCHEMAS
    from pipeline.sourcefiles import KINDS

    readme = (Path(__file__).parents[2] / "sources" / "README.md").read_text(encoding="utf-8")
    assert set(KINDS) == set(RAW_SCHEMAS)
    for kind in KINDS.values():
        assert kind.columns, kind.name
        undocumented = [c for c in kind.columns + kind.optional if f"`{c}`" not in readme]
        assert undocumented == [], kind.name
        schema = RAW_SCHEMAS[kind.name]()
        from_sidecar = {n for n, c in schema.columns.items() if (c.metadata or {}).get("file") == "sidecar"}
        assert from_sidecar <= set(kind.sidecar_columns), kind.name
