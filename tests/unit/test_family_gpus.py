"""The GPU index and GPU pages (pipeline/render/gpus/), rendered from hand-made query results (no database, no
build)."""

from __future__ import annotations

import pandas as pd

from pipeline.render import i18n
from pipeline.render.gpus import FAMILY, index_context, nearest, pages_context

HOSTILE = "<script>x</script> *a* |b"
ESCAPED = "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b"
H100 = "nvidia-h100-sxm-80gb"
P100 = "nvidia-p100-pcie-16gb"


def assert_escaped(page: str) -> None:
    assert "<script>x" not in page
    assert ESCAPED in page


def gpus_frame() -> pd.DataFrame:
    """Four variants, as the `gpus` query returns them (with the dense 16-bit rate), ordered by name."""
    rows = [
        # gpu_id, name, family, architecture, memory, type, bandwidth, bf16, fp16, fp32, fp8, tdp, link, tensor, year
        ("amd-mi300x-oam-192gb", HOSTILE, "mi300", "CDNA 3", 192.0, "HBM3", 5300.0, 1307.4, 1307.4, 163.4, 2614.9,
         750.0, 896.0, True, 2023),
        ("nvidia-h100-nvl-94gb", "H100 NVL 94 GB", "h100", "Hopper", 94.0, "HBM3", 3938.0, 835.5, 835.5, 60.0,
         1670.5, 400.0, 600.0, None, 2024),
        (H100, "H100 SXM 80 GB", "h100", "Hopper", 80.0, "HBM3", 3350.0, 989.4, 989.4, 66.91, 1979.0, 700.0, 900.0,
         True, 2022),
        (P100, "P100 PCIe 16 GB", "p100", None, 16.0, None, 732.0, None, 18.7, 9.3, None, None, None, False, None),
    ]  # fmt: skip
    cols = [
        "gpu_id", "name", "family", "architecture", "memory_gb", "memory_type", "memory_bandwidth_gbs", "bf16_tflops",
        "fp16_tflops", "fp32_tflops", "fp8_tflops", "tdp_w", "interconnect_gbs", "has_tensor_cores", "release_year",
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=cols)
    return frame.assign(
        vendor=frame.gpu_id.str.split("-").str[0],
        form_factor="sxm",
        segment="datacenter",
        tf32_tflops=None,
        fp4_tflops=None,
        int8_tops=None,
        fp64_tflops=None,
        host_gbs=None,
        launch_price_usd=[None, None, None, 5699.0],
        gpus_per_product=1,
        has_derived_dense=False,
        best_16bit_tflops=frame.bf16_tflops.fillna(frame.fp16_tflops).fillna(frame.fp32_tflops),
        identity_source_id="a-source",
    )


def claims_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100, H100, H100, H100],
            "metric": ["compute", "compute", "memory_bandwidth", "architecture"],
            "precision": ["fp8", "bf16", None, None],
            "unit_kind": ["tensor", "tensor", None, None],
            "accumulate": [None, "fp32", None, None],
            "sparsity": ["sparse", "dense", None, None],
            "value": [3958.0, 1000.0, 3350.0, None],
            "value_text": [None, None, None, HOSTILE],
            "unit": ["tflops", "tflops", "gbs", None],
            "is_canonical": [True, False, True, False],
            "classification": [None, "unexplained", None, "unexplained"],
            "explanation": [None, HOSTILE, None, "unexplained: the canonical figure is Hopper"],
            "source_kind": ["vendor_document", "article", "curated_dataset", "blog_or_wiki"],
            "source_id": ["nvidia-h100-datasheet", "a-blog", "epoch", "no-title"],
            "title": ["H100 datasheet", HOSTILE, "Epoch AI " + "data " * 20, None],
            "url": ["https://nvidia.com/h100.pdf", "javascript:alert(1)", "https://epoch.ai/data", None],
            "accessed_on": ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"],
        }
    )


def offers_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100, H100],
            "provider": ["verda", HOSTILE],
            "offering": ["1H100.80S.30V", "h100-80gb"],
            "gpu_count": [1, 8],
            "usd_per_gpu_hour": [1.8, 2.2],
            "comparable_usd_per_gpu_hour": [1.87, None],
            "pricing_tier": ["spot", "on-demand"],
            "statistic": ["minimum", "list"],
            "region": ["fi", "us"],
            "observed_on": ["2026-10-04", "2026-09-20"],
            "observed_date_known": [True, True],
            "currency": ["USD", "EUR"],
            "amount_per_hour": [1.8, 16.0],
            "fx_units_per_usd": [None, 0.91],
            "stale": [False, True],
            "comparable": [True, False],
            "price_basis": ["gpu_and_host", "gpu_only"],
        }
    )


def history_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100, H100, "nvidia-h100-nvl-94gb"],
            "provider": ["verda", "verda", "verda"],
            "provider_colour": ["#17becf"] * 3,
            "offering": ["1H100.80S.30V"] * 3,
            "pricing_tier": ["spot"] * 3,
            "statistic": ["minimum"] * 3,
            "region": ["fi"] * 3,
            "observed_on": ["2026-09-20", "2026-10-04", "2026-10-04"],
            "usd_per_gpu_hour": [1.9, 1.87, 2.5],
        }
    )


def rankings_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100, H100],
            "workload": ["inference", "training"],
            "rank": [17, 12],
            "score": [51.94, 45.4],
            "value_rank": [23.0, None],
        }
    )


def picks_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100, H100],
            "name": ["H100 SXM 80 GB"] * 2,
            "pick": ["on-demand", "reserved"],
            "term": [None, "1 year"],
            "usd_per_gpu_hour": [2.69, None],
            "currency": ["USD", None],
            "amount_per_hour": [2.69, None],
            "gpu_count": [1, None],
            "provider": [HOSTILE, None],
            "offering": ["H100", None],
            "observed_on": ["2026-09-20", None],
            "observed_date_known": [True, None],
            "why": ["cheapest fresh comparable list price", "no current offer qualifies"],
        }
    )


def serving_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100],
            "model_name": [HOSTILE],
            "batch_size": [16],
            "gpus_used": [2],
            "expected_tokens_per_s_per_gpu": [1307.25],
            "bound_tokens_per_s_per_gpu": [2582.44],
        }
    )


def fits_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "gpu_id": [H100, H100, H100],
            "precision": ["int4", "bf16", "fp8"],
            "models": [f"gpt-oss-120b, {HOSTILE}", "Qwen3 32B", "Qwen3 32B, Llama 3.1 8B"],
            "n": [2, 1, 2],
        }
    )


def pages(**frames) -> dict[str, dict]:
    args = {
        "gpus": gpus_frame(),
        "claims": claims_frame(),
        "offers": offers_frame(),
        "history": history_frame(),
        "rankings": rankings_frame(),
        "picks": picks_frame(),
        "serving": serving_frame(),
        "fits": fits_frame(),
    }
    args.update(frames)
    return pages_context(**args)


def test_queries_read_public_views_only():
    assert FAMILY.not_views() == set()
    assert {"gpus", "spec_claims", "sources", "price_offers", "price_picks", "vram_fit", "models"} <= FAMILY.views


def test_index_page():
    gpus = gpus_frame().sort_values("best_16bit_tflops", ascending=False)
    ctx = index_context(gpus)
    page = FAMILY.render("index.md.j2", **ctx)
    assert page.startswith("---\nhide:\n  - navigation\n  - toc\n---\n# GPU specifications\n\n4 GPU variants.")
    assert '<div class="atlas-sortable" data-low="5,6,7,8,9,10,11,12,13,14,15" markdown="1">' in page
    assert "| GPU | Memory<br>GB | Bandwidth<br>GB/s | BF16<br>TFLOPS | FP8<br>TFLOPS |" in page
    assert "|---|" + "---|" * 15 + "\n" in page
    assert f"| [{ESCAPED}](amd-mi300x-oam-192gb.md) | 192 | 5,300 | 1,307 | 2,615 |" in page
    assert "| [P100 PCIe 16 GB](nvidia-p100-pcie-16gb.md) | 16 | 732 | – | – |" in page
    assert "| 5,699 |  | – |\n" in page  # no architecture, no year
    assert "| 900 | – | Hopper | 2022 |\n" in page
    assert page.index("amd-mi300x") < page.index(H100 + ".md") < page.index("nvidia-h100-nvl") < page.index(P100)
    assert 'data-chart="bubble"' in page and 'data-chart="per-watt"' in page
    assert_escaped(page)


def test_nearest_uses_the_dense_16_bit_rate():
    gpus = list(gpus_frame().itertuples(index=False))
    h100 = next(g for g in gpus if g.gpu_id == H100)
    assert [g.gpu_id for g in nearest(h100, gpus)] == ["nvidia-h100-nvl-94gb", "amd-mi300x-oam-192gb", P100]
    assert [g.gpu_id for g in nearest(h100, gpus, 1)] == ["nvidia-h100-nvl-94gb"]


def test_gpu_page():
    ctx = pages()[H100]
    assert [f.precision for f in ctx["fits"]] == ["bf16", "fp8", "int4"]
    assert [v.gpu_id for v in ctx["variants"]] == ["nvidia-h100-nvl-94gb"]
    page = FAMILY.render("gpu.md.j2", **ctx)
    assert page.startswith('# H100 SXM 80 GB\n\n<div class="atlas-glance"><div><span>Memory</span> <b>80 GB</b>')
    glance = page.split("\n\n")[1]
    assert glance.count("\n") == 11 and glance.endswith("</div></div>")
    assert "<div><span>BF16</span> <b>989 TFLOPS</b> <span>dense tensor</span></div>" in glance
    assert f"<span>Cheapest on-demand</span> <b>$2.69/GPU-h</b> <span>{ESCAPED} · <time" in glance
    assert "Cheapest reserved" not in glance  # no price qualifies
    assert (
        f"<div><span>{ESCAPED}, FP8, batch of 16</span> <b>1,307.2 tok/s per GPU</b> "
        "<span>expected, on 2 GPUs; bound 2,582.4</span></div>"
    ) in glance
    assert "<span>Largest on one, BF16</span> <b>Qwen3 32B</b> <span>1 current model fits (4k context)</span>" in glance
    assert "<span>Largest on one, INT4</span> <b>gpt-oss-120b</b> <span>2 current models fit" in glance
    assert "<span>Inference rank</span> <b>#17</b> <span>score 51.9; value #23</span></div>" in glance
    assert "<span>Training rank</span> <b>#12</b> <span>score 45.4</span></div></div>" in glance
    assert (
        '**Compare with its nearest alternatives:** <a href="../../compare/?gpus=nvidia-h100-sxm-80gb,'
        'nvidia-h100-nvl-94gb,amd-mi300x-oam-192gb,nvidia-p100-pcie-16gb">all four side by side</a> · '
        '<a href="../../compare/?gpus=nvidia-h100-sxm-80gb,nvidia-h100-nvl-94gb">vs H100 NVL 94 GB</a> · '
        f'<a href="../../compare/?gpus=nvidia-h100-sxm-80gb,amd-mi300x-oam-192gb">vs {ESCAPED}</a> · '
    ) in page
    assert "| Memory | 80 GB HBM3 |\n| GPU-to-GPU link | 900 GB/s |\n| TDP | 700 W |\n| Launch price | – |" in page
    assert "**Other variants:** [H100 NVL 94 GB](nvidia-h100-nvl-94gb.md)\n" in page
    assert "**Rankings:** inference #17 (score 51.9) · training #12 (score 45.4)\n" in page
    assert (
        f"| bf16 | 1 | Qwen3 32B |\n| fp8 | 2 | Qwen3 32B, Llama 3.1 8B |\n| int4 | 2 | gpt-oss-120b, {ESCAPED} |"
        in page
    )
    # canonical figures: a sparse figure halved; a long title shortened with the whole one in the tooltip
    assert (
        '| fp8 tensor | 3,958 TFLOPS (sparse) | 1,979 | <a href="https://nvidia.com/h100.pdf" rel="nofollow noopener">'
        "H100 datasheet</a> | vendor document | 2026-11-22 |"
    ) in page
    assert (
        '| memory bandwidth | 3,350 GB/s | 3,350 | <a href="https://epoch.ai/data" rel="nofollow noopener" title="'
        in page
    )
    # every other figure: text values, a source without a title or address
    assert f"| bf16 tensor, FP32 accumulate | 1,000 TFLOPS | unexplained | {ESCAPED} | {ESCAPED} |" in page
    assert (
        f"| architecture | {ESCAPED} | unexplained | unexplained: the canonical figure is Hopper | no-title |" in page
    )
    assert 'href="javascript' not in page
    # prices
    assert f"| on-demand | $2.690 | {ESCAPED} | H100 | <time" in page
    assert "| reserved (1 year) | – |  |  | – | no current offer qualifies |" in page
    assert "Tier: a marketplace *median* or a *minimum* (the lowest listing" in page
    assert "| verda | 1H100.80S.30V | 1 | $1.870 | spot · *minimum* | fi |" in page
    assert "| 8 | $2.200 (16 EUR/h at 0.91 EUR/USD) | on-demand | us |" in page
    assert "| **stale** · **GPU only** (host not published) |" in page
    assert 'data-chart="history"' in page and "Price history: H100 SXM 80 GB" in page
    assert_escaped(page)


def test_gpu_page_without_prices_or_tensor_cores():
    page = FAMILY.render("gpu.md.j2", **pages()[P100])
    assert "<div><span>Memory</span> <b>16 GB</b> <span>type not published</span></div>" in page
    assert "<span>BF16</span> <b>– TFLOPS</b> <span>not in hardware or not published</span>" in page
    assert "<div><span>Cloud price</span> <b>–</b> <span>no current offer</span></div></div>" in page
    assert "| Architecture | – |" in page and "| Release year | – |" in page and "| TDP | – |" in page
    assert "| GPU-to-GPU link | no NVLink or fabric figure in the sources (PCIe only, or not published) |" in page
    # a PCIe card whose datasheet prints its host link says so (the P100 PCIe: PCIe Gen3 x16, 32 GB/s)
    gpus = gpus_frame()
    gpus.loc[gpus.gpu_id == P100, "host_gbs"] = 32.0
    pcie = FAMILY.render("gpu.md.j2", **pages(gpus=gpus)[P100])
    assert "| GPU-to-GPU link | PCIe only: 32 GB/s, both directions |" in pcie
    assert "**Other variants:**" not in page and "**Rankings:**" not in page and "## Models that fit" not in page
    assert "## Every other figure" not in page
    assert "## Cloud prices\n\nNo current offer maps to this variant.\n" in page
    assert "### Price used" not in page and "data-chart" not in page

    # a single snapshot is no history; unknown tensor cores print no "tensor"
    nvl = FAMILY.render("gpu.md.j2", **pages()["nvidia-h100-nvl-94gb"])
    assert "data-chart" not in nvl
    assert "<span>BF16</span> <b>836 TFLOPS</b> <span>dense</span>" in nvl


def china_picks_frame() -> pd.DataFrame:
    """The picks with a China-mainland one after the global ones, as the Prices page's query orders them."""
    china = {
        "gpu_id": H100,
        "name": "H100 SXM 80 GB",
        "pick": "on-demand (China mainland)",
        "term": None,
        "usd_per_gpu_hour": 1.546,
        "currency": "CNY",
        "amount_per_hour": 10.5,
        "gpu_count": 1,
        "provider": "autodl",
        "offering": "H100 80G",
        "observed_on": "2026-10-04",
        "observed_date_known": True,
        "why": "cheapest of 3 current on-demand (China mainland) prices",
    }
    return pd.concat([picks_frame(), pd.DataFrame([china])], ignore_index=True)


def china_offers_frame() -> pd.DataFrame:
    """The offers, cheapest first, with a mainland-China provider's (priced in CNY) last."""
    offers = offers_frame().assign(market="global")
    china = offers.iloc[[1]].assign(
        provider="autodl",
        offering="H100 80G",
        gpu_count=1,
        usd_per_gpu_hour=2.5,
        comparable_usd_per_gpu_hour=2.5,
        pricing_tier="on-demand",
        statistic="list",
        region="all",
        currency="CNY",
        amount_per_hour=17.0,
        fx_units_per_usd=6.8,
        stale=False,
        comparable=True,
        price_basis="gpu_and_host",
        market="cn-mainland",
    )
    return pd.concat([offers, china], ignore_index=True)


def test_gpu_pages_in_chinese_show_the_china_market_first():
    with i18n.use("zh"):
        index = FAMILY.render("index.md.j2", **index_context(gpus_frame()))
        ctx = pages(picks=china_picks_frame(), offers=china_offers_frame())[H100]
        page = FAMILY.render("gpu.md.j2", **ctx)
    assert "# GPU 规格\n\n共 4 个 GPU 型号。" in index
    assert "| GPU | 显存<br>GB | 带宽<br>GB/s | BF16<br>TFLOPS |" in index
    assert "| [P100 PCIe 16 GB](nvidia-p100-pcie-16gb.md) | 16 | 732 | – | – |" in index  # the same figures
    # translated labels, the same values
    assert page.startswith('# H100 SXM 80 GB\n\n<div class="atlas-glance"><div><span>显存</span> <b>80 GB</b>')
    assert "<div><span>BF16</span> <b>989 TFLOPS</b> <span>稠密，Tensor Core</span></div>" in page
    assert "<span>推理排名</span> <b>#17</b> <span>得分 51.9；性价比 #23</span>" in page
    assert "## 详细信息\n\n| 项目 | 值 |\n|---|---|\n| 厂商 | nvidia |" in page
    assert "| 显存 | 80 GB HBM3 |\n| GPU 间互连 | 900 GB/s |" in page
    assert "## 云价格\n\n下表先列出中国大陆市场的价格" in page
    assert "\n## Cloud prices" not in page and "Cheapest" not in page
    # the China-mainland market first: the glance, the price used, every current offer
    glance = page.split("\n\n")[1]
    assert glance.index("中国大陆最低按需价</span> <b>$1.55/GPU·小时</b> <span>autodl") < glance.index(
        f"最低按需价</span> <b>$2.69/GPU·小时</b> <span>{ESCAPED}"
    )
    used = page.split("### 采用的价格")[1].split("### 所有当前报价")[0]
    assert used.index("| 按需（中国大陆） | $1.546 (10.5 CNY) | autodl |") < used.index(
        f"| 按需 | $2.690 | {ESCAPED} |"
    )
    offers = page.split("### 所有当前报价")[1]
    assert offers.index("| autodl | H100 80G | 1 | $2.500（17 CNY/h，汇率 6.8 CNY/USD） |") < offers.index(
        "| verda | 1H100.80S.30V | 1 | $1.870 |"
    )
    assert offers.index("| verda |") < offers.index(f"| {ESCAPED} | h100-80gb |")  # each market in its order
    assert "当前 3 个按需（中国大陆）价格中最便宜的" in page
    assert 'data-chart="history"' in page and ctx["history_chart"]["title"] == "价格历史：H100 SXM 80 GB"
    assert_escaped(page)


def test_gpu_pages_in_english_keep_the_order_of_the_queries():
    page = FAMILY.render("gpu.md.j2", **pages(picks=china_picks_frame(), offers=china_offers_frame())[H100])
    glance = page.split("\n\n")[1]
    assert glance.index("<span>Cheapest on-demand</span>") < glance.index("Cheapest on-demand (China mainland)")
    assert page.index(f"| on-demand | $2.690 | {ESCAPED} |") < page.index("| on-demand (China mainland) | $1.546")
    offers = page.split("### Every current offer")[1]
    assert offers.index("| verda | 1H100.80S.30V |") < offers.index("| autodl | H100 80G |")
    assert "China-mainland market" not in page and "中国" not in page
