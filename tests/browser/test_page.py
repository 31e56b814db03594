"""Whole games through the page in a real Chromium: two people and two bots to the final
ranking (with a spectator watching), a reload and a server crash in the middle of a game,
and the fairness check at the end, passing and failing."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio
from websockets.asyncio.client import connect

from live_server import GAME_TIMEOUT, LiveServer, servers

from .conftest import Pages
from .pages import (
    BID,
    DIE,
    FINAL,
    Frames,
    decide,
    overflowing,
    play_to_end,
    play_until_mid_trick,
    round_number,
    stored_seat,
    table_id,
    views_renamed,
)

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, Route, WebSocketRoute

pytestmark = pytest.mark.asyncio(loop_scope="session")

View = dict[str, Any]


async def server_view(server: LiveServer, table: str) -> View:
    """The table as the server shows it to a spectator (a WebSocket of the test's own)."""
    async with asyncio.timeout(10), connect(f"ws://127.0.0.1:{server.port}/ws/{table}") as ws:
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "view":
                view: View = message["view"]
                return view


async def final_rows(page: Page) -> list[tuple[int, str, int]]:
    """The final ranking as the page shows it: (place, name, total) from the top."""
    await page.locator(f"{FINAL} tbody tr").first.wait_for()
    rows = []
    for row in await page.locator(f"{FINAL} tbody tr").all():
        place, name, total = [await cell.inner_text()
                              for cell in await row.locator("td, th").all()]
        rows.append((int(place), name, int(total)))
    return rows


def check_ranking(rows: list[tuple[int, str, int]], totals: dict[str, int]) -> None:
    """Highest total first; equal totals share a place, the next place skips (1, 1, 3)."""
    assert {name: total for _place, name, total in rows} == totals
    assert [total for *_, total in rows] == sorted(totals.values(), reverse=True)
    for place, name, total in rows:
        assert place == 1 + sum(t > total for t in totals.values()), (name, rows)


def record_rolls(record: dict[str, Any]) -> int:
    return sum(len(trick) for rnd in record["rounds"] for trick in rnd["tricks"])


# -- two people, two bots and a spectator: one game for several tests -----------------------


@dataclass
class SharedGame:
    server: LiveServer
    table: str
    a: Page
    b: Page
    spectator: Page
    frames: dict[str, Frames]
    decisions: dict[str, list[str]]
    leaks: list[str]        # what the spectator's page showed that it must not
    samples: int            # how often the spectator's page was looked at during the game
    final: View             # the server's last view


async def watch(page: Page, done: asyncio.Event) -> tuple[list[str], int]:
    """Look at a spectator's page every 100 ms until ``done``: no hand, nothing to click."""
    leaks: list[str] = []
    samples = 0
    while not done.is_set():
        samples += 1
        for selector in (".hand", ".die-button", BID, ".bid"):
            count = await page.locator(selector).count()
            if count:
                leaks.append(f"{selector} ×{count} in round {await round_number(page)}")
        await asyncio.sleep(0.1)
    return leaks, samples


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def game(browser: Browser, server: LiveServer) -> AsyncIterator[SharedGame]:
    """Person A creates a table in the lobby form (seat 2 a person, seats 3 and 4 easy
    bots), person B joins by the invite link, a spectator opens it once the game runs,
    and A and B play to the final ranking by clicking what their pages offer."""
    opened = Pages(browser)
    try:
        a = await opened.new()
        frames = {"a": Frames.record(a)}
        await a.goto(server.base + "/")
        await a.fill("#quick-name", "Ana")
        await a.select_option("#c-players", "4")
        assert await a.locator("#c-seat-1 option:checked").inner_text() == "a person (invite)"
        await a.select_option("#c-seat-1", "")
        await a.select_option("#c-seat-2", "easy")
        await a.select_option("#c-seat-3", "easy")
        await a.locator(".create button[type=submit]").click()
        await a.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
        table = await table_id(a)
        link = await a.locator("#invite-link").input_value()
        assert link == f"{server.base}/t/{table}"

        b = await opened.new()
        frames["b"] = Frames.record(b)
        await b.goto(link)
        await b.locator(".seats").wait_for()  # the table's view is in
        await b.fill("#join-name", "Bea")
        # A leaves and comes back while B is typing: the views that say so must not wipe
        # B's name or take the focus from it.
        panel = await b.locator(".seats").element_handle()
        await a.reload()
        await a.locator("#invite-link").wait_for()
        await panel.wait_for_element_state("hidden")  # B's page drew a newer view
        assert await b.locator("#join-name").input_value() == "Bea"
        assert await b.evaluate("document.activeElement.id") == "join-name"
        await b.locator(".join button[type=submit]").click()
        await a.locator(BID).first.wait_for()
        await b.locator(BID).first.wait_for()

        spectator = await opened.new()
        frames["spectator"] = Frames.record(spectator)
        await spectator.goto(link)
        await spectator.locator(".players").wait_for()
        assert not await spectator.locator(".join").count()  # too late to take a seat

        done = asyncio.Event()
        watcher = asyncio.ensure_future(watch(spectator, done))
        try:
            played = await asyncio.gather(play_to_end(a, random.Random(1)),
                                          play_to_end(b, random.Random(2)))
        finally:
            done.set()
            leaks, samples = await watcher
        await spectator.locator(FINAL).wait_for()
        yield SharedGame(server, table, a, b, spectator, frames,
                         {"a": played[0], "b": played[1]}, leaks, samples,
                         await server_view(server, table))
    finally:
        await opened.close()
    assert not opened.errors, "uncaught errors in the page:\n" + "\n".join(opened.errors)


async def test_two_people_and_two_bots_play_a_whole_game(game: SharedGame) -> None:
    final = game.final
    assert final["status"] == "finished"
    names = [p["name"] for p in final["players"]]
    assert names[:2] == ["Ana", "Bea"]
    assert [p["bot"] for p in final["players"]] == [None, None, "easy", "easy"]
    for who in ("a", "b"):
        # one bid a round and one die a trick: 8 rounds of 1..8 tricks with 4 players
        assert game.decisions[who].count("bid") == 8, who
        assert game.decisions[who].count("roll") == 36, who
        assert game.frames[who].errors() == [], who  # the page never sent a refused action
    totals = dict(zip(names, final["totals"], strict=True))
    rows_a = await final_rows(game.a)
    rows_b = await final_rows(game.b)
    assert rows_a == rows_b
    check_ranking(rows_a, totals)
    top = max(totals.values())
    winners = [n for n in names if totals[n] == top]
    # names take their direction from their letters (an Arabic name cut short keeps its
    # start), in every table, sheet and seat
    assert await game.a.locator(".name:not([dir='auto'])").count() == 0
    verdict = await game.a.locator(".verdict").inner_text()
    assert verdict == await game.b.locator(".verdict").inner_text()
    if len(winners) == 1:
        assert verdict == f"{winners[0]} wins with {top} points!"
    else:
        shared = ", ".join(f"\u2068{n}\u2069" for n in winners)  # each name isolated
        assert verdict == f"Shared victory: {shared} with {top} points!"
    # each page marks its own row
    assert await game.a.locator(f"{FINAL} tr.me th").inner_text() == "Ana"
    assert await game.b.locator(f"{FINAL} tr.me th").inner_text() == "Bea"
    # a seat never sees another seat's bid before all bids of the round are in
    # (B watched the waiting table first: a spectator's connection, then the seat's)
    for who, seat in (("a", 0), ("b", 1)):
        messages = [m for m in game.frames[who].messages if m["type"] == "view"]
        sockets = {m["socket"] for m in messages if m["view"]["you"] == seat}
        assert sockets, who
        for message in messages:
            view = message["view"]
            if message["socket"] not in sockets:
                assert view["you"] is None
                assert view["hand"] == []
                continue
            assert view["you"] == seat
            if not all(view["has_bid"]):
                assert [bid for s, bid in enumerate(view["bids"]) if s != seat] == [None] * 3


async def test_the_final_ranking_shares_places_on_a_tie(game: SharedGame, pages: Pages) -> None:
    """Totals made equal on the way from the server (a routed WebSocket): tied players
    share the place, the next place skips, and the verdict names every winner."""
    tied = [40, 10, 40, 10]

    async def rewrite(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "view":
                data["view"]["totals"] = tied
            ws.send(json.dumps(data))

        server.on_message(to_page)

    page = await pages.new()
    await page.route_web_socket(re.compile(r"/ws/"), rewrite)
    await page.goto(f"{game.server.base}/t/{game.table}")
    names = [p["name"] for p in game.final["players"]]
    rows = await final_rows(page)
    check_ranking(rows, dict(zip(names, tied, strict=True)))
    assert [place for place, *_ in rows] == [1, 1, 3, 3]
    assert await page.locator(".verdict").inner_text() == \
        f"Shared victory: \u2068{names[0]}\u2069, \u2068{names[2]}\u2069 with 40 points!"


async def test_the_final_ranking_gives_long_names_the_room_there_is(
        game: SharedGame, pages: Pages) -> None:
    """Names of 24 letters (the most a name may have) on the way from the server: on a
    desktop they were cut at 7.5em with room to spare; with text at 200% on a tablet the
    total must stay on the card."""
    long_names = ["Maximiliane Josephine vo", "Bartholomew Christophers", "Ana", "Bea"]

    cut = """() => [...document.querySelectorAll('.final .name')]
      .filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent)"""
    desktop = await pages.new(viewport={"width": 1280, "height": 800})
    await desktop.route_web_socket(re.compile(r"/ws/"), views_renamed(long_names))
    await desktop.goto(f"{game.server.base}/t/{game.table}")
    await desktop.locator(FINAL).wait_for()
    assert await desktop.evaluate(cut) == []
    tablet = await pages.new(viewport={"width": 768, "height": 1024})
    await tablet.route_web_socket(re.compile(r"/ws/"), views_renamed(long_names))
    await tablet.goto(f"{game.server.base}/t/{game.table}")
    await tablet.locator(FINAL).wait_for()
    await tablet.evaluate("document.documentElement.style.fontSize = '200%'")
    assert await overflowing(tablet) == []
    card = await tablet.locator(FINAL).bounding_box()
    for total in await tablet.locator(f"{FINAL} tbody td:last-child").all():
        box = await total.bounding_box()
        assert card is not None
        assert box is not None
        assert box["x"] + box["width"] <= card["x"] + card["width"]


async def test_a_spectator_never_sees_a_hand(game: SharedGame) -> None:
    assert game.samples >= 10, "the spectator's page was hardly looked at"
    assert game.leaks == [], game.leaks
    frames = game.frames["spectator"]
    assert frames.sockets >= 1
    views = frames.views()
    assert len(views) >= 50, len(views)
    assert views[-1]["status"] == "finished"
    assert frames.errors() == []
    partly_bid = 0
    for view in views:
        assert view["you"] is None
        assert view["hand"] == []
        assert view["legal"] == []
        assert view["turn"] is None
        if not all(view["has_bid"]):
            assert view["bids"] == [None] * 4, view
            partly_bid += any(view["has_bid"])
    assert partly_bid, "no view showed a round half bid: the check above saw nothing"
    # the finished page shows the ranking, still no hand and nothing to click
    assert not await game.spectator.locator(".hand, .die-button, .bid-button").count()


async def test_the_fairness_check_passes(game: SharedGame) -> None:
    record = game.server.get(f"/api/tables/{game.table}/record")
    rolls = record_rolls(record)
    assert rolls == 4 * sum(range(1, 9))
    for page in (game.a, game.b, game.spectator):
        line = page.locator("#fairness.ok")
        await line.wait_for()
        text = await line.inner_text()
        assert f"all {rolls} rolls and 8 deals verified" in text, text


async def test_the_fairness_check_fails_on_a_tampered_face(game: SharedGame,
                                                           pages: Pages) -> None:
    """The record served with one face changed (round 3, trick 2, roll 3): the page must
    notice, and say which roll."""
    faces = {k["name"]: k["faces"] for k in game.server.get("/api/dice/mino")["kinds"]}
    changed: list[str] = []

    async def tamper(route: Route) -> None:
        response = await route.fetch()
        record = await response.json()
        roll = record["rounds"][2]["tricks"][1][2]
        other = next(f for f in faces[roll["die"]] if str(f) != str(roll["face"]))
        changed.append(f"{roll['die']}: {roll['face']} → {other}")
        roll["face"] = other
        await route.fulfill(response=response, json=record)

    page = await pages.new()
    await page.route(f"**/api/tables/{game.table}/record", tamper)
    await page.goto(f"{game.server.base}/t/{game.table}")
    line = page.locator("#fairness.bad")
    await line.wait_for()
    assert changed, "the record was not fetched through the route"
    text = await line.inner_text()
    assert text.startswith("Not verified:"), text
    assert "round 3, trick 2, roll 3" in text, text
    assert not await page.locator("#fairness.ok").count()


async def kept(page: Page, table: str) -> Any:
    """What the page keeps on the device to check the table's dice."""
    raw = await page.evaluate("(key) => localStorage.getItem(key)", f"minodice.fair.{table}")
    return json.loads(raw) if raw else None


async def check_served(game: SharedGame, page: Page, record: dict[str, Any]) -> str:
    """Open the finished table in ``page`` with ``record`` served as its record: the
    fairness line must refuse it; its text."""
    async def serve(route: Route) -> None:
        response = await route.fetch()
        await route.fulfill(response=response, json=record)

    await page.route(f"**/api/tables/{game.table}/record", serve)
    await page.goto(f"{game.server.base}/t/{game.table}")
    line = page.locator("#fairness.bad")
    await line.wait_for()
    assert not await page.locator("#fairness.ok").count()
    return await line.inner_text()


async def test_the_page_keeps_its_seed_and_the_commitment(game: SharedGame) -> None:
    record = game.server.get(f"/api/tables/{game.table}/record")
    fair = record["fairness"]
    assert fair["scheme"] == "minodice-fair-2"
    for page in (game.a, game.b):
        mine = await kept(page, game.table)
        seat = (await stored_seat(page, game.table))["seat"]
        assert mine["commit"] == fair["commit"]
        assert mine["seed"] == fair["client_seeds"][seat]
        assert mine["hashes"] == fair["client_seed_hashes"]
        assert len(mine["seed"]) == 32
    assert fair["replaced"] == []


async def test_another_tables_record_with_the_names_changed_is_refused(game: SharedGame,
                                                                        pages: Pages) -> None:
    """Another finished game's record, its players renamed to this table's: a page that
    kept the commitment refuses it, and so does a spectator who opened the page late (it
    compares with the commitment the server showed live)."""
    other = game.server.get(f"/api/tables/{game.server.finished_bot_game(4)}/record")
    other["players"] = [p["name"] for p in game.final["players"]]
    player = await game.a.context.new_page()
    try:
        text = await check_served(game, player, other)
        assert "not the game you saw" in text, text
    finally:
        await player.close()
    text = await check_served(game, await pages.new(), other)
    assert "not the game you saw" in text, text


def _roll_indices(record: dict[str, Any]) -> dict[tuple[int, int, int], int]:
    """Which of its die's six faces each roll of a fair-2 record showed (the stream's
    draw), so that a forger can swap a die and keep a face the seeds give."""
    from minodice.core.dice import load_dice_set
    from minodice.core.fair import Binding, Fairness, FairStream, deal

    fair = Fairness.from_json(record["fairness"], len(record["players"]))
    ds = load_dice_set(record["dice_set"])
    key = fair.key(Binding(fair.table, ds.name, record["variant"], tuple(record["players"])))
    stream = FairStream(key, fair.scheme)
    out = {}
    for r, rnd in enumerate(record["rounds"], start=1):
        deal(stream, ds, len(record["players"]), r)
        for t, trick in enumerate(rnd["tricks"], start=1):
            for q, _roll in enumerate(trick, start=1):
                out[(r, t, q)] = stream.draw(6)
    return out


async def test_rolls_of_dice_nobody_held_are_refused(game: SharedGame, pages: Pages) -> None:
    """Three rolls become minotaur dice their players never held, each with the face the
    seeds give a minotaur die there (so every face still 'follows from the seeds')."""
    record = game.server.get(f"/api/tables/{game.table}/record")
    minotaur = ["minotaur"] * 4 + ["flag"] * 2
    indices = _roll_indices(record)
    changed = 0
    for (r, t, q), index in indices.items():
        roll = record["rounds"][r - 1]["tricks"][t - 1][q - 1]
        if changed < 3 and "minotaur" not in record["rounds"][r - 1]["hands"][roll["player"]]:
            roll.update(die="minotaur", face=minotaur[index])
            changed += 1
    assert changed == 3
    text = await check_served(game, await pages.new(), record)
    assert "holds no minotaur die" in text, text


# -- a reload and a crash in the middle of a game --------------------------------------------


async def test_a_page_opened_again_reveals_the_seed_it_kept(server: LiveServer,
                                                           pages: Pages) -> None:
    """Ana takes a seat in the page and closes it; Ben (a client of the test's own) joins,
    committing by hash, and reveals: the table waits for Ana's seed. Her page opened again
    reveals it from the device, the game starts, and the record holds her seed, not a
    replacement."""
    table = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})["table"]
    page = await pages.new()
    await page.goto(f"{server.base}/t/{table}")
    await page.fill("#join-name", "Ana")
    await page.locator(".join button[type=submit]").click()
    await page.wait_for_function(  # the seat taken: its seed kept on the device
        "(key) => (JSON.parse(localStorage.getItem(key) || '{}')).seed",
        arg=f"minodice.fair.{table}")
    mine = await kept(page, table)
    assert mine["seed"]
    assert mine["commit"] == server.get(f"/api/tables/{table}")["commit"]
    context = page.context
    await page.close()
    ben = server.post(f"/api/tables/{table}/seats",
                      {"name": "Ben", "client_seed_hash": hashlib.sha256(b"bens").hexdigest()})
    server.post(f"/api/tables/{table}/reveal", {"token": ben["token"], "client_seed": "bens"})
    assert server.get(f"/api/tables/{table}")["status"] == "waiting"
    again = await context.new_page()
    await again.goto(f"{server.base}/t/{table}")
    await again.locator(BID).first.wait_for()  # the game has started: Ana bids
    await again.close()  # the stand-in plays Ana's seat to the end (grace 2 s)
    deadline = asyncio.get_running_loop().time() + GAME_TIMEOUT  # a hang guard
    while server.get(f"/api/tables/{table}")["status"] != "finished":
        assert asyncio.get_running_loop().time() < deadline, "the stand-ins did not finish"
        await asyncio.sleep(0.1)
    fair = server.get(f"/api/tables/{table}/record")["fairness"]
    assert fair["client_seeds"][:2] == [mine["seed"], "bens"]
    assert fair["replaced"] == []


async def test_a_reload_and_a_server_crash_do_not_end_the_game(tmp_path: Path,
                                                                pages: Pages) -> None:
    # A server of its own with a long grace: the seat is away during the reload and the
    # restart, and a reload on a busy machine may take longer than own_server's 2 s: the
    # stand-in then rolled for Ana, and the page came back to another trick.
    with servers(tmp_path, grace=60.0) as start:
        await reload_and_crash(start(), pages)


async def reload_and_crash(own_server: LiveServer, pages: Pages) -> None:
    rng = random.Random(3)
    page = await pages.new()
    frames = Frames.record(page)
    await page.goto(own_server.base + "/")
    await page.fill("#quick-name", "Ana")
    await page.locator("#play-now").click()
    await page.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
    table = await table_id(page)
    seat = await stored_seat(page, table)
    assert seat is not None
    assert seat["seat"] == 0

    # A reload while a trick is half rolled and this seat is to roll.
    before_round = await play_until_mid_trick(page, rng, min_round=2)
    rolls = await page.locator(".trick .rolls li").all_inner_texts()
    hand = await page.locator(".hand .die-button").count()
    await page.reload()
    await page.locator(DIE).first.wait_for()
    assert await stored_seat(page, table) == seat
    assert await round_number(page) == before_round
    assert await page.locator(".trick .rolls li").all_inner_texts() == rolls
    assert await page.locator(".hand .die-button").count() == hand
    assert "Ana" in await page.locator(".players .me .name").inner_text()
    assert await page.locator(".conn-online").count() == 1
    assert await decide(page, rng) == "roll"

    # The server killed (SIGKILL) and started again on the same database and port.
    await play_until_mid_trick(page, rng, min_round=4)
    seq_before = max(m["seq"] for m in frames.messages if m["type"] == "view")
    crashed_round = await round_number(page)
    own_server.kill9()
    status = page.locator(".conn-reconnecting")
    await status.wait_for(timeout=10_000)
    assert await status.inner_text() == "Reconnecting…"
    own_server.start()
    await page.locator(".conn-online").wait_for(timeout=30_000)
    assert await round_number(page) >= crashed_round
    await play_to_end(page, rng)
    assert frames.sockets >= 3  # the first, after the reload, after the restart
    assert max(m["seq"] for m in frames.messages if m["type"] == "view") > seq_before
    assert (await server_view(own_server, table))["status"] == "finished"
    await page.locator("#fairness.ok").wait_for()
    assert len(await final_rows(page)) == 4
