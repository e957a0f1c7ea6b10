"""The site's Sources section: where the figures come from, where sources conflict, and what no source publishes.
Three pages: the Source list (`sources.md`), Sources and conflicts (`conflicts.md`) and Coverage (`coverage.md`).

- `sources.md`: every snapshot file and cited document, the kinds of source the canonical figures come from, and
  each publisher's terms of use as read.
- `conflicts.md`: every figure printed in the seed articles, classified against the canonical value (agrees,
  sparse figure, other rate, ..., unexplained), the classes of the datasheet and dataset figures, and the articles'
  model memory claims against our computation.
- `coverage.md`: the canonical GPU figures no source publishes, the provider GPU names not mapped to a variant,
  and the model config fields missing.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from ..family import Family
from ..labels import KIND_LABELS

FAMILY = Family(__file__)


def host(url: str) -> str:
    """The address of a page without its scheme, for a short link text."""
    return url.split("://", 1)[-1].removeprefix("www.")


def context(sources: pd.DataFrame, kinds: pd.DataFrame) -> dict:
    """The Source list's values (`sources.md.j2`)."""
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
    return {
        "sources": [
            {
                "row": s,
                "kind": KIND_LABELS.get(s.kind, s.kind),
                "terms_number": number.get((s.terms_url, s.terms_summary)) if isinstance(s.terms_url, str) else None,
                "file": str(s.file).removeprefix("sources/"),
            }
            for s in sources.itertuples()
        ],
        "kinds": [
            {"kind": KIND_LABELS.get(k.source_kind, k.source_kind), "n": int(k.n), "share": k.n / total}
            for k in kinds.itertuples()
        ],
        "total": total,
        "terms": [{"row": t, "host": host(t.terms_url), "number": i + 1} for i, t in enumerate(terms.itertuples())],
    }


def conflicts_context(claims: pd.DataFrame, figure_classes: pd.DataFrame, model_claims: pd.DataFrame) -> dict:
    """Sources and conflicts' values (`conflicts.md.j2`)."""
    # the article claims by class, the commonest first (ties by name)
    counts = claims.groupby("classification").size()
    return {
        "claims": list(claims.itertuples(index=False)),
        "classes": sorted(((str(k), int(n)) for k, n in counts.items()), key=lambda kn: (-kn[1], kn[0])),
        "figure_classes": list(figure_classes.itertuples(index=False)),
        "model_claims": list(model_claims.itertuples(index=False)),
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
    return {
        "sources.md": FAMILY.render("sources.md.j2", **sources),
        "conflicts.md": FAMILY.render("conflicts.md.j2", **conflicts),
        "coverage.md": FAMILY.render("coverage.md.j2", **coverage),
    }
