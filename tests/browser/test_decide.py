"""The pages people decide with, in headless Chromium through a local HTTP server (the way the README serves
the site): the Planner against `gpu-atlas plan`, Compare, page weight, render-blocking scripts, link contrast
and table widths."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_site import PAGES

pytestmark = pytest.mark.browser

MAX_PAGE_BYTES = 400_000
DECIDE_PAGES = PAGES + ["planner/", "compare/?gpus=nvidia-h100-sxm-80gb,nvidia-a100-sxm-80gb,amd-mi300x-oam-192gb"]


def cli_plan(db: Path, *args: str) -> dict:
    env = {**os.environ, "GPU_ATLAS_DB": str(db)}
    out = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "plan", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_planner_training_scales_with_the_token_budget(server, browser, built_site):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "planner/?model=llama-3.1-8b&workload=lora&tier=on-demand&tokens=1")
    page.wait_for_function("() => document.getElementById('planner-summary').textContent.includes('LoRA')")
    one = float(re.sub(r"[^0-9.]", "", page.locator("#planner-results tbody tr td:nth-child(8)").first.inner_text()))
    page.fill("#planner-form input[name=tokens]", "4")
    page.dispatch_event("#planner-form input[name=tokens]", "change")
    page.wait_for_function("() => location.search.includes('tokens=4')")
    four = float(re.sub(r"[^0-9.]", "", page.locator("#planner-results tbody tr td:nth-child(8)").first.inner_text()))
    cli = cli_plan(built_site["db"], "--model", "llama-3.1-8b", "--workload", "lora", "--tokens", "4e9", "--limit", "1")
    assert four == pytest.approx(4 * one, rel=0.01)
    assert four == pytest.approx(cli["options"][0]["usd_per_job"], rel=0.01)
    page.close()


def test_planner_link_with_an_unknown_choice_falls_back_and_says_so(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "planner/?model=gpt-5-turbo&precision=fp3&users=50")
    page.wait_for_function(
        "() => document.body.dataset.plannerReady === '1' && document.body.dataset.plannerBusy === '0'"
    )
    note = page.locator("#planner-error").inner_text()
    assert "model=gpt-5-turbo" in note and "precision=fp3" in note
    assert page.locator("#planner-results tbody tr").count() > 0  # the default model, answered
    assert "50 concurrent users" in page.locator("#planner-summary").inner_text()
    assert errors == []
    page.close()


def test_compare_side_by_side_with_a_shareable_address(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "compare/?gpus=nvidia-h100-sxm-80gb,nvidia-a100-sxm-80gb")
    page.wait_for_selector("#compare-out table[data-compare]")
    heads = page.locator("#compare-out thead th").all_inner_texts()
    assert heads[1:] == ["H100 SXM 80 GB", "A100 SXM 80 GB"]
    memory = page.locator("#compare-out tbody tr").first.locator("td").all_inner_texts()
    assert memory == ["80", "80"]
    page.select_option("#compare-form select[name=g2]", "amd-mi300x-oam-192gb")
    page.wait_for_selector("#compare-out table[data-compare$='amd-mi300x-oam-192gb']")
    assert "amd-mi300x-oam-192gb" in page.url
    page.close()


def test_compare_shows_the_same_prices_and_expected_speeds_as_the_database(server, browser, db):
    """Compare opens on four GPUs; its prices are the price picks every page uses, its speed row is the expected
    figure per GPU (the bound apart, never bolded)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "compare/")
    page.wait_for_selector("#compare-out table[data-compare]")
    ids = page.locator("#compare-out table").get_attribute("data-compare").split(",")
    assert len(ids) == 4
    rows = {
        r.locator("th").inner_text(): r.locator("td").all_inner_texts()
        for r in page.locator("#compare-out tbody tr").all()
    }
    page.close()

    def shown(text):
        return float(re.match(r"\$?([\d,.]+)", text).group(1).replace(",", ""))

    for i, gpu in enumerate(ids):
        pick = db.execute(
            """select min(usd_per_gpu_hour) from price_picks where gpu_id = ? and pick = 'on-demand'""", [gpu]
        ).fetchone()[0]
        cell = rows["Price, on-demand ($/GPU-hour)"][i]
        assert (cell == "–") if pick is None else shown(cell) == pytest.approx(pick, abs=0.0005)
        expected, bound, n = db.execute(
            """
            select batch_decode_expected_tokens_per_s, batch_decode_tokens_per_s, gpus_used from inference_estimates
            where gpu_id = ? and model_id = 'llama-3.3-70b' and precision = 'fp8' and single_node""",
            [gpu],
        ).fetchone()
        speed = rows["Llama 3.3 70B, FP8, batch of 16: expected decode tokens/s per GPU"][i]
        assert shown(speed) == pytest.approx(expected / n, rel=2e-3)  # the JSON files keep 4 significant digits
        assert shown(rows["Same, bound (no GPU exceeds it) tokens/s per GPU"][i]) == pytest.approx(bound / n, rel=2e-3)
        assert shown(speed) < shown(rows["Same, bound (no GPU exceeds it) tokens/s per GPU"][i])


def test_gpu_page_links_to_compares_and_shows_key_figures_first(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server + "gpus/nvidia-h100-sxm-80gb/")
    glance = page.locator(".atlas-glance")
    box = glance.bounding_box()
    assert box["y"] + box["height"] <= 900, "the key figures fit the first screen at 1400 x 900"
    text = glance.inner_text()
    for needed in ("Memory", "Bandwidth", "BF16", "FP8", "TDP", "Cheapest on-demand", "Largest on one", "rank"):
        assert needed in text
    link = page.locator("a[href*='compare/?gpus=nvidia-h100-sxm-80gb,']").first
    link.click()
    page.wait_for_selector("#compare-out table[data-compare]")
    assert page.locator("#compare-out thead th").count() == 5
    page.close()


def test_pages_are_light_and_never_block_on_the_chart_bundle(built_site):
    site = built_site["site"]
    pages = list(site.rglob("*.html"))
    assert len(pages) > 60
    for path in pages:
        html = path.read_text(encoding="utf-8")
        assert path.stat().st_size <= MAX_PAGE_BYTES, f"{path.relative_to(site)}: {path.stat().st_size:,} bytes"
        assert "vega-bundle" not in html, f"{path.relative_to(site)} references the chart bundle itself"
        head = html.split("</head>", 1)[0]
        blocking = [
            s for s in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", head) if not re.search(r"\b(defer|async)\b", s)
        ]
        assert blocking == [], f"{path.relative_to(site)}: render-blocking {blocking}"
        ours = [s for s in re.findall(r'<script\b[^>]*src="[^"]*javascripts/[^"]*"[^>]*>', html) if "assets/" not in s]
        assert len(ours) >= 3
        assert all(re.search(r"\b(defer|async)\b", s) for s in ours), f"{path.relative_to(site)}: {ours}"


@pytest.mark.parametrize("page_path,charts", [("about/", False), ("models/", False), ("vram-fit/", True)])
def test_chart_bundle_loads_only_where_there_are_charts(server, browser, page_path, charts):
    page = browser.new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(server + page_path, wait_until="networkidle")
    assert not any("vega-bundle.js" in u for u in requested), "no chart is on the first screen"
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(1500)
    assert any("vega-bundle.js" in u for u in requested) == charts
    page.close()


def test_the_search_index_loads_only_when_a_reader_searches(server, browser):
    page = browser.new_page()
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(server + "gpus/", wait_until="networkidle")
    page.wait_for_timeout(1000)
    assert not any("search_index.json" in u for u in requested), "the index is fetched before anyone searches"
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.wait_for_function(
        "() => { const m = document.querySelector('.md-search-result__meta');"
        " return m && m.textContent.trim() && !/initiali/i.test(m.textContent) }",
        timeout=90_000,
    )
    assert sum("search_index.json" in u for u in requested) == 1
    page.locator("input.md-search__input").type("H100", delay=30)
    page.wait_for_selector(".md-search-result__item", timeout=60_000)
    assert page.locator(".md-search-result__item").count() > 0
    page.close()


def contrast(fg: list[float], bg: list[float]) -> float:
    def lum(rgb):
        c = [v / 255 for v in rgb[:3]]
        c = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]

    a, b = sorted([lum(fg), lum(bg)], reverse=True)
    return (a + 0.05) / (b + 0.05)


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_link_and_header_contrast_meet_wcag_aa(server, browser, scheme):
    page = browser.new_page()
    page.goto(server)
    page.evaluate(f"() => document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    page.wait_for_timeout(600)  # the theme animates colour changes
    colours = page.evaluate("""() => {
        const rgb = s => s.match(/[0-9.]+/g).map(Number);
        const link = document.querySelector('.md-content p a[href]:not(.headerlink)');
        const header = document.querySelector('.md-header');
        return {link: rgb(getComputedStyle(link).color),
                page: rgb(getComputedStyle(document.querySelector('.md-main')).backgroundColor === 'rgba(0, 0, 0, 0)'
                          ? getComputedStyle(document.body).backgroundColor
                          : getComputedStyle(document.querySelector('.md-main')).backgroundColor),
                headerText: rgb(getComputedStyle(header).color), header: rgb(getComputedStyle(header).backgroundColor)};
    }""")
    assert contrast(colours["link"], colours["page"]) >= 4.5, colours
    assert contrast(colours["headerText"], colours["header"]) >= 4.5, colours
    page.close()


@pytest.mark.parametrize("page_path", DECIDE_PAGES)
def test_tables_fit_their_column_at_1400_px(server, browser, page_path):
    """Every table shows all its columns at 1400 px: no horizontal scrolling."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server + page_path, wait_until="networkidle")
    page.wait_for_timeout(300)
    widths = page.evaluate("""() => Array.from(document.querySelectorAll('.md-content table')).map(t => {
        const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
        return {table: t.scrollWidth, box: box.clientWidth, head: t.rows[0] ? t.rows[0].innerText.slice(0, 60) : ''};
    })""")
    too_wide = [w for w in widths if w["table"] > w["box"] + 1]
    assert too_wide == [], f"{page_path}: {too_wide}"
    page.close()


@pytest.mark.parametrize("page_path", ["", "planner/", "gpus/nvidia-h100-sxm-80gb/", "prices/", "gpus/"])
def test_phone_pages_do_not_scroll_sideways(server, browser, page_path):
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(server + page_path, wait_until="networkidle")
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.close()


def test_the_planner_fits_a_phone_with_its_cost_per_million_tokens_visible(server, browser):
    """On a phone the page keeps its width: the options' table scrolls sideways in its own box, with the speed per
    user and the $ per million output tokens shown (not hidden) in it."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(server + "planner/")
    page.wait_for_selector("#planner-results table")
    seen = page.evaluate("""() => {
        const table = document.querySelector('#planner-results table');
        const box = table.closest('.atlas-scroll');
        return {page: document.documentElement.scrollWidth, box: box.clientWidth,
                scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
                heads: Array.from(table.rows[0].cells).filter(c => getComputedStyle(c).display !== 'none')
                    .map(c => c.innerText)};
    }""")
    page.close()
    assert seen["page"] <= 390 and seen["box"] <= 390 and seen["scrolls"]
    heads = seen["heads"]
    assert any("$/M" in h and "output" in h for h in heads) and any("Tok/s per user" in h for h in heads)


def test_own_or_rent_answers_the_8_x_h100_server_and_the_home_rtx_4090(server, browser, db):
    """The 8 x H100 server at about $13.4/hour; an RTX 4090 at home against renting, with a break-even
    utilisation below 100% (it paid rack rent before); the calculator starts from a rental (the GPU's on-demand pick)
    and keeps a typed purchase price when the hosting changes; "I own these GPUs" answers."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "own-or-rent/")
    page.wait_for_selector("#own-out[data-ready]")
    page.wait_for_selector("#owned-out[data-ready] table")
    text = page.locator("article").inner_text()
    assert "$13.44" in text and "RTX 4090 owned, at home" in text and "H100 SXM rented" in text
    calc = page.locator("#own-out").inner_text()
    home = db.execute("""select breakeven_utilisation from ownership_cost
                         where gpu_id = 'nvidia-rtx-4090-pcie-24gb' and hosting = 'home'""").fetchone()[0]
    assert home < 1 and f"{round(home * 100)}%" in calc  # the calculator's defaults are the view's assumptions
    assert page.locator("#own-out svg polyline").count() >= 2
    assert page.input_value("#own-form input[name=rental]") != ""
    page.fill("#own-form input[name=price]", "12345")
    page.select_option("#own-form select[name=hosting]", "colocation")
    assert page.input_value("#own-form input[name=price]") == "12345"
    page.wait_for_selector("#own-out[data-ready]")  # answered by the page's DuckDB (own_answer.sql)
    assert "Break-even" in page.locator("#own-out").inner_text()
    assert "Seed" not in text
    runs = page.locator("#owned-out tbody tr").count()
    page.select_option("#owned-form select[name=count]", "1")
    assert 0 < page.locator("#owned-out tbody tr").count() < runs
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing wider than the screen
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 391
    page.close()


@pytest.mark.parametrize("gpu", ["nvidia-h100-sxm-80gb", "amd-mi300x-oam-192gb"])
def test_a_gpus_price_and_70b_expectation_read_the_same_on_compare_and_its_page(server, browser, gpu):
    """One figure, one value: the on-demand price pick and the reference model's expected tokens/s per GPU (with
    its GPU count and the bound beside it) are the same on Compare and on the GPU's page, labelled alike."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + f"compare/?gpus={gpu},nvidia-a100-sxm-80gb")
    page.wait_for_selector("#compare-out table[data-compare]")
    rows = {
        r.locator("th").inner_text(): r.locator("td").first.inner_text()
        for r in page.locator("#compare-out tbody tr").all()
    }
    page.goto(server + f"gpus/{gpu}/")
    cells = {c.locator("span").first.inner_text(): c.inner_text() for c in page.locator(".atlas-glance > div").all()}
    page.close()
    price = re.match(r"\$([\d.]+)", rows["Price, on-demand ($/GPU-hour)"]).group(1)
    assert f"${float(price):.2f}/GPU-h" in cells["Cheapest on-demand"]
    compare_speed = rows["Llama 3.3 70B, FP8, batch of 16: expected decode tokens/s per GPU"]
    ((label, cell),) = [(k, v) for k, v in cells.items() if k.startswith("Llama 3.3 70B")]
    expected = re.search(r"([\d,.]+) tok/s per GPU", cell).group(1)
    assert compare_speed.startswith(expected) and "expected" in cell and "expected" in "expected decode tokens/s"
    gpus = re.search(r"on (\d+) GPUs?", compare_speed).group(1)
    assert f"on {gpus} GPU" in cell
    bound = re.search(r"bound ([\d,.]+)", cell).group(1)
    assert rows["Same, bound (no GPU exceeds it) tokens/s per GPU"].startswith(bound)
