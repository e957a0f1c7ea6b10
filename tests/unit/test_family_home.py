"""The home page's family: the answers table (best GPUs, best value, three serving questions) and the cheapest
on-demand prices, from hand-made rows (no database); text from data comes out escaped."""

from types import SimpleNamespace

import pandas as pd

from pipeline.plan import Question
from pipeline.render import i18n
from pipeline.render.home import FAMILY, HOME_QUESTIONS, context
from pipeline.render.planner import PLAN_VIEWS

HOSTILE = "<script>x</script> *a* |b"
ESCAPED = "&lt;script&gt;x&lt;/script&gt; \\*a\\* &#124;b"
COUNTS = SimpleNamespace(gpus=69, providers=27, offers=627, models=57, newest="2026-11-23", claims=153)
NAN = float("nan")


def ranks(name_a: str = "GB300") -> pd.DataFrame:
    columns = [
        "workload",
        "rank",
        "gpu_id",
        "name",
        "score",
        "value_rank",
        "cheapest_usd_per_gpu_hour",
        "score_per_usd",
    ]
    rows = [
        ("training", 1, "a", name_a, 99.81, 3, 10.2, 9.8),
        ("training", 2, "b", "A40", 14.04, 1, 0.42, 33.6123),
        ("inference", 1, "a", name_a, 100.0, NAN, NAN, NAN),
        ("inference", 1, "c", "GB200", 100.0, 2, 10.5, 9.5),
        ("inference", 3, "b", "A40", 12.1, 1, 0.15, 80.3),
    ]
    frame = pd.DataFrame(rows, columns=columns)
    # the reference model value is ranked by, and on how many GPUs at most it must fit
    frame["reference_model_name"] = frame.workload.map({"training": "Llama 3.1 8B", "inference": "Llama 3.3 70B"})
    frame["value_max_gpus"] = 2
    return frame


def options(provider: str = "lambda") -> pd.DataFrame:
    base = {
        "scenario_id": 2,
        "instance_gpus": 2,
        "gpu_id": "nvidia-b200-sxm-180gb",
        "gpu_name": "B200 SXM 180 GB",
        "provider": provider,
        "model_name": "Llama 3.3 70B Instruct",
        "usd_per_million_tokens": 1.0,
        "usd_per_million_input_tokens": 0.1203,
        "usd_per_million_output_tokens": 2.834,
        "expected_tokens_per_s_per_user": 23.4,
        "usd_per_hour": 13.78,
        "observed_on": "2026-09-20",
        "observed_date_known": True,
    }
    return pd.DataFrame(
        [base, base | {"provider": "verda", "usd_per_million_tokens": 1.004}, base | {"usd_per_million_tokens": 2.0}]
    )


def cheapest(name: str = "H100 SXM 80 GB", offering: str = "NVIDIA H100 SXM") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "gpu_id": "nvidia-h100-sxm-80gb",
                "name": name,
                "usd_per_gpu_hour": 2.69,
                "provider": "jarvislabs",
                "offering": offering,
                "observed_on": "2026-11-22",
                "observed_date_known": False,
            }
        ]
    )


def page(ranks_=None, options_=None, cheapest_=None, formats=None) -> str:
    questions = [(text, Question(**{**q.__dict__, "context": 8192})) for text, q in HOME_QUESTIONS]
    ctx = context(
        ranks() if ranks_ is None else ranks_,
        COUNTS,
        questions,
        options() if options_ is None else options_,
        formats or {},
        cheapest() if cheapest_ is None else cheapest_,
        "2026-11-25",
    )
    return FAMILY.render("index.md.j2", **ctx)


def test_answers():
    text = page()
    assert (
        "| Best GPU for training | [GB300](gpus/a.md) | highest training score, 99.8 of 100 ([how it is scored](training.md)) |"
        in text
    )
    assert (
        "| Best GPU for inference | [GB300](gpus/a.md) and [GB200](gpus/c.md) (a tie) | highest inference score, 100.0"
        in text
    )
    assert (
        "| Best training value per dollar | [A40](gpus/b.md) | training score 14.0 ÷ cheapest on-demand $0.42/GPU-hour "
        "= 33.6 points per $, the highest among the GPUs that hold a full fine-tune of Llama 3.1 8B on at most 2 of them |"
    ) in text
    # the first question has no option: a link to the Planner
    assert (
        "| Cheapest way to serve gpt-oss-120b, as it ships (MXFP4 experts), to 50 users at 30 tokens/s each | no rentable "
        'machine holds it | <a href="planner/?model=gpt-oss-120b&amp;workload=serve&amp;precision=native'
    ) in text
    # the second: two options within 0.5% of the cheapest are a tie, the third is not
    assert (
        "| 2 × [B200 SXM 180 GB](gpus/nvidia-b200-sxm-180gb.md) on lambda or 2 × [B200 SXM 180 GB]"
        "(gpus/nvidia-b200-sxm-180gb.md) on verda (a tie) | Llama 3.3 70B Instruct, FP8 weights, 50 users, 2,000 input / "
        "500 output tokens: $0.120 per million input and $2.83 per million output tokens, 23 tokens/s per user expected, "
        '$13.78/hour, price of <time class="atlas-age" datetime="2026-09-20">2026-09-20</time>; <a href="planner/?'
        "model=llama-3.3-70b&amp;workload=serve&amp;precision=fp8&amp;kv=bf16&amp;context=8192&amp;users=50&amp;"
        'input=2000&amp;output=500&amp;engine=vllm-sglang&amp;tier=on-demand&amp;min_user=20">other options in the '
        "Planner</a> |"
    ) in text
    assert (
        "**69 GPU variants · 57 models · 627 offers from 27 providers · 153 article claims checked.** Built 2026-11-25; "
        "newest price snapshot 2026-11-23."
    ) in text
    assert '<div class="atlas-sortable" markdown="1">' in text
    assert (
        "| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | $2.690 | jarvislabs | NVIDIA H100 SXM | undated copy, read "
        "2026-11-22 |"
    ) in text
    assert text.endswith("</div>\n\n")


def test_text_from_data_is_escaped():
    text = page(ranks(HOSTILE), options(HOSTILE), cheapest(HOSTILE, HOSTILE))
    assert "<script>" not in text
    assert f"| Best GPU for training | [{ESCAPED}](gpus/a.md) |" in text
    assert f"on {ESCAPED} or 2 ×" in text
    assert f"| [{ESCAPED}](gpus/nvidia-h100-sxm-80gb.md) | $2.690 | jarvislabs | {ESCAPED} |" in text


def test_reads_public_views_only():
    assert FAMILY.not_views() == set()
    assert PLAN_VIEWS <= FAMILY.views  # the answers come from plan_options.sql
    assert {"rankings", "price_picks", "spec_claims"} <= FAMILY.views


def cheapest_china() -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "gpu_id": "nvidia-h20-sxm-96gb",
                "name": "H20 SXM 96 GB (China market)",
                "cny_per_gpu_hour": 10.5,
                "usd_per_gpu_hour": 1.5455,
                "provider": "autodl",
                "offering": HOSTILE,
                "observed_on": "2026-10-04",
                "observed_date_known": True,
            }
        ]
    )


def page_with_china(locale: str) -> str:
    questions = [(text, Question(**{**q.__dict__, "context": 8192})) for text, q in HOME_QUESTIONS]
    with i18n.use(locale):
        ctx = context(ranks(), COUNTS, questions, options(), {}, cheapest(), "2026-11-25", cheapest_china())
        return FAMILY.render("index.md.j2", **ctx)


def test_english_shows_the_global_prices_only():
    assert page_with_china("en") == page()  # the China-mainland picks are for the Chinese edition


def test_chinese_edition_shows_the_china_market_first():
    text = page_with_china("zh")
    assert text.startswith("# GPU Atlas\n\n训练或部署一个模型")
    assert "## 答案\n\n| 问题 | 答案 | 依据 |\n|---|---|---|\n" in text
    assert (
        "| 最适合推理的 GPU | [GB300](gpus/a.md) 和 [GB200](gpus/c.md) （并列） | 推理得分最高，100.0 分（满分 100，"
        "[评分方法](inference.md)） |"
    ) in text
    assert (
        "| 训练每美元性价比最高 | [A40](gpus/b.md) | 训练得分 14.0 ÷ 最低按需价格 $0.42/GPU 小时 = 每美元 33.6 分"
        in text
    )
    assert "50 个用户，输入 2,000 / 输出 500 token：每百万输入 token $0.120" in text
    assert "**69 个 GPU 型号 · 57 个模型 · 来自 27 家云厂商的 627 条报价 · 核对了 153 条文章中的说法。**" in text
    # the China-mainland market's prices first (CNY and USD), then the global ones, with the same figures
    china, world = text.index("## 中国大陆市场："), text.index("## 全球市场：")
    assert china < world
    assert "| GPU | 元/GPU 小时 | $/GPU 小时 | 云厂商 | 产品 | 观测日期 |\n|---|---|---|---|---|---|\n" in text
    row = f"| [H20 SXM 96 GB（中国市场版）](gpus/nvidia-h20-sxm-96gb.md) | 10.50 | $1.546 | autodl | {ESCAPED} |"
    assert china < text.index(row) < world
    assert text.index("| [H100 SXM 80 GB](gpus/nvidia-h100-sxm-80gb.md) | $2.690 | jarvislabs |") > world
    assert "<script>" not in text
