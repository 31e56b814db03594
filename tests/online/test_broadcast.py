"""A broadcast's shortcuts change nothing a connection receives, and the event loop's
stalls are on ``/metrics`` (issue #17: one process holding 1,000 tables).

- The room builds this round's finished tricks once a trick and shares them between the
  views of one moment; every view it sends is the view built from scratch.
- :func:`minodice.server.protocol.dumps` (orjson) writes the text ``json.dumps`` wrote.
- ``/metrics`` has the loop-lag probe's histogram and every garbage collection's pause.
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from minodice.core.view import view, views
from minodice.play.table import new_table
from minodice.server.lobby import Lobby
from minodice.server.protocol import dumps, view_message
from minodice.server.room import Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool
from .test_operations import app_on, metrics
from .test_write_faults import seated_game


def test_every_view_a_room_sends_is_the_view_built_from_scratch(tmp_path: Path) -> None:
    async def play() -> int:
        store = Store.sqlite(tmp_path / "s.sqlite3")
        lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
        rng = random.Random(3)
        compared = 0
        try:
            room, _conns = await seated_game(lobby, 4)
            table = room.table
            assert table is not None
            while True:
                facts = room.facts()
                # All of a moment's views at once (a broadcast), and in another order with
                # a seat first that is not seat 0, and each alone: the same texts.
                together = room.view_texts([None, 0, 1, 2, 3], facts)
                shuffled = rng.sample([None, 0, 1, 2, 3], 5)
                assert room.view_texts(shuffled, facts) == together
                for seat in (None, 0, 1, 2, 3):
                    fresh = view_message(facts, table.view(seat), seat,
                                         table.turn(seat) if seat is not None else None,
                                         room.row.seq)
                    alone = room.view_text(seat, facts)
                    assert json.loads(alone) == fresh
                    assert together[seat] == alone
                    assert list(json.loads(together[seat])["view"]) == list(fresh["view"])
                    compared += 1
                if table.is_over():
                    return compared
                seat = rng.choice(table.to_act())
                await room.apply(seat, rng.choice(table.legal(seat)))
                table = room.table
                assert table is not None
        finally:
            await lobby.close()
            store.close()

    assert asyncio.run(play()) > 5 * 150  # every moment of a whole 4-player game


@settings(max_examples=10, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**32))
def test_the_views_of_one_moment_built_together_are_each_seats_view(players: int,
                                                                     seed: int) -> None:
    """``views`` builds the public part once for all seats: each result must still be the
    view built for that seat alone, hidden dice and secret bids included."""
    rng = random.Random(seed)
    table = new_table(players, [f"P{i}" for i in range(players)], ["random"], seed=seed)
    state = table.game_state()
    seats: list[int | None] = [None, *range(players)]
    while True:
        together = views(state, rng.sample(seats, len(seats)))
        assert together == {seat: view(state, seat) for seat in seats}
        if table.is_over():
            return
        seat = rng.choice(table.to_act())
        table.act(seat, rng.choice(table.legal(seat)))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner,
                                                                 max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_dumps_writes_what_json_dumps_wrote(value: Any) -> None:
    assert dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_dumps_falls_back_for_what_orjson_refuses() -> None:
    huge = {"n": 2**70}
    assert dumps(huge) == '{"n":1180591620717411303424}'


def test_metrics_show_the_event_loops_lag_and_the_collections_pauses(tmp_path: Path) -> None:
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    with TestClient(app_on(store)) as client:
        before = metrics(client)
        gc.collect()  # a full collection in this process: one pause of generation 2
        time.sleep(0.3)  # the probe wakes every 50 ms
        after = metrics(client)

    def count(name: str, labels: tuple[tuple[str, str], ...] = ()) -> float:
        return after.get((name, labels), 0.0) - before.get((name, labels), 0.0)

    assert count("minodice_event_loop_lag_seconds_count") >= 2
    assert count("minodice_gc_pause_seconds_count", (("generation", "2"),)) >= 1
    assert after[("minodice_gc_pause_seconds_sum", (("generation", "2"),))] > 0
