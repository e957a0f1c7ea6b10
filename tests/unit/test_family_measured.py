"""The Measured-against-estimated family from hand-made query results: totals, accuracy per model and publication,
calibrations and every measurement in their tables, text from the data escaped, queries over the public views only.
No database, no build."""

from __future__ import annotations

import pandas as pd

from pipeline.render import measured as measurements

HOSTILE = "<script>x</script> *a* |b"


def df(**columns) -> pd.DataFrame:
    return pd.DataFrame(columns)


def frames(text: str = "Ada", serving: bool = True) -> dict[str, pd.DataFrame]:
    gpus = ["g1", "g2", "g3", "g4"]
    return {
        "totals": df(n=[331], gpus=[23], publications=[6], above=[0], top=[0.891]),
        # four GPUs for llama-2-7b q4_0 (ranked the same both ways), two for bf16 (too few to rank)
        "accuracy_rows": df(
            model_id=["llama-2-7b"] * 6,
            format=["q4_0"] * 4 + ["bf16"] * 2,
            gpu_id=gpus + gpus[:2],
            measured=[100.0, 200.0, 300.0, 400.0, 50.0, 60.0],
            expected=[110.0, 180.0, 330.0, 400.0, 55.0, 60.0],
        ),
        "calibration": df(
            architecture=[text, "Hopper"],
            decode_efficiency=[0.75, float("nan")],
            overhead_us_per_layer=[2.5, 3.0],
            calibration_scope=["architecture", "default"],
            gpus_measured=[5, 0],
            measurements=[120, 0],
            median_measured_share_of_bound=[0.62, float("nan")],
        ),
        "by_family": df(architecture=[text], n=[120], gpus=[5], share=[0.62], err=[0.081], max_share=[0.89]),
        "measurements": df(
            model_id=["llama-2-7b"],
            format=["q4_0"],
            gpu_id=["nvidia-rtx-4090-pcie-24gb"],
            gpu_name=[text],
            gpu_count=[1],
            split_mode=["layer"],
            engine=["llama.cpp"],
            prompt_tokens=[512],
            generated_tokens=[128],
            measured_tokens_per_s=[150.0],
            bound_tokens_per_s=[200.0],
            measured_share_of_bound=[0.75],
            expected_tokens_per_s=[140.0],
            expected_error=[-0.0667],
            source_id=[text],
            url=["https://example.org/a"],
            title=[text],
        ),
        "serving_totals": df(
            n=[40 if serving else 0], gpus=[3], publications=[4], above=[0], top=[0.55 if serving else None]
        ),
        "serving_calibration": df(
            label=[text],
            engine_family=["vllm-sglang"],
            model_kind=["dense"],
            architecture=[text],
            comm_efficiency=[0.35],
            decode_efficiency=[0.7],
            compute_efficiency=[0.5],
            step_overhead_us=[500.0],
            sequence_overhead_us=[1234.4],
            first_token_overhead_ms=[138.1],
            calibrated=[True],
            measurements=[30],
            gpus_measured=[3],
            held_out_median_abs_error=[0.21],
            publication_held_out_median_abs_error=[0.33],
            per_user_held_out_median_abs_error=[0.18],
            ttft_held_out_median_abs_error=[None],
            per_user_publication_held_out_median_abs_error=[0.2],
            ttft_publication_held_out_median_abs_error=[0.4],
        ),
        "serving_levels": df(
            engine_family=["vllm-sglang", text],
            model_id=["deepseek-r1", text],
            weights=["fp8", text],
            level=[1.216, 0.5],
            figures=[214, 3],
            gpus=[6, 2],
            publications=[5, 1],
        ),
        "serving_reproducibility": df(
            engine_family=["vllm-sglang", text],
            model_kind=["moe", text],
            quantity=["ttft", text],
            figures=[234, 3],
            deployments=[8, 1],
            publications=[3, 2],
            pairs=[8, 1],
            median_disagreement=[0.29, 0.5],
            least_error=[0.112, 0.167],
            publication_held_out_median_abs_error=[0.44, None],
            sweep_shape_error=[0.254, 0.1],
        ),
        "serving_rows": df(
            snapshot_id=["snap"] * 3,
            title=[text] * 3,
            url=["https://example.org/s"] * 3,
            engine_family=["vllm"] * 3,
            gpu_id=gpus[:3],
            measured=[100.0, 200.0, 300.0],
            expected=[120.0, 190.0, 240.0],
            measured_share_of_bound=[0.3, 0.4, 0.5],
            current_engine=[True, True, False],
        ),
        "serving_detail": df(
            model_id=["llama-3.1-8b", "llama-3.1-70b"],
            format=["fp8", "bf16"],
            gpu_id=["nvidia-h100-sxm-80gb"] * 2,
            gpu_name=[text] * 2,
            engine=["vLLM"] * 2,
            figures=[3, 2],
            documents=[1, 1],
            median_share=[0.4, float("nan")],
            max_share=[0.5, float("nan")],
            median_error=[0.1, float("nan")],
            beyond=[0, 2],
        ),
    }


def page(**kwargs) -> str:
    return measurements.FAMILY.render("measured.md.j2", **measurements.context(**frames(**kwargs)))


def test_figures_fill_the_page():
    text = page()
    assert text.startswith("# Measured against estimated\n")
    assert (
        "**331 published measurements on 23 GPUs from 6 publications; 0 above their bound** (the highest reaches 89%"
        in text
    )
    # ranked over four GPUs: Spearman 1.00, |error| 10%, 10%, 10%, 0% (median 10%); two GPUs are too few
    assert "| llama-2-7b | q4\\_0 | 4 | 1.00 | 10% |" in text
    assert "| llama-2-7b | bf16 | 2 | – | – |" in text
    assert "| llama-3-70b | q4\\_k\\_m | 0 | – | – |" in text
    assert "| Ada | 75% | 2.5 | architecture | 5 | 120 | 62% |" in text
    # a model's own level with an engine family
    assert "| vLLM and SGLang | deepseek-r1 | fp8 | 1.22 | 214 | 6 | 5 |" in text
    # how far publications disagree on one deployment, beside the error held out by publication
    assert (
        "| vLLM and SGLang, mixture-of-experts models | time to first token | 234 | 8 | 3 | 8 | 29% | 11% | 44% | 25% |"
    ) in text
    assert "| Hopper | – | 3 | default | 0 | 0 | – |" in text
    assert "| Ada | 120 | 5 | 62% | 89% | 8% |" in text
    assert (
        "| llama-2-7b | q4\\_0 | [Ada](gpus/nvidia-rtx-4090-pcie-24gb.md) | 1 | layer | llama.cpp | 512 | 128 | 150 "
        '| 200 | 75% | 140 | -7% | <a href="https://example.org/a" rel="nofollow noopener">Ada</a> |' in text
    )
    assert "**40 published serving figures (vLLM, SGLang, TensorRT-LLM) on 3 GPUs from 4 publications; 0 beyond" in text
    assert (
        "| Ada | Ada | 70% | 50% | 500 | 1,234 | 35% | 138 | fitted | 30 | 3 | 21% | 33% | 18% | 20% | – | 40% |"
        in text
    )
    # a '|' in a header is an entity, so the table keeps its seven columns
    assert "| GPUs | Median &#124;expected ÷ measured − 1&#124; | Spearman ρ |" in text
    # 3 figures, 2 of today's engines, 3 GPUs; |error| 20%, 5%, 20%
    assert "| vllm | 3 | 2 | 3 | 20% | 1.00 | 50% |" in text
    assert "| 3 | 1 | 40% | 50% | 10% | none |" in text
    assert "| 2 | 1 | – | – | – | **2** |" in text
    assert text.count('<div class="atlas-sortable" markdown="1">') == 2


def test_no_serving_figures_says_so():
    text = page(serving=False)
    assert "No published serving measurement is ingested yet." in text
    assert "### By model, GPU and engine" not in text


def test_text_from_the_data_is_escaped():
    text = page(text=HOSTILE)
    assert "<script>" not in text
    assert "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b" in text


def test_queries_read_public_views_only():
    assert measurements.FAMILY.not_views() == set()
    assert measurements.FAMILY.views == {
        "measured_vs_estimate",
        "decode_calibration",
        "serving_vs_estimate",
        "serving_calibration",
        "serving_model_levels",
        "serving_reproducibility",
        "sources",
    }


def test_the_page_in_chinese_keeps_the_figures():
    from pipeline.render import i18n

    english = page()
    with i18n.use("zh"):
        text = page(text=HOSTILE)
        chinese = page()
        scopes = [measurements.scope_label(s) for s in ("llama.cpp on all architectures", "llama.cpp on Hopper", "x")]
        label = measurements.serving_label("vLLM and SGLang, dense models", "vllm-sglang", "dense")
        other = measurements.serving_label("Someone's label", "vllm-sglang", "dense")
    assert text.startswith("# 实测与估算对比\n")
    assert (
        "**331 条公开发表的实测数据，涉及 23 款 GPU，来自 6 份公开资料；其中 0 条超出其上限**（最高达到上限的 89%）"
        in text
    )
    assert "## 推理服务引擎" in text and "### 按模型、GPU 和引擎" in text
    assert "| 模型 | 格式 | GPU 数 | Spearman ρ（预期与实测） | 误差中位数（预期 ÷ 实测 − 1，取绝对值） |" in text
    assert "| &#124;预期 ÷ 实测 − 1&#124; 中位数 |" in text
    assert "| 70% | 50% | 500 | 1,234 | 35% | 138 | 拟合 | 30 | 3 | 21% | 33% | 18% | 20% | – | 40% |" in text
    assert "| 3 | 1 | 40% | 50% | 10% | 无 |" in text and "| 2 | 1 | – | – | – | **2** |" in text
    for row in ("| llama-2-7b | q4\\_0 | 4 | 1.00 | 10% |", "| Ada | 120 | 5 | 62% | 89% | 8% |"):
        assert row in english and row in chinese
    assert "Measured against estimated" not in text and "Serving engines" not in text
    assert "<script>" not in text and "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b" in text
    assert scopes == ["llama.cpp，全部架构", "llama.cpp，Hopper 架构", "x"]
    assert label == "vLLM 与 SGLang，稠密模型" and other == "Someone's label"
    assert measurements.scope_label("llama.cpp on Hopper") == "llama.cpp on Hopper"  # English: the view's words
