"""The `gpu-atlas` command."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from .config import paths

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="GPU Atlas: GPU specs, cloud prices and LLM configs in one DuckDB file and one site.")


def _report(outcome, what: str) -> None:
    from .config import paths as _paths

    p = _paths()
    if not outcome.ok:
        typer.secho(f"{what} failed after {outcome.seconds:.1f} s; the last good database and site are untouched.",
                    fg="red", err=True)
        for err in outcome.errors:
            typer.echo(err, err=True)
        raise typer.Exit(1)
    typer.secho(f"{what} finished in {outcome.seconds:.1f} s", fg="green")
    typer.echo(f"  assets materialised: {len(outcome.materialized)}")
    typer.echo(f"  checks passed:       {outcome.checks_passed}")
    for warn in outcome.checks_warned:
        first = warn.splitlines()
        typer.secho(f"  warning: {first[0]}" + (f" (+{len(first) - 1} more)" if len(first) > 1 else ""), fg="yellow")
    typer.echo(f"  database:            {p.database}")
    site = p.site / "index.html"
    typer.echo(f"  site:                {site if site.exists() else '(not built)'}")


@app.command()
def build() -> None:
    """Materialise the whole graph: sources -> DuckDB -> scores -> pages -> site."""
    from .run import materialize

    _report(materialize(), "build")


@app.command("refresh-prices")
def refresh_prices() -> None:
    """Re-materialise only the price inputs and what depends on them (pages and site included)."""
    from .run import materialize, price_selection

    _report(materialize(price_selection(), incremental=True), "price refresh")


@app.command("check-sources")
def check_sources() -> None:
    """Check every sidecar, checksum and header under sources/."""
    from .sources import check_all

    problems = check_all(paths().sources)
    for p in problems:
        typer.echo(str(p), err=True)
    if problems:
        raise typer.Exit(1)
    typer.echo("all sources have valid sidecars and checksums")


@app.command()
def checksums(write: bool = typer.Option(False, "--write", help="update sidecar checksums in place")) -> None:
    """Show (or with --write, update) sidecars whose checksum no longer matches their data file."""
    from .sources import write_checksums

    if not write:
        typer.echo("pass --write to update the checksum of every sidecar whose data file changed")
        raise typer.Exit(0)
    for side in write_checksums(paths().sources):
        typer.echo(f"updated {side}")


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(app())
