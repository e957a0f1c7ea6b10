"""Keeping the message catalogues (pipeline/render/i18n.py) in step with the code: every text the templates,
the families' Python and the scripts mark is extracted with Babel, added to its PO file untranslated, and
dropped when no longer marked; `check` lists texts without a translation and template words left outside a
translated block.

    uv run python -m pipeline.render.catalogues update [folder ...]
    uv run python -m pipeline.render.catalogues check [folder ...]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .i18n import RENDER_DIR, ROOT, _forget, _read

KEYWORDS = {"_": None, "N_": None, "gettext": None, "ngettext": (1, 2), "t": None}


def _extract(folder: Path, patterns: list[tuple[str, str]], recursive: bool = True):
    """(msgid, plural or None, file, line) of every marked text under a folder."""
    from babel.messages.extract import extract_from_file

    options = {"extensions": "jinja2.ext.i18n", "newstyle_gettext": "true"}
    for pattern, method in patterns:
        files = folder.rglob(pattern) if recursive else folder.glob(pattern)
        for path in sorted(files):
            if ".venv" in path.parts or "vendor" in path.parts:
                continue
            method_fn = "jinja2.ext:babel_extract" if method == "jinja2" else method
            for lineno, message, _comments, _context in extract_from_file(
                method_fn, str(path), keywords=KEYWORDS, options=options, strip_comment_tags=True
            ):
                if isinstance(message, (tuple, list)):
                    yield message[0], (message[1] if len(message) > 1 else None), path, lineno
                else:
                    yield message, None, path, lineno


def catalogue_sources(locale: str = "zh") -> dict[Path, list[tuple[Path, str]]]:
    """Each PO file and where its texts come from: (folder, glob) pairs."""
    out: dict[Path, list] = {RENDER_DIR / "templates" / f"{locale}.po": []}
    for folder in sorted(p for p in RENDER_DIR.iterdir() if p.is_dir() and (p / "__init__.py").is_file()):
        out[folder / f"{locale}.po"] = [(folder, "family")]
    out[RENDER_DIR / "templates" / f"{locale}.po"] = [(RENDER_DIR, "shared")]
    out[ROOT / "site" / f"{locale}.po"] = [(ROOT / "site" / "javascripts", "scripts")]
    return out


def marked_texts(locale: str = "zh") -> dict[Path, dict[str, list[str]]]:
    """Per PO file, every text the code marks, with where it is (file:line)."""
    out: dict[Path, dict[str, list[str]]] = {}
    for po, origins in catalogue_sources(locale).items():
        texts: dict[str, list[str]] = {}
        for folder, kind in origins:
            if kind == "family":
                found = _extract(folder, [("*.py", "python"), ("*.j2", "jinja2")])
            elif kind == "shared":
                found = _extract(folder, [("*.py", "python")], recursive=False)
                found = [*found, *_extract(folder / "templates", [("*.j2", "jinja2")])]
            else:
                found = _extract(folder, [("*.js", "javascript")], recursive=False)
            for msgid, _plural, path, line in found:
                if msgid:
                    texts.setdefault(msgid, []).append(f"{path.relative_to(ROOT)}:{line}")
        out[po] = texts
    return out


def _selected(po: Path, only: list[str] | None) -> bool:
    """A catalogue named by its folder ('models', 'templates', 'site'), or every one when none is named."""
    return not only or po.parent.name in only


def update(locale: str = "zh", only: list[str] | None = None) -> dict[Path, tuple[int, int]]:
    """Add every marked text missing from its catalogue (untranslated) and drop texts no longer marked; keeps
    every translation. Returns per file (added, dropped)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    result = {}
    for po, texts in marked_texts(locale).items():
        if not _selected(po, only):
            continue
        old = Catalog(locale=locale)
        if po.is_file():
            with po.open("rb") as f:
                old = read_po(f, locale=locale)
        new = Catalog(
            locale=locale,
            project="GPU Atlas",
            version="1",
            fuzzy=False,
            creation_date=old.creation_date if po.is_file() else None,
            revision_date=old.revision_date if po.is_file() else None,
            last_translator="GPU Atlas",
            language_team="GPU Atlas",
        )
        new.header_comment = (
            f"# {locale} translations of {po.parent.relative_to(ROOT)} for GPU Atlas.\n"
            "# Corrections welcome: change a msgstr, rebuild (make build) and the pages follow."
        )
        kept = 0
        for msgid, where in texts.items():
            previous = old.get(msgid)
            string = previous.string if previous is not None else ""
            new.add(msgid, string, locations=[(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) for w in where[:3]])
            kept += previous is not None
        dropped = sum(1 for m in old if m.id and m.id not in texts)
        if texts or po.is_file():
            with po.open("wb") as f:
                write_po(f, new, width=120, omit_header=False, sort_output=False, include_previous=False)
        result[po] = (len(texts) - kept, dropped)
    _forget()
    return result


def fill(po: Path, translations: dict[str, str]) -> int:
    """Write translations into a PO file (by msgid; texts not in the file are ignored). Returns how many were set."""
    from babel.messages.pofile import read_po, write_po

    with po.open("rb") as f:
        cat = read_po(f, locale="zh")
    n = 0
    for message in cat:
        if message.id in translations:
            message.string = translations[message.id]
            n += 1
    with po.open("wb") as f:
        write_po(f, cat, width=120, sort_output=False, include_previous=False)
    _forget()
    return n


def untranslated(locale: str = "zh", only: list[str] | None = None) -> dict[Path, list[str]]:
    """Per PO file, the marked texts that have no translation in it."""
    out = {}
    for po, texts in marked_texts(locale).items():
        if not _selected(po, only):
            continue
        table = _read(po, locale) if po.is_file() else {}
        gaps = [t for t in texts if t not in table]
        if gaps:
            out[po] = gaps
    return out


# -- texts a template prints outside {% trans %} ---------------------------------------------------------------

_SHOWN_ATTRIBUTES = re.compile(r'\b(?:aria-label|title|placeholder|alt)="([^"{]*)"')
_NOT_TEXT = [
    re.compile(r"<(script|style)\b.*?</\1>", re.S),
    re.compile(r"^---\n(?:.*\n)*?---$", re.M),  # front matter
    re.compile(r"<[^>]*>?"),  # tags (their shown attributes are read first)
    re.compile(r"^[^<]*>", re.S),  # the end of a tag opened before a Jinja expression
    re.compile(r'[\w-]+="[^"]*"?'),  # attributes of a tag a Jinja expression splits
    re.compile(r"\]\([^)]*\)?"),  # link targets
    re.compile(r"\{:[^}]*\}"),  # attribute lists
    re.compile(r"&#?\w+;"),  # entities
    re.compile(r"https?://\S+"),
    re.compile(r"\S*/\S*"),  # paths
    re.compile(r"\b[\w.-]+\.(?:json|md|txt|sql|py|js|csv|duckdb|parquet|svg|png)\b"),
]


def translated_templates() -> list[Path]:
    """The templates whose pages appear in more than one edition: the shared ones and those of every family but
    the ones written in English only (files for programs: `Family(locales=("en",))`)."""
    import importlib

    out = sorted((RENDER_DIR / "templates").glob("*.j2"))
    for folder in sorted(p for p in RENDER_DIR.iterdir() if (p / "__init__.py").is_file()):
        family = getattr(importlib.import_module(f"pipeline.render.{folder.name}"), "FAMILY", None)
        if family is not None and len(family.locales) > 1:
            out += sorted(folder.glob("*.j2"))
    return out


def untranslated_literals(template: Path) -> list[str]:
    """'file:line: text' for every word a template prints outside `{% trans %}` blocks and `_()` calls: text it
    shows in English in every edition."""
    import jinja2

    env = jinja2.Environment(extensions=["jinja2.ext.i18n"])
    source = template.read_text(encoding="utf-8")
    name = template.relative_to(ROOT) if template.is_relative_to(ROOT) else template
    found, depth, previous, in_fence = [], 0, None, False
    for lineno, kind, value in env.lex(source):
        if kind == "name" and previous == "block_begin":
            depth += value == "trans"
            depth -= value == "endtrans"
        if kind not in ("block_begin", "variable_begin", "whitespace"):
            previous = kind
        if kind == "block_begin":
            previous = "block_begin"
        if kind != "data":
            continue
        pieces = value.split("```")  # code blocks (SQL examples) may hold Jinja expressions: track the fences
        outside = [p for i, p in enumerate(pieces) if (i % 2 == 0) != in_fence]
        in_fence ^= len(pieces) % 2 == 0
        if depth:
            continue
        value = " ".join(outside)
        shown = " ".join(_SHOWN_ATTRIBUTES.findall(value))
        text = value
        for pattern in _NOT_TEXT:
            text = pattern.sub(" ", text)
        for words in (shown, text):
            if re.search(r"[A-Za-z]{2,}", words):
                found.append(f"{name}:{lineno}: {' '.join(words.split())[:80]}")
    return found


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    only = argv[1:] or None
    if command == "update":
        for po, (added, dropped) in update(only=only).items():
            if added or dropped:
                print(f"{po.relative_to(ROOT)}: {added} new, {dropped} dropped")
        command = "check"
    if command == "check":
        for template in translated_templates():
            if only and template.parent.name not in only:
                continue
            for line in untranslated_literals(template):
                print(f"not marked for translation: {line}")
        gaps = untranslated(only=only)
        for po, texts in gaps.items():
            print(f"{po.relative_to(ROOT)}: {len(texts)} without a translation")
            for t in texts[:20]:
                print(f"  {t[:100]!r}")
        return 1 if gaps else 0
    print("usage: python -m pipeline.render.catalogues [update|check]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
