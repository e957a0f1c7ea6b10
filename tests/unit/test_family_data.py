"""The Data page's family: downloads from the contract, the view reference with each column's meaning; no database."""

import pandas as pd

from pipeline.contract import VIEWS, downloads
from pipeline.render import i18n
from pipeline.render.data import FAMILY, context

HOSTILE = "<script>x</script> *a* |b"


def columns(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["view_name", "column_name", "data_type"])


def page(frame: pd.DataFrame, counts: dict | None = None, files=("gpu_atlas.duckdb", "gpus.csv")) -> str:
    counts = counts or {view: 3 for view in VIEWS}
    return FAMILY.render("data.md.j2", **context(frame, counts, list(files)))


def test_every_view_gets_a_section_with_its_rows_and_column_meanings():
    text = page(columns([("gpus", "gpu_id", "VARCHAR"), ("gpus", "memory_gb", "DOUBLE")]), {v: 1234 for v in VIEWS})
    for view in VIEWS:
        assert f"### <code>{view}</code>" in text
    assert "| <code>gpu_id</code> | VARCHAR | GPU variant key" in text
    assert "(1,234 rows)" in text
    # the contract's backticked names show as code, never as escaped backticks
    assert "\\`" not in text and "<code>spec_claims</code>" in text


def test_downloads_are_links_that_keep_their_file_names():
    text = page(columns([]), files=downloads())
    assert "- [gpu\\_atlas.duckdb](downloads/gpu_atlas.duckdb)" in text
    assert "(downloads/vram_fit.parquet)" in text and "(downloads/vram_fit.csv)" not in text


def test_text_from_the_database_is_escaped():
    text = page(columns([("gpus", HOSTILE, HOSTILE)]))
    assert "<script>x" not in text
    assert "&lt;script&gt;x&lt;/script&gt;" in text


def test_reads_every_public_view_and_nothing_else():
    assert FAMILY.not_views() == set()
    assert FAMILY.views == set(VIEWS)


def test_the_chinese_page_keeps_the_contract_in_english_and_reaches_the_root_files():
    frame = columns([("gpus", "gpu_id", "VARCHAR")])
    english = page(frame, {v: 1234 for v in VIEWS}, files=downloads())
    with i18n.use("zh"):
        text = page(frame, {v: 1234 for v in VIEWS}, files=downloads())
    assert text.startswith("# 数据\n")
    assert "## 视图参考" in text and "| 列 | 类型 | 含义 |" in text
    # the contract's meanings stay in English, marked as such; names and counts as in English
    assert '| <code>gpu_id</code> | VARCHAR | <span lang="en">GPU variant key' in text
    assert "（共 1,234 行）" in text and "(1,234 rows)" in english
    assert '每行对应：<span lang="en">GPU variant (vendor, model, form factor, memory)</span>。' in text
    assert 'lang="en"' not in english
    # the page is one folder deeper: the site root's files are reached with ../
    assert "- [gpu\\_atlas.duckdb](../downloads/gpu_atlas.duckdb)" in text
    assert "[schema.json](../api/v1/schema.json)" in text and "[schema.json](api/v1/schema.json)" in english
    assert "-- 稠密 BF16 算力与显存，最快的在前\nselect name, bf16_tflops" in text
