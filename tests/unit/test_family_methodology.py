"""The Methodology family from hand-made query results: weights and parameters in their tables, text from the data
escaped, queries over the public views only. No database, no build."""

from __future__ import annotations

import pandas as pd

from pipeline.render import i18n, methodology

HOSTILE = "<script>x</script> *a* |b"


def page(weights: pd.DataFrame, parameters: pd.DataFrame) -> str:
    return methodology.FAMILY.render("methodology.md.j2", **methodology.context(weights, parameters))


def frames(description: str = "Memory bandwidth (GB/s)", citation: str | None = "Rajbhandari et al. 2020"):
    weights = pd.DataFrame(
        [
            ("training", "training_throughput", 0.4, "Full fine-tune tokens/s"),
            ("inference", "decode", 0.45, description),
        ],
        columns=["workload", "component", "weight", "description"],
    )
    parameters = pd.DataFrame(
        [
            ("adam_bytes_per_param", "16.0", "bytes/param", "Mixed-precision AdamW state", citation),
            ("inference_contexts", "[4096.0, 32768.0]", "tokens", description, None),
        ],
        columns=["name", "value", "unit", "description", "citation"],
    )
    return weights, parameters


def test_weights_and_parameters_fill_their_tables():
    text = page(*frames())
    assert text.startswith("# Methodology\n")
    assert "## Spec figures" in text and "## Planner" in text
    assert "| training | training\\_throughput | 0.40 | Full fine-tune tokens/s |" in text
    assert "| inference | decode | 0.45 | Memory bandwidth (GB/s) |" in text
    assert (
        "| <code>adam_bytes_per_param</code> | 16.0 | bytes/param | Mixed-precision AdamW state "
        "| Rajbhandari et al. 2020 |" in text
    )
    # a list value prints as the view gives it; a missing citation is an empty cell
    assert "| <code>inference_contexts</code> | \\[4096.0, 32768.0\\] | tokens | Memory bandwidth (GB/s) |  |" in text
    # the prose is static: the weights' order follows the rows given
    assert text.index("training\\_throughput") < text.index("| inference | decode")


def test_text_from_the_data_is_escaped():
    text = page(*frames(description=HOSTILE, citation=HOSTILE))
    assert "<script>" not in text
    assert "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b" in text
    assert text.count("&lt;script&gt;") == 3


def test_queries_read_public_views_only():
    assert methodology.FAMILY.not_views() == set()
    assert methodology.FAMILY.views == {"parameters", "ranking_weights"}


def test_the_chinese_edition_translates_our_text_and_keeps_the_data():
    english = page(*frames())
    with i18n.use("zh"):
        text = page(*frames())
    assert text.startswith("# 方法说明\n")
    assert "## 规格数据" in text and "| 名称 | 值 | 单位 | 含义 | 出处 |" in text
    # other pages link to methodology.md#planner: the Chinese heading keeps that id, the English one is unchanged
    assert "## 规划器 {#planner}\n" in text and "## Planner\n" in english
    # formulas, code and links stay as written inside the translated prose
    assert "2 × 层数 × kv_heads × head_dim × 上下文长度" in text and "`training_calibration`" in text
    assert "[实测与估算对比](measured.md)" in text and "一块 GPU 可用其 95% 的显存" in text
    # the weights and parameters are the same values; their meanings and citations are quoted in English
    assert '| training | training\\_throughput | 0.40 | <span lang="en">Full fine-tune tokens/s</span> |' in text
    assert (
        '| <code>adam_bytes_per_param</code> | 16.0 | bytes/param | <span lang="en">Mixed-precision AdamW state</span> '
        '| <span lang="en">Rajbhandari et al. 2020</span> |' in text
    )
    assert 'lang="en"' not in english
