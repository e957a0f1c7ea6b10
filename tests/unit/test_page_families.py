"""Every page family reads the public views only, names its queries, and has a page asset whose dependencies are
the tables behind those views."""

from __future__ import annotations

import pytest

from pipeline.contract import VIEWS
from pipeline.defs.render import family_assets, family_modules
from pipeline.render.family import load_queries, relations
from pipeline.steps import asset_of, view_reads

MODULES = family_modules()


def test_the_families_are_found():
    names = {m.FAMILY.name for m in MODULES}
    assert {"sources", "data", "own_or_rent"} <= names


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.FAMILY.name)
def test_a_family_reads_only_public_views(module):
    family = module.FAMILY
    assert family.views, "a family reads at least one view"
    assert family.not_views() == set()
    assert family.views <= set(VIEWS)


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.FAMILY.name)
def test_a_family_has_a_described_template(module):
    assert list(module.FAMILY.folder.glob("*.j2")), "its pages are templates"
    assert (module.__doc__ or "").strip(), "its docstring describes the pages (the asset's description)"


def test_a_family_asset_depends_on_the_tables_behind_its_views():
    reads = view_reads()
    for module, asset in zip(MODULES, family_assets):
        expected = {asset_of(t) for v in module.FAMILY.views for t in reads[v]}
        deps = {k.to_user_string() for k in asset.dependency_keys}
        assert expected <= deps, module.FAMILY.name
        assert "public_views" not in deps  # a price refresh re-renders only the families that read prices


def test_relations_ignore_ctes_strings_comments_macros_and_table_functions(tmp_path):
    sql = tmp_path / "queries.sql"
    sql.write_text(
        "-- name: a\n-- from core_gpus (a comment)\nwith x as (select * from gpus), y as (select 1)\n"
        "select * from x join y on true join models using (model_id) where name = 'from core_models';\n"
        "-- name: b\nselect * from core_price_offers;\n"
        "-- name: c\nselect param('price_max_age_days') as days, g.* from range(3) as r, gpus as g;\n"
    )
    queries = load_queries(sql)
    assert set(queries) == {"a", "b", "c"}
    assert relations(queries["a"]) == {"gpus", "models"}
    assert relations(queries["b"]) == {"core_price_offers"}
    # what the query names itself: not the parameters a macro reads, not a table function
    assert relations(queries["c"]) == {"gpus"}


def test_no_module_of_the_pipeline_is_over_400_lines():
    """A module a newcomer can read at once: a longer one is split by what it is about."""
    from pathlib import Path

    import pipeline

    root = Path(pipeline.__file__).parent
    long = {
        str(p.relative_to(root)): n
        for p in root.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}
