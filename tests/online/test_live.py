"""The table protocol (PROTOCOL.md) against a real ``minodice serve`` process.

Each test talks to the server only as a client would: HTTP with httpx, WebSockets with the
``websockets`` library or :mod:`minodice.client`. Every network wait has a timeout, so a
hang fails the test instead of blocking the run.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Origin

from live_server import LiveServer, StartServer
from minodice.bots.loading import make_bot
from minodice.client import Decide, SeatTicket, bot_decider, join, play
from minodice.core.dice import load_dice_set
from minodice.core.fair import verify_record
from minodice.core.record import load_record

TIMEOUT = 20.0        # one network wait
GAME_TIMEOUT = 60.0   # a whole game
GRACE = 1.0           # seconds away before a stand-in plays (test_turn_clock_...)

View = dict[str, Any]
Message = dict[str, Any]

NO_TRACEBACK = re.compile(r'Traceback|File "')


# -- a raw WebSocket that keeps every frame -------------------------------------------------


PACE = 0.06  # seconds between a test's answers (the server's limit: 20 messages a second)


class Conn:
    """One WebSocket; every frame is kept (``frames``), the latest view too (``view``)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.view: View = {}
        self.seq = -1
        self.answered: str | None = None  # the last turn this test answered
        self._answered_at = 0.0

    @classmethod
    async def open(cls, url: str, origin: str | None = None) -> Conn:
        ws = await asyncio.wait_for(
            connect(url, origin=Origin(origin) if origin else None, open_timeout=TIMEOUT),
            TIMEOUT)
        return cls(ws)

    async def recv(self, timeout: float = TIMEOUT) -> Message:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        text = raw if isinstance(raw, str) else raw.decode()
        self.frames.append(text)
        assert not NO_TRACEBACK.search(text), text
        message: Message = json.loads(text)
        if message.get("type") == "view":
            assert message["seq"] > self.seq, "a connection's views come in growing seq"
            self.seq, self.view = message["seq"], message["view"]
        return message

    async def until(self, want: Callable[[Message], bool], timeout: float = TIMEOUT) -> Message:
        """Read until a message satisfies ``want``; TimeoutError after ``timeout`` s."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"no wanted message in {timeout} s; last view "
                                   f"seq {self.seq}")
            message = await self.recv(left)
            if want(message):
                return message

    async def next_view(self, want: Callable[[View], bool] = lambda v: True,
                        timeout: float = TIMEOUT) -> View:
        message = await self.until(lambda m: m.get("type") == "view" and want(m["view"]),
                                   timeout)
        view: View = message["view"]
        return view

    async def error(self, strict: bool = True) -> Message:
        """The next error message. ``strict``: no view may come before it (when nobody else
        can change the table, a view would mean the refused message changed something)."""
        if strict:
            message = await self.until(lambda m: m.get("type") != "chat")
            assert message["type"] == "error", f"a view came instead of an error: {message}"
            return message
        return await self.until(lambda m: m.get("type") == "error")

    async def my_turn(self) -> View:
        """The view that asks this seat for a decision not answered yet (perhaps the latest
        one already read: the game waits for this seat, so it is still current)."""
        view = self.view
        if view.get("turn") is not None and view["turn"] != self.answered:
            return view
        return await self.next_view(lambda v: v["turn"] is not None
                                    and v["turn"] != self.answered)

    async def send(self, message: Any) -> None:
        data = message if isinstance(message, str | bytes) else json.dumps(message)
        await asyncio.wait_for(self.ws.send(data), TIMEOUT)

    async def act(self, turn: str, action: str) -> None:
        await self.send({"type": "act", "turn": turn, "action": action})

    async def answer(self, view: View, rng: random.Random) -> str:
        """Answer ``view``'s turn with a random legal action, at most one every ``PACE``
        seconds: against bots that answer at once, a test would otherwise send more than
        the 20 messages a second the server takes from a socket, and a refused act
        (``rate_limited``) would leave it waiting for ever."""
        loop = asyncio.get_running_loop()
        wait = self._answered_at + PACE - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._answered_at = loop.time()
        action = str(rng.choice(view["legal"]))
        self.answered = view["turn"]
        await self.act(view["turn"], action)
        return action

    async def close(self) -> None:
        await asyncio.wait_for(self.ws.close(), TIMEOUT)


# -- helpers ----------------------------------------------------------------------------------


@pytest.fixture
async def http(server: LiveServer) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as client:
        yield client


async def create(http: httpx.AsyncClient, **settings: Any) -> dict[str, Any]:
    response = await http.post("/api/tables", json=settings)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    assert set(data) >= {"table", "url", "host_token", "commit"}
    return data


async def take_seat(server: LiveServer, table: str, name: str,
                    client_seed: str | None = None) -> SeatTicket:
    return await asyncio.wait_for(join(f"{server.base}/t/{table}", name, client_seed), TIMEOUT)


def ws_url(server: LiveServer, table: str, token: str | None = None) -> str:
    return f"{server.ws_base}/ws/{table}" + (f"?token={token}" if token else "")


def random_decider(seed: int) -> Callable[[View], str]:
    rng = random.Random(seed)

    def decide(view: View) -> str:
        return str(rng.choice(view["legal"]))

    return decide


def slow_decider(seed: int, pause: float) -> Callable[[View], Awaitable[str]]:
    rng = random.Random(seed)

    async def decide(view: View) -> str:
        await asyncio.sleep(pause)
        return str(rng.choice(view["legal"]))

    return decide


def acted(view: View) -> int:
    """How many decisions (bids and rolls) the game has taken so far, as ``view`` shows."""
    n = len(view["players"])
    done: int = sum(n + n * past["round"] for past in view["history"])
    if view["phase"] in ("bid", "play"):
        done += sum(view["has_bid"]) + len(view["trick"])
        done += sum(len(trick["rolls"]) for trick in view["tricks"])
    return done


def seat_acted(view: View, seat: int) -> int:
    """How many decisions ``seat`` has taken so far."""
    done: int = sum(1 + past["round"] for past in view["history"])
    if view["phase"] in ("bid", "play"):
        done += int(view["has_bid"][seat]) + view["round"] - view["hand_sizes"][seat]
    return done


def shows(view: View, seat: int, turn: str, action: str) -> bool:
    """Whether ``view`` shows ``seat``'s decision ``action`` (``"bid 2"``, ``"roll red"``)
    for ``turn`` (``"R-bid"`` or ``"R-T-Q"``) as taken."""
    parts = turn.split("-")
    r, what = int(parts[0]), action.split()[1]
    past = next((p for p in view["history"] if p["round"] == r), None)
    if past is None and view["round"] != r:
        return False
    if parts[1] == "bid":
        bids = past["bids"] if past is not None else view["bids"]
        return bool(bids[seat] == int(what))
    if past is not None:
        tricks = [trick["rolls"] for trick in past["tricks"]]
    else:
        tricks = [trick["rolls"] for trick in view["tricks"]] + [view["trick"]]
    t, q = int(parts[1]), int(parts[2])
    if t > len(tricks) or q > len(tricks[t - 1]):
        return False
    roll = tricks[t - 1][q - 1]
    return bool(roll["seat"] == seat and roll["die"] == what)


def check_secrets(view: View, frame: str | None = None) -> None:
    """Nothing a connection may not know: others' bids before all are in, any hand but its
    own (for a spectator: no hand at all, no turn, no legal actions)."""
    you = view["you"]
    if not all(view["has_bid"]):
        assert all(bid is None for seat, bid in enumerate(view["bids"]) if seat != you), view
    if you is None:
        assert (view["hand"], view["legal"], view["turn"]) == ([], [], None), view
    if frame is not None:
        hands = re.findall(r'"hand"\s*:\s*(\[[^\]]*\])', frame)
        assert len(hands) == 1, frame
        if you is None:
            assert json.loads(hands[0]) == [], frame


async def wait_for_game(*plays: Awaitable[View]) -> list[View]:
    return list(await asyncio.wait_for(asyncio.gather(*plays), GAME_TIMEOUT))


def verify_cli(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "minodice", "verify", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)


async def autoplay(conn: Conn, seed: int) -> None:
    """Answer every turn of ``conn``'s seat with random legal actions until the game ends."""
    rng = random.Random(seed)
    while conn.view.get("status") != "finished":
        view = await conn.next_view(lambda v: v["status"] == "finished" or (
            v["turn"] is not None and v["turn"] != conn.answered), timeout=GAME_TIMEOUT)
        if view["status"] != "finished":
            await conn.answer(view, rng)


# -- 1. a whole game ------------------------------------------------------------------------


async def test_four_clients_play_a_whole_fair_game(
        server: LiveServer, http: httpx.AsyncClient, tmp_path: Path) -> None:
    table = await create(http, players=4)
    tid = table["table"]
    names = ["Ana", "Ben", "Cleo", "Dov"]
    seeds = [f"{i:02x}" * 16 for i in range(4)]
    tickets = [await take_seat(server, tid, name, seed) for name, seed in zip(names, seeds,
                                                                             strict=True)]
    assert [t.seat for t in tickets] == [0, 1, 2, 3]
    assert len({t.token for t in tickets}) == 4
    info = (await http.get(f"/api/tables/{tid}")).json()
    assert info["status"] == "playing"  # the last seat taken starts the table
    assert info["commit"] == table["commit"]

    views: list[list[View]] = [[] for _ in range(4)]

    def keep(seat: int) -> Callable[[Message], None]:
        def on_message(message: Message) -> None:
            if message["type"] == "view":
                check_secrets(message["view"])
                assert message["view"]["you"] == seat
                views[seat].append(message["view"])
        return on_message

    deciders: list[Decide] = [random_decider(i) for i in range(3)]
    deciders.append(bot_decider(make_bot("easy"), random.Random(3)))
    finals = await wait_for_game(*(play(t, d, keep(i)) for i, (t, d) in enumerate(
        zip(tickets, deciders, strict=True))))

    totals = finals[0]["totals"]
    for seat, final in enumerate(finals):
        assert final["status"] == "finished"
        assert final["phase"] == "finished"
        assert final["you"] == seat
        assert final["totals"] == totals
        assert len(final["history"]) == final["rounds"] == 8
        assert final["winners"] == [s for s in range(4) if totals[s] == max(totals)]
        assert final["fairness"]["commit"] == table["commit"]
        # each seat saw its own dice while playing
        assert any(v["hand"] for v in views[seat])

    response = await http.get(f"/api/tables/{tid}/record")
    assert response.status_code == 200
    record = response.json()
    loaded = load_record(record)
    assert loaded.state.is_terminal()
    assert loaded.state.totals == totals
    assert loaded.players == names
    assert [r["bids"] for r in record["rounds"]] == [h["bids"] for h in finals[0]["history"]]
    assert [[sorted(h) for h in r["hands"]] for r in record["rounds"]] == \
        [[sorted(h) for h in past["hands"]] for past in finals[0]["history"]]
    fair = record["fairness"]
    assert fair["scheme"] == "minodice-fair-2"
    assert fair["commit"] == table["commit"]
    assert hashlib.sha256(bytes.fromhex(fair["server_seed"])).hexdigest() == table["commit"]
    assert fair["client_seeds"] == seeds

    good = tmp_path / "game.json"
    good.write_text(json.dumps(record))
    result = verify_cli(good)
    assert result.returncode == 0, result.stderr
    assert "fair" in result.stdout

    # One face changed: the last roll of the game, so that the record still follows the
    # rules (no later trick's leader depends on it) but not the seeds.
    bad = copy.deepcopy(record)
    rounds = bad["rounds"]
    trick = rounds[-1]["tricks"][-1]
    roll = trick[-1]
    kind = load_dice_set(bad.get("dice_set", "mino")).kind(roll["die"])
    roll["face"] = next(f.record_value for f in kind.faces if f.record_value != roll["face"])
    tampered = tmp_path / "face.json"
    tampered.write_text(json.dumps(bad))
    result = verify_cli(tampered)
    assert result.returncode == 1
    where = f"round {len(rounds)}, trick {len(rounds[-1]['tricks'])}, roll {len(trick)}"
    assert where in result.stderr, result.stderr
    assert "NOT FAIR" in result.stderr
    assert "fair:" not in result.stdout

    bad = copy.deepcopy(record)
    seed = bad["fairness"]["server_seed"]
    bad["fairness"]["server_seed"] = ("1" if seed[0] == "0" else "0") + seed[1:]
    tampered = tmp_path / "seed.json"
    tampered.write_text(json.dumps(bad))
    result = verify_cli(tampered)
    assert result.returncode == 1
    assert "commit" in result.stderr, result.stderr


# -- 2. bots ----------------------------------------------------------------------------------


async def test_bots_take_seats_and_fill_empty_ones(
        server: LiveServer, http: httpx.AsyncClient) -> None:
    levels = [None, "random", "easy", "medium"]
    table = await create(http, players=4, bots=levels)
    tid = table["table"]
    info = (await http.get(f"/api/tables/{tid}")).json()
    assert info["status"] == "waiting"
    assert info["seats_free"] == 1
    assert [p["bot"] for p in info["players"]] == levels
    assert info["players"][0]["name"] is None
    ticket = await take_seat(server, tid, "Ana")
    assert ticket.seat == 0
    final = (await wait_for_game(play(ticket, random_decider(1))))[0]
    assert final["status"] == "finished"
    assert [p["bot"] for p in final["players"]] == levels
    names = [p["name"] for p in final["players"]]
    assert names[0] == "Ana"
    assert len(set(names)) == 4
    assert all(names)
    info = (await http.get(f"/api/tables/{tid}")).json()
    assert info["status"] == "finished"
    assert [p["bot"] for p in info["players"]] == levels

    # A table started by its host, the empty seats filled with bots.
    table = await create(http, players=3, public=True)
    tid, host = table["table"], table["host_token"]
    listed = {t["table"]: t for t in (await http.get("/api/tables")).json()}
    assert listed[tid]["seats_free"] == 3
    ticket = await take_seat(server, tid, "Ben")
    start = f"/api/tables/{tid}/start"
    refused = await http.post(start, json={"host_token": ticket.token, "fill": "random"})
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "forbidden"
    refused = await http.post(start, json={"host_token": host})
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "conflict"
    refused = await http.post(start, json={"host_token": host, "fill": "godlike"})
    assert refused.status_code == 400
    assert (await http.get(f"/api/tables/{tid}")).json()["status"] == "waiting"
    started = await http.post(start, json={"host_token": host, "fill": "random"})
    assert started.status_code == 200, started.text
    assert started.json()["status"] == "playing"
    again = await http.post(start, json={"host_token": host, "fill": "random"})
    assert again.status_code == 409
    assert tid not in {t["table"] for t in (await http.get("/api/tables")).json()}
    info = (await http.get(f"/api/tables/{tid}")).json()
    assert [p["bot"] for p in info["players"]] == [None, "random", "random"]
    assert len({p["name"] for p in info["players"]}) == 3
    final = (await wait_for_game(play(ticket, random_decider(2))))[0]
    assert final["status"] == "finished"
    assert final["you"] == 0


EXAMPLE_BOT = Path(__file__).parents[2] / "examples" / "protocol_bot.py"


async def test_the_protocol_example_bot_plays_whole_games(
        server: LiveServer, http: httpx.AsyncClient) -> None:
    """examples/protocol_bot.py, as docs/PROTOCOL.md prints it, plays a seat to the end: two
    of them at one table bid at once, and each round's views of the other's bid come while
    the server has not yet read its own (it answers each turn once, or it would meet the
    message limit and wait for ever)."""
    documented = (Path(__file__).parents[2] / "docs" / "PROTOCOL.md").read_text("utf-8")
    shown = documented.split("```python\n", 1)[1].split("```", 1)[0]
    assert shown in EXAMPLE_BOT.read_text("utf-8"), "the doc prints the example as it is"
    table = await create(http, players=3, bots=[None, None, "random"])
    link = f"{server.base}/t/{table['table']}"
    bots = [await asyncio.create_subprocess_exec(
        sys.executable, str(EXAMPLE_BOT), link,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    try:
        outputs = await asyncio.wait_for(
            asyncio.gather(*(bot.communicate() for bot in bots)), GAME_TIMEOUT)
    finally:  # a hang fails the test, and leaves no process behind
        for bot in bots:
            if bot.returncode is None:
                bot.kill()
                await bot.wait()
    for bot, (out, err) in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, err.decode()
        assert out.decode().startswith("totals: [")
    info = (await http.get(f"/api/tables/{table['table']}")).json()
    assert info["status"] == "finished"
    assert [p["name"] for p in info["players"]][:2] == ["Example bot", "Example bot 2"]


# -- 3. reconnecting --------------------------------------------------------------------------


async def test_reconnect_in_the_middle_of_a_trick(
        server: LiveServer, http: httpx.AsyncClient) -> None:
    table = await create(http, players=3, bots=[None, "easy", "easy"])
    tid = table["table"]
    ticket = await take_seat(server, tid, "Ana")
    conn = await Conn.open(ticket.ws_url)
    rng = random.Random(5)
    while True:  # play until it is our roll in a trick others have begun (round 2 or later)
        view = await conn.my_turn()
        if view["phase"] == "play" and view["trick"] and view["round"] >= 2:
            break
        await conn.answer(view, rng)
    before, before_seq = view, conn.seq
    watcher = await Conn.open(ws_url(server, tid))
    await conn.close()
    away = await watcher.next_view(lambda v: not v["players"][0]["connected"])
    assert away["to_act"] == [0]
    assert away["trick"] == before["trick"]

    again = await Conn.open(ticket.ws_url)
    first = await again.recv()  # at once: the whole view
    assert first["type"] == "view"
    assert first["seq"] > before_seq
    view = first["view"]
    assert view["you"] == 0
    assert view["status"] == "playing"
    assert view["players"][0]["connected"]
    assert view["players"][0]["autoplay"] is None
    assert Counter(view["hand"]) == Counter(before["hand"])
    for key in ("round", "phase", "turn", "legal", "trick", "tricks", "bids", "has_bid",
                "hand_sizes", "tricks_won", "totals", "history", "to_act", "follow"):
        assert view[key] == before[key], key
    await watcher.next_view(lambda v: v["players"][0]["connected"])
    await watcher.close()
    await again.close()
    final = (await wait_for_game(play(ticket, random_decider(6))))[0]
    assert final["status"] == "finished"
    assert final["you"] == 0


# -- 4. a crash -------------------------------------------------------------------------------


async def test_kill_9_mid_game_loses_nothing_acknowledged(start_server: StartServer) -> None:
    server = start_server()
    async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as client:
        table = await create(client, players=4, bots=[None, None, None, "random"])
    tid = table["table"]
    tickets = [await take_seat(server, tid, name) for name in ("Ana", "Ben", "Cleo")]

    epoch = [0]  # 0 before the crash, 1 once the new server is being started
    seen: list[list[tuple[int, Message]]] = [[] for _ in tickets]
    sent: list[list[tuple[str, str]]] = [[] for _ in tickets]  # (turn, action) per seat
    third_round = asyncio.Event()

    def decider(seat: int) -> Callable[[View], Awaitable[str]]:
        rng = random.Random(seat)

        async def decide(view: View) -> str:
            await asyncio.sleep(0.02)  # a game of a few seconds: time to crash in it
            action = str(rng.choice(view["legal"]))
            sent[seat].append((view["turn"], action))
            return action

        return decide

    def keep(seat: int) -> Callable[[Message], None]:
        def on_message(message: Message) -> None:
            seen[seat].append((epoch[0], message))
            if message["type"] == "view" and message["view"]["round"] >= 3:
                third_round.set()
        return on_message

    tasks = [asyncio.ensure_future(play(t, decider(i), keep(i)))
             for i, t in enumerate(tickets)]
    try:
        await asyncio.wait_for(third_round.wait(), GAME_TIMEOUT)
        await asyncio.sleep(0.1)  # in the middle of round 3, decisions in flight
        server.kill9()
        await asyncio.sleep(0.5)  # the clients read what was sent before the crash
        epoch[0] = 1
        await asyncio.to_thread(server.start)
        finals = await asyncio.wait_for(asyncio.gather(*tasks), GAME_TIMEOUT)
    finally:
        for task in tasks:
            task.cancel()

    def views(seat: int, when: int) -> list[Message]:
        return [m for e, m in seen[seat] if e == when and m["type"] == "view"]

    top = max(m["seq"] for seat in range(3) for m in views(seat, 0))
    before_all = [max(views(seat, 0), key=lambda m: m["seq"])["view"] for seat in range(3)]
    done = max(acted(v) for v in before_all)
    assert all(v["status"] == "playing" for v in before_all), "the crash came too late"
    assert max(v["round"] for v in before_all) >= 3
    for seat, last in enumerate(before_all):
        after = views(seat, 1)
        assert after, f"seat {seat} saw nothing after the restart"
        first = after[0]
        assert first["seq"] > top, (first["seq"], top)
        view = first["view"]
        assert acted(view) >= done  # every decision anyone saw applied is still there
        acknowledged = [(turn, action) for turn, action in sent[seat]
                        if any(shows(m["view"], seat, turn, action) for m in views(seat, 0))]
        assert len(acknowledged) >= 5  # three rounds' bids at least
        for turn, action in acknowledged:
            assert shows(view, seat, turn, action), (turn, action)
        assert view["history"][:len(last["history"])] == last["history"]
        assert view["round"] >= last["round"]
        if view["round"] == last["round"]:
            assert view["tricks"][:len(last["tricks"])] == last["tricks"]
            assert all(now or not then for then, now in zip(last["has_bid"], view["has_bid"],
                                                             strict=True))
            if last["bids"][seat] is not None:
                assert view["bids"][seat] == last["bids"][seat]
            assert Counter(view["hand"]) <= Counter(last["hand"])
    for final in finals:
        assert final["status"] == "finished"
        assert final["totals"] == finals[0]["totals"]

    async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as client:
        record = (await client.get(f"/api/tables/{tid}/record")).json()
    assert load_record(record).state.totals == finals[0]["totals"]
    assert verify_record(record).rolls > 0


# -- 5. the clock and absence -----------------------------------------------------------------


async def test_turn_clock_and_absent_player(start_server: StartServer) -> None:
    """The clock and the grace period, by the order of events (how late an event comes on
    a busy machine is no failure; that it came too early is)."""
    server = start_server(grace=GRACE)
    created_ms = time.time() * 1000  # the turn's clock is armed after this
    async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as client:
        table = await create(client, players=3, bots=[None, None, "random"], turn_seconds=5)
    tid = table["table"]
    ana = await take_seat(server, tid, "Ana")
    ben = await take_seat(server, tid, "Ben")
    a = await Conn.open(ana.ws_url)
    b = await Conn.open(ben.ws_url)
    rng = random.Random(8)

    first = await a.my_turn()
    seen_ms = time.time() * 1000  # ... and before the view that shows it arrived
    assert first["turn"] == "1-bid"
    assert first["turn_seconds"] == 5
    deadline = first["deadline"]
    assert isinstance(deadline, int)
    # the deadline is turn_seconds after the clock was armed (whole milliseconds)
    assert created_ms + 5000 - 1 <= deadline <= seen_ms + 5000, (created_ms, deadline, seen_ms)
    await b.answer(await b.my_turn(), rng)  # Ben bids; Ana never does

    # The clock runs out and the stand-in bids for Ana, who stays connected (a hang guard
    # of GAME_TIMEOUT: the clock's 5 s are far inside it).
    timed_out = await a.next_view(lambda v: v["has_bid"][0], timeout=GAME_TIMEOUT)
    assert time.time() * 1000 >= deadline - 300, "the stand-in acted before the deadline"
    assert timed_out["players"][0]["connected"]
    assert timed_out["players"][0]["autoplay"] is None
    messages = [json.loads(f) for f in a.frames]
    waiting = [m["view"] for m in messages
               if m["type"] == "view" and m["view"]["turn"] == "1-bid"]
    assert waiting
    assert all(v["deadline"] == deadline for v in waiting)

    async def ben_plays_until(want: Callable[[View], bool]) -> View:
        while True:
            view = await b.next_view(lambda v: want(v) or (
                v["turn"] is not None and v["turn"] != b.answered))
            if want(view):
                return view
            assert view["deadline"] is not None
            await b.answer(view, rng)

    closing = time.monotonic()  # the server cannot see Ana gone before this
    await a.close()
    gone = await ben_plays_until(lambda v: v["players"][0]["autoplay"] is not None)
    assert time.monotonic() - closing >= GRACE - 0.05, "autoplay before the grace period ended"
    assert gone["players"][0]["connected"] is False
    assert gone["status"] == "playing"
    mark = seat_acted(gone, 0)
    moved = await ben_plays_until(lambda v: seat_acted(v, 0) > mark)
    assert moved["status"] == "playing"  # the game went on without Ana

    back = await Conn.open(ana.ws_url)
    first_back = await back.recv()
    assert first_back["type"] == "view"
    ana_back = first_back["view"]["players"][0]
    assert (ana_back["name"], ana_back["bot"], ana_back["connected"], ana_back["autoplay"]) == \
        ("Ana", None, True, None)
    await b.next_view(lambda v: v["players"][0]["autoplay"] is None
                      and v["players"][0]["connected"])
    await back.close()
    await b.close()
    finals = await wait_for_game(play(ana, random_decider(1)), play(ben, random_decider(2)))
    assert all(f["status"] == "finished" for f in finals)
    assert finals[0]["players"][0]["autoplay"] is None


# -- 6. spectators ----------------------------------------------------------------------------


async def test_spectators_see_no_secrets_and_cannot_talk(
        server: LiveServer, http: httpx.AsyncClient) -> None:
    table = await create(http, players=3, bots=[None, "easy", "easy"])
    tid = table["table"]
    spectator = await Conn.open(ws_url(server, tid))
    first = await spectator.next_view()
    assert first["status"] == "waiting"
    assert first["you"] is None
    ticket = await take_seat(server, tid, "Ana")

    own: list[Message] = []
    game = asyncio.ensure_future(play(ticket, slow_decider(4, 0.01), own.append))
    try:
        await spectator.next_view(lambda v: v["status"] == "playing")
        await spectator.send({"type": "chat", "text": "hello"})
        refused = await spectator.error(strict=False)
        assert refused["code"] == "forbidden"
        await spectator.send({"type": "act", "turn": "1-bid", "action": "bid 0"})
        refused = await spectator.error(strict=False)
        assert refused["code"] == "forbidden"
        last = await spectator.next_view(lambda v: v["status"] == "finished",
                                         timeout=GAME_TIMEOUT)
        await asyncio.wait_for(game, GAME_TIMEOUT)
    finally:
        game.cancel()
    assert last["you"] is None
    assert len(last["history"]) == 8

    frames = [f for f in spectator.frames if json.loads(f)["type"] == "view"]
    assert len(frames) > 20
    for frame in frames:
        check_secrets(json.loads(frame)["view"], frame)
    assert not any(json.loads(f)["type"] == "chat" for f in spectator.frames)
    mine = [m["view"] for m in own if m["type"] == "view"]
    for view in mine:
        check_secrets(view)
    assert any(v["hand"] for v in mine)


# -- 7. chat ----------------------------------------------------------------------------------


async def test_chat_is_relayed_verbatim_and_limited(
        server: LiveServer, http: httpx.AsyncClient) -> None:
    table = await create(http, players=3, bots=[None, None, "random"])
    tid = table["table"]
    ana = await take_seat(server, tid, "Ana")
    ben = await take_seat(server, tid, "Ben")
    b = await Conn.open(ben.ws_url)
    ben_plays = asyncio.ensure_future(autoplay(b, 3))
    a = await Conn.open(ana.ws_url)
    rng = random.Random(4)

    async def ana_acts() -> None:
        """A valid act goes through: Ana's next decision is taken."""
        view = await a.my_turn()
        before = seat_acted(view, 0)
        await a.answer(view, rng)
        await a.next_view(lambda v: seat_acted(v, 0) > before)

    try:
        text = "<script>alert(1)</script>\u001b[2J"
        await a.send({"type": "chat", "text": text})
        echo = await a.until(lambda m: m["type"] == "chat")
        assert echo["text"] == text
        assert echo["seat"] == 0
        assert echo["name"] == "Ana"
        assert isinstance(echo["at"], int)
        end = time.monotonic() + TIMEOUT
        while not (chats := [f for f in b.frames if json.loads(f)["type"] == "chat"]):
            assert time.monotonic() < end, "Ben never got the chat line"
            await asyncio.sleep(0.02)
        assert json.loads(chats[0])["text"] == text
        assert "&lt;" not in chats[0]
        assert "&amp;" not in chats[0]

        await a.send({"type": "chat", "text": "x" * 201})
        assert (await a.error(strict=False))["code"] == "too_large"
        await ana_acts()
        await a.send({"type": "chat", "text": ""})
        assert (await a.error(strict=False))["code"] == "bad_message"
        await ana_acts()
        for i in range(4):  # 5 lines in 10 s are fine
            await a.send({"type": "chat", "text": f"line {i}"})
            line = await a.until(lambda m: m["type"] in ("chat", "error"))
            assert (line["type"], line["text"]) == ("chat", f"line {i}"), line
        await a.send({"type": "chat", "text": "one too many"})
        assert (await a.error(strict=False))["code"] == "rate_limited"
        await ana_acts()
    finally:
        ben_plays.cancel()
    assert not any("one too many" in f for f in b.frames)
    await a.close()
    await b.close()


# -- 8. limits --------------------------------------------------------------------------------


async def test_limits_and_refusals(server: LiveServer, http: httpx.AsyncClient) -> None:
    answers: list[str] = []

    async def request(method: str, path: str, **options: Any) -> httpx.Response:
        response = await http.request(method, path, **options)
        answers.append(response.text)
        return response

    def refused(response: httpx.Response, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code, response.text

    json_type = {"content-type": "application/json"}
    big = json.dumps({"players": 3, "padding": "x" * 5000}).encode()
    refused(await request("POST", "/api/tables", content=big, headers=json_type),
            413, "too_large")

    async def chunks() -> AsyncIterator[bytes]:  # no content-length: counted as it comes
        for start in range(0, len(big), 1000):
            yield big[start:start + 1000]

    refused(await request("POST", "/api/tables", content=chunks(), headers=json_type),
            413, "too_large")
    not_json = await request("POST", "/api/tables", content=b"{not json", headers=json_type)
    refused(not_json, 400, "bad_request")
    assert not_json.json()["error"]["message"] == "the body is not valid JSON"
    not_utf8 = await request("POST", "/api/tables", content=b'{"players": 3, "x": "\xff"}',
                             headers=json_type)
    refused(not_utf8, 400, "bad_request")
    assert not_utf8.json()["error"]["message"] == \
        "the body is not UTF-8 JSON (byte 21 is not UTF-8)"
    for body in ({"players": "4"}, {"players": 9}, {"players": 3, "bots": ["godlike"] * 3},
                 {"players": 3, "bots": [None]}, {"turn_seconds": 1}, {"public": "yes"},
                 [1, 2], "x"):
        refused(await request("POST", "/api/tables", json=body), 400, "bad_request")
    refused(await request("GET", "/api/tables/zzzzzzzzzz"), 404, "not_found")
    refused(await request("GET", "/api/tables/NO..PE"), 404, "not_found")
    refused(await request("POST", "/api/tables/zzzzzzzzzz/seats", json={"name": "Ana"}),
            404, "not_found")
    refused(await request("GET", "/api/tables/zzzzzzzzzz/record"), 404, "not_found")

    table = await create(http, players=3, bots=[None, "random", "random"])
    tid = table["table"]
    refused(await request("GET", f"/api/tables/{tid}/record"), 409, "conflict")
    seats = f"/api/tables/{tid}/seats"
    for body in ({"name": ""}, {"name": 7}, {"name": "Ana", "client_seed": "s" * 65}, {}):
        refused(await request("POST", seats, json=body), 400, "bad_request")
    for name in ("   ", "x" * 25, "x" * 65, "x" * 999):  # one message for every bad length
        answer = await request("POST", seats, json={"name": name})
        refused(answer, 400, "bad_request")
        assert answer.json()["error"]["message"] == "a name is 1 to 24 characters", name
    ticket = await take_seat(server, tid, "Ana")
    refused(await request("POST", seats, json={"name": "Ben"}), 409, "conflict")
    assert not any(NO_TRACEBACK.search(text) for text in answers)

    # WebSockets: the server's own origin and no origin are let in, another site is not.
    with pytest.raises(InvalidStatus) as handshake:
        await Conn.open(ticket.ws_url, origin="http://evil.example")
    assert handshake.value.response.status_code == 403
    own_site = await Conn.open(ws_url(server, tid), origin=server.base)
    assert (await own_site.next_view())["table"] == tid
    await own_site.close()

    stranger = await Conn.open(ws_url(server, tid, "not-a-token"))
    assert (await stranger.error())["code"] == "forbidden"
    with pytest.raises(ConnectionClosed) as closed:
        await stranger.recv()
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 4403
    nowhere = await Conn.open(ws_url(server, "zzzzzzzzzz"))
    assert (await nowhere.error())["code"] == "not_found"

    conn = await Conn.open(ticket.ws_url)
    view = await conn.my_turn()
    too_big = {"type": "act", "turn": view["turn"], "action": "bid 0", "pad": "x" * 5000}
    assert len(json.dumps(too_big)) > 5000
    for message, code in ((too_big, "too_large"), ("{not json", "bad_message"),
                          ({"type": "dance"}, "bad_message"), ([1, 2], "bad_message"),
                          ({"type": "act"}, "bad_message"), (b"\x00\x01", "bad_message"),
                          ({"type": "act", "turn": "soon", "action": "bid 0"}, "bad_message"),
                          ({"type": "act", "turn": view["turn"], "action": "dance"},
                           "bad_message")):
        await conn.send(message)
        assert (await conn.error(strict=False))["code"] == code, message
    assert not conn.view["has_bid"][0]
    await conn.answer(await conn.my_turn(), random.Random(1))  # the connection still works
    await conn.next_view(lambda v: v["has_bid"][0])

    # A flood of 60 messages at 20 a second (a burst of 20): the first 20 are answered, and
    # some are refused, unless the server took 2 s over them. Then, once the bucket has
    # refilled, the connection takes messages again. A chat line marks the end: a
    # connection's messages are answered in order, so everything before its echo is the
    # flood's (and each refused marker's; the marker is sent again until one is taken).
    flood = await Conn.open(ticket.ws_url)
    for _ in range(60):
        await flood.send("{")
    got: list[Message] = []
    for attempt in range(10):
        await asyncio.sleep(1.1)  # the bucket refills
        marker = f"after the flood ({attempt})"
        await flood.send({"type": "chat", "text": marker})
        try:
            while (message := await flood.recv(3.0)).get("text") != marker:
                got.append(message)
            break
        except TimeoutError:  # the marker was refused quietly: one more, later
            continue
    else:
        pytest.fail("the flooded connection never took a message again")
    codes = Counter(m["code"] for m in got if m["type"] == "error")
    assert codes["rate_limited"] >= 1, codes
    assert 20 <= codes["bad_message"] < 60, codes
    for c in (conn, flood, stranger, nowhere):
        await c.close()


# -- 9. stale, out of turn, illegal ----------------------------------------------------------


async def test_stale_out_of_turn_and_illegal_actions(
        server: LiveServer, http: httpx.AsyncClient) -> None:
    table = await create(http, players=3)
    tid = table["table"]
    tickets = [await take_seat(server, tid, name) for name in ("Ana", "Ben", "Cleo")]
    conns = [await Conn.open(t.ws_url) for t in tickets]
    for c in conns:
        await c.next_view()

    async def synced(target: int) -> int:
        for c in conns:
            if c.seq < target:
                await c.until(lambda m: m["type"] == "view" and m["seq"] >= target)
            assert c.seq == target
        return target

    async def unchanged(expected: int) -> None:
        """Nothing changed: a new spectator sees the same ``seq``."""
        watcher = await Conn.open(ws_url(server, tid))
        assert (await watcher.next_view())["status"] == "playing"
        assert watcher.seq == expected
        await watcher.close()

    async def step(seat: int, turn: str, action: str) -> int:
        before = conns[seat].seq
        await conns[seat].act(turn, action)
        await conns[seat].until(lambda m: m["type"] == "view" and m["seq"] > before)
        return await synced(conns[seat].seq)

    async def refused(seat: int, turn: str, action: str, code: str,
                      rule: str | None = None) -> None:
        await conns[seat].act(turn, action)
        error = await conns[seat].error()
        assert (error["code"], error["rule"]) == (code, rule), error
        await unchanged(seq)

    seq = await synced(max(c.seq for c in conns))  # each connection made a change
    assert conns[0].view["turn"] == "1-bid"
    await refused(0, "1-bid", "bid 9", "illegal", "R6")
    seq = await step(0, "1-bid", "bid 1")
    await refused(0, "1-bid", "bid 0", "stale")  # the bid is in: that turn is over for Ana
    assert conns[0].view["bids"][0] == 1
    seq = await step(1, "1-bid", "bid 0")
    seq = await step(2, "1-bid", "bid 0")
    view = conns[0].view
    assert view["phase"] == "play"
    leader = view["to_act"][0]
    other = (leader + 1) % 3
    now = f"{view['round']}-{len(view['tricks']) + 1}-{len(view['trick']) + 1}"
    assert conns[leader].view["turn"] == now
    await refused(other, now, f"roll {conns[other].view['hand'][0]}", "not_your_turn")
    await refused(leader, "1-bid", "bid 1", "stale")

    rng = random.Random(11)
    while True:  # play on until someone may not roll a die they hold (R9)
        view = conns[0].view
        assert view["status"] == "playing", "no chance for an R9 refusal in a whole game"
        for seat in list(view["to_act"]):
            mine = conns[seat].view
            turn = mine["turn"]
            assert turn is not None
            if mine["phase"] == "play":
                allowed = {action.split()[1] for action in mine["legal"]}
                held = sorted(set(mine["hand"]) - allowed)
                if held:
                    await refused(seat, turn, f"roll {held[0]}", "illegal", "R9")
                    return
            seq = await step(seat, turn, rng.choice(mine["legal"]))
