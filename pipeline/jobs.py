"""The build and the price refresh as the command line runs them: the Dagster jobs of pipeline.definitions, run
in this process. The run's resources write a new generation and publish it (pipeline/defs/resources.py,
pipeline/run.py), as they do for a run the Dagster UI, a schedule or a sensor starts; this module only chooses the
job and reports what the run did."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import dagster as dg

from .config import paths
from .definitions import defs
from .run import BuildBusy, build_inputs, current_generation, refresh_blocker

ASSET_JOB = "__ASSET_JOB"  # Dagster's job of every asset: the full build
PRICE_REFRESH = "price_refresh"  # pipeline/defs/automation.py: the price inputs and what depends on them


@dataclass
class Outcome:
    ok: bool
    seconds: float
    materialized: list[str] = field(default_factory=list)
    checks_passed: int = 0
    checks_warned: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    step_seconds: dict[str, float] = field(default_factory=dict)
    site: dict = field(default_factory=dict)  # the site step's metadata: pages rendered, incremental or full
    full_build_instead: bool = False  # a refresh could not start from the last build (see full_build_reason)
    full_build_reason: str = ""


def build() -> Outcome:
    """Materialise the whole graph into a new generation and publish it."""
    return run_job(ASSET_JOB)


def refresh_prices() -> Outcome:
    """The price_refresh job (the job the schedule and the sensor start) from a copy of the last build. When the last
    build cannot be started from (none yet, or specs, models, code or hand-written pages changed since it), the
    whole graph is built instead, so a refresh never mixes new inputs into an old build."""
    p = paths()
    reason = refresh_blocker(p, build_inputs(p))
    outcome = run_job(ASSET_JOB if reason else PRICE_REFRESH)
    outcome.full_build_instead, outcome.full_build_reason = bool(reason), reason
    return outcome


def run_job(name: str) -> Outcome:
    """Run one job of the definitions; SystemExit when another build holds the build folder."""
    started = time.perf_counter()
    before = current_generation(paths())
    job = defs.resolve_implicit_global_asset_job_def() if name == ASSET_JOB else defs.resolve_job_def(name)
    instance = dg.DagsterInstance.ephemeral()
    result = job.execute_in_process(
        instance=instance,
        raise_on_error=False,
        run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},
    )
    outcome = _outcome(result, instance)
    outcome.seconds = time.perf_counter() - started
    if outcome.ok and current_generation(paths()) == before:  # every successful run publishes a new folder
        outcome.ok = False
        outcome.errors.append("the run succeeded but published nothing (see the Dagster log)")
    return outcome


def _outcome(result: dg.ExecuteInProcessResult, instance: dg.DagsterInstance) -> Outcome:
    outcome = Outcome(ok=result.success, seconds=0.0)
    for event in result.get_asset_materialization_events():
        key = event.asset_key.to_user_string()
        outcome.materialized.append(key)
        if key == "site":
            metadata = event.materialization.metadata
            outcome.site = {
                k: metadata[k].value for k in ("html_pages", "pages_rendered", "incremental") if k in metadata
            }
    for ev in result.get_asset_check_evaluations():
        name = f"{ev.asset_key.to_user_string()}:{ev.check_name}"
        if ev.passed:
            outcome.checks_passed += 1
        else:
            md = ev.metadata.get("problems") or ev.metadata.get("names")
            text = md.value if md is not None else ""
            if ev.severity == dg.AssetCheckSeverity.WARN:
                lines = [ln for ln in str(text).splitlines() if ln.strip()]
                outcome.checks_warned.append(f"{name}: {len(lines)} item(s), first: {lines[0] if lines else ''}")
            else:
                outcome.errors.append(f"check {name} failed:\n{text}")
    for event in result.all_events:
        if event.event_type_value in ("STEP_FAILURE", "RESOURCE_INIT_FAILURE", "RUN_FAILURE"):
            err = event.event_specific_data.error if event.event_specific_data else None
            if err is not None and err.cls_name == BuildBusy.__name__:
                raise SystemExit(err.message.strip().removeprefix(f"{BuildBusy.__module__}.{BuildBusy.__name__}: "))
        if event.event_type_value == "STEP_FAILURE":
            err = event.event_specific_data.error
            message = err.message if err else "step failed"
            cause = err.cause.message if err and err.cause else ""
            outcome.errors.append(f"{event.step_key} failed: {cause or message}".strip())
    for stat in instance.get_run_step_stats(result.run_id):  # per-step wall time from the event log
        if stat.start_time and stat.end_time:
            outcome.step_seconds[stat.step_key] = stat.end_time - stat.start_time
    outcome.ok = outcome.ok and not outcome.errors
    return outcome
