"""Table leases in a real Redis (the tests' own, tests/services.py), and the fence that
makes them safe: a paused ex-owner that wakes after another process took its table is
refused by the store, whatever it believes about its lease (issue #17).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from minodice.server.leases import Lease, LeaseLostError, Leases
from minodice.server.store import FencingError, Store
from services import Redis

from .test_store import bid, new_row, store_url

__all__ = ["store_url"]  # the fixture: a fresh database on each engine

EXPIRY_GUARD = 20.0  # seconds: a hang guard for a lease that should expire in 0.3 s


@pytest.fixture
async def processes(redis_service: Redis) -> AsyncIterator[tuple[Leases, Leases]]:
    """Two processes' leases (each its own connection), with short expiries, on keys
    of this test's own."""
    prefix = f"test-{uuid.uuid4().hex}:"
    first = Leases.from_url(redis_service.url, ttl_ms=300)
    second = Leases.from_url(redis_service.url, ttl_ms=300)
    first.prefix = second.prefix = prefix
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


async def expired(leases: Leases, table_id: str) -> None:
    deadline = time.monotonic() + EXPIRY_GUARD
    while await leases.owner_of(table_id) is not None:
        assert time.monotonic() < deadline, "the lease never expired"
        await asyncio.sleep(0.05)


async def test_one_owner_at_a_time_and_each_takeover_a_larger_epoch(
        processes: tuple[Leases, Leases]) -> None:
    a, b = processes
    for n in range(20):  # both ask at once, many times: exactly one gets each table
        taken = await asyncio.gather(a.take(f"t{n}"), b.take(f"t{n}"))
        assert sum(lease is not None for lease in taken) == 1, taken
    first = await a.take("x")
    assert first is not None
    assert await b.take("x") is None
    assert await a.take("x") is None  # not twice, even by its owner
    assert await a.owner_of("x") == a.owner
    await expired(a, "x")  # its owner stopped renewing (dead, or paused)
    second = await b.take("x")
    assert second is not None
    assert second.epoch > first.epoch
    with pytest.raises(LeaseLostError):  # the old owner learns it lost the table
        await a.renew(first)
    assert not await a.release(first)  # and cannot give away what is not its own
    assert await b.owner_of("x") == b.owner
    assert await a.ping()


async def test_a_renewed_lease_is_kept_and_a_released_one_taken_at_once(
        processes: tuple[Leases, Leases]) -> None:
    a, b = processes
    lease = await a.take("y")
    assert lease is not None
    for _ in range(6):  # renewed well before it expires: kept past several expiries
        await asyncio.sleep(0.1)
        await a.renew(lease)
        assert await b.take("y") is None
    assert await a.release(lease)  # a graceful stop hands the table over at once
    taken = await b.take("y")
    assert taken is not None
    assert taken.epoch == lease.epoch + 1


async def test_a_paused_owner_waking_after_a_takeover_cannot_write(
        processes: tuple[Leases, Leases], store_url: str) -> None:
    """SIGSTOP in small: the old owner holds epoch e, the new one e' > e and writes; the
    old one wakes up believing it still owns the table, and the store refuses its write —
    the log holds no decision twice and none of the ex-owner's after the takeover."""
    a, b = processes
    store = Store(store_url)
    try:
        row = new_row(store)
        old = await a.take(row.id)
        assert old is not None
        await store.save_async(row.id, [bid(0)], 0, seq=2, epoch=old.epoch)
        await expired(a, row.id)  # paused past its lease
        new = await b.take(row.id)
        assert isinstance(new, Lease)
        await store.save_async(row.id, [bid(1)], 1, seq=3, epoch=new.epoch)
        for seq in (3, 4):  # the seq it believes next, and any other
            with pytest.raises(FencingError):
                await store.save_async(row.id, [bid(9)], 1, seq=seq, epoch=old.epoch)
        with pytest.raises(LeaseLostError):
            await a.renew(old)
        loaded = store.load(row.id)
        assert loaded is not None
        assert (loaded.log, loaded.epoch) == ([bid(0), bid(1)], new.epoch)
    finally:
        store.close()


async def test_a_new_owner_claims_its_epoch_before_it_reads_so_the_old_one_cannot_write(
        processes: tuple[Leases, Leases], store_url: str) -> None:
    """The gap between a takeover and the new owner's first write: the old owner (paused,
    or finishing a move) writes in it, and the new owner would load a log without that
    move. The claim closes the gap: once claimed, the old owner is refused at once."""
    a, b = processes
    store = Store(store_url)
    try:
        row = new_row(store)
        old = await a.take(row.id)
        assert old is not None
        await store.save_async(row.id, [bid(0)], 0, seq=2, epoch=old.epoch)
        await expired(a, row.id)
        new = await b.take(row.id, floor=store.row(row.id).epoch)  # type: ignore[union-attr]
        assert new is not None
        assert new.epoch > old.epoch
        await store.claim(row.id, new.epoch)
        with pytest.raises(FencingError):  # the old owner's next move, after the claim
            await store.save_async(row.id, [bid(1)], 1, seq=3, epoch=old.epoch)
        loaded = store.load(row.id)
        assert loaded is not None
        assert loaded.log == [bid(0)]
        with pytest.raises(FencingError):  # an older claim is refused too
            await store.claim(row.id, old.epoch)
    finally:
        store.close()


async def test_an_epoch_is_above_the_stores_even_when_redis_forgot_every_epoch(
        processes: tuple[Leases, Leases], store_url: str) -> None:
    """Redis restarted without its data starts the epochs again at 1; the table's epoch
    in the store (the floor) keeps every new owner above every old one."""
    a, _ = processes
    lease = await a.take("forgotten", floor=7)
    assert lease is not None
    assert lease.epoch == 8
    await a.release(lease)
    again = await a.take("forgotten", floor=3)  # a floor below Redis's count: INCR wins
    assert again is not None
    assert again.epoch == 9


async def test_the_expiry_index_lists_the_tables_whose_lease_expired_or_was_handed_over(
        processes: tuple[Leases, Leases]) -> None:
    """What the takeover sweep reads instead of every lease (server/cluster.py)."""
    a, b = processes

    async def due() -> list[str]:
        return sorted((await a.due(100, "-"))[1])

    held: dict[str, Lease] = {}
    for name in ("x", "y", "z", "w"):
        lease = await a.take(name)
        assert lease is not None
        held[name] = lease
    assert await due() == []  # every lease runs
    assert await a.release(held["y"])  # for another owner: listed at once
    assert await a.release(held["z"], hand_over=False)  # needs none: not listed
    assert await due() == ["y"]
    for _ in range(6):  # renewed (one by one, and many in one round trip): not listed
        await asyncio.sleep(0.1)
        await a.renew(held["x"])
        assert await a.renew_all([held["w"]]) == [None]
        assert await due() == ["y"]
    await expired(a, "x")  # its owner stopped renewing (dead, or paused)
    await expired(a, "w")
    assert await due() == ["w", "x", "y"]
    taken = await b.take("x")
    assert taken is not None
    assert await due() == ["w", "y"]  # a new owner's lease runs
    lost = await a.renew_all([held["x"], held["w"]])
    assert all(isinstance(result, LeaseLostError) for result in lost)
    assert not await a.orphaned("x")  # an owner holds it: its score stays
    assert await a.orphaned("v")  # unknown to the index, nobody holds it: listed
    assert not await a.unlist("x")
    assert await a.unlist("w")  # finished while nobody held it
    assert await due() == ["v", "y"]
    assert (await a.due(1, "-"))[1] in (["v"], ["y"])  # at most as many as asked


async def test_the_index_generation_changes_only_when_redis_loses_its_data(
        processes: tuple[Leases, Leases]) -> None:
    a, b = processes
    first, _ = await a.due(10, "made-by-a")
    assert first == "made-by-a"
    assert (await b.due(10, "made-by-b"))[0] == "made-by-a"  # the first asker's, for all
    await a.client.delete(f"{a.prefix}generation")  # as a Redis that lost its data
    assert (await b.due(10, "made-by-b"))[0] == "made-by-b"
