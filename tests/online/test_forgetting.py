"""A long-running server holds the tables in play, not every game it ever served: finished
tables nobody watches are forgotten after a while and load again, whole, when asked for."""

from __future__ import annotations

import json
import random
from typing import Any

from minodice.server.lobby import Lobby
from minodice.server.room import Room, Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool


class Conn:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.sent: list[str] = []

    def send(self, text: str) -> None:
        self.sent.append(text)


async def finished_game(lobby: Lobby, rng: random.Random) -> tuple[Room, list[Conn]]:
    room, _host = await lobby.create(3, "mino", "standard", None, None, False)
    for i in range(3):
        await lobby.join(room.id, f"P{i}", None)
    conns = [Conn(i) for i in range(3)]
    for conn in conns:
        await room.connect(conn)
    table = room.table
    assert table is not None
    while not table.is_over():
        seat = rng.choice(table.to_act())
        await room.apply(seat, rng.choice(table.legal(seat)))
    return room, conns


def last_view(conn: Conn) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(conn.sent[-1])["view"]
    return view


async def test_finished_unwatched_tables_are_forgotten_and_come_back() -> None:
    now = [1000.0]
    store = Store("sqlite://")
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0,
                                                    clock=lambda: now[0]))
    rng = random.Random(5)
    try:
        left, left_conns = await finished_game(lobby, rng)
        watched, _watched_conns = await finished_game(lobby, rng)
        playing, _ = await lobby.create(3, "mino", "standard", None, None, False)
        record = json.dumps(left.record(), sort_keys=True)
        before = last_view(left_conns[1])
        for conn in left_conns:
            await left.disconnect(conn)
        now[0] += 60
        assert lobby.forget_idle(quiet_for=120) == 0  # not quiet for long enough yet
        now[0] += 61
        assert lobby.forget_idle(quiet_for=120) == 1
        assert left.id not in lobby.rooms
        assert watched.id in lobby.rooms  # someone is still connected
        assert playing.id in lobby.rooms  # not finished
        # Asked for again: loaded from the store, the same game and the same view.
        again = lobby.room(left.id)
        assert again is not left
        assert json.dumps(again.record(), sort_keys=True) == record
        conn = Conn(1)
        await again.connect(conn)
        after = last_view(conn)
        for key in ("round", "phase", "totals", "history", "winners", "commit", "fairness"):
            assert after[key] == before[key], key
        assert [p["name"] for p in after["players"]] == [p["name"] for p in before["players"]]
    finally:
        await lobby.close()
        store.close()
