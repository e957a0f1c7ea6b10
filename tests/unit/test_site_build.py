"""The incremental site build re-renders only changed pages, keeps the search index whole, and falls back
to a full build when something every page depends on changed (the MkDocs configuration) or a page is new."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from pipeline.render.site import build_site, merge_search_index

CONFIG = """site_name: Test
docs_dir: docs
site_dir: site
strict: true
theme:
  name: material
  font: false
plugins:
  - search
nav:
  - Home: index.md
  - Prices: prices.md
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("# Home\n\nSpecs stay put.\n", encoding="utf-8")
    (tmp_path / "docs" / "prices.md").write_text("# Prices\n\nH100 costs $2.00.\n", encoding="utf-8")
    return tmp_path


def build(root: Path, incremental: bool):
    return build_site(root / "mkdocs.yml", root / "docs", root / "site", incremental=incremental)


def touch_later(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    later = time.time() + 5  # newer than every built page, whatever the file system's clock resolution
    os.utime(path, (later, later))


def search_texts(root: Path) -> dict[str, str]:
    docs = json.loads((root / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    return {d["location"]: d["text"] for d in docs}


def test_only_the_changed_page_is_rendered_and_the_index_stays_whole(tmp_path):
    root = project(tmp_path)
    assert build(root, incremental=False).pages_rendered == 2
    home = (root / "site" / "index.html").read_bytes()
    touch_later(root / "docs" / "prices.md", "# Prices\n\nH100 costs $2.50.\n")
    result = build(root, incremental=True)
    assert result.incremental and result.pages_rendered == 1
    assert (root / "site" / "index.html").read_bytes() == home
    texts = " ".join(search_texts(root).values())
    assert "$2.50" in texts and "$2.00" not in texts and "Specs stay put" in texts


def test_a_changed_configuration_forces_a_full_build(tmp_path):
    root = project(tmp_path)
    build(root, incremental=False)
    (root / "mkdocs.yml").write_text(CONFIG.replace("Prices: prices.md", "Cloud prices: prices.md"), encoding="utf-8")
    result = build(root, incremental=True)
    assert not result.incremental and result.pages_rendered == 2
    assert "Cloud prices" in (root / "site" / "index.html").read_text(encoding="utf-8")


def test_a_new_page_forces_a_full_build(tmp_path):
    root = project(tmp_path)
    build(root, incremental=False)
    (root / "docs" / "changes.md").write_text("# What changed\n", encoding="utf-8")
    result = build(root, incremental=True)
    assert not result.incremental and result.pages_rendered == 3


def test_merged_index_replaces_only_rebuilt_pages_in_place():
    previous = {
        "config": {"lang": ["en"]},
        "docs": [
            {"location": "", "title": "Home", "text": "a"},
            {"location": "prices/", "title": "Prices", "text": "old"},
            {"location": "prices/#h100", "title": "H100", "text": "old"},
            {"location": "models/", "title": "Models", "text": "m"},
        ],
    }
    rebuilt = {"config": {"lang": ["en"]}, "docs": [{"location": "prices/", "title": "Prices", "text": "new"}]}
    merged = merge_search_index(previous, rebuilt)
    assert [(d["location"], d["text"]) for d in merged["docs"]] == [("", "a"), ("prices/", "new"), ("models/", "m")]


def test_consecutive_incremental_builds_in_one_process_keep_the_index_exact(tmp_path):
    other = project(tmp_path / "other")  # another site, built first in this process
    build(other, incremental=False)
    touch_later(other / "docs" / "index.md", "# Home\n\nAnother site.\n")
    build(other, incremental=True)
    root = project(tmp_path / "atlas")
    build(root, incremental=False)
    for price in ("$2.50", "$3.00"):
        touch_later(root / "docs" / "prices.md", f"# Prices\n\nH100 costs {price}.\n")
        assert build(root, incremental=True).pages_rendered == 1
    texts = search_texts(root)
    assert sorted(texts) == ["", "prices/"]  # one entry per page: nothing carried over from other builds
    assert "$3.00" in texts["prices/"] and "Specs stay put" in texts[""]
    assert "Another site" not in " ".join(texts.values())


def test_build_inputs_cover_every_source_and_a_refresh_ignores_prices_and_aliases(tmp_path):
    import json

    from pipeline.config import paths_overridden
    from pipeline.run import _inputs_file, build_inputs, refresh_blocker

    src = tmp_path / "sources"
    for rel in ("specs/a/gpus.csv", "prices/acme/2026-01-01/prices.csv", "prices/acme/aliases.csv", "models/m.csv"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(rel, encoding="utf-8")
    with paths_overridden(tmp_path / "db.duckdb", tmp_path / "build", src) as p:
        first = build_inputs(p)
        assert {
            "sources/specs/a/gpus.csv",
            "sources/models/m.csv",
            "sources/prices/acme/2026-01-01/prices.csv",
            "sources/prices/acme/aliases.csv",
            "mkdocs.yml",
            "pipeline/run.py",
        } <= first.keys()
        # a last build to start from, with its record
        p.database.write_bytes(b"db")
        p.docs.mkdir(parents=True)
        p.site.mkdir(parents=True)
        _inputs_file(p).write_text(json.dumps(first), encoding="utf-8")
        (src / "prices/acme/2026-01-01/prices.csv").write_text("changed", encoding="utf-8")
        (src / "prices/acme/2026-02-01").mkdir()
        (src / "prices/acme/2026-02-01/prices.csv").write_text("new", encoding="utf-8")
        now = build_inputs(p)
        assert now["sources/prices/acme/2026-01-01/prices.csv"] != first["sources/prices/acme/2026-01-01/prices.csv"]
        assert "sources/prices/acme/2026-02-01/prices.csv" in now
        assert refresh_blocker(p, now) == ""  # a price refresh reads prices itself
        (src / "specs/a/gpus.csv").write_text("changed", encoding="utf-8")
        assert "sources/specs/a/gpus.csv" in refresh_blocker(p, build_inputs(p))


def test_the_sitemap_lists_every_page_when_the_address_is_known_and_is_left_out_otherwise(tmp_path, monkeypatch):
    root = project(tmp_path)
    (root / "mkdocs.yml").write_text(CONFIG + "site_url: !ENV [GPU_ATLAS_SITE_URL, null]\n", encoding="utf-8")
    monkeypatch.delenv("GPU_ATLAS_SITE_URL", raising=False)
    build(root, incremental=False)
    site = root / "site"
    assert not (site / "sitemap.xml").exists() and not (site / "robots.txt").exists()  # never an empty sitemap

    monkeypatch.setenv("GPU_ATLAS_SITE_URL", "https://atlas.example.org/gpu/")
    result = build(root, incremental=True)
    assert not result.incremental  # another address changes every page's canonical link: a full build
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://atlas.example.org/gpu/</loc>" in sitemap
    assert "<loc>https://atlas.example.org/gpu/prices/</loc>" in sitemap
    assert "Sitemap: https://atlas.example.org/gpu/sitemap.xml" in (site / "robots.txt").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://atlas.example.org/gpu/prices/">' in (
        site / "prices" / "index.html"
    ).read_text(encoding="utf-8")


def test_the_search_index_is_requested_only_through_the_lazy_loader(tmp_path):
    root = project(tmp_path)
    build(root, incremental=False)
    html = (root / "site" / "prices" / "index.html").read_text(encoding="utf-8")
    lazy = html.index('<script src="../javascripts/lazy-search.js" defer></script>')
    assert lazy < html.index("assets/javascripts/bundle.")  # it runs first, so it can hold the request back


def editions_project(tmp_path: Path) -> Path:
    """The project above with a second edition, as the site has it: docs/zh/ built by mkdocs.zh.yml into site/zh/."""
    root = project(tmp_path)
    (root / "mkdocs.yml").write_text(CONFIG + "exclude_docs: |\n  zh/\n", encoding="utf-8")
    (root / "mkdocs.zh.yml").write_text("INHERIT: mkdocs.yml\nexclude_docs: ''\n", encoding="utf-8")
    (root / "docs" / "zh").mkdir()
    (root / "docs" / "zh" / "index.md").write_text("# 首页\n\n规格不变。\n", encoding="utf-8")
    (root / "docs" / "zh" / "prices.md").write_text("# 价格\n\nH100 每小时 $2.00。\n", encoding="utf-8")
    return root


def build_both(root: Path, incremental: bool):
    from pipeline.render.site import build_editions

    return build_editions(root / "mkdocs.yml", root / "docs", root / "site", ("en", "zh"), incremental=incremental)


def test_the_other_edition_is_built_into_its_folder(tmp_path):
    root = editions_project(tmp_path)
    results = build_both(root, incremental=False)
    assert {k: v.pages_rendered for k, v in results.items()} == {"en": 2, "zh": 2}
    site = root / "site"
    assert "规格不变" in (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert "Specs stay put" in (site / "index.html").read_text(encoding="utf-8")
    assert not (site / "zh" / "zh").exists()  # the English build leaves the other edition's pages alone
    # a refresh: each edition re-renders only its changed page, the other edition's site carried over
    touch_later(root / "docs" / "zh" / "prices.md", "# 价格\n\nH100 每小时 $2.50。\n")
    results = build_both(root, incremental=True)
    assert results["zh"].incremental and results["zh"].pages_rendered == 1 and results["en"].pages_rendered == 0
    assert "$2.50" in (site / "zh" / "prices" / "index.html").read_text(encoding="utf-8")
    assert "规格不变" in (site / "zh" / "index.html").read_text(encoding="utf-8")


def test_a_full_build_of_the_first_edition_rebuilds_the_others_in_full(tmp_path):
    """The English edition's full build (a new page) empties the site folder, the other edition's site with it:
    that edition is then built in full, not on a site that is gone."""
    root = editions_project(tmp_path)
    build_both(root, incremental=False)
    (root / "docs" / "changes.md").write_text("# What changed\n", encoding="utf-8")  # a new page: a full build
    results = build_both(root, incremental=True)
    assert {k: (v.incremental, v.pages_rendered) for k, v in results.items()} == {"en": (False, 3), "zh": (False, 2)}
    assert "规格不变" in (root / "site" / "zh" / "index.html").read_text(encoding="utf-8")
    assert (root / "site" / "zh" / "search" / "search_index.json").is_file()


def test_a_failing_edition_fails_the_build_with_its_message(tmp_path):
    """MkDocs' warning (strict mode) is in the error the site step fails with, which the build reports; the run's
    generation, half-built site included, is then removed (tests/unit/test_generation.py)."""
    import pytest

    root = editions_project(tmp_path)
    (root / "docs" / "zh" / "prices.md").write_text("# 价格\n\n[缺失](missing.md)\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"(?s)the zh edition's MkDocs build failed.*missing\.md"):
        build_both(root, incremental=False)
