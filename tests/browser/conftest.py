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
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import pytest_asyncio

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page

READY_TIMEOUT = 30.0       # a server answering after its start
ACTION_TIMEOUT = 20_000    # ms: Playwright's default for every wait and action
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
INSTALL = ("install them with `pip install -e '.[dev]'` (Playwright for Python) and "
           "`apt-get install chromium` (or set MINODICE_CHROMIUM to a Chrome/Chromium binary)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    """``minodice serve`` on a port and a database; :meth:`kill9` and :meth:`start` crash
    and restart it on the same ones. The server runs in a session of its own, so that
    killing its process group also ends its bot workers."""

    db: Path
    port: int
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    groups: list[int] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("the server is still running")
        command = [sys.executable, "-m", "minodice", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port), "--db", str(self.db), "--bot-delay", "0",
                   "--grace", "2"]
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.groups.append(self.proc.pid)
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            code = self.proc.poll()
            if code is not None:
                raise RuntimeError(f"the server exited with {code}:\n{self.log_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/api/tables", timeout=2).status_code == 200:
                    return
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not answer in {READY_TIMEOUT} s:\n"
                                   f"{self.log_text()}")
            time.sleep(0.05)

    def kill9(self) -> None:
        """Crash the server: SIGKILL to it and to its bot workers."""
        assert self.proc is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def post(self, path: str, body: dict[str, Any]) -> Any:
        response = httpx.post(self.base + path, json=body, timeout=10)
        assert response.status_code in (200, 201), response.text
        return response.json()

    def get(self, path: str) -> Any:
        response = httpx.get(self.base + path, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()


@contextlib.contextmanager
def _server(folder: Path) -> Iterator[LiveServer]:
    server = LiveServer(folder / "db.sqlite3", free_port(), folder / "server.log")
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server for the browser tests that do not crash it."""
    with _server(tmp_path_factory.mktemp("browser-server")) as live:
        yield live


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server of this test's own (to kill and restart)."""
    with _server(tmp_path) as live:
        yield live


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
