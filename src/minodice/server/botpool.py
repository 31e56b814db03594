"""Bot decisions in worker processes, so that no bot stalls the server or takes it down.

A ``hard`` decision takes up to a few hundred milliseconds of CPU: run on the event loop it
would freeze every other table. Each decision goes to a worker process with the seat's
view (a :class:`~minodice.core.view.SeatView`, pickled small: the dice set travels by name)
and comes back as the action's text, which the server checks against the legal actions.
A worker that crashes, hangs past ``timeout`` or answers nonsense costs one decision: the
pool is replaced, and the seat plays a uniformly random legal action instead.

Load never counts as a hang: a pool hands a worker at most one job at a time (``workers``
slots) and the timeout starts when the job does, so work waiting its turn waits in this
process, untimed, and a pool is replaced only for a worker that crashed or ran one job past
``timeout``. The slots go round the waiting **keys** (:class:`FairSlots`), each key's jobs
in order: a table's bots ask under its creator's address (:class:`KeyedPool`), so that one
address's sixty tables of experts wait their turns among themselves, and another table's
bot waits for one job of each other address, not for all of theirs. A pool with a
``queue`` limit (the advisor's: its own workers, apart from the tables') refuses work at
once with :class:`PoolBusyError` when that many jobs already wait, instead of making
everyone wait longer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import random
import secrets
import signal
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from typing import Any, TypeVar

from minodice.bots.loading import make_bot
from minodice.bots.protocol import Bot, BotError
from minodice.core.actions import Action
from minodice.core.view import SeatView
from minodice.play.runners import DecisionRequest, PoolRunner
from minodice.server.ops import BOT_DECISIONS

log = logging.getLogger("minodice.server")
T = TypeVar("T")
#: The page's advisor answers in about 300 ms of a worker's CPU. With a third of this (as
#: until 2026-12-03) a tester asking one question again was told another best bid 1 time in
#: 4 where two bids were close; on 8 questions asked 20 times each it named the best bid of
#: a 4,000-round reference 88% of the time, now 92%, at 3.2 times the CPU
#: (benchmarks/web_advice.py, results/web-advice-2026-12-03.txt). The command line
#: simulates more still.
WEB_ADVICE_BUDGET = 30_000
WEB_ADVICE_MAX_SAMPLES = 600
#: Seconds more a job has when its worker may have to start first (a fresh interpreter
#: importing the bots takes a second or more on a busy machine: that is no hang).
SPAWN_ALLOWANCE = 30.0

_bots: dict[str, Bot] = {}


def _decide(spec: str, seat_view: SeatView, seed: int) -> str:
    """Runs in a worker: one decision of the bot ``spec`` (bots are reused per process)."""
    bot = _bots.get(spec)
    if bot is None:
        bot = _bots[spec] = make_bot(spec)
    action = bot.act(seat_view, seat_view.legal_actions, random.Random(seed))
    return str(action)


def advice_json(players: int, round_no: int, seat: int, hand: str, edition: str,
                variant: str, announced: list[int | None] | None = None,
                special_lead: str = "first-number") -> dict[str, object]:
    """Runs in a worker: the bid advisor's answer as JSON."""
    from minodice.bots.advisor import advise
    from minodice.core.rules import RuleOptions, SpecialLead

    return advise(players, round_no, seat, hand, edition, variant, announced=announced,
                  budget=WEB_ADVICE_BUDGET, max_samples=WEB_ADVICE_MAX_SAMPLES,
                  options=RuleOptions(special_lead=SpecialLead(special_lead))).to_json()


def trick_odds_json(players: int, hand: list[str], rolled: list[tuple[str, int | str]],
                    edition: str, special_lead: str = "first-number") -> dict[str, object]:
    """Runs in a worker: each die's chance to take the trick, as JSON."""
    from minodice.bots.odds import trick_odds
    from minodice.core.dice import load_dice_set
    from minodice.core.rules import SpecialLead

    return trick_odds(load_dice_set(edition), players, hand, rolled,
                      special_lead=SpecialLead(special_lead)).to_json()


class PoolBusyError(Exception):
    """The pool's queue is full (or its workers were just replaced): try again later."""


def _start_worker(niceness: int) -> None:
    """Runs in each new worker: lowers its priority if the pool should yield the CPU to the
    tables, and makes it end with the server. A server killed outright (``kill -9``, the
    OOM killer) cannot stop its pool, and a worker waits on a queue whose other end it
    holds itself: without this it lived on for ever, 50 MB each, once a server had been
    killed — under systemd the unit's cgroup ends them, by hand or in a container nothing
    did. Ctrl+C is the server's to handle, not the worker's."""
    if niceness:
        os.nice(niceness)
    # Ctrl+C goes to the whole process group, and the server stops its pools itself:
    # interrupted in its wait, every worker printed a KeyboardInterrupt traceback (plain
    # text among JSON log lines).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # held back until now (:func:`_ctrl_c_held`): a Ctrl+C that came while this worker
    # imported its modules is dropped here, ignored
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with_parent, args=(parent.sentinel,), daemon=True,
                         name="minodice-parent-watch").start()


@contextlib.contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl+C held back in this thread while a job is handed to the pool, which may start a
    worker then: the worker inherits the block, so that a Ctrl+C while it is still importing
    its modules (a second or more, before :func:`_start_worker` ignores it) does not
    interrupt it with a traceback on the server's stderr. Held, not ignored: the server
    gets a Ctrl+C of its own once this thread lets it through, or at once in another
    thread (ignored meanwhile, one handed to another thread would be lost)."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _exit_with_parent(sentinel: int) -> None:
    """Wait until the server's process has ended (its sentinel turns readable), then end
    this worker at once: there is nobody left to answer."""
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def _warm() -> int:
    """Import the bots in a fresh worker before the first real decision needs them."""
    make_bot("hard")
    return 0


#: The fairness key of the job being asked for (set by :class:`KeyedPool`; "" for jobs
#: asked directly, which share one key).
_job_key: ContextVar[str] = ContextVar("minodice_job_key", default="")


class FairSlots:
    """``slots`` slots handed out in turn to the keys that wait (round robin), each key's
    waiters first come, first served: a key with many jobs waiting takes one slot in turn
    with every other key, never all of them for as long as its queue lasts."""

    def __init__(self, slots: int) -> None:
        self.free = slots
        self.queues: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    async def acquire(self, key: str = "") -> None:
        if self.free > 0 and not self.queues:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queues.setdefault(key, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # given the slot as it was cancelled: the next one's
            else:
                queue = self.queues.get(key)
                if queue is not None and turn in queue:
                    queue.remove(turn)
                    if not queue:
                        del self.queues[key]
            raise

    def release(self) -> None:
        while self.queues:
            key, queue = next(iter(self.queues.items()))
            turn = queue.popleft()
            if queue:
                self.queues.move_to_end(key)  # its next job after every other key's
            else:
                del self.queues[key]
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class BotPool:
    """A pool of worker processes that answer bot decisions (or other pure computations).

    ``workers``: processes; ``timeout``: seconds one job may run; ``queue``: jobs that may
    wait for a worker before more are refused (``None``: no limit, for the tables' bots,
    whose every decision must be made); ``niceness``: added to the workers' scheduling
    niceness, so that a side service (the advisor) yields the CPU to the tables.
    """

    _waiting = 0  # jobs waiting for a slot (a class default for stand-ins that skip init)

    def __init__(self, workers: int = 2, timeout: float = 10.0, queue: int | None = None,
                 niceness: int = 0) -> None:
        self.workers = workers
        self.timeout = timeout
        self.queue = queue
        self.niceness = niceness
        self.failures = 0
        self.replacements = 0
        self._waiting = 0
        self._slots = FairSlots(workers)
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: a fresh interpreter, not a fork of a process running an event loop.
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker, initargs=(self.niceness,))

    @property
    def waiting(self) -> int:
        """Jobs waiting for a free worker now (the bot queue's length, for /metrics)."""
        return self._waiting

    async def warm_up(self) -> None:
        await asyncio.gather(*(self._in_worker(_warm) for _ in range(self.workers)))

    async def decide(self, spec: str, seat_view: SeatView) -> Action:
        """The bot's decision; a random legal action if the bot or its worker failed (the
        asking and checking are :class:`~minodice.play.runners.PoolRunner`'s, the guard
        every bot runner shares)."""
        seat = seat_view.seat if seat_view.seat is not None else 0
        request = DecisionRequest(seat, spec, seat_view, random.Random(secrets.randbits(64)))
        try:
            return (await PoolRunner(self, observe=BOT_DECISIONS.observe)
                    .decide_async(request)).action
        except BotError as exc:
            log.warning("%s; playing at random", exc)
        self.failures += 1
        return random.SystemRandom().choice(list(seat_view.legal_actions))

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Any pure computation in a worker (the advisor simulates for ~50–200 ms: never
        on the event loop). Raises what ``fn`` raises; ``TimeoutError`` after it ran
        ``timeout`` s; :class:`PoolBusyError` when the queue is full."""
        return await self._in_worker(fn, *args)

    async def _in_worker(self, fn: Callable[..., T], *args: Any) -> T:
        if self.queue is not None and self._waiting >= self.queue:
            raise PoolBusyError
        self._waiting += 1
        try:
            await self._slots.acquire(_job_key.get())
        finally:
            self._waiting -= 1
        try:
            for attempt in range(2):
                pool = self._pool
                started: dict[Any, Any] = getattr(pool, "_processes", None) or {}
                timeout = self.timeout + (SPAWN_ALLOWANCE if len(started) < self.workers
                                          else 0.0)
                with _ctrl_c_held():
                    future = asyncio.get_running_loop().run_in_executor(pool, fn, *args)
                try:
                    return await asyncio.wait_for(future, timeout)
                except (TimeoutError, BrokenProcessPool):
                    if pool is self._pool:  # this job's worker failed: the pool is replaced
                        self._replace()
                        raise
                    if attempt:
                        raise
                except asyncio.CancelledError:
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise  # this caller was cancelled: not the pool's doing
                    if attempt or pool is self._pool:
                        raise PoolBusyError from None
                # The job was lost with a pool replaced for another job's failure: once more
                # on the new pool (a worker that fails again is this job's own failure).
            raise AssertionError("unreachable")
        finally:
            self._slots.release()

    def _replace(self) -> None:
        old = self._pool
        self._pool = self._new_pool()
        self.replacements += 1
        processes: dict[Any, Any] = getattr(old, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()  # a hung worker would otherwise live on
        old.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        processes: dict[Any, Any] = getattr(self._pool, "_processes", None) or {}
        for process in list(processes.values()):
            process.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)


class KeyedPool:
    """A pool as one key's jobs see it (a table's bots: its creator's address, else the
    table): ``run`` asks under that key (:class:`FairSlots`); the rest is the pool's."""

    def __init__(self, pool: BotPool, key: Callable[[], str]) -> None:
        self.pool = pool
        self.key = key

    @property
    def timeout(self) -> float:
        return self.pool.timeout

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        token = _job_key.set(self.key())
        try:
            return await self.pool.run(fn, *args)
        finally:
            _job_key.reset(token)
