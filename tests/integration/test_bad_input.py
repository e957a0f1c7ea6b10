"""A malformed source stops the build with file, row, column and rule; the last good build stays."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from pipeline.run import materialize
from pipeline.sources import write_checksums

pytestmark = pytest.mark.integration

PRICES = "prices/lambda/2026-09-20/prices.csv"
FIGURES = "specs/nvidia-datacenter/2026-11-22/figures.csv"
ALIASES = "aliases/lambda.csv"
CNY_PRICES = "prices/alibabacloud/2026-11-23/prices.csv"
PARTIAL = "prices/runpod/2026-11-09/prices.csv"


@pytest.fixture(scope="module")
def good_build(tmp_path_factory):
    base = tmp_path_factory.mktemp("bad-input")
    src = base / "sources"
    shutil.copytree(Path(__file__).resolve().parents[2] / "sources", src)
    mp = pytest.MonkeyPatch()
    mp.setenv("GPU_ATLAS_SOURCES", str(src))
    mp.setenv("GPU_ATLAS_DB", str(base / "data" / "atlas.duckdb"))
    mp.setenv("GPU_ATLAS_BUILD", str(base / "build"))
    outcome = materialize()
    assert outcome.ok, outcome.errors
    yield base
    mp.undo()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def edit(path: Path, fn) -> str:
    original = path.read_text(encoding="utf-8")
    lines = original.splitlines()
    path.write_text("\n".join(fn(lines)) + "\n", encoding="utf-8")
    return original


def set_cell(column: str, line: int, value: str):
    def fn(lines):
        header = lines[0].split(",")
        cells = lines[line - 1].split(",")
        cells[header.index(column)] = value
        lines[line - 1] = ",".join(cells)
        return lines
    return fn


def drop_column(column: str):
    def fn(lines):
        i = lines[0].split(",").index(column)
        return [",".join(c for j, c in enumerate(ln.split(",")) if j != i) for ln in lines]
    return fn


CASES = [
    ("negative price", PRICES, set_cell("usd_per_hour", 2, "-1.5"), True, [PRICES, "row 2", "usd_per_hour", "> 0"]),
    ("zero price", PRICES, set_cell("usd_per_hour", 3, "0"), True, [PRICES, "row 3", "usd_per_hour"]),
    ("non-numeric figure", FIGURES, set_cell("value", 2, "n/a"), True, [FIGURES, "row 2", "value", "cannot be read"]),
    ("missing column", PRICES, drop_column("pricing_tier"), True, [PRICES, "pricing_tier", "required column is missing"]),
    ("duplicate key", PRICES, lambda ls: ls + [ls[1]], True, [PRICES, "duplicate key"]),
    ("unknown GPU in alias table", ALIASES, set_cell("gpu_id", 2, "nvidia-h999-sxm-80gb"), True,
     [ALIASES, "row 2", "gpu_id", "in no gpus.csv"]),
    ("price in a currency with no dated rate", CNY_PRICES, set_cell("currency", 2, "EUR"), True,
     [CNY_PRICES, "row 2", "EUR", "exchange rate"]),
    ("a price given in two currencies", CNY_PRICES, set_cell("usd_per_hour", 2, "1.7"), True,
     [CNY_PRICES, "row 2", "not both"]),
    ("offer outside a partial snapshot's GPUs", PARTIAL, set_cell("gpu_name", 2, "B200"), True,
     [PARTIAL, "row 2", "covers"]),
    ("checksum mismatch", PRICES, set_cell("usd_per_hour", 2, "9.99"), False, ["prices.source.yml", "checksum"]),
]


@pytest.mark.parametrize("label,rel,change,fix_checksum,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_source_stops_the_build(good_build, label, rel, change, fix_checksum, expected):
    src = good_build / "sources" / rel
    db = good_build / "data" / "atlas.duckdb"
    index = good_build / "build" / "site" / "index.html"
    before = (digest(db), digest(index))
    original = edit(src, change)
    try:
        if fix_checksum:
            write_checksums(good_build / "sources")
        outcome = materialize()
    finally:
        src.write_text(original, encoding="utf-8")
        write_checksums(good_build / "sources")
    assert not outcome.ok
    message = "\n".join(outcome.errors)
    for part in expected:
        assert part in message, f"{label}: {part!r} not in:\n{message}"
    assert (digest(db), digest(index)) == before, "the last good database and site must stay untouched"


def test_bad_snapshot_stops_a_price_refresh(good_build):
    """A malformed new snapshot stops `refresh-prices` with file, row, column and rule; nothing is swapped in."""
    from pipeline.run import price_selection

    old = good_build / "sources" / "prices" / "lambda" / "2026-09-20"
    new = old.parent / "2026-12-02"
    shutil.copytree(old, new)
    site = good_build / "build" / "site"
    db = good_build / "data" / "atlas.duckdb"
    before = (digest(db), {p: digest(p) for p in site.rglob("*") if p.is_file()})
    try:
        edit(new / "prices.csv", set_cell("usd_per_hour", 3, "-2"))
        write_checksums(good_build / "sources")
        outcome = materialize(price_selection(), incremental=True)
    finally:
        shutil.rmtree(new)
        write_checksums(good_build / "sources")
    assert not outcome.ok
    message = "\n".join(outcome.errors)
    for part in ("sources/prices/lambda/2026-12-02/prices.csv", "row 3", "usd_per_hour", "> 0"):
        assert part in message, message
    assert (digest(db), {p: digest(p) for p in site.rglob("*") if p.is_file()}) == before


def test_missing_and_broken_sidecar(good_build):
    side = good_build / "sources" / PRICES.replace(".csv", ".source.yml")
    original = side.read_text(encoding="utf-8")
    try:
        side.write_text("title: [unclosed\n", encoding="utf-8")
        broken = materialize()
        side.unlink()
        missing = materialize()
    finally:
        side.write_text(original, encoding="utf-8")
    assert not broken.ok and "not valid YAML" in "\n".join(broken.errors)
    assert not missing.ok and "missing provenance sidecar" in "\n".join(missing.errors)


def test_price_refresh_touches_only_prices(good_build):
    """A new snapshot + refresh-prices: the What-changed page shows it; spec stages are not re-run."""
    from pipeline.bench import add_price_snapshot
    from pipeline.run import price_selection

    new = add_price_snapshot(good_build / "sources", day="2026-11-30")  # one Lambda price +10 %
    try:
        outcome = materialize(price_selection(), incremental=True)
        assert outcome.ok, outcome.errors
        assert "core_price_history" in outcome.materialized and "site" in outcome.materialized
        assert not {"core_gpus", "core_spec_claims", "out_memory_requirements", "raw_models"} & set(outcome.materialized)
        changes = (good_build / "build" / "site" / "changes" / "index.html").read_text(encoding="utf-8")
        assert "repriced" in changes and "+10.0%" in changes and "2026-11-30" in changes
    finally:
        shutil.rmtree(new)
        write_checksums(good_build / "sources")


def test_untrusted_text_is_escaped_on_the_site(good_build):
    """An offering name with HTML in a price file shows as text, never as markup."""
    from pipeline.run import price_selection

    folder = good_build / "sources" / "prices" / "lambda" / "2026-12-01"
    shutil.copytree(good_build / "sources" / "prices" / "lambda" / "2026-09-20", folder)
    try:
        lines = (folder / "prices.csv").read_text(encoding="utf-8").splitlines()
        cells = lines[1].split(",")
        cells[0] = '<img src=x onerror=alert(1)>*evil*'
        lines[1] = ",".join(cells)
        (folder / "prices.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        write_checksums(good_build / "sources")
        outcome = materialize(price_selection(), incremental=True)
        assert outcome.ok, outcome.errors
        page = (good_build / "build" / "site" / "prices" / "index.html").read_text(encoding="utf-8")
        # chart data sits in <script type="application/json"> (inert: only "</" is escaped there, and the
        # tooltips escape HTML); everywhere else the text must arrive escaped
        markup = re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.S)
        assert "&lt;img src=x onerror=alert(1)&gt;" in markup
        assert "<img src=x" not in markup and "<em>evil</em>" not in markup
    finally:
        shutil.rmtree(folder)
        write_checksums(good_build / "sources")
        assert materialize(price_selection(), incremental=True).ok
