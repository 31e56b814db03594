"""The server's garbage-collector upkeep: long-lived objects frozen out of the frequent
collections, and dead cycles among them reclaimed at the next sweep, never lost."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import weakref
from pathlib import Path

from minodice.server.collector import keep_collections_short
from minodice.server.lobby import Lobby
from minodice.server.room import Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool


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


class SilentConn:
    """A connection that takes its views and keeps nothing (no cycles of its own)."""

    def __init__(self, seat: int) -> None:
        self.seat: int | None = seat

    def send(self, text: str) -> None:
        pass


async def test_moves_make_no_cyclic_garbage(tmp_path: Path) -> None:
    """Why freezing every second keeps no more garbage for the sweep than every 5 s: what a
    move leaves behind is freed by reference counting, never by the collector (so a move's
    objects frozen while alive are freed all the same when the table moves on)."""
    store = Store.sqlite(tmp_path / "s.sqlite3")
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    rooms = []
    for _ in range(10):
        room, _host = await lobby.create(4, "mino", "standard", None, None, False)
        for i in range(4):
            await lobby.join(room.id, f"P{i}", None)
        for i in range(4):
            await room.connect(SilentConn(i))
        rooms.append(room)
    rng = random.Random(7)
    moves = 0
    gc.collect()
    gc.disable()
    try:
        for k in range(600):
            table = rooms[k % len(rooms)].table
            assert table is not None
            if table.is_over():
                continue
            seat = table.to_act()[0]
            await rooms[k % len(rooms)].apply(seat, rng.choice(table.legal(seat)))
            moves += 1
        found = gc.collect()
    finally:
        gc.enable()
        store.close()
    assert moves > 500
    assert found == 0
