"""The shared formatters, labels and charts in the Chinese edition: our words translated, values (numbers, dates,
names, field names) as in English, and the English output as it always was."""

from __future__ import annotations

from types import SimpleNamespace

import altair as alt
import jinja2
import pandas as pd
from markupsafe import Markup

from pipeline.render import charts, i18n, labels, price_charts
from pipeline.render import markdown as md
from pipeline.render.family import Family, gettext


def _both(fn, *args):
    """The English and the Chinese output of one call."""
    english = fn(*args)
    with i18n.use("zh"):
        chinese = fn(*args)
    return english, chinese


def test_an_undated_copy_says_when_it_was_read_in_chinese():
    english, chinese = _both(md.seen, "2026-05-29", False)
    assert english == "undated copy, read 2026-05-29"
    assert chinese == "未注明日期的副本，读取于 2026-05-29"
    dated_en, dated_zh = _both(md.seen, "2026-05-29", True)
    assert dated_en == dated_zh  # a dated price: its <time> element, the same in both (ages.js words its age)


def test_plural_translates_words_the_catalogue_has_and_keeps_the_number():
    assert _both(md.plural, 1200, "GPU", "GPUs") == ("1,200 GPUs", "1,200 GPU")
    assert _both(md.plural, 1, "GPU", "GPUs") == ("1 GPU", "1 GPU")


def test_price_words_in_chinese():
    assert _both(labels.tier, "spot", "minimum") == ("spot · *minimum*", "抢占式 · *最低价*")
    assert _both(labels.tier, "on-demand", "list") == ("on-demand", "按需")
    assert _both(labels.tier, "a-tier-nobody-named", "list")[1] == "a-tier-nobody-named"  # data: as it is
    pick = SimpleNamespace(pick="reserved", term="1yr")
    assert _both(labels.pick_label, pick) == ("reserved (1yr)", "预留（1 年）")
    pick = SimpleNamespace(pick="on-demand (China mainland)", term=None)
    assert _both(labels.pick_label, pick)[1] == "按需（中国大陆）"
    offer = SimpleNamespace(currency="CNY", amount_per_hour=17.43, fx_units_per_usd=7.12)
    english, chinese = _both(labels.original_price, offer)
    assert english == " (17.4 CNY/h at 7.12 CNY/USD)"
    assert chinese == "（17.4 CNY/h，汇率 7.12 CNY/USD）"
    offer = SimpleNamespace(
        observed_no_later_than="2025-12-19", observed_date_known=False, stale=True, comparable=False, price_basis=None
    )
    english, chinese = _both(labels.offer_flags, offer)
    assert (
        english
        == "undated copy of a list from no later than 2025-12-19 · **stale** · **GPU only** (host not published)"
    )
    assert chinese == "未注明日期的价目表副本，不晚于 2025-12-19 · **已过期** · **仅 GPU**（未公布主机价格）"


def test_figure_words_in_chinese():
    claim = SimpleNamespace(metric="compute", precision="bf16", unit_kind="tensor", accumulate="fp32")
    assert _both(labels.figure_label, claim) == ("bf16 tensor, FP32 accumulate", "bf16 张量，FP32 累加")
    assert _both(labels.figure_label, claim, False)[1] == "bf16，FP32 累加"  # no tensor cores: no tensor word
    other = SimpleNamespace(metric="memory_bandwidth")
    assert _both(labels.figure_label, other) == ("memory bandwidth", "显存带宽")
    figure = SimpleNamespace(value=980.6, unit="tflops", sparsity="sparse")
    assert _both(labels.printed, figure) == ("980.6 TFLOPS (sparse)", "980.6 TFLOPS（稀疏）")
    cores = SimpleNamespace(value=16896.0, unit="count", sparsity=None)
    assert _both(labels.printed, cores) == ("16,896 count", "16,896 个")


def test_source_kinds_in_chinese():
    assert _both(labels.kind_label, "vendor_document") == ("vendor document", "厂商文档")
    # every kind of source has a word in both editions (the English pages showed some by their key before)
    assert _both(labels.kind_label, "price_tracker") == ("price tracker", "比价网站")
    assert _both(labels.kind_label, "a_new_kind") == ("a\\_new\\_kind", "a\\_new\\_kind")


def test_the_tier_note_is_translated_when_printed_not_when_made():
    marks = labels.STATISTIC_MARKS
    assert isinstance(marks, Markup) and str(marks).startswith("a marketplace *median*")
    # a template global holding the note itself (not a copy made once) prints it in the locale being rendered
    env = jinja2.Environment(extensions=["jinja2.ext.i18n"], autoescape=True)
    env.newstyle_gettext = True  # type: ignore[attr-defined]
    env.globals.update(gettext=gettext, statistic_marks=marks)
    template = env.from_string("{{ statistic_marks }}")
    assert template.render().startswith("a marketplace *median* or a *minimum*")
    with i18n.use("zh"):
        assert template.render().startswith("市场*中位数*或*最低价*")
        assert str(marks).startswith("市场*中位数*")
        # inside a sentence: the placeholder of a translated block takes the note as it is (no escaping)
        sentence = Markup("Tier: %(marks)s.") % {"marks": marks}
        assert sentence.startswith("Tier: 市场*中位数*或") and "&#34;" not in sentence


def test_a_family_prints_the_note_in_its_locale_when_the_global_is_the_note():
    # family.py sets statistic_marks = Markup(labels.STATISTIC_MARKS), a copy in English; with the note itself:
    family = Family(str(i18n.RENDER_DIR / "prices" / "__init__.py"))
    family.env.globals["statistic_marks"] = labels.STATISTIC_MARKS
    template = family.env.from_string("{% trans marks=statistic_marks %}Tier: {{ marks }}.{% endtrans %}")
    assert template.render() == f"Tier: {labels.STATISTIC_MARKS.msgid}."
    with i18n.use("zh"):
        assert template.render().startswith("Tier: 市场*中位数*或*最低价*（最低的挂牌价，或“起价”）")


def _rows(spec) -> list[dict]:
    """A spec's data rows (Altair names inline data and keeps it under `datasets`)."""
    data = spec["data"]
    return data["values"] if "values" in data else spec["datasets"][data["name"]]


def _titles(spec) -> list[str]:
    found = []
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key == "title" and isinstance(value, str):
                found.append(value)
            found += _titles(value)
    elif isinstance(spec, list):
        for value in spec:
            found += _titles(value)
    return found


def test_a_chart_in_chinese_has_chinese_titles_and_the_same_data():
    gpus = pd.DataFrame(
        {
            "name": ["H100 SXM", "A100 80GB"],
            "architecture": ["Hopper", None],
            "best_16bit_tflops": [989.4, 312.0],
            "memory_bandwidth_gbs": [3350.0, 2039.0],
            "memory_gb": [80, 80],
            "has_tensor_cores": [True, True],
            "tdp_w": [700, 400],
        }
    )
    english, chinese = _both(charts.bubble_compute_bandwidth, gpus)
    assert english["title"] == "Dense 16-bit compute against memory bandwidth"
    assert chinese["title"] == "稠密 16 位算力与显存带宽"
    assert "显存带宽（GB/s）" in _titles(chinese) and "架构" in _titles(chinese)
    assert not any("Memory" in t or "Architecture" in t for t in _titles(chinese))
    # the data: the same fields and values, our word for a missing architecture in the edition's language
    assert [r["name"] for r in _rows(chinese)] == ["H100 SXM", "A100 80GB"]
    assert [r["architecture"] for r in _rows(english)] == ["Hopper", "unknown"]
    assert [r["architecture"] for r in _rows(chinese)] == ["Hopper", "未知"]
    assert english["encoding"]["x"]["field"] == chinese["encoding"]["x"]["field"] == "memory_bandwidth_gbs"
    # a tooltip field shown by its name in English has a title in Chinese
    assert {"field": "architecture", "type": "nominal"} in english["encoding"]["tooltip"]
    assert {"field": "architecture", "type": "nominal", "title": "架构"} in chinese["encoding"]["tooltip"]
    # Chinese month names for dates; the English spec is Vega's defaults, and both are valid Vega-Lite
    assert "locale" not in english.get("config", {}) and chinese["config"]["locale"]["time"]["shortMonths"][0] == "1月"
    alt.Chart.from_dict(chinese, validate=True)


def test_the_price_history_chart_is_made_per_locale():
    history = pd.DataFrame(
        {
            "provider": ["aws", "aws"],
            "provider_colour": ["#875692", "#875692"],
            "offering": ["p5.48xlarge", "p5.48xlarge"],
            "pricing_tier": ["on-demand", "on-demand"],
            "statistic": ["list", "list"],
            "region": ["us-east-1", "us-east-1"],
            "observed_on": ["2026-01-01", "2026-02-01"],
            "usd_per_gpu_hour": [3.9, 3.7],
        }
    )
    english, chinese = _both(price_charts.price_history, history, "Price history")
    layer_en, layer_zh = english["layer"][0]["encoding"], chinese["layer"][0]["encoding"]
    assert layer_en["x"]["title"] == "Observed on" and layer_zh["x"]["title"] == "观测日期"
    assert price_charts.price_history(history, "Price history")["layer"][0]["encoding"]["x"]["title"] == "Observed on"
    assert [r["usd_per_gpu_hour"] for r in _rows(chinese)] == [3.9, 3.7]
