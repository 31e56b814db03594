"""A table's first view waits for as little as it can (issue #16: ≤ 1 s on a phone; the
time itself is measured by ``benchmarks/page.py``, these tests check what it waits for):
a seat's socket opens beside the request for the table's details instead of after it
and the dice set; the score pad's and the odds page's modules are not loaded; the
service worker is registered only after the page has loaded, so that its copying of
every file does not compete with the first view."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from live_server import LiveServer, servers

from .conftest import Pages
from .pages import BID

if TYPE_CHECKING:
    from playwright.async_api import Request, Route, WebSocket

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONE = {"width": 360, "height": 640}


async def test_a_seats_first_view_does_not_wait_for_the_tables_details(
        tmp_path: Path, pages: Pages) -> None:
    """The answer to ``GET /api/tables/ID`` is held back until the seat's socket is open:
    a page that opened it only after that answer would draw its table 10 s late. (A
    server of its own, with a long grace: the seat, taken before its page opens, must not
    go to the stand-in while the page loads on a busy machine.)"""
    with servers(tmp_path, grace=60.0) as start:
        await first_view(start(), pages)


async def first_view(server: LiveServer, pages: Pages) -> None:
    created = server.post("/api/tables", {"players": 4, "bots": [None, "easy", "easy", "easy"]})
    table = created["table"]
    seat = server.post(f"/api/tables/{table}/seats", {"name": "Ana", "client_seed": "x"})
    page = await pages.new(viewport=PHONE)
    stored = json.dumps({"seat": seat["seat"], "token": seat["token"]})
    await page.add_init_script(f"localStorage.setItem('minodice.seat.{table}', {stored!r});")
    socket_opened = asyncio.Event()
    requested: list[str] = []

    def opened(ws: WebSocket) -> None:
        if f"/ws/{table}" in ws.url:
            socket_opened.set()

    async def details(route: Route) -> None:
        try:
            await asyncio.wait_for(socket_opened.wait(), 10)
        except TimeoutError:
            requested.append("the socket was not opened while the details were awaited")
        await route.continue_()

    def request(req: Request) -> None:
        requested.append(req.url.removeprefix(server.base))

    page.on("websocket", opened)
    page.on("request", request)
    await page.route(f"**/api/tables/{table}", details)
    await page.goto(f"{server.base}/t/{table}")
    await page.locator(BID).first.wait_for()
    assert socket_opened.is_set()
    assert "the socket was not opened while the details were awaited" not in requested
    for unneeded in ("/static/pad.js", "/static/odds.js", "/sw.js"):
        assert unneeded not in requested, requested


async def test_the_service_worker_still_comes_for_the_score_pad(server: LiveServer,
                                                                pages: Pages) -> None:
    """Registered later, it is still registered: the pad works offline (test_pad)."""
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/pad")
    await page.locator("main h1").wait_for()
    assert await page.evaluate(
        "navigator.serviceWorker.ready.then((r) => r.active !== null)")
