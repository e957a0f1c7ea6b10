"""The MkDocs build of the assembled pages, full or incremental, of each edition in turn.

A full build renders every page. An incremental build (the price refresh) starts from a copy of the
last good site and re-renders only the pages whose Markdown changed since it was built (MkDocs' dirty
mode, which compares modification times; unchanged pages are never rewritten, see `write_pages`).
Dirty mode alone would leave the search index covering only the re-rendered pages, so the previous
index is kept for every other page and the re-rendered pages' entries replace theirs.

The editions (English, and each other locale under its folder: `zh/`) are built one after the other in the run's
process (`build_editions`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2


SEARCH_INDEX = Path("search") / "search_index.json"
DIRTY_WARNING = "A 'dirty' build is being performed"
# Where the site is published (GitHub Pages' base URL in the pages workflow). MkDocs needs it to write the
# sitemap and canonical links; a build without it (a local one) ships neither rather than an empty sitemap.
SITE_URL_VARIABLE = "GPU_ATLAS_SITE_URL"


@dataclass
class SiteBuild:
    incremental: bool
    pages_rendered: int
    search_entries: int


class _DropDirtyWarning(logging.Filter):
    """MkDocs warns that dirty builds can leave navigation stale; ours cannot (build_site builds in full when
    a page is new or the configuration changed), and in strict mode that warning would abort."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(DIRTY_WARNING)


class _Warnings(logging.Handler):
    """MkDocs' warnings of one build, for the error a failed build raises."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.addFilter(_DropDirtyWarning())
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname}: {record.getMessage()}")


def page_title(page) -> str:
    """A page's title as escaped HTML text, whatever it came from (front matter, first heading, file name).

    The theme writes `page.meta.title` unescaped into `<title>`, the header and the navigation, and a title
    taken from a rendered heading is passed through `striptags`, which decodes its entities: a source's
    text in a heading (a GPU name) would become markup there. Every page title goes through here instead.
    """
    import html

    from markupsafe import Markup

    raw = page.meta.get("title") if isinstance(page.meta, dict) else None
    text = str(raw) if raw not in (None, "") else Markup(page.title or "").striptags()
    return html.escape(text, quote=True)  # as markdown.html_text escapes (that module would import pandas here)


def _page_of(location: str) -> str:
    return location.split("#", 1)[0]


def merge_search_index(previous: dict, rebuilt: dict) -> dict:
    """The previous index with the entries of every re-rendered page replaced by the new ones, in page order."""
    fresh: dict[str, list] = {}
    for entry in rebuilt.get("docs", []):
        fresh.setdefault(_page_of(entry["location"]), []).append(entry)
    docs, placed = [], set()
    for entry in previous.get("docs", []):
        page = _page_of(entry["location"])
        if page in fresh:
            if page not in placed:
                docs += fresh[page]
                placed.add(page)
            continue
        docs.append(entry)
    docs += [e for page, entries in fresh.items() if page not in placed for e in entries]
    return {**previous, "config": rebuilt.get("config", previous.get("config")), "docs": docs}


def _built_page(site: Path, md: Path) -> Path:
    parts = md.with_suffix("").parts
    if parts[-1] == "index":
        parts = parts[:-1]
    return site.joinpath(*parts, "index.html")


def pages_all_built(docs: Path, site: Path, others: tuple[str, ...] = ()) -> bool:
    """Every Markdown page already has its built page (no page was added since the site was built); the folders
    of `others` (other editions' pages, built by a build of their own) are not this build's."""
    pages = (md.relative_to(docs) for md in docs.rglob("*.md"))
    return all(_built_page(site, page).is_file() for page in pages if not page.as_posix().startswith(others))


THEME_BUNDLE = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'


def _theme_scripts(match: re.Match) -> str:
    bundle = match.group(1)
    lazy_search = bundle[: bundle.index("assets/javascripts/")] + "javascripts/lazy-search.js"
    return f'<script src="{lazy_search}" defer></script><script src="{bundle}" defer></script>'


# the theme's <link rel="alternate" hreflang> per edition: relative addresses (search engines want absolute ones),
# and the theme's script fetches each edition's sitemap.xml for them, which a local build does not have
LANGUAGE_ALTERNATE = re.compile(r'\s*<link rel="alternate" href="[^"]*" hreflang="[^"]*">')


def finish_page(html: str) -> str:
    """The theme's script deferred (it runs after parsing, before the site's own deferred scripts, so the
    first paint never waits for it), preceded by lazy-search.js (the search index is requested only when a
    reader reaches for search), and its search dialog named for screen readers. The language menu's links are
    kept (editions.js points them at the same page); the head's per-edition alternates are dropped."""
    html = LANGUAGE_ALTERNATE.sub("", html)
    html = THEME_BUNDLE.sub(_theme_scripts, html, count=1)
    return html.replace(SEARCH_DIALOG, SEARCH_DIALOG[:-1] + ' aria-label="Search">', 1)


SITE_KEY = ".atlas-site-key"  # hidden: MkDocs never copies nor cleans dot files in the site folder


def site_key(config_file: str | Path) -> str:
    """What every page's frame depends on besides its own Markdown: the MkDocs configuration (navigation,
    theme options) and the MkDocs and Material versions. A different key forces a full build."""
    import importlib.metadata as md

    text = Path(config_file).read_bytes()
    inherited = re.search(rb"^INHERIT:\s*(\S+)", text, re.M)  # an edition's configuration extends mkdocs.yml
    if inherited:
        text += (Path(config_file).parent / inherited.group(1).decode()).read_bytes()
    digest = hashlib.sha256(text).hexdigest()
    digest += f" site_url {os.environ.get(SITE_URL_VARIABLE, '')}"  # canonical links and the sitemap
    return f"{digest} mkdocs {md.version('mkdocs')} material {md.version('mkdocs-material')}"


def edition_config(config_file: str | Path, locale: str) -> Path:
    """The MkDocs configuration of an edition: mkdocs.yml for English, mkdocs.<locale>.yml beside it."""
    path = Path(config_file)
    return path if locale == "en" else path.with_name(f"{path.stem}.{locale}{path.suffix}")


def template_cache() -> Path:
    """Where the theme's compiled templates are kept between builds (keyed by their source's checksum)."""
    from pipeline.config import paths

    return paths().cache / "jinja"


def build_editions(
    config_file: str | Path,
    docs_dir: str | Path,
    site_dir: str | Path,
    locales: tuple[str, ...],
    incremental: bool = False,
    template_cache: Path | None = None,
) -> dict[str, SiteBuild]:
    """Every edition, one after the other: the first locale's from `docs_dir` into `site_dir`, each other one from
    its folder there (`zh/`) into the same folder of the site. The first edition goes first: its full build empties
    the site folder, and an edition whose last site went with it is then built in full too."""
    from pipeline.render.i18n import prefix

    docs, site = Path(docs_dir), Path(site_dir)
    others = tuple(prefix(locale) for locale in locales[1:])
    results = {}
    for locale in locales:
        mine = prefix(locale)
        results[locale] = build_site(
            edition_config(config_file, locale),
            docs / mine if mine else docs,
            site / mine if mine else site,
            incremental=incremental,
            template_cache=template_cache,
            edition=mine,
            others=() if mine else others,
        )
    return results


def build_site(
    config_file: str | Path,
    docs_dir: str | Path,
    site_dir: str | Path,
    incremental: bool = False,
    template_cache: Path | None = None,
    edition: str = "",
    others: tuple[str, ...] = (),
) -> SiteBuild:
    """Build the site; template_cache keeps the theme's compiled Jinja templates between builds. `edition`: the
    folder of an edition built inside the main site ('zh/'): its address is the site's plus that folder, and
    the main site's robots.txt names its sitemap. `others`: the folders of the other editions in `docs_dir`.
    A failed build raises RuntimeError with MkDocs' warnings (strict mode: any warning fails it)."""
    import warnings

    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    # jieba (imported by the search plugin to split Chinese words) has string escapes Python warns about, and
    # says on the console that it loads its dictionary
    warnings.filterwarnings("ignore", message="invalid escape sequence")
    import jieba

    jieba.setLogLevel(logging.WARNING)

    site = Path(site_dir)
    index_path = site / SEARCH_INDEX
    previous = None
    key = site_key(config_file)
    same_frame = (site / SITE_KEY).is_file() and (site / SITE_KEY).read_text(encoding="utf-8") == key
    if incremental and same_frame and index_path.is_file() and pages_all_built(Path(docs_dir), site, others):
        previous = json.loads(index_path.read_text(encoding="utf-8"))
    dirty = previous is not None

    cfg = load_config(config_file=str(config_file), docs_dir=str(docs_dir), site_dir=str(site_dir), strict=True)
    if edition and cfg.site_url:
        cfg.site_url = cfg.site_url.rstrip("/") + "/" + edition
    elif edition:  # no address configured: the edition's 404 page still links within its folder (/zh/...)
        cfg.site_url = f"/{edition}"
    build_logger = logging.getLogger("mkdocs.commands.build")
    quiet = _DropDirtyWarning()
    rendered: list[str] = []

    class _Hooks:
        def on_env(self, env, config, files):
            if template_cache is not None:  # compiled templates are keyed by their source's checksum
                template_cache.mkdir(parents=True, exist_ok=True)
                env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(template_cache))
            return env

        def on_page_content(self, html_text, page, config, files):
            page.meta["title"] = page_title(page)
            return html_text

        def on_post_page(self, output, page, config):  # which pages this build rendered
            rendered.append(page.file.src_uri)
            return finish_page(output)

    cfg.plugins["gpu-atlas-hooks"] = _Hooks()  # type: ignore[assignment]
    # Plugins are cached per process across builds. Material's search plugin, told of a dirty build, keeps
    # its index for the next build and merges it assuming one page changed (the `mkdocs serve` case);
    # the index is merged here instead, so the plugin is told every build is clean and keeps nothing.
    cfg.plugins.on_startup(command="build", dirty=False)
    for plugin in cfg.plugins.values():
        if hasattr(plugin, "search_index_prev"):
            plugin.search_index_prev = None
    build_logger.addFilter(quiet)
    warned = _Warnings()
    logging.getLogger("mkdocs").addHandler(warned)
    try:
        build(cfg, dirty=dirty)
    except Exception as exc:
        what = f"the {edition.strip('/') or 'en'} edition's MkDocs build failed"
        raise RuntimeError("\n".join([f"{what}: {exc}", *warned.messages[-20:]])) from exc
    finally:
        build_logger.removeFilter(quiet)
        logging.getLogger("mkdocs").removeHandler(warned)
        cfg.plugins.on_shutdown()

    (site / SITE_KEY).write_text(key, encoding="utf-8")
    write_crawler_files(site, cfg.site_url, robots=not edition)
    if dirty:
        merged = merge_search_index(previous, json.loads(index_path.read_text(encoding="utf-8")))
        index_path.write_text(json.dumps(merged, separators=(",", ":")), encoding="utf-8")
        entries = len(merged["docs"])
    else:
        entries = len(json.loads(index_path.read_text(encoding="utf-8"))["docs"])
    return SiteBuild(incremental=dirty, pages_rendered=len(rendered), search_entries=entries)


def write_crawler_files(site: Path, site_url: str | None, robots: bool = True) -> None:
    """robots.txt naming the sitemap when the site's address is known; otherwise no sitemap at all (MkDocs
    writes one with no URL in it, which a crawler reads as a site without pages)."""
    from pipeline.render.i18n import LOCALES, prefix

    if site_url:
        if not robots:  # an edition's sitemap is named by the main site's robots.txt
            return
        maps = "".join(f"Sitemap: {site_url}{e}sitemap.xml\n" for e in map(prefix, LOCALES))
        (site / "robots.txt").write_text(f"User-agent: *\nAllow: /\n{maps}", encoding="utf-8")
        return
    for name in ("sitemap.xml", "sitemap.xml.gz", "robots.txt"):
        (site / name).unlink(missing_ok=True)
