"""Each source's terms of use, recorded in its sidecar: checked, shown, and acted on (a source whose terms forbid
republication is refused; so is a fetcher, or a collected snapshot, whose terms forbid automated collection)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from pipeline import fetch
from pipeline.sources import check_terms

ROOT = Path(__file__).resolve().parents[2]
TERMS = {"url": "https://example.com/terms", "read_on": "2026-11-25", "automated_collection": "not-stated",
         "republication": "not-stated", "summary": "Section 4 says nothing about programs or republication."}


@pytest.mark.parametrize("change,field,message", [
    ({"republication": "forbidden"}, "terms.republication", "forbid republishing"),
    ({"automated_collection": "sometimes"}, "terms.automated_collection", "must be one of"),
    ({"read_on": "yesterday"}, "terms.read_on", "must be a date"),
    ({"url": "ftp://example.com"}, "terms.url", ""),
    ({"summary": ""}, "terms.summary", "missing"),
])
def test_terms_are_checked_and_a_forbidden_republication_is_refused(change, field, message):
    problems = check_terms({"kind": "provider_page", "terms": {**TERMS, **change}}, "x.source.yml")
    assert [p.column for p in problems] == [field]
    assert message in problems[0].rule


def test_a_collected_snapshot_against_its_terms_is_refused_and_a_copied_page_is_not():
    terms = {**TERMS, "automated_collection": "forbidden"}
    (problem,) = check_terms({"kind": "provider_api", "terms": terms}, "x.source.yml")
    assert problem.column == "terms.automated_collection" and "refused" in problem.rule
    assert check_terms({"kind": "price_tracker", "terms": terms}, "x.source.yml") == []


def test_a_fetcher_is_refused_before_any_request_when_the_terms_forbid_collection(tmp_path, monkeypatch):
    provider = "vastai"
    shutil.copytree(ROOT / "sources" / "prices" / provider, tmp_path / "prices" / provider)
    newest = sorted((tmp_path / "prices" / provider).glob("*/prices.source.yml"))[-1]
    meta = yaml.safe_load(newest.read_text(encoding="utf-8"))
    meta["terms"] = {**TERMS, "automated_collection": "forbidden", "summary": "No robots (section 9)."}
    newest.write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    monkeypatch.setattr(fetch, "fetch_regions", lambda *a, **k: pytest.fail("a request was made"))
    with pytest.raises(fetch.FetchError, match=r"vastai: refused.*forbid automated collection: No robots"):
        fetch.may_collect(tmp_path, provider)
