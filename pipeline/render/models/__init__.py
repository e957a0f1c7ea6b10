"""The Models page (`models.md`): every LLM of the catalogue with its parameter count computed from the official
config by component and checked against the model card, its status, and its architecture (layer layout, checkpoint
format, attention, experts)."""

from __future__ import annotations

import duckdb
import pandas as pd

from ..family import Family
from ..i18n import _

FAMILY = Family(__file__)


def model_status(m, names: dict) -> str:
    """'current', 'legacy' or 'superseded by <its successor>' (plain text: the template escapes it)."""
    if m.status == "superseded":
        return _("superseded by %(model)s") % {"model": names.get(m.superseded_by, m.superseded_by)}
    return {"current": _("current"), "legacy": _("legacy")}.get(m.status, m.status)


def layer_layout(m) -> str:
    """How a model's layers attend, in words: '18 full + 18 sliding (128 tokens), sinks' (plain text)."""
    parts = []
    full = int(m.layers) - int(m.window_layers) - int(m.linear_attention_layers)
    full_kind = "MLA" if m.attention_kind == "mla" else _("full")
    parts.append(f"{full} {full_kind}")
    if m.window_layers:
        kind = {"sliding": _("sliding"), "chunked": _("chunked")}.get(m.window_kind, m.window_kind)
        window = _("%(n)s tokens") % {"n": f"{int(m.sliding_window):,}"}
        parts.append(f"{int(m.window_layers)} {kind} ({window})")
    if m.linear_attention_layers:
        linear = _("linear (Gated DeltaNet)")
        parts.append(f"{int(m.linear_attention_layers)} {linear}")
    extras = [
        label
        for flag, label in (
            (m.attention_sinks, _("sinks")),
            (pd.notna(m.index_head_dim), _("sparse-attention indexer")),
            (m.mtp_layers, f"+{int(m.mtp_layers)} MTP"),
        )
        if flag
    ]
    return " + ".join(parts) + (_(", ") + _(", ").join(extras) if extras else "")


def context(models: pd.DataFrame) -> dict:
    noted = [m.model_id for m in models.itertuples() if isinstance(m.params_note, str)]
    number = {model_id: i for i, model_id in enumerate(noted, start=1)}
    names = dict(zip(models.model_id, models.name))
    rows = [
        {
            "row": m,
            "note": number.get(m.model_id),
            "status": model_status(m, names),
            "difference": "–" if pd.isna(m.params_deviation) else f"{m.params_deviation:+.2%}",
            "layout": layer_layout(m),
            "experts": (m.num_experts, m.experts_per_token) if pd.notna(m.num_experts) else None,
        }
        for m in models.itertuples()
    ]
    return {
        "models": rows,
        "current": int(models.is_current.sum()),
        "notes": [r for r in rows if r["note"]],
    }


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    return {"models.md": FAMILY.render("models.md.j2", **context(FAMILY.frame(con, "models")))}
