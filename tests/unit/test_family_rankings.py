"""The rankings family (training, inference, cost per TFLOP): context and templates on hand-made rows, no database."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from pipeline.render.rankings import FAMILY, context, cost_context

HOSTILE = "<script>x</script> *a* |b"
PARAMETERS = [
    SimpleNamespace(name="reference_model", value="llama-3.3-70b"),
    SimpleNamespace(name="serving_batch", value="16.0"),
    SimpleNamespace(name="reference_context", value="4096.0"),
    SimpleNamespace(name="training_calibration_min_context", value="2048.0"),
    SimpleNamespace(name="training_calibration_max_context", value="8192.0"),
    SimpleNamespace(name="finetune_tokens", value="1000000000.0"),
    SimpleNamespace(name="reference_training_model", value="llama-3.1-8b"),
    SimpleNamespace(name="value_max_gpus", value="2.0"),
]


def ranks(workload: str, comps: list[str]) -> pd.DataFrame:
    rows = [
        {"gpu_id": "gpu-a", "name": HOSTILE, "score": 99.84, "rank": 1.0, "all_components_known": True},
        {"gpu_id": "gpu-b", "name": "B100", "score": 26.6, "rank": 2.0, "all_components_known": False},
    ]
    for i, r in enumerate(rows):
        r.update(
            workload=workload,
            cheapest_usd_per_gpu_hour=[10.215, None][i],
            score_per_usd=[9.77, None][i],
            value_rank=[24.0, None][i],
            **{f"{c}_component": [0.996, None][i] for c in comps},
        )
    return pd.DataFrame(rows)


def weights(workload: str, comps: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {"workload": workload, "component": comps, "weight": [0.4] + [0.6 / (len(comps) - 1)] * (len(comps) - 1)}
    )


def test_inference_page_scores_weights_and_serving_cost():
    comps = ["decode", "fit", "low_precision_compute"]
    serving = pd.DataFrame(
        {
            "model_id": ["llama-3.3-70b"] * 2,
            "name": [HOSTILE, "B100"],
            "precision": ["fp8", "int4"],
            "gpus_used": [2, 1],
            "single_node": [True, True],
            "batch_decode_tokens_per_s": [900.0, 400.0],
            "usd_per_million_tokens": [3.5, 1.25],
        }
    )
    ctx = context("inference", ranks("inference", comps), weights("inference", comps), PARAMETERS, serving=serving)
    page = FAMILY.render("ranking.md.j2", **ctx)
    assert page.startswith("---\nhide:")
    assert "# Inference ranking" in page
    assert "weights: decode 0.40, fit 0.30, low\\_precision\\_compute 0.30. * = a component" in page
    assert 'data-low="6,7,8"' in page
    assert (
        "| 1 | [&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b](gpus/gpu-a.md) | 99.8 | $10.215 | 9.77 | 24 |" in page
    )
    assert "| 2 | [B100](gpus/gpu-b.md) | 26.6 * | – | – | – | – | – | – |" in page
    assert "## Serving cost: llama-3.3-70b" in page
    assert "Batch 16, 4096-token context" in page
    assert 'data-chart="rank-inference"' in page and 'data-chart="token-cost"' in page
    assert "Fine-tuning" not in page
    assert "<script>x" not in page


def calibration_frames(runs: list[int]):
    measured = pd.DataFrame(
        {
            "gpu_id": ["gpu-a", "gpu-b"][: len(runs)],
            "name": [HOSTILE, "B100"][: len(runs)],
            "runs": runs,
            "publications": [1] * len(runs),
            "measured_utilisation": [0.412, 0.38][: len(runs)],
            "held_out_utilisation": [0.39, 0.40][: len(runs)],
            "held_out_error": [-0.1, 0.3][: len(runs)],
            "dense_tflops": [989.0, 312.0][: len(runs)],
            "memory_bandwidth_gbs": [3350.0, 2039.0][: len(runs)],
        }
    )
    checks = pd.DataFrame(
        {
            "gpu_id": ["gpu-a", "gpu-a", "gpu-c"],
            "name": [HOSTILE, HOSTILE, "gpu-c"],
            "model_as_printed": [HOSTILE, "Llama 3 8B", "Llama 3 70B"],
            "method": ["lora", "pretrain", "qlora"],
            "precision": ["bf16", "bf16", None],
            "seq_len": [4096, 2048, 2048],
            "measured_tokens_per_s_per_gpu": [1000.0, 5000.0, 100.0],
            "expected_tokens_per_s_per_gpu": [1250.0, 5000.0, 2000.0],
            "title": [HOSTILE, "run", "run"],
            "url": ["javascript:alert(1)", "https://example.com/a", "https://example.com/b"],
        }
    )
    return measured, checks


def test_training_page_finetune_and_calibration():
    comps = ["training_throughput", "training_fit", "bandwidth", "interconnect"]
    finetune = pd.DataFrame(
        {
            "gpu_id": ["gpu-a", "gpu-b"],
            "name": [HOSTILE, "B100"],
            "method": ["full", HOSTILE],
            "gpus_needed": [8.0, None],
            "tokens_per_s_per_gpu": [1121.4, 78.1],
            "finetune_hours": [31.0, None],
            "finetune_usd": [2500.4, None],
            "model_name": ["Llama 3.1 8B", "Llama 3.1 8B"],
        }
    )
    measured, checks = calibration_frames([3, 1])
    ctx = context(
        "training",
        ranks("training", comps),
        weights("training", comps),
        PARAMETERS,
        finetune=finetune,
        measured=measured,
        line=f"line {HOSTILE}",
        checks=checks,
    )
    page = FAMILY.render("ranking.md.j2", **ctx)
    assert "# Training ranking" in page
    assert 'data-low="6,7,8,9"' in page
    assert "| training\\_throughput | training\\_fit | bandwidth | interconnect |" in page
    assert (
        "| [&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b](gpus/gpu-a.md) | full | 8 | 1,121 | 31 | $2,500 |" in page
    )
    assert "| [B100](gpus/gpu-b.md) | &lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b | – | 78.1 | – | – |" in page
    assert "calibrated on 4 published runs (BF16 full updates of dense models at 2,048–8,192-token sequences)" in page
    assert "on 2 GPUs:" in page
    assert "the median error is **20%**" in page
    assert "carries (line &lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b)" in page
    assert "| 3 | 989 | 3,350 | 41.2% | 39.0% | -10% |" in page
    # outside checks: the measured GPU's pretraining run is its calibration, left out; error = expected ÷ measured − 1
    assert "| lora | bf16 | 4,096 | 1,000 | 1,250 | +25% | &lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b |" in page
    assert "| 2,048 | 100 | 2,000 | +19× |" in page
    assert "5,000" not in page
    assert "javascript:" not in page
    assert "<script>x" not in page


def test_training_page_without_runs():
    measured, checks = calibration_frames([])
    comps = ["bandwidth", "interconnect"]
    finetune = pd.DataFrame(
        columns=[
            "gpu_id",
            "name",
            "method",
            "gpus_needed",
            "tokens_per_s_per_gpu",
            "finetune_hours",
            "finetune_usd",
            "model_name",
        ]
    )
    ctx = context(
        "training",
        ranks("training", comps),
        weights("training", comps),
        PARAMETERS,
        finetune=finetune,
        measured=measured,
        line=None,
        checks=checks,
    )
    page = FAMILY.render("ranking.md.j2", **ctx)
    assert "No published training run is loaded: every GPU's estimate assumes the `training_mfu` parameter." in page
    assert "Outside checks" not in page


def test_cost_page_cheapest_ten_on_demand_per_precision():
    n = 12
    costs = pd.DataFrame(
        {
            "gpu_id": [f"gpu-{i}" for i in range(n)] + ["gpu-x", "gpu-y"],
            "name": [f"G{i}" for i in range(n)] + [HOSTILE, "Y"],
            "pick": ["on-demand"] * n + ["on-demand", "spot"],
            "pricing_tier": ["on-demand"] * n + ["on-demand", "spot"],
            "precision": ["bf16"] * n + ["fp8", "fp8"],
            "provider": ["p"] * n + [HOSTILE, "q"],
            "provider_colour": ["#875692"] * n + ["#f38400", "#a1caf1"],
            "offering": ["o"] * n + [HOSTILE, "o"],
            "usd_per_gpu_hour": [1.0 + i for i in range(n)] + [2.59, 0.1],
            "dense_tflops": [1000.0] * n + [2615.0, 100.0],
            "usd_per_tflop_hour": [(1.0 + i) / 1000 for i in range(n)] + [2.59 / 2615, 0.001],
        }
    )
    page = FAMILY.render("cost-per-tflop.md.j2", **cost_context(costs))
    assert page.startswith("# Cost per TFLOP\n")
    assert 'data-chart="cost-bf16"' in page
    rows = [line for line in page.splitlines() if line.startswith("| bf16 ") or line.startswith("| fp8 ")]
    assert len(rows) == 11  # ten bf16, one fp8 (the spot pick is not on demand)
    # cheapest $/TFLOP-hour first, whatever the precision
    assert rows[1] == "| bf16 | [G0](gpus/gpu-0.md) | p | o | $1.000 | 1,000 | $0.0010 |"
    # the chart colours each provider as its provider.yml does (the data's provider_colour)
    scale = cost_context(costs)["chart_spec"]["encoding"]["color"]["scale"]
    assert scale == {"domain": ["p"], "range": ["#875692"]}
    assert "G10" not in "\n".join(rows)
    assert rows[0] == (
        "| fp8 | [&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b](gpus/gpu-x.md) | &lt;script&gt;x&lt;/script&gt; "
        "\\*a\\* &#124;b | &lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b | $2.590 | 2,615 | $0.0010 |"
    )
    assert "<script>x" not in page


def test_queries_read_public_views_only():
    assert FAMILY.not_views() == set()
    assert "ranking_weights" in FAMILY.views


def test_pages_in_chinese_keep_the_figures():
    from pipeline.render import i18n
    from pipeline.render.rankings import line_label

    comps = ["training_throughput", "training_fit", "bandwidth", "interconnect"]
    finetune = pd.DataFrame(
        {
            "gpu_id": ["gpu-a"],
            "name": [HOSTILE],
            "method": ["full"],
            "gpus_needed": [8.0],
            "tokens_per_s_per_gpu": [1121.4],
            "finetune_hours": [31.0],
            "finetune_usd": [2500.4],
            "model_name": ["Llama 3.1 8B"],
        }
    )
    measured, checks = calibration_frames([1, 0])
    line = "fitted on 2 measured GPUs by TFLOPS per GB/s of memory bandwidth"
    args = ("training", ranks("training", comps), weights("training", comps), PARAMETERS)
    extra = {"finetune": finetune, "measured": measured, "line": line, "checks": checks}
    english = FAMILY.render("ranking.md.j2", **context(*args, **extra))
    with i18n.use("zh"):
        page = FAMILY.render("ranking.md.j2", **context(*args, **extra))
        assert line_label(None) == "没有拟合直线"
    assert line_label(line) == line  # English: the view's own words
    assert "# 训练排名" in page and "## 训练速度从何而来" in page and "## 用 1 B token 微调 Llama 3.1 8B" in page
    assert "权重：training\\_throughput 0.40，training\\_fit 0.20，bandwidth 0.20，interconnect 0.20。" in page
    assert "| 排名 | GPU | 得分 | 最低 $/GPU 小时 | 每美元得分 | 性价比排名 | training\\_throughput |" in page
    assert "利用率依据 1 次公开发表的训练运行" in page and "涉及 2 款 GPU" in page
    assert "（基于 2 款实测 GPU，按每 GB/s 显存带宽对应的 TFLOPS 拟合）" in page
    # the figures are the English page's
    for row in (
        "| 1 | [&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b](gpus/gpu-a.md) | 99.8 | $10.215 | 9.77 | 24 |",
        "| [&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b](gpus/gpu-a.md) | full | 8 | 1,121 | 31 | $2,500 |",
        "| 1 | 989 | 3,350 | 41.2% | 39.0% | -10% |",
    ):
        assert row in english and row in page
    assert "Training ranking" not in page and "Where the training speeds come from" not in page
    assert "<script>x" not in page

    costs = pd.DataFrame(
        {
            "gpu_id": ["gpu-0"],
            "name": ["G0"],
            "pick": ["on-demand"],
            "pricing_tier": ["on-demand"],
            "precision": ["bf16"],
            "provider": ["p"],
            "provider_colour": ["#875692"],
            "offering": ["o"],
            "usd_per_gpu_hour": [1.0],
            "dense_tflops": [1000.0],
            "usd_per_tflop_hour": [0.001],
        }
    )
    with i18n.use("zh"):
        cost_page = FAMILY.render("cost-per-tflop.md.j2", **cost_context(costs))
    assert cost_page.startswith("# 每 TFLOP 成本\n")
    assert "| 精度 | GPU | 云厂商 | 产品 | $/GPU 小时 | 稠密 TFLOPS | $/TFLOP 小时 |" in cost_page
    assert "| bf16 | [G0](gpus/gpu-0.md) | p | o | $1.000 | 1,000 | $0.0010 |" in cost_page
    assert "[所用价格](prices.md#prices-used)" in cost_page
