"""The Data pages' family: downloads from the contract, every view with its rows, the view reference with each
column's unit and meaning; no database."""

import pandas as pd

from pipeline.contract import VIEWS, downloads
from pipeline.render import i18n
from pipeline.render.data import FAMILY, context

HOSTILE = "<script>x</script> *a* |b"


def columns(rows: list[tuple[str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["view_name", "column_name", "data_type"])


def page(
    frame: pd.DataFrame, counts: dict | None = None, files=("gpu_atlas.duckdb", "gpus.csv"), template="data.md.j2"
) -> str:
    counts = counts or {view: 3 for view in VIEWS}
    return FAMILY.render(template, **context(frame, counts, list(files)))


def reference(frame: pd.DataFrame, counts: dict | None = None) -> str:
    return page(frame, counts, template="views.md.j2")


def test_every_view_gets_a_section_with_its_column_units_and_meanings_and_a_row_with_its_rows():
    frame = columns([("gpus", "gpu_id", "VARCHAR"), ("gpus", "memory_gb", "DOUBLE")])
    text = reference(frame, {v: 1234 for v in VIEWS})
    for view in VIEWS:
        assert f"## <code>{view}</code> {{: #{view} }}" in text
    assert "| <code>gpu_id</code> | VARCHAR |  | GPU variant key" in text  # a key has no unit
    assert "| <code>memory_gb</code> | DOUBLE | GB | memory per GPU" in text
    # the contract's backticked names show as code, never as escaped backticks
    assert "\\`" not in text and "<code>spec_claims</code>" in text
    # the counts change with the data: on the Data page, each view's row linking to its section; not in the reference
    assert "1,234" not in text
    data = page(frame, {v: 1234 for v in VIEWS})
    assert "| [<code>gpus</code>](views.md#gpus) | GPU variant (vendor, model, form factor, memory) | 1,234 |" in data
    assert all(f"](views.md#{view}) |" in data for view in VIEWS)


def test_downloads_are_links_that_keep_their_file_names():
    text = page(columns([]), files=downloads())
    assert "- [gpu\\_atlas.duckdb](downloads/gpu_atlas.duckdb)" in text
    assert "(downloads/vram_fit.parquet)" in text and "(downloads/vram_fit.csv)" not in text


def test_text_from_the_database_is_escaped():
    text = reference(columns([("gpus", HOSTILE, HOSTILE)]))
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
        ref = reference(frame)
    assert text.startswith("# 数据\n")
    assert ref.startswith("# 视图参考\n") and "| 列 | 类型 | 单位 | 含义 |" in ref
    # the contract's meanings stay in English, marked as such; names and counts as in English
    assert '| <code>gpu_id</code> | VARCHAR |  | <span lang="en">GPU variant key' in ref
    assert "| 视图 | 每行对应 | 行数 |" in text
    assert '| [<code>gpus</code>](views.md#gpus) | <span lang="en">GPU variant (vendor, model' in text
    assert "| 1,234 |" in text and "| 1,234 |" in english
    assert '每行对应：<span lang="en">GPU variant (vendor, model, form factor, memory)</span>。' in ref
    assert 'lang="en"' not in english
    # the page is one folder deeper: the site root's files are reached with ../
    assert "- [gpu\\_atlas.duckdb](../downloads/gpu_atlas.duckdb)" in text
    assert "[schema.json](../api/v1/schema.json)" in text and "[schema.json](api/v1/schema.json)" in english
    assert "-- 稠密 BF16 算力与显存，最快的在前\nselect name, bf16_tflops" in text
