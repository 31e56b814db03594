"""The reveal phase of ``minodice-fair-2`` (docs/PROTOCOL.md): between the last seat taken
and the first deal, every seat that committed to a seed by its hash reveals it; a seat
that has not by the deadline gets the seed the server seed fixes for it (recorded as
replaced) and the stand-in plays for its person until they come back.

It is a phase of its own, apart from :class:`~minodice.server.room.Room`, because it has
its own clock and rules and ends for good at the first deal; the room keeps what every
phase shares — the lock, the write path (nothing is shown before it is written) and the
broadcast — and this class reaches them only through :class:`RevealHost`, so that it
imports nothing of the room (no import circle).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Protocol

from minodice.core.fair import replacement_seed, seed_hash
from minodice.play.driver import Scheduler, Timer
from minodice.server.rows import Seat
from minodice.server.store import StoreError, TableRow
from minodice.wire.shapes import RevealDict


class RevealHost(Protocol):
    """What the reveal phase needs of its room."""

    row: TableRow
    lock: asyncio.Lock
    closed: bool

    async def write_seats(self, seats: list[Seat]) -> None:
        """Persist new seats, then show them (:class:`StoreError`: nothing changed)."""

    async def start(self, seats: list[Seat] | None = None,
                    stand_ins: Sequence[int] = ()) -> None:
        """Deal the first round with ``seats``, written in the same write."""

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as one of the room's tasks (awaited when it closes)."""


class RevealPhase:
    """The seats' committed seeds being revealed, and the deadline for it."""

    def __init__(self, host: RevealHost, scheduler: Scheduler, period: Callable[[], float],
                 retry_after: float) -> None:
        self.host = host
        self.scheduler = scheduler
        # seconds the seats have from the start of the phase (the server's setting now)
        self.period = period
        self.retry_after = retry_after  # before a replacement whose write failed, again
        self.deadline: float | None = None
        self._timer: Timer | None = None

    def pending(self, seats: list[Seat] | None = None) -> list[int]:
        """The seats (of ``seats``, or the row's) whose committed seed is not revealed."""
        return [i for i, seat in enumerate(self.host.row.seats if seats is None else seats)
                if seat.taken and not seat.revealed]

    def active(self) -> bool:
        """Every seat is taken and committed; the game waits for seeds to be revealed."""
        row = self.host.row
        return (row.status == "waiting" and all(seat.taken for seat in row.seats)
                and bool(self.pending()))

    def facts(self) -> RevealDict | None:
        """What every view says of the phase (``None`` outside it): the seats still to
        reveal, the deadline, and every commitment, published before any seed is revealed
        (a page keeps them and checks the record against them: a server cannot swap one in
        later)."""
        if not self.active() or self.deadline is None:
            return None
        return {"pending": self.pending(), "deadline": int(self.deadline * 1000),
                "seed_hashes": [seat.committed_hash for seat in self.host.row.seats]}

    async def open(self, seats: list[Seat]) -> None:
        """``seats`` (all taken, some only committed) written: the phase starts, for
        a period from now. Under the room's lock; :class:`StoreError` and no change if
        it cannot be written."""
        # set before the write, so that the views it sends ask for the seeds
        self.deadline = self.scheduler.now() + self.period()
        try:
            await self.host.write_seats(seats)
        except StoreError:
            self.deadline = None
            raise
        self.arm(self.deadline)

    def arm(self, deadline: float | None = None) -> None:
        """The deadline (by default a whole period from now: a restarted server gives one
        again), and the timer that replaces the seeds not revealed by then."""
        if self._timer is not None:
            self._timer.cancel()
        now = self.scheduler.now()
        self.deadline = deadline or now + self.period()
        self._timer = self.scheduler.call_later(
            max(0.0, self.deadline - now), lambda: self.host.spawn(self._timed_out()))

    async def reveal(self, seat: int, client_seed: str) -> None:
        """A seat's seed, checked against its hash; the last one starts the game (under
        the room's lock). ``ValueError`` with a sentence if it does not match;
        :class:`StoreError` and no change if it cannot be written."""
        row = self.host.row
        if seed_hash(client_seed) != row.seats[seat].seed_hash:
            raise ValueError("this seed does not match the hash your seat committed to")
        seats = list(row.seats)
        seats[seat] = seats[seat].model_copy(update={"client_seed": client_seed})
        if self.pending(seats):
            await self.host.write_seats(seats)
            return
        await self.host.start(seats=seats)
        self.stop()

    async def _timed_out(self) -> None:
        """Seats that did not reveal get the seed the server seed fixes, are recorded as
        replaced, and are played by the stand-in until their person comes back."""
        host = self.host
        async with host.lock:
            self._timer = None
            if host.closed or not self.active():
                return
            seats = list(host.row.seats)
            server_seed = bytes.fromhex(host.row.server_seed)
            late = self.pending()
            for i in late:
                seats[i] = seats[i].model_copy(update={
                    "client_seed": replacement_seed(server_seed, i), "replaced": True})
            try:
                await host.start(seats=seats, stand_ins=[i for i in late if seats[i].bot is None])
            except StoreError:
                self.arm(self.scheduler.now() + self.retry_after)  # try again, later
                return
            self.stop()

    def stop(self) -> None:
        """The phase is over (the game started, or the table is being forgotten)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.deadline = None
