"""Benchmarks (not tests): time each build stage, a price-only refresh, and vram_fit at scale.

uv run python -m pipeline.bench            # everything
uv run python -m pipeline.bench --fit-only # only the vram_fit scale benchmark
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb
import pandas as pd

from .bench_fit import bench_fit

STAGES = [
    ("ingest", lambda k: k.startswith("raw_") and not k.endswith("_schema") or k == "core_sources"),
    ("checks", lambda k: k.endswith("_schema") or k.endswith(("breakdown_sums", "offers_mapped", "claims_classified"))),
    ("sql", lambda k: k.startswith(("core_", "out_")) or k == "public_views"),
    ("render", lambda k: k.startswith("pages_") or k in ("exports", "site_docs_base")),
    ("mkdocs", lambda k: k == "site"),
]


def stage_of(step_key: str) -> str:
    for name, test in STAGES:
        if test(step_key):
            return name
    return "other"


def add_price_snapshot(sources: Path, day: str | None = None, provider: str = "lambda", change: float = 1.1) -> Path:
    """A new dated snapshot of one provider (today's by default): its latest list with the first price changed
    (a price move), read on that day. The benchmark's refresh and the refresh tests use the same scenario."""
    import shutil

    from .sources import build_date, latest_price_snapshot, write_checksums

    day = day or build_date().isoformat()

    latest = latest_price_snapshot(sources, provider)
    new = latest.parent / day
    shutil.copytree(latest, new)
    lines = (new / "prices.csv").read_text(encoding="utf-8").splitlines()
    header, cells = lines[0].split(","), lines[1].split(",")
    col = header.index("usd_per_hour")
    cells[col] = f"{float(cells[col]) * change:.4f}"
    lines[1] = ",".join(cells)
    (new / "prices.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    side = new / "prices.source.yml"
    dated = [
        f"{line.split(':', 1)[0]}: {day}" if line.startswith(("accessed_on:", "published_on:")) else line
        for line in side.read_text(encoding="utf-8").splitlines()
    ]
    side.write_text("\n".join(dated) + "\n", encoding="utf-8")
    write_checksums(sources)
    return new


def bench_build() -> None:
    """Full builds and price refreshes on a private copy of the sources, into a temporary folder."""
    import shutil

    from .config import paths, paths_overridden
    from .run import materialize, price_selection

    with tempfile.TemporaryDirectory() as tmp:
        sources = Path(tmp) / "sources"
        shutil.copytree(paths().sources, sources)
        with paths_overridden(Path(tmp) / "atlas.duckdb", Path(tmp) / "build", sources):
            _bench_build(materialize, price_selection, sources)


def _bench_build(materialize, price_selection, sources: Path, repeats: int = 3) -> None:
    import shutil

    cold = materialize()  # first run in this process: pays the imports and schema loading
    assert cold.ok, cold.errors
    print(f"first (cold) full build in this process: {cold.seconds:.1f} s")
    fulls = []
    for _ in range(repeats):
        full = materialize()
        assert full.ok, full.errors
        fulls.append(full)
    full = min(fulls, key=lambda o: o.seconds)
    totals: dict[str, float] = defaultdict(float)
    for key, seconds in full.step_seconds.items():
        totals[stage_of(key)] += seconds
    print(
        f"full build, warm process: best {full.seconds:.2f} s of {repeats} "
        f"({', '.join(f'{o.seconds:.2f}' for o in fulls)}; {len(full.materialized)} assets, {full.checks_passed} checks)"
    )
    for name, _ in STAGES:
        print(f"  {name:<7} {totals[name]:6.2f} s")
    print(f"  orchestration and start-up: {full.seconds - sum(totals.values()):.2f} s")

    def refresh(label: str) -> None:
        runs = []
        for _ in range(repeats):
            new = add_price_snapshot(
                sources
            )  # the same new snapshot each time: the price moves against the last good build
            outcome = materialize(price_selection(), incremental=True)
            assert outcome.ok, outcome.errors
            runs.append(outcome)
            shutil.rmtree(new)
            materialize(price_selection(), incremental=True)  # back to the real sources
        best = min(runs, key=lambda o: o.seconds)
        print(
            f"price refresh, {label}: best {best.seconds:.2f} s of {repeats} "
            f"({', '.join(f'{o.seconds:.2f}' for o in runs)}; {len(best.materialized)} assets) = "
            f"{best.seconds / full.seconds:.0%} of a full build"
        )
        slowest = sorted(best.step_seconds.items(), key=lambda kv: -kv[1])[:6]
        print("  slowest steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in slowest))

    refresh("new Lambda snapshot, one price +10%")
    unchanged = materialize(price_selection(), incremental=True)
    assert unchanged.ok, unchanged.errors
    print(
        f"price refresh, sources unchanged: {unchanged.seconds:.2f} s = {unchanged.seconds / full.seconds:.0%} of a full build"
    )


# ------------------------------------------------------------------ vram_fit at scale
PLAN_ARGS = [
    "--model",
    "llama-3.1-70b",
    "--precision",
    "fp8",
    "--context",
    "8192",
    "--users",
    "50",
    "--input-tokens",
    "2000",
    "--output-tokens",
    "500",
]


def bench_plan(db: Path, site: Path, repeats: int = 5) -> None:
    """One Planner answer: the `gpu-atlas plan` command (a new process, as a user runs it), the SQL alone on an
    open connection, and the page's evaluation in Chromium (planner-model.js on the same question)."""
    import os
    import shutil
    import subprocess
    import sys

    from .plan import Question, max_contexts, plan_options, validate

    env = {**os.environ, "GPU_ATLAS_DB": str(db)}
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "pipeline.cli", "plan", *PLAN_ARGS, "--json"],
            env=env,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - started)
    print(
        f"Planner, `gpu-atlas plan` (70B FP8, 50 users, 2,000/500 tokens), whole command: median "
        f"{sorted(times)[len(times) // 2]:.2f} s of {repeats}"
    )
    con = duckdb.connect(str(db), read_only=True)
    q = validate(Question(model="llama-3.1-70b", precision="fp8", context=8192, users=50), max_contexts(con))
    sql = []
    for _ in range(repeats):
        started = time.perf_counter()
        n = len(plan_options(con, pd.DataFrame([q.scenario()])))
        sql.append(time.perf_counter() - started)
    con.close()
    print(f"Planner, the SQL on an open connection: median {sorted(sql)[len(sql) // 2] * 1000:.0f} ms ({n} options)")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists() or not site.exists():
        print("Planner in the browser: skipped (no Chromium or no built site; `make browser`, `make build`)")
        return
    import sys as _sys

    _sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))
    from browsing import ARGS, serving
    from playwright.sync_api import sync_playwright

    with serving(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS, headless=True)
        page = browser.new_page()
        page.goto(base + "planner/")
        page.wait_for_function("() => document.body.dataset.plannerReady === '1'")
        ms = page.evaluate(
            """async (q) => {
            const c = await (await fetch('../api/v1/plan/coefficients.json')).json();
            const m = new AtlasPlannerModel.Model(c);
            const times = [];
            let n = 0;
            for (let i = 0; i < 20; i++) { const t = performance.now(); n = m.plan(q).length; times.push(performance.now() - t); }
            times.sort((a, b) => a - b);
            return [times[10], n];
        }""",
            {**q.scenario(), "tier": "on-demand"},
        )
        browser.close()
    print(f"Planner in the browser (planner-model.js, same question): median {ms[0]:.1f} ms of 20 ({ms[1]} options)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fit-only", action="store_true")
    parser.add_argument("--factor", type=int, default=10)
    args = parser.parse_args()
    from .config import paths

    if not args.fit_only:
        bench_build()
    db = paths().database
    if not db.exists():
        raise SystemExit(f"no database at {db}: run `make build` first")
    bench_plan(db, paths().site)
    bench_fit(db, args.factor)


if __name__ == "__main__":
    main()
