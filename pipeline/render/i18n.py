"""The site's languages: English, in which every text is written, and Chinese, the edition under `/zh/`.

A text a reader sees is written once, in English, where it is shown: in a template inside
`{% trans %}...{% endtrans %}` or `_("...")`, in a family's Python as `_("...")` (`N_("...")` marks a text
kept in a table and translated where it is shown), in a script as `Atlas.t("...")`. Its Chinese sits in the
catalogue beside it, a gettext PO file a reader can correct with any text editor:

- `pipeline/render/<family>/zh.po`: the texts of that family's templates and module;
- `pipeline/render/templates/zh.po`: the shared ones (macros, formatters, labels, charts);
- `site/zh.po`: the scripts', written into the Chinese edition as `javascripts/messages.js`.

    uv run python -m pipeline.render.catalogues update [folder ...]  # add new texts, drop unused ones
    uv run python -m pipeline.render.catalogues check [folder ...]   # texts without a translation, or not marked

(`pipeline/render/catalogues.py`; `folder`: a family's folder name, `templates` for the shared catalogue, `site` for the scripts'.)

A text without a translation prints in English and is recorded (`missing()`); a test fails on any.
Placeholders are `%(name)s` (a literal percent sign is `%%`), in templates and in Python alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

RENDER_DIR = Path(__file__).parent
ROOT = RENDER_DIR.parent.parent
LOCALES = ("en", "zh")
DEFAULT = "en"
# what a page's `lang` attribute and number formats say, per locale
HTML_LANG = {"en": "en", "zh": "zh-CN"}

_locale: ContextVar[str] = ContextVar("atlas_locale", default=DEFAULT)
_missing: set[tuple[str, str]] = set()


def current() -> str:
    """The locale being rendered ('en' unless inside `use(...)`)."""
    return _locale.get()


@contextmanager
def use(locale: str) -> Iterator[None]:
    """Render in `locale` inside the block."""
    if locale not in LOCALES:
        raise ValueError(f"no locale {locale!r}; the site's locales: {', '.join(LOCALES)}")
    token = _locale.set(locale)
    try:
        yield
    finally:
        _locale.reset(token)


def prefix(locale: str | None = None) -> str:
    """The folder of a locale's pages inside the docs and the site ('' for English, 'zh/')."""
    locale = locale or current()
    return "" if locale == DEFAULT else f"{locale}/"


def root() -> str:
    """The path from a page's folder level to the site root's files (downloads, api/v1): '' in English, '../' in
    an edition under its own folder. Templates write `{{ root }}api/v1/...`."""
    return "../" if current() != DEFAULT else ""


def catalogue_files(locale: str = "zh") -> list[Path]:
    """Every PO file of a locale: the shared one, each family's, and the scripts'."""
    shared = RENDER_DIR / "templates" / f"{locale}.po"
    families = sorted(p for p in RENDER_DIR.glob(f"*/{locale}.po") if p != shared)
    scripts = ROOT / "site" / f"{locale}.po"
    return [p for p in (shared, *families, scripts) if p.is_file()]


@cache
def _read(path: Path, locale: str) -> dict[str, str | tuple[str, ...]]:
    """One PO file: msgid (singular) -> translation; fuzzy and empty entries left out."""
    from babel.messages.pofile import read_po

    out: dict[str, str | tuple[str, ...]] = {}
    with path.open("rb") as f:
        for message in read_po(f, locale=locale.replace("-", "_")):
            if not message.id or message.fuzzy:
                continue
            key = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
            value = message.string
            if isinstance(value, (tuple, list)):
                if all(value):
                    out[key] = tuple(value)
            elif value:
                out[key] = value
    return out


def catalogue(locale: str, folder: Path | None = None) -> dict[str, str | tuple[str, ...]]:
    """msgid -> translation as a text of `folder` (a family's) is looked up: its own catalogue first, then the
    shared one, then any other (a short word may mean one thing on one page and another elsewhere: "full"
    attention on Models, a "full" fine-tune on Training)."""
    files = catalogue_files(locale)
    shared = RENDER_DIR / "templates" / f"{locale}.po"
    own = [folder / f"{locale}.po"] if folder is not None else []
    order = [p for p in own if p.is_file()] + [p for p in files if p == shared] + files
    out: dict[str, str | tuple[str, ...]] = {}
    for path in reversed(order):  # the first in order wins
        out.update(_read(path, locale))
    return out


_scope: ContextVar[Path | None] = ContextVar("atlas_catalogue_scope", default=None)


@contextmanager
def scope(folder: Path | None) -> Iterator[None]:
    """Inside the block, a family's own catalogue is looked up first (render_editions sets it per family)."""
    token = _scope.set(folder)
    try:
        yield
    finally:
        _scope.reset(token)


def _lookup(locale: str, text: str):
    return _table(locale, _scope.get()).get(text)


@cache
def _table(locale: str, folder: Path | None) -> dict[str, str | tuple[str, ...]]:
    return catalogue(locale, folder)


def translate(text: str, locale: str | None = None) -> str:
    """The text in the locale (English when the catalogue has no translation: recorded as missing)."""
    locale = locale or current()
    if locale == DEFAULT:
        return text
    found = _lookup(locale, text)
    if found is None:
        _missing.add((locale, text))
        return text
    return found[0] if isinstance(found, tuple) else found


def _(text: str) -> str:
    """A text in the current locale (Python side: the result is plain text a template escapes)."""
    return translate(text)


def N_(text: str) -> str:  # noqa: N802 (the gettext convention)
    """Marks a text for the catalogue where it is defined; `_(...)` translates it where it is shown."""
    return text


def ngettext(singular: str, plural: str, n: int) -> str:
    """Singular or plural by n (Chinese has one form)."""
    locale = current()
    if locale == DEFAULT:
        return singular if n == 1 else plural
    found = _lookup(locale, singular)
    if found is None:
        _missing.add((locale, singular))
        return singular if n == 1 else plural
    return found[0] if isinstance(found, tuple) else found


def _forget() -> None:
    """Catalogues are read once per process; after writing one, read them again."""
    _read.cache_clear()
    _table.cache_clear()


def missing() -> set[tuple[str, str]]:
    """(locale, text) of every text rendered so far in this process without a translation."""
    return set(_missing)


def script_messages(locale: str) -> str:
    """`javascripts/messages.js` of an edition: the scripts' texts (`site/<locale>.po`), read by `Atlas.t`."""
    catalogue_file = ROOT / "site" / f"{locale}.po"
    table = _read(catalogue_file, locale) if catalogue_file.is_file() else {}
    body = json.dumps(table, ensure_ascii=False, sort_keys=True, indent=0)
    return f"// generated from site/{locale}.po by pipeline/render/i18n.py\nwindow.ATLAS_MESSAGES = {body};\n"
