"""A malformed source stops the build with file, row, column and rule; the last good build stays."""

from __future__ import annotations

import hashlib
import random
import re
import shutil
from pathlib import Path

import pytest

from pipeline.bench import add_price_snapshot
from pipeline.config import paths_overridden
from pipeline.jobs import build, refresh_prices
from pipeline.sourcefiles import build_date, write_checksums
from tests.conftest import copy_of_build

pytestmark = pytest.mark.integration

PRICES = "prices/lambda/2026-09-20/prices.csv"
FIGURES = "specs/nvidia-datacenter/2026-11-22/figures.csv"
ALIASES = "prices/lambda/aliases.csv"
DAY = build_date().isoformat()  # a new snapshot is dated at the latest today
CNY_PRICES = "prices/alibabacloud/2026-11-23/prices.csv"
DO_ONE_GPU = "prices/digitalocean/2026-10-04/prices.csv"  # covers gpu_counts: [1]
PARTIAL = "prices/runpod/2026-11-09/prices.csv"


@pytest.fixture(scope="module")
def good_build(built_site, tmp_path_factory):
    """The last good build: the real sources' (a copy of the session's), with its own sources to break."""
    base = tmp_path_factory.mktemp("bad-input")
    copy = copy_of_build(built_site, base)
    with paths_overridden(copy["db"], copy["build"], copy["sources"]):
        yield base


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
    (
        "missing column",
        PRICES,
        drop_column("pricing_tier"),
        True,
        [PRICES, "pricing_tier", "required column is missing"],
    ),
    ("duplicate key", PRICES, lambda ls: ls + [ls[1]], True, [PRICES, "duplicate key"]),
    (
        "unknown GPU in alias table",
        ALIASES,
        set_cell("gpu_id", 2, "nvidia-h999-sxm-80gb"),
        True,
        [ALIASES, "row 2", "gpu_id", "in no gpus.csv"],
    ),
    (
        "price in a currency with no dated rate",
        CNY_PRICES,
        set_cell("currency", 2, "GBP"),
        True,
        [CNY_PRICES, "row 2", "GBP", "exchange rate"],
    ),
    (
        "a price given in two currencies",
        CNY_PRICES,
        set_cell("usd_per_hour", 2, "1.7"),
        True,
        [CNY_PRICES, "row 2", "not both"],
    ),
    (
        "offer outside a partial snapshot's GPUs",
        PARTIAL,
        set_cell("gpu_name", 2, "B200"),
        True,
        [PARTIAL, "row 2", "covers"],
    ),
    (
        "offer outside a snapshot's GPU counts",
        DO_ONE_GPU,
        set_cell("gpu_count", 2, "8"),
        True,
        [DO_ONE_GPU, "row 2", "GPU counts"],
    ),
    ("checksum mismatch", PRICES, set_cell("usd_per_hour", 2, "9.99"), False, ["prices.source.yml", "checksum"]),
    # a cell a spreadsheet would run as a formula is no name a provider gives
    ("offering as a formula", PRICES, set_cell("offering", 2, "=1+2"), True, [PRICES, "row 2", "offering", "letter"]),
    ("region as a formula", PRICES, set_cell("region", 3, "@SUM(A1)"), True, [PRICES, "row 3", "region", "letter"]),
    (
        "a sidecar key given twice",
        PRICES.replace(".csv", ".source.yml"),
        lambda ls: ls + ["publisher: Someone else"],
        False,
        ["prices.source.yml", "'publisher' given twice"],
    ),
]


@pytest.mark.parametrize("label,rel,change,fix_checksum,expected", CASES, ids=[c[0] for c in CASES])
def test_bad_source_stops_the_build(good_build, label, rel, change, fix_checksum, expected):
    src = good_build / "sources" / rel
    db = good_build / "data" / "gpu_atlas.duckdb"
    index = good_build / "build" / "site" / "index.html"
    before = (digest(db), digest(index))
    original = edit(src, change)
    try:
        if fix_checksum:
            write_checksums(good_build / "sources")
        outcome = build()
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
    new = add_price_snapshot(good_build / "sources", day=DAY, change=1.0)
    site = good_build / "build" / "site"
    db = good_build / "data" / "gpu_atlas.duckdb"
    before = (digest(db), {p: digest(p) for p in site.rglob("*") if p.is_file()})
    try:
        edit(new / "prices.csv", set_cell("usd_per_hour", 3, "-2"))
        write_checksums(good_build / "sources")
        outcome = refresh_prices()
    finally:
        shutil.rmtree(new)
        write_checksums(good_build / "sources")
    assert not outcome.ok
    message = "\n".join(outcome.errors)
    for part in (f"sources/prices/lambda/{DAY}/prices.csv", "row 3", "usd_per_hour", "> 0"):
        assert part in message, message
    assert (digest(db), {p: digest(p) for p in site.rglob("*") if p.is_file()}) == before


def test_a_provider_folder_with_a_bad_name_is_refused_with_its_path(good_build):
    """A folder's name becomes a provider id on the pages, in the API and in the downloads."""
    bad = good_build / "sources" / "prices" / '=HYPERLINK("http:x")'
    shutil.copytree((good_build / "sources" / PRICES).parent, bad / "2026-09-20")
    db = good_build / "data" / "gpu_atlas.duckdb"
    before = digest(db)
    try:
        outcome = build()
    finally:
        shutil.rmtree(bad)
    assert not outcome.ok
    message = "\n".join(outcome.errors)
    assert 'sources/prices/=HYPERLINK("http:x")/2026-09-20/prices.csv' in message, message
    assert "lower-case letters, digits and hyphens" in message
    assert digest(db) == before


def test_missing_and_broken_sidecar(good_build):
    side = good_build / "sources" / PRICES.replace(".csv", ".source.yml")
    original = side.read_text(encoding="utf-8")
    try:
        side.write_text("title: [unclosed\n", encoding="utf-8")
        broken = build()
        side.unlink()
        missing = build()
    finally:
        side.write_text(original, encoding="utf-8")
    assert not broken.ok and "not valid YAML" in "\n".join(broken.errors)
    assert not missing.ok and "missing provenance sidecar" in "\n".join(missing.errors)


def test_price_refresh_touches_only_prices(good_build):
    """A new snapshot + refresh-prices: the What-changed page shows it; spec stages are not re-run."""
    new = add_price_snapshot(good_build / "sources", day=DAY)  # one Lambda price +10 %
    try:
        outcome = refresh_prices()
        assert outcome.ok, outcome.errors
        assert "core_price_history" in outcome.materialized and "site" in outcome.materialized
        assert not {"core_gpus", "core_spec_claims", "out_memory_requirements", "raw_models"} & set(
            outcome.materialized
        )
        changes = (good_build / "build" / "site" / "changes" / "index.html").read_text(encoding="utf-8")
        assert "repriced" in changes and "+10.0%" in changes and DAY in changes
    finally:
        shutil.rmtree(new)
        write_checksums(good_build / "sources")


def test_untrusted_text_is_escaped_on_the_site(good_build):
    """An offering name with HTML in a price file shows as text, never as markup."""
    folder = add_price_snapshot(good_build / "sources", day=DAY, change=1.0)
    try:
        lines = (folder / "prices.csv").read_text(encoding="utf-8").splitlines()
        cells = lines[1].split(",")
        cells[0] = "Evil <img src=x onerror=alert(1)>*evil*"  # a name starts with a letter; HTML may follow
        lines[1] = ",".join(cells)
        (folder / "prices.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        write_checksums(good_build / "sources")
        outcome = refresh_prices()
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
        assert refresh_prices().ok


# ------------------------------------------------------------------ faults made the way a user makes them
LAMBDA = Path("prices/lambda/2026-09-20")
SIDECAR = str(LAMBDA / "prices.source.yml")
PROVIDER = "prices/lambda/provider.yml"


def _bytes(rel: str, fn):
    def change(src: Path):
        path = src / rel
        path.write_bytes(fn(path.read_bytes()))

    return change


def _lines(rel: str, fn):
    return _bytes(rel, lambda data: ("\n".join(fn(data.decode("utf-8").splitlines())) + "\n").encode("utf-8"))


def _yaml_key(key: str, value: str):
    return _lines(SIDECAR, lambda ls: [f"{key}: {value}" if ln.startswith(f"{key}:") else ln for ln in ls])


def _cut_inside_quote(data: bytes) -> bytes:
    return data[: data.index(b'"page prints', 800) + 20]  # a download cut off inside a quoted note


def _symlink_outside(src: Path):
    outside = src.parent / "elsewhere" / "2026-10-01"
    outside.mkdir(parents=True)
    shutil.copytree(src / LAMBDA, outside, dirs_exist_ok=True)
    (src / "prices" / "linked").symlink_to(outside.parent, target_is_directory=True)


def _snapshot_on(day: str):
    return lambda src: add_price_snapshot(src, day=day, change=1.0)


PAPERSPACE = "prices/paperspace/2026-11-22/prices.csv"


def _price(rel: str, line: int, old: str, new: str):
    def fn(lines):
        assert f",{old}," in lines[line - 1]
        lines[line - 1] = lines[line - 1].replace(f",{old},", f",{new},", 1)
        return lines

    return _lines(rel, fn)


FAULTS = [
    (
        "price per month",
        _price(PAPERSPACE, 11, "0.76", "554.8"),
        True,
        [
            PAPERSPACE,
            "row 11",
            "column 'usd_per_hour'",
            "(value: '554.8')",
            "$554.80 per GPU-hour",
            "outside $0.02 to $10.00 per GPU-hour for a workstation GPU",
            "price_exceptions",
        ],
    ),
    (
        "price in cents",
        _price(PAPERSPACE, 8, "1.10", "110"),
        True,
        [PAPERSPACE, "row 8", "column 'usd_per_hour'", "(value: '110')", "for a workstation GPU", "price_exceptions"],
    ),
    (
        "a whole instance read as one GPU",
        _price(PRICES, 3, "8,31.92", "1,31.92"),
        True,
        [
            PRICES,
            "row 3",
            "column 'usd_per_hour'",
            "(value: '31.92')",
            "x the median",
            "(on-demand, list) at",
            "other provider(s)",
            "price_exceptions",
        ],
    ),
    (
        "unterminated quote",
        _bytes(PRICES, _cut_inside_quote),
        True,
        [PRICES, "row 5", "a quoted field is never closed"],
    ),
    (
        "ragged row",
        _lines(PRICES, lambda ls: ls[:3] + [ls[3] + ",extra"] + ls[4:]),
        True,
        [PRICES, "row 4", "row has 10 fields, the header 9"],
    ),
    (
        "duplicated column name",
        _lines(PRICES, lambda ls: [ls[0].replace("gpu_memory_gb", "gpu_name")] + ls[1:]),
        True,
        [PRICES, "row 1", "column 'gpu_name'", "appears more than once"],
    ),
    (
        "empty column name",
        _lines(PRICES, lambda ls: [ln + "," for ln in ls]),
        True,
        [PRICES, "row 1", "column 10 of the header has no name"],
    ),
    (
        "NUL bytes",
        _bytes(PRICES, lambda d: d.replace(b"NVIDIA H100 SXM,", b"NVIDIA H100\x00 SXM,", 1)),
        True,
        [PRICES, "row 3", "NUL byte"],
    ),
    (
        "Latin-1 byte in a figures file",
        _bytes(FIGURES, lambda d: d[:200] + b"\xe9" + d[200:]),
        True,
        [FIGURES, "not valid UTF-8: byte 0xe9"],
    ),
    (
        "Latin-1 byte in a sidecar",
        _bytes(SIDECAR, lambda d: d.replace(b"Lambda", b"Lambd\xe0", 1)),
        False,
        [SIDECAR, "row 1", "not valid UTF-8: byte 0xe0"],
    ),
    (
        "random bytes as prices.csv",
        _bytes(PRICES, lambda d: bytes(random.Random(5).randrange(256) for _ in range(6000))),
        True,
        [PRICES, "not valid UTF-8"],
    ),
    ("header-only snapshot", _lines(PRICES, lambda ls: ls[:1]), True, [PRICES, "no offer", "withdrawn_all: true"]),
    (
        "snapshot dated after the build date",
        _snapshot_on("2027-12-28"),
        True,
        ["prices/lambda/2027-12-28/prices.csv", "snapshot folder dated after the build date"],
    ),
    (
        "accessed_on two years before the folder's date",
        _yaml_key("accessed_on", "2024-09-20"),
        True,
        [SIDECAR, "accessed_on", "days before the snapshot folder's date 2026-09-20"],
    ),
    (
        "javascript: URL",
        _yaml_key("url", '"javascript:alert(1)"'),
        True,
        [SIDECAR, "column 'url'", "must start with https:// or http:// or seed:"],
    ),
    (
        "folder symlinked from outside sources/",
        _symlink_outside,
        True,
        ["prices/linked/2026-10-01/prices.csv", "a symlink that leaves sources/"],
    ),
    (
        "a provider's market misspelt in its provider.yml",
        _lines(PROVIDER, lambda ls: ["market: china" if ln.startswith("market:") else ln for ln in ls]),
        True,
        [PROVIDER, "column 'market'", "must be one of 'global' or 'cn-mainland'", "(value: 'china')"],
    ),
    (
        "a provider folder without its provider.yml",
        lambda src: (src / PROVIDER).unlink(),
        True,
        [PROVIDER, "missing: every provider folder has a provider.yml"],
    ),
]


@pytest.fixture
def restore(good_build, tmp_path):
    """The sources as they were, put back after the case."""
    src = good_build / "sources"
    keep = tmp_path / "pristine"
    shutil.copytree(src, keep, symlinks=True)
    yield src
    shutil.rmtree(src)
    shutil.copytree(keep, src, symlinks=True)


def everything(base: Path) -> dict[str, str]:
    """Digest of the database and of every site and generated page file."""
    files = [
        base / "data" / "gpu_atlas.duckdb",
        *(p for p in (base / "build").rglob("*") if p.is_file() and ".lock" not in p.name and ".cache" not in p.parts),
    ]
    return {str(p.relative_to(base)): digest(p) for p in files}


@pytest.mark.parametrize("label,change,fix_checksum,expected", FAULTS, ids=[c[0] for c in FAULTS])
def test_fault_stops_the_build_and_keeps_the_last(good_build, restore, label, change, fix_checksum, expected):
    before = everything(good_build)
    change(restore)
    if fix_checksum:
        write_checksums(restore)
    outcome = build()
    assert not outcome.ok, label
    message = "\n".join(outcome.errors)
    for part in expected:
        assert part in message, f"{label}: {part!r} not in:\n{message}"
    assert "UnicodeDecodeError" not in message and "InvalidIndexError" not in message
    assert everything(good_build) == before, "the last good database, pages and site must stay untouched"


def test_a_declared_withdrawal_empties_the_provider(good_build, restore):
    """A header-only snapshot whose sidecar says `withdrawn_all: true`: the provider has no current offer."""
    import duckdb

    new = add_price_snapshot(restore, day=DAY, change=1.0)
    lines = (new / "prices.csv").read_text(encoding="utf-8").splitlines()
    (new / "prices.csv").write_text(lines[0] + "\n", encoding="utf-8")
    side = new / "prices.source.yml"
    side.write_text(side.read_text(encoding="utf-8") + "withdrawn_all: true\n", encoding="utf-8")
    write_checksums(restore)
    outcome = refresh_prices()  # a price change: the refresh publishes what a build would
    assert outcome.ok, outcome.errors
    with duckdb.connect(str(good_build / "data" / "gpu_atlas.duckdb"), read_only=True) as con:
        current = con.execute("select count(*) from price_offers where provider = 'lambda'").fetchone()[0]
        history = con.execute("select count(*) from price_history where provider = 'lambda'").fetchone()[0]
    assert current == 0 and history > 0
    # a withdrawal that still lists offers contradicts itself
    (new / "prices.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_checksums(restore)
    refused = refresh_prices()
    assert not refused.ok and "withdrawn_all" in "\n".join(refused.errors)
