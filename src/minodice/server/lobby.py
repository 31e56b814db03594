"""The tables of one server: creating them, taking seats, starting, rematches, restarts.

The HTTP routes (:mod:`minodice.server.app`) are thin: they read a request, call one method
here, and write its answer. Errors are :class:`ApiError` with a protocol code
(``bad_request``, ``not_found``, ``forbidden``, ``conflict``, ``busy``) and a sentence.

Tables waiting for people cost memory, a start-up load and a line in the public list, and
nobody has to play them: there are at most ``max_waiting`` of them, and they expire (the
row stays, marked ``expired``, and is never loaded again). One that no person has taken a
seat at expires ``expire_waiting`` seconds after it was made, even if someone watches it
(watching costs nothing, so it keeps no table waiting); one that people have joined, once
nobody has been connected to it for that long. The public list is an index in creation
order, read a page at a time from a cursor, so that a request costs its page, not every
table.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from minodice.bots.protocol import BUILTIN_BOTS
from minodice.core.fair import SCHEME_2, SEED_MAX, commitment, first_starter, seed_hash
from minodice.core.names import name_problem, shown_name
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions
from minodice.server.botpool import BotPool
from minodice.server.room import (
    EXPIRED,
    Room,
    Settings,
    bot_seat_names,
    options_of,
    token_hash,
)
from minodice.server.rows import Seat, TableSettings
from minodice.server.store import Store, StoreError, TableRow, now_ms
from minodice.text.safe import one_line

log = logging.getLogger("minodice.server")

FORGET_AFTER = 120.0  # seconds a finished table nobody watches stays in memory
# Public tables in one answer: by default, at most. The default is the most: a client of
# PROTOCOL.md's plain "GET /api/tables" (and the lobby page) gets every waiting table up to
# 100, as many as a page can show; 20 by default hid the 21st table and later from them.
LOBBY_PAGE, LOBBY_PAGE_MAX = 100, 100
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: readable in a link


# Seconds a client waits before it sends again a request refused with a 503 that changed
# nothing (the table changing hands, the store away for a moment): its Retry-After.
RETRY_AFTER = 1


class ApiError(Exception):
    """A refused request: ``status`` (4xx), protocol ``code`` and a sentence.
    ``retry_after``: nothing changed and the same request may be sent again after that many
    seconds (a ``Retry-After`` header); ``None`` where sending it again is no use or not
    known to be safe."""

    def __init__(self, status: int, code: str, message: str,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


def clean_name(name: str) -> str:
    """A person's name as typed, trimmed; refused by the one rule of
    :func:`~minodice.core.names.name_problem`."""
    name = name.strip()
    problem = name_problem(name)
    if problem is not None:
        raise ApiError(400, "bad_request", problem)
    return name


def check_seed(client_seed: str | None, client_seed_hash: str | None) -> dict[str, str | None]:
    """A joining seat's seed fields: ``client_seed`` None and ``seed_hash`` while committed
    only (fair-2); the seed and its hash when sent plain (or ``""`` when sent none)."""
    if client_seed is not None and client_seed_hash is not None:
        raise ApiError(400, "bad_request", "send client_seed_hash (then reveal the seed), "
                       "or client_seed, not both")
    if client_seed_hash is not None:
        digest = client_seed_hash.lower()
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ApiError(400, "bad_request", "a client_seed_hash is 64 hex digits "
                           "(sha256 of the seed)")
        return {"client_seed": None, "seed_hash": digest}
    seed = client_seed or ""
    if len(seed) > SEED_MAX:
        raise ApiError(400, "bad_request", f"a client_seed is at most {SEED_MAX} characters")
    try:
        digest = seed_hash(seed)
    except UnicodeEncodeError:
        raise ApiError(400, "bad_request", "a client_seed must be text (no lone "
                       "surrogates)") from None
    return {"client_seed": seed, "seed_hash": digest}


def new_id() -> str:
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(10))


class Lobby:
    """Every table of this server, in memory and in the store."""

    def __init__(self, store: Store, pool: BotPool, settings: Settings,
                 max_waiting: int = 1000, expire_waiting: float = 1800.0,
                 waiting_per_address: int = 100) -> None:
        self.store = store
        self.pool = pool
        self.settings = settings
        self.max_waiting = max_waiting
        # Without it a few addresses, each keeping its tables open with one socket apiece,
        # could fill all ``max_waiting`` and refuse every other new table (counted in this
        # process, of the tables it created: the creator is kept nowhere else). Above the
        # 60 new tables an address may make at once: a class behind one school's address
        # may each make one.
        self.waiting_per_address = waiting_per_address
        self._making: Counter[str] = Counter()  # tables being made that will wait, by creator
        self.expire_waiting = expire_waiting
        self.rooms: dict[str, Room] = {}
        self.damaged: dict[str, str] = {}  # table id -> why it could not be loaded
        # The public waiting tables in creation order, each with its number (the cursor of
        # GET /api/tables); tables that no longer wait are dropped as they are met.
        self._listed: list[tuple[int, Room]] = []
        self._listed_count = 0
        # Pages of the list as answered: (tables listed then, each room shown and its seq,
        # the answer, its next cursor), by (limit, cursor).
        self._pages: dict[tuple[int, str | None],
                          tuple[int, list[tuple[Room, int]], bytes, str | None]] = {}
        # Several processes sharing the store (``serve --redis``, server/cluster.py): a
        # table is played by the process holding its lease. Then a waiting or playing table
        # is never loaded here unleased (``live_loads``), a new one is leased before it is
        # written (``lease_new``: its epoch), a forgotten one gives its lease up
        # (``on_forget``), a fenced room is let go (``on_fenced``), and the public list
        # comes from the store (``shared_list``).
        self.live_loads = True
        self.shared_list = False
        self.lease_new: Callable[[str], Awaitable[int]] | None = None
        self.on_forget: Callable[[str], None] | None = None
        self.on_fenced: Callable[[Room], None] | None = None

    # -- loading -----------------------------------------------------------------------------

    async def resume_all(self) -> int:
        """Load every unfinished table (after a start or a crash); returns how many.

        A table that cannot be loaded (its log damaged, its row broken) is set aside with
        its id and the reason in the log; every sound table is served all the same.
        Waiting tables older than ``expire_waiting`` expire unloaded (nobody is connected
        after a restart, and nobody may have been for long).
        """
        before = now_ms() - int(self.expire_waiting * 1000)
        try:
            expired = await self.store.expire_waiting(before)
        except StoreError as exc:  # they are loaded as they are, and expire later
            log.warning("old waiting tables could not be expired now: %s", exc)
            expired = 0
        if expired:
            log.info("%d waiting tables older than %g minutes expired", expired,
                     self.expire_waiting / 60)
        count = 0
        for table_id in self.store.ids(["waiting", "playing"]):
            try:
                room = self.room(table_id)
            except ApiError:
                continue  # set aside, and said in the log by room()
            await room.resume()
            if room.row.status == "waiting":
                self._list(room)
            count += 1
        return count

    def room(self, table_id: str) -> Room:
        room = self.rooms.get(table_id)
        if room is not None:
            return room
        reason = self.damaged.get(table_id)
        if reason is None and _plausible_id(table_id):
            try:
                row = self.store.load(table_id)
                if row is None:
                    raise ApiError(404, "not_found", "no such table")
                if row.status == EXPIRED:
                    raise ApiError(404, "not_found", "this table expired: nobody came to it "
                                   f"for {self.expire_waiting / 60:g} minutes")
                if not self.live_loads and row.status in ("waiting", "playing"):
                    # another process owns it, or nobody yet: never two drivers at once
                    raise ApiError(503, "unavailable", "this table is changing hands between "
                                   "server processes; try again in a moment", RETRY_AFTER)
                room = self._new_room(row)
            except ApiError:
                raise
            except Exception as exc:  # a damaged log or row: anything its replay raises
                reason = self.set_aside(table_id, exc)
            else:
                self.rooms[table_id] = room
                log.debug("table %s loaded (%s)", table_id, row.status,
                          extra={"table": table_id, "seq": row.seq})
                return room
        if reason is not None:
            raise ApiError(503, "damaged", "this table's saved game is damaged, so the server "
                           "has set it aside; its operator can inspect it")
        raise ApiError(404, "not_found", "no such table")

    def _new_room(self, row: TableRow, epoch: int | None = None) -> Room:
        room = Room(row, self.store, self.pool, self.settings)
        if epoch is not None:
            room.epoch = epoch
        room.on_fenced = self.on_fenced
        return room

    def adopt(self, row: TableRow, epoch: int) -> Room | None:
        """A table this process has just leased (``epoch``), loaded from ``row`` (with its
        log): its room, not resumed yet; ``None`` (and set aside) if it is damaged."""
        try:
            room = self._new_room(row, epoch)
        except Exception as exc:  # as room(): a damaged log or row
            self.set_aside(row.id, exc)
            return None
        old = self.rooms.get(row.id)
        if old is not None:
            old.stop()
        self.rooms[row.id] = room
        if row.status == "waiting":
            self._list(room)
        return room

    def set_aside(self, table_id: str, exc: Exception) -> str:
        """Keep ``table_id`` out of play as damaged (``exc``: what loading it raised), told
        in one line of the log; the reason, as its clients and ``minodice table`` see it."""
        reason = self.damaged[table_id] = _problem(exc)
        log.error("table %s is damaged and set aside: %s (see: minodice table %s)",
                  table_id, reason, table_id, extra={"table": table_id})
        return reason

    def let_go(self, table_id: str) -> Room | None:
        """Forget a table another process owns now: its room stopped at once, every
        timer and bot with it (its connections are the caller's to move)."""
        room = self.rooms.pop(table_id, None)
        if room is not None:
            room.stop()
        return room

    # -- tables and seats --------------------------------------------------------------------

    async def create(self, players: int, edition: str, variant: str,
                     bots: list[str | None] | None,
               turn_seconds: int | None, public: bool, advisor: bool = True,
               held: list[str | None] | None = None, rematch_of: str | None = None,
               creator: str | None = None,
               options: RuleOptions = DEFAULT_RULE_OPTIONS) -> tuple[Room, str]:
        """A new table; returns it and the host token. ``creator``: the client address that
        asked for it, whose tables' bots take their turns together in the shared pool."""
        if bots is not None and len(bots) != players:
            raise ApiError(400, "bad_request", f"\"bots\" needs one entry per seat ({players})")
        levels = bots or [None] * players
        for level in levels:
            if level is not None and level not in BUILTIN_BOTS:
                raise ApiError(400, "bad_request",
                               f"unknown bot; this server offers {', '.join(BUILTIN_BOTS)}")
        waits = any(level is None for level in levels)
        if waits and self.waiting() + self._making.total() >= self.max_waiting:
            raise ApiError(503, "busy", f"{self.max_waiting} tables are waiting for players "
                           "already: join one, or try again later")
        if (waits and creator is not None
                and self.waiting(creator) + self._making[creator] >= self.waiting_per_address):
            raise ApiError(429, "rate_limited", f"{self.waiting_per_address} tables made from "
                           "your address are waiting for players already: one more once one "
                           "of them starts, or expires (nobody at it for "
                           f"{self.expire_waiting / 60:g} minutes)")
        names = iter(bot_seat_names([]))
        # A bot's seed is "" (the default): the server's own part is its committed seed.
        seats = [Seat(name=next(names) if level is not None else None, bot=level,
                      held_for=held[i] if held is not None else None)
                 for i, level in enumerate(levels)]
        server_seed = secrets.token_bytes(32)  # the OS's secure generator (PROTOCOL.md 1)
        host_token = secrets.token_urlsafe(24)
        row = TableRow(
            id=new_id(), created_at=now_ms(), status="waiting", public=public,
            settings=TableSettings(
                players=players, edition=edition, variant=variant, turn_seconds=turn_seconds,
                advisor=advisor, fair=SCHEME_2, start=str(options.start),
                special_lead=str(options.special_lead),
                first_starter=first_starter(server_seed, players), rematch_of=rematch_of),
            seats=seats, host_token_hash=token_hash(host_token),
            server_seed=server_seed.hex(), commit=commitment(server_seed), seq=1)
        key = creator or ""
        if waits:  # counted from here: requests at once, all before the first's table
            self._making[key] += 1  # exists, would otherwise pass the caps together
        try:
            epoch = None
            if self.lease_new is not None:
                try:  # leased before it exists: no other process can take it meanwhile
                    epoch = row.epoch = await self.lease_new(row.id)
                except Exception as exc:
                    log.warning("a new table could not be leased: %s", _problem(exc))
                    raise _unsaved() from None
            try:
                await self.store.create_async(row)
            except StoreError:
                if self.on_forget is not None and epoch is not None:
                    self.on_forget(row.id)  # its lease goes too
                raise _unsaved() from None
            room = self.rooms[row.id] = self._new_room(row, epoch)
            if creator is not None:
                room.creator = creator
        finally:
            if waits:
                self._making[key] -= 1
                if not self._making[key]:
                    del self._making[key]
        if public and waits:
            self._list(room)
        log.debug("table %s created: %d seats, %d of them bots, %s", room.id, players,
                  players - levels.count(None), "public" if public else "private",
                  extra={"table": room.id, "seq": room.row.seq})
        return room, host_token

    def waiting(self, creator: str | None = None) -> int:
        """How many tables wait for players now (of those made from ``creator``'s address,
        if given)."""
        return sum(1 for room in self.rooms.values() if room.row.status == "waiting"
                   and (creator is None or room.creator == creator))

    async def maybe_start_new(self, room: Room) -> None:
        """A table whose seats are all taken at creation (bots only) starts at once (or,
        if that cannot be written now, when someone first connects to it)."""
        await room.start_if_full()

    async def join(self, table_id: str, name: str, client_seed: str | None,
                   rematch_token: str | None = None, client_seed_hash: str | None = None
                   ) -> tuple[int, str, str]:
        """Take a free seat; returns (seat, token, the name as seated).

        ``client_seed_hash`` (fair-2): the seat commits to a seed it reveals once every seat
        is taken (:meth:`reveal`). A plain ``client_seed`` (an older client) counts as
        committed and revealed at once: its sender cannot steer the dice with it, as no
        committed seed of another seat is known to anyone yet.
        """
        room = self.room(table_id)
        name = clean_name(name)
        committed = check_seed(client_seed, client_seed_hash)
        async with room.lock:
            if room.row.status != "waiting":
                raise ApiError(409, "conflict", "the game has started; watch it instead")
            seats = list(room.row.seats)
            held = token_hash(rematch_token) if rematch_token else None
            free = [i for i, s in enumerate(seats) if not s.taken
                    and (s.held_for is None or s.held_for == held)]
            mine = [i for i in free if held is not None and seats[i].held_for == held]
            if not free:
                raise ApiError(409, "conflict", "no seat is free at this table")
            index = (mine or free)[0]
            # As they show: "Bob\u200d" is "Bob" to everyone who reads it.
            taken = {shown_name(s.name) for s in seats if s.name}
            seated = name
            suffix = 2
            while shown_name(seated) in taken:
                seated = f"{name} {suffix}"
                suffix += 1
            token = secrets.token_urlsafe(24)
            seats[index] = seats[index].model_copy(update={
                "name": seated, "token_hash": token_hash(token), "held_for": None,
                **committed})
            try:  # the last seat: it and the first deal in one write, or the reveals
                await room.take_seat(seats, index)
            except StoreError:
                raise _unsaved() from None
            log.debug("table %s: seat %d taken", room.id, index,
                      extra={"table": room.id, "seq": room.row.seq})
        return index, token, seated

    async def reveal(self, table_id: str, token: str, client_seed: str) -> Room:
        """A seat reveals the seed it committed to (fair-2), once every seat is taken."""
        room = self.room(table_id)
        seat = self.seat_of(room, token)
        if seat is None:
            raise ApiError(403, "forbidden", "this token opens no seat at this table")
        check_seed(client_seed, None)
        async with room.lock:
            row = room.row.seats[seat]
            if row.revealed:
                if row.client_seed == client_seed and row.seed_hash:
                    return room  # told twice (a page reloaded): nothing changes
                raise ApiError(409, "conflict", "your seat has no seed waiting to be revealed")
            if not room.reveals.active():
                raise ApiError(409, "conflict", "seeds are revealed once every seat is taken "
                               "and committed; not yet")
            try:
                await room.reveals.reveal(seat, client_seed)
            except ValueError as exc:
                raise ApiError(400, "bad_request", str(exc)) from None
            except StoreError:
                raise _unsaved() from None
        return room

    async def start(self, table_id: str, host_token: str, fill: str | None) -> Room:
        """Fill the empty seats with bots and start. The host token does it; at a rematch
        so does the token of anyone seated there again (a player of the game before): the
        one who asked first may never come back, and the others must not be stranded."""
        room = self.room(table_id)
        is_host = secrets.compare_digest(token_hash(host_token), room.row.host_token_hash)
        if not is_host and not (room.row.settings.rematch_of
                                and self.seat_of(room, host_token) is not None):
            raise ApiError(403, "forbidden", "only the table's host can start it")
        if fill is not None and fill not in BUILTIN_BOTS:
            raise ApiError(400, "bad_request",
                           f"unknown bot; this server offers {', '.join(BUILTIN_BOTS)}")
        async with room.lock:
            if room.row.status != "waiting":
                raise ApiError(409, "conflict", f"the game is already {room.row.status}")
            if room.reveals.active():  # starting again must not move the reveal deadline
                raise ApiError(409, "conflict", "every seat is taken; the game starts once "
                               "the seeds are revealed")
            empty = [i for i, s in enumerate(room.row.seats) if not s.taken]
            if empty and fill is None:
                raise ApiError(409, "conflict", f"{len(empty)} seats are empty: give \"fill\"")
            seats = list(room.row.seats)
            names = iter(bot_seat_names([s.name for s in seats]))
            for i in empty:
                seats[i] = seats[i].model_copy(update={
                    "name": next(names), "bot": fill, "client_seed": "", "held_for": None})
            try:
                await room.begin(seats)
            except StoreError:
                raise _unsaved() from None
        return room

    def seat_of(self, room: Room, token: str) -> int | None:
        """The seat a token opens, or None."""
        digest = token_hash(token)
        for i, seat in enumerate(room.row.seats):
            stored = seat.token_hash
            if stored and secrets.compare_digest(stored, digest):
                return i
        return None

    def _list(self, room: Room) -> None:
        if room.row.public:
            self._listed_count += 1
            self._listed.append((self._listed_count, room))

    def public_page(self, limit: int = LOBBY_PAGE, after: str | None = None
                    ) -> tuple[bytes, str | None]:
        """:meth:`public_tables` as JSON, answered again as it was while nothing on it
        changed: every page polls the first one, and a loop of requests should cost no
        more than checking the ``seq`` of the tables on it. A page changes when a table
        on it changes (a seat taken, a start: a new ``seq``) or, if it is the last one,
        when a table is created (tables are only ever added at the end)."""
        key = (limit, after)
        cached = self._pages.get(key)
        if cached is not None:
            count, shown, body, cursor = cached
            if (cursor is not None or count == self._listed_count) and all(
                    room.row.seq == seq and room.row.status == "waiting"
                    for room, seq in shown):
                return body, cursor
        tables, cursor = self.public_tables(limit, after)
        body = json.dumps(tables, separators=(",", ":")).encode()
        if len(self._pages) > 1000:
            self._pages.clear()  # pages asked for once (cursors walked): forget them
        shown = [(self.rooms[t["table"]], self.rooms[t["table"]].row.seq) for t in tables]
        self._pages[key] = (self._listed_count, shown, body, cursor)
        return body, cursor

    async def shared_page(self, limit: int = LOBBY_PAGE, after: str | None = None
                          ) -> tuple[bytes, str | None]:
        """The public list from the store (``shared_list``: several processes), a page
        after the cursor ``after`` (``CREATED.ID`` of the last table of the page before)."""
        start: tuple[int, str] | None = None
        if after:
            created, _, last = after.partition(".")
            if not created.isdigit() or not _plausible_id(last):
                raise ApiError(400, "bad_request", "\"after\" is a cursor from a Link header")
            start = (int(created), last)
        loop = asyncio.get_running_loop()
        try:
            rows = await loop.run_in_executor(None, self.store.public_waiting, limit, start)
        except Exception as exc:
            log.warning("the public list could not be read: %s", _problem(exc))
            raise ApiError(503, "unavailable", "the list of tables cannot be read just now; "
                           "try again in a moment", RETRY_AFTER) from None
        out = [{"table": row.id, "players": row.settings.players,
                "edition": row.settings.edition, "variant": row.settings.variant,
                "seats_free": sum(1 for seat in row.seats if not seat.taken),
                "url": f"/t/{row.id}",
                "names": [seat.name for seat in row.seats if seat.name]}
               for row in rows]
        cursor = f"{rows[-1].created_at}.{rows[-1].id}" if len(rows) == limit else None
        return json.dumps(out, separators=(",", ":")).encode(), cursor

    def public_tables(self, limit: int = LOBBY_PAGE, after: str | None = None
                      ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of the public tables waiting for players, oldest first, from after the
        cursor ``after``; and the next page's cursor (``None`` on the last page). Costs
        the tables it shows and those it finds gone, which are then dropped."""
        start = 0
        if after:
            if not after.isdigit():
                raise ApiError(400, "bad_request", "\"after\" is a cursor from a Link header")
            start = bisect.bisect_right(self._listed, int(after), key=lambda entry: entry[0])
        out: list[dict[str, Any]] = []
        gone = 0
        i = start
        while i < len(self._listed) and len(out) < limit:
            _, room = self._listed[i]
            i += 1
            if room.row.status != "waiting" or self.rooms.get(room.id) is not room:
                gone += 1
            elif room.seats_free():
                s = room.row.settings
                out.append({"table": room.id, "players": s.players, "edition": s.edition,
                            "variant": s.variant, "seats_free": room.seats_free(),
                            "url": f"/t/{room.id}", "names": [
                                p["name"] for p in room.players() if p["name"]]})
        cursor = str(self._listed[i - 1][0]) if i < len(self._listed) else None
        if gone > limit:  # each table is dropped once: the sweeps cost what was listed
            self._listed = [(n, r) for n, r in self._listed
                            if r.row.status == "waiting" and self.rooms.get(r.id) is r]
        return out, cursor

    async def rematch(self, table_id: str, token: str, client_seed: str | None = None,
                      client_seed_hash: str | None = None
                      ) -> tuple[Room, int | None, str, str | None]:
        """The same people and bots, a new game and a new commitment.

        Returns the new table, the caller's seat there, the caller's new token (``""`` for
        the host without a seat) and the new table's host token for whoever created it (any
        player seated there again may start it too: :meth:`start`). The caller's seat
        commits to ``client_seed_hash`` (or ``client_seed``) as at :meth:`join`.
        """
        check_seed(client_seed, client_seed_hash)
        room = self.room(table_id)
        seat = self.seat_of(room, token)
        is_host = secrets.compare_digest(token_hash(token), room.row.host_token_hash)
        if seat is None and not is_host:
            raise ApiError(403, "forbidden", "only a player of this table can ask for a rematch")
        if room.row.status != "finished":
            raise ApiError(409, "conflict", "a rematch follows a finished game")
        host: str | None = None
        async with room.lock:
            if room.row.rematch is None:
                s = room.row.settings
                held = [seat_row.token_hash if seat_row.bot is None else None
                        for seat_row in room.row.seats]
                new, host = await self.create(
                    s.players, s.edition, s.variant,
                    [seat_row.bot for seat_row in room.row.seats],
                    s.turn_seconds, False, s.advisor, held,
                    rematch_of=room.id, options=options_of(room.row))
                new.creator = room.creator  # its bots wait their turns as the first game's
                try:
                    await room.set_rematch(new.id)
                except StoreError:
                    raise _unsaved() from None
            new = self.room(str(room.row.rematch))
        if seat is None:
            return new, None, "", host
        name = str(room.row.seats[seat].name)
        try:
            new_seat, new_token, _ = await self.join(new.id, name, client_seed, token,
                                                     client_seed_hash)
        except ApiError:
            raise ApiError(409, "conflict", "your seat at the rematch is taken already") from None
        return new, new_seat, new_token, host

    def forget_idle(self, quiet_for: float = FORGET_AFTER) -> int:
        """Forget the finished tables nobody has watched for ``quiet_for`` seconds: the
        store keeps them, and :meth:`room` loads one again when it is asked for, so that a
        long-running server holds the tables in play, not every game it ever served.
        Returns how many were forgotten. No ``await`` between the check and the removal:
        no connection can join a table in between."""
        now = self.settings.clock()
        gone = [tid for tid, room in self.rooms.items()
                if (since := room.idle_since()) is not None and now - since >= quiet_for]
        for tid in gone:
            self.rooms.pop(tid).stop()
            if self.on_forget is not None:
                self.on_forget(tid)
            log.debug("table %s forgotten here (finished, nobody watching)", tid,
                      extra={"table": tid})
        return len(gone)

    def abandoned(self, room: Room, now: float) -> bool:
        """Whether a waiting table has waited in vain (see :meth:`expire_abandoned`).

        A table no person has taken a seat at: ``expire_waiting`` seconds after it was
        made (or loaded here), however many watch it, since watching is free and anyone
        may do it: one client's spectator sockets held tables waiting for ever, and with
        enough of them every waiting table the server allows. A table people have joined:
        once nobody has been connected to it, nor has anything happened at it, for that
        long (its people may still be on their way back)."""
        if room.row.status != "waiting":
            return False
        if not room.people_seated():
            return now - room.opened_at >= self.expire_waiting
        return not room.presence.conns and now - room.last_active >= self.expire_waiting

    async def expire_abandoned(self) -> int:
        """Expire the waiting tables that waited in vain (:meth:`abandoned`): marked
        ``expired`` in the store, their spectators told and let go, forgotten here, and
        never loaded again. Returns how many (a table whose write fails stays as it was,
        and is tried again next time)."""
        now = self.settings.clock()
        gone = [room for room in self.rooms.values()
                if not room.lock.locked() and self.abandoned(room, now)]
        count = 0
        for room in gone:
            async with room.lock:
                if not self.abandoned(room, now):
                    continue  # someone came while the others were written
                try:
                    await room.expire()
                except StoreError:
                    continue
                self.rooms.pop(room.id, None)
                room.stop()
                if self.on_forget is not None:
                    self.on_forget(room.id)
                count += 1
        return count

    async def keep_tidy(self, every: float = FORGET_AFTER) -> None:
        """Forget idle finished tables and expire abandoned waiting ones every ``every``
        seconds, until cancelled."""
        while True:
            await asyncio.sleep(min(every, self.expire_waiting))
            self.forget_idle()
            expired = await self.expire_abandoned()
            if expired:
                log.info("%d abandoned waiting tables expired", expired)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.close()


def _unsaved() -> ApiError:
    """Its database or, with several processes, Redis did not answer (which one is in the
    server's log): either way nothing was written and nothing changed."""
    return ApiError(503, "unavailable", "the server cannot reach its storage just now, so "
                    "nothing changed; try again in a moment", RETRY_AFTER)


def _problem(exc: Exception) -> str:
    """Why a table could not be loaded, in one short line for the log."""
    return one_line(f"{type(exc).__name__}: {exc}")[:300]


def _plausible_id(table_id: str) -> bool:
    return 1 <= len(table_id) <= 32 and all(c in ID_ALPHABET for c in table_id)
