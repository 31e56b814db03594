"""How a bot is asked for one decision: one protocol, three ways to run a bot, one guard.

Before this module a bot was asked five ways with five guards (the table's own check, the
terminal's guard, a Unix timer in tournaments, the server's worker pool, the sandbox). Here a
:class:`BotRunner` answers a :class:`DecisionRequest` (seat, bot, the seat's view, its
generator, a time limit) with a :class:`Decision`, and whatever goes wrong — the bot raises,
returns something that is not one of the legal actions, or takes longer than the limit — is
*one* outcome: :class:`~minodice.bots.protocol.BotError` naming the bot and the seat. What
then happens is the caller's choice (:class:`~minodice.play.driver.Driver`'s
``on_bot_error``): a tournament stops the game, a server plays a random legal action.

- :class:`InProcessRunner`: our own bots in this process (fast; a hang is cut by a Unix timer
  when asked synchronously in the main thread, by abandoning the thread when asked
  asynchronously — a thread cannot be killed, so only trusted bots run this way);
- :class:`SandboxRunner`: outside bots, each in a child process of its own
  (:mod:`minodice.bots.sandbox`), whose clock is kept here and which is killed when late;
- :class:`PoolRunner`: bots in the server's worker processes
  (:class:`~minodice.server.botpool.BotPool`), which are replaced when one hangs or dies;
- :class:`PerSeatRunner`: a runner per seat (a tournament seating our bots beside outside
  ones).

Runners live here, outside the strategies' folder (``bots/``), which holds only strategies
and the bot interface.
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from minodice.bots.loading import make_bot
from minodice.bots.protocol import Bot, BotError, not_an_action
from minodice.core.actions import Action, Bid, Roll, parse_action
from minodice.core.view import SeatView
from minodice.text.safe import printable

if TYPE_CHECKING:
    from minodice.bots.sandbox import SandboxedBot
    from minodice.play.table import Table


class DecisionRequest:
    """One decision asked of a bot: ``bot`` names it (a spec such as ``hard``, or a label
    for a bot object given to the runner) in every error.

    ``source`` is the table the seat plays at, or the seat's view itself; the view is built
    only if the runner needs it (a random player does not), and an asynchronous runner
    builds it before it waits, so that it is the view of the moment it was asked.
    (A plain class with slots: a simulation makes one a decision, millions a minute.)
    """

    __slots__ = ("_legal", "_view", "bot", "rng", "seat", "source", "time_limit")

    def __init__(self, seat: int, bot: str, source: Table | SeatView, rng: random.Random,
                 time_limit: float | None = None) -> None:
        self.seat = seat
        self.bot = bot
        self.source = source
        self.rng = rng
        self.time_limit = time_limit
        self._legal: tuple[Action, ...] | None = None
        self._view: SeatView | None = None

    @property
    def view(self) -> SeatView:
        if self._view is None:
            source = self.source
            self._view = source if isinstance(source, SeatView) else source.view(self.seat)
        return self._view

    @property
    def legal(self) -> tuple[Action, ...]:
        if self._legal is None:
            self._legal = (self.source.legal_actions if isinstance(self.source, SeatView)
                           else self.source.legal(self.seat))
        return self._legal

    @property
    def who(self) -> str:
        return f"bot {self.bot!r} (seat {self.seat + 1})"

    def __repr__(self) -> str:
        return f"<DecisionRequest seat {self.seat} bot {self.bot!r}>"


class Decision(NamedTuple):
    """A bot's checked answer, and how long it took (seconds, for reports only)."""

    action: Action
    seconds: float


class BotRunner(Protocol):
    """Asks bots for decisions; every failure is a :class:`BotError` naming bot and seat."""

    def decide(self, request: DecisionRequest) -> Decision:
        """Ask and wait (blocking): tournaments, simulations."""
        ...

    async def decide_async(self, request: DecisionRequest) -> Decision:
        """Ask without blocking the event loop: servers, the terminal."""
        ...

    def close(self) -> None:
        """End whatever the runner started (processes); idempotent."""
        ...


def checked(request: DecisionRequest, action: object) -> Action:
    """``action`` if it is one of the request's legal actions; else the one BotError."""
    if isinstance(action, Bid | Roll) and action in request.legal:
        return action
    if not isinstance(action, Bid | Roll):
        raise BotError(not_an_action(request.who, printable(repr(action)[:200]),
                                     type(action).__name__,
                                     request.legal))
    shown = ", ".join(str(a) for a in request.legal)
    raise BotError(f"{request.who} returned {action!r}, which is not legal here "
                   f"(legal: {shown})")


def late(request: DecisionRequest) -> BotError:
    return BotError(f"{request.who} took longer than {request.time_limit:g} s for one "
                    "decision")


def failed(request: DecisionRequest, exc: BaseException) -> BotError:
    what = "tried to exit" if isinstance(exc, SystemExit) else (
        f"raised {type(exc).__name__}: {exc}")
    return BotError(f"{request.who} {what}")


# -- in this process -------------------------------------------------------------------------


class _DecisionTimeoutError(BaseException):
    """Raised inside a bot that overran its time. A BaseException, so that a bot's own
    ``except Exception`` cannot swallow it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _DecisionTimeoutError


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (Unix timers, main thread only; elsewhere the
    time is checked once the bot answers)."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return
    try:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
    except ValueError:  # not the main thread: no timers there
        yield
        return
    # Fires again every ``seconds`` until the block ends, in case a bot swallows it anyway.
    signal.setitimer(signal.ITIMER_REAL, seconds, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class InProcessRunner:
    """Bots in this process: ``bots`` given by (seat, name), the others made by
    :func:`~minodice.bots.protocol.make_bot` from the request's spec on first use (one per
    seat and spec, kept for the game: a bot may remember the rounds it saw)."""

    def __init__(self, bots: Mapping[tuple[int, str], Bot] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._bots: dict[tuple[int, str], Bot] = dict(bots or {})
        self._clock = clock

    def bot_for(self, request: DecisionRequest) -> Bot:
        key = (request.seat, request.bot)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = make_bot(request.bot)
        return bot

    def decide(self, request: DecisionRequest) -> Decision:
        bot = self.bot_for(request)
        view, legal = request.view, request.legal
        start = self._clock()
        try:
            with _time_limit(request.time_limit):
                action = bot.act(view, legal, request.rng)
        except _DecisionTimeoutError:
            raise late(request) from None
        except BotError:
            raise
        except (Exception, SystemExit) as exc:
            raise failed(request, exc) from exc  # the bot's traceback, for a bug report
        elapsed = self._clock() - start
        if request.time_limit and elapsed > request.time_limit:
            raise BotError(f"{request.who} took {elapsed:.2f} s for one decision "
                           f"(limit {request.time_limit:g} s)")
        return Decision(checked(request, action), elapsed)

    async def decide_async(self, request: DecisionRequest) -> Decision:
        request.view  # noqa: B018 - the view of the moment asked, built before waiting
        work = asyncio.to_thread(self.decide, request)
        if not request.time_limit:
            return await work
        try:
            return await asyncio.wait_for(work, request.time_limit)
        except TimeoutError:
            raise late(request) from None  # the thread runs on unseen: only our bots here

    def close(self) -> None:
        self._bots.clear()


# -- in a process of its own ------------------------------------------------------------------


class SandboxRunner:
    """Outside bots, each seat's in a child process (:mod:`minodice.bots.sandbox`); the
    child is killed when late and the bot named, as for every other failure."""

    def __init__(self, bots: Mapping[tuple[int, str], SandboxedBot] | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._bots: dict[tuple[int, str], SandboxedBot] = dict(bots or {})
        self._clock = clock

    def bot_for(self, request: DecisionRequest) -> SandboxedBot:
        from minodice.bots.sandbox import SandboxedBot

        key = (request.seat, request.bot)
        bot = self._bots.get(key)
        if bot is None:
            bot = self._bots[key] = SandboxedBot(request.bot, request.time_limit)
        return bot

    def decide(self, request: DecisionRequest) -> Decision:
        bot = self.bot_for(request)
        start = self._clock()
        action = bot.decide(request.view, request.legal, request.rng, request.time_limit)
        return Decision(checked(request, action), self._clock() - start)

    async def decide_async(self, request: DecisionRequest) -> Decision:
        request.view  # noqa: B018 - the view of the moment asked, built before waiting
        return await asyncio.to_thread(self.decide, request)  # the sandbox keeps the clock

    def close(self) -> None:
        bots, self._bots = list(self._bots.values()), {}
        for bot in bots:
            bot.close()


# -- in the server's worker processes ---------------------------------------------------------


class WorkerPool(Protocol):
    """Worker processes (:class:`~minodice.server.botpool.BotPool`): ``run`` raises
    ``TimeoutError`` for a job that ran past ``timeout`` seconds and ``BrokenProcessPool``
    for a worker that died, having replaced the workers itself."""

    @property
    def timeout(self) -> float: ...

    async def run(self, fn: Callable[..., str], *args: Any) -> str: ...


_worker_bots: dict[str, Bot] = {}


def decide_in_worker(spec: str, seat_view: SeatView, seed: int) -> str:
    """Runs in a worker: one decision of the bot ``spec`` as text (bots are reused per
    process); the asking side parses and checks it."""
    bot = _worker_bots.get(spec)
    if bot is None:
        bot = _worker_bots[spec] = make_bot(spec)
    return str(bot.act(seat_view, seat_view.legal_actions, random.Random(seed)))


class PoolRunner:
    """Bots in a :class:`~minodice.server.botpool.BotPool`'s workers: a worker that runs
    one decision past the pool's ``timeout`` or dies costs this decision (the pool replaces
    it). The bot's generator gives the worker its seed. Asked from an event loop only."""

    def __init__(self, pool: WorkerPool, clock: Callable[[], float] = time.perf_counter,
                 observe: Callable[[float], None] | None = None) -> None:
        """``observe``: given each decision's seconds, queue wait included, failed or not
        (the server's ``minodice_bot_decision_seconds``)."""
        self.pool = pool
        self._clock = clock
        self._observe = observe

    def decide(self, request: DecisionRequest) -> Decision:
        raise BotError(f"{request.who}: a worker pool is asked from an event loop")

    async def decide_async(self, request: DecisionRequest) -> Decision:
        start = self._clock()
        try:
            return await self._decide_async(request, start)
        finally:
            if self._observe is not None:
                self._observe(self._clock() - start)

    async def _decide_async(self, request: DecisionRequest, start: float) -> Decision:
        view = request.view
        try:
            text = await self.pool.run(decide_in_worker, request.bot, view,
                                       request.rng.getrandbits(64))
        except TimeoutError:
            raise BotError(f"{request.who} took longer than {self.pool.timeout:g} s for one "
                           "decision") from None
        except BrokenProcessPool:
            raise BotError(f"{request.who}: its worker process ended") from None
        except BotError:
            raise
        except Exception as exc:  # the bot's own exception, raised in the worker
            raise failed(request, exc) from None
        try:
            if not isinstance(text, str):
                raise ValueError
            action: object = parse_action(view.dice_set, text)
        except ValueError:
            action = text
        return Decision(checked(request, action), self._clock() - start)

    def close(self) -> None:
        """The pool is its owner's (the server shares one among all tables)."""


# -- a runner per seat -----------------------------------------------------------------------


class PerSeatRunner:
    """Each seat's decisions to its own runner; seats not named go to ``default``."""

    def __init__(self, runners: Mapping[int, BotRunner], default: BotRunner) -> None:
        self.runners = dict(runners)
        self.default = default

    def _for(self, request: DecisionRequest) -> BotRunner:
        return self.runners.get(request.seat, self.default)

    def decide(self, request: DecisionRequest) -> Decision:
        return self._for(request).decide(request)

    async def decide_async(self, request: DecisionRequest) -> Decision:
        return await self._for(request).decide_async(request)

    def close(self) -> None:
        for runner in {id(r): r for r in [*self.runners.values(), self.default]}.values():
            runner.close()
