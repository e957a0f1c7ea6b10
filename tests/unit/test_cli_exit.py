"""The `gpu-atlas` command's exit codes, output and exit handlers are those a user and a script rely on."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)


def test_exit_codes_output_and_exit_handlers_are_kept(tmp_path):
    marker = tmp_path / "handler-ran"
    done = _run(f"""
        import atexit, sys
        import typer
        import pipeline.cli as cli
        atexit.register(lambda: open({str(marker)!r}, "w").write("yes"))
        app = typer.Typer()
        @app.command()
        def go(code: int = 0):
            print("partial line without newline", end="")
            raise typer.Exit(code)
        cli.app = app
        sys.argv = ["gpu-atlas", "--code", "3"]
        cli.main()
        print("never printed")
        """)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "partial line without newline"  # buffered output is flushed
    assert marker.read_text() == "yes"  # exit handlers ran


def test_a_usage_error_and_success_exit_as_click_says():
    bad = _run("""
        import sys
        import pipeline.cli as cli
        sys.argv = ["gpu-atlas", "no-such-command"]
        cli.main()
        """)
    assert bad.returncode == 2 and "No such command" in bad.stderr
    ok = _run("""
        import sys
        import pipeline.cli as cli
        sys.argv = ["gpu-atlas", "--help"]
        cli.main()
        """)
    assert ok.returncode == 0 and "refresh-prices" in ok.stdout


def test_text_given_to_sys_exit_is_printed_and_gives_1():
    done = _run("""
        import sys
        import pipeline.cli as cli
        cli.app = lambda: sys.exit("another GPU Atlas build is running")
        cli.main()
        """)
    assert done.returncode == 1 and "another GPU Atlas build is running" in done.stderr
