"""Around the table: the lobby says it is offline rather than that no table waits; the
join page shows the table's settings; the closed chat counts the lines that came."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from collections.abc import Callable

import pytest
from playwright.async_api import Page, WebSocketRoute, expect

from live_server import GAME_TIMEOUT, LiveServer

from .conftest import Pages

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONE = {"width": 360, "height": 640}


async def take_seat(page: Page, url: str, name: str) -> None:
    """Join as ``name`` and wait for the seat's own connection: a line typed while the page
    reconnects after taking the seat is not sent (it stays in its field, "Not connected")."""
    await page.goto(url)
    await page.fill("#join-name", name)
    await page.click(".join button[type=submit]")
    await page.locator(".chat summary").wait_for()
    await page.locator(".players .me, .seats .tag.you").first.wait_for()
    await page.locator(".conn-online").wait_for()


async def ana_and_ben(server: LiveServer, pages: Pages) -> tuple[Page, Page]:
    """Ana and Ben seated at a new table of three (a bot the third), on two phones, Ben's
    chat open."""
    table = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})["table"]
    ana, ben = await pages.new(viewport=PHONE), await pages.new(viewport=PHONE)
    for page, name in ((ana, "Ana"), (ben, "Ben")):
        await take_seat(page, f"{server.base}/t/{table}", name)
    await ben.click(".chat summary")
    return ana, ben


async def test_the_lobby_says_it_is_offline(server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.route("**/api/tables", lambda route: route.abort("internetdisconnected"))
    await page.goto(server.base)
    status = page.locator(".public-list .offline")
    await status.wait_for()
    assert (await status.inner_text()).startswith("Offline")
    assert not await page.get_by_text("No public table is waiting").count()


async def test_the_join_page_shows_the_tables_settings(server: LiveServer,
                                                       pages: Pages) -> None:
    table = server.post("/api/tables", {
        "players": 4, "edition": "skull-king", "variant": "simplified",
        "bots": [None, None, "hard", "easy"], "turn_seconds": 60, "advisor": False})["table"]
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/t/{table}")
    settings = page.locator(".join .table-settings")
    await settings.wait_for()
    text = await settings.inner_text()
    for shown in ("Skull King", "Simplified: no minus points", "hard bot", "easy bot",
                  "60 s per decision", "not allowed"):
        assert shown in text
    # a free seat reads as free: "Seat 1" alone read as someone called "Seat 1"
    players = text.split("Players", 1)[1].split("\n")[1]
    assert players.startswith("Seat 1 (free), Seat 2 (free), "), players
    dutch = await pages.new(viewport=PHONE, locale="nl-NL")
    await dutch.goto(f"{server.base}/t/{table}")
    await dutch.locator(".join .table-settings").wait_for()
    dutch_text = await dutch.locator(".join .table-settings").inner_text()
    assert "Plek 1 (vrij), Plek 2 (vrij), " in dutch_text
    # each bot by the name the seats show it by, and its level
    for player in server.get(f"/api/tables/{table}")["players"][2:]:
        assert f"{player['name']} ({player['bot']} bot)" in text, (player, text)


async def test_house_rules_are_chosen_and_shown_before_joining(server: LiveServer,
                                                               pages: Pages) -> None:
    """The create form's "House rules" (RULES.md's open points) make the table play them:
    the table says so, and a person asked to join reads them, in their language."""
    host = await pages.new(viewport=PHONE)
    await host.goto(server.base + "/")
    await host.fill("#quick-name", "Ana")
    await host.select_option("#c-players", "3")
    await host.select_option("#c-seat-1", "")
    await host.select_option("#c-seat-2", "easy")
    await host.click(".house-rules summary")
    await host.select_option("#c-start", "fixed")
    await host.select_option("#c-special-lead", "no-colour")
    await host.locator(".create button[type=submit]").click()
    await host.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
    table = host.url.rsplit("/", 1)[1]
    assert server.get(f"/api/tables/{table}")["rule_options"] == {
        "start": "fixed", "special_lead": "no-colour"}
    guest = await pages.new(viewport=PHONE, locale="de-DE")
    await guest.goto(f"{server.base}/t/{table}")
    settings = guest.locator(".join .table-settings")
    await settings.wait_for()
    text = await settings.inner_text()
    for shown in ("Startspieler der späteren Runden\nImmer derselbe",
                  "Farbe, wenn ein Sonderwürfel eröffnet\nKeine Farbe"):
        assert shown in text
    # the waiting room and, once playing, the score pad keep saying so
    await expect(host.locator(".house-rules-note")).to_contain_text("Always the same")
    await guest.fill("#join-name", "Ben")
    await guest.locator(".join button[type=submit]").click()
    await guest.click('[data-key="showPad"]')
    note = guest.locator(".pad .house-rules-note")
    await expect(note).to_contain_text("Immer derselbe")
    await expect(note).to_contain_text("Keine Farbe")
    plain = server.post("/api/tables", {"players": 3, "bots": [None, "easy", "easy"]})["table"]
    await guest.goto(f"{server.base}/t/{plain}")
    await settings.wait_for()
    assert "Keine Farbe" not in await settings.inner_text()
    await guest.fill("#join-name", "Ben")
    await guest.locator(".join button[type=submit]").click()
    await guest.click('[data-key="showPad"]')
    await guest.locator(".pad").wait_for()
    assert not await guest.locator(".house-rules-note").count()


async def test_the_closed_chat_counts_new_lines(server: LiveServer, pages: Pages) -> None:
    ana, ben = await ana_and_ben(server, pages)
    badge = ana.locator(".chat summary .unread")
    assert await badge.inner_text() == ""
    for line in ("hello", "good luck"):
        await ben.fill("#chat-text", line)
        await ben.press("#chat-text", "Enter")
        await ana.get_by_text(line).wait_for(state="attached")
    assert (await badge.inner_text()).strip() == "(2 new)"
    await ana.click(".chat summary")
    await expect(badge).to_have_text("")  # the page clears it on the toggle event, a task later
    assert await ben.locator(".chat summary .unread").inner_text() == ""  # open: none new


async def test_lines_sent_again_on_a_reload_are_not_new(server: LiveServer,
                                                        pages: Pages) -> None:
    """The server sends its kept lines on every connection: only the lines after the last
    one this device saw count as new, and none is shown twice."""
    ana, ben = await ana_and_ben(server, pages)

    async def say(line: str) -> None:
        await ben.fill("#chat-text", line)
        await ben.press("#chat-text", "Enter")
        await ana.get_by_text(line).wait_for(state="attached")

    for line in ("hello", "good luck"):
        await say(line)
    badge = ana.locator(".chat summary .unread")
    await ana.click(".chat summary")   # read ...
    await expect(badge).to_have_text("")
    await ana.click(".chat summary")   # ... and closed again
    await say("one more")
    assert (await badge.inner_text()).strip() == "(1 new)"
    await ana.reload()
    await ana.get_by_text("one more").wait_for(state="attached")
    assert (await badge.inner_text()).strip() == "(1 new)"
    assert await ana.locator(".chat-log li").count() == 3
    await ana.click(".chat summary")
    await expect(badge).to_have_text("")  # seen is stored before the reload
    await ana.reload()
    await ana.get_by_text("one more").wait_for(state="attached")
    assert await badge.inner_text() == ""


async def test_a_line_typed_while_offline_is_kept(own_server: LiveServer,
                                                   pages: Pages) -> None:
    """The field was emptied even when the line could not be sent: typed while the server
    was away, it was lost. Now it stays, and goes once the connection is back."""
    ana, ben = await ana_and_ben(own_server, pages)
    own_server.kill9()
    await ben.locator(".conn-reconnecting").wait_for(timeout=10_000)
    await ben.fill("#chat-text", "still here?")
    await ben.press("#chat-text", "Enter")
    assert await ben.input_value("#chat-text") == "still here?"
    own_server.start()
    await ben.locator(".conn-online").wait_for(timeout=30_000)
    await ben.press("#chat-text", "Enter")
    await ana.get_by_text("still here?").wait_for(state="attached")
    await expect(ben.locator("#chat-text")).to_have_value("")


async def test_a_line_sent_into_a_dead_connection_is_kept(own_server: LiveServer,
                                                          pages: Pages) -> None:
    """A connection that died without closing takes what is sent into it: the page cannot
    tell the line was lost. The line leaves its field only once the server relays it back;
    the second Enter on the same connection does not say it twice."""
    ana, ben = await ana_and_ben(own_server, pages)
    assert own_server.proc is not None
    os.kill(own_server.proc.pid, signal.SIGSTOP)   # open sockets, nobody answering
    try:
        await ben.fill("#chat-text", "anyone?")
        await ben.press("#chat-text", "Enter")
        await ben.press("#chat-text", "Enter")
        await ben.wait_for_timeout(500)
        assert await ben.input_value("#chat-text") == "anyone?"
        assert await ben.locator(".conn-online").count() == 1   # the page saw nothing wrong
    finally:
        own_server.kill9()   # what was sent dies with it
    # The page must have seen its socket close before the server is back: else the wait
    # for .conn-online below may match the old connection's status, and the Enter after
    # it go to the dead socket (refused there as the line already sent on it).
    await ben.locator(".conn-reconnecting").wait_for(timeout=10_000)
    own_server.start()
    await ben.locator(".conn-online").wait_for(timeout=30_000)
    assert await ben.input_value("#chat-text") == "anyone?"
    await ben.press("#chat-text", "Enter")
    await expect(ben.locator("#chat-text")).to_have_value("")
    await ana.get_by_text("anyone?").wait_for(state="attached")
    assert await ana.locator(".chat-log li").count() == 1


async def test_the_skip_link_moves_to_the_game_and_keeps_the_table(server: LiveServer,
                                                                   pages: Pages) -> None:
    """"Skip to the game" (the first thing a keyboard reaches) only moves the focus: the
    table was built anew by it, and its connection opened again, as if the page had been
    left and entered."""
    _ana, ben = await ana_and_ben(server, pages)
    await ben.fill("#chat-text", "half a line")
    await ben.evaluate("document.querySelector('#app > *').dataset.kept = 'yes'")
    await ben.focus(".skip")
    await ben.keyboard.press("Enter")
    await ben.wait_for_url("**#app")
    await expect(ben.locator("#app")).to_be_focused()
    assert await ben.locator("#app > [data-kept='yes']").count() == 1
    assert await ben.input_value("#chat-text") == "half a line"
    assert await ben.locator(".conn-online").count() == 1


class Link:
    """The page's table connections, each through this test: what the page sends can be
    lost on the way (a link that died without a word), and what the server sends held."""

    def __init__(self) -> None:
        self.routes: list[WebSocketRoute] = []
        self.acts: list[str] = []    # the decisions that reached the server
        self.losing = False
        self.holding = False
        self.held: list[Callable[[], None]] = []

    async def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        self.routes.append(ws)

        def from_page(message: str | bytes) -> None:
            if self.losing:
                return
            if '"act"' in str(message):
                self.acts.append(str(message))
            server.send(message)

        def from_server(message: str | bytes) -> None:
            if self.holding:
                self.held.append(lambda: ws.send(message))
            else:
                ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    def release(self) -> None:
        self.holding = False
        for send in self.held:
            send()
        self.held.clear()


async def seated_through(link: Link, server: LiveServer, pages: Pages) -> Page:
    """Ana at a new table of three with two bots, her connections through ``link``, at
    her first bid."""
    table = server.post("/api/tables", {"players": 3, "bots": [None, "easy", "easy"]})["table"]
    page = await pages.new(viewport=PHONE)
    await page.route_web_socket(re.compile(r"/ws/"), link.route)
    await take_seat(page, f"{server.base}/t/{table}", "Ana")
    await page.locator(".bid-button").first.wait_for()
    return page


async def test_a_bid_lost_with_its_connection_can_be_made_again(server: LiveServer,
                                                                pages: Pages) -> None:
    """A bid sent into a connection that had died without a word never arrived, and on
    the new connection the page ignored every tap of that decision as already made: the
    player was stuck until they reloaded."""
    link = Link()
    page = await seated_through(link, server, pages)
    link.losing = True
    await page.locator(".bid-button[data-key='bid-0']").click()
    await expect(page.locator(".bid-button.sent")).to_have_count(1)
    link.losing = False
    await link.routes[-1].close()       # the page learns that the connection is gone
    await expect(page.locator(".conn-online")).to_have_count(1, timeout=15_000)
    await expect(page.locator(".bid-button.sent")).to_have_count(0)  # drawn anew: not made
    assert link.acts == []
    await page.locator(".bid-button[data-key='bid-0']").click()
    await page.locator(".bid-button").first.wait_for(state="detached")
    assert len(link.acts) == 1


async def test_a_bid_shows_at_once_while_its_answer_waits(server: LiveServer,
                                                         pages: Pages) -> None:
    """The view that answers a bid may wait (a finished trick's reading time): the bid
    buttons looked untouched meanwhile, and a second tap, of another bid, did nothing."""
    link = Link()
    page = await seated_through(link, server, pages)
    link.holding = True
    await page.locator(".bid-button[data-key='bid-1']").click()
    await expect(page.locator(".bid-button.sent")).to_have_attribute("data-key", "bid-1")
    assert await page.locator(".bid-button.not-sent").count() >= 1
    await page.locator(".bid-button[data-key='bid-0']").click()   # changed one's mind
    await expect(page.locator(".bid-button.sent")).to_have_attribute("data-key", "bid-1")
    assert len(link.acts) == 1
    await page.click("[data-key=showFaces]")  # drawn again meanwhile: still marked
    await page.locator(".hand .faces").first.wait_for()
    await expect(page.locator(".bid-button.sent")).to_have_attribute("data-key", "bid-1")
    link.release()
    await page.locator(".bid-button").first.wait_for(state="detached")


async def test_a_rematch_asked_for_is_shown_to_everyone_at_the_table(server: LiveServer,
                                                                     pages: Pages) -> None:
    """Ana asks for a rematch: Ben's and a spectator's final screens said nothing of it
    (Ben found it only by asking himself, and a spectator not at all). Now both are told,
    Ben with the way to his held seat, the spectator with the way to watch it."""
    table = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})["table"]
    ana = server.post(f"/api/tables/{table}/seats", {"name": "Ana"})
    ben = server.post(f"/api/tables/{table}/seats", {"name": "Ben"})
    for seat in (ana, ben):  # both hand their seats to bots, which play to the end
        server.post(f"/api/tables/{table}/away", {"token": seat["token"]})
    async with asyncio.timeout(GAME_TIMEOUT):
        while server.get(f"/api/tables/{table}")["status"] != "finished":
            await asyncio.sleep(0.2)
    bens = await pages.new(viewport=PHONE)
    await bens.add_init_script(f"localStorage.setItem('minodice.seat.{table}', "
                               f"JSON.stringify({json.dumps(ben)}))")
    watcher = await pages.new(viewport=PHONE)
    for page in (bens, watcher):
        await page.goto(f"{server.base}/t/{table}")
        await page.locator(".final").wait_for()
    assert await bens.get_by_role("button", name="Rematch", exact=True).count() == 1
    assert await watcher.locator(".final .rematch").count() == 0
    rematch = server.post(f"/api/tables/{table}/rematch", {"token": ana["token"]})["table"]
    for page in (bens, watcher):
        await expect(page.locator(".final .rematch")).to_have_text(
            "A rematch is waiting at a new table.")
    await expect(watcher.locator("#watch-rematch")).to_have_attribute("href", f"/t/{rematch}")
    await bens.get_by_role("button", name="Join the rematch").click()
    await bens.wait_for_url(f"**/t/{rematch}")
    await bens.locator(".players .me, .seats .tag.you").first.wait_for()


async def test_a_name_taken_at_the_table_is_said_to_have_changed(server: LiveServer,
                                                                 pages: Pages) -> None:
    """Joining as "Ana" where an Ana sits seats "Ana 2": the page said nothing of it."""
    table = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})["table"]
    server.post(f"/api/tables/{table}/seats", {"name": "Ana"})
    page = await pages.new(viewport=PHONE)
    await take_seat(page, f"{server.base}/t/{table}", "Ana")
    await page.get_by_text("Ana is taken at this table: you play as Ana 2.").wait_for()


async def test_the_keyboard_goes_on_from_the_page_moved_to(server: LiveServer,
                                                          pages: Pages) -> None:
    """A table made with Enter, or another language chosen from the keyboard, left the
    focus on <body>: the keyboard started again from the top of the page."""
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base)
    await page.fill("#quick-name", "Ana")
    await page.press("#quick-name", "Enter")
    await page.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
    await page.locator(".bid-button").first.wait_for()
    await expect(page.locator("#prompt")).to_be_focused()  # "Your bid: …"
    await page.click("#nav .menu")
    await page.select_option("#lang", "de")
    await expect(page.locator("#lang")).to_be_focused()
    await expect(page.locator("#nav a[href='/pad']")).to_have_text("Wertungsblock")
    await page.get_by_role("link", name="Info", exact=True).click()
    await expect(page.locator("h1")).to_be_focused()


async def test_a_message_of_the_page_left_goes_and_the_seats_read_bid_then_won(
        server: LiveServer, pages: Pages) -> None:
    """A name refused in the lobby stayed over the new game's bid buttons (a toast
    outlives its page for 6 s); the seats read won/bid ("4/0") where the score pad reads
    bid/won ("0/4"); the phone's menu stayed open under a dialog (no Escape, no click
    outside)."""
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base)
    await page.fill("#quick-name", "\u2800")  # a braille blank: no visible letter, refused
    await page.press("#quick-name", "Enter")
    refused = page.locator(".toast-item")
    await expect(refused).to_have_count(1)
    await asyncio.sleep(1.2)  # read, then the name corrected
    await page.fill("#quick-name", "Ana")
    await page.press("#quick-name", "Enter")
    await page.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
    await page.locator(".bid-button").first.wait_for()
    assert await refused.count() == 0  # at once, not when its 6 s are over
    await page.locator(".bid-button", has_text="1").click()
    mine = page.locator(".seat.me .won")
    await expect(mine.locator("[aria-hidden='true']")).to_have_text("1/", timeout=30_000)
    assert await mine.get_attribute("title") == "Bid / Won"

    nav = page.locator("#nav")
    await page.click("#nav .menu")
    await expect(nav).to_have_class(re.compile(r"\bopen\b"))
    await page.keyboard.press("Escape")
    await expect(nav).not_to_have_class(re.compile(r"\bopen\b"))
    await expect(page.locator("#nav .menu")).to_be_focused()
    await page.click("#nav .menu")
    await expect(nav).to_have_class(re.compile(r"\bopen\b"))
    await page.locator("main").click(position={"x": 5, "y": 5})
    await expect(nav).not_to_have_class(re.compile(r"\bopen\b"))


async def test_seats_side_by_side_are_as_tall_and_a_secret_bid_s_padlock_is_whole(
        server: LiveServer, pages: Pages) -> None:
    """On a desktop a person's seat (two lines: no bot's level under it) was shorter than
    the bot's beside it, and the padlock of a secret bid smaller than the figures."""
    ana, _ben = await ana_and_ben(server, pages)
    await ana.set_viewport_size({"width": 1280, "height": 800})
    # the bot has bid (a padlock); Ben, a person, not yet
    lock = ana.locator(".ring .seat .lock")
    await lock.first.wait_for()
    assert await ana.locator(".ring .seat").count() == 2
    size = await lock.first.evaluate("""(svg) => [svg.getBoundingClientRect().height,
      parseFloat(getComputedStyle(svg.closest(".won")).fontSize)]""")
    assert size[0] >= size[1], size
    heights = await ana.locator(".ring .seat").evaluate_all(
        "(seats) => seats.map((s) => s.getBoundingClientRect().height)")
    assert max(heights) - min(heights) < 1, heights
