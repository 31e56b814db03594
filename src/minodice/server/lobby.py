"""The tables of one server: creating them, taking seats, starting, rematches, restarts.

The HTTP routes (:mod:`minodice.server.app`) are thin: they read a request, call one method
here, and write its answer. Errors are :class:`ApiError` with a protocol code
(``bad_request``, ``not_found``, ``forbidden``, ``conflict``) and a sentence.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import unicodedata
from typing import Any

from minodice.bots.protocol import BUILTIN_BOTS
from minodice.core.fair import commitment
from minodice.server.botpool import BotPool
from minodice.server.room import Room, Settings, bot_seat_names, token_hash
from minodice.server.store import Store, StoreError, TableRow, now_ms
from minodice.text.safe import one_line

log = logging.getLogger("minodice.server")

NAME_MAX = 24
FORGET_AFTER = 120.0  # seconds a finished table nobody watches stays in memory
ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: readable in a link


class ApiError(Exception):
    """A refused request: ``status`` (4xx), protocol ``code`` and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def clean_name(name: str) -> str:
    """A person's name as typed, trimmed; refused if empty, too long or with control
    characters (it is shown literally everywhere, so nothing else is taken out)."""
    name = name.strip()
    if not name or len(name) > NAME_MAX:
        raise ApiError(400, "bad_request", f"a name is 1 to {NAME_MAX} characters")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in name):
        raise ApiError(400, "bad_request", "a name may not hold control characters")
    return name


def new_id() -> str:
    return "".join(secrets.choice(ID_ALPHABET) for _ in range(10))


class Lobby:
    """Every table of this server, in memory and in the store."""

    def __init__(self, store: Store, pool: BotPool, settings: Settings) -> None:
        self.store = store
        self.pool = pool
        self.settings = settings
        self.rooms: dict[str, Room] = {}
        self.damaged: dict[str, str] = {}  # table id -> why it could not be loaded

    # -- loading -----------------------------------------------------------------------------

    async def resume_all(self) -> int:
        """Load every unfinished table (after a start or a crash); returns how many.

        A table that cannot be loaded (its log damaged, its row broken) is set aside with
        its id and the reason in the log; every sound table is served all the same.
        """
        count = 0
        for table_id in self.store.ids(["waiting", "playing"]):
            try:
                room = self.room(table_id)
            except ApiError:
                continue  # set aside, and said in the log by room()
            async with room.lock:
                if room.row.status == "waiting" and room.seats_free() == 0:
                    await room._start_stranded()
            room.watch_all_absent()
            room._arm_clock()
            room.kick()
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
                room = Room(row, self.store, self.pool, self.settings)
            except ApiError:
                raise
            except Exception as exc:  # a damaged log or row: anything its replay raises
                reason = self.damaged[table_id] = _problem(exc)
                log.error("table %s is damaged and set aside: %s (see: minodice table %s)",
                          table_id, reason, table_id)
            else:
                self.rooms[table_id] = room
                return room
        if reason is not None:
            raise ApiError(503, "damaged", "this table's saved game is damaged, so the server "
                           "has set it aside; its operator can inspect it")
        raise ApiError(404, "not_found", "no such table")

    # -- tables and seats --------------------------------------------------------------------

    async def create(self, players: int, edition: str, variant: str,
                     bots: list[str | None] | None,
               turn_seconds: int | None, public: bool, advisor: bool = True,
               held: list[str | None] | None = None) -> tuple[Room, str]:
        """A new table; returns it and the host token."""
        if bots is not None and len(bots) != players:
            raise ApiError(400, "bad_request", f"\"bots\" needs one entry per seat ({players})")
        levels = bots or [None] * players
        for level in levels:
            if level is not None and level not in BUILTIN_BOTS:
                raise ApiError(400, "bad_request",
                               f"unknown bot; this server offers {', '.join(BUILTIN_BOTS)}")
        names = iter(bot_seat_names([]))
        seats: list[dict[str, Any]] = []
        for i, level in enumerate(levels):
            seat: dict[str, Any] = {"name": None, "bot": level, "client_seed": ""}
            if level is not None:
                seat["name"] = next(names)
            if held is not None and held[i] is not None:
                seat["held_for"] = held[i]
            seats.append(seat)
        server_seed = secrets.token_bytes(32)  # the OS's secure generator (PROTOCOL.md 1)
        host_token = secrets.token_urlsafe(24)
        row = TableRow(
            id=new_id(), created_at=now_ms(), status="waiting", public=public,
            settings={"players": players, "edition": edition, "variant": variant,
                      "turn_seconds": turn_seconds, "advisor": advisor,
                      "first_starter": secrets.randbelow(players)},
            seats=seats, host_token_hash=token_hash(host_token),
            server_seed=server_seed.hex(), commit=commitment(server_seed), seq=1)
        try:
            await self.store.create_async(row)
        except StoreError:
            raise _unsaved() from None
        room = self.rooms[row.id] = Room(row, self.store, self.pool, self.settings)
        return room, host_token

    async def maybe_start_new(self, room: Room) -> None:
        """A table whose seats are all taken at creation (bots only) starts at once (or,
        if that cannot be written now, when someone first connects to it)."""
        async with room.lock:
            if room.row.status == "waiting" and room.seats_free() == 0:
                await room._start_stranded()

    async def join(self, table_id: str, name: str, client_seed: str | None,
                   rematch_token: str | None = None) -> tuple[int, str, str]:
        """Take a free seat; returns (seat, token, the name as seated)."""
        room = self.room(table_id)
        name = clean_name(name)
        if client_seed is not None and len(client_seed) > 64:
            raise ApiError(400, "bad_request", "a client_seed is at most 64 characters")
        async with room.lock:
            if room.row.status != "waiting":
                raise ApiError(409, "conflict", "the game has started; watch it instead")
            seats = [dict(s) for s in room.row.seats]
            held = token_hash(rematch_token) if rematch_token else None
            free = [i for i, s in enumerate(seats) if s.get("name") is None
                    and (s.get("held_for") is None or s.get("held_for") == held)]
            mine = [i for i in free if held is not None and seats[i].get("held_for") == held]
            if not free:
                raise ApiError(409, "conflict", "no seat is free at this table")
            index = (mine or free)[0]
            taken = {s.get("name") for s in seats if s.get("name")}
            seated = name
            suffix = 2
            while seated in taken:
                seated = f"{name} {suffix}"
                suffix += 1
            token = secrets.token_urlsafe(24)
            seats[index].update(name=seated, token_hash=token_hash(token),
                                client_seed=client_seed or "")
            seats[index].pop("held_for", None)
            try:
                if any(s.get("name") is None for s in seats):
                    await room._commit(seats=seats)
                else:  # the last seat: it and the first deal in one write
                    await room.start(seats=seats)
            except StoreError:
                raise _unsaved() from None
            room.away_since[index] = self.settings.clock()
            room._watch_absence(index)
        return index, token, seated

    async def start(self, table_id: str, host_token: str, fill: str | None) -> Room:
        room = self.room(table_id)
        if not secrets.compare_digest(token_hash(host_token), room.row.host_token_hash):
            raise ApiError(403, "forbidden", "only the table's host can start it")
        if fill is not None and fill not in BUILTIN_BOTS:
            raise ApiError(400, "bad_request",
                           f"unknown bot; this server offers {', '.join(BUILTIN_BOTS)}")
        async with room.lock:
            if room.row.status != "waiting":
                raise ApiError(409, "conflict", f"the game is already {room.row.status}")
            empty = [i for i, s in enumerate(room.row.seats) if s.get("name") is None]
            if empty and fill is None:
                raise ApiError(409, "conflict", f"{len(empty)} seats are empty: give \"fill\"")
            seats = [dict(s) for s in room.row.seats]
            names = iter(bot_seat_names([s.get("name") for s in seats]))
            for i in empty:
                seats[i].update(name=next(names), bot=fill, client_seed="")
                seats[i].pop("held_for", None)
            try:
                await room.start(seats=seats)
            except StoreError:
                raise _unsaved() from None
        return room

    def seat_of(self, room: Room, token: str) -> int | None:
        """The seat a token opens, or None."""
        digest = token_hash(token)
        for i, seat in enumerate(room.row.seats):
            stored = seat.get("token_hash")
            if stored and secrets.compare_digest(stored, digest):
                return i
        return None

    def public_tables(self) -> list[dict[str, Any]]:
        out = []
        for room in list(self.rooms.values()):
            if room.row.public and room.row.status == "waiting" and room.seats_free():
                s = room.row.settings
                out.append({"table": room.id, "players": s["players"], "edition": s["edition"],
                            "variant": s["variant"], "seats_free": room.seats_free(),
                            "url": f"/t/{room.id}", "names": [
                                p["name"] for p in room.players() if p["name"]]})
        return out

    async def rematch(self, table_id: str, token: str) -> tuple[Room, int | None, str]:
        """The same people and bots, a new game and a new commitment.

        Returns the new table, the caller's seat there and the caller's new token (or the
        new host token when the caller was the host without a seat).
        """
        room = self.room(table_id)
        seat = self.seat_of(room, token)
        is_host = secrets.compare_digest(token_hash(token), room.row.host_token_hash)
        if seat is None and not is_host:
            raise ApiError(403, "forbidden", "only a player of this table can ask for a rematch")
        if room.row.status != "finished":
            raise ApiError(409, "conflict", "a rematch follows a finished game")
        async with room.lock:
            if room.row.rematch is None:
                s = room.row.settings
                held = [seat_row.get("token_hash") if seat_row.get("bot") is None else None
                        for seat_row in room.row.seats]
                new, _host = await self.create(
                    s["players"], s["edition"], s["variant"],
                    [seat_row.get("bot") for seat_row in room.row.seats],
                    s.get("turn_seconds"), False, s.get("advisor", True), held)
                try:
                    await room._commit(rematch=new.id)
                except StoreError:
                    raise _unsaved() from None
            new = self.room(str(room.row.rematch))
        if seat is None:
            return new, None, ""
        name = str(room.row.seats[seat]["name"])
        try:
            new_seat, new_token, _ = await self.join(new.id, name, None, token)
        except ApiError:
            raise ApiError(409, "conflict", "your seat at the rematch is taken already") from None
        return new, new_seat, new_token

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
        return len(gone)

    async def keep_tidy(self, every: float = FORGET_AFTER) -> None:
        """Forget idle finished tables every ``every`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(every)
            self.forget_idle()

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.close()


def _unsaved() -> ApiError:
    return ApiError(503, "unavailable", "the server could not save this just now, so "
                    "nothing changed; try again in a moment")


def _problem(exc: Exception) -> str:
    """Why a table could not be loaded, in one short line for the log."""
    return one_line(f"{type(exc).__name__}: {exc}")[:300]


def _plausible_id(table_id: str) -> bool:
    return 1 <= len(table_id) <= 32 and all(c in ID_ALPHABET for c in table_id)
