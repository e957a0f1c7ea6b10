"""The VRAM-fit page (`vram-fit.md`): which models fit on which GPUs and how many GPUs each needs, with an explorer
(one model, weight format and context against every GPU) and three heatmaps; the explorer's and heatmaps' data are
JSON files under `charts/` loaded by the page, so the page stays small.

The JSON files are written once, in English (they hold names and numbers only); the Chinese edition's page, one
folder deeper, loads them from the site's root."""

from __future__ import annotations

import json

import duckdb
import pandas as pd

from .. import charts, i18n
from ..family import Family, param_values
from ..i18n import N_, _
from ..markdown import chart_data

FAMILY = Family(__file__)

# the heatmaps, in page order: their query and title (translated where shown)
HEATMAPS = [
    ("heat_inference", N_("inference, FP8 weights, 4k context, batch 1")),
    ("heat_lora", N_("LoRA fine-tune, full recomputation, 4k context")),
    ("heat_full", N_("full fine-tune, mixed-precision AdamW, selective recomputation")),
]
PRECISIONS = ["fp32", "bf16", "fp8", "int8", "int4"]


def _rounded(value, digits: int):
    """A number for JSON: rounded, or null when missing."""
    return None if value is None or pd.isna(value) else round(float(value), digits)


def context(
    models: pd.DataFrame, gpus: pd.DataFrame, params, required: pd.DataFrame, heats: list[pd.DataFrame]
) -> dict:
    """The page's headings and chart specs, and `files`: {path: JSON text} of the explorer and each heatmap."""
    values = param_values(params)
    contexts = [int(c) for c in json.loads(values["inference_contexts"])]
    explorer = {
        "default": {"model": values["reference_model"], "precision": "fp8", "context": contexts[0]},
        "models": [
            {"model_id": m.model_id, "name": m.name, "params_b": _rounded(m.params_b, 1)} for m in models.itertuples()
        ],
        "precisions": PRECISIONS,
        "contexts": contexts,
        "gpus": [
            {"gpu_id": g.gpu_id, "name": g.name, "usable_gb": round(float(g.usable_gb), 2)} for g in gpus.itertuples()
        ],
        "required": {
            r.key: [
                _rounded(r.required_gb, 2),
                _rounded(r.weights_gb, 2),
                _rounded(r.kv_cache_gb, 3),
                [None if n is None else int(n) for n in r.gpus_needed.tolist()],  # a masked value: None
            ]
            for r in required.itertuples()
        },
    }
    files = {"charts/vram-fit-explorer.json": json.dumps(explorer, separators=(",", ":"))}
    heatmaps = []
    for i, ((_query, label), fit) in enumerate(zip(HEATMAPS, heats)):
        said = _(label)
        title = _("GPUs needed: %(scenario)s") % {"scenario": said}
        # the data file is the English edition's, at the site's root (a page sits in its own folder)
        spec, data = chart_data(charts.fit_heatmap(fit, title), f"../{i18n.root()}charts/vram-fit-heat-{i}.json")
        files[f"charts/vram-fit-heat-{i}.json"] = data
        # the heading: the English label in sentence case as it always was; a translation as it is written
        heading = label.capitalize() if i18n.current() == i18n.DEFAULT else said
        heatmaps.append({"title": heading, "name": f"heat-{i}", "spec": spec})
    return {"heatmaps": heatmaps, "files": files}


def render(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    ctx = context(
        FAMILY.frame(con, "models"),
        FAMILY.frame(con, "gpus"),
        FAMILY.rows(con, "parameters"),
        FAMILY.frame(con, "required"),
        [FAMILY.frame(con, query) for query, _ in HEATMAPS],
    )
    return {"vram-fit.md": FAMILY.render("vram-fit.md.j2", **ctx), **ctx["files"]}
