"""Preview a page family's change without a build: render the family from the built database and show how each of
its files differs from the built pages.

    uv run python -m pipeline.render.preview rankings        # one family
    uv run python -m pipeline.render.preview                 # every family

Every edition is rendered (the Chinese pages under zh/).

The database is opened read-only (a family reads the public views only, so nothing is written); the built pages
are those of the last `gpu-atlas build` (build/docs). Exit status 1 when a file differs.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import duckdb


def differences(rendered: dict[str, str], docs: Path) -> dict[str, list[str]]:
    """Per file the family renders, the unified diff against the built page (new files diff against nothing);
    files whose text is the same are left out."""
    out = {}
    for rel, text in sorted(rendered.items()):
        path = docs / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        if old != text:
            out[rel] = list(
                difflib.unified_diff(
                    old.splitlines(), text.splitlines(), f"built/{rel}", f"rendered/{rel}", lineterm="", n=1
                )
            )
    return out


def main(argv: list[str]) -> int:
    from pipeline.config import paths
    from pipeline.defs.render import family_modules
    from pipeline.render.family import render_editions

    modules = {m.FAMILY.name: m for m in family_modules()}
    wanted = argv or sorted(modules)
    unknown = [name for name in wanted if name not in modules]
    if unknown:
        print(f"no page family {', '.join(unknown)}; families: {', '.join(sorted(modules))}", file=sys.stderr)
        return 2
    p = paths()
    if not p.database.is_file() or not p.docs.is_dir():
        print("no built site to compare with: run `make build` first", file=sys.stderr)
        return 2
    changed = 0
    with duckdb.connect(str(p.database), read_only=True) as con:
        for name in wanted:
            diffs = differences(render_editions(modules[name], con), p.docs)
            changed += len(diffs)
            for lines in diffs.values():
                print("\n".join(lines))
            print(f"{name}: {len(diffs)} file(s) differ from the built pages", file=sys.stderr)
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
