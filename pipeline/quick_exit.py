"""Ending a process when its work is done, without the interpreter's teardown.

Python frees every object one by one at exit: after a build or a price refresh, some 300,000 (Dagster's,
pandas', the pages'), about 0.8 s of a command that is already finished. The command (`gpu-atlas`) and the site
builder processes end through `exit_now` instead: exit handlers run and output is flushed, as at a normal exit.
Files the process wrote are closed by then: the database by its resource, pages and sites by their writers."""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn


def exit_now(code=0) -> NoReturn:
    """Exit with `code` as `sys.exit` would (None is 0, text is printed and gives 1), without the teardown."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()  # logging's flush, temporary folders' removal, ...
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a reader that went away, or a stream already closed
            pass
    os._exit(code)
