"""Compare's page family: the GPU pickers from the gpus view, every name escaped; no database needed."""

import pandas as pd

from pipeline.render import i18n
from pipeline.render.compare import FAMILY, context

HOSTILE = "<script>x</script> *a* |b"


def page(gpus: pd.DataFrame) -> str:
    return FAMILY.render("compare.md.j2", **context(gpus))


def test_four_pickers_list_every_gpu():
    text = page(pd.DataFrame({"gpu_id": ["nvidia-a100-sxm-80gb", "nvidia-h100-sxm-80gb"], "name": ["A100", "H100"]}))
    assert text.startswith("---\nhide:\n  - toc\n---\n# Compare GPUs\n")
    for i in range(4):
        assert f'<label>GPU {i + 1} <select name="g{i}"><option value="">–</option>' in text
    assert text.count('<option value="nvidia-h100-sxm-80gb">H100</option>') == 4
    assert "<script" not in text  # compare.js is loaded by mkdocs.yml, like every page script


def test_gpu_names_are_escaped():
    text = page(pd.DataFrame({"gpu_id": ['x"><script>'], "name": [HOSTILE]}))
    assert "<script>x" not in text and '"><script>' not in text
    assert "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b" in text
    assert 'value="x&quot;&gt;&lt;script&gt;"' in text


def test_reads_public_views_only():
    assert FAMILY.not_views() == set()
    assert FAMILY.views == {"gpus"}


def test_chinese_edition():
    gpus = pd.DataFrame({"gpu_id": ["nvidia-a100-sxm-80gb", "nvidia-h100-sxm-80gb"], "name": ["A100", "H100"]})
    english = page(gpus)
    with i18n.use("zh"):
        text = page(gpus)
    assert text.startswith("---\nhide:\n  - toc\n---\n# 对比 GPU\n")
    # the API one folder up (the page is under zh/), ids and names as in English
    assert '<form class="atlas-form" id="compare-form" data-api="../../api/v1/" aria-label="要对比的 GPU">' in text
    assert 'data-api="../api/v1/" aria-label="GPUs to compare"' in english
    for i in range(4):
        assert f'<label>GPU {i + 1} <select name="g{i}"><option value="">–</option>' in text
    assert text.count('<option value="nvidia-h100-sxm-80gb">H100</option>') == 4
    assert '<div id="compare-out"><p>请在上方选择 GPU（需要启用 JavaScript）。</p></div>' in text
