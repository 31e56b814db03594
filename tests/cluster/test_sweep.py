"""The takeover sweep of ``serve --redis`` (server/cluster.py) on a real Redis of the test's
own and a store, in this process: what one sweep reads is what changed, not every table
(issue #17 at 100,000 tables and tens of processes), and it still takes every table that
has no owner — a dead owner's through the leases' expiry index, a handed-over one at once,
and those the index does not know (Redis lost its data) through the backstop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path

import pytest
import redis

from minodice.server import cluster as cluster_module
from minodice.server.botpool import BotPool
from minodice.server.cluster import Cluster
from minodice.server.leases import Lease, Leases
from minodice.server.lobby import Lobby, new_id
from minodice.server.protocol import MOVED
from minodice.server.room import Settings
from minodice.server.rows import Seat, TableSettings
from minodice.server.store import Store, TableRow, now_ms
from services import Redis, redis_server

TABLES = 2000  # live tables in the store, for the reads a sweep costs


class CountingStore(Store):
    """The store, counting the table ids its reads of many tables return, and those reads
    (the sweep's: every live table at once before, a page of them now)."""

    rows = 0
    reads = 0

    def ids(self, statuses: Sequence[str]) -> list[str]:
        out = super().ids(statuses)
        self.rows += len(out)
        self.reads += 1
        return out

    def ids_after(self, status: str, after: str, limit: int) -> list[str]:
        out = super().ids_after(status, after, limit)
        self.rows += len(out)
        self.reads += 1
        return out


@pytest.fixture
def own_redis() -> Iterator[Redis]:
    """A Redis of this test's own: its statistics count this test's reads alone."""
    with redis_server() as server:
        yield server


@pytest.fixture
def store(tmp_path: Path) -> Iterator[CountingStore]:
    opened = CountingStore(f"sqlite:///{tmp_path / 'tables.sqlite3'}")
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
async def lobby(store: CountingStore) -> AsyncIterator[Lobby]:
    pool = BotPool(workers=1)  # no table here has a bot: its worker never starts
    made = Lobby(store, pool, Settings(bot_delay=0, grace=3600.0))
    try:
        yield made
    finally:
        await made.close()
        pool.close()


def waiting_rows(store: Store, count: int, status: str = "waiting") -> list[str]:
    """``count`` tables waiting for three people, written as the lobby writes one."""
    ids = []
    for _ in range(count):
        row = TableRow(id=new_id(), created_at=now_ms(), status=status, public=False,
                       settings=TableSettings(players=3, edition="mino"),
                       seats=[Seat(), Seat(), Seat()], host_token_hash="1" * 64,
                       server_seed="2" * 64, commit="3" * 64, seq=1, epoch=0)
        store.create(row)
        ids.append(row.id)
    return ids


async def take_all(leases: Leases, ids: list[str]) -> dict[str, Lease]:
    taken = {}
    for table_id in ids:
        lease = await leases.take(table_id)
        assert lease is not None
        taken[table_id] = lease
    return taken


def lookups(server: Redis) -> int:
    """Keys Redis has looked up to read them since its statistics were reset."""
    client = redis.Redis.from_url(server.url)
    try:
        stats = client.info("stats")
    finally:
        client.close()
    return int(stats["keyspace_hits"]) + int(stats["keyspace_misses"])


def reset_stats(server: Redis) -> None:
    client = redis.Redis.from_url(server.url)
    try:
        client.config_resetstat()
    finally:
        client.close()


async def test_a_sweep_reads_what_changed_not_every_table(
        own_redis: Redis, store: CountingStore, lobby: Lobby) -> None:
    """2,000 live tables, all held by a live owner elsewhere, nothing changing: a sweep of
    this process reads a page of the store and of Redis, not all 2,000 of each (before:
    every id from the store and every lease from Redis, every half second, in every
    process)."""
    ids = waiting_rows(store, TABLES)
    other = Leases.from_url(own_redis.url, ttl_ms=600_000)  # a live owner, for this test
    try:
        await take_all(other, ids)
        here = Cluster(own_redis.url, lobby, "http://127.0.0.1:9", lease_ms=600_000,
                       sweep=0.05)
        await here.start()
        try:
            deadline = time.monotonic() + 60
            while store.reads < 6:  # the first sweeps (a process's full pass) are over
                assert time.monotonic() < deadline, "the sweep does not run"
                await asyncio.sleep(0.05)
            reset_stats(own_redis)
            store.rows = store.reads = 0
            await asyncio.sleep(1.0)
            sweeps, rows, keys = store.reads, store.rows, lookups(own_redis)
        finally:
            await here.stop()
        assert not here.held, "it took a table a live owner holds"
    finally:
        await other.close()
    assert sweeps >= 3, "the sweep does not run"
    print(f"{TABLES} live tables: per sweep {rows / sweeps:.0f} ids read from the store, "
          f"{keys / sweeps:.0f} keys looked up in Redis ({sweeps} sweeps)")
    assert rows / sweeps <= TABLES / 10
    assert keys / sweeps <= TABLES / 10


async def test_a_dead_owners_tables_and_a_released_one_are_found_in_the_expiry_index(
        own_redis: Redis, store: CountingStore, lobby: Lobby,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The backstop reads no store here: the index alone finds the tables."""
    here = Cluster(own_redis.url, lobby, "http://127.0.0.1:9", lease_ms=600_000)

    async def no_backstop() -> None:
        return None

    monkeypatch.setattr(here, "_backstop_page", no_backstop)
    dead = Leases.from_url(own_redis.url, ttl_ms=300)  # never renewed: a dead owner
    alive = Leases.from_url(own_redis.url, ttl_ms=600_000)
    try:
        expiring, finished = waiting_rows(store, 3), waiting_rows(store, 1)
        kept, handed = waiting_rows(store, 3), waiting_rows(store, 1)
        await take_all(dead, expiring + finished)
        held = await take_all(alive, kept + handed)
        await here.sweep_once()
        assert not here.held, "it took tables whose owners' leases run"
        await alive.release(held[handed[0]])  # as a stopping process hands its tables over
        await here.sweep_once()
        assert set(here.held) == set(handed), "a handed-over table is taken at once"
        store.save(finished[0], status="finished")  # it finished, then its owner died
        await asyncio.sleep(0.5)  # the dead owner's leases expire
        await here.sweep_once()
        assert set(here.held) == set(handed + expiring)
        assert all(table_id in lobby.rooms for table_id in here.held)
        _, due = await here.leases.due(10, "-")
        assert due == [], "the finished table left the index (nobody looks at it again)"
    finally:
        await here.stop()
        await dead.close()
        await alive.close()


async def test_tables_the_index_does_not_know_are_found_by_the_backstop_and_a_full_pass(
        own_redis: Redis, store: CountingStore, lobby: Lobby,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cluster_module, "BACKSTOP_PAGE", 2)
    here = Cluster(own_redis.url, lobby, "http://127.0.0.1:9", lease_ms=600_000)
    try:
        for _ in range(2):  # a new process's full pass (a page a status): an empty store
            await here.sweep_once()
        # Live tables nobody leased and the index does not list (their owner died while
        # Redis had lost its data): the slow backstop finds them, two a sweep.
        unknown = waiting_rows(store, 3) + waiting_rows(store, 3, status="playing")
        for _ in range(8):
            store.rows = 0
            await here.sweep_once()
            assert store.rows <= 2
        assert set(here.held) == set(unknown)  # round and round from anywhere: all found
        # Redis loses its data: a full pass at once (a page a status), not two a sweep.
        more = waiting_rows(store, 10)
        client = redis.Redis.from_url(own_redis.url)
        client.flushall()
        client.close()
        for _ in range(2):
            await here.sweep_once()
        assert set(more) <= set(here.held)
    finally:
        await here.stop()


class FakeConn:
    seat: int | None = 0

    def __init__(self) -> None:
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)


async def test_connections_forwarded_to_an_owner_that_lost_its_table_are_moved(
        own_redis: Redis, store: CountingStore, lobby: Lobby) -> None:
    """Told by the new owner's notice at once, or found by the sweep's page of owners."""
    here = Cluster(own_redis.url, lobby, "http://127.0.0.1:9", lease_ms=600_000,
                   sweep=3600)
    other = Leases.from_url(own_redis.url, ttl_ms=600_000)
    client = redis.Redis.from_url(own_redis.url)
    try:
        first, second = waiting_rows(store, 2)
        await take_all(other, [first, second])
        await here.start()
        stay, moved, found = FakeConn(), FakeConn(), FakeConn()
        here.attach(stay, first, other.owner)
        here.attach(moved, first, "a-process-that-lost-it")
        here.attach(found, second, "a-process-that-died")
        deadline = time.monotonic() + 20
        notice = json.dumps({"t": first, "o": other.owner})
        while not moved.sent:  # (published again until this process listens)
            assert time.monotonic() < deadline, "the notice never came"
            client.publish(cluster_module.TAKEN, notice)
            await asyncio.sleep(0.05)
        assert moved.sent == [MOVED]
        assert (stay.sent, found.sent) == ([], [])
        await here.sweep_once()
        assert found.sent == [MOVED]
        assert stay.sent == []
        assert set(here.remote_tables) == {first}
    finally:
        client.close()
        await here.stop()
        await other.close()


async def test_a_stop_ends_even_when_a_sweep_swallowed_its_cancellation(
        own_redis: Redis, lobby: Lobby, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client library may swallow a cancellation that arrives inside its read; the loop
    then runs on, and a stop that waited for it once hung a test run for good."""
    here = Cluster(own_redis.url, lobby, "http://127.0.0.1:9", lease_ms=600_000, sweep=0.01)
    entered = asyncio.Event()

    async def swallowing() -> None:
        entered.set()
        with contextlib.suppress(asyncio.CancelledError):  # as such a library does
            await asyncio.sleep(10)

    monkeypatch.setattr(here, "sweep_once", swallowing)
    await here.start()
    await asyncio.wait_for(entered.wait(), 10)
    await asyncio.wait_for(here.stop(), 10)
    assert all(task.done() for task in here._tasks)
