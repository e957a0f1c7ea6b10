"""A page family renders from the built database, read-only, exactly the pages the build wrote: what
`python -m pipeline.render.preview` compares against (a template change shows as a diff and nothing else)."""

from __future__ import annotations

import pytest

from pipeline.defs.render import family_modules
from pipeline.render.preview import differences

# pages that print the day they were built (home, api, llms.txt) could cross midnight between build and test
DATED = {"home", "api"}


@pytest.mark.parametrize(
    "module", [m for m in family_modules() if m.FAMILY.name not in DATED], ids=lambda m: m.FAMILY.name
)
def test_a_family_renders_the_built_pages_again_from_the_read_only_database(module, db, built_site):
    docs = built_site["site"].parent / "docs"
    assert differences(module.render(db), docs) == {}


def test_a_changed_page_shows_as_a_diff(tmp_path):
    (tmp_path / "models.md").write_text("# Models\n\nold line\n", encoding="utf-8")
    diffs = differences({"models.md": "# Models\n\nnew line\n", "new.md": "x\n"}, tmp_path)
    assert set(diffs) == {"models.md", "new.md"}
    assert "-old line" in diffs["models.md"] and "+new line" in diffs["models.md"]


def test_each_page_has_one_writer(db):
    """No two families write the same file, and none writes over a hand-written page: a run writes each page once,
    and a page's text is its family's alone."""
    from pipeline.config import paths

    written: dict[str, str] = {}
    handwritten = {p.relative_to(paths().handwritten).as_posix() for p in paths().handwritten.rglob("*") if p.is_file()}
    for module in family_modules():
        for page in module.render(db):
            assert page not in written, f"{page}: written by {written[page]} and {module.FAMILY.name}"
            assert page not in handwritten, f"{page}: a hand-written page, overwritten by {module.FAMILY.name}"
            written[page] = module.FAMILY.name
    assert len(written) > 100
