"""The Chinese edition in a browser: the language switch keeps the page and the question, the Planner answers the
same in Chinese, and search finds Chinese words."""

from __future__ import annotations

import re

QUESTION = "planner/?model=llama-3.1-70b&users=10"
CJK = re.compile(r"[\u4e00-\u9fff]")


def _options(page) -> list[tuple[str, list[str]]]:
    """Each option row: its machine's GPU and every number in the row (the count of machines among them)."""
    page.wait_for_function(
        "() => document.body.dataset.plannerReady === '1' && document.body.dataset.plannerBusy === '0'"
    )  # answered (the engine answers asynchronously)
    page.wait_for_selector("#planner-results tbody tr")
    rows = page.locator("#planner-results tbody tr")
    out = []
    for i in range(min(rows.count(), 8)):
        cells = rows.nth(i).locator("td").all_inner_texts()
        # the machine's GPU (its link); "2 machines of" and the offer's note below it are words of the language
        machine = rows.nth(i).locator("td").nth(1).locator("a").first.inner_text()
        out.append((machine, re.findall(r"\d[\d,.]*", " ".join(cells))))
    return out


def test_switching_language_on_the_planner_keeps_the_question_and_the_options(server, browser):
    page = browser.new_page()
    page.goto(server + QUESTION)
    english = _options(page)
    english_heads = page.locator("#planner-results thead th").all_inner_texts()
    link = page.locator('a.md-select__link[hreflang="zh"]')
    assert link.get_attribute("href").endswith("zh/" + QUESTION)
    page.hover(".md-header__option .md-select")  # the header's language menu opens on hover
    link.click()
    page.wait_for_url("**/zh/planner/**")
    assert page.url.endswith("zh/" + QUESTION)
    chinese = _options(page)
    chinese_heads = page.locator("#planner-results thead th").all_inner_texts()
    assert chinese == english and len(chinese) > 0
    assert len(chinese_heads) == len(english_heads)
    assert sum(bool(CJK.search(h)) for h in chinese_heads) >= len([h for h in english_heads if h.strip()]) // 2
    assert CJK.search(page.locator("#planner-summary").inner_text())
    back = page.locator('a.md-select__link[hreflang="en"]').get_attribute("href")
    assert back.endswith(QUESTION) and "/zh/" not in back
    page.close()


def test_search_finds_chinese_words_in_the_chinese_edition(server, browser):
    page = browser.new_page()
    page.goto(server + "zh/")
    page.click("input.md-search__input")
    page.fill("input.md-search__input", "显存")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    results = page.locator(".md-search-result__item").all_inner_texts()
    hrefs = page.locator(".md-search-result__link").evaluate_all("links => links.map(a => a.href)")
    assert results and all("/zh/" in href for href in hrefs)
    assert any("显存" in r for r in results)
    page.close()
