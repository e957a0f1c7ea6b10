"""The Chinese edition of the built site (/zh/): every page, in Chinese, with nothing of ours left in English,
its own search index split into Chinese words, and the files for programs written once."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

# three or more lowercase English words in a row: a sentence or phrase of ours left untranslated (names of GPUs,
# models and providers are capitalised or carry digits; units are upper case)
ENGLISH_RUN = re.compile(r"\b[a-z]{2,}(?:[ ,]+[a-z]{2,}){2,}\b")
SKIPPED = {"script", "style", "code", "pre", "svg", "template", "noscript"}


class _Text(HTMLParser):
    """The visible text of a page's article, without code, scripts and what is marked lang="en" (source text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []  # per open element: skipped
        self.inside = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "article":
            self.inside += 1
        void = tag in {"br", "img", "input", "hr", "meta", "link", "wbr", "source", "col"}
        # quoted or named by a source: marked lang="en", or the title of a source an external link leads to
        external = tag == "a" and (a.get("href") or "").startswith(("http://", "https://"))
        skip = tag in SKIPPED or (a.get("lang") or "").startswith("en") or external
        if not void:
            self.stack.append(skip)
        if self.inside and not any(self.stack):
            for name in ("aria-label", "title", "placeholder", "alt"):
                if a.get(name):
                    self.parts.append(a[name])

    def handle_endtag(self, tag):
        if tag == "article":
            self.inside -= 1
        if self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.inside and not any(self.stack):
            self.parts.append(data)


def _pages(site):
    return sorted(
        p.relative_to(site).as_posix() for p in site.rglob("index.html") if "zh" not in p.relative_to(site).parts[:1]
    )


def test_every_page_has_its_chinese_page(built_site):
    site = built_site["site"]
    english = _pages(site)
    chinese = sorted(p.relative_to(site / "zh").as_posix() for p in (site / "zh").rglob("index.html"))
    assert len(english) > 80 and chinese == english


def test_chinese_pages_say_their_language_and_link_the_english_one(built_site):
    site = built_site["site"] / "zh"
    for rel in ("index.html", "planner/index.html", "gpus/nvidia-h100-sxm-80gb/index.html"):
        html = (site / rel).read_text(encoding="utf-8")
        assert '<html lang="zh"' in html
        assert 'hreflang="en"' in html and 'hreflang="zh"' in html


def _names(db) -> list[str]:
    """Names the data gives (GPUs, models, providers, offerings, regions): shown as they are in every edition."""
    rows = db.execute(
        """select name from gpus union select name from models union select provider from price_offers
           union select offering from price_offers union select region from price_offers"""
    ).fetchall()
    return sorted({r[0] for r in rows if r[0]}, key=len, reverse=True)


def test_no_text_of_ours_is_left_in_english(built_site, db):
    site = built_site["site"] / "zh"
    names = _names(db)
    found = {}
    for path in sorted(site.rglob("index.html")):
        parser = _Text()
        parser.feed(path.read_text(encoding="utf-8"))
        parts = []
        for part in parser.parts:
            for name in names:
                part = part.replace(name, " ")
            parts.append(part)
        runs = sorted({m.group(0) for part in parts for m in ENGLISH_RUN.finditer(part)})
        if runs:
            found[path.relative_to(site).as_posix()] = runs[:5]
    assert found == {}


def test_the_chinese_search_index_holds_chinese_words(built_site):
    site = built_site["site"]
    zh = json.loads((site / "zh" / "search" / "search_index.json").read_text(encoding="utf-8"))
    en = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert zh["config"]["lang"] == ["zh"]
    # jieba split the text into words, joined by zero-width spaces the theme's Chinese separator splits on
    assert any("\u200b" in d["text"] and re.search(r"[\u4e00-\u9fff]", d["text"]) for d in zh["docs"])
    assert not any(d["location"].startswith("zh/") for d in en["docs"])
    assert {d["location"].split("#")[0] for d in zh["docs"]} >= {"planner/", "models/", "prices/"}


def test_files_for_programs_are_written_once(built_site):
    site = built_site["site"]
    assert (site / "api" / "v1" / "gpus.json").is_file() and not (site / "zh" / "api").exists()
    assert not (site / "zh" / "downloads").exists() and (site / "downloads" / "gpu_atlas.duckdb").is_file()
    messages = (site / "zh" / "javascripts" / "messages.js").read_text(encoding="utf-8")
    assert "window.ATLAS_MESSAGES" in messages and not (site / "javascripts" / "messages.js").exists()


@pytest.mark.parametrize("page", ["data", "planner"])
def test_chinese_links_to_site_files_reach_them(built_site, page):
    """Links from a Chinese page to the downloads and the API go up to the site's own files, which exist."""
    site = built_site["site"]
    html = (site / "zh" / page / "index.html").read_text(encoding="utf-8")
    targets = set(re.findall(r'(?:href|data-api)="((?:\.\./)+(?:downloads|api)/[^"#?]*)"', html))
    assert targets
    for target in targets:
        resolved = (site / "zh" / page / target).resolve()
        assert resolved.exists(), target


def test_every_link_of_the_chinese_pages_reaches_a_page_or_file(built_site):
    """MkDocs cannot check the Chinese edition's links up to the site's files (mkdocs.zh.yml): every relative
    link of every Chinese page is resolved here against the built site."""
    site = built_site["site"]
    broken = set()
    for path in sorted((site / "zh").rglob("index.html")):
        html = path.read_text(encoding="utf-8")
        for href in re.findall(r'<a [^>]*href="([^"#?]+)[^"]*"', html):
            if re.match(r"[a-z]+:|//", href):
                continue
            target = (path.parent / href).resolve()
            if not (target.is_file() or (target / "index.html").is_file()):
                broken.add((path.relative_to(site).as_posix(), href))
    assert sorted(broken)[:10] == []


def test_every_picks_explanation_reads_in_chinese(db):
    """labels.pick_why says in words what core_price_picks.sql writes: a new wording in the SQL fails here (on the
    pages it would show in English, marked lang="en")."""
    from pipeline.render import i18n
    from pipeline.render.labels import _why_words

    whys = [r[0] for r in db.execute("select distinct why from price_picks").fetchall()]
    assert len(whys) > 10
    with i18n.use("zh"):
        unread = [why for why in whys if _why_words(why) is None]
    assert unread == []


def test_the_chinese_404_page_links_inside_the_site(built_site):
    """zh/404.html is served for any missing address: every link and script it names is a file of the site (its
    links carry the edition's folder, /zh/, not the site's root)."""
    import os
    from pathlib import Path

    site = built_site["site"]
    html = (site / "zh" / "404.html").read_text(encoding="utf-8")
    targets = set(re.findall(r'(?:href|src)="(/[^"#?]*)"', html))
    assert "/zh/javascripts/messages.js" in targets
    missing = []
    for url in targets:
        path = Path(os.path.normpath(str(site) + url))
        if path.is_dir():
            path = path / "index.html"
        if not path.exists():
            missing.append(url)
    assert missing == []


def test_every_price_change_reason_reads_in_chinese(db):
    """labels.change_reason says in words what out_price_changes.sql writes (a new wording in the SQL fails here),
    and no Chinese page of What changed quotes one in English."""
    from pipeline.render import i18n
    from pipeline.render.labels import change_reason

    reasons = [
        r[0] for r in db.execute("select distinct reason from price_changes where reason is not null").fetchall()
    ]
    assert reasons
    with i18n.use("zh"):
        unread = [r for r in reasons if 'lang="en"' in change_reason(r)]
    assert unread == []


def test_gpu_qualifiers_read_in_chinese(built_site, db):
    """A GPU's qualifiers ('(China market)', 'one of two GPUs per superchip') are translated wherever a Chinese page
    names the GPU (links, charts); the product name stays."""
    from pipeline.render import i18n
    from pipeline.render.labels import GPU_QUALIFIERS, gpu_name

    names = [r[0] for r in db.execute("select name from gpus").fetchall()]
    with i18n.use("zh"):
        shown = [gpu_name(n) for n in names]
    assert not [n for n in shown if any(q in n for q in GPU_QUALIFIERS)]
    page = (built_site["site"] / "zh" / "inference" / "index.html").read_text(encoding="utf-8")
    assert "one of two GPUs per superchip" not in page and "每个超级芯片两颗 GPU 之一" in page
