"""Issue #17's PostgreSQL fault under several processes: three ``minodice serve --redis``
processes on one PostgreSQL and one Redis, three people each playing through a process of
their own (one through the table's owner, two through processes that forward to it), and
PostgreSQL stopped in the middle of the game. While it is down every action is refused
with ``unavailable`` — through the owner and through a forwarding process — and none is
acknowledged (no view moves on); a new connection is told so in one line, never a
traceback. Once it is started again, everything recovers by itself: the game finishes on
the same owner, its record verifies, and its log holds every decision once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from live_server import LiveServer
from services import Postgres

from .conftest import PACE, Cluster, check_game, create, join, metric, owner_of

HOLD = "3-bid"  # the decision the people are asked for when PostgreSQL stops
TIMEOUT = 30.0  # seconds: a hang guard for one answer


@dataclass
class Person:
    """One seat's connection through ``server``; every message kept, the latest view."""

    server: LiveServer
    table: str
    seat: int
    token: str
    acts: dict[str, str] = field(default_factory=dict)  # turn -> action sent (same again)
    messages: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    seq: int = -1
    status: str = ""
    answered: str | None = None
    ws: ClientConnection | None = None
    reader: asyncio.Task[None] | None = None
    closed: bool = False

    async def open(self) -> None:
        self.ws = await connect(f"{self.server.ws_base}/ws/{self.table}?token={self.token}",
                                open_timeout=TIMEOUT)
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                self.messages.append(message)
                if message["type"] == "view":
                    assert message["seq"] >= self.seq, "views come in growing seq"
                    self.seq, self.view = message["seq"], message["view"]
                    self.status = str(message.get("status", self.view.get("status")))
                elif message["type"] == "error" and message["code"] == "unavailable":
                    self.answered = None  # not made: to be sent again
        except ConnectionClosed:
            pass
        self.closed = True

    def asked(self) -> str | None:
        """The turn this seat's latest view asks it for, if not answered yet."""
        turn = self.view.get("turn")
        return turn if isinstance(turn, str) and turn != self.answered else None

    def finished(self) -> bool:
        return self.status == "finished" or self.view.get("phase") == "finished"

    async def act(self, rng: random.Random) -> None:
        turn = self.asked()
        assert turn is not None
        action = self.acts.setdefault(turn, str(rng.choice(self.view["legal"])))
        self.answered = turn
        assert self.ws is not None
        await self.ws.send(json.dumps({"type": "act", "turn": turn, "action": action}))

    async def refused(self, rng: random.Random) -> dict[str, Any]:
        """Act on the turn asked; the answer must be an error, with no view before it."""
        seen = len(self.messages)
        await self.act(rng)
        deadline = time.monotonic() + TIMEOUT
        while True:
            for message in self.messages[seen:]:
                if message["type"] != "chat":
                    assert message["type"] == "error", f"acknowledged: {message}"
                    return message
            assert time.monotonic() < deadline, "no answer"
            await asyncio.sleep(0.02)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 5)


async def drive(people: list[Person], rng: random.Random, hold: str | None,
                timeout: float = 240.0) -> None:
    """Answer every decision asked (each seat at its pace), except ``hold``: until every
    person is asked for ``hold``, or (``hold`` None) until the game is over."""
    deadline = time.monotonic() + timeout
    while True:
        if hold is None and all(p.finished() for p in people):
            return
        if hold is not None and all(p.asked() == hold for p in people):
            return
        assert time.monotonic() < deadline, [(p.seat, p.view.get("turn")) for p in people]
        assert not any(p.closed for p in people), "a connection was closed"
        for person in people:
            if person.asked() is not None and person.asked() != hold:
                await person.act(rng)
        await asyncio.sleep(PACE)


async def readiness(servers: list[LiveServer]) -> list[int]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        return [(await http.get(f"{s.base}/readyz")).status_code for s in servers]


def test_postgresql_restarted_under_three_processes_refuses_then_recovers_by_itself(
        cluster: Cluster, postgres_service: Postgres) -> None:
    a, b, c = cluster.add(), cluster.add(), cluster.add()
    table = create(a, players=4, bots=[None, None, None, "easy"])
    assert owner_of(cluster, table) is a
    people = [Person(server, table, *join(server, table, f"P{i}"))
              for i, server in enumerate((a, b, c))]  # joined through each process too
    waiting = create(a, players=3, bots=[None, None, "easy"], public=True)
    rng = random.Random(17)
    pg = postgres_service  # the session's server: started again whatever happens

    async def scenario() -> None:
        for person in people:
            await person.open()
        try:
            await drive(people, rng, HOLD)
            await asyncio.sleep(1.0)  # the bot's bid, and every view of it, arrive
            seqs = [p.seq for p in people]
            await asyncio.to_thread(pg.stop, "fast")  # its connections are cut
            try:
                await while_down(seqs)
            finally:
                await asyncio.to_thread(pg.start)
            deadline = time.monotonic() + 60
            while await readiness([a, b, c]) != [200] * 3:  # recovered by itself
                assert time.monotonic() < deadline, cluster.logs()
                await asyncio.sleep(0.2)
            assert owner_of(cluster, table) is a, "the table changed owner"
            async with httpx.AsyncClient(timeout=TIMEOUT) as http:  # the refused join again
                joined = await http.post(f"{c.base}/api/tables/{waiting}/seats",
                                         json={"name": "Late", "client_seed": "late"})
                assert joined.status_code == 201, joined.text
            await drive(people, rng, None)  # each refused bid sent again, then to the end
        finally:
            for person in people:
                await person.close()

    async def while_down(seqs: list[int]) -> None:
        for _ in range(2):  # refused, and refused again: through the owner (P0) and
            for person in people:  # through two processes forwarding to it (P1, P2)
                answer = await person.refused(rng)
                assert answer["code"] == "unavailable", answer
                assert "not made" in answer["message"], answer
                await asyncio.sleep(PACE)
        assert await readiness([a, b, c]) == [503] * 3
        async with httpx.AsyncClient(timeout=TIMEOUT) as http:
            for server in (a, b, c):  # the table is still served, from the owner's memory
                info = await http.get(f"{server.base}/api/tables/{table}")
                assert info.status_code == 200, info.text
                assert (await http.get(f"{server.base}/healthz")).status_code == 200
            # Writes over HTTP are refused in one line too: a seat taken through a process
            # forwarding to the owner, a new table.
            for url, body in ((f"{c.base}/api/tables/{waiting}/seats",
                               {"name": "Late", "client_seed": "late"}),
                              (f"{b.base}/api/tables", {"players": 3})):
                refused = await http.post(url, json=body)
                assert refused.status_code == 503, refused.text
                assert refused.json()["error"]["code"] == "unavailable", refused.text
        # A new connection through a forwarding process cannot check its token now: it
        # is told so in one line; through the owner it gets the table as it stands.
        async with connect(f"{b.ws_base}/ws/{table}?token={people[2].token}",
                           open_timeout=TIMEOUT) as ws:
            refusal = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            assert refusal["type"] == "error", refusal
            assert refusal["code"] == "unavailable", refusal
        async with connect(f"{a.ws_base}/ws/{table}?token={people[2].token}",
                           open_timeout=TIMEOUT) as ws:
            shown = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            assert shown["type"] == "view", shown
            assert shown["seq"] == seqs[2]
        await asyncio.sleep(2.0)  # the bot's and the clocks' retries: still nothing
        assert [p.seq for p in people] == seqs, "a view moved on while nothing was written"

    asyncio.run(scenario())
    record = httpx.get(f"{b.base}/api/tables/{table}/record", timeout=TIMEOUT)
    assert record.status_code == 200, record.text
    check_game(cluster, table, people, record.json())
    for person in people:  # (check_game: each refused bid, sent again, is in it once)
        codes = [m["code"] for m in person.messages if m["type"] == "error"]
        assert codes.count("unavailable") >= 2
        assert "moved" not in codes, "a connection was moved"
    for server in (a, b, c):
        assert metric(server, "minodice_lease_takeovers_total") == 0
        assert metric(server, "minodice_leases_lost_total") == 0
    for server in (a, b, c):  # every line of every log, not only its end
        assert "Traceback" not in server.log.read_text(errors="replace"), server.log_text()
