"""One formula, one text, two engines: the page runs `pipeline/sql/plan/plan_options.sql` in DuckDB-WASM
(site/javascripts/planner-sql.js) over the rows the build writes, and gives what `gpu-atlas plan` gives (DuckDB in
Python, over the database) on hundreds of random questions; the Planner page answers the issue's question as the
command line does."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pandas as pd
import pytest

from pipeline.plan import KV_PRECISIONS, LIMITS, SERVE_PRECISIONS, plan_options

pytestmark = pytest.mark.browser

COMPARED = [
    "throughput_tokens_per_s_per_gpu",
    "expected_tokens_per_s_per_user",
    "ttft_s",
    "bound_tokens_per_s",
    "usd_per_million_input_tokens",
    "usd_per_million_output_tokens",
    "usd_per_million_tokens",
    "required_gb",
]


def random_questions(db, n: int, seed: int = 20261124) -> list[dict]:
    rng = random.Random(seed)
    models = db.execute("select distinct model_id, max_context from serving_models order by 1").fetchall()
    out = []
    for _ in range(n):
        model, top = rng.choice(models)
        context = rng.randint(LIMITS["context"][0], min(top, 131072))
        output = rng.randint(1, max(1, min(4000, context // 3)))
        inp = rng.randint(1, context - output)
        out.append(
            {
                "model_id": model,
                "workload": "serve",
                "precision": rng.choice(SERVE_PRECISIONS),
                "kv_precision": rng.choice(KV_PRECISIONS),
                "context_tokens": context,
                "users": int(round(2 ** rng.uniform(0, 12))),
                "input_tokens": inp,
                "output_tokens": output,
                "tokens": None,
                "tier": rng.choice(["on-demand", "spot", None]),
                "engine_family": rng.choice(["vllm-sglang", "tensorrt-llm"]),
                "min_tokens_per_user": rng.choice([None, None, rng.uniform(1, 60)]),
                "max_ttft_s": rng.choice([None, None, rng.uniform(0.05, 5)]),
                "machine_id": None,
                "tensor_parallel": None,
            }
        )
    return out


def test_the_page_computes_what_the_sql_computes(server, browser, db):
    questions = random_questions(db, 300)
    sql = plan_options(db, pd.DataFrame(questions))
    page = browser.new_page()
    page.goto(server + "planner/")
    page.wait_for_function("() => document.body.dataset.plannerReady === '1'")
    rows = page.evaluate(
        """async (questions) => {
        const index = await (await fetch('../api/v1/plan/index.json')).json();
        const form = document.getElementById('planner-form');
        const engine = await AtlasSql.open(form.dataset.api, form.dataset.engine, index.engine);
        return await engine.plan(questions);
    }""",
        questions,
    )
    page.close()
    answered = compared = 0
    for i, q in enumerate(questions):
        options = [r for r in rows if r["scenario_id"] == i + 1]
        mine = sql[sql.scenario_id == i + 1].reset_index(drop=True)
        assert len(options) == len(mine), (q, len(options), len(mine))
        answered += bool(len(mine))
        for o, (_, s) in zip(options, mine.iterrows()):
            assert (o["machine_id"], o["gpu_id"], o["tensor_parallel"]) == (
                s.machine_id,
                s.gpu_id,
                s.tensor_parallel,
            ), q
            for column in COMPARED:
                assert o[column] == pytest.approx(s[column], rel=1e-3), (q, column)
            compared += 1
    # the sample is not trivial: most questions have options, and thousands of options were compared
    assert answered >= 150 and compared >= 3000, (answered, compared)


def answered(page) -> None:
    """Wait until the page has answered the question its form asks (the engine answers asynchronously)."""
    page.wait_for_function("() => document.body.dataset.plannerBusy === '0'")


def cli_plan(db, *args: str) -> dict:
    env = {**os.environ, "GPU_ATLAS_DB": str(db)}
    out = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", "plan", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_the_page_answers_the_issue_question_as_the_command_line(server, browser, built_site):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "planner/")
    page.wait_for_function("() => document.body.dataset.plannerReady === '1'")
    page.select_option("#planner-form select[name=model]", "llama-3.1-70b")
    page.select_option("#planner-form select[name=precision]", "fp8")
    for name, value in (("users", "50"), ("context", "8192"), ("input", "2000"), ("output", "500")):
        page.fill(f"#planner-form input[name={name}]", value)
    page.wait_for_function("() => location.search.includes('users=50') && location.search.includes('output=500')")
    answered(page)
    first = page.locator("#planner-results tbody tr").first.locator("td")
    machine, provider, cost = first.nth(1).inner_text(), first.nth(3).inner_text(), first.nth(11).inner_text()
    best = cli_plan(
        built_site["db"],
        "--model",
        "llama-3.1-70b",
        "--precision",
        "fp8",
        "--context",
        "8192",
        "--users",
        "50",
        "--input-tokens",
        "2000",
        "--output-tokens",
        "500",
        "--limit",
        "1",
    )["options"][0]
    fleet = f"{best['machines']} machines of " if best["machines"] > 1 else ""
    assert machine.startswith(f"{fleet}{best['instance_gpus']} × {best['gpu_name']}")
    assert best["offering"] in machine
    assert provider == best["provider"]
    assert cost == f"${best['usd_per_million_tokens']:,.3f}"
    # the command line under the table follows the form
    assert "--users 50" in page.inner_text("#planner-cli") and "--input-tokens 2000" in page.inner_text("#planner-cli")
    # a speed target removes the slower options, and the address keeps it
    page.fill("#planner-form input[name=min_user]", "30")
    page.wait_for_function("() => location.search.includes('min_user=30')")
    answered(page)
    speeds = [
        float(t.replace(",", "")) for t in page.locator("#planner-results tbody tr td:nth-child(8)").all_inner_texts()
    ]
    assert speeds and min(speeds) >= 30
    # a load curve opens under its option
    page.locator("#planner-results .atlas-curve-button").first.click()
    page.wait_for_selector("#planner-results svg.atlas-curve")
    assert page.locator("#planner-results svg.atlas-curve circle").count() >= 3
    # out of range: refused with the valid range, no table
    page.fill("#planner-form input[name=users]", "0")
    page.wait_for_selector("#planner-error:not([hidden])")
    assert "between 1 and 4,096" in page.inner_text("#planner-error")
    assert page.locator("#planner-results table").count() == 0
    assert errors == []
    page.close()


def test_a_replica_across_a_clusters_machines_reads_as_the_command_line(server, browser, built_site):
    """DeepSeek R1 at FP8 fits no machine of eight 80 GB GPUs: the page, running plan_options.sql in the browser,
    offers the same replicas across two machines of a cluster as the command line, with the fabric named, and draws
    such an option's load curve (its pipeline stages kept)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "planner/?model=deepseek-r1&precision=fp8&users=64&context=8192&input=2000&output=500")
    page.wait_for_function("() => document.body.dataset.plannerReady === '1'")
    answered(page)
    args = ("--model", "deepseek-r1", "--precision", "fp8", "--context", "8192", "--users", "64")
    options = cli_plan(built_site["db"], *args, "--input-tokens", "2000", "--output-tokens", "500", "--limit", "100")
    across = [o for o in options["options"] if (o.get("pipeline_parallel") or 1) > 1]
    assert across, "the command line offers no replica across machines"
    o = across[0]
    # a point past the table's first rows shows every option and marks this one
    page.locator(f'#planner-chart a[data-rank="{o["rank"]}"]').dispatch_event("click")
    row = page.locator(f"#planner-option-{o['rank']}.atlas-picked")
    row.wait_for()
    cells = row.locator("td")
    assert (
        cells.nth(2)
        .inner_text()
        .startswith(f"TP {o['tensor_parallel']} across {o['pipeline_parallel']} machines ({o['cluster_network']})")
    )
    assert cells.nth(1).inner_text().startswith(f"{o['machines']} machines of {o['instance_gpus']} × {o['gpu_name']}")
    assert cells.nth(11).inner_text() == f"${o['usd_per_million_tokens']:,.3f}"
    row.locator(".atlas-curve-button").click()
    page.wait_for_selector("#planner-results svg.atlas-curve")
    assert page.locator("#planner-results svg.atlas-curve circle").count() >= 2
    # Kimi K2 at 16 bits (about 2 TB) fits no single machine: the headline says the replica spans machines
    page.goto(server + "planner/?model=kimi-k2&precision=bf16&users=32&context=8192&input=2000&output=500")
    page.wait_for_function("() => document.body.dataset.plannerReady === '1'")
    answered(page)
    args = ("--model", "kimi-k2", "--precision", "bf16", "--context", "8192", "--users", "32")
    best = cli_plan(built_site["db"], *args, "--input-tokens", "2000", "--output-tokens", "500", "--limit", "1")
    best = best["options"][0]
    assert best["pipeline_parallel"] > 1
    across = f"across {best['pipeline_parallel']} machines joined by {best['cluster_network']}"
    assert across in page.inner_text("#planner-headline")
    assert errors == []
    page.close()
