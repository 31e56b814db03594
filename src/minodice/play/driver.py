"""The game driver: who acts next, asking a person or a bot, applying, and the clocks.

Every front end used to write this loop itself (the server's room, the terminal, the
tournament's match, ``simulate``, the client). A :class:`Driver` owns it once, on top of a
:class:`~minodice.play.table.Table` (which applies moves and rolls the dice):

- **who a seat is**: a person, a bot (the seat's spec), or a *stand-in* — the bot that plays
  for a person who has been away longer than the grace period (:meth:`Driver.away`,
  :meth:`Driver.back`), or whose clock ran out;
- **asking**: bots through a :class:`~minodice.play.runners.BotRunner`, with one guard; a
  failing bot is a :class:`~minodice.bots.protocol.BotError` naming it, and ``on_bot_error``
  says what then happens (:data:`STOP` the game — tournaments — or play a random legal
  action — servers);
- **applying**: a person's decision comes in through :meth:`Driver.act`; with a ``commit``
  hook the move is made on a fork of the table (:meth:`Table.fork`), the hook writes it,
  and only then does the table take it (:meth:`Table.adopt`). A hook that raises leaves the
  table as it was: a person's :meth:`act` raises it to the caller, a bot's or the clock's
  move is tried again ``retry_after`` seconds later;
- **time**: deadlines (``turn_seconds`` a decision; all bids of a round share one), the grace
  period after a disconnection, the pause before a bot acts and retries all run on an
  injected :class:`Scheduler`: :class:`AsyncioScheduler` in real programs,
  :class:`FakeScheduler` in tests, which move time by hand (no sleeping tests);
- **pace**: an owner that shows every move before the next one is made (the terminal, with
  its roll animation and "Enter continues") gives ``pace``, awaited before each bot
  decision: the bots wait there until it has shown what happened; which seat is asked is
  decided after it, so that people who decide meanwhile go first;
- **what happened**: a typed stream of events (:data:`DriverEvent`) to ``listeners``: the
  table's own (dealt, bid made, bids revealed, rolled, trick won, round scored, game over)
  and the driver's (deadline armed or expired, seat away, back or stood in for, a bot's
  decision, a bot failed, a write failed, and :class:`Crashed` — a bug that ended one of
  the driver's tasks, which would otherwise vanish with the task).
  :class:`~minodice.play.table.Dealt` and :class:`~minodice.play.table.BidMade` are secret:
  the stream is for the table's owner, never to be forwarded to a seat as it is.

Two ways to run: :meth:`Driver.run` plays synchronously while only bots are asked (a
tournament, ``simulate``: no event loop, no copies of the table); the asynchronous methods
(:meth:`start`, :meth:`act`, :meth:`kick`, :meth:`away`, :meth:`back`) serve a table with
people on it.

How the server's ``Room`` uses it: the room keeps transport, persistence and broadcast. It
makes a driver with a
:class:`~minodice.play.runners.PoolRunner` on its ``BotPool``, ``on_bot_error=RANDOM``,
its ``turn_seconds``/``grace``/``bot_delay`` as :class:`Clocks`, and ``commit`` = its write
(``store.save_async`` of the fork's primary events with the next ``seq``) — the driver calls
it under the lock it is given (the room's own ``lock``, which its chat and connections take
too; the hook must not take it again; :meth:`Driver.start` with ``locked=True`` when the
room holds it already, as when the last seat is taken and the deal is in the same write);
``on_change`` broadcasts the views once a move is taken and its clock armed, and a
listener writes the presence events (``autoplay``). :attr:`Driver.deadline` is what the
room's views show.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import random
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from minodice.bots.protocol import BotError
from minodice.core.actions import Action
from minodice.core.errors import MinodiceError
from minodice.core.view import SeatView
from minodice.play.runners import BotRunner, DecisionRequest
from minodice.play.table import Event, Table

# -- time ---------------------------------------------------------------------------------------


class Timer(Protocol):
    def cancel(self) -> None: ...


class Scheduler(Protocol):
    """A clock and timers: everything the driver knows of time."""

    def now(self) -> float:
        """Seconds (what deadlines are told in)."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        ...

    async def sleep(self, seconds: float) -> None:
        ...


class AsyncioScheduler:
    """The running event loop's timers; ``now`` from ``clock`` (wall time by default, as a
    deadline shown to a player is a moment, not a span)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    def now(self) -> float:
        return self.clock()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _FakeTimer:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeScheduler:
    """Time that moves only when told (:meth:`advance`): timers fire in order, each at its
    own moment, so a test says "60 seconds later" and sees what follows, at once."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._timers: list[tuple[float, int, _FakeTimer]] = []
        self._order = itertools.count()
        self.sleeping: set[asyncio.Future[None]] = set()  # sleeps not yet over

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _FakeTimer(self._now + max(delay, 0.0), callback)
        heapq.heappush(self._timers, (timer.when, next(self._order), timer))
        return timer

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            self.sleeping.discard(future)
            if not future.done():
                future.set_result(None)

        self.sleeping.add(future)
        self.call_later(seconds, wake)
        try:
            await future
        finally:
            self.sleeping.discard(future)

    def pending(self) -> list[float]:
        """When the timers still to fire will (for tests)."""
        return sorted(t.when for _, _, t in self._timers if not t.cancelled)

    def advance(self, seconds: float) -> None:
        """Move time on by ``seconds``, firing every timer due on the way."""
        target = self._now + seconds
        while self._timers and self._timers[0][0] <= target:
            when, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self._now = when
            timer.callback()
        self._now = target


# -- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeadlineArmed:
    turn: str
    at: float  # scheduler time


@dataclass(frozen=True)
class DeadlineExpired:
    turn: str
    seats: tuple[int, ...]  # the people the stand-in now decides for


@dataclass(frozen=True)
class SeatAway:
    seat: int
    stand_in_at: float | None  # when the stand-in takes over (None: never)


@dataclass(frozen=True)
class SeatBack:
    seat: int


@dataclass(frozen=True)
class StandingIn:
    """The stand-in bot plays for a person away past the grace period."""

    seat: int
    bot: str


@dataclass(frozen=True)
class BotDecided:
    seat: int
    bot: str
    action: Action
    seconds: float


@dataclass(frozen=True)
class BotFailed:
    seat: int
    error: str
    fallback: Action | None  # what was played instead (None: the game stopped)


@dataclass(frozen=True)
class CommitFailed:
    """The owner's write refused a move; the table is as it was."""

    seat: int
    error: str


@dataclass(frozen=True)
class Crashed:
    """A bug (no bot's failure: that is :class:`BotFailed`) ended one of the driver's tasks;
    the error itself, traceback and all, for the owner's bug log. The game waits: the next
    :meth:`Driver.kick` tries again."""

    error: BaseException


DriverEvent = (Event | DeadlineArmed | DeadlineExpired | SeatAway | SeatBack | StandingIn
               | BotDecided | BotFailed | CommitFailed | Crashed)


# -- settings -----------------------------------------------------------------------------------


class OnBotError(Enum):
    STOP = "stop"      # raise the BotError: the game ends (tournaments)
    RANDOM = "random"  # play a uniformly random legal action instead (servers)


STOP = OnBotError.STOP
RANDOM = OnBotError.RANDOM


@dataclass(frozen=True)
class Clocks:
    """The driver's times, in seconds (``None``: no such clock)."""

    turn_seconds: float | None = None  # a decision's deadline; all bids of a round share one
    grace: float | None = None         # away this long, a person is played by the stand-in
    bot_delay: float = 0.0             # pause before a bot acts, so that people can follow
    retry_after: float = 1.0           # before a move whose write failed is tried again


class SeatKind(Enum):
    PERSON = "person"
    BOT = "bot"
    STAND_IN = "stand-in"  # a person's seat, played by the stand-in bot while away


class DriverError(MinodiceError):
    """A decision the game does not wait for (not this seat's turn, or a stale turn)."""


Commit = Callable[[Table, list[Event]], Awaitable[None]]
Pace = Callable[[], Awaitable[None]]
Listener = Callable[[DriverEvent], None]
BotRng = Callable[[int], random.Random]


class Driver:
    """Drives one table (see the module docstring)."""

    def __init__(
        self,
        table: Table,
        runner: BotRunner,
        *,
        scheduler: Scheduler | None = None,
        commit: Commit | None = None,
        clocks: Clocks = Clocks(),
        stand_in: str = "easy",
        on_bot_error: OnBotError = STOP,
        time_limit: float | None = None,
        bot_rng: BotRng | None = None,
        fallback_rng: random.Random | None = None,
        listeners: Iterable[Listener] = (),
        lock: asyncio.Lock | None = None,
        pace: Pace | None = None,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.table = table
        self.runner = runner
        self.scheduler: Scheduler = scheduler or AsyncioScheduler()
        self.commit = commit
        self.clocks = clocks
        self.stand_in = stand_in
        self.on_bot_error = on_bot_error
        self.time_limit = time_limit
        self.bot_rng: BotRng = bot_rng or table.bot_rng
        self.fallback_rng = fallback_rng or random.SystemRandom()
        self.listeners = list(listeners)
        self.pace = pace
        self.on_change = on_change  # a move was taken and its clock armed (a room broadcasts)
        self.deadline: float | None = None
        self.failure: BotError | None = None  # the error that stopped the game (STOP)
        self.closed = False
        self._deadline_turn: str | None = None
        self._clock: Timer | None = None
        self._away: dict[int, Timer | None] = {}
        self._standing_in: set[int] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._pumping = False
        self._lock = lock or asyncio.Lock()  # the owner's, if its other changes share it

    # -- who ------------------------------------------------------------------------------------

    def kind(self, seat: int) -> SeatKind:
        if self.table.seats[seat].bot is not None:
            return SeatKind.BOT
        return SeatKind.STAND_IN if seat in self._standing_in else SeatKind.PERSON

    def bot_of(self, seat: int) -> str | None:
        """The bot that decides for ``seat`` now (None: a person does)."""
        kind = self.kind(seat)
        if kind is SeatKind.BOT:
            return self.table.seats[seat].bot
        return self.stand_in if kind is SeatKind.STAND_IN else None

    def waiting_for(self) -> list[int]:
        """The seats the game waits for (from the round's start player)."""
        return [] if self.failure is not None else self.table.to_act()

    def _next_bot_seat(self) -> int | None:
        return next((s for s in self.waiting_for() if self.bot_of(s) is not None), None)

    def _emit(self, events: Iterable[DriverEvent]) -> None:
        for event in events:
            for listener in self.listeners:
                listener(event)

    # -- asking a bot ---------------------------------------------------------------------------

    def _request(self, seat: int, bot: str, snapshot: bool = False) -> DecisionRequest:
        """A decision for ``bot``; with ``snapshot``, of the seat's view as it is now.

        A bot asked without blocking thinks while people act: the table moves on under it.
        Its answer must be checked against the decision it was asked (and dropped as stale
        if the game is past it), never against a later one, whose legal actions it does
        not know; so the request reads its view and legal actions at once, not when the
        runner first looks."""
        source: Table | SeatView = self.table.view(seat) if snapshot else self.table
        return DecisionRequest(seat, bot, source, self.bot_rng(seat), self.time_limit)

    def _failed(self, seat: int, error: BotError, request: DecisionRequest) -> Action:
        """What the seat plays after its bot failed (a random legal action of the decision
        it was asked), or the error again (STOP)."""
        # the table's people are told which bot failed and why, never what it printed (its
        # own dice, for all they know); a run that stops on it raises the whole error
        if self.on_bot_error is STOP:
            self.failure = error
            self._emit([BotFailed(seat, error.without_output(), None)])
            raise error
        fallback = self.fallback_rng.choice(list(request.legal))
        self._emit([BotFailed(seat, error.without_output(), fallback)])
        return fallback

    def _decided(self, seat: int, bot: str, request: DecisionRequest,
                 ask: Callable[[DecisionRequest], Any]) -> Action:
        try:
            decision = ask(request)
        except BotError as error:
            return self._failed(seat, error, request)
        self._emit([BotDecided(seat, bot, decision.action, decision.seconds)])
        action: Action = decision.action
        return action

    # -- synchronous: only bots -----------------------------------------------------------------

    def run(self) -> None:
        """Play, blocking, until the game is over or waits for a person. Without a commit
        hook: the table changes in place (a tournament makes no copies)."""
        if self.commit is not None:
            raise DriverError("a driver that commits its moves runs on an event loop")
        table = self.table
        if not table.started:
            self._emit(table.start())
        if not self.listeners:
            self._run_quietly()
            return
        while (seat := self._next_bot_seat()) is not None:
            bot = self.bot_of(seat)
            assert bot is not None
            action = self._decided(seat, bot, self._request(seat, bot), self.runner.decide)
            self._emit(table.act(seat, action))

    def _run_quietly(self) -> None:
        """:meth:`run` for nobody listening: no events built, seats looked up once (a
        blocking run cannot see anyone leave or come back)."""
        table, decide, bot_rng, limit = self.table, self.runner.decide, self.bot_rng, \
            self.time_limit
        bots = [self.bot_of(seat) for seat in range(table.players)]
        while self.failure is None and (seat := table.next_to_act()) is not None:
            bot = bots[seat]
            if bot is None:
                return  # a person's decision
            request = DecisionRequest(seat, bot, table, bot_rng(seat), limit)
            try:
                action = decide(request).action
            except BotError as error:
                action = self._failed(seat, error, request)
            table.play_quietly(seat, action)

    # -- asynchronous: people and bots ----------------------------------------------------------

    async def start(self, *, locked: bool = False) -> None:
        """Deal the first round (through the commit hook) and let the bots begin;
        ``locked``: the caller holds the driver's lock already (the owner writes other
        changes with the deal, in one write)."""
        if locked:
            if not self.table.started:
                await self._apply(None, None)
        else:
            async with self._lock:
                if self.table.started:
                    return
                await self._apply(None, None)
        self._changed()

    def resume(self) -> None:
        """A table taken up again as it was (loaded from a store): arm its clock and let
        its bots act."""
        self._changed()

    async def act(self, seat: int, action: Action, turn: str | None = None) -> list[Event]:
        """A person's decision. :class:`DriverError` if the game does not wait for it (or
        ``turn`` is not the current one), ``IllegalActionError`` if the rules forbid it,
        and whatever the commit hook raised if the write failed — in each case the table
        is as it was."""
        async with self._lock:
            if seat not in self.waiting_for():
                raise DriverError(f"the game does not wait for seat {seat + 1}")
            if turn is not None and turn != self.table.current_turn():
                raise DriverError(f"turn {turn} is over")
            if self.kind(seat) is SeatKind.BOT:
                raise DriverError(f"seat {seat + 1} is a bot's")
            events = await self._apply(seat, action)
        self._changed()
        return events

    async def _apply(self, seat: int | None, action: Action | None) -> list[Event]:
        """Start the game (``seat`` None) or apply a decision; written first if there is a
        commit hook, and taken by the table only once written. Call under the lock."""
        table = self.table
        work = table if self.commit is None else table.fork()
        # IllegalActionError from act: nothing changed
        events = work.start() if seat is None or action is None else work.act(seat, action)
        if self.commit is not None:
            await self.commit(work, events)
            table.adopt(work)
        self._emit(events)
        return events

    def _changed(self) -> None:
        self._moved()
        self.kick()

    def _moved(self) -> None:
        self._arm_clock()
        if self.on_change is not None:
            self.on_change()

    def kick(self) -> None:
        """Let the bots (and stand-ins) act if the game waits for one; one pump at a time."""
        if self._pumping or self.closed or self._next_bot_seat() is None:
            return
        self._pumping = True
        self._spawn(self._pump())

    async def _pump(self) -> None:
        try:
            while not self.closed and (seat := self._next_bot_seat()) is not None:
                if self.pace is not None:
                    await self.pace()  # the owner has shown what happened so far
                    if self.closed or (seat := self._next_bot_seat()) is None:
                        break
                turn = self.table.current_turn()
                if self.clocks.bot_delay:
                    await self.scheduler.sleep(self.clocks.bot_delay)
                bot = self.bot_of(seat)
                if bot is not None and not await self._bot_move(seat, turn, bot):
                    await self.scheduler.sleep(self.clocks.retry_after)
        except BotError:
            pass  # STOP: reported as BotFailed, kept in self.failure
        finally:
            self._pumping = False

    def _stale(self, seat: int, turn: str | None) -> bool:
        return (self.closed or seat not in self.waiting_for()
                or self.table.current_turn() != turn)

    async def _bot_move(self, seat: int, turn: str | None, bot: str,
                        timed_out: bool = False) -> bool:
        """Ask ``bot`` for ``seat``'s decision and apply it; False if the write failed.
        ``timed_out``: the clock ran out on the seat's person, and the stand-in decides."""
        if self._stale(seat, turn):
            return True
        action = await self._decided_async(seat, bot, self._request(seat, bot, snapshot=True))
        async with self._lock:
            # stale, or its person took the seat back while the bot thought (their own
            # move, waiting for this lock too, is the one to play)
            if self._stale(seat, turn) or (not timed_out and self.bot_of(seat) != bot):
                return True
            try:
                await self._apply(seat, action)
            except Exception as exc:  # the owner's write: nothing changed, try again later
                self._emit([CommitFailed(seat, f"{type(exc).__name__}: {exc}")])
                return False
        self._moved()
        return True

    async def _decided_async(self, seat: int, bot: str, request: DecisionRequest) -> Action:
        try:
            decision = await self.runner.decide_async(request)
        except BotError as error:
            return self._failed(seat, error, request)
        self._emit([BotDecided(seat, bot, decision.action, decision.seconds)])
        return decision.action

    # -- the clock ------------------------------------------------------------------------------

    def _arm_clock(self) -> None:
        """A new decision gets a new deadline; the bids of a round share one (one turn)."""
        table = self.table
        turn = table.current_turn() if self.waiting_for() and not self.closed else None
        if turn == self._deadline_turn:
            return
        self._deadline_turn = turn
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        seconds = self.clocks.turn_seconds
        if not seconds or turn is None:
            self.deadline = None
            return
        self.deadline = self.scheduler.now() + seconds
        self._clock = self.scheduler.call_later(seconds,
                                                lambda: self._spawn(self._time_out(turn)))
        self._emit([DeadlineArmed(turn, self.deadline)])

    async def _time_out(self, turn: str) -> None:
        """The clock ran out: the stand-in decides for every person still to act."""
        if self.closed or self.table.current_turn() != turn:
            return
        people = [s for s in self.waiting_for() if self.kind(s) is SeatKind.PERSON]
        self._emit([DeadlineExpired(turn, tuple(people))])
        written = True
        for seat in people:
            try:
                written = await self._bot_move(seat, turn, self.stand_in,
                                               timed_out=True) and written
            except BotError:
                return  # STOP
        if not written and not self.closed and self.table.current_turn() == turn:
            self._clock = self.scheduler.call_later(
                self.clocks.retry_after, lambda: self._spawn(self._time_out(turn)))
        self.kick()

    # -- presence -------------------------------------------------------------------------------

    def away(self, seat: int, since: float | None = None) -> None:
        """``seat``'s person left (at ``since``, by default now); the grace period after
        that the stand-in plays for them."""
        if self.kind(seat) is SeatKind.BOT or seat in self._away:
            return
        grace = self.clocks.grace
        now = self.scheduler.now()
        at = None if grace is None else (now if since is None else since) + grace
        timer = (None if at is None or self.closed
                 else self.scheduler.call_later(at - now, lambda: self._grace_over(seat)))
        self._away[seat] = timer
        self._emit([SeatAway(seat, at)])

    def stand_in_now(self, seat: int) -> None:
        """The stand-in plays for ``seat`` from now on, until :meth:`back` (a person who
        missed a step of the start, such as revealing a seed)."""
        if self.kind(seat) is not SeatKind.PERSON:
            return
        timer = self._away.get(seat)
        if timer is not None:
            timer.cancel()
        self._away[seat] = None
        self._grace_over(seat)

    def is_away(self, seat: int) -> bool:
        """Whether ``seat``'s person is away (in the grace period, or stood in for)."""
        return seat in self._away

    def back(self, seat: int) -> None:
        """``seat``'s person is back: they decide again from the next decision on."""
        if seat not in self._away:
            return
        timer = self._away.pop(seat)
        if timer is not None:
            timer.cancel()
        self._standing_in.discard(seat)
        self._emit([SeatBack(seat)])

    def _grace_over(self, seat: int) -> None:
        if seat not in self._away or self.closed:
            return
        self._away[seat] = None
        self._standing_in.add(seat)
        self._emit([StandingIn(seat, self.stand_in)])
        self.kick()

    # -- tasks ----------------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """A task is over; one that a bug ended is said (:class:`Crashed`), not lost."""
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self._emit([Crashed(error)])

    async def settle(self, poll: float = 0.005) -> None:
        """Wait until every task of the driver has ended or sleeps on a
        :class:`FakeScheduler` (for tests: what follows from the time given has happened;
        work on threads and processes is waited for)."""
        sleeping = getattr(self.scheduler, "sleeping", None)
        if not isinstance(sleeping, set):
            raise DriverError("settle() is for a driver on a FakeScheduler")
        spins = 0
        while True:
            live = [t for t in self._tasks if not t.done()]
            # A woken sleep leaves the set before it resumes; an ended task is still in
            # ``_tasks`` until its end is reported (:class:`Crashed`).
            if len(live) <= len(sleeping) and len(live) == len(self._tasks):
                return
            if spins < 100 or not live:  # work on this loop: let it run, no real time
                spins += 1
                await asyncio.sleep(0)
            else:  # work on a thread or in a process
                await asyncio.wait(live, timeout=poll)

    def idle(self) -> bool:
        """Whether no task of the driver is running or waiting (a bot, a clock's move)."""
        return self._pumping is False and all(t.done() for t in self._tasks)

    async def drain(self) -> None:
        """:meth:`close`, then wait until every task has ended (before the store closes)."""
        self.close()
        tasks = list(self._tasks)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        """Stop every timer and task (the table is being put away); the runner stays the
        caller's."""
        self.closed = True
        if self._clock is not None:
            self._clock.cancel()
        for timer in self._away.values():
            if timer is not None:
                timer.cancel()
        for task in list(self._tasks):
            task.cancel()

    def __repr__(self) -> str:
        return f"<Driver {self.table.names} waiting for {self.waiting_for()}>"


def seat_rngs(seed: str, players: int) -> BotRng:
    """One generator per seat for the whole game (``minodice-bot:SEED:SEAT``), as a
    tournament gives its bots: a bot draws from its own stream decision after decision."""
    rngs = [random.Random(f"minodice-bot:{seed}:{seat}") for seat in range(players)]
    return rngs.__getitem__

