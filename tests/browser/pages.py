"""What the browser tests do on the page, as a person would: click the bid buttons and the
dice the page offers, read what it shows, and keep the WebSocket frames it received.

Playwright is imported only for type checking here, so that a missing Playwright fails
the tests at the ``browser`` fixture with a clear message instead of at collection.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from playwright.async_api import ElementHandle, Page, WebSocket, WebSocketRoute

STEP_TIMEOUT = 20_000   # ms: the longest the page may take to offer the next decision
GAME_TIMEOUT = 120.0    # s: a whole game

BID = ".bid-button"
DIE = ".die-button:not([disabled])"
FINAL = ".final"


def playwright_error() -> type[Exception]:
    from playwright.async_api import Error

    return Error


async def wait_for_decision(page: Page, timeout: float = STEP_TIMEOUT) -> str:
    """Wait until the page offers a decision or shows the final ranking."""
    await page.locator(f"{BID}, {DIE}, {FINAL}").first.wait_for(timeout=timeout)
    if await page.locator(FINAL).count():
        return "final"
    return "bid" if await page.locator(BID).count() else "roll"


async def step(page: Page, rng: random.Random) -> str:
    """Take one decision the page offers by clicking a random bid button or legal die;
    return ``"bid"``, ``"roll"``, ``"final"`` (nothing left), or ``"again"`` (the page
    re-rendered under the click). After a click, waits until the view that answers it
    has re-rendered the page."""
    kind = await wait_for_decision(page)
    if kind == "final":
        return kind
    handles: list[ElementHandle] = await page.locator(BID if kind == "bid" else DIE) \
        .element_handles()
    if not handles:
        return "again"
    chosen = rng.choice(handles)
    try:
        await chosen.click(timeout=5_000)
    except playwright_error():
        return "again"  # detached by a newer view before the click landed
    await chosen.wait_for_element_state("hidden", timeout=STEP_TIMEOUT)
    if kind == "bid":
        # Bids are made at once: another seat's bid, answered before this one, redraws the
        # page with the bid buttons still offered (this seat's bid on its way), and a
        # caller would take them for the next decision. This seat's bid is answered once no
        # bid button is left: none comes back before this seat has rolled.
        await page.locator(BID).first.wait_for(state="detached", timeout=STEP_TIMEOUT)
    return kind


async def decide(page: Page, rng: random.Random) -> str:
    """:func:`step` until a decision is taken (or the game is over)."""
    async with asyncio.timeout(STEP_TIMEOUT / 1000):
        while (kind := await step(page, rng)) == "again":
            pass
    return kind


async def play_to_end(page: Page, rng: random.Random, *, until: str = FINAL,
                      timeout: float = GAME_TIMEOUT) -> list[str]:
    """Play this page's seat until ``until`` (a selector) shows; return the decisions."""
    taken: list[str] = []
    async with asyncio.timeout(timeout):
        while not await page.locator(until).count():
            kind = await step(page, rng)
            if kind in ("bid", "roll"):
                taken.append(kind)
    return taken


async def round_number(page: Page) -> int:
    """The round the table heading shows ("Round 3/8", in any language), 0 before."""
    heading = page.locator(".table-head .round")
    if not await heading.count():
        return 0
    found = re.search(r"(\d+)\s*/\s*\d+", await heading.inner_text())
    return int(found.group(1)) if found else 0


async def mid_trick(page: Page) -> bool:
    """Whether this seat is to roll while the trick in progress already has rolls."""
    return (await page.locator(DIE).count() > 0
            and await page.locator(".trick .rolls li").count() > 0
            and await page.locator(".trick .rolls li.winner").count() == 0
            and not await page.locator(".summary").count())


async def play_until_mid_trick(page: Page, rng: random.Random, min_round: int,
                               timeout: float = GAME_TIMEOUT) -> int:
    """Play until, in round ``min_round`` or later, this seat is to roll in a trick that
    others have started; return the round."""
    async with asyncio.timeout(timeout):
        while True:
            kind = await wait_for_decision(page)
            assert kind != "final", "the game ended before the wanted moment"
            number = await round_number(page)
            if kind == "roll" and number >= min_round and await mid_trick(page):
                return number
            await step(page, rng)


async def table_id(page: Page) -> str:
    found = re.search(r"/t/([A-Za-z0-9]+)", page.url)
    assert found, page.url
    return found.group(1)


async def stored_seat(page: Page, table: str) -> Any:
    raw = await page.evaluate("(key) => localStorage.getItem(key)", f"minodice.seat.{table}")
    return json.loads(raw) if raw else None


@dataclass
class Frames:
    """Every WebSocket frame a page received, parsed."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    sockets: int = 0

    @classmethod
    def record(cls, page: Page) -> Frames:
        """Start recording (before the page opens its WebSocket)."""
        frames = cls()
        page.on("websocket", frames._opened)
        return frames

    def _opened(self, ws: WebSocket) -> None:
        self.sockets += 1
        socket = self.sockets
        ws.on("framereceived", lambda payload: self._received(socket, payload))

    def _received(self, socket: int, payload: str | bytes) -> None:
        message = json.loads(payload)
        message["socket"] = socket  # which of the page's connections (1, 2, …)
        self.messages.append(message)

    def views(self) -> list[dict[str, Any]]:
        return [m["view"] for m in self.messages if m.get("type") == "view"]

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == "error"]


# -- what a page shows --------------------------------------------------------------------

#: Every text a person can see or hear on the page: visible text nodes, the labels and
#: tooltips (aria-label, title, placeholder, alt), the options of the selects, the title.
#: A select's chosen words and its room, in px: ``[text, room]`` (a select cuts its words
#: without an ellipsis, so a test compares the two; a native select keeps about an em of
#: its room for its arrow).
SELECTED_TEXT_AND_ROOM = """(select) => {
  const style = getComputedStyle(select);
  const probe = document.createElement("span");
  probe.style.font = style.font;
  probe.style.whiteSpace = "pre";
  probe.textContent = select.selectedOptions[0].textContent;
  document.body.append(probe);
  const text = probe.getBoundingClientRect().width;
  probe.remove();
  return [text, select.clientWidth - parseFloat(style.paddingLeft)
    - parseFloat(style.paddingRight)];
}"""


VISIBLE_TEXT = """() => {
  const shown = (el) => el.checkVisibility({ visibilityProperty: true });
  const chunks = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    if (!text || !el || el.closest("script, style, noscript, template")) continue;
    const box = el.closest("svg") || el.closest("option, select") || el;
    if (!shown(box)) continue;
    chunks.push(text);
  }
  for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    if (!shown(el.closest("svg") || el)) continue;
    for (const name of ["aria-label", "title", "placeholder", "alt"]) {
      const value = (el.getAttribute(name) || "").replace(/\\s+/g, " ").trim();
      if (value) chunks.push(value);
    }
  }
  return chunks;
}"""


async def visible_texts(page: Page) -> list[str]:
    texts: list[str] = await page.evaluate(VISIBLE_TEXT)
    return texts


#: Elements sticking out of the viewport on the right (a page that scrolls sideways on a
#: phone), except inside the scrolling table boxes (.scroll) and the skip link.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest(".scroll, .sr-only, .skip, .sprite") || !el.checkVisibility()) continue;
    const box = el.getBoundingClientRect();
    if (box.width && box.right > width + 1) {
      const name = `${el.tagName.toLowerCase()}.${el.className.baseVal ?? el.className}`;
      out.push(`${name}: right ${Math.round(box.right)} > ${width}`);
    }
  }
  return out;
}"""


async def overflowing(page: Page) -> list[str]:
    found: list[str] = await page.evaluate(OVERFLOW)
    return found


def views_renamed(names: list[str]) -> Callable[[WebSocketRoute], Awaitable[None]]:
    """A handler for ``page.route_web_socket``: every view from the server reaches the page
    with its players named ``names`` (names the lobby would never let a test seat)."""

    async def rename(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "view":
                for player, name in zip(data["view"]["players"], names, strict=True):
                    player["name"] = name
            ws.send(json.dumps(data))

        server.on_message(to_page)

    return rename
