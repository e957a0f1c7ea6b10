"""The Chinese edition's catalogues and configuration, without a build: every text a reader sees is marked and
translated, translations keep the Markdown and the placeholders of their English, the edition's MkDocs
configuration names the same pages and scripts as the English one, and placeholders are escaped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

from pipeline.render import catalogues, i18n
from pipeline.render.family import Family

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
LINK_TARGET = re.compile(r"\]\(([^)]*)\)")


def _entries():
    for po in i18n.catalogue_files("zh"):
        with po.open("rb") as f:
            for m in read_po(f, locale="zh"):
                if m.id and m.string:
                    yield po.relative_to(ROOT), m.id, m.string


def test_every_marked_text_has_a_translation():
    gaps = {str(po.relative_to(ROOT)): texts[:5] for po, texts in catalogues.untranslated("zh").items()}
    assert gaps == {}, "run `uv run python -m pipeline.render.catalogues update` and translate: " + repr(gaps)


def test_no_template_prints_english_outside_a_translated_block():
    templates = catalogues.translated_templates()
    assert len(templates) > 15 and not any(t.parent.name == "api" for t in templates)  # api: files for programs
    found = [line for t in templates for line in catalogues.untranslated_literals(t)]
    assert found == []


def test_the_check_sees_an_unmarked_text(tmp_path):
    # the check itself: a sentence outside {% trans %} is reported, markup and a translated block are not
    template = tmp_path / "page.md.j2"
    template.write_text(
        '<div class="atlas-x" aria-label="{{ _("Choices") }}">\n{% trans %}Translated.{% endtrans %}\n'
        '| {{ x }} | [{{ _("link") }}]({{ root }}api/v1/gpus.json) |\nLeft in English\n</div>\n',
        encoding="utf-8",
    )
    found = catalogues.untranslated_literals(template)
    assert len(found) == 1 and found[0].endswith("Left in English")


@pytest.mark.parametrize("entry", list(_entries()), ids=lambda e: f"{e[0]}:{e[1][:40]}")
def test_a_translation_keeps_its_placeholders_table_cells_and_links(entry):
    _po, english, chinese = entry
    assert sorted(PLACEHOLDER.findall(english)) == sorted(PLACEHOLDER.findall(chinese))
    if english.lstrip().startswith("|"):  # a table row: the same cells
        assert english.count("|") == chinese.count("|")
    assert sorted(LINK_TARGET.findall(english)) == sorted(LINK_TARGET.findall(chinese))
    assert english.count("**") == chinese.count("**")
    assert english.count("%%") == chinese.count("%%")


def test_placeholders_are_escaped_like_every_printed_value():
    family = Family(str(i18n.RENDER_DIR / "models" / "__init__.py"))
    template = family.env.from_string("{% trans name=x %}Model {{ name }} is here{% endtrans %}")
    out = template.render(x="<script>*x*|")
    assert "<script>" not in out and "&lt;script&gt;" in out and "\\*x\\*" in out and "&#124;" in out


def test_a_text_renders_in_the_locale_and_falls_back_to_english_recorded():
    assert i18n.translate("Models", "zh") == "模型"
    with i18n.use("zh"):
        assert i18n._("Models") == "模型"
        assert i18n._("A text nobody marked") == "A text nobody marked"
    assert ("zh", "A text nobody marked") in i18n.missing()
    assert i18n._("Models") == "Models"  # English outside the block


def test_an_unknown_locale_is_refused():
    with pytest.raises(ValueError, match="locales: en, zh"):
        with i18n.use("fr"):
            pass


def _nav_files(nav) -> list[str]:
    out = []
    for item in nav:
        for value in item.values():
            out += _nav_files(value) if isinstance(value, list) else [value]
    return out


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!ENV", lambda loader, node: None)


def _config(name: str) -> dict:
    return yaml.load((ROOT / name).read_text(encoding="utf-8"), Loader=_Loader)


def test_the_chinese_edition_names_the_same_pages_and_scripts():
    english, chinese = _config("mkdocs.yml"), _config("mkdocs.zh.yml")
    assert chinese["INHERIT"] == "mkdocs.yml"
    assert _nav_files(chinese["nav"]) == _nav_files(english["nav"])
    titles = [k for item in chinese["nav"] for k in item]
    assert all(re.search(r"[\u4e00-\u9fff]", t) or t == "GPU" for t in titles)
    scripts = [s["path"] for s in english["extra_javascript"]]
    assert [s["path"] for s in chinese["extra_javascript"]] == ["javascripts/messages.js", *scripts]
    assert chinese["theme"]["language"] == "zh"
    assert [a["lang"] for a in english["extra"]["alternate"]] == [a["lang"] for a in chinese["extra"]["alternate"]]
    assert [a["lang"] for a in english["extra"]["alternate"]] == list(i18n.LOCALES)


def test_the_scripts_messages_file_carries_the_scripts_catalogue():
    text = i18n.script_messages("zh")
    assert text.startswith("// generated from site/zh.po")
    assert "window.ATLAS_MESSAGES = {" in text


@pytest.mark.parametrize(
    "why, chinese",
    [
        ("cheapest of 12 current on-demand prices", "当前 12 个按需价格中最便宜的"),
        ("cheapest of 1 current spot (China mainland) price", "当前 1 个抢占式（中国大陆）价格中最便宜的"),
        (
            "cheapest of 3 current on-demand prices (GPU plus its host VM); left out: 2 (GPU-only price: the host is "
            "billed apart and its price is not published; stale (observed more than 45 days ago))",
            "当前 3 个按需价格中最便宜的（GPU 加其主机虚拟机）；排除 2 个（仅 GPU 价格：主机另行计费且其价格未公布；"
            "已过时（观测于 45 天以前））",
        ),
        (
            "no price used; left out: 1 (stale (observed more than 45 days ago))",
            "未采用任何价格；排除 1 个（已过时（观测于 45 天以前））",
        ),
    ],
)
def test_a_picks_explanation_reads_in_chinese(why, chinese):
    from pipeline.render.labels import pick_why

    assert pick_why(why) == why  # English: as the view wrote it (nothing in these to escape)
    with i18n.use("zh"):
        assert pick_why(why) == chinese


def test_an_explanation_in_words_the_sql_does_not_write_stays_english_and_marked():
    from pipeline.render.labels import pick_why

    with i18n.use("zh"):
        assert pick_why("cheapest by a new rule") == '<span lang="en">cheapest by a new rule</span>'
        assert pick_why("no price used; left out: 1 (a reason nobody wrote)").startswith('<span lang="en">')
