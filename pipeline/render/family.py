"""Page families: one folder under `pipeline/render/` per group of pages a reader sees together.

A family folder holds
- `queries.sql`: named queries (`-- name: gpus` above each) over the **public views only**, so a reader of the
  DuckDB file can run what a page shows; the family's page asset depends on the tables those views read (as the
  views' contracts declare them, pipeline/tables.py);
- `__init__.py`: `FAMILY = Family(__file__)`, a pure `context(...)` that turns query results into a template's
  values, and `render(con) -> {path: text}`;
- templates (`*.md.j2`), rendered by Jinja with every value escaped for Markdown and HTML unless a formatter
  below made it (formatters build their own safe HTML from numbers, dates and escaped text).

Adding a page family is one new folder here and a line in `mkdocs.yml`'s nav: `pipeline.defs.render` finds it.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path

import duckdb
import jinja2
import pandas as pd
from markupsafe import Markup

from pipeline import sql_reads
from pipeline.contract import VIEWS

from . import i18n, labels
from . import markdown as md

RENDER_DIR = Path(__file__).parent
SHARED_TEMPLATES = RENDER_DIR / "templates"
QUERY_NAME = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.M)


def load_queries(path: Path) -> dict[str, str]:
    """`-- name: x` blocks of a .sql file, each up to the next name (comments kept, trailing ';' dropped)."""
    text = path.read_text(encoding="utf-8")
    parts = QUERY_NAME.split(text)
    return {name: body.strip().rstrip(";").strip() for name, body in zip(parts[1::2], parts[2::2])}


def relations(sql: str) -> set[str]:
    """The relations a page's query names (its CTEs and table functions left out), by DuckDB's own parser."""
    return sql_reads.relations(sql, through_macros=False)


def _finalize(value):
    """Every value a template prints: formatter output (Markup) as made, text escaped for Markdown and HTML,
    anything else (numbers) as text."""
    return value if isinstance(value, Markup) else Markup(md.esc(value))  # esc prints a missing value as ""


def _safe(fn):
    def wrapped(*args, **kwargs):
        return Markup(fn(*args, **kwargs))

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


FORMATTERS = {
    name: _safe(getattr(md, name))
    for name in (
        "num",
        "fixed",
        "money",
        "percent",
        "signed_percent",
        "age",
        "seen",
        "plural",
        "link",
        "url_link",
        "chart",
        "table",
        "esc",
    )
}


def breakable(path) -> Markup:
    """A file path that may wrap after each '/' in a narrow table cell."""
    return Markup(md.esc(path).replace("/", "/<wbr>"))


def code(text) -> Markup:
    """Text shown as code (a name of a view, column or file): an HTML element, so no Markdown escape shows."""
    return Markup(f"<code>{md.html_text(text).replace('|', '&#124;')}</code>")


def prose(text) -> Markup:
    """Our own descriptive text (the contract's meanings): escaped, with its `backticked` names shown as code."""
    parts = str(text or "").split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: all of it as text
        return Markup(md.esc(text))
    return Markup("".join(code(p) if i % 2 else md.esc(p) for i, p in enumerate(parts)))


def gettext(__string: str, **variables) -> Markup:
    """`{% trans %}` blocks and `_("...")` in templates: the text in the current locale (our own Markdown and
    HTML, trusted), its `%(name)s` placeholders filled with values escaped as every printed value is."""
    return Markup(i18n.translate(__string)) % {k: _finalize(v) for k, v in variables.items()}


def ngettext(__singular: str, __plural: str, __num: int, **variables) -> Markup:
    """`{% trans n=... %}...{% pluralize %}...{% endtrans %}`: singular or plural by the number."""
    text = i18n.ngettext(__singular, __plural, __num)
    return Markup(text) % {"num": __num, **{k: _finalize(v) for k, v in variables.items()}}


def original(text) -> Markup:
    """Text as a source wrote it (in English: notes, descriptions): escaped, and in another edition marked
    `lang="en"`, so a reader's browser and the untranslated-text test know it is quoted, not ours to translate."""
    if not md.known(text):
        return Markup(md.esc(text))
    if i18n.current() == i18n.DEFAULT:
        return Markup(md.esc(text))
    return Markup(f'<span lang="en">{md.esc(text)}</span>')


def gpu_link(gpu_id: str, name: str, prefix: str = "gpus/") -> Markup:
    """A link to a GPU's page, relative to the page that holds it."""
    return Markup(md.link(labels.gpu_name(name), f"{prefix}{gpu_id}.md"))


def frame(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> pd.DataFrame:
    """A query's rows as a DataFrame, dates as YYYY-MM-DD text."""
    result = con.execute(sql, params or []).df()
    for col in result.columns:
        if pd.api.types.is_datetime64_any_dtype(result[col]):
            result[col] = result[col].dt.strftime("%Y-%m-%d")
    return result


class _BuildCache(jinja2.FileSystemBytecodeCache):
    """Compiled templates kept between builds in the build's cache folder (`<build>/.cache/jinja-pages`, resolved
    when a template is first loaded, so an overridden build folder is used); each is keyed by its source's
    checksum, so an edited template is compiled again."""

    def __init__(self) -> None:
        self.pattern = "__jinja2_%s.cache"

    @property
    def directory(self) -> str:  # type: ignore[override]
        from pipeline.config import paths

        folder = paths().cache / "jinja-pages"
        folder.mkdir(parents=True, exist_ok=True)
        return str(folder)


class Family:
    """A page family's queries and templates, from the folder of the module that creates it."""

    def __init__(self, module_file: str, reads: set[str] = frozenset(), locales: tuple[str, ...] = i18n.LOCALES):
        """`reads`: views the family's code reads with queries it writes itself (the Data page describes every
        view), beside those of queries.sql. `locales`: the editions its pages appear in (files for programs,
        not pages, are written once, in English)."""
        self.folder = Path(module_file).parent
        self.reads = set(reads)
        self.locales = tuple(locales)
        self.name = self.folder.name
        self._memo: dict | None = None  # query results shared by the editions of one render_editions
        path = self.folder / "queries.sql"
        self.queries = load_queries(path) if path.is_file() else {}
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader([self.folder, SHARED_TEMPLATES]),
            autoescape=True,
            finalize=_finalize,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            extensions=["jinja2.ext.i18n"],
            bytecode_cache=_BuildCache(),
        )
        # newstyle gettext: placeholders are filled by our callables, which escape every value
        self.env.newstyle_gettext = True  # type: ignore[attr-defined]
        self.env.globals.update(gettext=gettext, ngettext=ngettext)
        self.env.globals.update(
            FORMATTERS, gpu_link=gpu_link, breakable=breakable, code=code, prose=prose, original=original
        )
        self.env.tests["known"] = md.known  # {% if x is known %}: neither missing nor empty
        # our own Markdown: the tier notes' *median* and *minimum* in italics
        self.env.globals["statistic_marks"] = labels.STATISTIC_MARKS  # translated when printed
        self.env.globals.update({name: _safe(getattr(labels, name)) for name in labels.FORMATTERS})

    def frame(self, con: duckdb.DuckDBPyConnection, name: str, *params) -> pd.DataFrame:
        """A named query's rows (run once per render_editions: see `once`)."""
        return self.once(
            ("frame", name, params), lambda: frame(con, self.queries[name], list(params)), pd.DataFrame.copy
        )

    def records(self, con: duckdb.DuckDBPyConnection, name: str, *params) -> list[dict]:
        """A query's rows as dicts, values as DuckDB returns them (dates as dates); run once per render_editions."""

        def run() -> list[dict]:
            cur = con.execute(self.queries[name], list(params))
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]

        return self.once(("records", name, params), run, lambda rows: [dict(r) for r in rows])

    def once(self, key: tuple, compute, copy):
        """Within render_editions a query runs once for all editions; each edition gets its own `copy` of the
        result (a context may change its rows). Outside it, the query simply runs."""
        if self._memo is None:
            return compute()
        if key not in self._memo:
            self._memo[key] = compute()
        return copy(self._memo[key])

    def rows(self, con: duckdb.DuckDBPyConnection, name: str, *params) -> list:
        """A query's rows as named tuples (attribute access in templates and context code)."""
        return list(self.frame(con, name, *params).itertuples(index=False))

    def render(self, template: str, **context) -> str:
        """A template rendered in the current locale: `lang` is the locale, `root` the path from the page to the
        site root's files (downloads, api/v1), which an edition under its own folder reaches with '../'."""
        with i18n.scope(self.folder):
            return self.env.get_template(template).render(lang=i18n.current(), root=i18n.root(), **context)

    @cached_property
    def views(self) -> set[str]:
        """The public views the family's queries read."""
        return self.reads.union(*(relations(q) for q in self.queries.values()))

    def not_views(self) -> set[str]:
        """Relations read that are not public views (a test keeps this empty)."""
        return self.views - set(VIEWS)


def programs_wanted() -> bool:
    """Whether this render keeps its files for programs (JSON, feeds): only the default edition's are written
    (render_editions), so a family skips building them for another edition's pages."""
    return i18n.current() == i18n.DEFAULT


def render_editions(module, con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """A family's files in every edition: the English render as the family names them; each other locale's pages
    (Markdown only: the files for programs are the English render's) under the locale's folder (`zh/`)."""
    out: dict[str, str] = {}
    module.FAMILY._memo = {}
    try:
        renders = {}
        for locale in module.FAMILY.locales:
            with i18n.use(locale), i18n.scope(module.FAMILY.folder):
                renders[locale] = module.render(con)
    finally:
        module.FAMILY._memo = None
    for locale, files in renders.items():
        if locale == i18n.DEFAULT:
            out.update(files)
        else:
            out.update(
                {
                    i18n.prefix(locale) + rel: _site_file_links(rel, text)
                    for rel, text in files.items()
                    if rel.endswith(".md")
                }
            )
    return out


# a Markdown link up to the site's own files, as an edition's page writes it: `]({{ root }}downloads/...)`
SITE_FILE_LINK = re.compile(r"\]\(\.\./(?=(?:downloads|api|feeds|charts)/|llms\.txt)")


def _site_file_links(rel: str, text: str) -> str:
    """An edition's Markdown links up to the site's files, made relative to the page's address. MkDocs rewrites a
    link to a file it builds; these files are outside the edition's folder, so it leaves them as written, and the
    browser resolves them from the page's address (`zh/data/`, one folder deeper than `data.md`)."""
    parts = Path(rel).with_suffix("").parts
    depth = len(parts) - (1 if parts[-1] == "index" else 0)  # folders between the edition's root and the page
    return SITE_FILE_LINK.sub("](" + "../" * (depth + 1), text)


def param_values(rows) -> dict[str, float | str]:
    """The `parameters` view's rows as {name: value}, numbers as floats."""
    out = {}
    for r in rows:
        try:
            out[r.name] = float(r.value)
        except (TypeError, ValueError):
            out[r.name] = r.value
    return out
