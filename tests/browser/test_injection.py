"""Script injection: a payload in every free-text field of every kind of source file and sidecar, built; every page's
HTML read for live markup, then a page of every kind opened in headless Chromium (the one holding the most payloads:
pages of one kind share their template and their scripts) and the site search run. Nothing may run: no dialog, no
flag set."""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pytest
from browsing import serving
import yaml

from pipeline.sourcefiles import KINDS, discover, sidecar_path, write_checksums

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]

# free-text columns per kind (slug and enumerated columns are refused by the schemas when they hold markup)
FREE_TEXT = {
    "gpus": ["name", "architecture"],
    "spec_figures": ["note"],
    "claims": ["table_ref", "row_label", "quote"],
    "model_claims": ["table_ref", "row_label", "recommended_gpu", "quote"],
    "prices": ["offering", "gpu_name", "region", "note"],
    "aliases": ["gpu_name", "evidence"],
    "clusters": ["quote"],
    "models": ["name", "family", "developer", "params_note"],
    "measurements": ["model_as_printed", "gpu_as_printed", "engine_build", "quote"],
    "serving_measurements": ["model_as_printed", "gpu_as_printed", "quote"],
    "training_measurements": ["model_as_printed", "gpu_as_printed", "framework", "quote"],
    "fx_rates": [],
}
SIDECAR_TEXT = ["title", "publisher", "licence"]
DOCUMENT_TEXT = ["title", "publisher"]


def payload(marker: str) -> str:
    """Breaks out of a title, an attribute, a table cell, a textarea and a script element, in turn."""
    return (
        f"x-{marker}\"'></title></textarea></script><svg onload=alert('{marker}')>"
        f"<img src=x onerror=alert('{marker}')><script>window.__xss='{marker}'</script>"
    )


def inject(root: Path) -> list[str]:
    """Put a payload into the first data row of every file of every kind and into every sidecar. Returns the markers."""
    markers = []
    for kind in KINDS.values():
        for n, path in enumerate(discover(root, kind)):
            rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
            header = rows[0]
            injected = {}
            for column in FREE_TEXT[kind.name]:
                if len(rows) > 1:
                    marker = f"{kind.name}-{column}-{n}"
                    rows[1][header.index(column)] = injected[column] = payload(marker)
                    markers.append(marker)
            buf = io.StringIO()
            csv.writer(buf, lineterminator="\n").writerows(rows)
            path.write_text(buf.getvalue(), encoding="utf-8")
            side = sidecar_path(path)
            meta = yaml.safe_load(side.read_text(encoding="utf-8"))
            covers = meta.get("covers") or {}
            if "region" in injected and isinstance(covers.get("regions"), list):
                covers["regions"].append(injected["region"])  # a partial snapshot lists what it covers
            for key in SIDECAR_TEXT:
                meta[key] = payload(marker := f"{kind.name}-sidecar-{key}-{n}")
                markers.append(marker)
            for i, doc in enumerate(meta.get("documents") or []):
                for key in DOCUMENT_TEXT:
                    doc[key] = payload(marker := f"{kind.name}-document-{key}-{n}-{i}")
                    markers.append(marker)
            side.write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True), encoding="utf-8")
    write_checksums(root)
    return markers


@pytest.fixture(scope="module")
def poisoned_site(tmp_path_factory):
    from pipeline.config import paths_overridden
    from pipeline.jobs import build

    base = tmp_path_factory.mktemp("poisoned")
    shutil.copytree(ROOT / "sources", base / "sources")
    markers = inject(base / "sources")
    with paths_overridden(base / "data" / "atlas.duckdb", base / "build", sources=base / "sources"):
        outcome = build()
        assert outcome.ok, "\n".join(outcome.errors)
        yield {"site": base / "build" / "site", "markers": markers}


@pytest.fixture(scope="module")
def server(poisoned_site):
    with serving(poisoned_site["site"]) as url:
        yield url


def _pages(site: Path) -> list[str]:
    rels = (p.parent.relative_to(site).as_posix() for p in site.rglob("index.html"))
    return sorted("" if rel == "." else rel + "/" for rel in rels)


def _kind(path: str) -> tuple[str, ...]:
    """A page's kind: its folders but the last, which names one GPU, one source register... ('gpus/<id>/')."""
    parts = path.strip("/").split("/")
    return (*parts[:-1], "*") if len(parts) > 1 and parts[-2] in {"gpus", "sources"} else tuple(parts)


def _one_page_of_each_kind(site: Path, markers: list[str]) -> list[str]:
    """Of each kind of page, the one whose HTML holds the most payloads (the first by name among equals)."""
    best: dict[tuple[str, ...], tuple[int, str]] = {}
    for path in _pages(site):
        text = (site / path / "index.html").read_text(encoding="utf-8")
        held = sum(f"x-{m}" in text for m in markers)
        kind = _kind(path)
        if kind not in best or held > best[kind][0]:
            best[kind] = (held, path)
    return sorted(path for _, path in best.values())


def test_payloads_reach_the_site_as_text(poisoned_site):
    """The payloads are on the pages (so the browser test below exercises them), always as inert text."""
    site = poisoned_site["site"]
    html = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    shown = {m for m in poisoned_site["markers"] if any(f"x-{m}" in text for text in html.values())}
    # every kind of source has text on the site, and every page title was reached through a GPU name
    for kind in FREE_TEXT:
        assert any(m.startswith(kind + "-") for m in shown), f"no {kind} payload reached the site"
    assert any(m.startswith("gpus-name-") for m in shown)
    for path, text in html.items():
        for m in shown:
            assert f"<svg onload=alert('{m}')>" not in text, f"{path}: live markup for {m}"
            assert f"<script>window.__xss='{m}'" not in text, f"{path}: live script for {m}"
        title = re.search(r"<title>(.*?)</title>", text, flags=re.S)
        assert title is None or "<" not in title.group(1), f"{path}: markup in <title>"


def test_a_page_of_every_kind_is_opened_and_each_holds_payloads():
    """One GPU page and one source register page stand for theirs; every other page is its own kind."""
    assert _kind("gpus/nvidia-h100-sxm-80gb/") == _kind("gpus/amd-mi300x-oam-192gb/") == ("gpus", "*")
    assert _kind("zh/gpus/nvidia-h100-sxm-80gb/") == ("zh", "gpus", "*") != _kind("zh/gpus/")
    assert _kind("planner/") == ("planner",) and _kind("zh/planner/") == ("zh", "planner")


def test_no_payload_runs_in_chromium(poisoned_site, server, browser):
    site = poisoned_site["site"]
    pages = _one_page_of_each_kind(site, poisoned_site["markers"])
    assert len(pages) > 40 and {"", "planner/", "zh/", "zh/planner/"} <= set(pages)
    assert sum(path.startswith("gpus/") and path != "gpus/" for path in pages) == 1
    fired: list[str] = []
    context = browser.new_context()
    for path in pages:
        page = context.new_page()
        page.on("dialog", lambda d: (fired.append(f"{path}: {d.message}"), d.dismiss()))
        response = page.goto(server + path, wait_until="load")
        assert response.status == 200, path
        if page.locator("script.atlas-spec").count():
            # charts are drawn when they come near the screen: bring each into view
            page.evaluate("""async () => { for (const c of document.querySelectorAll('.atlas-chart')) {
                c.scrollIntoView(); await new Promise(r => setTimeout(r, 100)); } }""")
            page.wait_for_function(
                "() => document.querySelectorAll('.atlas-chart[data-rendered=true], "
                ".atlas-chart[data-error]').length >= document.querySelectorAll('script.atlas-spec').length",
                timeout=30_000,
            )
        flag = page.evaluate("() => window.__xss || null")
        if flag:
            fired.append(f"{path}: window.__xss = {flag}")
        page.close()
    # the search results list the payload text (titles and text as HTML from the index)
    page = context.new_page()
    page.on("dialog", lambda d: (fired.append(f"search: {d.message}"), d.dismiss()))
    page.goto(server, wait_until="load")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    # the search worker indexes the whole site first (slow on a busy machine); a query typed before is lost
    page.wait_for_function(
        "() => { const m = document.querySelector('.md-search-result__meta');"
        " return m && m.textContent.trim() && !/initiali/i.test(m.textContent) }",
        timeout=90_000,
    )
    page.wait_for_timeout(2000)
    page.locator("input.md-search__input").type("onload*", delay=30)  # typed: the search listens to keys
    page.wait_for_selector(".md-search-result__item", timeout=60_000)
    page.wait_for_timeout(500)
    assert page.locator(".md-search-result__item").count() > 0
    if flag := page.evaluate("() => window.__xss || null"):
        fired.append(f"search: window.__xss = {flag}")
    context.close()
    assert fired == []
