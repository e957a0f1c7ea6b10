"""How a process of the pipeline starts and ends: the `gpu-atlas` command and the site's edition builders.

Loading: Python's cyclic garbage collector runs every few hundred new objects and, now and then, walks every object
there is. Loading the pipeline makes some 300,000 (Dagster, pandas, pandera, Altair, SQLAlchemy, the definitions)
and almost no garbage: the collector took 0.5 s of every command's start. `start` turns it off while the process
loads; `loaded` turns it back on with everything loaded so far frozen (kept, and passed over by the collector), so
it looks only at what the work makes (a price refresh took another 0.4 s less).

Ending: at exit Python frees every object one by one: after a build or a price refresh, about 0.8 s of a command
that is already finished. `exit_now` runs the exit handlers and flushes the output, as a normal exit does, and ends
there. Files the process wrote are closed by then: the database by its resource, pages and sites by their writers.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from typing import NoReturn


def start() -> None:
    """At the start of the process: no cyclic collection while it loads."""
    gc.disable()


def loaded() -> None:
    """When the work begins: what is loaded lives until the process ends (frozen); collect only what comes next.
    A process that did not `start` (a test session, the Dagster UI's run worker) keeps its collector as it was."""
    if gc.isenabled():
        return
    gc.freeze()
    gc.enable()


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
