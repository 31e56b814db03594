"""The flood limits that need no network: the worker pools under load, the lobby's caps,
paging and expiry, and the site's origins (issue #14, "No flood may hurt other tables")."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import pytest

from minodice.server.app import normal_origin, site_origins
from minodice.server.botpool import BotPool, PoolBusyError
from minodice.server.lobby import ApiError, Lobby
from minodice.server.room import Settings
from minodice.server.store import Store, now_ms

from .test_hidden import InProcessPool

HANG_GUARD = 120.0  # seconds: only a pool that never answers gets near this


# -- the pools: load is no failure --------------------------------------------------------


async def test_jobs_waiting_for_a_worker_never_time_out_nor_replace_the_pool() -> None:
    """Eight jobs of 0.5 s on one worker with a timeout of 2 s: the last waits 3.5 s for
    its turn, which is load, not a hang. Each job is answered, and the pool is never
    replaced (it used to time the wait too, replace the pool and cancel the others).
    (Each job's own run stays 1.5 s below the timeout: on a busy machine a worker's
    hand-over can take more than the 0.6 s that a 0.4 s job under a 1 s timeout left.)"""
    pool = BotPool(workers=1, timeout=2.0)
    try:
        await asyncio.wait_for(pool.warm_up(), HANG_GUARD)
        results = await asyncio.wait_for(asyncio.gather(
            *(pool.run(time.sleep, 0.5) for _ in range(8)), return_exceptions=True),
            HANG_GUARD)
        assert results == [None] * 8
        assert pool.replacements == 0
    finally:
        pool.close()


async def test_a_full_queue_refuses_at_once() -> None:
    """One worker, a queue of two: of five jobs at once, one runs, two wait, and two are
    refused with PoolBusyError before any has finished."""
    pool = BotPool(workers=1, timeout=30.0, queue=2)
    try:
        await asyncio.wait_for(pool.warm_up(), HANG_GUARD)
        jobs = [asyncio.ensure_future(pool.run(time.sleep, 0.5)) for _ in range(5)]
        await asyncio.sleep(0)  # each job has tried to queue
        refused = [job for job in jobs if job.done()]
        assert len(refused) == 2
        assert all(isinstance(job.exception(), PoolBusyError) for job in refused)
        results = await asyncio.wait_for(asyncio.gather(*jobs, return_exceptions=True),
                                         HANG_GUARD)
        assert sum(r is None for r in results) == 3
        assert pool.replacements == 0
    finally:
        pool.close()


async def test_a_job_lost_with_another_jobs_hung_worker_runs_again() -> None:
    """Two workers: one job hangs past the timeout, so its pool is replaced; the other
    job, still running in that pool, is not lost with it (it used to fail with the
    pool's CancelledError or BrokenProcessPool: a 500 at /api/advise, a random move at a
    table) but runs again in the new pool."""
    pool = BotPool(workers=2, timeout=2.0)
    try:
        await asyncio.wait_for(pool.warm_up(), HANG_GUARD)
        hung = asyncio.ensure_future(pool.run(time.sleep, 60))
        await asyncio.sleep(1.0)
        other = asyncio.ensure_future(pool.run(time.sleep, 1.5))  # runs when hung is killed
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(hung, HANG_GUARD)
        await asyncio.wait_for(other, HANG_GUARD)  # raises if the job was lost
        assert pool.replacements == 1
    finally:
        pool.close()


# -- the lobby ------------------------------------------------------------------------------


def lobby_with(clock: list[float], max_waiting: int = 1000, expire: float = 1800.0,
               store: Store | None = None) -> Lobby:
    return Lobby(store or Store("sqlite://"), InProcessPool(1),
                 Settings(bot_delay=0, grace=3600.0, clock=lambda: clock[0]),
                 max_waiting=max_waiting, expire_waiting=expire)


async def test_waiting_tables_are_capped_in_all() -> None:
    lobby = lobby_with([1000.0], max_waiting=3)
    for _ in range(3):
        await lobby.create(3, "mino", "standard", None, None, True)
    with pytest.raises(ApiError) as refused:
        await lobby.create(3, "mino", "standard", None, None, True)
    assert (refused.value.status, refused.value.code) == (503, "busy")
    # A table of bots starts at once: it waits for nobody, and is not refused.
    room, _ = await lobby.create(3, "mino", "standard", ["random"] * 3, None, False)
    await lobby.maybe_start_new(room)
    assert room.row.status == "playing"
    await lobby.close()


async def test_one_address_cannot_fill_the_waiting_tables() -> None:
    """A few addresses keeping their tables open could otherwise hold all ``max_waiting``
    and refuse everybody's new tables."""
    lobby = Lobby(Store("sqlite://"), InProcessPool(1),
                  Settings(bot_delay=0, grace=3600.0, clock=lambda: 1000.0),
                  max_waiting=10, waiting_per_address=3)
    mine = [(await lobby.create(3, "mino", "standard", None, None, True,
                                creator="10.0.0.7"))[0] for _ in range(3)]
    with pytest.raises(ApiError) as refused:
        await lobby.create(3, "mino", "standard", None, None, True, creator="10.0.0.7")
    assert (refused.value.status, refused.value.code) == (429, "rate_limited")
    assert "3 tables made from your address" in refused.value.message
    # Another address is not refused, nor a table of bots from the first (it waits for
    # nobody), nor one made without an address (a test client, the server itself).
    await lobby.create(3, "mino", "standard", None, None, True, creator="10.0.0.8")
    room, _ = await lobby.create(3, "mino", "standard", ["random"] * 3, None, False,
                                 creator="10.0.0.7")
    await lobby.maybe_start_new(room)
    await lobby.create(3, "mino", "standard", None, None, True)
    # One of its tables starts (its seats taken): the address may make one more.
    for i in range(3):
        await lobby.join(mine[0].id, f"P{i}", None)
    assert mine[0].row.status != "waiting"
    await lobby.create(3, "mino", "standard", None, None, True, creator="10.0.0.7")
    with pytest.raises(ApiError):
        await lobby.create(3, "mino", "standard", None, None, True, creator="10.0.0.7")
    await lobby.close()


async def test_tables_asked_for_at_once_cannot_pass_the_caps_together() -> None:
    """The caps were checked before the table was written and counted after: twenty
    requests at once from one address all passed a cap of three (a reviewer's run)."""
    lobby = Lobby(Store("sqlite://"), InProcessPool(1),
                  Settings(bot_delay=0, grace=3600.0, clock=lambda: 1000.0),
                  max_waiting=5, waiting_per_address=3)

    async def make(creator: str) -> int:
        try:
            await lobby.create(3, "mino", "standard", None, None, True, creator=creator)
        except ApiError as refused:
            return refused.status
        return 201

    one = await asyncio.gather(*(make("10.0.0.7") for _ in range(20)))
    assert sorted(one) == [201] * 3 + [429] * 17
    others = await asyncio.gather(*(make(f"10.0.1.{i}") for i in range(10)))
    assert sorted(others) == [201] * 2 + [503] * 8  # five in all
    assert lobby.waiting() == 5
    await lobby.close()


async def test_the_public_list_comes_a_page_at_a_time() -> None:
    lobby = lobby_with([1000.0])
    made = [(await lobby.create(3, "mino", "standard", None, None, True))[0].id
            for _ in range(45)]
    await lobby.create(3, "mino", "standard", None, None, False)  # private: never listed
    await lobby.join(made[1], "Ana", None)  # still waiting: listed, one seat fewer
    for i in range(3):  # full, so started: no longer listed
        await lobby.join(made[2], f"P{i}", None)
    shown: list[str] = []
    page, cursor = lobby.public_tables(20)
    assert len(page) == 20
    shown += [t["table"] for t in page]
    while cursor is not None:
        page, cursor = lobby.public_tables(20, cursor)
        assert len(page) <= 20
        shown += [t["table"] for t in page]
    assert shown == [t for t in made if t != made[2]]  # oldest first, each once
    with pytest.raises(ApiError):
        lobby.public_tables(20, "not-a-cursor")
    await lobby.close()


async def test_a_page_is_answered_again_while_nothing_on_it_changed() -> None:
    lobby = lobby_with([1000.0])
    made = [(await lobby.create(3, "mino", "standard", None, None, True))[0].id
            for _ in range(3)]
    body, cursor = lobby.public_page(2)
    assert cursor is not None
    assert lobby.public_page(2) == (body, cursor)
    assert lobby.public_page(2)[0] is body  # not built again
    last, end = lobby.public_page(2, cursor)
    assert end is None
    await lobby.create(3, "mino", "standard", None, None, True)
    assert lobby.public_page(2)[0] is body  # a new table goes on the last page only
    assert lobby.public_page(2, cursor)[0] != last
    await lobby.join(made[0], "Ana", None)
    changed, _ = lobby.public_page(2)
    assert b'"Ana"' in changed
    for i in range(2):
        await lobby.join(made[0], f"P{i}", None)  # full: started, no longer listed
    assert made[0].encode() not in lobby.public_page(2)[0]
    await lobby.close()


async def test_abandoned_waiting_tables_expire_and_are_not_loaded_again(
        tmp_path: Path) -> None:
    clock = [1000.0]
    store = Store.sqlite(tmp_path / "tables.db")
    lobby = lobby_with(clock, expire=600.0, store=store)
    abandoned, _ = await lobby.create(3, "mino", "standard", None, None, True)
    joined, _ = await lobby.create(3, "mino", "standard", None, None, True)
    watched, _ = await lobby.create(3, "mino", "standard", None, None, True)

    class Watcher:
        seat: int | None = None

        def send(self, text: str) -> None:
            pass

    await lobby.join(watched.id, "Bea", None)
    await watched.connect(Watcher())  # someone watches a table Bea has joined
    clock[0] += 500
    await lobby.join(joined.id, "Ana", None)  # a join is activity: its clock starts again
    clock[0] += 200
    assert await lobby.expire_abandoned() == 1
    with pytest.raises(ApiError) as gone:
        lobby.room(abandoned.id)
    assert gone.value.code == "not_found"
    assert "expired" in gone.value.message
    assert [t["table"] for t in lobby.public_tables()[0]] == [joined.id, watched.id]
    clock[0] += 500
    assert await lobby.expire_abandoned() == 1  # Ana's table now; the watched one stays
    assert lobby.room(watched.id) is watched
    await lobby.close()

    # A restart: waiting tables older than the expiry are expired without being loaded.
    store.save(watched.id, created_at=now_ms() - 700_000)
    fresh, _ = await lobby_with(clock, expire=600.0, store=store).create(
        3, "mino", "standard", None, None, True)
    again = lobby_with(clock, expire=600.0, store=store)
    assert await again.resume_all() == 1
    assert set(again.rooms) == {fresh.id}
    with pytest.raises(ApiError):
        again.room(watched.id)
    await again.close()
    store.close()


async def test_watching_alone_keeps_no_table_waiting() -> None:
    """A waiting table nobody has taken a seat at expires ``expire_waiting`` after it was
    made even while someone watches it (one client watching its tables held them, and in
    the end every waiting table of the server, for ever); its spectators are told it is
    gone and let go. Once a person has joined, a connection keeps it as before."""
    clock = [1000.0]
    lobby = lobby_with(clock, expire=600.0)
    watched, _ = await lobby.create(3, "mino", "standard", None, None, True)
    joined, _ = await lobby.create(3, "mino", "standard", None, None, True)
    await lobby.join(joined.id, "Ana", None)

    class Watcher:
        seat: int | None = None

        def __init__(self) -> None:
            self.sent: list[str] = []

        def send(self, text: str) -> None:
            self.sent.append(text)

    watcher, other = Watcher(), Watcher()
    await watched.connect(watcher)
    await joined.connect(Watcher())  # Ana left; someone watches her table
    clock[0] += 599
    await watched.connect(other)  # a spectator coming and going starts no clock again
    await watched.disconnect(other)
    assert await lobby.expire_abandoned() == 0
    clock[0] += 1
    assert await lobby.expire_abandoned() == 1
    with pytest.raises(ApiError) as gone:
        lobby.room(watched.id)
    assert (gone.value.code, "expired" in gone.value.message) == ("not_found", True)
    told = json.loads(watcher.sent[-1])  # told as a new connection would be, and let go
    assert (told["type"], told["code"]) == ("error", "not_found")
    assert "expired" in told["message"]
    views = [m for m in map(json.loads, watcher.sent) if m["type"] == "view"]
    assert views  # it was shown the table while it waited, and no view of it expired
    assert {m["view"]["status"] for m in views} == {"waiting"}
    assert [t["table"] for t in lobby.public_tables()[0]] == [joined.id]
    clock[0] += 10_000
    assert await lobby.expire_abandoned() == 0  # watched after Ana left: kept as before
    await lobby.close()


# -- origins ----------------------------------------------------------------------------------


def test_the_sites_origins() -> None:
    assert normal_origin("HTTPS://Dice.Example.org:443/path") == "https://dice.example.org"
    assert normal_origin("http://127.0.0.1:8000") == "http://127.0.0.1:8000"
    assert normal_origin("null") == ""
    assert normal_origin("ftp://x") == ""
    local = site_origins("127.0.0.1", 8000)
    assert "http://127.0.0.1:8000" in local
    assert "http://localhost:8000" in local
    assert "http://evil.example:8000" not in local
    public = site_origins("0.0.0.0", 8000, ("https://dice.example.org",))
    assert public[0] == "https://dice.example.org"
    assert "http://localhost:8000" in public
    assert all("0.0.0.0" not in o for o in public)
    assert f"http://{socket.gethostname().lower()}:8000" in public
    assert site_origins("192.168.1.5", 80) == ("http://192.168.1.5", "https://192.168.1.5:80")
