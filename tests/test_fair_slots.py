"""The shared bot workers' slots go round the waiting keys (server/botpool.py): one
address's many tables of bots wait their turns among themselves, and another table's bot
waits for one job of each other key, not for the whole queue of one."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from minodice.server.botpool import FairSlots, KeyedPool, _job_key


async def served_order(slots: int, asks: list[str]) -> list[tuple[str, int]]:
    """Every job asks at once, in ``asks`` order (the key of each); each holds its slot
    until the next turn of the loop. The order the jobs got their slots in."""
    fair = FairSlots(slots)
    order: list[tuple[str, int]] = []
    seen: dict[str, int] = {}

    async def job(key: str) -> None:
        number = seen[key] = seen.get(key, 0) + 1
        await fair.acquire(key)
        order.append((key, number))
        await asyncio.sleep(0)
        fair.release()

    await asyncio.gather(*(job(key) for key in asks))
    assert fair.free == slots
    assert not fair.queues
    return order


def test_a_key_with_many_jobs_waiting_takes_turns_with_one_that_comes_later() -> None:
    order = asyncio.run(served_order(1, ["flood"] * 6 + ["table"]))
    # the first flood job took the free slot; the table's one job waits for one more of
    # the key that was waiting before it, not for its whole queue (third, not seventh)
    assert order[:4] == [("flood", 1), ("flood", 2), ("table", 1), ("flood", 3)]
    assert [n for k, n in order if k == "flood"] == [1, 2, 3, 4, 5, 6]  # each key in order


@given(st.lists(st.sampled_from("abc"), min_size=1, max_size=30), st.integers(1, 3))
def test_every_job_is_served_once_each_key_in_order(asks: list[str], slots: int) -> None:
    order = asyncio.run(served_order(slots, asks))
    assert sorted(order) == sorted({(k, n) for k, n in order})
    assert len(order) == len(asks)
    for key in set(asks):
        numbers = [n for k, n in order if k == key]
        assert numbers == list(range(1, asks.count(key) + 1))


def test_a_job_cancelled_while_it_waits_gives_its_turn_away() -> None:
    async def scenario() -> list[str]:
        fair = FairSlots(1)
        await fair.acquire("a")  # held
        order: list[str] = []

        async def job(key: str) -> None:
            await fair.acquire(key)
            order.append(key)
            fair.release()

        cancelled = asyncio.ensure_future(job("b"))
        waiting = asyncio.ensure_future(job("c"))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.sleep(0)
        fair.release()
        await waiting
        assert fair.free == 1
        assert not fair.queues
        return order

    assert asyncio.run(scenario()) == ["c"]


def test_a_keyed_pool_asks_under_its_key() -> None:
    class Recording:
        timeout = 5.0

        async def run(self, fn: object, *args: object) -> str:
            return _job_key.get()

    keyed = KeyedPool(Recording(), lambda: "address:10.0.0.7")  # type: ignore[arg-type]

    def no_job() -> str:
        return ""

    async def scenario() -> tuple[str, str]:
        asked = await keyed.run(no_job)
        return asked, _job_key.get()  # the same task, after: set only while it asked

    assert asyncio.run(scenario()) == ("address:10.0.0.7", "")
    assert keyed.timeout == 5.0
