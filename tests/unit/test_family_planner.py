"""The Planner's page family (pipeline/render/planner/): the page with the default question's options, the
Planner's address and its JSON files, from hand-made rows (no database); text from data comes out escaped."""

import json

import pandas as pd
from markupsafe import Markup

from pipeline.plan import Question
from pipeline.render import i18n
from pipeline.render.planner import (
    FAMILY,
    OPTION_COLUMNS,
    PLAN_VIEWS,
    TOP,
    context,
    json_files,
    plan_index,
    question_url,
    training_scenarios,
    weights_label,
)

HOSTILE = "<script>x</script> *a* |b"
Q = Question(model="llama-3.3-70b", users=50, input_tokens=2000, output_tokens=500, context=8192)


def option(rank: int, **kw) -> dict:
    row = {
        "rank": rank,
        "instance_gpus": 2,
        "machines": 1,
        "gpu_id": "nvidia-b200-sxm-180gb",
        "gpu_name": "B200 SXM 180 GB",
        "tensor_parallel": 2,
        "replicas": 1,
        "provider": "lambda",
        "pricing_tier": "on-demand",
        "usd_per_hour": 13.78,
        "throughput_tokens_per_s_per_gpu": 348.2,
        "expected_tokens_per_s_per_user": 14.04,
        "ttft_s": 0.181,
        "usd_per_million_input_tokens": 0.2401,
        "usd_per_million_output_tokens": 4.5321,
        "usd_per_million_tokens": 1.0981,
        "observed_on": "2026-09-20",
        "observed_date_known": True,
        "observed_no_later_than": None,
        "price_kind": "list price",
        "users_per_replica": 50.0,
        "prefill_share": 0.25,
        "gpu_count": 2,
        "bound_throughput_tokens_per_s_per_gpu": 1210.0,
        "bound_tokens_per_s_per_user": 48.8,
        "bound_ttft_s": 0.052,
        "expected_throughput_error": 0.111,
        "expected_per_user_error": 0.192,
        "expected_ttft_error": None,
    }
    return row | kw


def page(options: pd.DataFrame, weights: str = "FP8 weights", name: str = "Llama 3.3 70B Instruct") -> str:
    models = pd.DataFrame({"model_id": ["llama-3.3-70b"], "name": [name]})
    return FAMILY.render("planner.md.j2", **context(options, Q, models, weights))


def test_page_shows_the_cheapest_options_of_the_default_question():
    options = pd.DataFrame([option(i + 1) for i in range(TOP + 2)])
    options.loc[1, ["instance_gpus", "tensor_parallel", "replicas"]] = [8, 4, 2]
    options.loc[2, ["machines", "instance_gpus", "tensor_parallel", "replicas"]] = [3, 1, 1, 3]
    text = page(options)
    assert text.startswith("---\nhide:\n  - toc\n---\n# Planner\n")
    assert (
        '<label>Concurrent users <input name="users" type="number" min="1" max="4096" step="1" value="50" '
        'inputmode="decimal"></label>'
    ) in text
    # the default speed target, shown in its field and said in words
    assert (
        '<input name="min_user" type="number" min="0" max="10000" step="any" value="20.0" inputmode="decimal">' in text
    )
    assert "Applied by default: at least 20.0 tokens/s per user" in text
    assert (
        "<strong>Llama 3.3 70B Instruct</strong>, serve, FP8 weights, BF16 KV cache, 50 concurrent users, 2,000 input "
        "and 500 output tokens per request, context 8,192, on-demand prices: the 10 cheapest of 12 options.</p>"
    ) in text
    # the answer in a sentence, from the first option, said to be an estimate
    assert (
        '<p id="planner-headline" class="atlas-headline"><strong>Rent 2 × B200 SXM 180 GB from lambda at $13.78/hour'
        "</strong> (on-demand list price, 2026-09-20). Estimated, not measured: each of the 50 users gets about 14.0 "
        "tokens/s, first token in 0.18 s (one replica); $0.24 per million input and $4.53 per million output tokens.</p>"
    ) in text
    assert "so here a million input tokens cost 5% of a million output tokens" in text
    # the table: one row per option, each with its id (the chart's points link to it)
    assert (
        '<tr id="planner-option-1"><td class="atlas-rank">1</td><td><span class="atlas-nowrap">2 ×</span> '
        '<a href="../gpus/nvidia-b200-sxm-180gb/">B200 SXM 180 GB</a></td><td>TP 2</td><td>lambda</td>'
        '<td>on-demand</td><td>$13.78</td><td title="bound 1,210">348</td><td title="bound 48.8">14.0</td>'
        '<td title="bound 0.052">0.18</td><td>$0.240</td><td>$4.532</td>'
        '<td>$1.098</td><td><time class="atlas-age" datetime="2026-09-20">2026-09-20</time></td></tr>'
    ) in text
    assert "B200 SXM 180 GB</a></td><td>TP 4 × 2 replicas</td>" in text
    # k identical machines of one offer: said so
    assert '<td>3 machines of <span class="atlas-nowrap">1 ×</span>' in text
    assert 'id="planner-option-11"' not in text
    # the chart: every option a point linking to its row; the filters offer the options' GPUs and providers
    assert text.count('<a href="#planner-option-') == TOP + 2
    assert '<option value="nvidia-b200-sxm-180gb">B200 SXM 180 GB</option>' in text
    assert '<option value="lambda">lambda</option>' in text
    assert (
        "<code>gpu-atlas plan --model llama-3.3-70b --precision native --users 50 --input-tokens 2000 "
        "--output-tokens 500 --context 8192</code>"
    ) in text
    assert "<script src=" not in text  # planner.js is loaded by mkdocs.yml, like every page script


def test_no_option():
    text = page(pd.DataFrame([option(1)]).iloc[:0])
    assert "<p>No option fits.</p>" in text and "<table>" not in text and 'id="planner-headline"' not in text
    assert "the 0 cheapest of 0 options" in text


def test_text_from_data_is_escaped():
    options = pd.DataFrame([option(1, gpu_name=HOSTILE, provider=HOSTILE, pricing_tier=HOSTILE)])
    text = page(options, weights=weights_label(Q, {"llama-3.3-70b": HOSTILE}), name=HOSTILE)
    assert "<script>" not in text
    escaped = "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b"
    assert f"<strong>{escaped}</strong>" in text
    html = "&lt;script&gt;x&lt;/script&gt; *a* |b"  # inside HTML, no Markdown escapes
    assert (
        f'<a href="../gpus/nvidia-b200-sxm-180gb/">{html}</a></td><td>TP 2</td><td>{html}</td><td>{html}</td>' in text
    )
    assert f"<strong>Rent 2 × {html} from {html} at $13.78/hour</strong> ({html} list price" in text
    assert "weights as the checkpoint ships them (&lt;SCRIPT&gt;X&lt;/SCRIPT&gt; \\*A\\* &#124;B)" in text


def test_weights_label():
    assert weights_label(Question(model="m", precision="fp8"), {}) == "FP8 weights"
    assert weights_label(Question(model="m"), {"m": "mxfp4-moe"}) == "weights as the checkpoint ships them (MXFP4-MOE)"
    assert weights_label(Question(model="m"), {}) == "weights as the checkpoint ships them (unknown)"


def test_question_url_is_an_html_attribute_value():
    url = question_url(Question(model="gpt-oss-120b", users=50, context=8192, min_tokens_per_user=30))
    assert isinstance(url, Markup)
    assert url == (
        "planner/?model=gpt-oss-120b&amp;workload=serve&amp;precision=native&amp;kv=bf16&amp;context=8192&amp;"
        "users=50&amp;input=2000&amp;output=500&amp;engine=vllm-sglang&amp;tier=on-demand&amp;min_user=30"
    )
    hostile = question_url(Question(model='x"><script>&', max_ttft_s=0.5), prefix="../")
    assert hostile.startswith("../planner/?model=x%22%3E%3Cscript%3E%26&amp;workload=serve")
    assert hostile.endswith("&amp;max_ttft=0.5") and "context" not in hostile


def test_json_files():
    models = pd.DataFrame(
        {
            "model_id": ["m"],
            "name": [HOSTILE],
            "params_b": [70.5537],
            "active_params_b": [70.5537],
            "max_context": [131072],
            "status": ["current"],
        }
    )
    scenarios = training_scenarios(["m"])
    assert len(scenarios) == 12 and set(scenarios.workload) == {"full", "lora", "qlora", "pretrain"}
    training = pd.DataFrame(
        [
            {c: None for c in OPTION_COLUMNS} | {"model_id": "m", "workload": "lora", "tier": t, "rank": r}
            for t, r in (("on-demand", 1), (None, 1), (None, TOP + 1))
        ]
    )
    training["usd_per_job"] = [12.345678, float("nan"), 1.0]
    files = json_files({"api/v1/plan/tables/t.csv": "a\n1\n"}, training, plan_index(models))
    assert set(files) == {"api/v1/plan/tables/t.csv", "api/v1/plan/training/m.json", "api/v1/plan/index.json"}
    doc = json.loads(files["api/v1/plan/training/m.json"])
    assert doc["columns"] == OPTION_COLUMNS and set(doc["scenarios"]) == {"lora|on-demand", "lora|any"}
    assert doc["scenarios"]["lora|on-demand"][0][OPTION_COLUMNS.index("usd_per_job")] == 12.35
    assert len(doc["scenarios"]["lora|any"]) == 1  # beyond TOP left out
    index = json.loads(files["api/v1/plan/index.json"])
    assert index["models"] == [
        {"model_id": "m", "name": HOSTILE, "params_b": 70.55, "max_context": 131072, "status": "current"}
    ]


def test_reads_public_views_only():
    assert FAMILY.not_views() == set()
    # the views pipeline/sql/plan/plan_options.sql reads count as the family's
    assert {"rentable_machines", "serving_gpus", "training_calibration", "vram_fit"} <= PLAN_VIEWS <= FAMILY.views


def test_chinese_edition():
    options = pd.DataFrame([option(i + 1) for i in range(TOP + 2)])
    options.loc[1, ["instance_gpus", "tensor_parallel", "replicas", "pricing_tier"]] = [8, 4, 2, "spot"]
    english = page(options)
    with i18n.use("zh"), i18n.scope(FAMILY.folder):
        text = page(options, weights=weights_label(Q, {"llama-3.3-70b": "bf16"}))
    assert text.startswith("---\nhide:\n  - toc\n---\n# 规划器\n")
    # labels translated; every id, name, value and data-* attribute as in English, the API one folder up
    assert (
        '<form class="atlas-form" id="planner-form" data-api="../../api/v1/plan/" data-engine="../../vendor/" aria-label="规划器选项" novalidate>'
        in text
    )
    assert 'data-api="../api/v1/plan/" data-engine="../vendor/" aria-label="Planner choices"' in english
    assert (
        '<label>并发用户数 <input name="users" type="number" min="1" max="4096" step="1" value="50" '
        'inputmode="decimal"></label>'
    ) in text
    assert '<label>计费方式 <select name="tier"></select></label>' in text
    assert (
        "<strong>Llama 3.3 70B Instruct</strong>，推理服务，按检查点格式的权重（BF16），BF16 KV 缓存，50 个并发用户，"
        "每个请求 2,000 个输入 token、500 个输出 token，上下文 8,192，按需价格：共 12 个方案，显示最便宜的 10 个。</p>"
    ) in text
    # the table: the same columns and figures as in English, its words translated
    assert '<th scope="col">#</th><th scope="col">机器</th><th scope="col">拆分</th><th scope="col">云厂商</th>' in text
    assert text.count('<th scope="col">') == english.count('<th scope="col">') == 13
    assert (
        '<tr id="planner-option-1"><td class="atlas-rank">1</td><td><span class="atlas-nowrap">2 ×</span> '
        '<a href="../gpus/nvidia-b200-sxm-180gb/">B200 SXM 180 GB</a></td><td>TP 2</td><td>lambda</td><td>按需</td>'
        '<td>$13.78</td><td title="上限 1,210">348</td><td title="上限 48.8">14.0</td><td title="上限 0.052">0.18</td>'
        "<td>$0.240</td><td>$4.532</td><td>$1.098</td>"
    ) in text
    assert "中位误差每 GPU 输出 token/s 为 11%；每用户 token/s 为 19%。" in text
    assert "B200 SXM 180 GB</a></td><td>TP 4 × 2 个副本</td><td>lambda</td><td>抢占式</td>" in text
    assert "B200 SXM 180 GB</a></td><td>TP 4 × 2 replicas</td><td>lambda</td><td>spot</td>" in english
    assert (
        "<strong>从 lambda 租用 2 × B200 SXM 180 GB，每小时 $13.78</strong>（按需列表价，2026-09-20）。 估算值，非实测"
        in text
    )
    assert "用命令行得到同样的结果：<code>gpu-atlas plan --model llama-3.3-70b" in text
    assert "100% 峰值" in text and "[实测与估算](measured.md)" in text and "(methodology.md#planner)" in text
    with i18n.use("zh"), i18n.scope(FAMILY.folder):  # as render_editions renders the family
        assert "没有满足条件的方案。" in page(options.iloc[:0])
        assert weights_label(Question(model="m", precision="fp8"), {}) == "FP8 权重"
        assert weights_label(Question(model="m"), {}) == "按检查点格式的权重（未知）"


def test_an_unmeasured_accelerator_is_marked():
    """An option on hardware no published serving figure covers (TPU, Trainium) marks its per-user speed and the
    table says why; options on measured GPUs carry no mark."""
    measured = (
        "calibrated: the engine family's efficiencies, fitted on published figures that include this architecture"
    )
    options = pd.DataFrame(
        [
            option(1, expectation_basis=measured),
            option(2, gpu_id="google-tpu-v6e-tpu-32gb", gpu_name="TPU v6e", expectation_basis="not measured: none"),
        ]
    )
    text = page(options)
    rows = {line.split('"')[1]: line for line in text.splitlines() if line.startswith('<tr id="planner-option-')}
    assert "†" in rows["planner-option-2"] and "†" not in rows["planner-option-1"]
    assert "† Not measured: no published serving figure covers this accelerator" in text
    assert "† Not measured" not in page(pd.DataFrame([option(1, expectation_basis=measured)]))


def test_the_answer_says_how_far_off_such_estimates_were_and_each_speeds_bound():
    """The first option's held-out errors (plan_options' expected_*_error: the calibration's median on publications it
    did not see) are said under the headline, a missing one left out; each speed's cell carries its bound."""
    text = page(pd.DataFrame([option(1), option(2)]))
    note = text.split('<p id="planner-accuracy" class="atlas-note">')[1].split("</p>")[0]
    assert "11% on output tokens/s per GPU; 19% on tokens/s per user." in note, note
    assert "first token" not in note
    assert 'title="bound 1,210">348</td>' in text and 'title="bound 0.052">0.18</td>' in text
    none = page(pd.DataFrame([option(1, expected_throughput_error=None, expected_per_user_error=None)]))
    assert "planner-accuracy" not in none
