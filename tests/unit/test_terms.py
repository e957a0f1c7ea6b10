"""Each source's terms of use, recorded in its sidecar: checked, shown, and acted on (a source whose terms forbid
republication is refused; so is a fetcher, or a collected snapshot, whose terms forbid automated collection)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from pipeline import fetch
from pipeline.sourcefiles import KINDS, TERMS_FILE, check_terms, discover, load_terms, read_sidecar

ROOT = Path(__file__).resolve().parents[2]
TERMS = {
    "url": "https://example.com/terms",
    "read_on": "2026-11-25",
    "automated_collection": "not-stated",
    "republication": "not-stated",
    "summary": "Section 4 says nothing about programs or republication.",
}


@pytest.mark.parametrize(
    "change,field,message",
    [
        ({"republication": "forbidden"}, "terms.republication", "forbid republishing"),
        ({"automated_collection": "sometimes"}, "terms.automated_collection", "must be one of"),
        ({"read_on": "yesterday"}, "terms.read_on", "must be a date"),
        ({"url": "ftp://example.com"}, "terms.url", ""),
        ({"summary": ""}, "terms.summary", "missing"),
    ],
)
def test_terms_are_checked_and_a_forbidden_republication_is_refused(change, field, message):
    problems = check_terms({"kind": "provider_page", "terms": {**TERMS, **change}}, "x.source.yml")
    assert [p.column for p in problems] == [field]
    assert message in problems[0].rule


def test_a_collected_snapshot_against_its_terms_is_refused_and_a_typed_copy_is_not():
    terms = {**TERMS, "automated_collection": "forbidden"}
    for meta in ({"kind": "provider_api"}, {"kind": "price_tracker", "collected_by": "program"}):
        (problem,) = check_terms({**meta, "terms": terms}, "x.source.yml")
        assert problem.column == "terms.automated_collection" and "refused" in problem.rule
    assert check_terms({"kind": "price_tracker", "collected_by": "person", "terms": terms}, "x.source.yml") == []
    (problem,) = check_terms({"kind": "price_tracker", "collected_by": "robot", "terms": TERMS}, "x.source.yml")
    assert problem.column == "collected_by"


def _copy_with_registry(tmp_path: Path, provider: str, registry: dict) -> Path:
    shutil.copytree(ROOT / "sources" / "prices" / provider, tmp_path / "prices" / provider)
    (tmp_path / TERMS_FILE).write_text(yaml.safe_dump(registry, sort_keys=False), encoding="utf-8")
    return tmp_path


def test_a_fetcher_is_refused_before_any_request_when_the_terms_forbid_collection(tmp_path, monkeypatch):
    root = _copy_with_registry(
        tmp_path, "aws", {"aws": {**TERMS, "automated_collection": "forbidden", "summary": "No robots (section 9)."}}
    )
    monkeypatch.setattr(fetch, "fetch_regions", lambda *a, **k: pytest.fail("a request was made"))
    with pytest.raises(fetch.FetchError, match=r"aws: refused.*terms\.yml.*forbid automated collection: No robots"):
        fetch.may_collect(root, "aws")
    (root / TERMS_FILE).write_text(yaml.safe_dump({"aws": TERMS}), encoding="utf-8")
    assert fetch.may_collect(root, "aws")["url"] == TERMS["url"]


def test_a_sidecar_names_its_terms_by_key_and_an_unknown_key_is_named(tmp_path):
    root = _copy_with_registry(tmp_path, "aws", {"aws": TERMS})
    data = sorted((root / "prices" / "aws").glob("*/prices.csv"))[-1]
    side = data.with_name("prices.source.yml")
    meta = yaml.safe_load(side.read_text(encoding="utf-8"))
    meta["terms"] = "aws"
    side.write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    resolved, problems = read_sidecar(data, root)
    assert not [p for p in problems if p.column and p.column.startswith("terms")]
    assert resolved["terms"]["url"] == TERMS["url"] and resolved["terms_key"] == "aws"
    meta["terms"] = "aws-typo"
    side.write_text(yaml.safe_dump(meta, sort_keys=False), encoding="utf-8")
    _, problems = read_sidecar(data, root)
    assert [(p.column, p.value) for p in problems if p.column == "terms"] == [("terms", "aws-typo")]


def test_the_terms_file_is_checked_block_by_block(tmp_path):
    (tmp_path / TERMS_FILE).write_text(
        yaml.safe_dump(
            {"aws": {**TERMS, "republication": "maybe"}, "gcp": {k: v for k, v in TERMS.items() if k != "url"}}
        ),
        encoding="utf-8",
    )
    _, problems = load_terms(tmp_path)
    assert sorted(p.column for p in problems) == ["aws.republication", "gcp.url"]


def test_every_sidecar_names_terms_that_are_complete():
    """The tree as committed: every source's sidecar resolves to a complete terms block (none forbids what the
    build does with it)."""
    root = ROOT / "sources"
    registry, problems = load_terms(root)
    assert problems == [] and registry
    sidecars = 0
    for kind in KINDS.values():
        for path in discover(root, kind):
            meta, problems = read_sidecar(path, root)
            assert [p for p in problems if p.column and p.column.startswith("terms")] == [], path
            assert isinstance(meta.get("terms"), dict) and meta["terms"]["url"], path
            sidecars += 1
    assert sidecars >= 100


def test_the_recorded_terms_refuse_a_vast_ai_fetch():
    """Vast.ai's terms, as read and recorded in sources/terms.yml, forbid automated collection: the fetcher is
    refused before any request, naming the terms."""
    with pytest.raises(fetch.FetchError, match=r"vastai: refused.*vast\.ai/terms"):
        fetch.may_collect(ROOT / "sources", "vastai")


def test_a_provider_without_recorded_terms_is_not_collected(tmp_path, monkeypatch):
    """A program collects a provider's prices only after its terms are read and recorded."""
    (tmp_path / TERMS_FILE).write_text(yaml.safe_dump({"aws": TERMS}), encoding="utf-8")
    monkeypatch.setattr(fetch, "fetch_regions", lambda *a, **k: pytest.fail("a request was made"))
    with pytest.raises(fetch.FetchError, match=r"azure: no terms of use recorded.*terms\.yml under 'azure'"):
        fetch.may_collect(tmp_path, "azure")
