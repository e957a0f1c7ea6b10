"""What the publish tests share (their `atlas` fixture is in conftest.py): which generation is current and whether it
is consistent, what a killed run may leave, a price change to publish."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb

from pipeline.bench import add_price_snapshot
from pipeline.run import GENERATIONS, current_generation, previous_generation
from pipeline.sourcefiles import build_date, write_checksums

DAY = build_date().isoformat()


def state(base: Path) -> bool:
    """Which build is current (True: the one with the new Lambda snapshot), after checking that the database,
    the inputs record, the pages and the site all belong to one generation and agree."""
    links = [
        base / "data" / "gpu_atlas.duckdb",
        base / "data" / "gpu_atlas.inputs.json",
        base / "build" / "docs",
        base / "build" / "site",
    ]
    homes = {link.resolve().parent for link in links}
    assert len(homes) == 1, f"a mix of generations: {homes}"
    (home,) = homes
    assert home.parent.name == GENERATIONS and home == current_generation_of(base)
    with duckdb.connect(str(links[0]), read_only=True) as con:
        in_db = (
            con.execute(
                "select count(*) from price_history where provider = 'lambda' and observed_on = ?", [DAY]
            ).fetchone()[0]
            > 0
        )
    in_pages = f"lambda/<wbr>{DAY}" in (links[2] / "sources" / "prices.md").read_text(encoding="utf-8")
    in_site = f"lambda/<wbr>{DAY}" in (links[3] / "sources" / "prices" / "index.html").read_text(encoding="utf-8")
    in_inputs = f"sources/prices/lambda/{DAY}/prices.csv" in links[1].read_text(encoding="utf-8")
    assert in_db == in_pages == in_site == in_inputs, (in_db, in_pages, in_site, in_inputs)
    return in_db


def current_generation_of(base: Path) -> Path:
    from pipeline.config import paths

    return current_generation(paths())


def toggle(src: Path) -> None:
    """The next build differs from the current one: add the new snapshot, or remove it."""
    folder = src / "prices" / "lambda" / DAY
    if folder.exists():
        shutil.rmtree(folder)
        write_checksums(src)
    else:
        add_price_snapshot(src, day=DAY)


def previous_of() -> Path | None:
    from pipeline.config import paths

    return previous_generation(paths())


def kept_generations(base: Path) -> set[Path]:
    """What is left under generations/: the current build and the one it replaced, nothing a killed run left."""
    return {g.resolve() for g in (base / "build" / GENERATIONS).iterdir()}


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(f.relative_to(folder)): hashlib.sha256(f.read_bytes()).hexdigest()
        for f in sorted(folder.rglob("*"))
        if f.is_file()
    }
