"""Fixtures of the integration tests besides the session's build (tests/conftest.py)."""

from __future__ import annotations

import pytest

from tests.conftest import copy_of_build


@pytest.fixture(scope="module")
def atlas(built_site, tmp_path_factory):
    """The last build (a copy of the session's) and its own sources, in the environment of the runs below."""
    base = tmp_path_factory.mktemp("publish")
    copy = copy_of_build(built_site, base)
    src = copy["sources"]
    env = {"GPU_ATLAS_SOURCES": str(src), "GPU_ATLAS_DB": str(copy["db"]), "GPU_ATLAS_BUILD": str(copy["build"])}
    mp = pytest.MonkeyPatch()
    for k, v in env.items():
        mp.setenv(k, v)
    yield {"base": base, "src": src, "env": env}
    mp.undo()
