"""Several real ``minodice serve --redis`` processes on one PostgreSQL and one Redis, and
players that act as a load balancer's clients would: each connects to a process of its
own, and connects again (to the next process alive) when its connection is closed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from live_server import LiveServer, free_port
from minodice.core.fair import verify_record
from minodice.server.store import Store

LEASE = 2.0  # seconds: a dead owner's tables are taken over after this
PACE = 0.06  # seconds between a player's messages (the server takes 20 a second)


@dataclass
class Cluster:
    """Server processes sharing ``db`` and ``redis`` (started with :meth:`add`)."""

    folder: Path
    db: str
    redis: str
    grace: float = 60.0
    servers: list[LiveServer] = field(default_factory=list)

    def add(self, *more: str) -> LiveServer:
        count = len(self.servers) + 1
        server = LiveServer(self.db, free_port(), self.folder / f"server{count}.log",
                            self.grace, ("--redis", self.redis, "--lease-seconds", f"{LEASE:g}",
                                         "--bot-workers", "1", *more))
        self.servers.append(server)
        server.start()
        return server

    def alive(self) -> list[LiveServer]:
        return [s for s in self.servers if s.proc is not None and s.proc.poll() is None]

    def logs(self) -> str:
        return "\n".join(f"--- {s.base}\n{s.log_text()}" for s in self.servers)


@pytest.fixture
def cluster(tmp_path: Path, postgres_url: str, redis_service: Any) -> Iterator[Cluster]:
    running = Cluster(tmp_path, postgres_url, redis_service.url)
    try:
        yield running
    finally:
        for server in running.servers:
            server.stop()


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory: pytest.TempPathFactory, postgres_service: Any,
                  redis_service: Any) -> Iterator[Cluster]:
    """Two processes that the tests of a module share (each test its own tables): starting
    a process costs seconds on a busy machine."""
    running = Cluster(tmp_path_factory.mktemp("two"), postgres_service.new_database(),
                      redis_service.url)
    try:
        running.add()
        running.add()
        yield running
    finally:
        for server in running.servers:
            server.stop()


@pytest.fixture
def redis_restartable() -> Iterator[Any]:
    """A Redis of this test's own (the test stops and starts it)."""
    from services import redis_server

    with redis_server() as server:
        yield server


def metric(server: LiveServer, name: str) -> float:
    """The value of a counter in a process's ``/metrics``."""
    text = httpx.get(f"{server.base}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no {name} in /metrics")


def owner_of(cluster: Cluster, table: str) -> LiveServer | None:
    """The process holding the table's lease now (its address as it told Redis)."""
    import redis

    client = redis.Redis.from_url(cluster.redis, decode_responses=True)
    try:
        owner = client.get(f"minodice:lease:{table}")
        address = client.get(f"minodice:proc:{owner!s}") if owner is not None else None
    finally:
        client.close()
    return next((s for s in cluster.servers if address == s.base), None)


def create(server: LiveServer, **settings: Any) -> str:
    answer = httpx.post(f"{server.base}/api/tables", json=settings, timeout=20)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["table"])


def join(server: LiveServer, table: str, name: str) -> tuple[int, str]:
    answer = httpx.post(f"{server.base}/api/tables/{table}/seats",
                        json={"name": name, "client_seed": f"seed-{name}"}, timeout=20)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["seat"]), str(answer.json()["token"])


@dataclass
class Player:
    """One person: connected to ``servers[0]`` first, to the next one alive when closed.

    ``acts``: every (turn, action) it sent; ``acked``: those a later view showed done (the
    game moved past that turn); ``views``: (time, port, seq) of each view received."""

    cluster: Cluster
    servers: list[LiveServer]
    table: str
    seat: int
    token: str
    seed: int
    acts: dict[str, str] = field(default_factory=dict)
    views: list[tuple[float, int, int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seq: int = -1
    finished: bool = False
    reconnects: int = 0

    async def play(self, timeout: float = 240.0) -> None:
        rng = random.Random(self.seed)
        deadline = time.monotonic() + timeout
        which = 0
        answered: str | None = None
        while not self.finished:
            assert time.monotonic() < deadline, f"seat {self.seat}: the game did not end"
            alive = [s for s in self.servers if s.proc is not None and s.proc.poll() is None]
            if not alive:
                await asyncio.sleep(0.2)
                continue
            server = alive[which % len(alive)]
            url = f"{server.ws_base}/ws/{self.table}?token={self.token}"
            try:
                async with connect(url, open_timeout=10) as ws:
                    answered = None  # a new connection: the view tells what is still asked
                    while True:
                        raw = await asyncio.wait_for(ws.recv(), 30)
                        message = json.loads(raw)
                        if message["type"] == "error":
                            self.errors.append(message["code"])
                            if message["code"] in ("unavailable", "rate_limited"):
                                answered = None  # not made: send it again
                            continue
                        if message["type"] != "view":
                            continue
                        assert message["seq"] > self.seq or message["seq"] == self.seq, \
                            "views come in growing seq"
                        self.seq = message["seq"]
                        self.views.append((time.monotonic(), server.port, self.seq))
                        view = message["view"]
                        if message.get("status", view.get("status")) == "finished" or \
                                view.get("phase") == "finished":
                            self.finished = True
                            return
                        turn = view.get("turn")
                        if turn is not None and turn != answered:
                            await asyncio.sleep(PACE)
                            action = str(rng.choice(view["legal"]))
                            if turn in self.acts:
                                action = self.acts[turn]  # the same answer again
                            self.acts[turn] = action
                            answered = turn
                            await ws.send(json.dumps({"type": "act", "turn": turn,
                                                      "action": action}))
            except (ConnectionClosed, OSError, InvalidStatus, TimeoutError):
                pass
            self.reconnects += 1
            which += 1
            await asyncio.sleep(0.1)


def in_record(record: dict[str, Any], seat: int, turn: str, action: str) -> bool:
    """Whether ``record`` shows ``seat`` deciding ``action`` at ``turn``."""
    parts = turn.split("-")
    action = action.split()[-1]  # "bid 2", "play red"
    rnd = record["rounds"][int(parts[0]) - 1]
    if parts[-1] == "bid":
        return str(rnd["bids"][seat]) == action
    roll = rnd["tricks"][int(parts[1]) - 1][int(parts[2]) - 1]
    return bool(roll["player"] == seat and str(roll["die"]) == action)


def wait_finished(server: LiveServer, table: str, timeout: float = 240.0) -> dict[str, Any]:
    """The finished table's record (asked of any process)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(httpx.HTTPError):
            answer = httpx.get(f"{server.base}/api/tables/{table}/record", timeout=10)
            if answer.status_code == 200:
                record: dict[str, Any] = answer.json()
                return record
        assert time.monotonic() < deadline, f"table {table} did not finish"
        time.sleep(0.3)


class Decider(Protocol):
    """A person of a test: their seat, and every (turn, action) they sent."""

    seat: int
    acts: dict[str, str]


def check_game(cluster: Cluster, table: str, players: Sequence[Decider],
               record: dict[str, Any]) -> None:
    """The record verifies; each player's acknowledged decisions are in it; the store's
    log holds each decision once (events numbered without gap, no turn twice)."""
    verify_record(record)
    for player in players:
        for turn, action in player.acts.items():
            assert in_record(record, player.seat, turn, action), (player.seat, turn, action)
    store = Store(cluster.db, upgrade=False)
    try:
        row = store.load(table)
        assert row is not None
        assert row.status == "finished"
        assert row.events == len(row.log)
        decisions = [(e.get("seat"), e.get("turn"), e.get("kind"), e.get("action"))
                     for e in row.log if e.get("seat") is not None and e.get("turn")]
        assert len(decisions) == len(set(decisions)), "a decision was applied twice"
    finally:
        store.close()
