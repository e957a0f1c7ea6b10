"""The `gpu-atlas` command."""

from __future__ import annotations

import json
from enum import Enum

import typer

from .config import paths
from .plan import DEFAULTS as PLAN_DEFAULTS
from .plan import SERVE_PRECISIONS
from .fit import SERVING_FORMATS as FIT_FORMATS

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="GPU Atlas: GPU specs, cloud prices and LLM configs in one DuckDB file and one site.",
)


def _report(outcome, what: str) -> None:
    from .config import paths as _paths

    p = _paths()
    if not outcome.ok:
        typer.secho(
            f"{what} failed after {outcome.seconds:.1f} s; the last good database and site are untouched.",
            fg="red",
            err=True,
        )
        for err in outcome.errors:
            typer.echo(err, err=True)
        raise typer.Exit(1)
    typer.secho(f"{what} finished in {outcome.seconds:.1f} s", fg="green")
    typer.echo(f"  assets materialised: {len(outcome.materialized)}")
    typer.echo(f"  checks passed:       {outcome.checks_passed}")
    for warn in outcome.checks_warned:
        typer.secho(f"  warning: {warn}", fg="yellow")
    if outcome.checks_warned:
        typer.echo("  (unmapped provider GPU names are listed on the Coverage page and in the unmapped_offers view)")
    typer.echo(f"  database:            {p.database}")
    site = p.site / "index.html"
    typer.echo(f"  site:                {site if site.exists() else '(not built)'}")
    if outcome.site:
        how = "only pages whose content changed" if outcome.site.get("incremental") else "full build"
        typer.echo(
            f"  pages rendered:      {outcome.site.get('pages_rendered')} of {outcome.site.get('html_pages')} ({how})"
        )


@app.command()
def build() -> None:
    """Materialise the whole graph: sources -> DuckDB -> scores -> pages -> site."""
    from .jobs import build as build_everything

    _report(build_everything(), "build")


@app.command("refresh-prices")
def refresh_prices() -> None:
    """Re-materialise only the price inputs and what depends on them (pages and site included)."""
    from .news import describe, price_news, snapshot_dates
    from .jobs import refresh_prices as refresh

    before = snapshot_dates(paths().database)
    outcome = refresh()
    if outcome.full_build_instead:
        typer.secho(f"{outcome.full_build_reason}: built everything instead", fg="yellow")
    _report(outcome, "price refresh")
    typer.echo("what changed:")
    for line in describe(price_news(paths().database, before)):
        typer.echo(f"  {line}")


@app.command("check-sources")
def check_sources() -> None:
    """Check every sidecar, checksum and header under sources/."""
    from .sourcefiles import check_all

    problems = check_all(paths().sources)
    for p in problems:
        typer.echo(str(p), err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo("all sources have valid sidecars and checksums")


@app.command()
def checksums(write: bool = typer.Option(False, "--write", help="update sidecar checksums in place")) -> None:
    """Show (or with --write, update) sidecars whose checksum no longer matches their data file."""
    from .sourcefiles import write_checksums

    if not write:
        typer.echo("pass --write to update the checksum of every sidecar whose data file changed")
        raise typer.Exit(0)
    for side in write_checksums(paths().sources):
        typer.echo(f"updated {side}")


@app.command("fetch-prices")
def fetch_prices(
    provider: str | None = typer.Argument(
        None, help="provider to fetch (see --list); leave out with --all to fetch every provider"
    ),
    all_providers: bool = typer.Option(False, "--all", help="fetch every provider that has a fetcher"),
    list_providers: bool = typer.Option(False, "--list", help="list the providers that have a fetcher, and exit"),
    region: list[str] | None = typer.Option(
        None,
        "--region",
        help="provider region, repeatable: all go into one "
        "snapshot (default: the regions of the provider's latest snapshot, "
        "else azure eastus, aws us-east-1)",
    ),
    force: bool = typer.Option(False, help="replace today's snapshot if it exists"),
) -> None:
    """Fetch new dated price snapshots (network) into sources/prices/<provider>/<today>/.

    A provider whose recorded terms forbid automated collection is refused before any request; with --all, a
    provider that fails is reported and skipped (exit 1 after the others are written)."""
    from .fetch import API_ROOTS, FETCHERS, refresh, refresh_all, refusals

    if list_providers:
        refused = refusals(paths().sources)
        for name in FETCHERS:
            typer.echo(f"not fetchable: {refused[name]}" if name in refused else f"{name:16} {API_ROOTS[name]}")
        raise typer.Exit(0)
    if all_providers == (provider is not None):
        typer.secho("name one provider or pass --all (see --list)", fg="red", err=True)
        raise typer.Exit(2)
    if provider is not None and provider not in FETCHERS:
        typer.secho(f"no fetcher for {provider!r}; available: {', '.join(FETCHERS)}", fg="red", err=True)
        raise typer.Exit(2)
    if all_providers:
        outcomes = refresh_all(paths().sources, force=force)
    else:
        if region:
            typer.echo(f"fetching {provider} prices for {', '.join(region)}")
        outcomes = [refresh(provider, paths().sources, regions=region, force=force)]
    colours = {"written": "green", "refused": "yellow", "failed": "red"}
    for o in outcomes:
        what = f"{o.offers} offers to {o.detail}" if o.status == "written" else o.detail
        typer.secho(f"{o.provider}: {o.status}: {what}", fg=colours[o.status], err=o.status != "written")
    n = {status: sum(o.status == status for o in outcomes) for status in colours}
    typer.echo(
        f"fetched {n['written']}, refused {n['refused']}, failed {n['failed']} of {len(outcomes)} providers"
        + (": run `make prices` to update the site" if n["written"] else "")
    )
    if n["failed"] or (not all_providers and not n["written"]):
        raise typer.Exit(1)


class Workload(str, Enum):
    inference = "inference"
    training = "training"
    serve = "serve"  # the Planner's workloads: serve is inference, the others training with their method
    full = "full"
    lora = "lora"
    qlora = "qlora"
    pretrain = "pretrain"


class Method(str, Enum):
    full = "full"
    lora = "lora"
    qlora = "qlora"


class Recompute(str, Enum):
    none = "none"
    selective = "selective"
    full = "full"


class KvPrecision(str, Enum):
    bf16 = "bf16"
    fp8 = "fp8"


def _built_database():
    """The built database, or exit 1 saying how to build it."""
    db = paths().database
    if not db.exists():
        typer.secho(f"no database at {db}: run `make build` first", fg="red", err=True)
        raise typer.Exit(1)
    return db


def _fail(option: str, message: str) -> None:
    typer.secho(f"Invalid value for {option}: {message}", fg="red", err=True)
    raise typer.Exit(2)


@app.command("fit")
def fit_command(
    model: str = typer.Option(..., "--model", help="model_id, e.g. gpt-oss-120b or llama-3.3-70b (case-insensitive)"),
    precision: str | None = typer.Option(
        None, help=f"inference weight format: {', '.join(FIT_FORMATS)} (default bf16); training: its method's own"
    ),
    context: int = typer.Option(4096, min=1, help="context tokens (capped at the model's maximum)"),
    batch: int = typer.Option(1, min=1, help="sequences per batch (training: micro-batch per GPU)"),
    workload: Workload = typer.Option(
        Workload.inference,
        case_sensitive=False,
        help="inference or training (or the Planner's serve, full, lora, qlora, pretrain)",
    ),
    kv_precision: KvPrecision = typer.Option(
        KvPrecision.bf16, "--kv-precision", case_sensitive=False, help="KV cache number format (inference)"
    ),
    method: Method = typer.Option(Method.lora, case_sensitive=False, help="training method"),
    recompute: Recompute = typer.Option(Recompute.full, case_sensitive=False, help="training activations"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Which GPUs fit one model and setting, how many are needed, and the memory breakdown."""
    from .fit import FitInputError, fit, fit_inputs, resolve_model

    db = _built_database()
    # --method and --recompute default to training's: given only when not at their defaults
    method_given = None if method is Method.lora else method.value
    recompute_given = None if recompute is Recompute.full else recompute.value
    try:
        kind, precision, method_used, recompute_used = fit_inputs(
            workload.value, precision, context, batch, kv_precision.value, method_given, recompute_given
        )
    except FitInputError as exc:
        _fail(exc.option, exc.message)
    try:
        model_id = resolve_model(db, model)
        result = fit(db, model_id, kind, precision, context, batch, kv_precision.value, method_used, recompute_used)
    except ValueError as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from exc
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    b = result["breakdown_gb"]
    setting = (
        f"{result['precision']} weights, {result['kv_precision']} KV cache"
        if kind == "inference"
        else f"{result['method']} ({result['precision']} weights), recompute {result['recompute']}"
    )
    typer.echo(f"{model_id} · {kind} · {setting} · {result['context_tokens']} tokens · batch {result['batch_size']}")
    typer.echo(
        "memory (GB, 10^9 bytes): "
        + " + ".join(f"{k[:-3]} {v:,.2f}" for k, v in b.items())
        + f" = {result['required_gb']:,.2f}"
    )
    speed = "  train tok/s/GPU" if kind == "training" else ""
    typer.echo(
        f"{'GPU':<48} {'memory':>8} {'usable':>8} {'GPUs':>5}  fits one  GPU link{speed}  cheapest on-demand $/GPU-h"
    )
    for g in result["gpus"]:
        needed = "-" if g["gpus_needed"] is None else str(g["gpus_needed"])
        price = "-" if g["cheapest_usd_per_gpu_hour"] is None else f"{g['cheapest_usd_per_gpu_hour']:.3f}"
        price += f" ({g['cheapest_provider']}, {g['cheapest_observed_on']})" if g["cheapest_provider"] else ""
        tok_s = f"  {(g['train_tokens_per_s_per_gpu'] or 0):>15,.0f}" if speed else ""
        typer.echo(
            f"{g['name'][:48]:<48} {g['memory_gb']:>8,.0f} {g['usable_gb_per_gpu']:>8,.1f} {needed:>5}  "
            f"{'yes' if g['fits_one_gpu'] else 'no':>8}  {'yes' if g['has_gpu_link'] else 'no':>8}{tok_s}  {price}"
        )


@app.command("mcp")
def mcp_command() -> None:
    """Serve the built database to assistants over MCP (stdio): tools plan, fit, gpu, compare_gpus, prices, sql."""
    from .mcp_server import serve

    serve(_built_database())


@app.command("plan")
def plan_command(
    model: str = typer.Option(..., "--model", help="model_id, e.g. llama-3.3-70b"),
    workload: str = typer.Option(PLAN_DEFAULTS["workload"], help="serve, full, lora, qlora or pretrain"),
    precision: str = typer.Option(
        PLAN_DEFAULTS["precision"],
        help="serving weights: "
        + ", ".join(SERVE_PRECISIONS)
        + " (native: as the model's official checkpoint ships them)",
    ),
    kv_precision: str = typer.Option(
        PLAN_DEFAULTS["kv_precision"], "--kv-precision", help="serving KV cache: bf16 or fp8"
    ),
    context: int = typer.Option(
        None,
        help="serving context tokens a request may reach (default: 8,192, or "
        "input + output if longer; at most the model's)",
    ),
    users: int = typer.Option(PLAN_DEFAULTS["users"], help="serving: concurrent users (1 to 4,096)"),
    input_tokens: int = typer.Option(
        PLAN_DEFAULTS["input_tokens"], "--input-tokens", help="serving: prompt tokens per request"
    ),
    output_tokens: int = typer.Option(
        PLAN_DEFAULTS["output_tokens"], "--output-tokens", help="serving: answer tokens per request"
    ),
    min_tokens_per_user: float = typer.Option(
        PLAN_DEFAULTS["min_tokens_per_user"], "--min-tokens-per-user", help="serving: output tokens/s per user, 0: any"
    ),
    max_ttft: float = typer.Option(
        None, "--max-ttft", help="serving: keep options whose time to first token is at most this many seconds"
    ),
    engine: str = typer.Option(PLAN_DEFAULTS["engine"], help="serving engine family: vllm-sglang or tensorrt-llm"),
    tokens: float = typer.Option(None, help="training: tokens to train on (default 1e9; pretrain: 20 per parameter)"),
    tier: str = typer.Option(PLAN_DEFAULTS["tier"], help="pricing tier: on-demand, spot, reserved or any"),
    limit: int = typer.Option(10, help="options to show (1 to 1,000)"),
    as_json: bool = typer.Option(False, "--json", help="print JSON"),
) -> None:
    """Ranked deployments one can rent (GPU x machine x provider x tier) with fit, speed and cost: the Planner's SQL."""
    from .plan import WORKLOAD_LABELS, PlanInputError, Question, error_note, plan

    db = _built_database()
    question = Question(
        model=model,
        workload=workload,
        precision=precision,
        kv_precision=kv_precision,
        context=context,
        users=users,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        tier=tier,
        engine=engine,
        min_tokens_per_user=min_tokens_per_user,
        max_ttft_s=max_ttft,
        tokens=tokens,
    )
    try:
        result = plan(db, question, limit)
    except PlanInputError as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise typer.Exit(2) from exc
    if as_json:
        typer.echo(json.dumps(result, indent=2, default=str))
        return
    serve = workload == "serve"
    r = result
    typer.echo(
        f"{model} · {WORKLOAD_LABELS[workload]}"
        + (
            f" · {r['precision']}{' (' + r['weights_format'] + ')' if r['precision'] == 'native' else ''} "
            f"weights, {r['kv_precision']} KV · {r['users']:,} {'user' if r['users'] == 1 else 'users'} · "
            f"{r['input_tokens']:,} in / {r['output_tokens']:,} out tokens · context {r['context']:,}"
            + (f" · at least {r['min_tokens_per_user']:g} tok/s per user" if r["min_tokens_per_user"] else "")
            if serve
            else ""
        )
        + f" · tier {tier}"
    )
    if not result["options"]:
        typer.echo(
            "no option: no rentable machine holds it, even 64 machines of one offer"
            + (" at the speed asked" if min_tokens_per_user or max_ttft else "")
        )
        return
    if serve:
        typer.echo(
            f"{'#':>3} {'machine (GPUs x TP)':<44} {'provider':<13} {'$/hour':>8} {'tok/s/GPU':>9} "
            f"{'tok/s/user':>10} {'TTFT s':>7} {'$/M in':>7} {'$/M out':>8} {'$/M all':>8}  price date"
        )
    else:
        typer.echo(
            f"{'#':>3} {'machine':<36} {'provider':<13} {'$/hour':>8} {'tok/s exp':>10} {'hours':>8} "
            f"{'$/job':>10}  price date"
        )
    for o in result["options"]:
        # a replica across machines of a cluster: its pipeline stages and the fabric between them
        stages = o.get("pipeline_parallel") or 1
        across = f" PP {stages} {o['cluster_network']}" if serve and stages > 1 else ""
        split = f" (TP {o['tensor_parallel']}{across} x {o['replicas']})" if serve else ""
        fleet = f"{o['machines']} x " if (o.get("machines") or 1) > 1 else ""
        machine = f"{fleet}{o['instance_gpus']} x {o['gpu_name']}"[: 44 - len(split)] + split
        if serve:
            typer.echo(
                f"{o['rank']:>3} {machine:<44} {o['provider'][:13]:<13} {o['usd_per_hour']:>8.2f} "
                f"{o['throughput_tokens_per_s_per_gpu']:>9,.0f} {o['expected_tokens_per_s_per_user']:>10,.1f} "
                f"{o['ttft_s']:>7.2f} {o['usd_per_million_input_tokens']:>7.3f} "
                f"{o['usd_per_million_output_tokens']:>8.3f} {o['usd_per_million_tokens']:>8.3f}  {o['observed_on']}"
            )
        else:
            typer.echo(
                f"{o['rank']:>3} {machine:<36} {o['provider'][:13]:<13} {o['usd_per_hour']:>8.2f} "
                f"{o['expected_tokens_per_s']:>10,.0f} {o['job_hours']:>8,.1f} {o['usd_per_job']:>10,.0f}  "
                f"{o['observed_on']}"
            )
    if result["options_total"] > len(result["options"]):
        typer.echo(f"... {result['options_total'] - len(result['options'])} more (--limit)")
    if serve:
        typer.echo(error_note(result["options"][0]))


def main() -> None:
    """The `gpu-atlas` command."""
    app()


if __name__ == "__main__":
    main()
