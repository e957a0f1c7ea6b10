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

    from .sourcefiles import build_date, latest_price_snapshot, write_checksums

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


def _median_seconds(command: list[str], env: dict, repeats: int, before=None) -> tuple[float, list[float]]:
    """Run a command `repeats` times (after `before()`, when given) and return the median wall time and all times."""
    import statistics
    import subprocess

    times = []
    for _ in range(repeats):
        if before:
            before()
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def bench_build(repeats: int = 3) -> None:
    """The three times issue 20 asks for, as a user runs them (whole commands, medians of `repeats`): `gpu-atlas
    build`, `mkdocs build` of the same pages alone, and `gpu-atlas refresh-prices` after a new price snapshot; then
    where a build's time goes, by stage and by step. On a private copy of the sources, into a temporary folder."""
    import os
    import shlex
    import shutil
    import sys

    from .config import ROOT, paths, paths_overridden
    from .jobs import build as build_everything

    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as tmp:
        sources = Path(tmp) / "sources"
        shutil.copytree(paths().sources, sources)
        env = {
            **os.environ,
            "GPU_ATLAS_SOURCES": str(sources),
            "GPU_ATLAS_DB": str(Path(tmp) / "atlas.duckdb"),
            "GPU_ATLAS_BUILD": str(Path(tmp) / "build"),
        }
        env.pop("GPU_ATLAS_SITE_URL", None)
        build_cmd = [str(bin_dir / "gpu-atlas"), "build"]
        _median_seconds(build_cmd, env, 1)  # the first build fills the caches (vega bundle, templates)
        build, builds = _median_seconds(build_cmd, env, repeats)
        docs = Path(tmp) / "build" / "current" / "docs"
        mk_env = {
            **env,
            "GPU_ATLAS_DOCS": str(docs),
            "GPU_ATLAS_SITE": str(Path(tmp) / "mkdocs-alone"),
            "GPU_ATLAS_DOCS_ZH": str(docs / "zh"),
            "GPU_ATLAS_SITE_ZH": str(Path(tmp) / "mkdocs-alone" / "zh"),
        }
        # the same pages: both editions, one command after the other as a user types them and as the build's site
        # asset builds them (English first: its clean build empties the folder)
        mkdocs_cmd = " && ".join(
            f"{shlex.quote(str(bin_dir / 'mkdocs'))} build -q -f {shlex.quote(str(ROOT / name))}"
            for name in ("mkdocs.yml", "mkdocs.zh.yml")
        )
        mkdocs, mks = _median_seconds(["sh", "-c", mkdocs_cmd], mk_env, repeats)
        added: list[Path] = []

        def new_snapshot():
            if added:  # back to the real sources first, so each refresh sees the same change
                shutil.rmtree(added.pop())
                subprocess_refresh()
            added.append(add_price_snapshot(sources))

        def subprocess_refresh():
            import subprocess

            subprocess.run(
                [str(bin_dir / "gpu-atlas"), "refresh-prices"],
                env=env,
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )

        refresh, refreshes = _median_seconds([str(bin_dir / "gpu-atlas"), "refresh-prices"], env, repeats, new_snapshot)
        print(f"gpu-atlas build:          median {build:5.1f} s of {repeats} ({', '.join(f'{t:.1f}' for t in builds)})")
        print(
            f"mkdocs build, both editions: median {mkdocs:5.1f} s of {repeats} ({', '.join(f'{t:.1f}' for t in mks)})"
            f"; the build takes {build / mkdocs:.1f} x MkDocs alone"
        )
        print(
            f"gpu-atlas refresh-prices: median {refresh:5.1f} s of {repeats} ({', '.join(f'{t:.1f}' for t in refreshes)})"
            f" after a new Lambda snapshot (one price +10%) = {refresh / build:.2f} of a build"
        )
        shutil.rmtree(added.pop())
        with paths_overridden(Path(tmp) / "atlas.duckdb", Path(tmp) / "build", sources):
            full = build_everything()  # in this process, for the time of each step
        assert full.ok, full.errors
        totals: dict[str, float] = defaultdict(float)
        for key, seconds in full.step_seconds.items():
            totals[stage_of(key)] += seconds
        print(f"where a build's {full.seconds:.1f} s go (in one process, imports paid):")
        for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<7} {seconds:6.2f} s")
        print(f"  orchestration: {full.seconds - sum(totals.values()):.2f} s")
        slowest = sorted(full.step_seconds.items(), key=lambda kv: -kv[1])[:8]
        print("  slowest steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in slowest))


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
    open connection, and the page's answer in Chromium (the same SQL in DuckDB-WASM): the first answer, engine
    opened and tables loaded included, then the next answers."""
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
            const index = await (await fetch('../api/v1/plan/index.json')).json();
            const form = document.getElementById('planner-form');
            let t = performance.now();
            const engine = await AtlasSql.open(form.dataset.api, form.dataset.engine, index.engine);
            let n = (await engine.plan([q])).length;
            const first = performance.now() - t;
            const times = [];
            for (let i = 0; i < 20; i++) { t = performance.now(); n = (await engine.plan([q])).length; times.push(performance.now() - t); }
            times.sort((a, b) => a - b);
            return [first, times[10], n];
        }""",
            {**q.scenario(), "tier": "on-demand", "machine_id": None, "tensor_parallel": None},
        )
        browser.close()
    print(
        f"Planner in the browser (the same SQL in DuckDB-WASM): first answer {ms[0]:.0f} ms (engine and tables "
        f"loaded), then median {ms[1]:.1f} ms of 20 ({ms[2]} options)"
    )


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
