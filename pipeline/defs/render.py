"""Render: Markdown pages and charts from the database, downloads, and the MkDocs site."""

from __future__ import annotations

import hashlib
import importlib
import shutil
from pathlib import Path

import altair as alt
import dagster as dg
import duckdb
import vl_convert
from dagster_duckdb import DuckDBResource

from pipeline.vendor import installed as installed_vendor

from pipeline.config import paths
from pipeline.contract import DATABASE_FILE, VIEW_KEYS, VIEWS, view_files
from pipeline.db import path_literal
from pipeline.render import i18n
from pipeline.render.family import RENDER_DIR, Family, render_editions
from pipeline.render.site import build_editions, template_cache
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
    shutil.copytree(atlas_paths.handwritten, docs, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.po"))
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
    # the browser's SQL engine (DuckDB-WASM and its imports, fetched by `make setup`), once at the site's root:
    # both editions' Planner pages load it from there
    shutil.copytree(installed_vendor(), docs / "vendor", dirs_exist_ok=True, ignore=shutil.ignore_patterns(".*"))
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
        return dg.MaterializeResult(metadata={"pages": len(generated), "pages_changed": len(written)})

    return _asset


family_assets = [family_asset(m) for m in family_modules()]


# A spreadsheet takes a cell that begins with one of these for a formula (OWASP, "CSV injection"). DuckDB's string
# literals keep their backslashes: the regular expression (RE2) reads \- as a hyphen, \t a tab and \r a return.
FORMULA_START = r"^[=+\-@\t\r]"
# the key of a Parquet download's metadata that records what the view's files were written from (view_fingerprint)
FINGERPRINT_KEY = "gpu_atlas_fingerprint"


def quoted(name: str) -> str:
    """A column name as a SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def csv_select_list(columns: list[tuple[str, str]], alias: str) -> str:
    """The select list that writes a view's `columns` (name and DuckDB type, as `describe` gives them) from
    `alias` to a CSV file safe to open in a spreadsheet: a VARCHAR cell that begins with `=`, `+`, `-`, `@`, a
    tab or a carriage return is written with a leading `'`, so the spreadsheet shows the text instead of running
    it as a formula (OWASP's advice on CSV injection). Text that begins with `-` is quoted too, even when it reads
    like a number ("-5"): text stays text. Other columns are written as they are: a negative number is a number,
    and dates and lists cannot start a formula. Same columns, in the same order, under the same names; NULL
    stays NULL. Parquet files keep typed values and need none of this."""
    items = []
    for name, column_type in columns:
        ref = f"{alias}.{quoted(name)}"
        if column_type == "VARCHAR":
            ref = f"case when regexp_matches({ref}, '{FORMULA_START}') then '''' || {ref} else {ref} end"
        items.append(f"{ref} as {quoted(name)}")
    return ", ".join(items)


def view_fingerprint(con, view: str, queries: list[str]) -> str:
    """What a view's downloads are written from: its rows (their number and the sum of their hashes, whatever
    their order) and the queries that write them (columns, types, order, CSV quoting), with DuckDB's version
    (its hash and its Parquet writer). The same fingerprint, the same files. Hashing every view's rows takes
    about 0.1 s where writing every file takes 1 to 2 s."""
    rows, total = con.execute(f"select count(*), coalesce(sum(hash(v)::hugeint), 0) from {view} as v").fetchone()
    text = "\n".join([duckdb.__version__, str(rows), str(total), *queries])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def written_fingerprint(con, parquet: Path) -> str | None:
    """The fingerprint a Parquet download was written with (None: no file, or not one of ours)."""
    if not parquet.is_file():
        return None
    try:
        row = con.execute(
            "select value::varchar from parquet_kv_metadata(?) where key::varchar = ?", [str(parquet), FINGERPRINT_KEY]
        ).fetchone()
    except duckdb.Error:
        return None
    return row[0] if row else None


def write_view(con, view: str, out: Path) -> bool:
    """Write one public view's downloads into `out`, Parquet and, unless the view is too large for a spreadsheet
    (contract.PARQUET_ONLY), CSV, unless they were written from the same rows and queries already (the price
    refresh starts from a copy of the last build's files: it rewrites those whose view changed, whichever
    assets the run selected). Rows are ordered by the view's key columns where it declares them, otherwise by
    every column, so two builds of the same sources give the same bytes; the CSV has the Parquet's rows in
    the Parquet's order (sorted by the values, not by their quoted text). Returns whether it wrote them."""
    files = [out / name for name in view_files(view)]
    columns = [(name, column_type) for name, column_type, *_ in con.execute(f"describe {view}").fetchall()]
    keys = VIEW_KEYS.get(view) or [name for name, _ in columns]
    order = ", ".join(f"v.{quoted(k)}" for k in keys)  # qualified: the view's values, not the select list's
    queries = [f"select * from {view} as v order by {order}"]
    if len(files) > 1:
        queries.append(f"select {csv_select_list(columns, 'v')} from {view} as v order by {order}")
    fingerprint = view_fingerprint(con, view, queries)
    if all(f.is_file() for f in files) and written_fingerprint(con, files[0]) == fingerprint:
        return False
    if len(files) > 1:
        con.execute(f"copy ({queries[1]}) to {path_literal(files[1])} (header)")
    # the Parquet file last: it records the fingerprint, so a write cut short is written again next time
    con.execute(
        f"copy ({queries[0]}) to {path_literal(files[0])} "
        f"(format parquet, kv_metadata {{{FINGERPRINT_KEY}: '{fingerprint}'}})"
    )
    return True


@dg.asset(
    group_name="render",
    kinds={"duckdb", "parquet", "csv"},
    deps=["public_views", "site_docs_base"],
    description="Downloads: the DuckDB file, and every public view as Parquet and CSV (text a spreadsheet would "
    "run as a formula written as text). A view's files are rewritten when its rows changed, whichever assets "
    "the run selected (the price refresh starts from the last build's files).",
)
def exports(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.MaterializeResult:
    out = atlas_paths.exports
    out.mkdir(parents=True, exist_ok=True)
    with database.get_connection() as con:
        written = [view for view in VIEWS if write_view(con, view, out)]
        # the database itself (the file this run writes): checkpointed, so the file holds everything, then copied
        (path,) = con.execute("select path from duckdb_databases() where database_name = current_database()").fetchone()
        con.execute("checkpoint")
        shutil.copyfile(path, out / DATABASE_FILE)
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
    # each edition in turn, in this process (pipeline/render/site.py)
    results = build_editions(
        atlas_paths.mkdocs,
        atlas_paths.docs,
        atlas_paths.site,
        i18n.LOCALES,
        incremental=atlas_paths.incremental,
        template_cache=template_cache(),
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
