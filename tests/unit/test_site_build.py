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
    from pipeline.run import _inputs_file, _refresh_blocker, build_inputs

    src = tmp_path / "sources"
    for rel in ("specs/a/gpus.csv", "prices/acme/2026-01-01/prices.csv", "aliases/acme.csv", "models/m.csv"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(rel, encoding="utf-8")
    with paths_overridden(tmp_path / "db.duckdb", tmp_path / "build", src) as p:
        first = build_inputs(p)
        assert {
            "sources/specs/a/gpus.csv",
            "sources/models/m.csv",
            "sources/prices/acme/2026-01-01/prices.csv",
            "sources/aliases/acme.csv",
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
        assert _refresh_blocker(p, now) == ""  # a price refresh reads prices itself
        (src / "specs/a/gpus.csv").write_text("changed", encoding="utf-8")
        assert "sources/specs/a/gpus.csv" in _refresh_blocker(p, build_inputs(p))


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
    from pipeline.render.editions import build_editions

    return build_editions(root / "mkdocs.yml", root / "docs", root / "site", ("en", "zh"), incremental=incremental)


def test_the_other_edition_is_built_at_the_same_time_into_its_folder(tmp_path):
    root = editions_project(tmp_path)
    results = build_both(root, incremental=False)
    assert {k: v.pages_rendered for k, v in results.items()} == {"en": 2, "zh": 2}
    site = root / "site"
    assert "规格不变" in (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert "Specs stay put" in (site / "index.html").read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left
    # a refresh: each edition re-renders only its changed page, the other edition's site carried over
    touch_later(root / "docs" / "zh" / "prices.md", "# 价格\n\nH100 每小时 $2.50。\n")
    results = build_both(root, incremental=True)
    assert results["zh"].incremental and results["zh"].pages_rendered == 1 and results["en"].pages_rendered == 0
    assert "$2.50" in (site / "zh" / "prices" / "index.html").read_text(encoding="utf-8")
    assert "规格不变" in (site / "zh" / "index.html").read_text(encoding="utf-8")


def test_a_failing_edition_fails_the_build_with_its_message_and_leaves_nothing_behind(tmp_path):
    import pytest

    root = editions_project(tmp_path)
    (root / "docs" / "zh" / "prices.md").write_text("# 价格\n\n[缺失](missing.md)\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"(?s)the zh edition's MkDocs build failed.*missing\.md"):
        build_both(root, incremental=False)
    assert not (root / "site" / "zh").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_edition_build_dies_with_the_build_that_started_it(tmp_path):
    """A build killed mid-way (SIGKILL) must leave no edition process writing into its folder."""
    import signal
    import subprocess
    import sys

    root = editions_project(tmp_path)
    for i in range(1000):  # enough pages that the edition's build runs for seconds after its parent is killed
        (root / "docs" / "zh" / f"p{i}.md").write_text(f"# 页 {i}\n\n" + "价格表。 " * 400, encoding="utf-8")
    script = (
        "import sys; from pathlib import Path; from pipeline.render.editions import build_editions; "
        f"r = Path({str(root)!r}); build_editions(r / 'mkdocs.yml', r / 'docs', r / 'site', ('en', 'zh'))"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL)

    def editions() -> list[int]:
        found = []
        for proc in Path("/proc").iterdir():
            try:
                cmdline = (proc / "cmdline").read_bytes().split(b"\0")
                stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if b"pipeline.render.editions" in cmdline and int(stat[1]) == parent.pid and stat[0] != "Z":
                found.append(int(proc.name))
        return found

    deadline = time.time() + 60
    while not editions() and time.time() < deadline:
        time.sleep(0.05)
    children = editions()
    assert children, "the edition's build never started"
    time.sleep(0.5)  # past its start-up, into the build
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 1.5  # the kernel kills it at once; its build alone would take far longer
    alive = children
    while alive and time.time() < deadline:
        alive = [pid for pid in children if Path(f"/proc/{pid}").exists() and "Z" not in _state(pid)]
        time.sleep(0.05)
    assert alive == []


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "Z"


def test_a_run_that_builds_the_site_starts_one_warm_builder_per_edition_and_others_start_none():
    from types import SimpleNamespace

    import dagster as dg

    from pipeline.defs.resources import AtlasPaths
    from pipeline.render import i18n

    def started(selection) -> dict:
        paths = AtlasPaths(sources_dir="s", handwritten_dir="h", mkdocs_config="mkdocs.yml")
        context = SimpleNamespace(run=SimpleNamespace(asset_selection=selection, run_id=None), instance=None)
        paths._start_site_builders(context)
        editions = paths.take_editions()
        if editions is None:
            return {}
        editions.stop()
        return editions.builders

    assert started({dg.AssetKey("raw_prices")}) == {}
    for selection in (None, frozenset(), {dg.AssetKey("raw_prices"), dg.AssetKey("site")}):
        builders = started(selection)
        assert sorted(builders) == sorted(i18n.LOCALES)
        assert builders["zh"].config_file.endswith("mkdocs.zh.yml")


def test_an_edition_builder_runs_below_the_build_s_priority(tmp_path):
    """It warms up while the build's steps run: at a lower priority, so it takes the idle core, not the steps'."""
    from pipeline.render.editions import EditionBuilder

    root = editions_project(tmp_path)
    builder = EditionBuilder(root / "mkdocs.yml")
    try:
        deadline = time.time() + 30
        niceness = None
        while time.time() < deadline:  # set by the process as it starts
            niceness = os.getpriority(os.PRIO_PROCESS, builder.process.pid)
            if niceness >= os.getpriority(os.PRIO_PROCESS, 0) + 10:
                break
            time.sleep(0.02)
        assert niceness == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10)
    finally:
        builder.stop()


def age(site: Path) -> None:
    """The built site as a run finds it: newer than its pages, older than every page the run writes (a run writes
    each page once, and a draft's pages are then newer than their Markdown)."""
    for folder, before in ((site.parent / "docs", time.time() - 200), (site, time.time() - 100)):
        for path in folder.rglob("*"):
            os.utime(path, (before, before))


def write_now(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_a_draft_renders_only_its_pages_and_copies_no_file_the_run_may_still_write(tmp_path):
    """A draft (`only`) runs while the run still writes other pages and files: it reads none of them."""
    root = project(tmp_path)
    (root / "docs" / "offers.json").write_text('{"h100": 2.0}', encoding="utf-8")
    build(root, incremental=False)
    age(root / "site")
    home = (root / "site" / "index.html").read_bytes()
    write_now(root / "docs" / "prices.md", "# Prices\n\nH100 costs $2.50.\n")
    write_now(root / "docs" / "index.md", "# Home\n\nSpecs moved.\n")  # written after the draft was asked for
    write_now(root / "docs" / "offers.json", '{"h100": 2.5}')
    draft = build_site(root / "mkdocs.yml", root / "docs", root / "site", incremental=True, only=["prices.md"])
    assert draft.incremental and draft.pages_rendered == 1
    assert "$2.50" in (root / "site" / "prices" / "index.html").read_text(encoding="utf-8")
    assert (root / "site" / "index.html").read_bytes() == home
    assert (root / "site" / "offers.json").read_text(encoding="utf-8") == '{"h100": 2.0}'
    texts = " ".join(search_texts(root).values())
    assert "$2.50" in texts and "Specs stay put" in texts
    # the last build renders what the draft left, and no page twice
    final = build(root, incremental=True)
    assert final.incremental and final.pages_rendered == 1
    assert "Specs moved" in (root / "site" / "index.html").read_text(encoding="utf-8")
    assert (root / "site" / "offers.json").read_text(encoding="utf-8") == '{"h100": 2.5}'
    texts = " ".join(search_texts(root).values())
    assert "$2.50" in texts and "Specs moved" in texts and "Specs stay put" not in texts


def test_a_draft_without_a_whole_last_site_builds_nothing(tmp_path):
    root = project(tmp_path)
    draft = build_site(root / "mkdocs.yml", root / "docs", root / "site", incremental=True, only=["prices.md"])
    assert draft.pages_rendered == 0 and not (root / "site").exists()
    build(root, incremental=False)
    (root / "docs" / "changes.md").write_text("# What changed\n", encoding="utf-8")  # a new page: a full build
    draft = build_site(root / "mkdocs.yml", root / "docs", root / "site", incremental=True, only=["changes.md"])
    assert draft.pages_rendered == 0 and not (root / "site" / "changes").exists()


def test_each_edition_drafts_its_pages_while_the_run_writes_others(tmp_path, monkeypatch):
    from pipeline.render import editions as E

    root = editions_project(tmp_path)
    build_both(root, incremental=False)
    age(root / "site")
    monkeypatch.setattr(E, "DRAFT_BYTES", 1)  # every page written is worth a draft here
    run = E.Editions(root / "mkdocs.yml", ("en", "zh"))
    try:
        write_now(root / "docs" / "prices.md", "# Prices\n\nH100 costs $2.50.\n")
        write_now(root / "docs" / "zh" / "prices.md", "# 价格\n\nH100 每小时 $2.50。\n")
        run.written(root / "docs", root / "site", ["prices.md", "zh/prices.md", "api/offers.json"])
        assert run.pending == [] and not (root / "site" / "zh").exists()  # the zh site is moved out to build on
        write_now(root / "docs" / "zh" / "index.md", "# 首页\n\n规格变了。\n")  # written later in the run
        results = run.build(root / "docs", root / "site", incremental=True)
    finally:
        run.stop()
    # each edition: its draft's page and the page written after it, each rendered once
    assert {k: (v.incremental, v.pages_rendered) for k, v in results.items()} == {"en": (True, 1), "zh": (True, 2)}
    site = root / "site"
    assert "$2.50" in (site / "prices" / "index.html").read_text(encoding="utf-8")
    assert "$2.50" in (site / "zh" / "prices" / "index.html").read_text(encoding="utf-8")
    assert "规格变了" in (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging folder left


def test_a_failing_draft_fails_the_build_with_its_message(tmp_path, monkeypatch):
    import pytest

    from pipeline.render import editions as E

    root = editions_project(tmp_path)
    build_both(root, incremental=False)
    age(root / "site")
    monkeypatch.setattr(E, "DRAFT_BYTES", 1)
    run = E.Editions(root / "mkdocs.yml", ("en", "zh"))
    try:
        write_now(root / "docs" / "zh" / "prices.md", "# 价格\n\n[缺失](missing.md)\n")
        run.written(root / "docs", root / "site", ["zh/prices.md"])
        run.builders["zh"].process.wait(timeout=60)  # the draft failed and its process ended before the last job
        with pytest.raises(RuntimeError, match=r"(?s)the zh edition's MkDocs build failed.*missing\.md"):
            run.build(root / "docs", root / "site", incremental=True)
    finally:
        run.stop()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
