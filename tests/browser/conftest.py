"""What every browser test uses: Debian's Chromium driven by Playwright."""

from __future__ import annotations

from pathlib import Path

import pytest
from browsing import ARGS, CHROMIUM, serving


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is not installed: run `make browser` (Debian's chromium package)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(built_site):
    """The built site over HTTP, as the README serves it."""
    with serving(built_site["site"]) as url:
        yield url
