"""The Models page (pipeline/render/models/), rendered from hand-made query results (no database, no build)."""

from __future__ import annotations

import math

import pandas as pd

from pipeline.render.models import FAMILY, context, layer_layout

HOSTILE = "<script>x</script> *a* |b"
ESCAPED = "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b"
NAN = math.nan


def model(**overrides) -> dict:
    row = {
        "model_id": "llama-3.3-70b",
        "name": "Llama 3.3 70B",
        "family": "Llama",
        "params_b": 70.55,
        "published_params_b": 70.0,
        "params_deviation": 0.0079,
        "params_note": NAN,
        "active_params_b": 70.55,
        "embedding_params_b": 1.05,
        "head_params_b": 1.05,
        "attention_params_b": 12.1,
        "mlp_params_b": 56.4,
        "expert_params_b": 0.0,
        "status": "current",
        "is_current": True,
        "superseded_by": None,
        "native_format": "bf16",
        "attention_kind": "gqa",
        "layers": 80,
        "window_layers": 0,
        "window_kind": None,
        "linear_attention_layers": 0,
        "sliding_window": NAN,
        "attention_sinks": False,
        "index_head_dim": NAN,
        "mtp_layers": 0,
        "hidden_size": 8192,
        "attention_heads": 64,
        "kv_heads": 8,
        "head_dim": 128,
        "vocab_size": 128256,
        "max_context": 131072,
        "kv_lora_rank": NAN,
        "num_experts": NAN,
        "experts_per_token": NAN,
        "url": "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct/blob/main/config.json",
        "params_url": "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct",
    }
    return {**row, **overrides}


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        [
            model(),
            model(
                model_id="evil",
                name=HOSTILE,
                family=HOSTILE,
                params_b=120.0,
                published_params_b=NAN,
                params_deviation=NAN,
                params_note=HOSTILE,
                status="superseded",
                is_current=False,
                superseded_by="llama-3.3-70b",
                attention_kind="gqa",
                layers=36,
                window_layers=18,
                window_kind=HOSTILE,
                sliding_window=128.0,
                attention_sinks=True,
                mtp_layers=1,
                num_experts=128.0,
                experts_per_token=4.0,
                url="javascript:alert(1)",
            ),
        ]
    )


def test_queries_read_public_views_only():
    assert FAMILY.not_views() == set()
    assert FAMILY.views == {"models", "sources"}


def test_layer_layout():
    m = frame().iloc[1]
    assert layer_layout(m) == f"18 full + 18 {HOSTILE} (128 tokens), sinks, +1 MTP"
    mla = pd.Series(model(attention_kind="mla", layers=61, index_head_dim=128.0))
    assert layer_layout(mla) == "61 MLA, sparse-attention indexer"


def test_models_page():
    page = FAMILY.render("models.md.j2", **context(frame()))
    assert page.startswith("---\nhide:\n  - navigation\n  - toc\n---\n# Models\n")
    assert "2 LLMs, 1 of them current." in page
    assert (
        "| Llama 3.3 70B | current | 70.5 | 70 | +0.79% | 70.5 | 1.05 | 1.05 | 12.1 | 56.4 | "
        '<a href="https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct" rel="nofollow noopener">card</a> |'
    ) in page
    assert f"| {ESCAPED} [1] | superseded by Llama 3.3 70B | 120 | – | – |" in page
    assert f"1. **{ESCAPED}**: {ESCAPED}" in page
    assert f"| 18 full + 18 {ESCAPED} (128 tokens), sinks, +1 MTP |" in page
    assert "| 131,072 | 128 | – | 128/4 | config |" in page  # window, no latent, experts; a non-http link as text
    assert "| 80 | 8,192 | 64 | 8 | 128 | 128,256 | 131,072 | – | – | – |" in page
    assert "<script>" not in page and 'href="javascript' not in page
    assert page.count('<div class="atlas-sortable" markdown="1">') == 2
