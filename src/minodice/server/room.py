"""One table on the server: its seats and its game, written before anyone is told.

A :class:`Room` is the only writer of its table (after boardgame.io's master). Its game is
played by a :class:`~minodice.play.driver.Driver` — who acts, bots (asked through the
:class:`~minodice.server.botpool.BotPool` by a :class:`~minodice.play.runners.PoolRunner`,
a random legal action when one fails), deadlines, the grace period and the stand-in — and
the room keeps what is the server's: every change goes through one pipeline under the
room's lock — check the seat and the turn, apply on a fork of the table (which checks the
rules), **write the new events to the store** (the driver's commit hook), and only then
take the fork and send each connection a view built from its own seat's
:class:`~minodice.core.view.SeatView` (STYLE 14, 15). The connections and the chat are
counted by a :class:`~minodice.server.presence.Presence`.

Before the first deal there is no driver: seats are taken and, for ``minodice-fair-2``,
their committed seeds revealed (or replaced when late: a
:class:`~minodice.server.reveal.RevealPhase` of the room's, which writes through the
room); the last of these writes deals.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from minodice.core.actions import Action, parse_action
from minodice.core.dice import load_dice_set
from minodice.core.errors import IllegalActionError
from minodice.core.fair import SCHEME_1, SCHEME_2, Binding, Fairness
from minodice.core.rules import RuleOptions, Variant
from minodice.core.state import GameConfig
from minodice.play.driver import (
    RANDOM,
    AsyncioScheduler,
    BotFailed,
    Clocks,
    Driver,
    DriverError,
    DriverEvent,
    Scheduler,
    SeatKind,
    StandingIn,
)
from minodice.play.runners import PoolRunner
from minodice.play.table import (
    BOT_NAMES,
    PRIMARY,
    Event,
    FairChance,
    SeatSpec,
    Table,
    event_from_json,
    event_to_json,
)
from minodice.server import ops
from minodice.server.botpool import BotPool, KeyedPool
from minodice.server.presence import Presence, Sender
from minodice.server.protocol import (
    TABLE_EXPIRED,
    Act,
    Chat,
    TableFacts,
    dumps,
    error_message,
    fairness_key,
    history_message,
    is_status,
    round_tricks,
    view_message,
    view_texts,
)
from minodice.server.reveal import RevealPhase
from minodice.server.rows import Seat
from minodice.server.store import (
    SINGLE_PROCESS_EPOCH,
    FencingError,
    Store,
    StoreError,
    TableRow,
)
from minodice.wire.shapes import (
    ChatMessageDict,
    ErrorMessageDict,
    PlayerDict,
    RuleOptionsDict,
    TrickDict,
    ViewExtras,
)

log = logging.getLogger("minodice.server")

EXPIRED = "expired"  # the stored status of a waiting table nobody came to
RETRY_AFTER = 1.0  # seconds before a move (or a reveal's end) whose write failed is tried again


def token_hash(token: str) -> str:
    """Tokens are stored only as hashes; they are long random secrets, so sha256 suffices."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Settings:
    """How the server runs its tables (``minodice serve`` options)."""

    bot_delay: float = 0.8          # seconds before a bot acts, so people can follow
    grace: float = 60.0             # seconds away before a bot plays for a person
    stand_in: str = "easy"          # the bot that plays for an absent or timed-out person
    reveal_seconds: float = 20.0    # fair-2: how long seats have to reveal their seeds
    clock: Callable[[], float] = field(default=time.time)
    # The rooms' timers and clock (None: the event loop's, with ``clock``); tests give a
    # FakeScheduler and move time by hand.
    scheduler: Scheduler | None = None

    def make_scheduler(self) -> Scheduler:
        return self.scheduler or AsyncioScheduler(self.clock)


def options_of(row: TableRow) -> RuleOptions:
    """The table's rule options (RULES.md's open points), as its settings keep them."""
    s = row.settings
    return RuleOptions.from_json({"start": s.start, "special_lead": s.special_lead})


def shown_rule_options(row: TableRow) -> RuleOptionsDict | None:
    """The table's rule options as its messages show them, ``None`` for the defaults (a
    default table's messages stay as they were)."""
    options = options_of(row)
    return None if options.is_default else cast(RuleOptionsDict, options.as_json())


def config_of(row: TableRow) -> GameConfig:
    s = row.settings
    return GameConfig(s.players, load_dice_set(s.edition), Variant(s.variant), s.first_starter,
                      options_of(row))


def scheme_of(row: TableRow) -> str:
    return row.settings.fair


def seeds_of(seats: list[Seat]) -> list[str]:
    """The seats' seeds (``""`` for a seat whose committed seed is not revealed yet)."""
    return [seat.client_seed or "" for seat in seats]


def fairness_of(row: TableRow, seats: list[Seat] | None = None) -> Fairness:
    """The table's fairness key (secret until the game is over), with ``seats`` if given."""
    seats = row.seats if seats is None else seats
    server_seed = bytes.fromhex(row.server_seed)
    if scheme_of(row) == SCHEME_1:
        return Fairness(row.commit, server_seed, tuple(seeds_of(seats)))
    return Fairness(row.commit, server_seed, tuple(seeds_of(seats)), SCHEME_2, row.id,
                    tuple(seat.committed_hash for seat in seats),
                    tuple(i for i, seat in enumerate(seats) if seat.replaced))


def new_table_of(row: TableRow, seats: list[Seat] | None = None) -> Table:
    """A stored table's game before its first deal (with ``seats`` instead of the row's)."""
    seats = row.seats if seats is None else seats
    if len(seats) != row.settings.players:
        raise ValueError(f"{len(seats)} seats stored for {row.settings.players} players")
    fair = fairness_of(row, seats)
    s = row.settings
    binding = Binding(row.id, s.edition, s.variant, tuple(str(seat.name) for seat in seats))
    specs = [SeatSpec(str(seat.name), seat.bot) for seat in seats]
    chance = FairChance(fair.key(binding), scheme=fair.scheme)
    return Table(config_of(row), specs, chance, bot_seed=secrets.token_hex(8))


def rebuilt_table(row: TableRow) -> Table:
    """A stored table's game from its logged events: raises whatever a damaged row or log
    makes the replay raise (a changed roll or deal, a missing event, a broken seed)."""
    table = new_table_of(row)
    table.replay([event_from_json(e) for e in row.log])
    if row.status == "playing" and not table.started:
        raise ValueError("the table is being played but its log holds no deal")
    if row.status == "finished" and not table.is_over():
        raise ValueError("the table is finished but its log ends before the game does")
    return table


class Room:
    """One table's live state on the server (see the module docstring)."""

    def __init__(self, row: TableRow, store: Store, pool: BotPool, settings: Settings) -> None:
        self.row = row
        self.id = row.id
        self.store = store
        self.pool = pool
        # The client address that made it, set by the lobby when it is known (Lobby.create);
        # None after a restart or a takeover (the address is kept nowhere).
        self.creator: str | None = None
        self.settings = settings
        self.scheduler = settings.make_scheduler()
        self.lock = asyncio.Lock()  # the driver's too: one change of the table at a time
        self.presence = Presence(row.settings.players, self.scheduler.now())
        self.driver: Driver | None = None  # from the first deal on
        self.last_active = self.scheduler.now()  # a connection came or went, a move was made
        # When this process made or loaded it: a waiting table no person has taken a seat
        # at expires that long after, whoever watches it (Lobby.expire_abandoned).
        self.opened_at = self.last_active
        self._tasks: set[asyncio.Task[None]] = set()
        # The finished rounds as JSON text, built once a round (public, the same for every
        # view; a string also costs the garbage collector nothing to look at).
        self._history: tuple[int, str] = (-1, "[]")
        self.reveals = RevealPhase(self, self.scheduler, lambda: settings.reveal_seconds,
                                   RETRY_AFTER)
        # This round's finished tricks (public too), built once a trick: (round, tricks
        # done) and the list every view of that moment shares.
        self._tricks: tuple[tuple[int, int], list[TrickDict]] = ((-1, -1), [])
        self._start_fields: dict[str, Any] = {}  # written with the first deal
        self._quiet = False  # stand-ins set for the first deal: its own write shows them
        self.closed = False
        # The lease epoch every write carries (the store's fence refuses an older owner's);
        # told when a write is refused by the fence: this process lost the table.
        self.epoch = SINGLE_PROCESS_EPOCH
        self.on_fenced: Callable[[Room], None] | None = None
        if row.status != "waiting":
            self._rebuild()

    # -- set-up and restore ----------------------------------------------------------------

    @property
    def pool_key(self) -> str:
        """Whose turn this table's bots wait for in the shared pool
        (:class:`~minodice.server.botpool.FairSlots`): its creator's address where it is
        known, else the table itself."""
        return f"address:{self.creator}" if self.creator is not None else f"table:{self.id}"

    @property
    def table(self) -> Table | None:
        """The game, once dealt (``None`` while seats are taken and seeds revealed)."""
        driver = self.driver
        return driver.table if driver is not None and driver.table.started else None

    def _rebuild(self) -> None:
        """The table again from its logged events (after a restart, or for a record)."""
        self.driver = self._driver_for(rebuilt_table(self.row))
        self.row.log = []  # the table holds the game now; the store keeps the log

    def _driver_for(self, table: Table) -> Driver:
        s = self.settings
        return Driver(
            # timed as the tables' bots' decisions (/metrics)
            table, PoolRunner(KeyedPool(self.pool, lambda: self.pool_key),
                              observe=ops.BOT_DECISIONS.observe),
            scheduler=self.scheduler, commit=self._write_move,
            clocks=Clocks(turn_seconds=self.row.settings.turn_seconds or None,
                          grace=s.grace, bot_delay=s.bot_delay, retry_after=RETRY_AFTER),
            stand_in=s.stand_in, on_bot_error=RANDOM, listeners=[self._on_event],
            lock=self.lock, on_change=self.broadcast)

    async def resume(self) -> None:
        """A table loaded after a start or a crash: start it if it was stranded, give the
        seats still to reveal a whole period again, start every person's grace period
        (nobody is connected yet), arm the clock and let the bots act."""
        await self.start_if_full()
        if self.reveals.active():
            self.reveals.arm()
        driver = self.driver
        if driver is not None and not self.closed:
            self._watch_absent(driver, self.scheduler.now())
            driver.resume()

    def _watch_absent(self, driver: Driver, now: float | None = None) -> None:
        """Every person not connected is away (since ``now``, or since they left)."""
        for seat in range(self.row.settings.players):
            if self.row.seats[seat].taken and \
                    not self.presence.connected(seat):
                driver.away(seat, now if now is not None else self.presence.away_since[seat])

    # -- public facts and views ------------------------------------------------------------

    def players(self) -> list[PlayerDict]:
        driver = self.driver
        out: list[PlayerDict] = []
        for i, seat in enumerate(self.row.seats):
            bot = seat.bot
            standing_in = driver is not None and driver.kind(i) is SeatKind.STAND_IN
            out.append({
                "name": seat.name,
                "bot": bot,
                "connected": bot is not None or self.presence.connected(i),
                "autoplay": self.settings.stand_in if standing_in and bot is None else None,
            })
        return out

    def seats_free(self) -> int:
        return sum(1 for seat in self.row.seats if not seat.taken)

    def people_seated(self) -> bool:
        """Whether a person (not a bot) has taken a seat here."""
        return any(seat.taken and seat.bot is None for seat in self.row.seats)

    def info(self) -> dict[str, Any]:
        s = self.row.settings
        return {"table": self.id, "status": self.row.status, "players": self.players(),
                "edition": s.edition, "variant": s.variant,
                "turn_seconds": s.turn_seconds, "commit": self.row.commit,
                "public": self.row.public, "seats_free": self.seats_free(),
                "url": f"/t/{self.id}", "advisor": s.advisor,
                "rematch": self.row.rematch, "rule_options": shown_rule_options(self.row)}

    def fairness(self) -> Fairness:
        return fairness_of(self.row)

    def facts(self) -> TableFacts:
        s = self.row.settings
        status = self.row.status
        if not is_status(status):
            raise ValueError(f"a table that is {status} has no view")
        extra: ViewExtras = {"advisor": s.advisor, "rematch": self.row.rematch,
                             "public": self.row.public}
        if (shown := shown_rule_options(self.row)) is not None:
            extra["rule_options"] = shown
        if self.row.status == "finished":
            extra["fairness"] = fairness_key(self.fairness())  # revealed once the game is over
        elif (reveal := self.reveals.facts()) is not None:
            extra["reveal"] = reveal
        table = self.table
        to_act = table.to_act() if table is not None else []
        driver = self.driver
        clock = driver.deadline if driver is not None else None
        deadline = int(clock * 1000) if clock is not None else None
        return TableFacts(self.id, status, s.edition, s.variant, self.players(),
                          s.turn_seconds, self.row.commit, to_act, deadline, extra)

    def view_text(self, seat: int | None, facts: TableFacts | None = None) -> str:
        return self.view_texts([seat], facts)[seat]

    def view_texts(self, seats: Sequence[int | None], facts: TableFacts | None = None
                   ) -> dict[int | None, str]:
        """The view message of each of ``seats`` now (the same text as built alone): what
        is public in them — most of a view — is built once for all of them."""
        facts = facts or self.facts()
        table = self.table
        if table is None:
            return {seat: dumps(view_message(facts, None, seat, None, self.row.seq))
                    for seat in seats}
        seat_views = table.views(seats)
        any_view = next(iter(seat_views.values()))
        # The finished rounds are public and change once a round: encode them once.
        if self._history[0] != len(any_view.history):
            self._history = (len(any_view.history), dumps(history_message(any_view)))
        done = (any_view.round_no, len(any_view.round_trick_winners))
        if self._tricks[0] != done:
            self._tricks = (done, round_tricks(any_view))
        turns = {seat: table.turn(seat) if seat is not None else None for seat in seat_views}
        return view_texts(facts, seat_views, turns, self.row.seq, self._history[1],
                          self._tricks[1])

    def record(self) -> dict[str, Any]:
        """The finished game's record with its proof and, for fair-2, the scores the server
        gave (``totals``), which ``minodice verify`` checks against the bids and tricks."""
        table = self.table
        assert table is not None
        extra: dict[str, Any] = {"fairness": self.fairness().to_json()}
        if scheme_of(self.row) == SCHEME_2 and table.is_over():
            extra["totals"] = list(table.view(None).totals)
        return table.record(extra)

    def broadcast(self) -> None:
        """Send every connection its own view (built once per seat)."""
        if not self.presence.conns:
            return  # (an expired table has nobody to tell, and no view)
        conns = list(self.presence.conns)
        texts = self.view_texts(list(dict.fromkeys(conn.seat for conn in conns)))
        for conn in conns:
            conn.send(texts[conn.seat])

    # -- writing: nothing is real before it is written -------------------------------------

    async def _write(self, events: list[Event] | None = None, **fields: Any) -> None:
        """Persist a change (new events, new fields) with the next ``seq``. Call under lock.

        ``fields`` go into ``row`` only after the write; if it fails this raises
        :class:`StoreError` and nothing has changed: no ``seq`` was used, the row is as
        it was (and the driver keeps the table as it was: it adopts only after this).
        """
        logged = [event_to_json(e) for e in events or [] if isinstance(e, PRIMARY)]
        seq = self.row.seq + 1
        try:
            await self.store.save_async(self.id, logged, self.row.events, seq=seq,
                                        epoch=self.epoch, **fields)
        except FencingError as exc:
            # Another process owns the table now (or this one missed a write): nothing was
            # written, and nothing of this room may be written again.
            log.warning("table %s: a write was refused by the fence: %s", self.id, exc.why)
            if self.on_fenced is not None:
                self.on_fenced(self)
            raise
        except StoreError as exc:
            log.warning("table %s: a write failed, nothing changed: %s", self.id, exc.why)
            raise
        self.row.seq = seq
        self.row.events += len(logged)
        self.last_active = self.scheduler.now()
        status = fields.get("status")
        if status is not None and status != self.row.status:  # started, finished, expired
            log.debug("table %s is %s now", self.id, status,
                      extra={"table": self.id, "seq": seq})
        for key, value in fields.items():
            setattr(self.row, key, value)

    async def _write_move(self, table: Table, events: list[Event]) -> None:
        """The driver's commit hook (under the lock): a move, or the first deal with the
        fields given for it, on ``table`` (a fork the driver takes once this returned)."""
        fields = dict(self._start_fields)
        if table.is_over():
            fields["status"] = "finished"
        await self._write(events, **fields)
        if not self._start_fields:
            ops.action_applied()  # a decision, a person's or a bot's (not the deal)

    async def write_seats(self, seats: list[Seat]) -> None:
        """New seats written, then shown (:class:`StoreError` and no change if not)."""
        await self._commit(seats=seats)

    async def _commit(self, **fields: Any) -> None:
        """Persist a change of the row, not of the game (seats, presence, a rematch), then
        tell everyone. Call under lock; :class:`StoreError` and no change if unwritten."""
        await self._write(None, **fields)
        self.broadcast()

    async def touch(self) -> bool:
        """A change of who is connected: a new ``seq`` and fresh views. Returns whether it
        was written; if not, nobody is shown it (presence is not worth a failed request)."""
        try:
            await self._commit()
        except StoreError:
            return False
        return True

    # -- seats and the start (called under the room's lock) ---------------------------------

    async def take_seat(self, seats: list[Seat], index: int) -> None:
        """``seats`` with ``index`` newly taken: written, and if it was the last free seat
        the game starts in the same write (or asks for the committed seeds). Raises
        :class:`StoreError` and changes nothing if it cannot be written. The person's
        grace period runs from now until they connect."""
        if not self.presence.connected(index):  # (before the deal, which starts the clocks)
            self.presence.away_since[index] = self.scheduler.now()
        if not all(s.taken for s in seats):
            await self._commit(seats=seats)
        else:
            await self.begin(seats)

    async def set_rematch(self, table_id: str) -> None:
        """The rematch's table, told to everyone here. :class:`StoreError` if unwritten."""
        await self._commit(rematch=table_id)

    async def expire(self) -> None:
        """Mark a table that waited in vain ``expired``, written with the next ``seq``;
        :class:`StoreError` and no change if unwritten. Its connections (spectators: a
        table a person sits at expires only once nobody is connected) are told it is gone
        and closed (:data:`~minodice.server.protocol.TABLE_EXPIRED`), as a new connection
        to it is refused: the protocol has no view of an expired table to show them."""
        await self._write(status=EXPIRED)
        for conn in list(self.presence.conns):
            conn.send(TABLE_EXPIRED)

    async def start_if_full(self) -> bool:
        """A table whose seats are all taken but whose game never started (its start
        could not be written, or only bots sit there): start it now. Takes the lock;
        returns whether it started."""
        async with self.lock:
            return await self._start_stranded()

    async def start(self, seats: list[Seat] | None = None,
                    stand_ins: Sequence[int] = ()) -> None:
        """Deal the first round (all seats are taken), with the new ``seats`` if given in
        the same write; the stand-in plays for ``stand_ins`` from the start. Call under
        lock; raises :class:`StoreError` and changes nothing if the write fails."""
        driver = self._driver_for(new_table_of(self.row, seats))
        self._quiet = True
        try:
            for seat in stand_ins:
                driver.stand_in_now(seat)
        finally:
            self._quiet = False
        self._start_fields = {"status": "playing"}
        if seats is not None:
            self._start_fields["seats"] = seats
        self.driver = driver
        try:
            await driver.start(locked=True)
        except BaseException:
            self.driver = None
            driver.close()
            raise
        finally:
            self._start_fields = {}
        self._watch_absent(driver)

    async def _start_stranded(self) -> bool:
        """Under lock: start a stranded table (see :meth:`start_if_full`). A table whose
        seeds are being revealed is not stranded: it waits for them."""
        if self.row.status != "waiting" or self.seats_free() or self.reveals.pending():
            return False
        try:
            await self.start()
        except StoreError:
            return False  # still stranded: the next connection tries again
        return True

    async def begin(self, seats: list[Seat]) -> None:
        """Every seat of ``seats`` is taken (under lock): start, or first ask for the seeds
        committed by hash (:class:`~minodice.server.reveal.RevealPhase`).
        :class:`StoreError` and no change if it cannot be written."""
        if self.reveals.pending(seats):
            await self.reveals.open(seats)
        else:
            await self.start(seats=seats)

    # -- a person's messages ---------------------------------------------------------------

    async def apply(self, seat: int, action: Action, turn: str | None = None) -> None:
        """A person's decision through the driver (it takes the lock): applied on a fork,
        written, then taken and told. :class:`StoreError` if the write failed (then the
        move did not happen), ``IllegalActionError`` if the rules forbid it,
        :class:`~minodice.play.driver.DriverError` if the game does not wait for it."""
        driver = self.driver
        if driver is None or self.table is None:
            raise DriverError(f"the game is {self.row.status}")
        took_back = driver.kind(seat) is SeatKind.STAND_IN
        if took_back:
            # a person who acts is here: the stand-in stops playing for them (a seat whose
            # seed came late is stood in for from the first deal, its person connected)
            driver.back(seat)
        try:
            await driver.act(seat, action, turn)
        except Exception:
            if took_back:  # refused, but the seat is theirs again: everyone is shown it
                async with self.lock:
                    await self.touch()
            raise

    async def on_act(self, conn: Sender, msg: Act) -> None:
        received = ops.action_received(self.id)  # the server-side latency starts
        error = self._check_act(conn.seat, msg)
        if error is None:
            table = self.table
            assert table is not None
            assert conn.seat is not None
            try:
                action = parse_action(table.config.dice_set, msg.action)
                await self.apply(conn.seat, action, msg.turn)
                ops.action_done(self.id, self.row.seq, received)  # every view sent
                return
            except IllegalActionError as exc:
                error = error_message("illegal", exc.describe(table.names), exc.rule)
            except StoreError:
                error = error_message(
                    "unavailable", "the move could not be saved, so it was not made; "
                    "try again in a moment")
            except DriverError:  # the game moved on while this waited for the lock
                error = self._check_act(conn.seat, msg) or error_message(
                    "not_your_turn", "the game waits for another player")
            except ValueError as exc:
                error = error_message("bad_message", str(exc)[:200])
        conn.send(dumps(error))

    def _check_act(self, seat: int | None, msg: Act) -> ErrorMessageDict | None:
        if seat is None:
            return error_message("forbidden", "spectators watch; only a seat's token plays")
        table = self.table
        asked = Table.turn_order(msg.turn)
        if asked is None:
            return error_message("bad_message", "\"turn\" is not a turn of this game")
        if self.row.status == "finished":  # every turn of the game is over
            return error_message("stale", "the game is finished")
        if self.row.status != "playing" or table is None:
            return error_message("not_your_turn", f"the game is {self.row.status}")
        current = table.current_turn()
        now = Table.turn_order(current) if current is not None else (99, 99, 99)
        assert now is not None
        if seat in table.to_act():
            if msg.turn == current:
                return None
            if asked < now:
                return error_message("stale", f"turn {msg.turn} is over; now it is {current}")
            return error_message("bad_message", f"turn {msg.turn} has not come; now it is "
                                 f"{current}")
        if asked < now or (msg.turn == current and current.endswith("-bid")):
            return error_message("stale", f"turn {msg.turn} is over for you")
        return error_message("not_your_turn", "the game waits for another player")

    async def on_chat(self, conn: Sender, msg: Chat) -> None:
        if conn.seat is None:
            conn.send(dumps(error_message("forbidden", "spectators cannot chat")))
            return
        line: ChatMessageDict = {
            "type": "chat", "seat": conn.seat, "name": str(self.row.seats[conn.seat].name),
            "text": msg.text, "at": int(self.scheduler.now() * 1000)}
        self.presence.say(line, dumps(line))

    # -- connections -----------------------------------------------------------------------

    async def connect(self, conn: Sender) -> None:
        """A connection opens: it gets its view and the chat kept. Counted only once it
        is in ``conns``, and undone whole if anything fails on the way, so that no
        connection that failed to open is ever counted as a player present."""
        async with self.lock:
            self.presence.open(conn)
            seat = conn.seat
            counted = False
            try:
                self.last_active = self.scheduler.now()
                shown = await self._start_stranded()  # a broadcast sent this one its view
                if seat is not None:
                    first = self.presence.arrive(seat)
                    counted = True
                    driver = self.driver
                    stood_in = driver is not None and driver.kind(seat) is SeatKind.STAND_IN
                    if driver is not None:
                        driver.back(seat)
                    if first or stood_in:
                        shown = await self.touch() or shown
                if not shown:
                    conn.send(self.view_text(seat))
                for line in self.presence.chat:
                    conn.send(dumps(line))
            except BaseException:
                self._forget(conn, counted)
                raise
            self._log_connections("opened", seat)

    def _forget(self, conn: Sender, counted: bool) -> bool:
        """Uncount ``conn``; returns whether its seat is left without a connection (its
        person is then away: the driver's grace period starts)."""
        left = self.presence.close(conn, counted, self.scheduler.now())
        if left and conn.seat is not None and self.driver is not None and not self.closed:
            self.driver.away(conn.seat)
        return left

    async def disconnect(self, conn: Sender) -> None:
        """A connection closed (idempotent: a connection not counted is not uncounted)."""
        async with self.lock:
            if not self.presence.is_open(conn):
                return
            left = self._forget(conn, conn.seat is not None)
            self.last_active = self.scheduler.now()
            self._log_connections("closed", conn.seat)
            if left and not self.closed:
                await self.touch()

    def _log_connections(self, what: str, seat: int | None) -> None:
        """A debug line for a connection opened or closed: whose (a seat's number, never
        its token), and how many the table has now."""
        if log.isEnabledFor(logging.DEBUG):
            log.debug("table %s: a connection %s (%s; %d open)", self.id, what,
                      "spectator" if seat is None else f"seat {seat}",
                      len(self.presence.conns), extra={"table": self.id})

    # -- what the driver tells ---------------------------------------------------------------

    def _on_event(self, event: DriverEvent) -> None:
        if isinstance(event, StandingIn) and not self._quiet:
            self.spawn(self._stood_in(event.seat))
        elif isinstance(event, BotFailed):
            self.pool.failures += 1
            log.warning("table %s: %s; playing at random", self.id, event.error)

    async def _stood_in(self, seat: int) -> None:
        """The stand-in plays for an absent person now: everyone is shown it. If that
        cannot be written, it does not play: the person gets another grace period."""
        async with self.lock:
            driver = self.driver
            if driver is None or self.closed or driver.kind(seat) is not SeatKind.STAND_IN:
                return
            if not await self.touch():
                driver.back(seat)
                driver.away(seat)

    async def hand_to_bot(self, seat: int) -> bool:
        """The seat's person leaves it to the stand-in now rather than after the grace
        period (``POST /api/tables/ID/away``); as after an absence, their next connection
        takes it back, and if the stand-in's taking over cannot be written it does not
        play (:meth:`_stood_in`). Returns whether the table has a game to hand over."""
        async with self.lock:
            driver = self.driver
            if driver is None or self.closed:
                return False
            if driver.kind(seat) is SeatKind.PERSON:
                driver.stand_in_now(seat)
            return True

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as one of the room's tasks (cancelled and awaited at its close)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        """Whether a task of this table runs or waits (a bot, a clock, a presence write)."""
        return (any(not t.done() for t in self._tasks)
                or (self.driver is not None and not self.driver.idle()))

    async def settle(self) -> None:
        """Wait until what follows from the time given has happened (for tests on a
        :class:`~minodice.play.driver.FakeScheduler`): the driver's tasks sleep on the
        fake clock or ended, and so did the room's (presence writes, the reveal's end)."""
        for _ in range(10_000):
            if self.driver is not None:
                await self.driver.settle()
            live = [t for t in self._tasks if not t.done()]
            if not live and (self.driver is None or await self._driver_settled()):
                return
            if live:
                await asyncio.wait(live, timeout=0.005)
        raise DriverError(f"table {self.id} never settled")

    async def _driver_settled(self) -> bool:
        driver = self.driver
        assert driver is not None
        await driver.settle()
        return not any(not t.done() for t in self._tasks)

    def idle_since(self) -> float | None:
        """When a finished table nobody watches went quiet; ``None`` if it is not such a
        table (still played, someone connected, or busy right now)."""
        if (self.row.status != "finished" or self.presence.conns or self.busy()
                or self.lock.locked() or self.closed):
            return None
        return self.last_active

    def stop(self) -> None:
        """Stop every timer and task at once (the table is being forgotten)."""
        self.closed = True
        if self.driver is not None:
            self.driver.close()
        self.reveals.stop()
        for task in list(self._tasks):
            task.cancel()

    async def close(self) -> None:
        self.stop()
        if self.driver is not None:
            await self.driver.drain()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

def bot_seat_names(people: list[str | None]) -> list[str]:
    """Names for bot seats that no person at the table uses."""
    taken = {p for p in people if p}
    return [n for n in BOT_NAMES if n not in taken]
