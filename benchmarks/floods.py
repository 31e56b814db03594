"""Floods against a real server, and what another table feels meanwhile.

Each flood of issue #14 ("No flood may hurt other tables") is played against a real
``minodice serve`` process while a **probe** plays a table of its own on the same server:
three people (the probe's own sockets, one decision every ``THINK`` s) and one ``easy``
bot. For every decision of a person the probe measures **act→view** (the act sent, until
that seat's view shows it taken), and for every decision of the bot the **bot turn** (the
first view asking the bot, until the view showing its decision). The same is measured for
a quiet stretch just before each flood: the figures printed are the medians and 90th
percentiles, quiet and during the flood, and their ratios (during / quiet, measured in the
same run on the same machine). The goal is a ratio within 2.

The floods come from loopback addresses of their own (127.0.0.3 and up: Linux answers for
all of 127.0.0.0/8), the probe from 127.0.0.1, so that per-address limits hit the flood,
not the probe, as they would on a real network:

- ``tables``: 30 addresses create public tables as fast as they are answered;
- ``lobby``: 8 addresses loop on ``GET /api/tables``, the server having started with
  ``--lobby`` (9,400) public tables waiting (written to its database beforehand);
- ``half-open``: ``--half-open`` connections that send half a request and then a byte a
  second (from 30 addresses), held as long as the server lets them;
- ``advise``: 8 addresses loop on ``POST /api/advise``;
- ``chat``: 20 sockets of one seat send chat lines as fast as they may, while the seat
  connects and disconnects in a loop from another 20 sockets' worth of addresses;
- ``spoof``: 150 POSTs from 127.0.0.1 with ``X-Forwarded-For`` naming 150 other
  addresses (how many pass the per-address limit);
- ``utf8``: 50 WebSocket text frames of invalid UTF-8 (the server log's lines after them);
- ``pings``: 4 WebSockets (4 addresses) send ping frames as fast as they can and never
  read the pongs (control frames never reach the application's limits), reconnecting
  when dropped;
- ``head``: 8 connections (8 addresses) each send a header line without end, again
  when closed;
- ``messages``: 20 sockets of one seat (4 addresses) send illegal acts as fast as they
  can, connecting again whenever the server closes them for it.
- ``bots``: one address creates ``tables`` tables of six ``hard`` bots (within its 60
  new tables in 10 minutes), whose games keep the shared bot workers busy.

Run: ``python benchmarks/floods.py [--floods tables,lobby,...] [--seconds 10]
[--half-open 2000] [--lobby 9400] [--repeat 3]``. Each measured flood alternates a quiet
window and a flooded one ``--repeat`` times and prints the ratio of each pair too. A server
is started for each flood (its own database, defaults of ``minodice serve`` but
``--bot-delay 0``) and stopped, with its workers, even on errors.
The tests (tests/online/test_floods.py) run the same floods, shorter, and check what the
server answers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

THINK = 0.05  # s between the probe's decisions (its sockets stay under 20 messages/s)
PROBE_ADDRESS = "127.0.0.1"
SPARE_TABLES = 2  # tables the probe makes before the floods, for its later games
ADVICE = {"players": 4, "round": 5, "seat": 1,
          "hand": ["red", "yellow", "purple", "gray", "griffin"]}


def flood_address(i: int) -> str:
    """The ``i``-th flooding address (127.0.0.3 and up; never the probe's)."""
    n = i + 3
    return f"127.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}"


def http_from(address: str, base: str, timeout: float = 30.0,
              connections: int = 8) -> httpx.AsyncClient:
    """An HTTP client whose connections (``connections`` at most) come from ``address``."""
    return httpx.AsyncClient(base_url=base, timeout=timeout,
                             transport=httpx.AsyncHTTPTransport(local_address=address),
                             limits=httpx.Limits(max_connections=connections))


async def ws_from(address: str, url: str) -> ClientConnection:
    return await asyncio.wait_for(connect(url, local_addr=(address, 0), open_timeout=20,
                                          max_size=2**22), 30)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


# -- the probe: another table ----------------------------------------------------------------


@dataclass
class Seat:
    seat: int
    token: str
    ws: ClientConnection | None = None
    view: dict[str, Any] = field(default_factory=dict)
    seq: int = -1
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class Probe:
    """Plays a table of its own on the server (module docstring) and times it."""

    def __init__(self, base: str, seed: int = 1) -> None:
        self.base = base
        self.ws_base = base.replace("http://", "ws://", 1)
        self.rng = random.Random(seed)
        self.acts: list[tuple[float, float]] = []   # (when, act→view seconds)
        self.bots: list[tuple[float, float]] = []   # (when, bot turn seconds)
        self.games = 0
        self.errors: Counter[str] = Counter()
        self.stopping = False
        self.spares: list[str] = []  # tables made in advance, nobody seated yet
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Probe:
        self._task = asyncio.ensure_future(self._run())
        end = time.monotonic() + 60
        while not self.acts:  # playing, or failed: either is known before the measures
            if self._task.done():
                self._task.result()
            if time.monotonic() > end:
                raise RuntimeError("the probe made no decision in 60 s")
            await asyncio.sleep(0.05)
        return self

    async def __aexit__(self, *_exc: object) -> None:
        # Cancelled again until it stops: Python 3.11's wait_for can swallow a
        # cancellation that comes as the awaited thing completes, and the probe played on.
        assert self._task is not None
        self.stopping = True
        while not self._task.done():
            self._task.cancel()
            await asyncio.wait([self._task], timeout=1.0)
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    def during(self, start: float, end: float) -> tuple[list[float], list[float]]:
        """The act→view and bot-turn times (seconds) measured between ``start`` and
        ``end`` (``time.monotonic()``)."""
        return ([v for t, v in self.acts if start <= t <= end],
                [v for t, v in self.bots if start <= t <= end])

    async def _run(self) -> None:
        while not self.stopping:
            await self._game()
            self.games += 1

    async def _new_table(self, http: httpx.AsyncClient) -> str:
        """A new table for the probe, asked as a client asks: a flood of new tables fills
        the server's allowance of them for everyone (``busy``, by design), so a refusal is
        counted and asked again after its ``Retry-After``."""
        while True:
            created = await http.post("/api/tables", json={
                "players": 4, "bots": [None, None, None, "easy"]})
            if created.status_code not in (429, 503):
                created.raise_for_status()
                return str(created.json()["table"])
            self.errors[f"new table refused: {created.status_code}"] += 1
            await asyncio.sleep(min(5.0, float(created.headers.get("retry-after") or 1)))

    async def _game(self) -> None:
        async with http_from(PROBE_ADDRESS, self.base) as http:
            if self.games == 0:
                table = await self._new_table(http)
                # Made in the quiet before any flood: should a game of the probe end
                # during a flood of new tables, the next one needs no new table then.
                self.spares = [await self._new_table(http) for _ in range(SPARE_TABLES)]
            elif self.spares:
                table = self.spares.pop()
            else:
                table = await self._new_table(http)
            seats = []
            for name in ("Ana", "Ben", "Cy"):
                answer = await http.post(f"/api/tables/{table}/seats", json={"name": name})
                answer.raise_for_status()
                seats.append(Seat(answer.json()["seat"], answer.json()["token"]))
        readers = []
        try:
            for seat in seats:
                seat.ws = await ws_from(PROBE_ADDRESS, f"{self.ws_base}/ws/{table}?token="
                                        f"{seat.token}")
                readers.append(asyncio.ensure_future(self._read(seat)))
            await self._play(seats)
        finally:
            for reader in readers:
                reader.cancel()
            for seat in seats:
                if seat.ws is not None:
                    await seat.ws.close()

    async def _read(self, seat: Seat) -> None:
        assert seat.ws is not None
        bot_asked: tuple[tuple[Any, ...], float] | None = None
        async for raw in seat.ws:
            message = json.loads(raw)
            if message.get("type") == "error":
                self.errors[str(message.get("code"))] += 1
            if message.get("type") != "view" or message["seq"] <= seat.seq:
                continue
            now = time.monotonic()
            seat.seq, seat.view = message["seq"], message["view"]
            seat.changed.set()
            if seat.seat != 0:
                continue
            view = seat.view  # seat 0 times the bot (seat 3) for everyone
            where = _bot_progress(view)
            asked = 3 in view.get("to_act", []) and view.get("status") == "playing"
            if bot_asked is not None and (not asked or where != bot_asked[0]):
                self.bots.append((now, now - bot_asked[1]))
                bot_asked = None
            if asked and bot_asked is None:
                bot_asked = (where, now)

    async def _play(self, seats: list[Seat]) -> None:
        answered: dict[int, str] = {}
        while not self.stopping:
            ready = [s for s in seats if s.view.get("turn") is not None
                     and s.view["turn"] != answered.get(s.seat) and s.view.get("legal")]
            if any(s.view.get("status") == "finished" for s in seats):
                return
            if not ready:
                waits = [asyncio.ensure_future(s.changed.wait()) for s in seats]
                await asyncio.wait(waits, timeout=5, return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    w.cancel()
                for s in seats:
                    s.changed.clear()
                continue
            seat = self.rng.choice(ready)
            turn = seat.view["turn"]
            action = self.rng.choice(seat.view["legal"])
            assert seat.ws is not None
            seat.changed.clear()
            start = time.monotonic()
            await seat.ws.send(json.dumps({"type": "act", "turn": turn, "action": action}))
            answered[seat.seat] = turn
            while seat.view.get("turn") == turn:
                await asyncio.wait_for(seat.changed.wait(), 60)
                seat.changed.clear()
            self.acts.append((time.monotonic(), time.monotonic() - start))
            await asyncio.sleep(THINK)


def _bot_progress(view: dict[str, Any]) -> tuple[Any, ...]:
    """Where the game is, as far as the bot's (seat 3's) decisions go: it changes when
    the bot bids or rolls, even if the bot is asked again at once (it leads the next
    trick)."""
    return (view.get("round"), len(view.get("tricks", [])), len(view.get("trick", [])),
            view.get("has_bid", [None] * 4)[3])


# -- the floods -------------------------------------------------------------------------------


@dataclass
class FloodResult:
    """What the flood got from the server, counted by answer."""

    answers: Counter[str] = field(default_factory=Counter)
    notes: dict[str, Any] = field(default_factory=dict)


Flood = Callable[..., Coroutine[Any, Any, None]]


async def _loop_until(end: float, step: Callable[[], Awaitable[None]]) -> None:
    while time.monotonic() < end:
        try:
            await step()
        except (httpx.HTTPError, OSError, ConnectionClosed, InvalidStatus, TimeoutError):
            await asyncio.sleep(0.01)


def _count(result: FloodResult, response: httpx.Response) -> None:
    try:
        code = response.json()["error"]["code"]
    except (ValueError, KeyError, TypeError):
        code = ""
    result.answers[f"{response.status_code} {code}".strip()] += 1


async def flood_tables(base: str, seconds: float, result: FloodResult,
                       addresses: int = 30) -> None:
    """Public tables waiting for people, created as fast as each address is answered."""
    end = time.monotonic() + seconds

    async def one(i: int) -> None:
        async with http_from(flood_address(i), base) as http:
            async def step() -> None:
                _count(result, await http.post("/api/tables", json={"players": 6,
                                                                     "public": True}))
            await _loop_until(end, step)

    await asyncio.gather(*(one(i) for i in range(addresses)))


async def flood_lobby(base: str, seconds: float, result: FloodResult,
                      addresses: int = 8) -> None:
    """``GET /api/tables`` in a loop from ``addresses`` addresses (a plain HTTP/1.1
    client over one kept-alive connection each: a full client library spends more time
    reading a large answer than the server takes to write it, and the flood would measure
    the client)."""
    host, port = base.removeprefix("http://").split(":")
    end = time.monotonic() + seconds
    sizes: list[int] = []

    async def one(i: int) -> None:
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.open_connection(
                    host, int(port), local_addr=(flood_address(100 + i), 0))
            except OSError:
                result.answers["refused at connect"] += 1
                await asyncio.sleep(0.01)
                continue
            try:
                while time.monotonic() < end:
                    writer.write(b"GET /api/tables?limit=100 HTTP/1.1\r\nHost: x\r\n\r\n")
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
                    status = head.split(b" ", 2)[1].decode()
                    length = int(re.search(rb"content-length: *(\d+)", head, re.I)
                                 .group(1))  # type: ignore[union-attr]
                    body = await asyncio.wait_for(reader.readexactly(length), 30)
                    code = json.loads(body)["error"]["code"] if status != "200" else ""
                    result.answers[f"{status} {code}".strip()] += 1
                    sizes.append(length)
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
                result.answers["connection lost"] += 1
            finally:
                writer.close()

    await asyncio.gather(*(one(i) for i in range(addresses)))
    result.notes["largest answer (bytes)"] = max(sizes, default=0)


def fill_lobby(db: Path, tables: int) -> None:
    """``tables`` public tables waiting for players, written to the database ``db``
    before its server starts (the way the issue's flood left 9,400 of them; the server's
    limits would take minutes to let that many in). In a process of its own (this script
    with ``--fill``): the lobby writes on an event loop, and the caller may be in one."""
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--fill", str(db),
                    "--lobby", str(tables)], check=True)


async def _fill(db: Path, tables: int) -> None:
    from minodice.server.lobby import Lobby
    from minodice.server.room import Settings
    from minodice.server.store import Store

    class NoBots:  # a lobby that only creates tables asks no bot anything
        pass

    store = Store.sqlite(db)
    lobby = Lobby(store, NoBots(), Settings())  # type: ignore[arg-type]
    lobby.max_waiting = tables + 1  # the cap is for clients, not for this set-up
    for _ in range(tables):
        made = lobby.create(6, "mino", "standard", None, None, True)
        if not isinstance(made, tuple):  # a coroutine where the lobby writes off the loop
            await made
    store.close()


async def flood_half_open(base: str, seconds: float, result: FloodResult,
                          connections: int = 2000, addresses: int = 30) -> None:
    """Connections sending half a request, then a byte a second, held while the server
    lets them (:func:`measure` meanwhile sends a new client a second: :func:`new_clients`)."""
    host, port = base.removeprefix("http://").split(":")
    end = time.monotonic() + seconds
    closed_by_server = opened = refused = 0

    async def one(i: int) -> None:
        nonlocal closed_by_server, opened, refused
        try:
            reader, writer = await asyncio.open_connection(
                host, int(port), local_addr=(flood_address(i % addresses), 0))
        except OSError:
            refused += 1
            return
        opened += 1
        try:
            writer.write(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n")
            while time.monotonic() < end:
                writer.write(b"X")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    if await asyncio.wait_for(reader.read(100), 1.0) == b"":
                        closed_by_server += 1
                        return
        except OSError:
            closed_by_server += 1
        finally:
            writer.close()

    await asyncio.gather(*(one(i) for i in range(connections)))
    result.answers.update({"opened": opened, "refused at connect": refused,
                           "closed by the server": closed_by_server})


async def new_clients(base: str, seconds: float, result: FloodResult) -> None:
    """A new client a second (a fresh connection each, as a new visitor's browser) asking
    ``GET /api/tables``, counted as served or failed. It runs in the probe's process: in
    the flood's own, whose event loop juggles thousands of sockets, its time-outs were the
    flood process's lag, not the server's."""
    end = time.monotonic() + seconds
    served: list[bool] = []
    while time.monotonic() < end:
        async with http_from(PROBE_ADDRESS, base, timeout=5) as http:
            try:
                served.append((await http.get("/api/tables")).status_code == 200)
            except httpx.HTTPError:
                served.append(False)
        await asyncio.sleep(1.0)
    result.answers.update({"new clients served": sum(served),
                           "new clients failed": served.count(False)})


async def flood_advise(base: str, seconds: float, result: FloodResult,
                       addresses: int = 8, concurrency: int = 4) -> None:
    """``POST /api/advise`` in a loop from ``addresses`` addresses."""
    end = time.monotonic() + seconds

    async def one(i: int) -> None:
        async with http_from(flood_address(i), base) as http:
            async def step() -> None:
                _count(result, await http.post("/api/advise", json=ADVICE))
            await asyncio.gather(*(_loop_until(end, step) for _ in range(concurrency)))

    await asyncio.gather(*(one(i) for i in range(addresses)))


async def flood_chat(base: str, seconds: float, result: FloodResult, sockets: int = 20,
                     ) -> None:
    """One seat's 20 sockets chat as fast as they may; the seat also connects and
    disconnects in a loop; a second seat counts the lines and views it is sent."""
    async with http_from(flood_address(0), base) as http:
        created = await http.post("/api/tables", json={"players": 4, "bots": [
            None, None, None, "random"]})
        created.raise_for_status()
        table = created.json()["table"]
        tokens = []
        for name in ("Flood", "Watcher", "Cycler"):
            seat = await http.post(f"/api/tables/{table}/seats", json={"name": name})
            seat.raise_for_status()
            tokens.append(seat.json()["token"])
    ws_base = base.replace("http://", "ws://", 1)
    flood_url = f"{ws_base}/ws/{table}?token={tokens[0]}"
    cycle_url = f"{ws_base}/ws/{table}?token={tokens[2]}"
    watcher = await ws_from(flood_address(1), f"{ws_base}/ws/{table}?token={tokens[1]}")
    seen: Counter[str] = Counter()
    end = time.monotonic() + seconds

    async def watch() -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in watcher:
                seen[json.loads(raw)["type"]] += 1

    async def chatter(i: int) -> None:
        try:
            ws = await ws_from(flood_address(2 + i % 4), flood_url)
        except (InvalidStatus, OSError, TimeoutError):
            result.answers["socket refused"] += 1
            return
        async def drain() -> None:
            with contextlib.suppress(ConnectionClosed):
                async for raw in ws:
                    message = json.loads(raw)
                    if message["type"] == "error":
                        result.answers[f"chat {message['code']}"] += 1
        reading = asyncio.ensure_future(drain())
        try:
            while time.monotonic() < end and not reading.done():
                await ws.send(json.dumps({"type": "chat", "text": f"flood {i}"}))
                await asyncio.sleep(0.05)
        except ConnectionClosed:
            pass
        finally:
            reading.cancel()
            await ws.close()
        if ws.close_code is not None and ws.close_code != 1000:
            result.answers[f"socket closed {ws.close_code}"] += 1

    async def cycle(i: int) -> None:
        async def step() -> None:
            ws = await ws_from(flood_address(10 + i), cycle_url)
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            result.answers["cycle " + ("refused" if first["type"] == "error" else "made")] += 1
            await ws.close()
        await _loop_until(end, step)

    watching = asyncio.ensure_future(watch())
    await asyncio.sleep(0.5)
    before = dict(seen)
    await asyncio.gather(*(chatter(i) for i in range(sockets)), *(cycle(i) for i in range(4)))
    await asyncio.sleep(0.5)
    watching.cancel()
    await watcher.close()
    result.answers["chat lines delivered"] = seen["chat"] - before.get("chat", 0)
    result.answers["views sent to another seat"] = seen["view"] - before.get("view", 0)


async def flood_spoof(base: str, seconds: float, result: FloodResult, posts: int = 150,
                      address: str = "127.0.0.1") -> None:
    """``posts`` POSTs at once from ``address`` (localhost, which uvicorn trusts by
    default), each claiming another with ``X-Forwarded-For``: how many pass a limit of
    ``--http-rate`` (20 a second, 60 at once) per address."""
    del seconds
    async with http_from(address, base, connections=posts) as http:
        async def one(i: int) -> None:
            _count(result, await http.post(
                "/api/tables/zzzzzzzzzz/seats", json={"name": "x"},
                headers={"x-forwarded-for": f"10.9.{i // 250}.{i % 250}"}))

        await asyncio.gather(*(one(i) for i in range(posts)))


async def flood_utf8(base: str, seconds: float, result: FloodResult, frames: int = 50) -> None:
    """``frames`` WebSocket text frames of invalid UTF-8, each on its own connection."""
    del seconds
    async with http_from(flood_address(0), base) as http:
        created = await http.post("/api/tables", json={"players": 3})
        table = created.json()["table"]
    host, port = base.removeprefix("http://").split(":")
    for i in range(frames):
        code = await send_invalid_utf8(host, int(port), f"/ws/{table}", flood_address(i % 5))
        result.answers[f"closed {code}"] += 1


async def send_invalid_utf8(host: str, port: int, path: str, address: str) -> int | None:
    """One WebSocket handshake and one masked text frame of invalid UTF-8, by hand (no
    client library sends one); the close code the server answers with."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(address, 0))
    try:
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                     f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                     "Sec-WebSocket-Version: 13\r\n\r\n".encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        if b" 101 " not in head:
            return None
        payload, mask = b"\xff\xfe{\"type\"", os.urandom(4)
        writer.write(bytes([0x81, 0x80 | len(payload)]) + mask
                     + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        data = b""
        with contextlib.suppress(TimeoutError, OSError):
            while True:  # skip the view frames to the close frame (opcode 8)
                chunk = await asyncio.wait_for(reader.read(65536), 5)
                if not chunk:
                    break
                data += chunk
        return _close_code(data)
    finally:
        writer.close()


def _masked(opcode: int, payload: bytes) -> bytes:
    """One client frame (masked, as a client's must be) of under 126 bytes."""
    mask = os.urandom(4)
    return (bytes([0x80 | opcode, 0x80 | len(payload)]) + mask
            + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


async def _by_hand(base: str, path: str, address: str
                   ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
    """A WebSocket opened by hand (no client library floods pings it never reads)."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port), local_addr=(address, 0))
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    except (OSError, TimeoutError, asyncio.IncompleteReadError):
        writer.close()
        return None
    if b" 101 " not in head:
        writer.close()
        return None
    return reader, writer


async def flood_pings(base: str, seconds: float, result: FloodResult, sockets: int = 4
                      ) -> None:
    """Spectators' sockets sending 125-byte pings as fast as they can, never reading the
    pongs; each reconnects when the server drops it."""
    async with http_from(flood_address(0), base) as http:
        table = (await http.post("/api/tables", json={"players": 3})).json()["table"]
    end = time.monotonic() + seconds
    burst = _masked(0x9, b"p" * 125) * 100

    async def one(i: int) -> None:
        while time.monotonic() < end:
            opened = await _by_hand(base, f"/ws/{table}", flood_address(i))
            if opened is None:
                result.answers["refused"] += 1
                await asyncio.sleep(0.5)
                continue
            _, writer = opened
            try:
                while time.monotonic() < end:
                    writer.write(burst)
                    await asyncio.wait_for(writer.drain(), 1.0)
                    result.answers["pings sent"] += 100
                    await asyncio.sleep(0)
            except TimeoutError:
                result.answers["held by the server (not read)"] += 1
                await asyncio.sleep(max(0.0, end - time.monotonic()))
            except OSError:
                result.answers["dropped by the server"] += 1
            finally:
                writer.close()

    await asyncio.gather(*(one(i) for i in range(sockets)))


async def flood_head(base: str, seconds: float, result: FloodResult, connections: int = 8
                     ) -> None:
    """Connections each sending a header line without end; again when closed."""
    host, port = base.removeprefix("http://").split(":")
    end = time.monotonic() + seconds
    chunk = b"a" * 65536

    async def one(i: int) -> None:
        while time.monotonic() < end:
            reader, writer = await asyncio.open_connection(
                host, int(port), local_addr=(flood_address(i), 0))
            try:
                writer.write(b"GET /api/tables HTTP/1.1\r\nHost: x\r\nX-Big: ")
                # (a write to a connection the server reset is dropped without a word)
                while time.monotonic() < end and not writer.transport.is_closing():
                    writer.write(chunk)
                    await asyncio.wait_for(writer.drain(), 1.0)
                    result.answers["KB sent"] += 64
            except (OSError, TimeoutError):
                pass
            result.answers["connections"] += 1
            try:
                answer = await asyncio.wait_for(reader.read(100), 1.0)
                result.answers["answered " + (answer[9:12].decode() if answer
                                              else "nothing")] += 1
            except OSError:  # reset: the server closed it with the flood's bytes unread
                result.answers["reset by the server"] += 1
            except TimeoutError:
                result.answers["held by the server"] += 1
            writer.close()

    await asyncio.gather(*(one(i) for i in range(connections)))


async def flood_messages(base: str, seconds: float, result: FloodResult, sockets: int = 20
                         ) -> None:
    """One seat's sockets send illegal acts as fast as they can (never waiting for an
    answer), connecting again whenever the server closes them."""
    async with http_from(flood_address(0), base) as http:
        table = (await http.post("/api/tables", json={"players": 3, "bots": [
            None, None, "random"]})).json()["table"]
        token = (await http.post(f"/api/tables/{table}/seats", json={"name": "Flood"})
                 ).json()["token"]
    url = f"{base.replace('http://', 'ws://', 1)}/ws/{table}?token={token}"
    act = json.dumps({"type": "act", "turn": "1-bid", "action": "bid 9"})
    end = time.monotonic() + seconds

    async def one(i: int) -> None:
        while time.monotonic() < end:
            try:
                ws = await ws_from(flood_address(i % 4), url)
            except (InvalidStatus, OSError, TimeoutError):
                result.answers["connection refused"] += 1
                await asyncio.sleep(0.2)
                continue
            try:
                while time.monotonic() < end:
                    await ws.send(act)
                    result.answers["acts sent"] += 1
            except ConnectionClosed:
                result.answers[f"closed {ws.close_code}"] += 1
            finally:
                await ws.close()

    await asyncio.gather(*(one(i) for i in range(sockets)))


async def flood_bots(base: str, seconds: float, result: FloodResult, tables: int = 30,
                     level: str = "hard") -> None:
    """``tables`` tables of six bots from one address, all at once; then their games
    play (they go on after the flood's window: the measure is taken while they do)."""
    async with http_from(flood_address(0), base, connections=tables) as http:
        answers = await asyncio.gather(*(
            http.post("/api/tables", json={"players": 6, "bots": [level] * 6})
            for _ in range(tables)))
    for answer in answers:
        _count(result, answer)
    await asyncio.sleep(seconds)


def _close_code(data: bytes) -> int | None:
    """The code of the first close frame among the server's (unmasked) frames."""
    i = 0
    while i + 2 <= len(data):
        opcode, length = data[i] & 0x0F, data[i + 1] & 0x7F
        i += 2
        if length == 126:
            length = int.from_bytes(data[i:i + 2], "big")
            i += 2
        elif length == 127:
            length = int.from_bytes(data[i:i + 8], "big")
            i += 8
        if opcode == 8:
            return int.from_bytes(data[i:i + 2], "big") if length >= 2 else None
        i += length
    return None


FLOODS: dict[str, Flood] = {
    "tables": flood_tables, "lobby": flood_lobby, "half-open": flood_half_open,
    "advise": flood_advise, "chat": flood_chat, "spoof": flood_spoof, "utf8": flood_utf8,
    "pings": flood_pings, "head": flood_head, "messages": flood_messages, "bots": flood_bots}
#: the others are counts
MEASURED = ("tables", "lobby", "half-open", "advise", "chat", "pings", "head", "messages",
            "bots")


@dataclass
class Measure:
    """A flood's counts and the probe's times, quiet and during it, over ``repeat`` pairs
    of windows (quiet, then flooded)."""

    name: str
    result: FloodResult
    pairs: list[tuple[tuple[list[float], list[float]], tuple[list[float], list[float]]]]

    @property
    def quiet(self) -> tuple[list[float], list[float]]:
        return ([v for q, _ in self.pairs for v in q[0]], [v for q, _ in self.pairs for v in q[1]])

    @property
    def flood(self) -> tuple[list[float], list[float]]:
        return ([v for _, f in self.pairs for v in f[0]], [v for _, f in self.pairs for v in f[1]])

    def ratio(self, which: int = 0) -> float:
        return _ratio(self.quiet[which], self.flood[which])

    def pair_ratios(self, which: int = 0) -> list[float]:
        """One ratio per pair of windows: the unit that is independent (the samples within
        one window share the machine's moment and the flood's state)."""
        return [_ratio(q[which], f[which]) for q, f in self.pairs]

    def lines(self) -> list[str]:
        out = [f"{self.name}: {dict(self.result.answers)}"
               + (f" {self.result.notes}" if self.result.notes else "")]
        for which, label in ((0, "act->view"), (1, "bot turn")):
            quiet, flood = self.quiet[which], self.flood[which]
            pairs = ", ".join(f"{r:.2f}" for r in self.pair_ratios(which))
            out.append(
                f"  {label:9} quiet p50 {ms(quiet, 50)} p90 {ms(quiet, 90)} (n={len(quiet)})"
                f" | flood p50 {ms(flood, 50)} p90 {ms(flood, 90)} (n={len(flood)})"
                f" | ratio p50 {self.ratio(which):.2f} (each pair of windows: {pairs})")
        return out


def _ratio(quiet: Sequence[float], flood: Sequence[float]) -> float:
    if not quiet or not flood:
        return float("nan")
    return statistics.median(flood) / statistics.median(quiet)


def ms(values: Sequence[float], q: float) -> str:
    return f"{percentile(values, q) * 1000:7.1f} ms"


async def measure(base: str, name: str, seconds: float, quiet: float = 5.0,
                  repeat: int = 1, **options: Any) -> Measure:
    """The probe quiet for ``quiet`` s, then during the flood ``name`` for ``seconds``, the
    pair ``repeat`` times. The flood runs in a process of its own
    (:func:`flood_in_process`): a flood's clients sharing the probe's event loop would delay
    the probe itself, and the figure would be the client's. Quiet and flooded windows
    alternate so that a change of the shared machine's load falls on both."""
    result = FloodResult()
    pairs = []
    async with Probe(base) as probe:
        for _ in range(repeat):
            start = time.monotonic()
            await asyncio.sleep(quiet)
            middle = time.monotonic()
            flooding = flood_in_process(base, name, seconds, **options)
            if name == "half-open":
                found, _ = await asyncio.gather(flooding, new_clients(base, seconds, result))
            else:
                found = await flooding
            end = time.monotonic()
            result.answers.update(found.answers)
            result.notes.update(found.notes)
            pairs.append((probe.during(start, middle), probe.during(middle, end)))
        return Measure(name, result, pairs)


async def flood_in_process(base: str, name: str, seconds: float, **options: Any
                           ) -> FloodResult:
    """Run the flood ``name`` in a child process (this script with ``--child``); its
    counts."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(Path(__file__).resolve()), "--child", base, "--floods", name,
        "--seconds", str(seconds), "--options", json.dumps(options),
        stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"the flood {name} failed ({proc.returncode})")
    data = json.loads(out.decode().strip().splitlines()[-1])
    return FloodResult(Counter(data["answers"]), data["notes"])


def child(base: str, name: str, seconds: float, options: dict[str, Any]) -> None:
    """The flood process: runs one flood and prints its counts as one JSON line."""
    raise_nofile()
    result = FloodResult()
    asyncio.run(FLOODS[name](base, seconds, result, **options))
    print(json.dumps({"answers": dict(result.answers), "notes": result.notes}))


# -- a server ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server(folder: Path, options: Sequence[str] = (), lobby: int = 0
           ) -> Iterator[tuple[str, Path]]:
    """A ``minodice serve`` process on a free port (``lobby`` public tables waiting
    already); its base URL and log file."""
    port = free_port()
    log_path = folder / f"server-{port}.log"
    log = log_path.open("wb")
    db = folder / f"db-{port}.sqlite3"
    if lobby:
        fill_lobby(db, lobby)
    proc = subprocess.Popen(
        [sys.executable, "-m", "minodice", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(db), "--bot-delay", "0", "--grace", "3600", *options],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        # Ready once a cheap page answers (a server with thousands of waiting tables, before
        # it paged them, took seconds to answer GET /api/tables).
        start = time.monotonic()
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/dice/mino", timeout=5).status_code == 200:
                    break
            if time.monotonic() > start + 300:
                raise RuntimeError("the server did not answer in 300 s")
            time.sleep(0.1)
        print(f"  (server ready in {time.monotonic() - start:.1f} s)", flush=True)
        yield base, log_path
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        log.close()


def raise_nofile(wanted: int = 65536) -> int:
    """Raise this process's open-file limit (for the half-open flood's sockets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def serve_options(name: str, lobby: int) -> list[str]:
    """The lobby flood's server admits its ``lobby`` waiting tables and the probe's (a
    server without the option, before it had the cap, needs nothing)."""
    helped = subprocess.run([sys.executable, "-m", "minodice", "serve", "--help"],
                            capture_output=True, text=True, env={**os.environ,
                                                                 "COLUMNS": "200"}).stdout
    if name == "lobby" and "--max-waiting" in helped:
        return ["--max-waiting", str(lobby + 100)]
    return []


async def run(names: Sequence[str], seconds: float, half_open: int, lobby: int,
              folder: Path, repeat: int = 1) -> None:
    for name in names:
        with server(folder, serve_options(name, lobby), lobby=lobby if name == "lobby" else 0
                    ) as (base, log_path):
            options: dict[str, Any] = {}
            if name == "half-open":
                options["connections"] = half_open
            if name == "lobby":
                print(f"(the server started with {lobby} public tables waiting)")
            if name in MEASURED:
                found = await measure(base, name, seconds, repeat=repeat, **options)
                print("\n".join(found.lines()), flush=True)
            else:
                result = await flood_in_process(base, name, seconds)
                print(f"{name}: {dict(result.answers)}", flush=True)
            log = log_path.read_text(errors="replace")
            print(f"  server log: {len(log.splitlines())} lines, "
                  f"{log.count('Traceback')} tracebacks, {log.count('ERROR')} ERROR lines",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floods", default=",".join(FLOODS),
                        help=f"comma-separated, of {', '.join(FLOODS)}")
    parser.add_argument("--seconds", type=float, default=10.0, help="each flood's length")
    parser.add_argument("--half-open", type=int, default=2000,
                        help="connections of the half-open flood")
    parser.add_argument("--lobby", type=int, default=9400,
                        help="public tables waiting when the lobby flood starts")
    parser.add_argument("--repeat", type=int, default=3,
                        help="pairs of windows (quiet, flooded) for each measured flood")
    parser.add_argument("--child", metavar="BASE", help=argparse.SUPPRESS)
    parser.add_argument("--fill", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--options", default="{}", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names = [n.strip() for n in args.floods.split(",") if n.strip()]
    unknown = [n for n in names if n not in FLOODS]
    if unknown:
        parser.error(f"no flood {', '.join(unknown)}")
    if args.fill:
        asyncio.run(_fill(Path(args.fill), args.lobby))
        return
    if args.child:
        child(args.child, names[0], args.seconds, json.loads(args.options))
        return
    print(f"open files: {raise_nofile()}; cpus: {os.cpu_count()}; "
          f"load average: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="minodice-floods-") as folder:
        asyncio.run(run(names, args.seconds, args.half_open, args.lobby, Path(folder),
                        args.repeat))


if __name__ == "__main__":
    main()
