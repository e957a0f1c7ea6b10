"""The Sources section (pipeline/render/sources/): Source list, Sources and conflicts, Coverage, rendered from
hand-made query results (no database, no build)."""

from __future__ import annotations

import pandas as pd
import pytest

from pipeline.render import i18n
from pipeline.render.sources import (
    FAMILY,
    REGISTERS,
    conflicts_context,
    context,
    coverage_context,
    explanation,
    in_english,
    register_of,
)
from pipeline.sourcefiles import KINDS

HOSTILE = "<script>x</script> *a* |b"


def assert_escaped(page: str) -> None:
    assert "<script>" not in page
    assert "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b" in page


def test_queries_read_public_views_only():
    assert FAMILY.not_views() == set()
    assert {"sources", "spec_claims", "gpus", "model_claims", "coverage", "unmapped_offers", "models"} <= FAMILY.views


def source_list(sources: pd.DataFrame, kinds: pd.DataFrame) -> dict[str, str]:
    """The Source list's pages by file name: the overview, each register and the terms."""
    values = context(sources, kinds)
    pages = {"index": FAMILY.render("sources.md.j2", **values), "terms": FAMILY.render("terms.md.j2", **values)}
    for register in values["registers"]:
        pages[register["slug"]] = FAMILY.render("register.md.j2", register=register, **values)
    return pages


def test_every_folder_of_sources_is_in_one_register():
    folders = {kind.pattern.split("/")[0] for kind in KINDS.values()}
    in_registers = [folder for r in REGISTERS for folder in r.folders]
    assert sorted(in_registers) == sorted(set(in_registers)) and folders == set(in_registers)
    assert register_of("sources/prices/lambda/2026-11-26/prices.csv").slug == "prices"
    assert register_of("sources/prices/lambda/aliases.csv").slug == "prices"
    assert register_of("sources/claims/seed-000/2026-11-20/claims.csv").slug == "specs"
    with pytest.raises(ValueError, match="'elsewhere' is in no register"):
        register_of("sources/elsewhere/x.csv")


def test_sources_page():
    sources = pd.DataFrame(
        {
            "kind": ["vendor_document", "article"],
            "publisher": ["NVIDIA", HOSTILE],
            "title": ["H100 datasheet", HOSTILE],
            "url": ["https://nvidia.com/h100.pdf", "javascript:alert(1)"],
            "accessed_on": ["2026-11-22", "2026-11-23"],
            "published_on": [None, None],
            "terms_url": ["https://www.nvidia.com/terms", None],
            "terms_read_on": ["2026-11-25", None],
            "terms_automated_collection": ["allowed", None],
            "terms_republication": ["not-stated", None],
            "terms_summary": ["Use with attribution.", None],
            "file": ["sources/specs/h100.pdf", "sources/claims/a/claims.csv"],
        }
    )
    kinds = pd.DataFrame({"source_kind": ["vendor_document", "curated_dataset"], "n": [3, 1]})
    pages = source_list(sources, kinds)
    index, specs = pages["index"], pages["specs"]
    assert "2 sources: every snapshot file" in index
    assert "The 4 canonical figures come from:" in index
    assert "| vendor document | 3 | 75% |" in index
    assert "| curated dataset | 1 | 25% |" in index
    # one row per register, with its count, and the terms
    assert "| [GPU specifications](specs.md) | 2 |" in index and "| [Prices](prices.md) | 0 |" in index
    assert (
        "Each publisher's terms as read (1 entry), which the registers' rows refer to: [Terms of use](terms.md)."
        in index
    )
    # the datasheet and the article (claims/) are in the specifications register, wide, sortable
    assert specs.startswith("---\nhide:") and '<div class="atlas-sortable" markdown="1">' in specs
    assert "# GPU specifications\n\n2 sources: the vendor documents" in specs
    assert "[T1](terms.md#terms-1): collection allowed, republication not-stated" in specs
    assert "h100.pdf" not in pages["prices"] and "| vendor document |" not in pages["prices"]
    assert '<span id="terms-1">T1</span>' in pages["terms"] and "nvidia.com/terms" in pages["terms"]
    for page in pages.values():
        assert 'href="javascript' not in page
    assert_escaped(specs)


def claims_frame(**overrides) -> pd.DataFrame:
    rows = {
        "gpu_id": ["nvidia-h100-sxm-80gb", "nvidia-h100-sxm-80gb", "amd-mi300x-oam-192gb"],
        "name": ["H100 SXM 80 GB", "H100 SXM 80 GB", HOSTILE],
        "classification": ["unexplained", "agrees", "agrees"],
        "explanation": [HOSTILE, "matches the canonical figure", "matches the canonical figure"],
        "quote": ["1,000 TFLOPS", "80GB", HOSTILE],
        "canonical": ["989.4", None, "192.0"],
        "metric": ["compute", "memory_size", "memory_size"],
        "precision": ["fp16", None, None],
        "url": ["https://blog.example/a", "https://blog.example/a", "ftp://x"],
        "article": ["seed-000-nine-gpu-comparison", "seed-000-nine-gpu-comparison", "seed-001"],
        "row_label": ["H100", "H100", HOSTILE],
    }
    rows.update(overrides)
    return pd.DataFrame(rows)


def test_conflicts_page():
    figure_classes = pd.DataFrame({"classification": ["canonical", "agrees", HOSTILE], "n": [578, 166, 2]})
    model_claims = pd.DataFrame(
        {
            "row_label": ["Llama 3 70B", HOSTILE],
            "model_id": ["llama-3-70b", None],
            "vram_gb_claimed": [140.0, 12.0],
            "bf16_required_gb": [151.04, None],
            "classification": ["matches weights only at bf16", "no model named"],
            "matched_gb": [141.1, None],
            "quote": ["Llama 3 70B | 70B | ~140GB", HOSTILE],
        }
    )
    ctx = conflicts_context(claims_frame(), figure_classes, model_claims)
    assert ctx["classes"] == [("agrees", 2), ("unexplained", 1)]
    page = FAMILY.render("conflicts.md.j2", **ctx)
    assert page.startswith("---\nhide:\n  - navigation\n  - toc\n---\n# Sources and conflicts\n")
    assert "| agrees | 2 |\n| unexplained | 1 |" in page
    assert "classified the same way: canonical 578, agrees 166, " in page
    assert '<div class="atlas-sortable" data-low="3,4,5,6,7,8" markdown="1">' in page
    assert (
        "| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | **unexplained** | &lt;script&gt;x&lt;/script&gt; "
        "\\*a\\* &#124;b | 1,000 TFLOPS | 989.4 | compute | fp16 | "
        '<a href="https://blog.example/a" rel="nofollow noopener">seed-000-nine-gpu-comparison</a> | H100 |'
    ) in page
    assert "| 80GB |  | memory\\_size |  |" in page  # no canonical figure: an empty cell, as before
    assert 'href="ftp' not in page
    assert "| Llama 3 70B | llama-3-70b | 140 | 151 | **matches weights only at bf16** | 141 | " in page
    assert "Llama 3 70B &#124; 70B &#124; ~140GB |" in page
    assert "| 12 | – | **no model named** | – |" in page
    assert_escaped(page)


def test_coverage_page():
    coverage = pd.DataFrame(
        {
            "gpu_id": ["nvidia-h800-pcie-80gb", "nvidia-h100-sxm-80gb"],
            "name": [HOSTILE, "H100 SXM 80 GB"],
            "missing_count": [2, 0],
            "missing_figures": ["bf16_tflops, fp8_tflops", None],
            "current_offers": [0, 16],
        }
    )
    unmapped = pd.DataFrame(
        {
            "provider": ["akamai"],
            "provider_gpu_name": [HOSTILE],
            "gpu_memory_gb": [24.0],
            "offers": [4],
            "last_seen": ["2026-10-04"],
        }
    )
    gaps = pd.DataFrame({"model_id": [HOSTILE], "missing": ["head_dim, max_context"]})
    page = FAMILY.render("coverage.md.j2", **coverage_context(coverage, unmapped, gaps))
    assert page.startswith("# Coverage\n")
    assert '<div class="atlas-sortable" markdown="1">' in page
    assert "| 2 | bf16\\_tflops, fp8\\_tflops | 0 |" in page
    assert "| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | 0 | none | 16 |" in page
    assert "| akamai | &lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b | 24 | 4 | 2026-10-04 |" in page
    assert "| head\\_dim, max\\_context |" in page
    assert_escaped(page)

    empty = FAMILY.render("coverage.md.j2", **coverage_context(coverage, unmapped, gaps.iloc[:0]))
    assert "## Model config fields missing\n\nNone.\n" in empty
    assert "| Model | Missing fields |" not in empty


def test_sources_pages_in_chinese():
    figure_classes = pd.DataFrame({"classification": ["canonical", "agrees"], "n": [578, 166]})
    model_claims = pd.DataFrame(
        {
            "row_label": ["Llama 3 70B", "DeepSeek-R1-Distill-Qwen-32B"],
            "model_id": ["llama-3-70b", "deepseek-r1-distill-qwen-32b"],
            "vram_gb_claimed": [140.0, 14.9],
            "bf16_required_gb": [151.04, 70.9],
            "classification": ["matches weights only at bf16", "matches weights only at int4 without scales"],
            "matched_gb": [141.1, 16.4],
            "quote": ["Llama 3 70B | 70B | ~140GB", "~14.9GB"],
        }
    )
    claims = claims_frame(
        explanation=[
            "unexplained: the canonical figure is 989.4; the claim differs by +1% and no rule links the two",
            "matches the canonical figure",
            "a form no rule knows",
        ]
    )
    coverage = pd.DataFrame(
        {
            "gpu_id": ["nvidia-h100-sxm-80gb"],
            "name": ["H100 SXM 80 GB"],
            "missing_count": [0],
            "missing_figures": [None],
            "current_offers": [16],
        }
    )
    unmapped = pd.DataFrame(
        {"provider": ["akamai"], "provider_gpu_name": ["RTX 4000"], "gpu_memory_gb": [20.0], "offers": [4]}
    ).assign(last_seen="2026-10-04")
    with i18n.use("zh"):
        conflicts = FAMILY.render("conflicts.md.j2", **conflicts_context(claims, figure_classes, model_claims))
        coverage_page = FAMILY.render(
            "coverage.md.j2", **coverage_context(coverage, unmapped, pd.DataFrame({"model_id": [], "missing": []}))
        )
    assert "# 来源与冲突\n" in conflicts
    assert "| 类别 | 文章说法数 |\n|---|---|\n| 一致 | 2 |\n| 无法解释 | 1 |" in conflicts
    assert "按同样方式分类：标准值 578，一致 166。" in conflicts
    # the explanations the pipeline writes are translated, their figures kept; an unknown form stays in English
    assert "| **无法解释** | 无法解释：标准值为 989.4；该说法相差 +1%，" in conflicts
    assert "| **一致** | 与标准值一致 | 80GB |" in conflicts
    assert '<span lang="en">a form no rule knows</span>' in conflicts
    assert "| Llama 3 70B | llama-3-70b | 140 | 151 | **与 bf16 下的仅权重大小相符** | 141 | " in conflicts
    assert "**与 int4（不含量化缩放因子）下的仅权重大小相符** | 16.4 |" in conflicts
    assert coverage_page.startswith("# 覆盖率\n")
    assert "| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | 0 | 无 | 16 |" in coverage_page
    assert "| akamai | RTX 4000 | 20 | 4 | 2026-10-04 |" in coverage_page
    assert "## 缺失的模型配置字段\n\n无。\n" in coverage_page


def test_explanations_in_english_are_as_written():
    for text in [
        "sparse figure: 2 x the dense 989.4",
        "the vector rate (19.17), not the canonical rate",
        "equals the BF16 sparse figure (624)",
        "figure of another variant: H100 NVL 94 GB (1671, sparse)",
        "figure of another variant: A100 PCIe 40 GB (1555)",
        "figure of another variant: V100 PCIe 16 GB",
        "unexplained: the canonical figure is 768; the claim differs by -9% and no rule links the two",
        "unexplained: the canonical figure is HBM3",
    ]:
        assert explanation(text) == (text, True)
    assert explanation(HOSTILE) == (HOSTILE, False)
    with i18n.use("zh"):
        assert explanation("figure of another variant: H100 NVL 94 GB (1671, sparse)") == (
            "其他型号的数值：H100 NVL 94 GB（1671，稀疏）",
            True,
        )


def test_source_list_in_chinese():
    sources = pd.DataFrame(
        {
            "kind": ["vendor_document"],
            "publisher": ["NVIDIA"],
            "title": ["H100 datasheet"],
            "url": ["https://nvidia.com/h100.pdf"],
            "accessed_on": ["2026-11-22"],
            "published_on": [None],
            "terms_url": ["https://www.nvidia.com/terms"],
            "terms_read_on": ["2026-11-25"],
            "terms_automated_collection": ["allowed"],
            "terms_republication": ["not-stated"],
            "terms_summary": ["Use with attribution."],
            "file": ["sources/specs/h100.pdf"],
        }
    )
    kinds = pd.DataFrame({"source_kind": ["vendor_document", "curated_dataset"], "n": [3, 1]})
    with i18n.use("zh"):
        pages = source_list(sources, kinds)
    index, specs = pages["index"], pages["specs"]
    assert index.startswith("# 来源\n\n共 1 个来源：")
    assert "4 个标准值的来源如下：" in index
    assert "| 来源类型 | 标准值数量 | 占比 |" in index and "| 3 | 75% |" in index
    assert "| [GPU 规格](specs.md) | 1 |" in index and "| [价格](prices.md) | 0 |" in index
    assert "# GPU 规格\n\n共 1 个来源：GPU 数值所依据的厂商文档" in specs
    assert "[T1](terms.md#terms-1)（采集：允许；转载：未说明）" in specs
    assert '| 2026-11-25 | 允许 | 未说明 | <span lang="en">Use with attribution.</span> |' in pages["terms"]
    # a source's own English text is marked as such, a title in Chinese is not
    assert '| <span lang="en">NVIDIA</span> | <span lang="en"><a href="https://nvidia.com/h100.pdf"' in specs
    assert in_english("DigitalOcean GPU 云服务器 (pricing page linked by seed article 004)")
    assert not in_english("H100、L4、A6000 等 9 款 GPU 横评,告诉你哪些适合模型训练,哪些适合AI 推理")
    assert not in_english(None) and not in_english("")
