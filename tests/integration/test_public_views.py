"""The public views and what the build publishes beside them: every column documented, keys that tell rows apart,
valid charts and the build summary."""

from __future__ import annotations

import json
import re

import duckdb
import pytest

from pipeline.contract import VIEWS, column_doc

pytestmark = pytest.mark.integration


def test_every_view_column_is_documented(db):
    missing = []
    for view in VIEWS:
        for col, *_rest in db.execute(f"describe {view}").fetchall():
            if not column_doc(view, col):
                missing.append(f"{view}.{col}")
    assert missing == []


def test_a_declared_key_leads_its_view_and_tells_every_row_apart(db):
    """The downloads sort a view with a declared key by it alone: that is the order of every column only when the
    key is the view's leading columns and no two rows share it."""
    from pipeline.contract import VIEW_KEYS

    assert VIEW_KEYS  # vram_fit declares one
    for view, key in VIEW_KEYS.items():
        columns = [row[0] for row in db.execute(f"describe {view}").fetchall()]
        assert columns[: len(key)] == key, view
        rows, distinct = db.execute(f"select count(*), count(distinct ({', '.join(key)})) from {view}").fetchone()
        assert rows == distinct and rows > 0, view


def test_every_published_chart_is_a_valid_vega_lite_spec(built_site):
    """Charts are not validated while the build renders them (speed): every spec embedded in a page, in both
    editions, is checked against the Vega-Lite schema of the vendored version here."""

    import jsonschema
    from altair.vegalite.v6.schema import core

    schema = core.load_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    spec_element = re.compile(r'<script type="application/json" class="atlas-spec"[^>]*>(.*?)</script>', re.S)
    checked, invalid = {"en": 0, "zh": 0}, []
    for page in sorted(built_site["site"].rglob("*.html")):
        rel = page.relative_to(built_site["site"])
        for text in spec_element.findall(page.read_text(encoding="utf-8")):
            errors = [e.message[:200] for e in validator.iter_errors(json.loads(text))]
            if errors:
                invalid.append(f"{rel}: {errors[0]}")
            checked["zh" if rel.parts[0] == "zh" else "en"] += 1
    assert invalid == []
    # GPU pages' price histories, rankings, fit heatmaps, prices: the same charts in both editions
    assert checked["en"] == checked["zh"] >= 30


def test_build_summary_counts(built_site):
    outcome = built_site["outcome"]
    assert outcome.ok and outcome.checks_passed >= 8
    assert "site" in outcome.materialized and "public_views" in outcome.materialized
    assert (built_site["site"] / "index.html").exists()
    download = built_site["site"] / "downloads" / "gpu_atlas.duckdb"
    with duckdb.connect(str(download), read_only=True) as con:  # the published copy is a whole, readable database
        assert con.execute("select count(*) from gpus").fetchone()[0] >= 40
        assert con.execute("select count(*) from vram_fit").fetchone()[0] > 100_000
