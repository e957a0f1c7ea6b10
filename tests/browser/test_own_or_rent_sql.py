"""One formula, one text, two engines: the Own-or-rent calculator runs `pipeline/sql/own/own_answer.sql` (over the
formulas of pipeline/sql/macros/ownership.sql, those of the ownership_cost view) in DuckDB-WASM, and gives what the
same file gives in Python over the database, on random questions; the page's first answer is the build's."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

from pipeline.render.own_or_rent import QUESTION_COLUMNS, answers

pytestmark = pytest.mark.browser

COMPARED = [
    "usd_per_busy_gpu_hour",
    "fixed_usd_per_gpu_hour",
    "power_usd_per_gpu_hour",
    "breakeven_utilisation",
    "payback_months",
]


def random_questions(n: int, seed: int = 20261128) -> list[dict]:
    rng = random.Random(seed)
    return [
        {
            "question_id": i + 1,
            "gpus": rng.choice([1, 1, 2, 4, 8, 64]),
            "purchase_usd": round(10 ** rng.uniform(2, 6), 2),
            "busy_w": round(rng.uniform(50, 12000)),
            "usd_per_kwh": round(rng.uniform(0, 0.6), 3),
            "hosting": rng.choice(["home", "colocation"]),
            "years": round(rng.uniform(0.5, 10), 2),
            "busy_percent": round(rng.uniform(1, 100), 1),
            "rental_usd_per_gpu_hour": rng.choice([None, round(10 ** rng.uniform(-1.5, 1.3), 3)]),
        }
        for i in range(n)
    ]


def test_the_calculator_computes_what_the_sql_computes(server, browser, db):
    questions = random_questions(200)
    mine = answers(db, pd.DataFrame(questions, columns=list(QUESTION_COLUMNS)))
    page = browser.new_page()
    page.goto(server + "own-or-rent/")
    page.wait_for_selector("#own-out[data-ready]")
    rows = page.evaluate(
        """async (questions) => {
        const data = JSON.parse(document.getElementById('own-data').textContent);
        const form = document.getElementById('own-form');
        const engine = await AtlasSql.open(form.dataset.api, form.dataset.engine, data.engine);
        return await engine.plan(questions);
    }""",
        questions,
    )
    page.close()
    assert len(rows) == len(mine) == len(questions)
    nulls = 0
    for q, got, want in zip(questions, rows, mine):
        assert got["question_id"] == want["question_id"] == q["question_id"]
        for column in COMPARED:
            if want[column] is None:
                assert got[column] is None, (q, column)
                nulls += 1
            else:
                assert got[column] == pytest.approx(want[column], rel=1e-9), (q, column)
        assert got["owning_cheaper"] == want["owning_cheaper"], q
        assert got["curve_usd_per_busy_gpu_hour"] == pytest.approx(want["curve_usd_per_busy_gpu_hour"], rel=1e-9)
    # the sample reaches both sides: questions where owning never pays and questions where it does
    paying = sum(w["payback_months"] is not None for w in mine)
    assert 20 <= paying <= 180 and nulls >= 20, (paying, nulls)


def test_the_first_answer_is_the_build_and_a_change_asks_the_engine(server, browser, db):
    """The page opens on the build's answer for the default question (no engine loaded); a changed price is answered
    by the engine, as own_answer.sql answers it in Python; a cleared field asks for it."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "own-or-rent/")
    page.wait_for_selector("#own-out[data-ready]")
    assert not any(u.endswith(".wasm") for u in requests)  # the first answer needs no engine
    data = json.loads(page.locator("#own-data").text_content())
    assert answers(db, pd.DataFrame([data["question"]]))[0] == data["answer"]  # JSON keeps every digit
    page.fill("#own-form input[name=price]", "12345")
    page.wait_for_selector("#own-out[data-ready]")
    question = {**data["question"], "purchase_usd": 12345}
    want = answers(db, pd.DataFrame([question]))[0]
    shown = page.locator("#own-out td").first.inner_text()
    assert shown == f"${want['usd_per_busy_gpu_hour']:,.3f}", (shown, want)
    page.fill("#own-form input[name=years]", "")
    page.wait_for_function("() => document.getElementById('own-out').innerText.includes('years (above 0)')")
    page.close()
    assert not errors, errors
