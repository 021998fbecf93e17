"""A free loopback port for a server a test starts, and Debian's Chromium through Playwright
(the Airflow UI's and the results page's browser tests)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
BROWSER_WAIT_MS = 120_000  # the longest a page, a click or a text may take before the test fails


@contextlib.contextmanager
def chromium_page() -> Iterator[Any]:
    """A page of Debian's Chromium driven by Playwright (screenshots go to ARTIFACTS), closed after."""
    import shutil

    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is missing: `make test` installs it (target `browser`)"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        # Playwright's 30 s default is a guard against a hang, not a check of speed: the UI's
        # pages take longer while the other streams load both cores on a slower CI machine
        page.set_default_timeout(BROWSER_WAIT_MS)
        try:
            yield page
        except BaseException:
            # what the browser showed when the test failed, beside the other screenshots
            with contextlib.suppress(Exception):
                page.screenshot(path=str(ARTIFACTS / "failed.png"), full_page=True)
                (ARTIFACTS / "failed.txt").write_text(f"{page.url}\n\n{page.locator('body').inner_text()}")
            raise
        finally:
            browser.close()
