"""The public DuckDB contract, as the pages, the downloads and the MCP server read it: the public views with what one
row is and what each holds, their keys and what each column means. Each view is declared in the <table>.yml of
the table it shows (pipeline/tables.py reads them); this module only gathers them."""

from __future__ import annotations

from .tables import column_doc, column_unit, views

__all__ = [
    "DATABASE_FILE",
    "PARQUET_ONLY",
    "VIEWS",
    "VIEW_KEYS",
    "column_doc",
    "column_unit",
    "downloads",
    "view_files",
]

# view -> (what one row is, what the view holds), in name order
VIEWS: dict[str, tuple[str, str]] = {name: (v.grain, v.holds) for name, v in views().items()}
# view -> its leading columns that tell rows apart, where declared (the downloads are sorted by them)
VIEW_KEYS: dict[str, list[str]] = {name: list(v.key) for name, v in views().items() if v.key}

# downloads: every view as Parquet, and as CSV unless it is too large to open as a spreadsheet; the database itself
PARQUET_ONLY = {"vram_fit"}
DATABASE_FILE = "gpu_atlas.duckdb"


def view_files(view: str) -> list[str]:
    """The download files of one view, Parquet first."""
    return [f"{view}.parquet"] + ([] if view in PARQUET_ONLY else [f"{view}.csv"])


def downloads() -> list[str]:
    """Every file of the downloads folder, sorted by name."""
    return sorted([DATABASE_FILE, *(f for view in VIEWS for f in view_files(view))])
