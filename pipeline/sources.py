"""The old name of `pipeline.sourcefiles` (the package that finds and reads the files of sources/), kept only for
modules written before the rename: `pipeline/run.py` imports `sha256` from here while the publisher is rewritten.
Import from `pipeline.sourcefiles`; remove this module once nothing imports it (tests/unit/test_providers.py lists
who still does)."""

from .sourcefiles import *  # noqa: F403
from .sourcefiles import __all__  # noqa: F401
