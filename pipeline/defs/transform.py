"""The SQL stage: one asset per pipeline/sql/<table>.sql, its dependencies read from the SQL."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipeline import steps
from pipeline.db import preview
from pipeline.plausibility import implausible_prices

from .resources import AtlasPaths


def sql_asset(table: str, reads: set[str]) -> dg.AssetsDefinition:
    deps = sorted({steps.asset_of(t) for t in reads})
    # every table using param(...) depends on the parameters
    if "param(" in steps.sql_text(table) and "core_parameters" not in deps:
        deps.append("core_parameters")

    @dg.asset(
        name=table,
        group_name=table.split("_")[0],
        kinds={"duckdb", "sql"},
        deps=deps,
        description=steps.sql_description(table) + f" (pipeline/sql/{table}.sql)",
    )
    def _asset(database: DuckDBResource) -> dg.MaterializeResult:
        with database.get_connection() as con:
            rows = steps.build_table(con, table)
            md = preview(con, table)
        return dg.MaterializeResult(metadata={"rows": rows, "preview": dg.MetadataValue.md(md)})

    return _asset


sql_assets = [sql_asset(table, reads) for table, reads in steps.sql_tables().items()]


@dg.asset(
    group_name="out",
    kinds={"duckdb"},
    deps=[a.key for a in sql_assets] + ["core_sources"],
    description="The public views: the stable contract for people who query the file (pipeline/sql/views.sql).",
)
def public_views(database: DuckDBResource) -> dg.MaterializeResult:
    with database.get_connection() as con:
        views = steps.create_views(con)
    return dg.MaterializeResult(metadata={"views": len(views), "names": ", ".join(views)})


@dg.asset_check(
    asset="out_vram_fit_detail", blocking=True, description="The memory breakdown sums to required_gb on every row."
)
def breakdown_sums(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        bad = con.execute("""
            select count(*) from out_vram_fit_detail
            where abs(weights_gb + kv_cache_gb + gradients_gb + optimizer_gb + activations_gb + overhead_gb
                      - required_gb) > 1e-6
        """).fetchone()[0]
    return dg.AssetCheckResult(passed=bad == 0, metadata={"rows_not_summing": bad})


@dg.asset_check(
    asset="core_price_history",
    description="Every provider GPU name maps to a variant (warning: unmapped names are listed, never dropped).",
)
def offers_mapped(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        rows = con.execute("""
            select provider, gpu_name, count(*) from (
                select provider, provider_gpu_name as gpu_name from core_price_history where not mapped)
            group by all order by all""").fetchall()
    text = "\n".join(f"{p}: {n} ({c} offers)" for p, n, c in rows)
    return dg.AssetCheckResult(
        passed=not rows,
        severity=dg.AssetCheckSeverity.WARN,
        metadata={"unmapped_names": len(rows), "names": dg.MetadataValue.text(text)},
    )


@dg.asset_check(
    asset="core_price_history",
    blocking=True,
    description="Every price per GPU-hour near the same offer's history, the variant's prices at other "
    "providers, and within its segment's bounds, unless its sidecar explains it "
    "(pipeline/plausibility.py).",
)
def prices_plausible(database: DuckDBResource, atlas_paths: AtlasPaths) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        problems = implausible_prices(con, Path(atlas_paths.sources))
    return dg.AssetCheckResult(
        passed=not problems,
        severity=dg.AssetCheckSeverity.ERROR,
        metadata={
            "problem_count": len(problems),
            "problems": dg.MetadataValue.text("\n".join(map(str, problems[:200]))),
        },
    )


@dg.asset_check(
    asset="core_spec_claims",
    blocking=True,
    description="Every claim has a classification and every canonical figure is dense and positive.",
)
def claims_classified(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        unclassified = con.execute("select count(*) from core_spec_claims where classification is null").fetchone()[0]
        summary = con.execute("""select classification, count(*) from core_spec_claims
                                 where claim_id like 'claim:%' group by all order by 2 desc""").fetchall()
    return dg.AssetCheckResult(
        passed=unclassified == 0,
        metadata={"unclassified": unclassified, "article_claims": dg.MetadataValue.json(dict(summary))},
    )


@dg.asset_check(
    asset="core_models",
    blocking=True,
    description="Every model's total (and, for MoE, active) parameter count computed from its config is "
    "within 0.5% of the model card's published count, or the model carries an explanation.",
)
def model_params_match_card(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        rows = con.execute(steps.MODEL_PARAMS_MISMATCH).fetchall()
    text = "\n".join(
        f"{m}: computed {p:.3f} B vs published {q} B ({d:+.2%}); active {a:.3f} B vs {qa} B"
        for m, p, q, d, a, qa in rows
    )
    return dg.AssetCheckResult(
        passed=not rows, metadata={"mismatched": len(rows), "problems": dg.MetadataValue.text(text)}
    )


@dg.asset_check(
    asset="out_measurement_bounds",
    blocking=True,
    description="No published measured speed exceeds the bound computed for it by more than bound_tolerance.",
)
def measurements_within_bounds(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        rows = con.execute(steps.MEASUREMENTS_ABOVE_BOUND).fetchall()
        total = con.execute("select count(*) from out_measurement_bounds").fetchone()[0]
    text = "\n".join(
        f"{f}:{r} {m} on {c}x {g} ({fmt}): measured {v:.1f} > bound {b:.1f} tokens/s"
        for f, r, m, g, c, fmt, v, b in rows
    )
    return dg.AssetCheckResult(
        passed=not rows,
        metadata={"measurements": total, "above_bound": len(rows), "problems": dg.MetadataValue.text(text)},
    )


@dg.asset_check(
    asset="out_serving_bounds",
    blocking=True,
    description="No published serving figure beats the serving model's bound by more than bound_tolerance "
    "(throughput and per-user speed above it, time to first token below it); every figure "
    "has a bound.",
)
def serving_measurements_within_bounds(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        rows = con.execute(steps.SERVING_BEYOND_BOUND).fetchall()
        total, unmatched = con.execute("""select (select count(*) from out_serving_bounds),
            (select count(*) from core_serving_measurements) - (select count(*) from out_serving_bounds)""").fetchone()
    text = "\n".join(
        f"{f}:{r} {m} on {c}x {g} ({fmt}), {metric}: measured {v:.4g} vs bound "
        f"{'none' if b is None else f'{b:.4g}'} ({q})"
        for f, r, m, g, c, fmt, metric, q, v, b in rows
    )
    if unmatched:
        text += f"\n{unmatched} figure(s) have no bound: their model and format or GPU lack a serving coefficient"
    return dg.AssetCheckResult(
        passed=not rows and not unmatched,
        metadata={
            "figures": total,
            "beyond_bound": len(rows),
            "without_bound": unmatched,
            "problems": dg.MetadataValue.text(text),
        },
    )


@dg.asset_check(
    asset="out_training_estimates",
    blocking=True,
    description="Derived columns are filled wherever their inputs exist (a price gives a fine-tune cost).",
)
def training_estimates_complete(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        bad = con.execute("""select count(*) from out_training_estimates
                             where (cheapest_usd_per_gpu_hour is not null and gpus_needed is not null
                                    and finetune_usd is null)
                                or (gpus_needed is not null and finetune_hours is null)""").fetchone()[0]
    return dg.AssetCheckResult(
        passed=bad == 0,
        metadata={
            "rows_with_missing_derived_values": bad,
            "problems": dg.MetadataValue.text(f"{bad} rows with a price but no fine-tune cost, or GPUs but no hours"),
        },
    )


@dg.asset_check(
    asset="out_inference_estimates",
    blocking=True,
    description="Every estimate has a bound and an expectation; no FP8 compute on a GPU without FP8 "
    "units; only tensor-parallel degrees of 1, 2, 4, 8 or whole nodes.",
)
def inference_estimates_sound(database: DuckDBResource) -> dg.AssetCheckResult:
    with database.get_connection() as con:
        counts = con.execute(steps.INFERENCE_ESTIMATE_FAULTS).fetchone()
    names = [
        "missing_bound_or_expectation",
        "fp8_compute_without_fp8_units",
        "invalid_gpu_count",
        "expected_above_bound",
    ]
    meta = dict(zip(names, counts))
    meta["problems"] = dg.MetadataValue.text("\n".join(f"{k}: {v} rows" for k, v in meta.items() if v))
    return dg.AssetCheckResult(passed=not any(counts), metadata=meta)


@dg.definitions
def defs() -> dg.Definitions:
    return dg.Definitions(
        assets=[*sql_assets, public_views],
        asset_checks=[
            breakdown_sums,
            offers_mapped,
            prices_plausible,
            claims_classified,
            model_params_match_card,
            measurements_within_bounds,
            serving_measurements_within_bounds,
            training_estimates_complete,
            inference_estimates_sound,
        ],
    )
