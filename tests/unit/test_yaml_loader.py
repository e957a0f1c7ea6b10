"""One strict YAML loader for every file the pipeline reads: a key given twice is refused, YAML's merge is not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipeline.sourcefiles.files import DuplicateKeyError, load_yaml

PIPELINE = Path(__file__).resolve().parents[2] / "pipeline"


def test_a_key_given_twice_is_refused_with_its_lines():
    with pytest.raises(DuplicateKeyError, match=r"line 4: key 'publisher' given twice \(first on line 2\)"):
        load_yaml("title: T\npublisher: A\nurl: https://example.com/\npublisher: B\n")


def test_a_nested_key_given_twice_is_refused():
    with pytest.raises(DuplicateKeyError, match="'automated_collection'"):
        load_yaml("aws:\n  automated_collection: allowed\n  automated_collection: forbidden\n")


def test_a_merged_key_may_be_overridden():
    data = load_yaml("base: &b\n  url: https://a.example/\n  read_on: null\nx:\n  <<: *b\n  url: https://x.example/\n")
    assert data["x"] == {"url": "https://x.example/", "read_on": None}


def test_no_other_yaml_parser_in_the_pipeline():
    """Every reader goes through load_yaml (writers may dump)."""
    readers = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load)\(")
    found = [
        str(p.relative_to(PIPELINE))
        for p in PIPELINE.rglob("*.py")
        if readers.search(p.read_text(encoding="utf-8")) and p.name != "files.py"
    ]
    assert found == []
