"""The VRAM-fit page (pipeline/render/fit/): page, explorer data and heatmap data, rendered from hand-made query
results (no database, no build)."""

from __future__ import annotations

import json
from collections import namedtuple

import numpy as np
import pandas as pd

from pipeline.render import i18n
from pipeline.render.fit import FAMILY, HEATMAPS, context

HOSTILE = "<script>x</script> *a* |b"
Param = namedtuple("Param", "name value")


def heat(model: str, gpu: str, needed) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": [model],
            "gpu": [gpu],
            "memory_gb": [80.0],
            "params_b": [70.6],
            "required_gb": [150.25],
            "gpus_needed": [needed],
        }
    )


def fit_context() -> dict:
    models = pd.DataFrame(
        {"model_id": ["llama-3.3-70b", "evil"], "name": ["Llama 3.3 70B", HOSTILE], "params_b": [70.55, 1.04]}
    )
    gpus = pd.DataFrame({"gpu_id": ["h100"], "name": [HOSTILE], "memory_gb": [80.0], "usable_gb": [80.0 * 0.95]})
    params = [Param("inference_contexts", "[4096.0, 32768.0]"), Param("reference_model", "llama-3.3-70b")]
    required = pd.DataFrame(
        {
            "key": ["llama-3.3-70b|fp8|4096", "evil|fp8|32768"],
            "required_gb": [78.123, 2.0],
            "weights_gb": [70.554, 1.04],
            "kv_cache_gb": [1.3421, None],
            # vram_fit's GPUs needed per GPU of `gpus` (a list column: a masked value where vram_fit has no row)
            "gpus_needed": [np.array([2]), np.ma.masked_array([0], mask=[True])],
        }
    )
    heats = [heat("llama-3.3-70b", HOSTILE, 2), heat("evil", "H100", 12), heat("evil", "H100", None)]
    return context(models, gpus, params, required, heats)


def test_queries_read_public_views_only():
    assert FAMILY.not_views() == set()
    assert FAMILY.views == {"gpus", "models", "parameters", "vram_fit"}


def test_explorer_data():
    ctx = fit_context()
    explorer = json.loads(ctx["files"]["charts/vram-fit-explorer.json"])
    assert explorer["default"] == {"model": "llama-3.3-70b", "precision": "fp8", "context": 4096}
    assert explorer["contexts"] == [4096, 32768]
    assert explorer["models"][0] == {"model_id": "llama-3.3-70b", "name": "Llama 3.3 70B", "params_b": 70.5}
    assert explorer["gpus"] == [{"gpu_id": "h100", "name": HOSTILE, "usable_gb": 76.0}]
    assert explorer["required"] == {
        "llama-3.3-70b|fp8|4096": [78.12, 70.55, 1.342, [2]],
        "evil|fp8|32768": [2.0, 1.04, None, [None]],
    }
    assert list(explorer["required"]) == ["llama-3.3-70b|fp8|4096", "evil|fp8|32768"]  # the query's order


def test_heatmaps_and_page():
    ctx = fit_context()
    assert sorted(ctx["files"]) == [
        "charts/vram-fit-explorer.json",
        "charts/vram-fit-heat-0.json",
        "charts/vram-fit-heat-1.json",
        "charts/vram-fit-heat-2.json",
    ]
    cells = json.loads(ctx["files"]["charts/vram-fit-heat-1.json"])
    assert cells[0]["needed"] == 9 and cells[0]["label"] == ">8"
    assert json.loads(ctx["files"]["charts/vram-fit-heat-0.json"])[0]["gpu"] == HOSTILE
    assert json.loads(ctx["files"]["charts/vram-fit-heat-2.json"])[0]["label"] == ""
    page = FAMILY.render("vram-fit.md.j2", **ctx)
    assert page.startswith("# VRAM fit\n")
    assert "a GPU offers 95% of its memory" in page
    assert 'data-src="../charts/vram-fit-explorer.json"' in page
    assert "## Inference, fp8 weights, 4k context, batch 1" in page
    assert "## Lora fine-tune, full recomputation, 4k context" in page
    assert page.count('class="atlas-spec"') == len(HEATMAPS)
    assert '"url":"../charts/vram-fit-heat-2.json"' in page
    assert "GPUs needed: full fine-tune, mixed-precision AdamW, selective recomputation" in page
    # the data stays in the JSON files: no data text reaches the page
    assert "<script>x" not in page and "script\\u003ex" not in page


def test_the_chinese_page_loads_the_english_data_files():
    english = fit_context()
    with i18n.use("zh"):
        ctx = fit_context()
        page = FAMILY.render("vram-fit.md.j2", **ctx)
    assert page.startswith("# 显存适配\n")
    assert "一张 GPU 可用其显存的 95%。" in page
    assert 'aria-label="模型、权重与上下文"' in page and "<label>权重 <select" in page
    # the data files are the same; the page, one folder deeper, loads them from the site's root
    assert ctx["files"] == english["files"]
    assert 'data-src="../../charts/vram-fit-explorer.json"' in page
    assert '"url":"../../charts/vram-fit-heat-2.json"' in page
    assert "## LoRA 微调，完全重计算，4k 上下文" in page
    assert "所需 GPU 数：推理，FP8 权重，4k 上下文，批大小 1" in json.dumps(
        ctx["heatmaps"][0]["spec"], ensure_ascii=False
    )
