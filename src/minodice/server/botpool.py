"""Bot decisions in worker processes, so that no bot stalls the server or takes it down.

A ``hard`` decision takes up to a few hundred milliseconds of CPU: run on the event loop it
would freeze every other table. Each decision goes to a worker process with the seat's
view (a :class:`~minodice.core.view.SeatView`, pickled small: the dice set travels by name)
and comes back as the action's text, which the server checks against the legal actions.
A worker that crashes, hangs past ``timeout`` or answers nonsense costs one decision: the
pool is replaced, and the seat plays a uniformly random legal action instead.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
import secrets
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from minodice.bots.protocol import Bot, make_bot
from minodice.core.actions import Action, parse_action
from minodice.core.view import SeatView

log = logging.getLogger("minodice.server")
T = TypeVar("T")
#: The page's advisor answers within ~100 ms: fewer simulated dice than the command line's.
WEB_ADVICE_BUDGET = 8000
WEB_ADVICE_MAX_SAMPLES = 300

_bots: dict[str, Bot] = {}


def _decide(spec: str, seat_view: SeatView, seed: int) -> str:
    """Runs in a worker: one decision of the bot ``spec`` (bots are reused per process)."""
    bot = _bots.get(spec)
    if bot is None:
        bot = _bots[spec] = make_bot(spec)
    action = bot.act(seat_view, seat_view.legal_actions, random.Random(seed))
    return str(action)


def advice_json(players: int, round_no: int, seat: int, hand: str, edition: str,
                variant: str, announced: list[int | None] | None = None) -> dict[str, object]:
    """Runs in a worker: the bid advisor's answer as JSON."""
    from minodice.bots.advisor import advise

    return advise(players, round_no, seat, hand, edition, variant, announced=announced,
                  budget=WEB_ADVICE_BUDGET, max_samples=WEB_ADVICE_MAX_SAMPLES).to_json()


def trick_odds_json(players: int, hand: list[str], rolled: list[tuple[str, int | str]],
                    edition: str) -> dict[str, object]:
    """Runs in a worker: each die's chance to take the trick, as JSON."""
    from minodice.bots.odds import trick_odds
    from minodice.core.dice import load_dice_set

    return trick_odds(load_dice_set(edition), players, hand, rolled).to_json()


def _warm() -> int:
    """Import the bots in a fresh worker before the first real decision needs them."""
    make_bot("hard")
    return 0


class BotPool:
    """A pool of worker processes that answer bot decisions."""

    def __init__(self, workers: int = 2, timeout: float = 10.0) -> None:
        self.workers = workers
        self.timeout = timeout
        self.failures = 0
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: a fresh interpreter, not a fork of a process running an event loop.
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))

    async def warm_up(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self._pool, _warm)
                               for _ in range(self.workers)))

    async def decide(self, spec: str, seat_view: SeatView) -> Action:
        """The bot's decision; a random legal action if the bot or its worker failed."""
        legal = seat_view.legal_actions
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._pool, _decide, spec, seat_view,
                                          secrets.randbits(64))
            text = await asyncio.wait_for(future, self.timeout)
            action = parse_action(seat_view.dice_set, text)
            if action in legal:
                return action
            log.warning("bot %s answered %r, which is not legal; playing at random", spec,
                        text[:40])
        except (TimeoutError, BrokenProcessPool) as exc:
            log.warning("bot %s failed (%s); replacing the workers", spec,
                        type(exc).__name__)
            self._replace()
        except Exception as exc:  # a bot's own exception, raised in the worker
            log.warning("bot %s raised %s; playing at random", spec, type(exc).__name__)
        self.failures += 1
        return random.SystemRandom().choice(list(legal))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Any pure computation in a worker (the advisor simulates for ~50–200 ms: never
        on the event loop). Raises what ``fn`` raises; ``TimeoutError`` after ``timeout``."""
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, fn, *args)
        try:
            return await asyncio.wait_for(future, self.timeout)
        except (TimeoutError, BrokenProcessPool):
            self._replace()
            raise

    def _replace(self) -> None:
        old = self._pool
        self._pool = self._new_pool()
        processes: dict[Any, Any] = getattr(old, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()  # a hung worker would otherwise live on
        old.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        processes: dict[Any, Any] = getattr(self._pool, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)
