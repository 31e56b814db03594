"""The web application: HTTP for tables and seats, a WebSocket per seat or spectator.

Routes are thin (after Starlette/FastAPI's own advice): each reads its request, calls the
:class:`~minodice.server.lobby.Lobby` or a :class:`~minodice.server.room.Room`, and writes
the answer. The store, the bot pool and the clock come in through :func:`create_app`, so
tests build the same app around their own. Every refusal is ``{"error": {"code",
"message"}}`` with a protocol code; nothing internal (no traceback, no path) is ever sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Literal
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException
from starlette.websockets import WebSocketDisconnect

from minodice import __version__
from minodice.bots.advisor import AdviceError
from minodice.bots.odds import OddsError
from minodice.core.dice import BUILTIN_DICE_SETS, load_dice_set
from minodice.i18n import LANGUAGES, translator
from minodice.i18n.rules import rules_paragraphs
from minodice.i18n.words import Words
from minodice.server.botpool import BotPool, advice_json, trick_odds_json
from minodice.server.collector import keep_collections_short
from minodice.server.lobby import ApiError, Lobby
from minodice.server.protocol import (
    MAX_MESSAGE,
    Act,
    BadMessageError,
    dumps,
    error_message,
    parse_client_message,
)
from minodice.server.room import Room, Settings
from minodice.server.store import Store
from minodice.server.web import PAGE_HEADERS, STATIC, catalogue_messages, dice_set_json

log = logging.getLogger("minodice.server")

BotName = Literal["random", "easy", "medium", "hard"]
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class CreateTable(BaseModel):
    """``POST /api/tables``."""

    model_config = ConfigDict(strict=True, extra="ignore")
    players: int = Field(4, ge=3, le=6)
    edition: Literal["mino", "skull-king"] = "mino"
    variant: Literal["standard", "simplified"] = "standard"
    bots: list[BotName | None] | None = Field(None, description="one per seat; null = a person")
    turn_seconds: int | None = Field(None, ge=5, le=3600)
    public: bool = False
    advisor: bool = Field(True, description="whether the bid advisor may be used at this table")


class JoinSeat(BaseModel):
    """``POST /api/tables/ID/seats``."""

    model_config = ConfigDict(strict=True, extra="ignore")
    name: str = Field(min_length=1, max_length=64)
    client_seed: str | None = Field(None, max_length=64)
    rematch_token: str | None = Field(None, max_length=100,
                                      description="a seat's token of the game before: "
                                      "takes the same seat at its rematch")


class StartTable(BaseModel):
    """``POST /api/tables/ID/start``."""

    model_config = ConfigDict(strict=True, extra="ignore")
    host_token: str = Field(max_length=100)
    fill: BotName | None = None


class AdviseRequest(BaseModel):
    """``POST /api/advise``: the dice behind your screen and where you sit."""

    model_config = ConfigDict(strict=True, extra="ignore")
    players: int = Field(ge=3, le=6)
    round: int = Field(ge=1, le=8)
    seat: int = Field(ge=0, le=5, description="places after the round's start player (0: you "
                      "start)")
    hand: list[str] = Field(min_length=1, max_length=8)
    edition: Literal["mino", "skull-king"] = "mino"
    variant: Literal["standard", "simplified"] = "standard"
    announced: list[int | None] | None = Field(
        None, max_length=6, description="bids already announced, by seat after the start "
        "player (null where unknown); those players then play for them")


class RolledDie(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    die: str = Field(max_length=20)
    face: int | str = Field(description="a face as in RECORD.md: 1–7, \"flag\" or a symbol")


class TrickOddsRequest(BaseModel):
    """``POST /api/odds/trick``: your dice and the trick so far."""

    model_config = ConfigDict(strict=True, extra="ignore")
    players: int = Field(ge=3, le=6)
    hand: list[str] = Field(min_length=1, max_length=8)
    rolled: list[RolledDie] = Field(default_factory=list, max_length=5)
    edition: Literal["mino", "skull-king"] = "mino"


class Rematch(BaseModel):
    """``POST /api/tables/ID/rematch``."""

    model_config = ConfigDict(strict=True, extra="ignore")
    token: str = Field(max_length=100)


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class Limits:
    """Per-client token buckets: ``rate`` a second, up to ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        tokens, last = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        if len(self._buckets) > 50_000:
            self._buckets.clear()  # forget old clients rather than grow without end
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1, now)
        return True


class GuardMiddleware:
    """Refuses HTTP bodies over the size limit and clients over the request rate, before
    any route sees them (pure ASGI: no buffering of what it lets through)."""

    def __init__(self, app: ASGIApp, max_body: int, limits: Limits) -> None:
        self.app = app
        self.max_body = max_body
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client") or ("?", 0)
        if scope["method"] != "GET" and not self.limits.allow(str(client[0])):
            await _send_json(send, 429, "rate_limited", "too many requests; try again shortly")
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _send_json(send, 413, "too_large", f"a request body is at most "
                             f"{self.max_body} bytes")
            return
        seen = 0
        too_large = started = False

        async def limited() -> Message:
            nonlocal seen, too_large
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_body:
                too_large = True
                raise _TooLargeError
            return message

        async def guarded(message: Message) -> None:
            # FastAPI answers a body it could not read with its own 400: replaced by the 413.
            nonlocal started
            if too_large:
                return
            started = True
            await send(message)

        with contextlib.suppress(_TooLargeError):
            await self.app(scope, limited, guarded)
        if too_large and not started:
            await _send_json(send, 413, "too_large", "request body too large")


class _TooLargeError(Exception):
    pass


async def _send_json(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class Connection:
    """One WebSocket: an outbox drained by its own writer task, so that a slow client
    never holds up a table, and a client that falls far behind is let go."""

    MAX_QUEUED = 500

    def __init__(self, websocket: WebSocket, seat: int | None) -> None:
        self.websocket = websocket
        self.seat = seat
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.writer = asyncio.ensure_future(self._write())
        self.chat_times: list[float] = []

    def send(self, text: str) -> None:
        if self.queue.qsize() > self.MAX_QUEUED:
            self.queue.put_nowait(None)  # too far behind: close
            return
        self.queue.put_nowait(text)

    async def _write(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                text = await self.queue.get()
                if text is None:
                    await self.websocket.close(code=1008)
                    return
                await self.websocket.send_text(text)

    async def close(self) -> None:
        self.writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.writer


def _origin_allowed(websocket: WebSocket, allowed: tuple[str, ...]) -> bool:
    """Browsers always send ``Origin``; it must name this site (or an allowed one).
    Clients that send none (bots, scripts) are let in by their token."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in allowed:
        return True
    host = websocket.headers.get("host", "")
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc == host


def create_app(
    store: Store,
    settings: Settings | None = None,
    pool: BotPool | None = None,
    allowed_origins: tuple[str, ...] = (),
    http_rate: float = 20.0,
    http_burst: float = 60.0,
    ws_rate: float = 20.0,
    freeze_every: float = 0.0,
) -> FastAPI:
    """The server's ASGI app around ``store`` (see the module docstring).

    ``freeze_every``: seconds between freezes of the garbage collector's long-lived objects
    (:mod:`.collector`; ``minodice serve`` turns it on, 0 leaves the collector alone).
    """
    settings = settings or Settings()
    bot_pool = pool or BotPool()
    lobby = Lobby(store, bot_pool, settings)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        resumed = await lobby.resume_all()
        if resumed:
            log.info("resumed %d unfinished tables", resumed)
        if lobby.damaged:
            log.error("%d tables are damaged and set aside: %s", len(lobby.damaged),
                      ", ".join(sorted(lobby.damaged)))
        warm = asyncio.ensure_future(bot_pool.warm_up())
        collecting = asyncio.ensure_future(keep_collections_short(freeze_every))
        tidying = asyncio.ensure_future(lobby.keep_tidy())
        yield
        tidying.cancel()
        collecting.cancel()
        warm.cancel()
        await lobby.close()
        bot_pool.close()
        store.close()

    app = FastAPI(title="minodice", version=__version__, lifespan=lifespan,
                  description="Mino Dice tables: the HTTP part of the `minodice-table` "
                  "protocol (docs/PROTOCOL.md). Play goes over `GET /ws/ID?token=T`.")
    app.state.lobby = lobby

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        what = str(first.get("msg", "invalid request"))[:120]
        return _error(400, "bad_request", f"{where}: {what}" if where else what)

    @app.exception_handler(HTTPException)
    async def _http(_request: Request, exc: HTTPException) -> JSONResponse:
        code = {404: "not_found", 403: "forbidden", 409: "conflict", 413: "too_large",
                429: "rate_limited"}.get(exc.status_code, "bad_request")
        return _error(exc.status_code, code, str(exc.detail)[:200])

    @app.exception_handler(Exception)
    async def _internal(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("internal error")
        return _error(500, "internal", "internal error")

    page = (STATIC / "index.html").read_text("utf-8")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    @app.get("/about", response_class=HTMLResponse, include_in_schema=False)
    @app.get("/pad", response_class=HTMLResponse, include_in_schema=False)
    @app.get("/odds", response_class=HTMLResponse, include_in_schema=False)
    @app.get("/t/{table_id}", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> HTMLResponse:
        """The page (lobby, table, about): one document; its script reads the address."""
        return HTMLResponse(page, headers=PAGE_HEADERS)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> FileResponse:
        """At the site's root, so that it may keep every page for offline use."""
        return FileResponse(STATIC / "sw.js", media_type="text/javascript",
                            headers={"cache-control": "no-cache"})

    @app.get("/api/i18n/{lang}")
    async def translations(lang: str) -> dict[str, Any]:
        """The page's translations, from the same catalogues as the terminal's."""
        if lang not in LANGUAGES:
            raise ApiError(404, "not_found", f"no language {lang[:8]!r}; "
                           f"there are {', '.join(LANGUAGES)}")
        return {"lang": lang, "messages": catalogue_messages(lang)}

    @app.get("/api/dice/{edition}")
    async def dice(edition: str) -> dict[str, Any]:
        """A dice set as the page draws and checks it: kinds in bag order, faces in order."""
        if edition not in BUILTIN_DICE_SETS:
            raise ApiError(404, "not_found", "no such edition; there are mino and skull-king")
        return dice_set_json(edition)

    @app.get("/api/rules/{lang}")
    async def rules(lang: str, edition: str = "mino") -> dict[str, Any]:
        """The rules in brief, translated, in the edition's words."""
        if lang not in LANGUAGES or edition not in BUILTIN_DICE_SETS:
            raise ApiError(404, "not_found", "no such language or edition")
        words = Words(translator(lang), load_dice_set(edition))
        return {"lang": lang, "edition": edition, "paragraphs": rules_paragraphs(words)}

    @app.post("/api/advise")
    async def advise_bid(body: AdviseRequest) -> dict[str, Any]:
        """The bid advisor (the ``hard`` bot's model of play) for a hand, in a worker."""
        try:
            return await bot_pool.run(advice_json, body.players, body.round, body.seat,
                                      ",".join(body.hand), body.edition, body.variant,
                                      body.announced)
        except AdviceError as exc:
            raise ApiError(400, "bad_request", str(exc)) from None
        except (TimeoutError, BrokenProcessPool):
            raise ApiError(503, "unavailable", "the advisor is busy; try again") from None

    @app.post("/api/odds/trick")
    async def odds_in_trick(body: TrickOddsRequest) -> dict[str, Any]:
        """During a trick: each of your dice's chance to take it (model: bots/odds.py)."""
        rolled = [(r.die, r.face) for r in body.rolled]
        try:
            return await bot_pool.run(trick_odds_json, body.players, body.hand, rolled,
                                      body.edition)
        except OddsError as exc:
            raise ApiError(400, "bad_request", str(exc)) from None
        except (TimeoutError, BrokenProcessPool):
            raise ApiError(503, "unavailable", "busy; try again") from None

    @app.post("/api/tables", status_code=201)
    async def create_table(body: CreateTable) -> dict[str, Any]:
        """Create a table; bot seats are taken at once, the rest wait for people."""
        room, host_token = await lobby.create(body.players, body.edition, body.variant,
                                        list(body.bots) if body.bots is not None else None,
                                        body.turn_seconds, body.public, body.advisor)
        await lobby.maybe_start_new(room)
        return {"table": room.id, "url": f"/t/{room.id}", "host_token": host_token,
                "commit": room.row.commit}

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        """The public tables waiting for players."""
        return lobby.public_tables()

    @app.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> dict[str, Any]:
        return lobby.room(table_id).info()

    @app.post("/api/tables/{table_id}/seats", status_code=201)
    async def join(table_id: str, body: JoinSeat) -> dict[str, Any]:
        """Take a free seat; the answer's token plays it (keep it secret)."""
        seat, token, name = await lobby.join(table_id, body.name, body.client_seed,
                                             body.rematch_token)
        return {"seat": seat, "token": token, "name": name}

    @app.post("/api/tables/{table_id}/start")
    async def start(table_id: str, body: StartTable) -> dict[str, Any]:
        room = await lobby.start(table_id, body.host_token, body.fill)
        return {"table": room.id, "status": room.row.status}

    @app.post("/api/tables/{table_id}/rematch", status_code=201)
    async def rematch(table_id: str, body: Rematch) -> dict[str, Any]:
        """A new game for the same people and bots (a new commitment): the first player
        to ask creates it, every player asking gets their same seat and a new token."""
        room, seat, token = await lobby.rematch(table_id, body.token)
        return {"table": room.id, "url": f"/t/{room.id}", "commit": room.row.commit,
                "seat": seat, "token": token or None}

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str) -> JSONResponse:
        """The finished game's record (RECORD.md) with its ``fairness`` key."""
        room = lobby.room(table_id)
        if room.row.status != "finished":
            raise ApiError(409, "conflict", "the record is ready when the game is over")
        return JSONResponse(room.record(), headers={
            "content-disposition": f'attachment; filename="minodice-{room.id}.json"'})

    @app.websocket("/ws/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        if not _origin_allowed(websocket, allowed_origins):
            await websocket.close(code=1008)  # before accepting: the handshake gets a 403
            return
        await websocket.accept()
        try:
            room = lobby.room(table_id)
        except ApiError as exc:
            await websocket.send_text(dumps(error_message(exc.code, exc.message)))
            await websocket.close(code=4404)
            return
        token = websocket.query_params.get("token")
        seat = None
        if token:
            seat = lobby.seat_of(room, token)
            if seat is None:
                await websocket.send_text(dumps(error_message(
                    "forbidden", "this token opens no seat at this table")))
                await websocket.close(code=4403)
                return
        await _serve_connection(websocket, room, seat, Limits(ws_rate, ws_rate))

    app.add_middleware(GuardMiddleware, max_body=MAX_MESSAGE, limits=Limits(http_rate,
                                                                             http_burst))
    return app


async def _serve_connection(websocket: WebSocket, room: Room, seat: int | None,
                            limits: Limits) -> None:
    conn = Connection(websocket, seat)
    refused = in_row = 0
    try:
        await room.connect(conn)
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if not limits.allow("c"):
                refused += 1
                in_row += 1
                if refused > 200:
                    break  # a flood, not a client
                # The first refusal of every burst is told (a client must know its act was
                # dropped, or it waits for ever); a flood hears of it every 20 messages.
                if in_row % 20 == 1:
                    conn.send(dumps(error_message("rate_limited",
                                                  "at most 20 messages a second")))
                continue
            in_row = 0
            text = message.get("text")
            if text is None:
                conn.send(dumps(error_message("bad_message", "messages are JSON text")))
                continue
            try:
                parsed = parse_client_message(text)
            except BadMessageError as exc:
                conn.send(dumps(error_message(exc.code, exc.message)))
                continue
            if isinstance(parsed, Act):
                await room.on_act(conn, parsed)
            elif _chat_allowed(conn):
                await room.on_chat(conn, parsed)
            else:
                conn.send(dumps(error_message("rate_limited", "at most 5 chat lines in 10 s")))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await room.disconnect(conn)
        await conn.close()


def _chat_allowed(conn: Connection) -> bool:
    now = time.monotonic()
    conn.chat_times = [t for t in conn.chat_times if now - t < 10]
    if len(conn.chat_times) >= 5:
        return False
    conn.chat_times.append(now)
    return True
