"""The Planner answers in a sentence, then shows the choice: the headline names the cheapest option as the command
line ranks it (built into the page for the default question, written by the script for any other); a click on an
option's point in the chart marks its row; the filters keep the options of one provider; on a phone no cell of
the table covers another and the table scrolls in its own box."""

from __future__ import annotations

import pytest
from test_planner_model import answered, cli_plan

pytestmark = pytest.mark.browser


def ready(page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.plannerReady === '1' && document.body.dataset.plannerBusy === '0'"
    )


def test_the_default_answer_reads_without_javascript(server, browser):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(server + "planner/")
    headline = page.inner_text("#planner-headline")
    assert headline.startswith("Rent ") and "/hour" in headline and "Estimated, not measured" in headline
    assert "each of the 50 users gets about" in headline and "per million output tokens" in headline
    assert "Applied by default: at least 20.0 tokens/s per user" in page.inner_text("#planner-answer")
    assert "Public APIs" in page.inner_text("#planner-split")
    # the chart of every option, labelled, each point a link to its row; the table's first row matches the headline
    assert page.get_attribute("#planner-chart svg", "aria-labelledby") == "planner-chart-caption"
    points = page.locator("#planner-chart a[data-rank]").count()
    assert points > 10 and page.locator("#planner-chart a.atlas-best").count() >= 1
    first = page.locator("#planner-option-1 td")
    assert first.nth(3).inner_text() in headline and first.nth(5).inner_text() in headline
    context.close()


def test_a_question_gets_its_headline(server, browser, built_site):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "planner/?model=llama-3.1-70b&precision=fp8&users=20&context=8192&input=1000&output=300")
    ready(page)
    best = cli_plan(
        built_site["db"],
        *("--model", "llama-3.1-70b", "--precision", "fp8", "--context", "8192", "--users", "20"),
        *("--input-tokens", "1000", "--output-tokens", "300", "--limit", "1"),
    )["options"][0]
    headline = page.inner_text("#planner-headline")
    assert f"from {best['provider']} at ${best['usd_per_hour']:,.2f}/hour" in headline
    assert best["gpu_name"] in headline and "each of the 20 users gets about" in headline
    assert f"{best['expected_tokens_per_s_per_user']:.1f} tokens/s" in headline
    assert f"${best['usd_per_million_output_tokens']:.2f} per million output tokens" in headline
    # how far off such estimates were, as the command line's option says (the calibration's held-out errors)
    accuracy = page.inner_text("#planner-accuracy")
    assert f"{best['expected_throughput_error']:.0%} on output tokens/s per GPU" in accuracy
    assert f"{best['expected_ttft_error']:.0%} on the first token" in accuracy
    # a training question: the job's hours and cost, and no serving error
    page.select_option("#planner-form select[name=workload]", "lora")
    page.wait_for_function("() => document.getElementById('planner-headline').textContent.includes('hours')")
    assert "billion tokens take about" in page.inner_text("#planner-headline")
    assert not page.is_visible("#planner-accuracy")
    assert errors == []
    page.close()


def test_a_click_on_a_point_marks_its_row(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server + "planner/")
    ready(page)
    page.locator('#planner-chart a[data-rank="3"]').dispatch_event("click")
    row = page.locator("#planner-option-3")
    assert "atlas-picked" in row.get_attribute("class")
    assert page.locator("#planner-results tr.atlas-picked").count() == 1
    assert row.is_visible() and row.bounding_box()["y"] < 900
    # a point past the table's rows: the table shows every option, and the row is marked
    last = page.locator("#planner-chart a[data-rank]").evaluate_all("a => Math.max(...a.map(e => +e.dataset.rank))")
    assert last > 15
    page.locator(f'#planner-chart a[data-rank="{last}"]').dispatch_event("click")
    page.wait_for_selector(f"#planner-option-{last}.atlas-picked")
    assert page.locator("#planner-results tr.atlas-picked").count() == 1
    assert 0 <= page.locator(f"#planner-option-{last}").bounding_box()["y"] < 900
    assert "users=" not in page.url  # the question is still the default one
    page.close()


def test_the_filters_keep_one_providers_options_and_the_address_keeps_them(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server + "planner/")
    ready(page)
    page.select_option("#planner-filters select[name=provider]", "lambda")
    page.wait_for_function("() => location.search.includes('provider=lambda')")
    answered(page)
    providers = page.locator("#planner-results tbody tr td:nth-child(4)").all_inner_texts()
    assert providers and set(providers) == {"lambda"}
    assert "from lambda" in page.inner_text("#planner-headline")
    assert "options the filters keep" in page.inner_text("#planner-summary")
    points = page.locator("#planner-chart a[data-rank]").count()
    page.goto(server + "planner/?vendor=amd")  # a link with a filter: the default question, AMD's options
    ready(page)
    assert page.input_value("#planner-filters select[name=vendor]") == "amd"
    names = page.locator("#planner-results tbody tr td:nth-child(2) a").all_inner_texts()
    assert names and all(n.startswith(("MI", "Instinct")) for n in names), names
    assert page.locator("#planner-chart a[data-rank]").count() != points
    page.close()


def test_on_a_phone_no_cell_covers_another_and_the_table_scrolls_in_its_box(server, browser):
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(server + "planner/", wait_until="networkidle")
    found = page.evaluate("""() => {
        const rows = Array.from(document.querySelectorAll('#planner-results tr'));
        const bad = [];
        for (const r of rows) {
            const cells = Array.from(r.cells).filter(c => getComputedStyle(c).display !== 'none');
            const boxes = cells.map(c => c.getBoundingClientRect());
            for (let i = 0; i < cells.length; i++) {
                if (cells[i].scrollWidth > cells[i].clientWidth + 1) bad.push(['overflows', cells[i].innerText]);
                for (let j = i + 1; j < cells.length; j++) {
                    const a = boxes[i], b = boxes[j];
                    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
                    const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
                    if (w > 1 && h > 1) bad.push(['overlap', cells[i].innerText, cells[j].innerText]);
                }
            }
        }
        const table = document.querySelector('#planner-results table');
        const output = Array.from(table.rows[0].cells).find(c => c.innerText.includes('$/M output'));
        return {bad, rows: rows.length, page: document.documentElement.scrollWidth,
                output: output && getComputedStyle(output).display};
    }""")
    page.close()
    assert found["rows"] > 5 and found["bad"] == []
    assert found["page"] <= 390 and found["output"] != "none"
