"""The home page (`index.md`): the best GPU for training and for inference, the best value per dollar, the
cheapest way to serve three models to 50 users (each a link to the Planner), what the site holds, and the
cheapest current on-demand price of every GPU.

The Chinese edition shows, before those global prices, each GPU's cheapest on-demand price in the China-mainland
market (CNY, mainland providers); English shows the global ones only, as the Planner, estimates and rankings use."""

from __future__ import annotations

import datetime as dt

import duckdb
import pandas as pd

from pipeline.plan import Question, plan_options, validate

from .. import i18n
from ..family import Family
from ..i18n import N_, _
from ..planner import FAMILY as PLANNER
from ..planner import PLAN_VIEWS, question_url, weights_label

# the three answers are plan_options' (pipeline/sql/plan/plan_options.sql); a question is checked with the Planner's
# queries (max_contexts, native_formats)
FAMILY = Family(__file__, reads=PLAN_VIEWS)

HOME_QUESTIONS = [  # (question, the Planner's question)
    (
        N_("Cheapest way to serve gpt-oss-120b, as it ships (MXFP4 experts), to 50 users at 30 tokens/s each"),
        Question(
            model="gpt-oss-120b",
            precision="native",
            users=50,
            input_tokens=2000,
            output_tokens=500,
            min_tokens_per_user=30,
        ),
    ),
    (
        N_("Cheapest way to serve a 70B model to 50 users at 20 tokens/s each"),
        Question(
            model="llama-3.3-70b",
            precision="fp8",
            users=50,
            input_tokens=2000,
            output_tokens=500,
            min_tokens_per_user=20,
        ),
    ),
    (
        N_("Cheapest way to serve an 8B model to 50 users at 30 tokens/s each"),
        Question(
            model="llama-3.1-8b",
            precision="bf16",
            users=50,
            input_tokens=2000,
            output_tokens=500,
            min_tokens_per_user=30,
        ),
    ),
]
WORKLOADS = ("training", "inference")
WORKLOAD_WORDS = {"training": N_("training"), "inference": N_("inference")}  # translated where shown


def context(
    ranks: pd.DataFrame,
    counts,
    questions: list[tuple[str, Question]],
    options: pd.DataFrame,
    native_formats: dict[str, str],
    cheapest: pd.DataFrame,
    today: str,
    cheapest_china: pd.DataFrame | None = None,
) -> dict:
    """The page's values. `questions`: each home question with its validated Planner question; `options`:
    plan_options' rows for them (scenario_id = the question's position, from 1); `cheapest_china`: the
    China-mainland market's on-demand picks, shown first in the Chinese edition only."""
    best, value = [], []
    for workload in WORKLOADS:
        w = ranks[ranks.workload == workload]
        top = w[w["rank"] == w["rank"].min()]
        word = _(WORKLOAD_WORDS[workload])
        best.append({"workload": workload, "word": word, "gpus": list(top.itertuples()), "row": top.iloc[0]})
    for workload in WORKLOADS:
        w = ranks[(ranks.workload == workload) & ranks.value_rank.notna()]
        top = w[w.value_rank == w.value_rank.min()]
        word = _(WORKLOAD_WORDS[workload])
        row = top.iloc[0]
        held = (
            _("%(model)s at FP8 on at most %(n)s of them")
            if workload == "inference"
            else _("a full fine-tune of %(model)s on at most %(n)s of them")
        ) % {"model": row.reference_model_name, "n": row.value_max_gpus}
        value.append({"workload": workload, "word": word, "gpus": list(top.itertuples()), "row": row, "held": held})
    answers = []
    for i, (question, q) in enumerate(questions):
        opts = options[options.scenario_id == i + 1]
        answer = {"question": _(question), "q": q, "url": question_url(q), "best": None}
        if not opts.empty:
            best_option = opts.iloc[0]
            # options within 0.5% of the cheapest are a tie
            ties = opts[opts.usd_per_million_tokens <= 1.005 * best_option.usd_per_million_tokens]
            answer |= {
                "best": best_option,
                "ties": list(ties.head(3).itertuples()),
                "tie": len(ties) > 1,
                "weights": weights_label(q, native_formats),
            }
        answers.append(answer)
    return {
        "best": best,
        "value": value,
        "answers": answers,
        "counts": counts,
        "today": today,
        "cheapest": list(cheapest.itertuples()),
        # the Chinese edition: the China-mainland market's prices first, the global ones after them
        "cheapest_china": (
            list(cheapest_china.itertuples()) if i18n.current() == "zh" and cheapest_china is not None else []
        ),
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    max_contexts = {r.model_id: int(r.max_context) for r in PLANNER.rows(con, "max_contexts")}
    questions = [(text, validate(q, max_contexts)) for text, q in HOME_QUESTIONS]
    # the same in every edition: computed once (Family.once)
    options = FAMILY.once(
        ("options", tuple(q for _, q in questions)),
        lambda: plan_options(con, pd.DataFrame([q.scenario() for _, q in questions])),
        pd.DataFrame.copy,
    )
    ctx = context(
        FAMILY.frame(con, "rankings"),
        FAMILY.rows(con, "counts")[0],
        questions,
        options,
        {r.model_id: r.resolved_format for r in PLANNER.rows(con, "native_formats")},
        FAMILY.frame(con, "cheapest"),
        dt.date.today().isoformat(),
        FAMILY.frame(con, "cheapest_china"),
    )
    return {"index.md": FAMILY.render("index.md.j2", **ctx)}
