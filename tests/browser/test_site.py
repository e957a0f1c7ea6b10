"""The built site in headless Chromium: every chart renders, no console error, no request leaves the site."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.browser

PAGES = [
    "",
    "training/",
    "inference/",
    "cost-per-tflop/",
    "vram-fit/",
    "prices/",
    "changes/",
    "gpus/",
    "models/",
    "methodology/",
    "conflicts/",
    "sources/",
    "coverage/",
    "data/",
    "about/",
    "gpus/nvidia-h100-sxm-80gb/",
    "gpus/nvidia-a100-sxm-80gb/",
    "gpus/nvidia-rtx-4090-pcie-24gb/",
    "planner/",
    "compare/",
    "own-or-rent/",
    # the Chinese edition: its charts (Chinese titles), scripts (messages.js first) and data files one level up
    "zh/",
    "zh/planner/",
    "zh/vram-fit/",
    "zh/cost-per-tflop/",
    "zh/own-or-rent/",
    "zh/gpus/nvidia-h100-sxm-80gb/",
]


@pytest.mark.parametrize("page_path", PAGES)
def test_page_renders_all_charts_offline(server, browser, page_path, tmp_path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors, outside = [], []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith(server) and not r.url.startswith("data:") else None,
    )
    response = page.goto(server + page_path, wait_until="load")
    assert response.status == 200
    specs = page.locator("script.atlas-spec").count()
    if specs:  # charts are drawn when they come near the screen
        for i in range(page.locator(".atlas-chart").count()):
            page.locator(".atlas-chart").nth(i).scroll_into_view_if_needed()
        page.wait_for_function(
            "n => document.querySelectorAll('.atlas-chart[data-rendered=true], .atlas-chart[data-error]').length >= n",
            arg=specs,
            timeout=20_000,
        )
        failed = page.locator(".atlas-chart[data-error]").count()
        assert failed == 0, page.locator(".atlas-chart[data-error]").first.get_attribute("data-error")
        assert page.locator(".atlas-chart svg").count() >= specs
    page.wait_for_timeout(200)
    assert errors == []
    assert outside == []
    page.close()


def test_explorer_reacts_to_its_controls(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "vram-fit/")
    page.wait_for_selector("#fit-out[data-ready=true] table")
    page.select_option("#fit-form select[name=model]", "llama-3.1-8b")
    small = page.locator("#fit-out tbody tr td:nth-child(3)").all_inner_texts()
    page.select_option("#fit-form select[name=model]", "deepseek-r1")
    large = page.locator("#fit-out tbody tr td:nth-child(3)").all_inner_texts()
    assert page.locator("#fit-out").get_attribute("data-key").startswith("deepseek-r1|")

    def needed(cells):
        return sum(int(c.split()[0]) for c in cells)

    assert needed(large) > needed(small)
    page.close()


def test_the_explorer_counts_what_vram_fit_counts(server, browser, db):
    """The explorer's GPUs needed are vram_fit's own (sharding, cache copies and the runtime overhead of every GPU),
    not the requirement over one GPU's memory, for a model that spans GPUs."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "vram-fit/")
    page.wait_for_selector("#fit-out[data-ready=true] table")
    page.select_option("#fit-form select[name=model]", "llama-3.1-405b")
    page.select_option("#fit-form select[name=precision]", "bf16")
    page.select_option("#fit-form select[name=context]", "4096")
    rows = page.eval_on_selector_all(
        "#fit-out tbody tr", "rs => rs.map(r => [r.cells[0].textContent.trim(), r.cells[2].textContent.trim()])"
    )
    page.close()
    want = dict(
        db.execute(
            """select g.name, f.gpus_needed from vram_fit as f join gpus as g using (gpu_id)
               where f.model_id = 'llama-3.1-405b' and f.precision = 'bf16' and f.context_tokens = 4096
                 and f.workload = 'inference' and f.kv_precision = 'bf16' and f.batch_size = 1 and f.gpu_count = 1"""
        ).fetchall()
    )
    assert len(rows) == len(want) > 50
    for name, shown in rows:
        assert int(shown.split()[0]) == want[name], (name, shown, want[name])


def test_table_sorts_on_click(server, browser):
    page = browser.new_page()
    page.goto(server + "gpus/")
    header = page.locator(".atlas-sortable table th").nth(1)  # Memory (GB)
    assert header.inner_text().startswith("Memory")
    header.click()
    header.click()  # descending
    first = page.locator(".atlas-sortable table tbody tr").first.locator("td").nth(1).inner_text()
    values = [
        re.sub(r"[^0-9.]", "", v)
        for v in page.locator(".atlas-sortable table tbody tr td:nth-child(2)").all_inner_texts()
    ]
    numbers = [float(v) for v in values if v]
    assert float(re.sub(r"[^0-9.]", "", first)) == max(numbers)
    page.close()


def test_screenshot_home(server, browser, built_site):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.goto(server)
    page.wait_for_selector("table")
    out = built_site["site"].parent / "home.png"
    page.screenshot(path=str(out), full_page=True)
    assert out.stat().st_size > 10_000
    page.close()


def test_price_ages_are_counted_in_the_browser(server, browser):
    import datetime as dt

    page = browser.new_page()
    page.goto(server + "prices/")
    page.wait_for_selector("time.atlas-age[data-days]")
    ages = page.locator("time.atlas-age")
    assert ages.count() > 100
    today = dt.datetime.now(dt.timezone.utc).date()
    for i in (0, ages.count() - 1):
        age = ages.nth(i)
        observed = dt.date.fromisoformat(age.get_attribute("datetime"))
        days = int(age.get_attribute("data-days"))
        assert abs(days - (today - observed).days) <= 1  # the browser's local day may differ from UTC by one
        assert age.inner_text() in (f"{observed} · today", f"{observed} · 1 day ago", f"{observed} · {days} days ago")
    # the Observed column sorts by day count
    table = page.locator(".atlas-sortable table").last
    headers = table.locator("th").all_inner_texts()
    age_col = next(i for i, h in enumerate(headers) if h.strip().startswith("Observed"))
    table.locator("th").nth(age_col).click()
    days = [int(d) for d in table.locator("time.atlas-age").evaluate_all("els => els.map(e => e.dataset.days)")]
    assert days == sorted(days) and days[0] < days[-1]
    page.close()
