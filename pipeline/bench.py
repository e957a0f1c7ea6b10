"""Benchmarks (not tests): time each build stage, a price-only refresh, and vram_fit at scale.

    uv run python -m pipeline.bench            # everything
    uv run python -m pipeline.bench --fit-only # only the vram_fit scale benchmark
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import duckdb
import pandas as pd

from .db import create_table_from_sql, path_literal
from .steps import define_macros

STAGES = [("ingest", lambda k: k.startswith("raw_") and not k.endswith("_schema") or k == "core_sources"),
          ("checks", lambda k: k.endswith("_schema") or k.endswith(("breakdown_sums", "offers_mapped", "claims_classified"))),
          ("sql", lambda k: k.startswith(("core_", "out_")) or k == "public_views"),
          ("render", lambda k: k.startswith("pages_") or k in ("exports", "site_docs_base")),
          ("mkdocs", lambda k: k == "site")]


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
    dated = [f"{line.split(':', 1)[0]}: {day}" if line.startswith(("accessed_on:", "published_on:")) else line
             for line in side.read_text(encoding="utf-8").splitlines()]
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
    print(f"full build, warm process: best {full.seconds:.2f} s of {repeats} "
          f"({', '.join(f'{o.seconds:.2f}' for o in fulls)}; {len(full.materialized)} assets, {full.checks_passed} checks)")
    for name, _ in STAGES:
        print(f"  {name:<7} {totals[name]:6.2f} s")
    print(f"  orchestration and start-up: {full.seconds - sum(totals.values()):.2f} s")

    def refresh(label: str) -> None:
        runs = []
        for _ in range(repeats):
            new = add_price_snapshot(sources)  # the same new snapshot each time: the price moves against the last good build
            outcome = materialize(price_selection(), incremental=True)
            assert outcome.ok, outcome.errors
            runs.append(outcome)
            shutil.rmtree(new)
            materialize(price_selection(), incremental=True)  # back to the real sources
        best = min(runs, key=lambda o: o.seconds)
        print(f"price refresh, {label}: best {best.seconds:.2f} s of {repeats} "
              f"({', '.join(f'{o.seconds:.2f}' for o in runs)}; {len(best.materialized)} assets) = "
              f"{best.seconds / full.seconds:.0%} of a full build")
        slowest = sorted(best.step_seconds.items(), key=lambda kv: -kv[1])[:6]
        print("  slowest steps: " + ", ".join(f"{k} {v:.2f} s" for k, v in slowest))

    refresh("new Lambda snapshot, one price +10%")
    unchanged = materialize(price_selection(), incremental=True)
    assert unchanged.ok, unchanged.errors
    print(f"price refresh, sources unchanged: {unchanged.seconds:.2f} s = {unchanged.seconds / full.seconds:.0%} of a full build")


# ------------------------------------------------------------------ vram_fit at scale
def scaled_catalogue(con: duckdb.DuckDBPyConnection, source_db: Path, factor: int) -> None:
    """Copy the built catalogue and multiply models and GPUs by `factor` (synthetic variants)."""
    con.execute(f"attach {path_literal(source_db)} as atlas (read_only)")
    con.execute("create table core_parameters as select * from atlas.core_parameters")
    con.execute(f"""create table core_models as
        select * replace (model_id || '-syn' || i as model_id, params_b * (1 + i / 10) as params_b,
                          active_params_b * (1 + i / 10) as active_params_b)
        from atlas.core_models, range({factor}) as t(i)
        where hidden_size is not null and head_dim is not null""")
    con.execute(f"""create table core_gpus as
        select * replace (gpu_id || '-syn' || i as gpu_id, memory_gb * (1 + i / 10) as memory_gb)
        from atlas.core_gpus, range({factor}) as t(i) where memory_gb is not null""")
    con.execute("detach atlas")
    define_macros(con)


def pandas_row_by_row(models: pd.DataFrame, gpus: pd.DataFrame, params: dict, limit_rows: int) -> tuple[int, float]:
    """The same inference-fit formulas, one row at a time in Python (the approach DuckDB replaces)."""
    formats = {"bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5 + params["quant_scale_bytes_int4"]}
    started, rows, out = time.perf_counter(), 0, []
    for m in models.itertuples():
        for prec, bpp in formats.items():
            for kv_bytes in (2.0, 1.0):
                for ctx in (4096, 32768, 131072):
                    for batch in (1, 16):
                        c = int(min(ctx, m.max_context or ctx))
                        window_layers = 0 if pd.isna(m.sliding_window) else m.layers - (m.full_attention_layers or 0)
                        if m.attention_kind == "mla":
                            kv = int(m.layers) * int(m.kv_lora_rank + m.qk_rope_head_dim) * c
                        else:
                            w = c if pd.isna(m.sliding_window) else min(c, m.sliding_window)
                            kv = 2 * int(m.kv_heads) * int(m.head_dim) * (int(m.layers - window_layers) * c + int(window_layers) * int(w))
                        weights = m.params_b * bpp
                        kv_gb = kv * batch * kv_bytes / 1e9
                        required = weights + kv_gb + params["runtime_overhead_gb"] + params["runtime_overhead_fraction"] * (weights + kv_gb)
                        for g in gpus.itertuples():
                            usable = g.memory_gb * params["usable_memory_fraction"]
                            needed = math.ceil(required / usable)
                            for count in (1, 2, 4, 8):
                                out.append((m.model_id, g.gpu_id, prec, kv_bytes, c, batch, count, required,
                                            needed, required <= count * usable))
                                rows += 1
                                if rows >= limit_rows:
                                    pd.DataFrame(out)
                                    return rows, time.perf_counter() - started
    pd.DataFrame(out)
    return rows, time.perf_counter() - started


def bench_fit(source_db: Path, factor: int = 10) -> None:
    con = duckdb.connect(":memory:")
    con.execute("set threads to 2")
    scaled_catalogue(con, source_db, factor)
    n_models, n_gpus = (con.execute(f"select count(*) from {t}").fetchone()[0] for t in ("core_models", "core_gpus"))
    started = time.perf_counter()
    create_table_from_sql(con, "out_memory_requirements")
    create_table_from_sql(con, "out_vram_fit")
    create_table_from_sql(con, "out_vram_fit_detail")
    seconds = time.perf_counter() - started
    rows = con.execute("select count(*) from out_vram_fit").fetchone()[0]
    print(f"vram_fit, catalogue x{factor}: {n_models} models x {n_gpus} GPUs -> {rows:,} rows in {seconds:.2f} s "
          f"in DuckDB ({rows / seconds / 1e6:.1f} M rows/s)")
    params = dict(con.execute("select name, value from core_parameters where value is not null").fetchall())
    models = con.execute("select * from core_models").df()
    gpus = con.execute("select * from core_gpus").df()
    sample, py_seconds = pandas_row_by_row(models, gpus, params, limit_rows=300_000)
    rate = sample / py_seconds
    inference_rows = con.execute("select count(*) from out_vram_fit_detail where workload = 'inference'").fetchone()[0]
    started = time.perf_counter()
    summary = con.execute("select workload, count(*), sum(fits::int) from out_vram_fit_detail group by all").fetchall()
    print(f"  querying the full vram_fit view (join + aggregate over all rows): {time.perf_counter() - started:.2f} s {summary}")
    print(f"row-by-row pandas/Python, same inference formulas: {sample:,} rows in {py_seconds:.2f} s "
          f"({rate / 1e6:.2f} M rows/s) -> {inference_rows:,} inference rows would take ~{inference_rows / rate:.0f} s "
          f"(DuckDB is ~{(inference_rows / rate) / seconds:.0f}x faster on the whole table)")
    con.close()


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
    bench_fit(db, args.factor)


if __name__ == "__main__":
    main()
