"""The Source list (`sources.md`): every snapshot file and cited document, the kinds of source the canonical
figures come from, and each publisher's terms of use as read."""

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


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    ctx = context(FAMILY.frame(con, "sources"), FAMILY.frame(con, "canonical_kinds"))
    return {"sources.md": FAMILY.render("sources.md.j2", **ctx)}
