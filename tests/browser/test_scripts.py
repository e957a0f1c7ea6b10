"""The page scripts on small fixture pages and JSON, without a built site: the shared helpers (atlas.js), price
ages, sortable tables, the VRAM-fit explorer and Compare. The end-to-end browser tests cover them on the real site."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest
from browsing import serving

SCRIPTS = Path(__file__).parents[2] / "site" / "javascripts"


def page_html(body: str, *scripts: str) -> str:
    tags = "".join(f'<script src="../javascripts/{s}" defer></script>' for s in ("atlas.js", *scripts))
    return f'<!doctype html><html lang="en"><head><meta charset="utf-8">{tags}</head><body>{body}</body></html>'


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    """A folder served over HTTP: the site's scripts as they are, fixture pages under p/, JSON under data/."""
    root = tmp_path_factory.mktemp("scripts")
    shutil.copytree(SCRIPTS, root / "javascripts")
    (root / "p").mkdir()
    (root / "data").mkdir()
    with serving(root) as url:
        yield root, url


def open_page(browser, fixtures, name: str, html: str, data: dict | None = None, query: str = ""):
    root, url = fixtures
    (root / "p" / name).write_text(html, encoding="utf-8")
    for file, value in (data or {}).items():
        (root / "data" / file).write_text(json.dumps(value), encoding="utf-8")
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}p/{name}{query}", wait_until="networkidle")
    return page, errors


def test_the_shared_helpers_format_numbers_and_money_as_the_pages_do(browser, fixtures):
    page, errors = open_page(browser, fixtures, "atlas.html", page_html("<p>x</p>"))
    got = page.evaluate(
        """() => {
        const A = window.Atlas;
        return [A.fmt(1234.5678, 1), A.fmt(null), A.fmt(NaN), A.fixed(2.5, 2), A.money(13.784, 2), A.money(undefined),
                A.plural(1, "GPU", "GPUs"), A.plural(1200, "user", "users"), A.el("b", {"data-x": "1"}, "<i>x</i>").outerHTML];
    }"""
    )
    assert got == [
        "1,234.6",
        "–",
        "–",
        "2.50",
        "$13.78",
        "–",
        "1 GPU",
        "1,200 users",
        '<b data-x="1">&lt;i&gt;x&lt;/i&gt;</b>',
    ]
    message = page.evaluate("() => window.Atlas.getJSON('../data/missing.json').then(() => 'read', e => e.message)")
    assert message.endswith("missing.json: HTTP 404")
    assert errors == []
    page.close()


def test_price_ages_count_days_in_the_browser(browser, fixtures):
    three_days_ago = (dt.date.today() - dt.timedelta(days=3)).isoformat()
    body = f'<time class="atlas-age" datetime="{three_days_ago}">{three_days_ago}</time><time class="atlas-age" datetime="bad">bad</time>'
    page, errors = open_page(browser, fixtures, "ages.html", page_html(body, "ages.js"))
    texts = page.eval_on_selector_all("time", "ts => ts.map(t => t.textContent)")
    assert texts[0] == f"{three_days_ago} · 3 days ago" and texts[1] == "bad"
    assert errors == []
    page.close()


def test_a_sortable_table_sorts_numbers_numerically_and_keeps_missing_values_last(browser, fixtures):
    rows = "".join(
        f"<tr><td>{name}</td><td>{price}</td></tr>"
        for name, price in [("a", "$10.5"), ("b", "–"), ("c", "$9"), ("d", "$100")]
    )
    body = f'<div class="atlas-sortable"><table><thead><tr><th>GPU</th><th>Price</th></tr></thead><tbody>{rows}</tbody></table></div>'
    page, errors = open_page(browser, fixtures, "sort.html", page_html(body, "tablesort.js"))
    page.click("th:nth-child(2)")
    first = page.eval_on_selector_all("tbody tr td:first-child", "tds => tds.map(t => t.textContent)")
    assert first == ["c", "a", "d", "b"]
    page.click("th:nth-child(2)")
    first = page.eval_on_selector_all("tbody tr td:first-child", "tds => tds.map(t => t.textContent)")
    assert first[:3] == ["d", "a", "c"] and first[-1] == "b"
    assert errors == []
    page.close()


EXPLORER = {
    "default": {"model": "m-70b", "precision": "fp8", "context": 4096},
    "models": [{"model_id": "m-70b", "name": "Model <b>70B</b>", "params_b": 70.6}],
    "precisions": ["bf16", "fp8"],
    "contexts": [4096, 32768],
    "gpus": [
        {"gpu_id": "big", "name": "Big 141 GB", "usable_gb": 134.2},
        {"gpu_id": "small", "name": "Small 24 GB", "usable_gb": 22.8},
    ],
    # vram_fit's GPUs needed per GPU above (not required / usable: the page computes no count)
    "required": {"m-70b|fp8|4096": [75.2, 70.6, 1.34, [1, 4]], "m-70b|bf16|4096": [145.0, 141.2, 1.34, [2, 8]]},
}


def test_the_fit_explorer_counts_gpus_for_the_chosen_setting(browser, fixtures):
    body = (
        '<form id="fit-form" data-src="../data/explorer.json"><select name="model"></select>'
        '<select name="precision"></select><select name="context"></select></form><div id="fit-out"></div>'
    )
    page, errors = open_page(
        browser, fixtures, "fit.html", page_html(body, "fitexplorer.js"), {"explorer.json": EXPLORER}
    )
    page.wait_for_selector("#fit-out[data-ready]")
    cells = page.eval_on_selector_all(
        "#fit-out tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent.trim()))"
    )
    assert cells == [["Big 141 GB", "134.2", "1 (fits on one)"], ["Small 24 GB", "22.8", "4"]]
    assert page.inner_text("select[name=model] option") == "Model <b>70B</b> (70.6 B parameters)"  # text, not HTML
    page.select_option("select[name=precision]", "bf16")
    assert page.inner_text("#fit-out tbody tr:first-child td:last-child").strip() == "2"
    page.select_option("select[name=context]", "32768")
    assert "No requirement computed" in page.inner_text("#fit-out")
    assert errors == []
    page.close()


def gpu(gpu_id: str, name: str, memory: float, price: float | None) -> dict:
    cheapest = (
        []
        if price is None
        else [
            {
                "pricing_tier": "on-demand",
                "usd_per_gpu_hour": price,
                "provider": "p<1>",
                "observed_on": "2026-11-01",
                "observed_date_known": True,
                "term": None,
            }
        ]
    )
    fields = (
        "memory_bandwidth_gbs",
        "bf16_tflops",
        "fp8_tflops",
        "fp4_tflops",
        "int8_tops",
        "fp32_tflops",
        "tdp_w",
        "interconnect_gbs",
        "architecture",
        "form_factor",
        "release_year",
        "launch_price_usd",
    )
    return {"gpu_id": gpu_id, "name": name, "memory_gb": memory, **dict.fromkeys(fields), "cheapest": cheapest}


def compare_fixture() -> tuple[str, dict]:
    """The Compare page's form (four GPU pickers) and its data: GPU A priced, GPU B without a price."""
    gpus = {"schema_version": 1, "gpus": [gpu("a", "GPU A", 80, 2.5), gpu("b", "GPU B", 141, None)]}
    fits = {"schema_version": 1, "largest_model_on_one_gpu": {}}
    options = '<option value="">–</option><option value="a">GPU A</option><option value="b">GPU B</option>'
    body = (
        '<form id="compare-form" data-api="../data/">'
        + "".join(f'<select name="g{i}">{options}</select>' for i in range(4))
        + '</form><div id="compare-out"></div>'
    )
    return body, {"gpus.json": gpus, "fits.json": fits}


def test_compare_puts_the_chosen_gpus_side_by_side_and_keeps_them_in_the_address(browser, fixtures):
    body, data = compare_fixture()
    page, errors = open_page(
        browser,
        fixtures,
        "compare.html",
        page_html(body, "compare.js"),
        data,
        "?gpus=a,b",
    )
    page.wait_for_selector("#compare-out table")
    text = page.inner_text("#compare-out")
    assert "GPU A" in text and "GPU B" in text
    assert "$2.5 (p<1>, 2026-11-01)" in text  # the price with its provider (text, never markup) and date
    assert page.inner_text("#compare-out tbody tr:first-child").split("\t")[1:] == ["80", "141"]
    page.select_option("select[name=g1]", "")
    assert "Choose at least two GPUs." in page.inner_text("#compare-out")
    assert "gpus=a" in page.url and "b" not in page.url.split("gpus=")[1]
    assert errors == []
    page.close()


def zh_page_html(body: str, messages: dict | None, *scripts: str) -> str:
    """A page of the Chinese edition: `<html lang="zh-CN">`, the scripts' texts (messages.js) before atlas.js."""
    table = "" if messages is None else f"<script>window.ATLAS_MESSAGES = {json.dumps(messages)};</script>"
    return (
        page_html(body, *scripts)
        .replace('<html lang="en">', '<html lang="zh-CN">')
        .replace("<script", table + "<script", 1)
    )


def test_atlas_t_translates_from_the_loaded_messages_and_fills_placeholders(browser, fixtures):
    messages = {"{n} rows": "{n} 行", "{shown} of {n} rows": "{shown} / {n} 行", "today": "今天"}
    page, errors = open_page(browser, fixtures, "t-zh.html", zh_page_html("<p>x</p>", messages))
    got = page.evaluate(
        """() => {
        const A = window.Atlas;
        return [A.lang, A.t("today"), A.t("{n} rows", {n: A.fixed(1200)}), A.t("{shown} of {n} rows", {shown: 3, n: 12}),
                A.t("not in the table, {x}", {x: "{n}"}), A.t("{missing} stays", {}), A.t("today", {unused: 1})];
    }"""
    )
    # a text the table lacks shows in English; a value is never read for placeholders; unknown ones are kept
    assert got == ["zh", "今天", "1,200 行", "3 / 12 行", "not in the table, {n}", "{missing} stays", "今天"]
    assert errors == []
    page.close()
    page, errors = open_page(browser, fixtures, "t-en.html", page_html("<p>x</p>"))
    assert page.evaluate("() => [Atlas.lang, Atlas.t('today'), Atlas.t('{n} rows', {n: 5})]") == [
        "en",
        "today",
        "5 rows",
    ]
    assert errors == []
    page.close()


def test_price_ages_show_chinese_with_the_editions_messages(browser, fixtures):
    from pipeline.render import i18n

    root, _url = fixtures
    (root / "javascripts" / "messages.js").write_text(i18n.script_messages("zh"), encoding="utf-8")
    three_days_ago = (dt.date.today() - dt.timedelta(days=3)).isoformat()
    today = dt.date.today().isoformat()
    body = (
        f'<time class="atlas-age" datetime="{three_days_ago}"></time><time class="atlas-age" datetime="{today}"></time>'
    )
    html = zh_page_html(body, None, "ages.js").replace(
        '<script src="../javascripts/atlas.js"',
        '<script src="../javascripts/messages.js"></script><script src="../javascripts/atlas.js"',
    )
    page, errors = open_page(browser, fixtures, "ages-zh.html", html)
    texts = page.eval_on_selector_all("time", "ts => ts.map(t => t.textContent)")
    assert texts == [f"{three_days_ago} · 3 天前", f"{today} · 今天"]
    assert page.get_attribute("time", "title") == f"观测于 {three_days_ago}"
    assert page.get_attribute("time", "data-days") == "3"  # what the sortable tables read stays a number
    assert errors == []
    page.close()


def test_compare_in_chinese_translates_labels_and_keeps_the_figures(browser, fixtures):
    from pipeline.render import i18n

    root, _url = fixtures
    (root / "javascripts" / "messages.js").write_text(i18n.script_messages("zh"), encoding="utf-8")
    body, data = compare_fixture()
    html = zh_page_html(body, None, "compare.js").replace(
        '<script src="../javascripts/atlas.js"',
        '<script src="../javascripts/messages.js"></script><script src="../javascripts/atlas.js"',
    )
    page, errors = open_page(browser, fixtures, "compare-zh.html", html, data, "?gpus=a,b")
    page.wait_for_selector("#compare-out table")
    rows = page.eval_on_selector_all(
        "#compare-out tbody tr", "rs => rs.map(r => [...r.children].map(c => c.textContent.trim()))"
    )
    assert rows[0] == ["显存（GB）", "80", "141"]
    price = next(r for r in rows if r[0] == "按需价格（$/GPU 小时）")
    assert price[1:] == ["$2.5（p<1>，2026-11-01）", "–"]  # a price row still prints dollars
    page.select_option("select[name=g1]", "")
    assert page.inner_text("#compare-out") == "请至少选择两款 GPU。"
    assert errors == []
    page.close()


def test_the_scripts_catalogue_keeps_every_placeholder():
    from babel.messages.pofile import read_po

    with (SCRIPTS.parent / "zh.po").open("rb") as f:
        catalogue = [m for m in read_po(f) if m.id]
    assert catalogue and all(m.string for m in catalogue)
    for m in catalogue:
        assert sorted(re.findall(r"\{\w+\}", m.id)) == sorted(re.findall(r"\{\w+\}", m.string)), m.id
