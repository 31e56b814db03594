"""Bots in worker processes: a crash, a hang or nonsense costs one decision, never the pool."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from minodice.core.actions import Bid
from minodice.core.view import SeatView
from minodice.play.table import new_table
from minodice.server.botpool import BotPool

PLUGINS = Path(__file__).resolve().parent.parent / "plugins" / "broken_bots.py"


def bidding_view() -> SeatView:
    table = new_table(4, ["Ana"], ["random"], seed=3)
    return table.view(0)


async def test_a_crashing_or_hanging_bot_costs_one_decision() -> None:
    pool = BotPool(workers=1, timeout=1.5)
    try:
        view = bidding_view()
        assert await pool.decide("easy", view) in view.legal_actions
        # os._exit in the worker: the pool is replaced, a legal action is played instead.
        assert await pool.decide(f"{PLUGINS}:KillerBot", view) in view.legal_actions
        assert pool.failures == 1
        # A bot that sleeps past the timeout: answered at random after ~timeout seconds.
        start = time.monotonic()
        assert await pool.decide(f"{PLUGINS}:SlowBot", view) in view.legal_actions
        assert time.monotonic() - start < 4.5
        assert pool.failures == 2
        # Raising and illegal answers: each one decision lost, no more.
        for name in ("RaisingBot", "IllegalBot"):
            assert await pool.decide(f"{PLUGINS}:{name}", view) in view.legal_actions
        assert pool.failures == 4
        # And the pool still answers good bots, several at once.
        answers = await asyncio.gather(*(pool.decide("random", view) for _ in range(6)))
        assert all(a in view.legal_actions for a in answers)
        assert pool.failures == 4
    finally:
        pool.close()


async def test_hard_decides_in_a_worker_from_a_pickled_view() -> None:
    pool = BotPool(workers=1)
    try:
        view = bidding_view()
        action = await pool.decide("hard", view)
        assert isinstance(action, Bid)
        assert action in view.legal_actions
    finally:
        pool.close()
