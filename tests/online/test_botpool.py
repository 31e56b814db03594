"""Bots in worker processes: a crash, a hang or nonsense costs one decision, never the pool.

No assertion here reads a clock: a hung bot is shown stopped by its process being gone, not
by how soon the answer came (the timeouts below only keep a broken pool from hanging the
run, and fail with a message).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from minodice.core.actions import Bid
from minodice.core.view import SeatView
from minodice.play.table import new_table
from minodice.server.botpool import BotPool

PLUGINS = Path(__file__).resolve().parent.parent / "plugins" / "broken_bots.py"
HANG_GUARD = 120.0  # seconds: only a pool that never answers gets near this
T = TypeVar("T")


def bidding_view() -> SeatView:
    table = new_table(4, ["Ana"], ["random"], seed=3)
    return table.view(0)


async def guarded(what: str, awaitable: Awaitable[T]) -> T:
    """``awaitable``'s result; a test failure naming ``what`` if it hangs."""
    try:
        return await asyncio.wait_for(awaitable, HANG_GUARD)
    except TimeoutError:
        pytest.fail(f"{what}: no answer in {HANG_GUARD:g} s", pytrace=False)


def running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie, killed but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


async def test_a_crashing_or_hanging_bot_costs_one_decision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "hanging.pid"
    monkeypatch.setenv("MINODICE_TEST_PIDFILE", str(pidfile))  # workers inherit it
    # The timeout only has to outlast a decision of a warm worker: every fresh pool is
    # warmed up first (outside the timeout), so a slow start on a busy machine is no failure.
    pool = BotPool(workers=1, timeout=3.0)
    try:
        view = bidding_view()
        await guarded("warming up the pool", pool.warm_up())
        assert await guarded("easy", pool.decide("easy", view)) in view.legal_actions
        assert pool.failures == 0
        # os._exit in the worker: the pool is replaced, a legal action is played instead.
        killer = await guarded("KillerBot", pool.decide(f"{PLUGINS}:KillerBot", view))
        assert killer in view.legal_actions
        assert pool.failures == 1
        await guarded("warming up the new pool", pool.warm_up())
        # A bot that never answers: the pool gives up on it, plays a legal action and
        # stops the worker that hangs, with the bot's own process (which would sleep an
        # hour: an outside bot runs in a process of its own, bots/sandbox.py).
        hung = await guarded("HangingBot", pool.decide(f"{PLUGINS}:HangingBot", view))
        assert hung in view.legal_actions
        assert pool.failures == 2
        assert pidfile.exists(), "the hanging bot never ran"
        pid = int(pidfile.read_text())
        assert pid != os.getpid()
        for _ in range(int(HANG_GUARD / 0.05)):
            if not running(pid):
                break
            await asyncio.sleep(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            pytest.fail("the hanging bot's process was left running")
        await guarded("warming up the new pool", pool.warm_up())
        # Raising and illegal answers: each one decision lost, no more.
        for name in ("RaisingBot", "IllegalBot"):
            action = await guarded(name, pool.decide(f"{PLUGINS}:{name}", view))
            assert action in view.legal_actions
        assert pool.failures == 4
        # And the pool still answers good bots, several at once.
        answers = await guarded("random ×6", asyncio.gather(
            *(pool.decide("random", view) for _ in range(6))))
        assert all(a in view.legal_actions for a in answers)
        assert pool.failures == 4
    finally:
        pool.close()


@pytest.mark.parametrize("level", ["hard", "expert"])
async def test_search_bots_decide_in_a_worker_from_a_pickled_view(level: str) -> None:
    pool = BotPool(workers=1)
    try:
        view = bidding_view()
        await guarded("warming up the pool", pool.warm_up())
        action = await guarded(level, pool.decide(level, view))
        assert isinstance(action, Bid)
        assert action in view.legal_actions
        assert pool.failures == 0  # the bot's own answer, not the pool's random stand-in
    finally:
        pool.close()


SERVER_WITH_A_POOL = """
import asyncio, sys, time
from minodice.server.botpool import BotPool

async def main():
    pool = BotPool(2)
    await pool.warm_up()
    print(" ".join(str(pid) for pid in pool._pool._processes), flush=True)
    time.sleep(600)

asyncio.run(main())
"""


def test_the_workers_end_when_the_server_is_killed_outright() -> None:
    """``kill -9`` of a server leaves nobody to stop its pool: its workers must notice and
    end by themselves (they lived on for ever, 50 MB each)."""
    import subprocess
    import sys
    import time

    server = subprocess.Popen([sys.executable, "-c", SERVER_WITH_A_POOL],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        workers = [int(pid) for pid in server.stdout.readline().split()]
        assert len(workers) == 2
        for pid in workers:
            os.kill(pid, 0)  # alive
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 15
    alive = list(workers)
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in alive if _running(pid)]
    assert alive == []


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie, its exit status waiting
    for a parent's wait, has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
