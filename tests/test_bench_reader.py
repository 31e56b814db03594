"""The load processes of ``benchmarks/server.py`` (and ``cluster_bench.py``) read views as
plain JSON, not through the wire models: they stand for clients on other machines, and
validating some 2,000 views a second would take the cores the server is measured on. Their
latency is only as right as that reading: ``decisions_made`` must count, from the JSON a
seat receives, exactly the decisions that seat has made, at every moment of a game."""

from __future__ import annotations

import random
from typing import Literal

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark_scripts import load_benchmark
from minodice.play.table import new_table
from minodice.server.protocol import TableFacts, history_message, view_text

bench = load_benchmark("server")


@settings(max_examples=6, deadline=None)
@given(st.integers(3, 6), st.integers(0, 2**32))
def test_a_load_process_counts_each_seats_decisions_from_the_json_it_receives(
        players: int, seed: int) -> None:
    rng = random.Random(seed)
    table = new_table(players, [f"P{i}" for i in range(players)], ["random"], seed=seed)
    made = [0] * players
    while True:
        status: Literal["finished", "playing"] = "finished" if table.is_over() else "playing"
        facts = TableFacts("abcdefgh23", status, "mino", "standard",
                           [{"name": n, "bot": None, "connected": True, "autoplay": None}
                            for n in table.names], None, "c" * 64, table.to_act(), None, {})
        for seat in range(players):
            seat_view = table.view(seat)
            text = view_text(facts, seat_view, seat, table.turn(seat), 1,
                             orjson.dumps(history_message(seat_view)).decode())
            view = orjson.loads(text)["view"]
            assert bench.decisions_made(view, seat) == made[seat]
        if table.is_over():
            return
        seat = rng.choice(table.to_act())
        table.act(seat, rng.choice(table.legal(seat)))
        made[seat] += 1
