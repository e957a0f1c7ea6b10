"""The public DuckDB contract, read from `contract.yml`: what each view holds and what each column means.

Column meanings are defined once: the same name means the same quantity, in the same unit, in every view, unless
a view documents its own meaning for a column. The file is read with a loader that refuses a key given twice (a
YAML or dict literal would silently keep the last). The Data page and the OpenAPI document are generated from it,
and a test fails if a view gains a column without a meaning.
"""

from __future__ import annotations

from pathlib import Path

from .sourcefiles.files import DuplicateKeyError, load_yaml

CONTRACT_FILE = Path(__file__).with_name("contract.yml")
__all__ = ["DuplicateKeyError", "load_contract"]


def load_contract(text: str) -> dict:
    return load_yaml(text)


_CONTRACT = load_contract(CONTRACT_FILE.read_text(encoding="utf-8"))
# view -> (what one row is, what the view holds)
VIEWS: dict[str, tuple[str, str]] = {name: (v["grain"], v["holds"]) for name, v in _CONTRACT["views"].items()}
# view -> its leading columns that tell rows apart, where declared (the downloads are sorted by them)
VIEW_KEYS: dict[str, list[str]] = {name: list(v["key"]) for name, v in _CONTRACT["views"].items() if v.get("key")}
# column -> meaning, shared by every view that has the column
COLUMN_DOCS: dict[str, str] = dict(_CONTRACT["columns"])
# view -> {column -> meaning} where a view's column means something else
VIEW_COLUMN_DOCS: dict[str, dict[str, str]] = {
    name: dict(v.get("columns") or {}) for name, v in _CONTRACT["views"].items()
}


def column_doc(view: str, column: str) -> str | None:
    """What a view's column means: the view's own meaning, or the shared one."""
    return VIEW_COLUMN_DOCS.get(view, {}).get(column, COLUMN_DOCS.get(column))


# downloads: every view as Parquet, and as CSV unless it is too large to open as a spreadsheet; the database itself
PARQUET_ONLY = {"vram_fit"}
DATABASE_FILE = "gpu_atlas.duckdb"


def view_files(view: str) -> list[str]:
    """The download files of one view, Parquet first."""
    return [f"{view}.parquet"] + ([] if view in PARQUET_ONLY else [f"{view}.csv"])


def downloads() -> list[str]:
    """Every file of the downloads folder, sorted by name."""
    return sorted([DATABASE_FILE, *(f for view in VIEWS for f in view_files(view))])
