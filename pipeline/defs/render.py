"""Render: Markdown pages and charts from the database, downloads, and the MkDocs site."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

import altair as alt
import dagster as dg
import vl_convert
from dagster_duckdb import DuckDBResource

from pipeline.config import paths
from pipeline.contract import DATABASE_FILE, VIEW_KEYS, VIEWS, view_files
from pipeline.db import path_literal
from pipeline.render import i18n
from pipeline.render.family import RENDER_DIR, Family, render_editions
from pipeline.render.editions import build_editions, template_cache
from pipeline.steps import asset_of, ensure_views, view_reads

from .resources import AtlasPaths


def write_pages(docs: Path, generated: dict[str, str]) -> list[str]:
    """Write generated pages; a page whose text is unchanged is left alone (with its old modification time),
    so an incremental site build re-renders only the pages whose content changed. Returns the pages written."""
    written = []
    for rel, text in generated.items():
        path = docs / rel
        data = text.encode("utf-8")
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(rel)
    return written


@dg.asset(
    group_name="render",
    kinds={"markdown"},
    description="Hand-written pages from site/ plus vega, vega-lite and vega-embed at Altair's versions (no CDN); "
    "each other edition's folder (zh/) gets the same scripts and styles and its scripts' texts (messages.js).",
)
def site_docs_base(atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    docs = atlas_paths.docs
    # the catalogues (*.po) are read by the pipeline, not published
    shutil.copytree(atlas_paths.handwritten_dir, docs, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.po"))
    vendor = docs / "javascripts" / "vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    major_minor = ".".join(alt.VEGALITE_VERSION.split(".")[:2])
    # bundling takes about a second and depends only on the versions: keep it between builds
    cached = (
        paths().cache / f"vega-bundle-{vl_convert.__version__}-vl{major_minor}-vega{vl_convert.get_vega_version()}.js"
    )
    if not cached.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        tmp.write_text(vl_convert.javascript_bundle(vl_version=major_minor), encoding="utf-8")
        tmp.replace(cached)
    shutil.copyfile(cached, vendor / "vega-bundle.js")
    for locale in i18n.LOCALES[1:]:  # an edition is a site of its own: it carries the same assets
        edition = docs / i18n.prefix(locale)
        for folder in ("javascripts", "stylesheets"):
            shutil.copytree(docs / folder, edition / folder, dirs_exist_ok=True)
        (edition / "javascripts" / "messages.js").write_text(i18n.script_messages(locale), encoding="utf-8")
    return dg.MaterializeResult(
        metadata={
            "vega_lite": alt.VEGALITE_VERSION,
            "vega": vl_convert.get_vega_version(),
            "vega_embed": vl_convert.get_vega_embed_version(),
            "bundle_bytes": cached.stat().st_size,
        }
    )


def family_modules() -> list:
    """Every page family: a folder under pipeline/render/ whose module defines FAMILY (see render/family.py)."""
    found = []
    for folder in sorted(p for p in RENDER_DIR.iterdir() if (p / "__init__.py").is_file()):
        module = importlib.import_module(f"pipeline.render.{folder.name}")
        if isinstance(getattr(module, "FAMILY", None), Family):
            found.append(module)
    return found


def family_asset(module) -> dg.AssetsDefinition:
    """A family's page asset: it depends on the tables its queries' views read, so a price refresh re-renders only
    the families that show prices."""
    family: Family = module.FAMILY
    reads = view_reads()
    tables = sorted({asset_of(t) for v in family.views for t in reads[v]})
    description = (module.__doc__ or family.name).strip().split("\n\n")[0].replace("\n", " ")

    @dg.asset(
        name=f"pages_{family.name}",
        group_name="render",
        kinds={"markdown", "jinja"},
        deps=[*tables, "site_docs_base"],
        description=f"{description} (pipeline/render/{family.name}/: queries over the views "
        f"{', '.join(sorted(family.views))}; context; templates)",
    )
    def _asset(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
        with database.get_connection() as con:
            ensure_views(con, family.views)
            generated = render_editions(module, con)
        written = write_pages(atlas_paths.docs, generated)
        atlas_paths.pages_written(written)  # final for this run: an incremental site build may draft them now
        return dg.MaterializeResult(metadata={"pages": len(generated), "pages_changed": len(written)})

    return _asset


family_assets = [family_asset(m) for m in family_modules()]


@dg.asset(
    group_name="render",
    kinds={"duckdb", "parquet", "csv"},
    deps=["public_views", "site_docs_base"],
    description="Downloads: the DuckDB file, and every public view as Parquet and CSV. A run that re-materialises "
    "only some tables (the price refresh) rewrites only the files of views that read them.",
)
def exports(context, database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    out = atlas_paths.exports
    out.mkdir(parents=True, exist_ok=True)
    selection = context.run.asset_selection
    rerun = None if selection is None else {key.to_user_string() for key in selection}
    reads = view_reads()
    written = []
    with database.get_connection() as con:
        for view in VIEWS:
            files = [out / name for name in view_files(view)]
            unchanged = rerun is not None and not (reads.get(view, set()) & rerun)
            if unchanged and all(f.is_file() for f in files):
                continue
            # rows ordered by every column, leading (key) columns first: two builds of the same sources give
            # the same bytes (a view with a declared key sorts by it alone: the same order, sooner)
            ordered = f"select * from {view} order by {', '.join(VIEW_KEYS.get(view, ['all']))}"
            con.execute(f"copy ({ordered}) to {path_literal(files[0])} (format parquet)")
            if len(files) > 1:  # CSV too, unless the view is too large for a spreadsheet (contract.PARQUET_ONLY)
                con.execute(f"copy ({ordered}) to {path_literal(files[1])} (header)")
            written.append(view)
        # the database itself: checkpointed, so the file holds everything, then copied as a file
        con.execute("checkpoint")
        shutil.copyfile(database.database, out / DATABASE_FILE)
    files = sorted(p for p in out.iterdir() if p.is_file())
    return dg.MaterializeResult(
        metadata={"files": len(files), "views_written": len(written), "bytes": sum(p.stat().st_size for p in files)}
    )


@dg.asset(
    group_name="render",
    kinds={"mkdocs"},
    deps=[*(a.key for a in family_assets), "exports", "site_docs_base"],
    description="mkdocs build --strict of the assembled pages into the static site; in a price refresh, "
    "only the pages whose Markdown changed are re-rendered and the search index is merged.",
)
def site(atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    # the editions are built at once, each by a process of its own, started and warmed up when the run began
    # (AtlasPaths starts them; in a price refresh they have drafted the pages written early)
    results = build_editions(
        atlas_paths.mkdocs_config,
        atlas_paths.docs,
        atlas_paths.site,
        i18n.LOCALES,
        incremental=atlas_paths.incremental,
        template_cache=template_cache(),
        editions=atlas_paths.take_editions(),
    )
    pages_built = sum(1 for _ in atlas_paths.site.rglob("index.html"))
    return dg.MaterializeResult(
        metadata={
            "html_pages": pages_built,
            "pages_rendered": sum(r.pages_rendered for r in results.values()),
            "incremental": all(r.incremental for r in results.values()),
            "search_entries": {locale: r.search_entries for locale, r in results.items()},
            "site_dir": str(atlas_paths.site),
        }
    )


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(
        assets=[
            site_docs_base,
            *family_assets,
            exports,
            site,
        ]
    )
