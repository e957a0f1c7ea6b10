"""The command ends without the interpreter's teardown (pipeline/process.py): its exit code, its output and its
exit handlers must be those a normal exit gives."""

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


def test_the_collector_is_off_while_loading_and_on_with_the_loaded_objects_frozen():
    done = _run("""
        import gc
        from pipeline import process
        process.start()
        off = not gc.isenabled()
        objects = [[i] for i in range(1000)]
        process.loaded()
        print(off, gc.isenabled(), gc.get_freeze_count() >= 1000)
        """)
    assert done.stdout.split() == ["True", "True", "True"], done.stderr


def test_a_process_that_did_not_start_keeps_its_collector():
    import gc

    from pipeline import process

    frozen = gc.get_freeze_count()
    process.loaded()
    assert gc.isenabled() and gc.get_freeze_count() == frozen
