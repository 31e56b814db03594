"""Real-browser tests of the page: one Chromium for the whole run, real ``minodice serve``
processes, and pages in contexts of their own (separate storage: separate people).

Nothing here is skipped. Without Playwright or Chromium every browser test fails with a
message that says what to install: CI installs both (``.ci/run``). Chromium is Debian's
``/usr/bin/chromium`` unless ``MINODICE_CHROMIUM`` names another; without either, the
Chromium that ``playwright install chromium`` downloads is tried.

The tests run in one event loop for the session (the browser lives there); every other
test of the suite keeps its own loop.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from live_server import LiveServer, servers

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page

GRACE = 2.0                # --grace: a closed page's seat goes on autoplay soon
ACTION_TIMEOUT = 20_000    # ms: Playwright's default for every wait and action
QUICK_READER = "localStorage.setItem('minodice.reading', '300');"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
INSTALL = ("install them with `pip install -e '.[dev]'` (Playwright for Python) and "
           "`apt-get install chromium` (or set MINODICE_CHROMIUM to a Chrome/Chromium binary)")


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the browser tests that do not crash it (tests/live_server.py)."""
    with servers(tmp_path_factory.mktemp("browser-server"), grace=GRACE) as start:
        yield start()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of this test's own (to kill and restart)."""
    with servers(tmp_path, grace=GRACE) as start:
        yield start()


def chromium_path() -> str | None:
    wanted = os.environ.get("MINODICE_CHROMIUM")
    if wanted:
        return wanted
    return CHROMIUM if Path(CHROMIUM).exists() else None


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    """Chromium, launched once. Missing Playwright or Chromium fails the tests (CI has
    both); it never skips them."""
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:
        pytest.fail(f"the browser tests need Playwright for Python ({exc}); {INSTALL}",
                    pytrace=False)
    executable = chromium_path()
    async with async_playwright() as playwright:
        try:
            launched = await playwright.chromium.launch(executable_path=executable, args=ARGS,
                                                        timeout=60_000)
        except Exception as exc:
            pytest.fail(f"Chromium did not start (executable: {executable or 'Playwright'}"
                        f"'s own): {exc}\nThe browser tests need Chromium; {INSTALL}",
                        pytrace=False)
        yield launched
        await launched.close()



@dataclass
class Pages:
    """The contexts a test opened, and what went wrong in their pages."""

    browser: Browser
    contexts: list[BrowserContext] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    async def new(self, **options: Any) -> Page:
        """A page in a context of its own (a person or a device of its own)."""
        context = await self.browser.new_context(**options)
        context.set_default_timeout(ACTION_TIMEOUT)
        # A quick reader: a finished trick stays 0.3 s, not the page's 2 s, so that whole
        # games fit their hang guards (tests of that time set their own, after this one).
        await context.add_init_script(QUICK_READER)
        self.contexts.append(context)
        page = await context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        return page

    async def close(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):
                await context.close()
        self.contexts.clear()


@pytest_asyncio.fixture(loop_scope="session")
async def pages(browser: Browser) -> AsyncIterator[Pages]:
    """``await pages.new(**context_options)``; closed after the test, which fails if a
    page threw an uncaught error."""
    opened = Pages(browser)
    try:
        yield opened
    finally:
        await opened.close()
    assert not opened.errors, "uncaught errors in the page:\n" + "\n".join(opened.errors)
