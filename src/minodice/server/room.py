"""One table on the server: its seats, its connections, its clock and its bots.

A :class:`Room` wraps a :class:`~minodice.play.table.Table` and is the only writer of its
game (after boardgame.io's master): every incoming action goes through one pipeline under
the room's lock — check the seat and the turn, apply through the table (which checks the
rules), **write the new events to the store**, and only then send each connection a view
built from its own seat's :class:`~minodice.core.view.SeatView` (STYLE 14, 15).

Bots (a bot seat, a person away longer than the grace period, a decision whose clock ran
out) are asked through the :class:`~minodice.server.botpool.BotPool`, outside the lock, after
a short pause so that people can follow; their answers take the same pipeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from minodice.core.actions import Action, parse_action
from minodice.core.dice import load_dice_set
from minodice.core.errors import IllegalActionError
from minodice.core.fair import (
    SCHEME_1,
    SCHEME_2,
    Binding,
    Fairness,
    replacement_seed,
    seed_hash,
)
from minodice.core.rules import Variant
from minodice.core.state import GameConfig
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
from minodice.server.botpool import BotPool
from minodice.server.protocol import (
    Act,
    Chat,
    TableFacts,
    dumps,
    error_message,
    history_message,
    view_message,
    view_text,
)
from minodice.server.store import Store, StoreError, TableRow

log = logging.getLogger("minodice.server")

CHAT_KEPT = 50
RETRY_AFTER = 1.0  # seconds before a bot's or the clock's move whose write failed is tried again
CHAT_LINES, CHAT_WINDOW = 5, 10.0  # chat lines a seat may send in a window of seconds


def token_hash(token: str) -> str:
    """Tokens are stored only as hashes; they are long random secrets, so sha256 suffices."""
    return hashlib.sha256(token.encode()).hexdigest()


class Sender(Protocol):
    """A connection as the room sees it: somewhere to put outgoing text."""

    seat: int | None

    def send(self, text: str) -> None: ...


@dataclass
class Settings:
    """How the server runs its tables (``minodice serve`` options)."""

    bot_delay: float = 0.8          # seconds before a bot acts, so people can follow
    grace: float = 60.0             # seconds away before a bot plays for a person
    stand_in: str = "easy"          # the bot that plays for an absent or timed-out person
    reveal_seconds: float = 20.0    # fair-2: how long seats have to reveal their seeds
    clock: Callable[[], float] = field(default=time.time)


def config_of(row: TableRow) -> GameConfig:
    s = row.settings
    return GameConfig(s["players"], load_dice_set(s["edition"]), Variant(s["variant"]),
                      s["first_starter"])


def scheme_of(row: TableRow) -> str:
    """Tables created before ``minodice-fair-2`` keep playing (and replaying) fair-1."""
    return str(row.settings.get("fair", SCHEME_1))


def seeds_of(seats: list[dict[str, Any]]) -> list[str]:
    """The seats' seeds (``""`` for a seat whose committed seed is not revealed yet)."""
    return [seat.get("client_seed") or "" for seat in seats]


def fairness_of(row: TableRow, seats: list[dict[str, Any]] | None = None) -> Fairness:
    """The table's fairness key (secret until the game is over), with ``seats`` if given."""
    seats = row.seats if seats is None else seats
    server_seed = bytes.fromhex(row.server_seed)
    if scheme_of(row) == SCHEME_1:
        return Fairness(row.commit, server_seed, tuple(seeds_of(seats)))
    return Fairness(row.commit, server_seed, tuple(seeds_of(seats)), SCHEME_2, row.id,
                    tuple(str(seat.get("seed_hash") or seed_hash("")) for seat in seats),
                    tuple(i for i, seat in enumerate(seats) if seat.get("replaced")))


def new_table_of(row: TableRow, seats: list[dict[str, Any]] | None = None) -> Table:
    """A stored table's game before its first deal (with ``seats`` instead of the row's)."""
    seats = row.seats if seats is None else seats
    if len(seats) != row.settings["players"]:
        raise ValueError(f"{len(seats)} seats stored for {row.settings['players']} players")
    fair = fairness_of(row, seats)
    s = row.settings
    binding = Binding(row.id, s["edition"], s["variant"],
                      tuple(str(seat["name"]) for seat in seats))
    specs = [SeatSpec(seat["name"], seat.get("bot")) for seat in seats]
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
        self.settings = settings
        self.table: Table | None = None
        self.lock = asyncio.Lock()
        self.conns: list[Sender] = []
        self.last_active = settings.clock()  # a connection came or went, a move was made
        n = row.settings["players"]
        self.online = [0] * n
        now = settings.clock()
        self.away_since: list[float | None] = [now] * n
        self.autoplay = [False] * n
        self.deadline: float | None = None
        self._deadline_turn: str | None = None
        self.chat: deque[dict[str, Any]] = deque(maxlen=CHAT_KEPT)
        self._chat_times: dict[int, deque[float]] = {}  # each seat's last lines' times
        self._tasks: set[asyncio.Task[None]] = set()
        # The finished rounds as JSON text, built once a round (public, the same for every
        # view; a string also costs the garbage collector nothing to look at).
        self._history: tuple[int, str] = (-1, "[]")
        self._pumping = False
        self._timer: asyncio.TimerHandle | None = None
        self._grace: dict[int, asyncio.TimerHandle] = {}
        self._reveal_timer: asyncio.TimerHandle | None = None
        self.reveal_deadline: float | None = None
        self.closed = False
        if row.status != "waiting":
            self._rebuild()

    # -- set-up and restore ----------------------------------------------------------------

    @property
    def n(self) -> int:
        return int(self.row.settings["players"])

    def config(self) -> GameConfig:
        return config_of(self.row)

    @property
    def scheme(self) -> str:
        return scheme_of(self.row)

    def client_seeds(self) -> list[str]:
        return seeds_of(self.row.seats)

    def _new_table(self, seats: list[dict[str, Any]] | None = None) -> Table:
        return new_table_of(self.row, seats)

    def _rebuild(self) -> None:
        """The table again from its logged events (after a restart, or for a record)."""
        self.table = rebuilt_table(self.row)
        self.row.log = []  # the table holds the game now; the store keeps the log

    # -- public facts and views ------------------------------------------------------------

    def players(self) -> list[dict[str, Any]]:
        out = []
        for i, seat in enumerate(self.row.seats):
            bot = seat.get("bot")
            out.append({
                "name": seat.get("name"),
                "bot": bot,
                "connected": bot is not None or self.online[i] > 0,
                "autoplay": self.settings.stand_in if self.autoplay[i] and bot is None else None,
            })
        return out

    def seats_free(self) -> int:
        return sum(1 for seat in self.row.seats if seat.get("name") is None)

    def info(self) -> dict[str, Any]:
        s = self.row.settings
        return {"table": self.id, "status": self.row.status, "players": self.players(),
                "edition": s["edition"], "variant": s["variant"],
                "turn_seconds": s.get("turn_seconds"), "commit": self.row.commit,
                "public": self.row.public, "seats_free": self.seats_free(),
                "url": f"/t/{self.id}", "advisor": s.get("advisor", True),
                "rematch": self.row.rematch}

    def fairness(self) -> Fairness:
        return fairness_of(self.row)

    # -- fair-2: every seat commits to its seed, then all reveal -----------------------------

    def pending_reveals(self, seats: list[dict[str, Any]] | None = None) -> list[int]:
        """The seats whose committed seed is not revealed yet (``client_seed`` None)."""
        return [i for i, seat in enumerate(self.row.seats if seats is None else seats)
                if seat.get("name") is not None and seat.get("client_seed", "") is None]

    def revealing(self) -> bool:
        """Every seat is taken and committed; the game waits for seeds to be revealed."""
        return (self.row.status == "waiting" and self.seats_free() == 0
                and bool(self.pending_reveals()))

    async def begin(self, seats: list[dict[str, Any]]) -> None:
        """Every seat of ``seats`` is taken (under lock): start, or first ask for the seeds
        committed by hash, until ``reveal_seconds`` from now. :class:`StoreError` and no
        change if it cannot be written."""
        if not self.pending_reveals(seats):
            await self.start(seats=seats)
            return
        # set before the write, so that the views it sends ask for the seeds
        self.reveal_deadline = self.settings.clock() + self.settings.reveal_seconds
        try:
            await self._commit(seats=seats)
        except StoreError:
            self.reveal_deadline = None
            raise
        self.arm_reveal(self.reveal_deadline)

    def arm_reveal(self, deadline: float | None = None) -> None:
        """The reveal deadline (by default from now: a restarted server gives a whole
        period again), and the timer that replaces the seeds not revealed by then."""
        if self._reveal_timer is not None:
            self._reveal_timer.cancel()
        now = self.settings.clock()
        self.reveal_deadline = deadline or now + self.settings.reveal_seconds
        loop = asyncio.get_running_loop()
        self._reveal_timer = loop.call_later(
            max(0.0, self.reveal_deadline - now),
            lambda: self._spawn(self._reveal_timed_out()))

    async def reveal(self, seat: int, client_seed: str) -> None:
        """A seat's seed, checked against its hash; the last one starts the game (under
        lock). ``ValueError`` with a sentence if it does not match; :class:`StoreError`
        and no change if it cannot be written."""
        if seed_hash(client_seed) != self.row.seats[seat].get("seed_hash"):
            raise ValueError("this seed does not match the hash your seat committed to")
        seats = [dict(s) for s in self.row.seats]
        seats[seat]["client_seed"] = client_seed
        if self.pending_reveals(seats):
            await self._commit(seats=seats)
            return
        await self.start(seats=seats)
        self._stop_reveal()

    async def _reveal_timed_out(self) -> None:
        """Seats that did not reveal get the seed the server seed fixes, are recorded as
        replaced, and are played by the stand-in until their person comes back."""
        async with self.lock:
            self._reveal_timer = None
            if self.closed or not self.revealing():
                return
            seats = [dict(s) for s in self.row.seats]
            server_seed = bytes.fromhex(self.row.server_seed)
            late = self.pending_reveals()
            for i in late:
                seats[i].update(client_seed=replacement_seed(server_seed, i), replaced=True)
            before = list(self.autoplay)
            for i in late:
                self.autoplay[i] = seats[i].get("bot") is None
            try:
                await self.start(seats=seats)
            except StoreError:
                self.autoplay = before
                self.arm_reveal(self.settings.clock() + RETRY_AFTER)  # try again, later
                return
            self._stop_reveal()

    def _stop_reveal(self) -> None:
        if self._reveal_timer is not None:
            self._reveal_timer.cancel()
            self._reveal_timer = None
        self.reveal_deadline = None

    def facts(self) -> TableFacts:
        s = self.row.settings
        extra: dict[str, Any] = {"advisor": s.get("advisor", True), "rematch": self.row.rematch,
                                 "public": self.row.public}
        if self.row.status == "finished":
            extra["fairness"] = self.fairness().to_json()  # revealed once the game is over
        elif self.revealing() and self.reveal_deadline is not None:
            # Every commitment, published before any seed is revealed: a page keeps them
            # and checks the record against them (a server cannot swap one in later).
            extra["reveal"] = {
                "pending": self.pending_reveals(),
                "deadline": int(self.reveal_deadline * 1000),
                "seed_hashes": list(self.fairness().seed_hashes)}
        to_act = self.table.to_act() if self.table is not None else []
        deadline = int(self.deadline * 1000) if self.deadline is not None else None
        return TableFacts(self.id, self.row.status, s["edition"], s["variant"], self.players(),
                          s.get("turn_seconds"), self.row.commit, to_act, deadline, extra)

    def view_text(self, seat: int | None, facts: TableFacts | None = None) -> str:
        facts = facts or self.facts()
        table = self.table
        seat_view = table.view(seat) if table is not None else None
        turn = table.turn(seat) if table is not None and seat is not None else None
        if seat_view is None:
            return dumps(view_message(facts, seat_view, seat, turn, self.row.seq))
        # The finished rounds are public and change once a round: encode them once.
        if self._history[0] != len(seat_view.history):
            self._history = (len(seat_view.history), dumps(history_message(seat_view)))
        return view_text(facts, seat_view, seat, turn, self.row.seq, self._history[1])

    def record(self) -> dict[str, Any]:
        """The finished game's record with its proof and, for fair-2, the scores the server
        gave (``totals``), which ``minodice verify`` checks against the bids and tricks."""
        assert self.table is not None
        extra: dict[str, Any] = {"fairness": self.fairness().to_json()}
        if self.scheme == SCHEME_2 and self.table.is_over():
            extra["totals"] = list(self.table.view(None).totals)
        return self.table.record(extra)

    def broadcast(self) -> None:
        """Send every connection its own view (built once per seat)."""
        facts = self.facts()
        texts: dict[int | None, str] = {}
        for conn in list(self.conns):
            text = texts.get(conn.seat)
            if text is None:
                text = texts[conn.seat] = self.view_text(conn.seat, facts)
            conn.send(text)

    # -- changes ---------------------------------------------------------------------------

    async def _commit(self, events: list[Event] | None = None, table: Table | None = None,
                      **fields: Any) -> None:
        """Persist a change (new events, new fields), then tell everyone. Call under lock.

        A change becomes real only once it is written: ``table`` (a fork carrying the new
        events) becomes the room's table, and ``fields`` go into ``row``, after the write.
        If the write fails this raises :class:`StoreError` and nothing has changed: no
        ``seq`` was used, nobody was told, the table is as it was.
        """
        logged = [event_to_json(e) for e in events or [] if isinstance(e, PRIMARY)]
        seq = self.row.seq + 1
        try:
            await self.store.save_async(self.id, logged, self.row.events, seq=seq, **fields)
        except StoreError as exc:
            log.warning("table %s: a write failed, nothing changed: %s", self.id, exc.why)
            raise
        if table is not None:
            if self.table is None:
                self.table = table
            else:
                self.table.adopt(table)
        self.row.seq = seq
        self.row.events += len(logged)
        self.last_active = self.settings.clock()
        for key, value in fields.items():
            setattr(self.row, key, value)
        self._arm_clock()
        self.broadcast()
        self.kick()

    async def touch(self) -> bool:
        """A change of who is connected: a new ``seq`` and fresh views. Returns whether it
        was written; if not, nobody is shown it (presence is not worth a failed request)."""
        try:
            await self._commit()
        except StoreError:
            return False
        return True

    async def start(self, seats: list[dict[str, Any]] | None = None) -> None:
        """Deal the first round (all seats are taken), with the new ``seats`` if given in
        the same write. Call under lock; raises :class:`StoreError` and changes nothing if
        the write fails."""
        table = self._new_table(seats)
        events = table.start()
        fields: dict[str, Any] = {"status": "playing"}
        if seats is not None:
            fields["seats"] = seats
        await self._commit(events, table, **fields)

    async def apply(self, seat: int, action: Action) -> None:
        """Apply one decision on a fork of the table (which checks the rules), persist it,
        then take the fork and tell everyone. Under lock; :class:`StoreError` if the write
        failed (then the move did not happen)."""
        assert self.table is not None
        fork = self.table.fork()
        events = fork.act(seat, action)
        fields = {"status": "finished"} if fork.is_over() else {}
        await self._commit(events, fork, **fields)
        ops.action_applied()

    # -- a person's messages ---------------------------------------------------------------

    async def on_act(self, conn: Sender, msg: Act) -> None:
        received = ops.action_received(self.id)  # the server-side latency starts
        async with self.lock:
            error = self._check_act(conn.seat, msg)
            if error is not None:
                conn.send(dumps(error))
                return
            assert self.table is not None
            assert conn.seat is not None
            try:
                action = parse_action(self.table.config.dice_set, msg.action)
                await self.apply(conn.seat, action)
                ops.action_done(self.id, self.row.seq, received)  # every view sent
            except IllegalActionError as exc:
                conn.send(dumps(error_message(
                    "illegal", exc.describe(self.table.names), exc.rule)))
            except StoreError:
                conn.send(dumps(error_message(
                    "unavailable", "the move could not be saved, so it was not made; "
                    "try again in a moment")))
            except ValueError as exc:
                conn.send(dumps(error_message("bad_message", str(exc)[:200])))

    def _check_act(self, seat: int | None, msg: Act) -> dict[str, Any] | None:
        if seat is None:
            return error_message("forbidden", "spectators watch; only a seat's token plays")
        table = self.table
        if self.row.status != "playing" or table is None:
            return error_message("not_your_turn", f"the game is {self.row.status}")
        asked = Table.turn_order(msg.turn)
        if asked is None:
            return error_message("bad_message", "\"turn\" is not a turn of this game")
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

    def chat_allowed(self, seat: int, now: float) -> bool:
        """Whether ``seat`` may send a chat line now (at most CHAT_LINES in CHAT_WINDOW s,
        counted for the seat across all its connections); counts the line if so."""
        times = self._chat_times.setdefault(seat, deque(maxlen=CHAT_LINES))
        if len(times) == CHAT_LINES and now - times[0] < CHAT_WINDOW:
            return False
        times.append(now)
        return True

    async def on_chat(self, conn: Sender, msg: Chat) -> None:
        if conn.seat is None:
            conn.send(dumps(error_message("forbidden", "spectators cannot chat")))
            return
        line = {"type": "chat", "seat": conn.seat, "name": self.row.seats[conn.seat]["name"],
                "text": msg.text, "at": int(self.settings.clock() * 1000)}
        self.chat.append(line)
        text = dumps(line)
        for other in list(self.conns):
            other.send(text)

    # -- connections -----------------------------------------------------------------------

    async def connect(self, conn: Sender) -> None:
        """A connection opens: it gets its view and the chat kept. Counted only once it
        is in ``conns``, and undone whole if anything fails on the way, so that no
        connection that failed to open is ever counted as a player present."""
        async with self.lock:
            self.conns.append(conn)
            seat = conn.seat
            counted = False
            try:
                self.last_active = self.settings.clock()
                shown = False  # whether a broadcast has sent this connection its view
                if self.row.status == "waiting" and self.seats_free() == 0:
                    shown = await self._start_stranded()
                if seat is not None:
                    self.online[seat] += 1
                    counted = True
                    self.away_since[seat] = None
                    handle = self._grace.pop(seat, None)
                    if handle is not None:
                        handle.cancel()
                    if self.online[seat] == 1 or self.autoplay[seat]:
                        self.autoplay[seat] = False
                        shown = await self.touch() or shown
                if not shown:
                    conn.send(self.view_text(seat))
                for line in self.chat:
                    conn.send(dumps(line))
            except BaseException:
                self._forget(conn, counted)
                raise

    def _forget(self, conn: Sender, counted: bool) -> None:
        if conn in self.conns:
            self.conns.remove(conn)
        seat = conn.seat
        if counted and seat is not None:
            self.online[seat] -= 1
            if self.online[seat] == 0:
                self.away_since[seat] = self.settings.clock()
                if not self.closed:
                    self._watch_absence(seat)

    async def disconnect(self, conn: Sender) -> None:
        """A connection closed (idempotent: a connection not counted is not uncounted)."""
        async with self.lock:
            if conn not in self.conns:
                return
            self._forget(conn, conn.seat is not None)
            self.last_active = self.settings.clock()
            seat = conn.seat
            if seat is None or self.closed:
                return
            if self.online[seat] == 0:
                await self.touch()

    async def _start_stranded(self) -> bool:
        """A table whose seats are all taken but whose game never started (its start
        could not be written): start it now. Under lock; returns whether it started.
        A table whose seeds are being revealed is not stranded: it waits for them."""
        if self.pending_reveals():
            return False
        try:
            await self.start()
        except StoreError:
            return False  # still stranded: the next connection tries again
        return True

    def _watch_absence(self, seat: int) -> None:
        """After the grace period, a bot plays for a person still away."""
        if self.row.seats[seat].get("bot") is not None:
            return
        old = self._grace.pop(seat, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._grace[seat] = loop.call_later(self.settings.grace,
                                            lambda: self._spawn(self._absent(seat)))

    async def _absent(self, seat: int) -> None:
        async with self.lock:
            self._grace.pop(seat, None)
            if self.online[seat] == 0 and not self.autoplay[seat] and not self.closed:
                self.autoplay[seat] = True
                if not await self.touch():
                    self.autoplay[seat] = False
                    self._watch_absence(seat)  # try again after another grace period

    def watch_all_absent(self) -> None:
        """After a restart nobody is connected yet: start every person's grace period."""
        for seat in range(self.n):
            if self.row.seats[seat].get("name") is not None and self.online[seat] == 0:
                self._watch_absence(seat)

    # -- bots and the clock ----------------------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _bot_for(self, seat: int) -> str | None:
        bot = self.row.seats[seat].get("bot")
        if bot is not None:
            return str(bot)
        return self.settings.stand_in if self.autoplay[seat] else None

    def kick(self) -> None:
        """Let the bots act if the game waits for one (one pump per room at a time)."""
        if self._pumping or self.closed or self.table is None or self.row.status != "playing":
            return
        if any(self._bot_for(s) for s in self.table.to_act()):
            self._pumping = True
            self._spawn(self._pump())

    async def _pump(self) -> None:
        try:
            while not self.closed and self.table is not None:
                table = self.table
                seat = next((s for s in table.to_act() if self._bot_for(s)), None)
                if seat is None:
                    return
                turn = table.current_turn()
                if self.settings.bot_delay:
                    await asyncio.sleep(self.settings.bot_delay)
                await self._bot_move(seat, turn)
        except Exception:  # never let a bug in one room go unnoticed or stop the server
            log.exception("table %s: bot pump failed", self.id)
        finally:
            self._pumping = False

    async def _bot_move(self, seat: int, turn: str | None, spec: str | None = None) -> None:
        table = self.table
        if table is None or seat not in table.to_act() or table.current_turn() != turn:
            return
        spec = spec or self._bot_for(seat)
        if spec is None:
            return
        action = await self.pool.decide(spec, table.view(seat))
        async with self.lock:
            if (self.closed or seat not in table.to_act()
                    or table.current_turn() != turn):
                return
            try:
                await self.apply(seat, action)
                return
            except StoreError:
                pass
        await asyncio.sleep(RETRY_AFTER)  # the store is failing: ask again, later

    def _arm_clock(self) -> None:
        """A new decision gets a new deadline (``turn_seconds``); bidding shares one."""
        seconds = self.row.settings.get("turn_seconds")
        table = self.table
        turn = table.current_turn() if table is not None and self.row.status == "playing" \
            else None
        if turn == self._deadline_turn:
            return
        self._deadline_turn = turn
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not seconds or turn is None:
            self.deadline = None
            return
        self.deadline = self.settings.clock() + seconds
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(seconds, lambda: self._spawn(self._time_out(turn)))

    async def _time_out(self, turn: str) -> None:
        """The clock ran out: the stand-in bot decides for every person still to act."""
        table = self.table
        if table is None or table.current_turn() != turn:
            return
        people = [s for s in table.to_act() if self.row.seats[s].get("bot") is None]
        for seat in people:
            await self._bot_move(seat, turn, self.settings.stand_in)
        table = self.table
        if (not self.closed and table is not None and table.current_turn() == turn
                and any(self.row.seats[s].get("bot") is None for s in table.to_act())):
            # A write failed, so the decision is still open: the clock has run out, try again.
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(RETRY_AFTER, lambda: self._spawn(self._time_out(turn)))

    def idle_since(self) -> float | None:
        """When a finished table nobody watches went quiet; ``None`` if it is not such a
        table (still played, someone connected, or busy right now)."""
        if (self.row.status != "finished" or self.conns or self._tasks
                or self.lock.locked() or self.closed):
            return None
        return self.last_active

    def stop(self) -> None:
        """Stop every timer and task at once (the table is being forgotten)."""
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._stop_reveal()
        for handle in self._grace.values():
            handle.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def close(self) -> None:
        self.stop()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def bot_seat_names(people: list[str | None]) -> list[str]:
    """Names for bot seats that no person at the table uses."""
    taken = {p for p in people if p}
    return [n for n in BOT_NAMES if n not in taken]
