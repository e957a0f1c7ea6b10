"""Render: Markdown pages and charts from the database, downloads, and the MkDocs site."""

from __future__ import annotations

import shutil
from pathlib import Path

import altair as alt
import dagster as dg
import vl_convert
from dagster_duckdb import DuckDBResource

from pipeline.contract import VIEWS
from pipeline.db import path_literal
from pipeline.render import pages
from pipeline.steps import define_macros

from .resources import AtlasPaths


def write_pages(docs: Path, generated: dict[str, str]) -> int:
    for rel, text in generated.items():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return len(generated)


@dg.asset(group_name="render", kinds={"markdown"},
          description="Hand-written pages from site/ plus vega, vega-lite and vega-embed at Altair's versions (no CDN).")
def site_docs_base(atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    docs = Path(atlas_paths.docs_dir)
    shutil.copytree(atlas_paths.handwritten_dir, docs, dirs_exist_ok=True)
    vendor = docs / "javascripts" / "vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    major_minor = ".".join(alt.VEGALITE_VERSION.split(".")[:2])
    bundle = vl_convert.javascript_bundle(vl_version=major_minor)
    (vendor / "vega-bundle.js").write_text(bundle, encoding="utf-8")
    return dg.MaterializeResult(metadata={
        "vega_lite": alt.VEGALITE_VERSION, "vega": vl_convert.get_vega_version(),
        "vega_embed": vl_convert.get_vega_embed_version(), "bundle_bytes": len(bundle)})


def page_asset(name: str, deps: list[str], fn, description: str) -> dg.AssetsDefinition:
    @dg.asset(name=name, group_name="render", kinds={"markdown", "altair"}, deps=[*deps, "site_docs_base"],
              description=description)
    def _asset(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
        with database.get_connection() as con:
            define_macros(con)
            generated = fn(con)
        n = write_pages(Path(atlas_paths.docs_dir), generated)
        return dg.MaterializeResult(metadata={"pages": n})

    return _asset


pages_specs = page_asset(
    "pages_specs", ["core_gpus", "core_spec_claims", "core_sources", "core_models", "out_model_claims"], pages.spec_pages,
    "GPU spec table and charts, sources, conflicts and model pages.")
pages_estimates = page_asset(
    "pages_estimates", ["out_vram_fit_detail", "out_memory_requirements", "core_parameters"], pages.estimate_pages,
    "VRAM-fit heatmaps and explorer, methodology with every parameter.")
pages_prices = page_asset(
    "pages_prices", ["out_rankings", "out_cost_per_tflop", "core_price_offers", "core_price_history",
                     "out_price_changes", "out_coverage", "out_inference_estimates", "out_training_estimates",
                     "core_spec_claims", "core_gpus", "out_vram_fit_detail"],
    pages.price_pages, "Home, rankings, cost per TFLOP, prices, what changed, coverage and one page per GPU.")


@dg.asset(group_name="render", kinds={"duckdb", "parquet", "csv"}, deps=["public_views", "site_docs_base"],
          description="Downloads: the DuckDB file, and every public view as Parquet and CSV.")
def exports(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    out = Path(atlas_paths.exports_dir)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    target = out / "gpu_atlas.duckdb"
    with database.get_connection() as con:
        current = con.execute("select current_database()").fetchone()[0]
        con.execute(f"attach {path_literal(target)} as download")
        try:
            con.execute(f'copy from database "{current}" to download')
        finally:
            con.execute("detach download")
        for view in VIEWS:
            con.execute(f"copy (select * from {view}) to {path_literal(out / (view + '.parquet'))} (format parquet)")
            if view != "vram_fit":  # hundreds of thousands of rows: Parquet only
                con.execute(f"copy (select * from {view}) to {path_literal(out / (view + '.csv'))} (header)")
    files = sorted(p.name for p in out.iterdir())
    return dg.MaterializeResult(metadata={"files": len(files), "bytes": sum(p.stat().st_size for p in out.iterdir())})


@dg.asset(group_name="render", kinds={"markdown"}, deps=["exports", "public_views"],
          description="The Data page: downloads, example SQL and the view reference generated from the contract.")
def pages_data(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    downloads = sorted(p.name for p in Path(atlas_paths.exports_dir).iterdir())
    with database.get_connection() as con:
        text = pages.data_page(con, downloads)
    write_pages(Path(atlas_paths.docs_dir), {"data.md": text})
    return dg.MaterializeResult(metadata={"downloads": len(downloads)})


@dg.asset(group_name="render", kinds={"mkdocs"},
          deps=["pages_specs", "pages_estimates", "pages_prices", "pages_data", "site_docs_base"],
          description="mkdocs build --strict of the assembled pages into the static site.")
def site(atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    cfg = load_config(config_file=atlas_paths.mkdocs_config, docs_dir=atlas_paths.docs_dir,
                      site_dir=atlas_paths.site_dir, strict=True)
    cfg.plugins.on_startup(command="build", dirty=False)
    try:
        build(cfg)
    finally:
        cfg.plugins.on_shutdown()
    pages_built = sum(1 for _ in Path(atlas_paths.site_dir).rglob("index.html"))
    return dg.MaterializeResult(metadata={"html_pages": pages_built, "site_dir": atlas_paths.site_dir})


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(assets=[site_docs_base, pages_specs, pages_estimates, pages_prices, exports, pages_data, site])
