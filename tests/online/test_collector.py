"""The server's garbage-collector upkeep: long-lived objects frozen out of the frequent
collections, and dead cycles among them reclaimed at the next sweep, never lost."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref

from minodice.server.collector import keep_collections_short


class Node:
    """An object in a reference cycle: only the garbage collector can free it."""

    def __init__(self) -> None:
        self.me = self


async def test_frozen_between_sweeps_and_reclaimed_at_the_sweep() -> None:
    now = [0.0]
    alive = Node()
    ref = weakref.ref(alive)
    task = asyncio.create_task(keep_collections_short(0.01, 100.0, clock=lambda: now[0]))
    try:
        await asyncio.sleep(0.05)
        assert gc.get_freeze_count() > 0  # what was alive is frozen
        del alive
        await asyncio.sleep(0.05)
        gc.collect()  # an ordinary collection does not walk frozen objects
        assert ref() is not None
        now[0] = 200.0  # the sweep is due
        for _ in range(100):
            await asyncio.sleep(0.01)
            if ref() is None:
                break
        assert ref() is None  # the dead cycle was reclaimed after all
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert gc.get_freeze_count() == 0  # stopped: the collector is as it was


async def test_off_leaves_the_collector_alone() -> None:
    await keep_collections_short(0)
    assert gc.get_freeze_count() == 0
