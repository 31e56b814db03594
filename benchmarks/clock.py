"""How late the server's clocks act: the figures the tests no longer assert.

Tests check the order of events (the stand-in never acts before the deadline; a hung bot's
process is stopped); how late things happen depends on the machine, so it is measured here:

- **Turn clock**: a real ``minodice serve`` process, a table of one person who never acts
  and two ``random`` bots, ``turn_seconds`` 5. For each of the person's decisions, how long
  after the view's ``deadline`` the view came that shows the stand-in bot's decision.
- **Bot pool**: ``BotPool(timeout=T)`` asked for a bot that never answers (``HangingBot``
  below, an outside bot); how long after ``T`` the pool's own random answer came. Every
  new pool is warmed up outside the measure.

Run: ``python benchmarks/clock.py [--turns 8] [--hangs 5] [--timeout 1.0]``. The server is
stopped (its process group) even on errors or Ctrl+C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

from minodice.client import join
from minodice.core.actions import Action
from minodice.core.view import SeatView

TURN_SECONDS = 5
HERE = Path(__file__).resolve()


class HangingBot:
    """Never answers (an outside bot: ``benchmarks/clock.py:HangingBot``)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        time.sleep(3600)
        return legal[0]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server(folder: Path) -> Iterator[str]:
    """A ``minodice serve`` process on a free port; its base URL."""
    port = free_port()
    log = (folder / "server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "minodice", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(folder / "db.sqlite3"), "--bot-delay", "0", "--grace", "3600"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/tables", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not answer in 60 s")
            time.sleep(0.05)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        log.close()


async def turn_clock_lateness(base: str, turns: int) -> list[float]:
    """Milliseconds from each deadline to the view showing the stand-in's decision."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        created = await http.post("/api/tables", json={
            "players": 3, "bots": [None, "random", "random"], "turn_seconds": TURN_SECONDS})
        created.raise_for_status()
    ticket = await join(f"{base}/t/{created.json()['table']}", "Idle")
    late: list[float] = []
    pending: tuple[str, int] | None = None  # the turn waiting for the clock, its deadline
    async with connect(ticket.ws_url, max_size=2**22) as ws:
        while len(late) < turns:
            raw = await asyncio.wait_for(ws.recv(), TURN_SECONDS + 60)
            message = json.loads(raw)
            if message.get("type") != "view":
                continue
            now_ms = time.time() * 1000
            view = message["view"]
            if view["status"] == "finished":
                break
            if pending is not None and view["turn"] != pending[0]:
                late.append(now_ms - pending[1])
                pending = None
            if view["turn"] is not None and pending is None:
                pending = (view["turn"], view["deadline"])
    return late


async def pool_lateness(hangs: int, timeout: float) -> list[float]:
    """Milliseconds past ``timeout`` until the pool answered for a bot that never does."""
    from minodice.core.actions import Bid
    from minodice.play.table import new_table
    from minodice.server.botpool import BotPool

    logging.getLogger("minodice.server").setLevel(logging.ERROR)  # each hang is a warning
    view = new_table(4, ["Ana"], ["random"], seed=3).view(0)
    pool = BotPool(workers=1, timeout=timeout)
    late: list[float] = []
    try:
        for _ in range(hangs):
            await pool.warm_up()
            start = time.perf_counter()
            action = await pool.decide(f"{HERE}:HangingBot", view)
            late.append((time.perf_counter() - start - timeout) * 1000)
            assert isinstance(action, Bid)
    finally:
        pool.close()
    return late


def summary(name: str, values: list[float]) -> str:
    if not values:
        return f"{name}: no samples"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (f"{name}: {len(values)} samples, late by median {statistics.median(values):.0f} ms, "
            f"p90 {p90:.0f} ms, max {ordered[-1]:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=8, help="the person's decisions timed out")
    parser.add_argument("--hangs", type=int, default=5, help="hung bot decisions")
    parser.add_argument("--timeout", type=float, default=1.0, help="the bot pool's timeout (s)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, server(Path(folder)) as base:
        turns = asyncio.run(turn_clock_lateness(base, args.turns))
    print(summary(f"turn clock ({TURN_SECONDS} s)", turns))
    hangs = asyncio.run(pool_lateness(args.hangs, args.timeout))
    print(summary(f"bot pool (timeout {args.timeout:g} s)", hangs))


if __name__ == "__main__":
    main()
