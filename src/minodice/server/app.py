"""The web application: HTTP for tables and seats, a WebSocket per seat or spectator.

Routes are thin (after Starlette/FastAPI's own advice): each reads its request, calls the
:class:`~minodice.server.lobby.Lobby` or a :class:`~minodice.server.room.Room`, and writes
the answer. The store, the bot pool and the clock come in through :func:`create_app`, so
tests build the same app around their own. Every refusal is ``{"error": {"code",
"message"}}`` with a protocol code; nothing internal (no traceback, no path) is ever sent.

No client may starve the others (PROTOCOL.md, Limits): every HTTP request and WebSocket
connection is counted against its address (the direct peer; ``X-Forwarded-For`` only from
proxies ``minodice serve --forwarded-allow-ips`` names, which uvicorn resolves before this
app sees the request), reads as well as writes; chat is limited per seat and per address;
a seat's sockets and a table's spectators are capped; the advisor has workers and a queue
of its own. The connection-level guards (header timeout, connection cap) are in
:mod:`minodice.server.connections`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import socket
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, MutableMapping
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.websockets import WebSocketDisconnect

from minodice import __version__
from minodice.bots.advisor import AdviceError
from minodice.bots.odds import OddsError
from minodice.core.dice import BUILTIN_DICE_SETS, load_dice_set
from minodice.core.jsontext import loads_strict
from minodice.core.rules import RuleOptions
from minodice.i18n import LANGUAGES, translator
from minodice.i18n.rules import rules_paragraphs
from minodice.i18n.words import Words
from minodice.server.botpool import BotPool, PoolBusyError, advice_json, trick_odds_json
from minodice.server.cluster import FORWARD_HEADER, Cluster, OwnerGoneError
from minodice.server.collector import keep_collections_short
from minodice.server.connections import client_address
from minodice.server.lobby import LOBBY_PAGE, LOBBY_PAGE_MAX, RETRY_AFTER, ApiError, Lobby
from minodice.server.ops import CollectionTimer, operations_router, watch_loop_lag
from minodice.server.protocol import (
    MAX_MESSAGE,
    MOVED,
    TABLE_EXPIRED,
    Act,
    BadMessageError,
    Chat,
    dumps,
    error_message,
    parse_client_message,
)
from minodice.server.replays import (
    ANALYSIS_TIMEOUT,
    MAX_UPLOADED_RECORD,
    UPLOADS,
    Analyses,
    add_routes,
)
from minodice.server.room import Room, Settings, token_hash
from minodice.server.rows import Seat
from minodice.server.store import Store
from minodice.server.web import (
    PAGE_HEADERS,
    STATIC,
    GameMeta,
    MinifiedFiles,
    catalogue_messages,
    dice_set_json,
    game_meta,
    meta_module,
    minified,
)
from minodice.wire.http import (
    Advice,
    AdviseRequest,
    CreateTable,
    DiceSetInfo,
    GameRecord,
    JoinSeat,
    MessageSchema,
    PublicTable,
    Rematch,
    RematchCreated,
    RevealSeed,
    RulesText,
    SchemaIndex,
    SeatTaken,
    StartTable,
    TableCreated,
    TableInfo,
    TableStatus,
    Translations,
    TrickOdds,
    TrickOddsRequest,
    error_answers,
)
from minodice.wire.schema import SCHEMAS, json_schema, schema_index

log = logging.getLogger("minodice.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def _error(status: int, code: str, message: str,
           retry_after: int | None = None) -> JSONResponse:
    """The error answer. A message quoting what a client sent may hold a lone surrogate
    (JSON's "\\ud800" reads as one), which UTF-8 cannot write: it is sent escaped, as
    text, never as a 500."""
    headers = {"retry-after": str(retry_after)} if retry_after is not None else None
    message = message.encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                        headers=headers)


def is_json_type(content_type: str) -> bool:
    """Whether a ``Content-Type`` says JSON, as FastAPI tells it (``application/json``,
    ``application/…+json``, parameters allowed)."""
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/")
                                          and kind.endswith("+json"))


class Utf8JsonRequest(Request):
    """A request whose JSON body must be UTF-8 (RFC 8259: JSON between systems is), a
    byte order mark allowed. Starlette's ``json()`` guesses UTF-16 and UTF-32 too and lets
    UTF-8-encoded surrogates through, and any body it cannot decode became FastAPI's
    generic "There was an error parsing the body": here it is a ``400 bad_request`` that
    says what is wrong, and where."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                text = body.decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise HTTPException(400, "the body is not UTF-8 JSON (byte "
                                    f"{exc.start} is not UTF-8)") from None
            # JSONDecodeError: FastAPI's "json_invalid"; NaN or a key twice: a bad request
            try:
                self._json = loads_strict(text)
            except json.JSONDecodeError:
                raise
            except ValueError as exc:
                raise HTTPException(400, f"the body is not valid JSON: {exc}"[:200]) from None
            except RecursionError:
                raise HTTPException(400, "the body is not valid JSON: nested too "
                                    "deeply") from None
        return self._json


class Utf8JsonRoute(APIRoute):
    """An API route reading its JSON body as :class:`Utf8JsonRequest` (FastAPI's way of
    changing how a body is read: a route class of the app's router)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def utf8_handler(request: Request) -> Response:
            return await handler(Utf8JsonRequest(request.scope, request.receive))

        return utf8_handler


class Limits:
    """Per-client token buckets: ``rate`` a second, up to ``burst`` at once.

    At most ``clients`` buckets are kept, the least recently used going first. Before,
    all were dropped at once past 50,000, and a flood from that many addresses (easy over
    IPv6) handed every client, the flood's own first, a fresh burst."""

    def __init__(self, rate: float, burst: float, clients: int = 50_000) -> None:
        self.rate = rate
        self.burst = burst
        self.clients = clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        while len(self._buckets) >= self.clients:
            self._buckets.popitem(last=False)  # the longest idle: likely full again
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return False
        self._buckets[key] = (tokens - 1, now)
        return True


@dataclass(frozen=True)
class Caps:
    """What one client may use of the server (``minodice serve`` options, PROTOCOL.md
    Limits): beyond it, it is refused and the other tables do not notice."""

    read_rate: float = 10.0         # GET requests a second per address ...
    read_burst: float = 60.0        # ... up to this many at once (a page load)
    tables_burst: float = 60.0      # tables one address may create at once ...
    tables_rate: float = 0.1        # ... and then a second
    all_tables_burst: float = 100.0  # tables all addresses together may create at once ...
    all_tables_rate: float = 10.0    # ... and then a second
    max_waiting: int = 1000         # tables waiting for people, in all ...
    waiting_per_address: int = 100  # ... and of those made from one address
    expire_waiting: float = 1800.0  # s: a waiting table nobody joined, or all left, expires
    sockets_per_seat: int = 4       # WebSockets one seat may hold open at once
    spectators: int = 50            # spectators' WebSockets at one table
    sockets_per_address: int = 200  # WebSockets open at once from one address (a school's NAT)
    connect_burst: float = 20.0     # WebSocket connections one address may open at once ...
    connect_rate: float = 1.0       # ... and then a second
    chat_burst: float = 15.0        # chat lines from one address at once ...
    chat_rate: float = 1.5          # ... and then a second
    advice_queue: int = 8           # advice/odds requests waiting for a worker, in all
    advice_burst: float = 10.0      # advice/odds requests one address may make at once ...
    advice_rate: float = 1.0        # ... and then a second (a person asks, a loop floods)
    refusal_delay: float = 1.0      # s before a request over its address's rate is refused


def wants_page(request: Request) -> bool:
    """A browser asking for a document outside the API (not ``/api/``, ``/static/``...)."""
    path = request.url.path
    return (request.method in ("GET", "HEAD")
            and not path.startswith(("/api/", "/static/", "/ws/"))
            and "text/html" in request.headers.get("accept", ""))


class GuardMiddleware:
    """Refuses HTTP bodies over the size limit and clients over the request rate, before
    any route sees them (pure ASGI: no buffering of what it lets through). Reads are
    limited too, in a bucket of their own: they are cheaper than writes, but a loop of
    them could still take the event loop from every table.

    A refusal for the rate comes after ``refusal_delay`` seconds: a client looping on its
    connection (as a flood does) then asks once per delay instead of as fast as the
    server can say no, and even the refusals (~600 a second from 8 looping clients,
    measured) stop costing the tables. A sleeping request costs a timer, and the
    connections that may wait so are capped (:mod:`.connections`)."""

    def __init__(self, app: ASGIApp, max_body: int, limits: Limits, reads: Limits,
                 refusal_delay: float = 0.0,
                 trusted: Callable[[Scope], bool] | None = None,
                 larger: dict[str, int] | None = None) -> None:
        self.app = app
        self.trusted = trusted  # a request a peer process forwards (limited there already)
        self.max_body = max_body
        self.larger = larger or {}  # a path whose body may be larger (a record to analyse)
        self.limits = limits
        self.reads = reads
        self.refusal_delay = refusal_delay

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        address = client_address(scope)
        bucket = self.reads if scope["method"] in ("GET", "HEAD") else self.limits
        if not (self.trusted is not None and self.trusted(scope)) and not bucket.allow(address):
            if self.refusal_delay:
                await asyncio.sleep(self.refusal_delay)
            await _send_json(send, 429, "rate_limited", "too many requests; try again shortly")
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        max_body = self.larger.get(scope.get("path", ""), self.max_body)
        if length is not None and (not length.isdigit() or int(length) > max_body):
            await _send_json(send, 413, "too_large", f"a request body is at most "
                             f"{max_body} bytes")
            return
        seen = 0
        too_large = started = False

        async def limited() -> Message:
            nonlocal seen, too_large
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > max_body:
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


async def _send_json(send: Send, status: int, code: str, message: str,
                     retry_after: int | None = None) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
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
                if text == MOVED:  # the table went to another process: connect again
                    await self.websocket.close(code=1012)
                    return
                if text == TABLE_EXPIRED:  # the table is gone: as a connection to it is refused
                    await self.websocket.close(code=4404)
                    return

    async def close(self) -> None:
        self.writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.writer


def _origin_allowed(websocket: WebSocket, allowed: tuple[str, ...]) -> bool:
    """Browsers always send ``Origin``; it must be one of the server's configured public
    addresses (``allowed``, see :func:`site_origins`). Never compared with the request's
    own ``Host``: a page of a rebound name (``evil.example`` resolving to this server)
    sends ``Host`` and ``Origin`` of its own choosing. Clients that send no ``Origin``
    (bots, scripts) are let in by their token."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    return normal_origin(origin) in allowed


def normal_origin(url: str) -> str:
    """``scheme://host[:port]`` in lower case, the default port left out (as browsers send
    ``Origin``); ``""`` for what is no http(s) origin."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return ""
    try:
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    default = 80 if parts.scheme == "http" else 443
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != default else "")


def site_origins(host: str, port: int, public: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The origins whose pages may open WebSockets: the configured public addresses
    (``--public-url``, ``--allow-origin``), and always the address the server listens on
    and its loopback forms; a server on every interface (``0.0.0.0``) listens on the
    machine's own name and addresses too, as far as the system knows them (other names
    of it, a proxy's, must be given as public addresses)."""
    names = {host.lower()}
    if host in ("0.0.0.0", "::", "127.0.0.1", "::1", "localhost"):
        names |= {"127.0.0.1", "localhost", "::1"}
    if host in ("0.0.0.0", "::"):
        names |= _own_names()
    names -= {"0.0.0.0", "::"}
    found = [normal_origin(url) for url in public]
    for name in sorted(names):
        shown = f"[{name}]" if ":" in name else name
        found += [normal_origin(f"{scheme}://{shown}:{port}") for scheme in ("http", "https")]
    return tuple(dict.fromkeys(o for o in found if o))


def create_app(
    store: Store,
    settings: Settings | None = None,
    pool: BotPool | None = None,
    allowed_origins: tuple[str, ...] = (),
    http_rate: float = 20.0,
    http_burst: float = 60.0,
    ws_rate: float = 20.0,
    freeze_every: float = 0.0,
    caps: Caps | None = None,
    advice_pool: BotPool | None = None,
    analyses: Analyses | None = None,
    redis_url: str | None = None,
    advertise_url: str = "",
    lease_ms: int = 5000,
) -> FastAPI:
    """The server's ASGI app around ``store`` (see the module docstring).

    ``freeze_every``: seconds between freezes of the garbage collector's long-lived objects
    (:mod:`.collector`; ``minodice serve`` turns it on, 0 leaves the collector alone).
    ``allowed_origins``: the site's own origins (:func:`site_origins`). ``advice_pool``:
    the advisor's workers, never the tables' (default: one worker, a queue of
    ``caps.advice_queue``, at a lower CPU priority than the tables' workers).
    ``analyses``: the game analyses and their workers (default: one worker of their own,
    at the advisor's lower priority, a round's analysis at most ANALYSIS_TIMEOUT s).
    ``redis_url``: one of several processes sharing the store (:mod:`.cluster`), reachable
    by the others at ``advertise_url``; a table's lease lasts ``lease_ms``.
    """
    settings = settings or Settings()
    caps = caps or Caps()
    bot_pool = pool or BotPool()
    advisor = advice_pool or BotPool(1, queue=caps.advice_queue, niceness=10)
    analyses = analyses or Analyses(BotPool(1, timeout=ANALYSIS_TIMEOUT, queue=caps.advice_queue,
                                            niceness=10))
    lobby = Lobby(store, bot_pool, settings, caps.max_waiting, caps.expire_waiting,
                  caps.waiting_per_address)
    cluster = (Cluster(redis_url, lobby, advertise_url, lease_ms) if redis_url is not None
               else None)
    table_limits = Limits(caps.tables_rate, caps.tables_burst)
    all_tables = Limits(caps.all_tables_rate, caps.all_tables_burst)
    connect_limits = Limits(caps.connect_rate, caps.connect_burst)
    chat_limits = Limits(caps.chat_rate, caps.chat_burst)
    advice_limits = Limits(caps.advice_rate, caps.advice_burst)

    async def advice_allowed(request: Request) -> None:
        """Each address's advice and odds requests are limited (then refused after the
        refusal delay, as the middleware's); the pool's queue limits them all together."""
        if not advice_limits.allow(client_address(request.scope)):
            await asyncio.sleep(caps.refusal_delay)
            raise ApiError(429, "rate_limited", "too many questions to the advisor from your "
                           "address; try again shortly")
    sockets: Counter[tuple[str, int | None]] = Counter()  # open: a seat's, a table's spectators
    open_from: Counter[str] = Counter()  # open WebSockets by the address they come from

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        quiet_protocol_errors()
        if cluster is not None:
            await cluster.start()  # its sweep takes the tables nobody owns
        else:
            resumed = await lobby.resume_all()
            if resumed:
                log.info("resumed %d unfinished table%s", resumed, "" if resumed == 1 else "s")
        if lobby.damaged:
            log.error("%d tables are damaged and set aside: %s", len(lobby.damaged),
                      ", ".join(sorted(lobby.damaged)))
        warm = asyncio.ensure_future(bot_pool.warm_up())
        collecting = asyncio.ensure_future(keep_collections_short(freeze_every))
        tidying = asyncio.ensure_future(lobby.keep_tidy())
        lagging = asyncio.ensure_future(watch_loop_lag())
        with CollectionTimer():
            yield
        lagging.cancel()
        tidying.cancel()
        collecting.cancel()
        warm.cancel()
        if cluster is not None:
            await cluster.stop()  # hands its tables over before the process ends
        await lobby.close()
        bot_pool.close()
        advisor.close()
        await analyses.close()
        store.close()

    app = FastAPI(title="minodice", version=__version__, lifespan=lifespan,
                  description="Mino Dice tables: the HTTP part of the `minodice-table` "
                  "protocol (docs/PROTOCOL.md). Play goes over `GET /ws/ID?token=T`.")
    app.router.route_class = Utf8JsonRoute  # before any route: every JSON body is UTF-8
    app.state.lobby = lobby
    app.state.cluster = cluster
    app.include_router(operations_router(
        store, lobby, {"bots": bot_pool, "advice": advisor},
        redis_ready=cluster.ready if cluster else None,
        process={"id": cluster.proc, "address": cluster.advertise} if cluster else None))

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message, exc.retry_after)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        if first.get("type") == "json_invalid":  # its "loc" is a character offset
            return _error(400, "bad_request", "the body is not valid JSON")
        if tuple(first.get("loc", ())) == ("body",) and not is_json_type(
                request.headers.get("content-type", "")):
            # FastAPI reads a body as JSON only when it is said to be (a cross-site form
            # could otherwise post one without asking): say so, not "a valid dictionary"
            return _error(400, "bad_request", "send the body as JSON, with the header "
                          "Content-Type: application/json")
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        what = str(first.get("msg", "invalid request"))[:120]
        return _error(400, "bad_request", f"{where}: {what}" if where else what)

    @app.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404 and wants_page(request):
            # an address a person typed or followed: the page says it is unknown, with a
            # way back; clients of the API keep getting JSON
            return HTMLResponse(page, status_code=404, headers=PAGE_HEADERS)
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

    add_routes(app, lobby, page, analyses, advice_allowed)
    # Scripts and styles compressed (about a quarter of their size on the wire: a phone on a
    # slow network gets the table sooner). Only these files: answers carrying tokens or a
    # seat's view are never compressed, so their length never depends on their secrets.
    app.mount("/static", GZipMiddleware(MinifiedFiles(STATIC), minimum_size=500),
              name="static")

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        """At the site's root, so that it may keep every page for offline use."""
        return Response(minified(STATIC / "sw.js"), media_type="text/javascript",
                        headers={"cache-control": "no-cache"})

    @app.get("/meta.js", include_in_schema=False)
    async def meta_script() -> Response:
        """``/api/meta`` as the ES module the page's scripts import (kept offline too)."""
        return Response(meta_module(), media_type="text/javascript",
                        headers={"cache-control": "no-cache"})

    @app.get("/api/meta", response_model=GameMeta, responses=error_answers(429))
    async def meta() -> GameMeta:
        """The game's constants: player counts, rounds (R2), bot levels, editions."""
        return game_meta()

    @app.get("/api/i18n/{lang}", response_model=Translations,
             responses=error_answers(404, 429))
    async def translations(lang: str) -> dict[str, Any]:
        """The page's translations, from the same catalogues as the terminal's."""
        if lang not in LANGUAGES:
            raise ApiError(404, "not_found", f"no language {lang[:8]!r}; "
                           f"there are {', '.join(LANGUAGES)}")
        return {"lang": lang, "messages": catalogue_messages(lang)}

    @app.get("/api/dice/{edition}", response_model=DiceSetInfo,
             responses=error_answers(404, 429))
    async def dice(edition: str) -> dict[str, Any]:
        """A dice set as the page draws and checks it: kinds in bag order, faces in order."""
        if edition not in BUILTIN_DICE_SETS:
            raise ApiError(404, "not_found", "no such edition; there are "
                           f"{' and '.join(BUILTIN_DICE_SETS)}")
        return dice_set_json(edition)

    @app.get("/api/rules/{lang}", response_model=RulesText, responses=error_answers(404, 429))
    async def rules(lang: str, edition: str = "mino") -> dict[str, Any]:
        """The rules in brief, translated, in the edition's words."""
        if lang not in LANGUAGES or edition not in BUILTIN_DICE_SETS:
            raise ApiError(404, "not_found", "no such language or edition")
        words = Words(translator(lang), load_dice_set(edition))
        return {"lang": lang, "edition": edition, "paragraphs": rules_paragraphs(words)}

    @app.post("/api/advise", response_model=Advice,
              responses=error_answers(400, 413, 429, 503))
    async def advise_bid(body: AdviseRequest, request: Request) -> dict[str, Any]:
        """The bid advisor (the ``hard`` bot's model of play) for a hand, in a worker of
        the advisor's own (never one of the tables' bots)."""
        await advice_allowed(request)
        try:
            return await advisor.run(advice_json, body.players, body.round, body.seat,
                                     ",".join(body.hand), body.edition, body.variant,
                                     body.announced, body.special_lead)
        except AdviceError as exc:
            raise ApiError(400, "bad_request", str(exc)) from None
        except (TimeoutError, BrokenProcessPool, PoolBusyError):
            raise ApiError(503, "busy", "the advisor is busy; try again shortly") from None

    @app.post("/api/odds/trick", response_model=TrickOdds,
              responses=error_answers(400, 413, 429, 503))
    async def odds_in_trick(body: TrickOddsRequest, request: Request) -> dict[str, Any]:
        """During a trick: each of your dice's chance to take it (model: bots/odds.py)."""
        await advice_allowed(request)
        rolled = [(r.die, r.face) for r in body.rolled]
        try:
            return await advisor.run(trick_odds_json, body.players, body.hand, rolled,
                                     body.edition, body.special_lead)
        except OddsError as exc:
            raise ApiError(400, "bad_request", str(exc)) from None
        except (TimeoutError, BrokenProcessPool, PoolBusyError):
            raise ApiError(503, "busy", "the advisor is busy; try again shortly") from None

    @app.post("/api/tables", status_code=201, response_model=TableCreated,
              responses=error_answers(400, 413, 429, 503))
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        """Create a table; bot seats are taken at once, the rest wait for people."""
        # A refusal waits as the middleware's does: a looping client is slowed down.
        if not table_limits.allow(client_address(request.scope)):
            await asyncio.sleep(caps.refusal_delay)
            raise ApiError(429, "rate_limited", "too many new tables from your address; "
                           "try again later")
        if not all_tables.allow(""):
            await asyncio.sleep(caps.refusal_delay)
            raise ApiError(503, "busy", "too many new tables at once; try again shortly",
                           RETRY_AFTER)
        room, host_token = await lobby.create(body.players, body.edition, body.variant,
                                        list(body.bots) if body.bots is not None else None,
                                        body.turn_seconds, body.public, body.advisor,
                                        creator=client_address(request.scope),
                                        options=RuleOptions.from_json(
                                            body.rule_options.model_dump()
                                            if body.rule_options is not None else {}))
        await lobby.maybe_start_new(room)
        return {"table": room.id, "url": f"/t/{room.id}", "host_token": host_token,
                "commit": room.row.commit}

    @app.get("/api/tables", response_model=list[PublicTable],
             responses=error_answers(400, 429))
    async def list_tables(
        limit: int = Query(LOBBY_PAGE, ge=1, le=LOBBY_PAGE_MAX),
        after: str | None = Query(None, max_length=40),
    ) -> Response:
        """The public tables waiting for players, oldest first, a page at a time: a
        ``Link: <...>; rel="next"`` header gives the next page's address."""
        if lobby.shared_list:
            body, cursor = await lobby.shared_page(limit, after)
        else:
            body, cursor = lobby.public_page(limit, after)
        headers = {}
        if cursor is not None:
            headers["link"] = f'</api/tables?limit={limit}&after={cursor}>; rel="next"'
        return Response(body, media_type="application/json", headers=headers)

    @app.get("/api/tables/{table_id}", response_model=TableInfo,
             responses=error_answers(404, 429, 503))
    async def table_info(table_id: str) -> dict[str, Any]:
        return lobby.room(table_id).info()

    @app.post("/api/tables/{table_id}/seats", status_code=201, response_model=SeatTaken,
              responses=error_answers(400, 404, 409, 413, 429, 503))
    async def join(table_id: str, body: JoinSeat) -> dict[str, Any]:
        """Take a free seat; the answer's token plays it (keep it secret)."""
        seat, token, name = await lobby.join(table_id, body.name, body.client_seed,
                                             body.rematch_token, body.client_seed_hash)
        return {"seat": seat, "token": token, "name": name}

    @app.post("/api/tables/{table_id}/reveal", response_model=TableStatus,
              responses=error_answers(400, 403, 404, 409, 413, 429, 503))
    async def reveal(table_id: str, body: RevealSeed) -> dict[str, Any]:
        """fair-2: reveal the seed your seat committed to, once every seat is taken."""
        room = await lobby.reveal(table_id, body.token, body.client_seed)
        return {"table": room.id, "status": room.row.status}

    @app.post("/api/tables/{table_id}/start", response_model=TableStatus,
              responses=error_answers(400, 403, 404, 409, 413, 429, 503))
    async def start(table_id: str, body: StartTable) -> dict[str, Any]:
        room = await lobby.start(table_id, body.host_token, body.fill)
        return {"table": room.id, "status": room.row.status}

    @app.post("/api/tables/{table_id}/rematch", status_code=201,
              response_model=RematchCreated, response_model_exclude_unset=True,
              responses=error_answers(400, 403, 404, 409, 413, 429, 503))
    async def rematch(table_id: str, body: Rematch) -> dict[str, Any]:
        """A new game for the same people and bots (a new commitment): the first player
        to ask creates it, every player asking gets their same seat and a new token."""
        room, seat, token, host = await lobby.rematch(table_id, body.token, body.client_seed,
                                                      body.client_seed_hash)
        answer = {"table": room.id, "url": f"/t/{room.id}", "commit": room.row.commit,
                  "seat": seat, "token": token or None}
        if host is not None:
            answer["host_token"] = host  # whoever created the rematch may fill and start it
        return answer

    @app.get("/api/tables/{table_id}/record",
             responses={200: {"model": GameRecord, "description": "the record"},
                        **error_answers(404, 409, 429, 503)})
    async def record(table_id: str) -> JSONResponse:
        """The finished game's record (RECORD.md) with its ``fairness`` key."""
        room = lobby.room(table_id)
        if room.row.status != "finished":
            raise ApiError(409, "conflict", "the record is ready when the game is over")
        return JSONResponse(room.record(), headers={
            "content-disposition": f'attachment; filename="minodice-{room.id}.json"'})

    @app.get("/api/schema", response_model=SchemaIndex, responses=error_answers(429))
    async def schemas() -> SchemaIndex:
        """The JSON Schema of every WebSocket message, by name (PROTOCOL.md)."""
        return SchemaIndex(schemas=schema_index())

    @app.get("/api/schema/{name}.json",
             responses={200: {"model": MessageSchema}, **error_answers(404, 429)})
    async def message_schema(name: str) -> JSONResponse:
        """One message's JSON Schema, generated from the models the server builds it with."""
        if name not in SCHEMAS:
            raise ApiError(404, "not_found", f"no schema {name[:40]!r}; see /api/schema")
        return JSONResponse(json_schema(name))

    async def refuse(websocket: WebSocket, code: str, message: str, close: int) -> None:
        """Say why, and close. A client already gone (one that left during the refusal's
        delay, as a connect loop does) is no error of the server's: nothing is logged."""
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.send_text(dumps(error_message(code, message)))
            await websocket.close(code=close)

    @app.websocket("/ws/{table_id}")
    async def play(websocket: WebSocket, table_id: str) -> None:
        if not _origin_allowed(websocket, allowed_origins):
            await websocket.close(code=1008)  # before accepting: the handshake gets a 403
            return
        await websocket.accept()
        address = client_address(websocket.scope)
        if not connect_limits.allow(address):
            await asyncio.sleep(caps.refusal_delay)  # a connect loop is slowed, as above
            await refuse(websocket, "rate_limited", "too many connections from your address; "
                         "try again shortly", 4429)
            return
        # One address may not hold every connection the server has (at the connect rate,
        # in under three hours), so that nobody else could connect: its connections to
        # tables served here and to tables it forwards to another process alike.
        if open_from[address] >= caps.sockets_per_address:
            await refuse(websocket, "busy", f"{caps.sockets_per_address} connections are open "
                         "from your address already; close one", 4429)
            return
        open_from[address] += 1
        try:
            await serve_socket(websocket, table_id, address)
        finally:
            open_from[address] -= 1
            if not open_from[address]:
                del open_from[address]

    async def serve_socket(websocket: WebSocket, table_id: str, address: str) -> None:
        token = websocket.query_params.get("token")
        if cluster is not None:
            try:
                owner = await cluster.resolve(table_id)
            except (OwnerGoneError, RedisError, OSError):
                await refuse(websocket, "unavailable", "this table is changing hands between "
                             "server processes; connect again in a moment", 1013)
                return
            if owner is not None:
                await _serve_elsewhere(websocket, cluster, table_id, owner, token,
                                       ChatGuard(chat_limits, address), Limits(ws_rate, ws_rate))
                return
        try:
            room = lobby.room(table_id)
        except ApiError as exc:
            await refuse(websocket, exc.code, exc.message, 4404)
            return
        seat = None
        if token:
            seat = lobby.seat_of(room, token)
            if seat is None:
                await refuse(websocket, "forbidden", "this token opens no seat at this table",
                             4403)
                return
        # Counted here, before any await: connections opening at once all see each other.
        key = (room.id, seat)
        if seat is not None and sockets[key] >= caps.sockets_per_seat:
            await refuse(websocket, "busy", f"this seat has {caps.sockets_per_seat} "
                         "connections open already; close one", 4429)
            return
        if seat is None and sockets[key] >= caps.spectators:
            await refuse(websocket, "busy", f"this table has {caps.spectators} spectators "
                         "already", 4429)
            return
        sockets[key] += 1
        try:
            await _serve_connection(websocket, room, seat, Limits(ws_rate, ws_rate),
                                    ChatGuard(chat_limits, address))
        finally:
            sockets[key] -= 1
            if not sockets[key]:
                del sockets[key]

    if cluster is not None:  # inside the guard: a client is limited where it connects
        app.add_middleware(ForwardMiddleware, cluster=cluster)
    app.add_middleware(GuardMiddleware, max_body=MAX_MESSAGE,
                       limits=Limits(http_rate, http_burst),
                       reads=Limits(caps.read_rate, caps.read_burst),
                       refusal_delay=caps.refusal_delay,
                       trusted=cluster.trusted if cluster is not None else None,
                       larger={UPLOADS: MAX_UPLOADED_RECORD})
    return app


@dataclass
class ChatGuard:
    """Chat lines are limited per seat (the room's count, across all the seat's sockets)
    and per address (across all its seats and tables), never per socket alone."""

    limits: Limits
    address: str

    def allow(self, room: Room, seat: int) -> bool:
        return (room.presence.chat_allowed(seat, time.monotonic())
                and self.limits.allow(self.address))


class _QuietProtocolErrors(logging.Filter):
    """A client's broken WebSocket frame (invalid UTF-8 in a text frame: uvicorn closes it
    with 1007 and logs the decoding exception's whole traceback) is the client's fault,
    not the server's: one warning line, at most one a second, no traceback."""

    def __init__(self) -> None:
        super().__init__()
        self.last = 0.0
        self.dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("Invalid UTF-8"):
            return True
        now = time.monotonic()
        if now - self.last < 1.0:
            self.dropped += 1
            return False
        more = f" ({self.dropped} more since the last)" if self.dropped else ""
        self.last, self.dropped = now, 0
        record.msg = f"a client sent invalid UTF-8 in a WebSocket text frame; closed (1007){more}"
        record.args = None
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_protocol_errors() -> None:
    """Install :class:`_QuietProtocolErrors` on uvicorn's error log (once)."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietProtocolErrors) for f in logger.filters):
        logger.addFilter(_QuietProtocolErrors())


def _own_names() -> set[str]:
    """This machine's host name and the addresses it resolves to (none if unknown)."""
    name = socket.gethostname()
    names = {name.lower()} if name else set()
    with contextlib.suppress(OSError):
        names |= {str(info[4][0]).lower() for info in socket.getaddrinfo(name, None)}
    return names


#: A connection whose messages are refused by its rate limit this many times within
#: FLOOD_WINDOW seconds is a flood, not a client: it is closed (4429).
FLOOD_REFUSALS = 200
FLOOD_WINDOW = 10.0


async def _client_messages(websocket: WebSocket, conn: Connection,
                           limits: Limits) -> AsyncIterator[tuple[str, Act | Chat]]:
    """Each message a client sends, as its text and parsed, past the socket's rate limit:
    what a table's own process and a process forwarding to the owner both read. A refused
    or malformed message is answered here; a flood (200 refusals within 10 seconds) is
    closed with ``4429``, and a close ends it."""
    refused = in_row = 0
    window = time.monotonic()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not limits.allow("c"):
            now = time.monotonic()
            if now - window > FLOOD_WINDOW:  # a long session's occasional bursts add up
                window, refused = now, 0     # to nothing: only a flood is counted
            refused += 1
            in_row += 1
            if refused > FLOOD_REFUSALS:
                with contextlib.suppress(Exception):  # already gone: nothing to tell
                    await websocket.close(code=4429, reason="too many messages")
                return  # a flood, not a client
            # The first refusal of every burst is told (a client must know its act was
            # dropped, or it waits for ever); a flood hears of it every 20 messages.
            if in_row % 20 == 1:
                conn.send(dumps(error_message("rate_limited", "at most 20 messages a second")))
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
        yield text, parsed


CHAT_LIMITED = "at most 5 chat lines in 10 s a seat"


async def _serve_connection(websocket: WebSocket, room: Room, seat: int | None,
                            limits: Limits, chat: ChatGuard) -> None:
    conn = Connection(websocket, seat)
    try:
        await room.connect(conn)
        async for _, parsed in _client_messages(websocket, conn, limits):
            if isinstance(parsed, Act):
                await room.on_act(conn, parsed)
            elif conn.seat is None or chat.allow(room, conn.seat):
                await room.on_chat(conn, parsed)  # a spectator is told chat is not theirs
            else:
                conn.send(dumps(error_message("rate_limited", CHAT_LIMITED)))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await room.disconnect(conn)
        await conn.close()


async def _serve_elsewhere(websocket: WebSocket, cluster: Cluster, table_id: str, owner: str,
                           token: str | None, chat: ChatGuard, limits: Limits) -> None:
    """A connection to a table another process owns (``serve --redis``): its token is
    checked against the store here, its messages go to the owner, and the owner's views
    for its seat (built there, for this seat only) come back through Redis."""
    seat = None
    if token:
        loop = asyncio.get_running_loop()
        try:
            row = await loop.run_in_executor(None, cluster.lobby.store.row, table_id)
        except SQLAlchemyError:  # the database away: the owner still plays the table
            await websocket.send_text(dumps(error_message(
                "unavailable", "this server process cannot read the table's seats just "
                "now; connect again in a moment")))
            await websocket.close(code=1013)
            return
        seat = seat_of_row(row.seats, token) if row is not None else None
        if seat is None:
            await websocket.send_text(dumps(error_message(
                "forbidden", "this token opens no seat at this table")))
            await websocket.close(code=4403)
            return
    conn = Connection(websocket, seat)
    conn_id = cluster.attach(conn, table_id, owner)
    opened = False
    try:
        opened = await cluster.forward(owner, "open", table_id, conn_id, seat=seat)
        if opened:
            async for text, parsed in _client_messages(websocket, conn, limits):
                if not isinstance(parsed, Act) and seat is not None and \
                        not chat.limits.allow(chat.address):
                    conn.send(dumps(error_message("rate_limited", CHAT_LIMITED)))
                    continue
                try:
                    opened = await cluster.forward(owner, "message", table_id, conn_id,
                                                   m=text)
                except OwnerGoneError:
                    conn.send(dumps(error_message(
                        "unavailable", "the table's server process did not answer, so this "
                        "may not have been made; send it again in a moment")))
                    continue
                if not opened:
                    break
        if not opened:
            conn.send(MOVED)
    except OwnerGoneError:
        conn.send(MOVED)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if cluster.detach(conn_id) is not None or opened:
            with contextlib.suppress(OwnerGoneError):
                await cluster.forward(owner, "close", table_id, conn_id)
        with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(conn.writer), 2.0)  # MOVED sent first
        await conn.close()


def seat_of_row(seats: list[Seat], token: str) -> int | None:
    """The seat a token opens among stored ``seats`` (as :meth:`Lobby.seat_of`)."""
    digest = token_hash(token)
    for i, seat in enumerate(seats):
        stored = seat.token_hash
        if stored and secrets.compare_digest(stored, digest):
            return i
    return None


_TABLE_PATH = re.compile(r"^/api/tables/([^/]+)(?:/.*)?$")


class ForwardMiddleware:
    """``serve --redis``: an HTTP request about a table another process owns goes to that
    process (its address from Redis) and its answer comes back as it was given, so that
    every change of a table happens in its owner's room."""

    def __init__(self, app: ASGIApp, cluster: Cluster) -> None:
        self.app = app
        self.cluster = cluster

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = _TABLE_PATH.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None:
            await self.app(scope, receive, send)
            return
        if self.cluster.trusted(scope):
            # from a peer that found this process the owner: a takeover still loading the
            # table here is waited for, not answered "changing hands"
            await self.cluster.settled(match.group(1))
            await self.app(scope, receive, send)
            return
        try:
            owner = await self.cluster.resolve(match.group(1))
            where = await self.cluster.address(owner) if owner is not None else None
        except (OwnerGoneError, RedisError, OSError):
            owner, where = "", None
        if owner is None:
            await self.app(scope, receive, send)
            return
        if where is None:
            await _send_json(send, 503, "unavailable", "this table is changing hands between "
                             "server processes; try again in a moment", RETRY_AFTER)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode("latin-1"): v.decode("latin-1")
                   for k, v in scope.get("headers") or []
                   if k.lower() in (b"content-type", b"accept", b"accept-language")}
        headers[FORWARD_HEADER] = self.cluster.secret
        query = scope.get("query_string", b"").decode("latin-1")
        url = where + scope["path"] + (f"?{query}" if query else "")
        try:
            answer = await self.cluster.http.request(scope["method"], url, content=body,
                                                     headers=headers)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout):
            # Never sent (no connection to the owner could be had): nothing changed.
            await _send_json(send, 503, "unavailable", "the table's server process cannot "
                             "be reached just now, so nothing changed; try again in a "
                             "moment", RETRY_AFTER)
            return
        except httpx.HTTPError:
            # The owner may have applied it and its answer been lost: never say "nothing
            # changed" (the WebSocket path says the same: "may not have been made").
            await _send_json(send, 503, "unavailable", "the table's server process did not "
                             "answer, so this may not have been made; look at the table, "
                             "then try again")
            return
        kept = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer.headers.items()
                if k.lower() in ("content-type", "content-disposition", "link",
                                 "cache-control", "retry-after")]
        await send({"type": "http.response.start", "status": answer.status_code,
                    "headers": [*kept, (b"content-length", str(len(answer.content)).encode())]})
        await send({"type": "http.response.body", "body": answer.content})
