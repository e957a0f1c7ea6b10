"""The site's Sources section: where the figures come from, where sources conflict, and what no source publishes.

- `sources/index.md` (the Source list): how many sources there are, one row per register, the kinds of source the
  canonical figures come from, and how terms of use are recorded.
- `sources/<register>.md`: one register per kind of data (GPU specifications, Models, Prices, Measurements; by the
  folder of `sources/` a snapshot file is in, `REGISTERS`): every snapshot file and cited document of that kind. A
  price refresh rewrites the Prices register only, and a reader looking for a datasheet does not page through
  price lists.
- `sources/terms.md`: each publisher's terms of use as read, numbered; a register's row names its entry.
- `conflicts.md`: every figure printed in the seed articles, classified against the canonical value (agrees,
  sparse figure, other rate, ..., unexplained), the classes of the datasheet and dataset figures, and the articles'
  model memory claims against our computation.
- `coverage.md`: the canonical GPU figures no source publishes, the provider GPU names not mapped to a variant,
  and the model config fields missing.

In the Chinese edition the words for values (classes, terms, the explanations the pipeline writes) are translated
where shown; what a source wrote (terms summaries, printed figures) stays as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb
import pandas as pd

from ..family import Family
from ..i18n import N_, _
from ..labels import CLASSIFICATIONS, words

FAMILY = Family(__file__)

# words for values of the views, translated where shown (a value not listed prints as it is)
# sources.terms_automated_collection and terms_republication
TERMS = {"allowed": N_("allowed"), "forbidden": N_("forbidden"), "not-stated": N_("not-stated")}
# the rate a figure is of (spec_claims' ref_label, in explanations)
RATES = {
    "vector": N_("vector"),
    "tensor": N_("tensor"),
    "dense": N_("dense"),
    "sparse": N_("sparse"),
    "fp16-accumulate sparse": N_("fp16-accumulate sparse"),
}
# model_claims.classification: what a claimed figure matches (out_model_claims.sql)
MODEL_MATCHES = {"weights only": N_("weights only"), "full inference requirement": N_("full inference requirement")}
MODEL_CLASSES = {
    "no model named": N_("no model named"),
    "no figure": N_("no figure"),
    "unexplained": N_("unexplained"),
}
NUMBER = r"-?[\d.,]+(?:e[+-]?\d+)?"


@dataclass(frozen=True)
class Register:
    """One page of the Source list: the sources whose snapshot file is under one of `folders` of `sources/`."""

    slug: str  # the page: sources/<slug>.md
    title: str  # marked for translation, translated where shown
    about: str  # what it holds, after "n sources: "
    folders: tuple[str, ...]


REGISTERS = (
    Register(
        "specs",
        N_("GPU specifications"),
        N_(
            "the vendor documents, faithful copies of them, GPU databases, resellers, blogs and articles the GPU "
            "figures come from, and the seed articles whose printed figures are checked"
        ),
        ("specs", "claims"),
    ),
    Register("models", N_("Models"), N_("the official model configs the memory and speed estimates read"), ("models",)),
    Register(
        "prices",
        N_("Prices"),
        N_(
            "every provider's dated price snapshots, the tables that map their GPU names to variants, and the "
            "exchange rates"
        ),
        ("prices", "fx"),
    ),
    Register(
        "measurements",
        N_("Measurements"),
        N_("the published speed measurements the estimates are checked against"),
        ("measurements",),
    ),
)
REGISTER_OF_FOLDER = {folder: r for r in REGISTERS for folder in r.folders}


def register_of(file: str) -> Register:
    """The register of a snapshot file (`sources/<folder>/...`)."""
    parts = str(file).split("/")
    folder = parts[1] if len(parts) > 2 and parts[0] == "sources" else ""
    if folder not in REGISTER_OF_FOLDER:
        raise ValueError(
            f"source file {file!r}: its folder {folder!r} is in no register of the Source list "
            "(pipeline/render/sources/__init__.py, REGISTERS)"
        )
    return REGISTER_OF_FOLDER[folder]


def _rate(label: str) -> str:
    return _(RATES[label]) if label in RATES else label


def explanation(text) -> tuple[str, bool]:
    """A claim's explanation (written by core_spec_claims.sql) in the current locale, and whether it is translated:
    an explanation of no known form is shown as written (in English)."""
    if not isinstance(text, str):
        return text, True
    if text == "matches the canonical figure":
        return _("matches the canonical figure"), True
    if text == "no canonical figure to compare with":
        return _("no canonical figure to compare with"), True
    if m := re.fullmatch(rf"sparse figure: 2 x the dense ({NUMBER})", text):
        return _("sparse figure: 2 x the dense %(value)s") % {"value": m[1]}, True
    if (m := re.fullmatch(rf"the (.+) rate \(({NUMBER})\), not the canonical rate", text)) and m[1] in RATES:
        return _("the %(rate)s rate (%(value)s), not the canonical rate") % {"rate": _rate(m[1]), "value": m[2]}, True
    if (m := re.fullmatch(rf"equals the (\S+) (.+) figure \(({NUMBER})\)", text)) and m[2] in RATES:
        found = {"precision": m[1], "rate": _rate(m[2]), "value": m[3]}
        return _("equals the %(precision)s %(rate)s figure (%(value)s)") % found, True
    if m := re.fullmatch(rf"figure of another variant: (.+) \(({NUMBER}), sparse\)", text):
        return _("figure of another variant: %(gpu)s (%(value)s, sparse)") % {"gpu": m[1], "value": m[2]}, True
    if m := re.fullmatch(rf"figure of another variant: (.+) \(({NUMBER})\)", text):
        return _("figure of another variant: %(gpu)s (%(value)s)") % {"gpu": m[1], "value": m[2]}, True
    if m := re.fullmatch(r"figure of another variant: ([^()]+)", text):
        return _("figure of another variant: %(gpu)s") % {"gpu": m[1]}, True
    if m := re.fullmatch(
        rf"unexplained: the canonical figure is ({NUMBER}); the claim differs by ([+-]\d+)% and no rule links the two",
        text,
    ):
        found = {"value": m[1], "difference": m[2]}
        return _(
            "unexplained: the canonical figure is %(value)s; the claim differs by %(difference)s%% and no rule links "
            "the two"
        ) % found, True
    if m := re.fullmatch(r"unexplained: the canonical figure is ([^;]+)", text):
        return _("unexplained: the canonical figure is %(value)s") % {"value": m[1]}, True
    return text, False


def model_class(text) -> str:
    """A model memory claim's class (written by out_model_claims.sql) in the current locale: 'matches weights only
    at bf16'."""
    if not isinstance(text, str):
        return text
    if text in MODEL_CLASSES:
        return _(MODEL_CLASSES[text])
    if (m := re.fullmatch(r"matches (.+) at (\S+)( without scales)?", text)) and m[1] in MODEL_MATCHES:
        found = {"what": _(MODEL_MATCHES[m[1]]), "precision": m[2]}
        if m[3]:
            return _("matches %(what)s at %(precision)s without scales") % found
        return _("matches %(what)s at %(precision)s") % found
    return text


# characters of the Chinese, Japanese and Korean scripts (and their full-width punctuation)
CJK = re.compile(r"[\u3000-\u303f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]")
LATIN = re.compile(r"[A-Za-z]")


def in_english(text) -> bool:
    """Whether a source's text (publisher, title) is mostly English, a few names in another script aside: shown as
    written, it is marked `lang="en"` in another edition; a title written in Chinese or Japanese is not."""
    if not isinstance(text, str):
        return False
    latin = len(LATIN.findall(text))
    return latin > 0 and latin > 2 * len(CJK.findall(text))


def host(url: str) -> str:
    """The address of a page without its scheme, for a short link text."""
    return url.split("://", 1)[-1].removeprefix("www.")


def context(sources: pd.DataFrame, kinds: pd.DataFrame) -> dict:
    """The Source list's values: its overview (`sources.md.j2`), its registers (`register.md.j2`, one page each) and
    the terms of use (`terms.md.j2`)."""
    # each publisher's terms once, numbered; a source's row names its entry
    terms = (
        sources.dropna(subset=["terms_url"])
        .drop_duplicates(["terms_url", "terms_summary"])[
            ["terms_url", "terms_read_on", "terms_automated_collection", "terms_republication", "terms_summary"]
        ]
        .reset_index(drop=True)
    )
    number = {(t.terms_url, t.terms_summary): i + 1 for i, t in enumerate(terms.itertuples())}
    total = int(kinds.n.sum())
    rows: dict[str, list[dict]] = {r.slug: [] for r in REGISTERS}
    for s in sources.itertuples():
        rows[register_of(s.file).slug].append(
            {
                "row": s,
                "kind": s.kind,
                "publisher_in_english": in_english(s.publisher),
                "title_in_english": in_english(s.title),
                "terms_number": number.get((s.terms_url, s.terms_summary)) if isinstance(s.terms_url, str) else None,
                "file": str(s.file).removeprefix("sources/"),
            }
        )
    return {
        "count": len(sources),
        "registers": [{"slug": r.slug, "title": r.title, "about": r.about, "sources": rows[r.slug]} for r in REGISTERS],
        "kinds": [{"kind": k.source_kind, "n": int(k.n), "share": k.n / total} for k in kinds.itertuples()],
        "total": total,
        "terms": [{"row": t, "host": host(t.terms_url), "number": i + 1} for i, t in enumerate(terms.itertuples())],
        "term_words": words(TERMS),
    }


def conflicts_context(claims: pd.DataFrame, figure_classes: pd.DataFrame, model_claims: pd.DataFrame) -> dict:
    """Sources and conflicts' values (`conflicts.md.j2`)."""
    # the article claims by class, the commonest first (ties by name)
    counts = claims.groupby("classification").size()
    class_words = words(CLASSIFICATIONS)
    return {
        "claims": [{"row": c, "explanation": explanation(c.explanation)} for c in claims.itertuples(index=False)],
        "classes": sorted(((str(k), int(n)) for k, n in counts.items()), key=lambda kn: (-kn[1], kn[0])),
        "figure_classes": list(figure_classes.itertuples(index=False)),
        # 'canonical 578, agrees 166, ...' (plain text: the template escapes it)
        "figure_summary": _(", ").join(
            f"{class_words.get(r.classification, r.classification)} {r.n}" for r in figure_classes.itertuples()
        ),
        "model_claims": [
            {"row": c, "classification": model_class(c.classification)} for c in model_claims.itertuples(index=False)
        ],
        "class_words": class_words,
    }


def coverage_context(coverage: pd.DataFrame, unmapped: pd.DataFrame, model_gaps: pd.DataFrame) -> dict:
    """Coverage's values (`coverage.md.j2`)."""
    return {
        "coverage": list(coverage.itertuples(index=False)),
        "unmapped": list(unmapped.itertuples(index=False)),
        "model_gaps": list(model_gaps.itertuples(index=False)),
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    sources = context(FAMILY.frame(con, "sources"), FAMILY.frame(con, "canonical_kinds"))
    conflicts = conflicts_context(
        FAMILY.frame(con, "article_claims"), FAMILY.frame(con, "figure_classes"), FAMILY.frame(con, "model_claims")
    )
    coverage = coverage_context(
        FAMILY.frame(con, "coverage"), FAMILY.frame(con, "unmapped_offers"), FAMILY.frame(con, "model_gaps")
    )
    pages = {
        "sources/index.md": FAMILY.render("sources.md.j2", **sources),
        "sources/terms.md": FAMILY.render("terms.md.j2", **sources),
    }
    for register in sources["registers"]:
        pages[f"sources/{register['slug']}.md"] = FAMILY.render("register.md.j2", register=register, **sources)
    return pages | {
        "conflicts.md": FAMILY.render("conflicts.md.j2", **conflicts),
        "coverage.md": FAMILY.render("coverage.md.j2", **coverage),
    }
