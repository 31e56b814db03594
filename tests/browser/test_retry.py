"""The page takes a seat through a moment when the table's owner is away: a ``503`` with
``Retry-After`` (nothing changed) is sent again, a bounded number of times; a table that is
gone for good (expired while watched) is said so, and not connected to again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from live_server import LiveServer, servers

from .conftest import GRACE, Pages
from .pages import stored_seat

if TYPE_CHECKING:
    from playwright.async_api import Route

pytestmark = pytest.mark.asyncio(loop_scope="session")

AWAY = {"error": {"code": "unavailable", "message": "this table is changing hands between "
                  "server processes; try again in a moment"}}


async def test_the_page_sends_a_join_again_while_the_table_changes_hands(
        server: LiveServer, pages: Pages) -> None:
    table = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})["table"]
    tries: list[str] = []

    async def away_twice(route: Route) -> None:
        tries.append(route.request.method)
        if len(tries) <= 2:
            await route.fulfill(status=503, json=AWAY, headers={"retry-after": "0"})
        else:
            await route.continue_()

    page = await pages.new()
    await page.route(f"**/api/tables/{table}/seats", away_twice)
    await page.goto(f"{server.base}/t/{table}")
    await page.fill("#join-name", "Ana")
    await page.locator(".join button[type=submit]").click()
    await page.wait_for_function("(key) => localStorage.getItem(key)",
                                 arg=f"minodice.seat.{table}", timeout=20_000)
    assert tries == ["POST"] * 3
    assert (await stored_seat(page, table))["seat"] == 0
    assert server.get(f"/api/tables/{table}")["seats_free"] == 1


async def test_the_page_gives_up_after_a_few_tries_and_says_so(server: LiveServer,
                                                               pages: Pages) -> None:
    table = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})["table"]
    tries: list[str] = []

    async def away(route: Route) -> None:
        tries.append(route.request.method)
        await route.fulfill(status=503, json=AWAY, headers={"retry-after": "0"})

    page = await pages.new()
    await page.route(f"**/api/tables/{table}/seats", away)
    await page.goto(f"{server.base}/t/{table}")
    await page.fill("#join-name", "Ana")
    await page.locator(".join button[type=submit]").click()
    await page.locator(".toast-item").first.wait_for(timeout=30_000)
    assert len(tries) == 5  # the first and RETRIES (4) more
    assert await stored_seat(page, table) is None
    # a refusal without Retry-After is shown at once, not sent again
    tries.clear()
    await page.unroute(f"**/api/tables/{table}/seats")

    async def refused(route: Route) -> None:
        tries.append(route.request.method)
        await route.fulfill(status=503, json=AWAY)

    await page.route(f"**/api/tables/{table}/seats", refused)
    # (the same words again renew the toast shown: cleared, to see this one come)
    await page.evaluate("document.querySelectorAll('.toast-item').forEach((t) => t.remove())")
    await page.locator(".join button[type=submit]").click()
    await page.locator(".toast-item").first.wait_for(timeout=10_000)
    assert tries == ["POST"]


async def test_a_watched_table_that_expires_says_so_and_is_not_tried_again(
        tmp_path: Path, pages: Pages) -> None:
    """A waiting table nobody took a seat at expires even while someone watches it
    (``--expire-waiting 0.02``: 1.2 s): the page shows that the table is gone, with the
    way back to the lobby, and opens no more sockets (it tried again every 8 s for ever)."""
    with servers(tmp_path, grace=GRACE, options=("--expire-waiting", "0.02")) as start:
        server = start()
        table = server.post("/api/tables", {"players": 3})["table"]
        page = await pages.new()
        sockets: list[str] = []
        page.on("websocket", lambda ws: sockets.append(ws.url))
        await page.goto(f"{server.base}/t/{table}")
        await page.wait_for_selector("text=Table not found", timeout=20_000)
        assert await page.locator("a[href='/']").count() >= 1
        seen = len(sockets)
        await asyncio.sleep(3)  # the page's first retry came after 0.3 s
        assert len(sockets) == seen, sockets
