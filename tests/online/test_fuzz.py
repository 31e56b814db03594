"""Fuzzing the table protocol and the HTTP API (PROTOCOL.md) through the real ASGI app.

Hypothesis sends a seat's and a spectator's WebSocket random text, random JSON and broken
variants of valid messages, and the HTTP routes random bodies, IDs and tokens. Whatever it
sends, the server answers with a protocol error or a view (never a traceback, never a 5xx),
keeps the connection usable, and keeps a game whose record still loads.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import anyio
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from minodice.core.record import load_record
from minodice.server import app as app_module
from minodice.server.app import Caps, create_app
from minodice.server.protocol import ERROR_CODES, MAX_MESSAGE
from minodice.server.room import Room, Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool

HTTP_CODES = ("bad_request", "not_found", "forbidden", "conflict", "too_large", "rate_limited",
              "busy")
JSON_HEADERS = {"content-type": "application/json"}
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- the server --------------------------------------------------------------------------


@dataclass
class Server:
    app: FastAPI
    client: TestClient
    finished: dict[str, str] = field(default_factory=dict)  # a finished table: id, host token

    def room(self, table_id: str) -> Room:
        room: Room = self.app.state.lobby.room(table_id)
        return room


def _app(path: Path, http_rate: float = 20.0, http_burst: float = 60.0,
         ws_rate: float = 20.0) -> FastAPI:
    # The bots decide in this process (InProcessPool): no worker processes to start. Every
    # request comes from one address ("testclient"): the per-address flood limits (tested
    # in test_floods.py) are raised out of the way, and a refusal comes at once.
    many = 1e9
    caps = Caps(read_rate=many, read_burst=many, tables_burst=many, tables_rate=many,
                all_tables_burst=many, all_tables_rate=many, connect_burst=many,
                connect_rate=many, chat_burst=many, chat_rate=many, advice_burst=many,
                advice_rate=many, waiting_per_address=10**9, refusal_delay=0.0)
    return create_app(Store.sqlite(path), Settings(bot_delay=0, grace=3600.0),
                      InProcessPool(0), http_rate=http_rate, http_burst=http_burst,
                      ws_rate=ws_rate, caps=caps)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The app in this process (this module's own ``server``: not conftest's live one)."""
    app = _app(tmp_path_factory.mktemp("fuzz") / "tables.db", http_rate=1e9, http_burst=1e9,
               ws_rate=1e9)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield Server(app, client)


def new_table(server: Server, players: int = 3, bots: list[str | None] | None = None
              ) -> dict[str, Any]:
    answer = server.client.post("/api/tables", json={"players": players, "bots": bots})
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def finished_table(server: Server) -> tuple[str, str]:
    """A table whose game is over (three bots play it at once)."""
    if not server.finished:
        created = new_table(server, 3, ["random", "random", "random"])
        deadline = time.monotonic() + 120  # a hang guard
        while server.client.get(f"/api/tables/{created['table']}").json()["status"] \
                != "finished":
            assert time.monotonic() < deadline, "the bots did not finish their game in 120 s"
            time.sleep(0.02)
        server.finished.update(table=created["table"], host=created["host_token"])
    return server.finished["table"], server.finished["host"]


# -- checks ------------------------------------------------------------------------------


def no_traceback(text: str) -> None:
    assert "Traceback (most recent call last)" not in text
    assert 'File "/' not in text
    assert ".py\", line" not in text


def check_http(answer: Any, created: tuple[int, set[str]] | None = None) -> Any:
    """Never a 5xx; every 4xx a protocol error; a success with its documented keys."""
    assert answer.status_code < 500, answer.text
    raw = answer.content.decode("utf-8")  # strict: valid UTF-8
    no_traceback(raw)
    body = json.loads(raw) if raw and answer.headers.get("content-type", "").startswith(
        "application/json") else None
    if 400 <= answer.status_code < 500:
        assert isinstance(body, dict), raw
        assert set(body) == {"error"}, body
        assert set(body["error"]) == {"code", "message"}, body
        assert body["error"]["code"] in HTTP_CODES
        assert isinstance(body["error"]["message"], str)
    elif created is not None:
        status, keys = created
        assert answer.status_code == status, raw
        assert isinstance(body, dict)
        assert keys <= set(body), (keys, body)
    return body


def check_record(room: Room) -> None:
    if room.table is not None:
        load_record(json.loads(json.dumps(room.table.record())))


# -- strategies ----------------------------------------------------------------------------

# strings that stress a server: escapes of lone surrogates, controls, right-to-left, NULs
NASTY = st.sampled_from(["\\ud800", "\ufeff", "\u202e", "\x00", "\n", "🎲", "'\"", "<b>",
                         "%s", "{}", "..", "\\", "A" * 300, "\u0301", "ß", "İ", "\U0010ffff"])
TEXT = st.one_of(st.text(max_size=40), NASTY, st.text(max_size=4000))
NUMBERS = st.one_of(st.integers(), st.integers(-(10**30), 10**30), st.floats(),
                    st.just(10**400), st.just(-(10**400)), st.just(2**63))
JSON = st.recursive(
    st.none() | st.booleans() | NUMBERS | TEXT,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(TEXT, children,
                                                                      max_size=5),
    max_leaves=20)


def dumps_fuzz(value: Any, ascii_only: bool) -> str:
    """JSON text, with the odd values JSON allows in Python (NaN, huge integers)."""
    text = json.dumps(value, ensure_ascii=ascii_only)
    return text.replace('"\\\\ud800', '"\\ud800')  # an escaped lone surrogate, as JSON


@st.composite
def ws_messages(draw: st.DrawFn, turn: str | None, legal: list[str]) -> str | bytes:
    """A message a broken or hostile client might send. (What is drawn does not depend on
    ``turn`` and ``legal``, the game's state now: Hypothesis replays examples.)"""
    how = draw(st.integers(0, 8))
    if how == 8:  # a chat line with a lone surrogate in it (valid JSON, not text)
        return '{"type":"chat","text":"' + draw(st.sampled_from(
            ["", "a", "ok "])) + draw(st.sampled_from(["\\ud800", "\\udfff", "\\udbff"])) + '"}'
    if how == 0:
        return draw(st.text(max_size=200))
    if how == 1:
        return draw(st.binary(max_size=100))
    if how == 2:
        return dumps_fuzz(draw(JSON), draw(st.booleans()))
    if how == 3:  # too large, deeply nested, numbers beyond any integer
        return draw(st.sampled_from([
            "x" * (MAX_MESSAGE + 1), "[" * 3000 + "]" * 3000, "[" * 1200,
            '{"type":"act","turn":1' + "0" * 400 + ',"action":"bid 1"}',
            '{"type":"act","turn":"1-bid","action":1e400}', '{"type":"chat","text":NaN}',
            '{"type":"act","turn":"1-bid","action":"bid 1' + "0" * 3000 + '"}',
            '{"type":"chat","text":"' + "é" * 2100 + '"}',
            '{"type":"chat","text":"\\ud800"}', '{"type":"chat","text":"a\\udfff b"}',
            '{"type":"act","turn":"\\ud800","action":"\\udc00"}',
            '{"type":"act","type":"chat","text":"two types"}', "\ufeff{}", "null", '""']))
    base: dict[str, Any]
    pick = draw(st.integers(0, 99))
    if how in (4, 5, 6):
        base = {"type": "act", "turn": turn or "1-bid",
                "action": legal[pick % len(legal)] if legal else "bid 0"}
    else:
        base = {"type": "chat", "text": draw(st.text(min_size=1, max_size=20))}
    mutation = draw(st.integers(0, 4))
    if mutation == 0:  # a value of the wrong type
        key = draw(st.sampled_from(sorted(base)))
        base[key] = draw(JSON)
    elif mutation == 1:  # a key missing
        del base[draw(st.sampled_from(sorted(base)))]
    elif mutation == 2:  # more keys
        base.update(draw(st.dictionaries(TEXT, JSON, max_size=3)))
    elif mutation == 3:  # a string value changed
        key = draw(st.sampled_from(sorted(base)))
        base[key] = draw(TEXT)
    else:  # the type changed
        base["type"] = draw(st.one_of(TEXT, st.sampled_from(["ACT", "Act", "act ", "view"])))
    return dumps_fuzz(base, draw(st.booleans()))


# -- WebSocket fuzzing ---------------------------------------------------------------------


@dataclass
class Socket:
    ws: WebSocketTestSession
    seat: int | None
    seq: int = 0
    view: dict[str, Any] | None = None


@dataclass
class Play:
    """A table of three people, each seat's socket open, and a spectator's."""

    table: str
    tokens: list[str]
    stack: ExitStack
    sockets: list[Socket]  # seats 0, 1, 2, then the spectator

    @property
    def spectator(self) -> Socket:
        return self.sockets[3]


def receive(sock: Socket, timeout: float = 10.0) -> dict[str, Any]:
    """The next message to this socket (failing if none comes), checked as the wire needs."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await sock.ws._send_rx.receive()

    message = sock.ws.portal.call(get)
    assert message["type"] == "websocket.send", f"the server closed: {message}"
    text = message["text"]
    assert isinstance(text, str)
    text.encode("utf-8")  # what goes on the wire must be UTF-8 (no lone surrogates)
    data = json.loads(text)
    assert isinstance(data, dict)
    assert data["type"] in ("view", "error", "chat"), data
    if data["type"] == "error":
        assert set(data) == {"type", "code", "message", "rule"}
        assert data["code"] in ERROR_CODES, data
        assert isinstance(data["message"], str)
        no_traceback(data["message"])
    elif data["type"] == "view":
        assert data["seq"] == sock.seq + 1 or sock.seq == 0, (sock.seq, data["seq"])
        sock.seq = data["seq"]
        sock.view = data["view"]
        assert data["view"]["you"] == sock.seat
    return data


def drain(sock: Socket) -> None:
    """Read what is waiting (only at set-up, where the count is not the point)."""
    while True:
        try:
            receive(sock, timeout=0.3)
        except TimeoutError:
            return


def open_play(server: Server) -> Play:
    created = new_table(server)
    table = created["table"]
    tokens = []
    for name in ("Ana", "Bo", "Cy"):
        joined = server.client.post(f"/api/tables/{table}/seats", json={"name": name})
        assert joined.status_code == 201
        tokens.append(joined.json()["token"])
    stack = ExitStack()
    sockets = [Socket(stack.enter_context(server.client.websocket_connect(
        f"/ws/{table}?token={tokens[seat]}")), seat) for seat in range(3)]
    sockets.append(Socket(stack.enter_context(server.client.websocket_connect(f"/ws/{table}")),
                          None))
    for sock in sockets:
        drain(sock)
    return Play(table, tokens, stack, sockets)


@pytest.fixture(scope="module")
def play(server: Server) -> Iterator[list[Play]]:
    plays = [open_play(server)]
    yield plays
    for p in plays:
        p.stack.close()


def advance(server: Server, p: Play) -> None:
    """A valid act by a seat the game waits for: every socket gets the new view."""
    view = p.sockets[0].view
    assert view is not None
    seats = view["to_act"]
    if view["status"] != "playing" or not seats:
        return
    sock = p.sockets[seats[0]]
    assert sock.view is not None
    turn, legal = sock.view["turn"], sock.view["legal"]
    assert turn is not None
    assert legal
    seq = sock.seq
    sock.ws.send_text(json.dumps({"type": "act", "turn": turn, "action": legal[0]}))
    for other in p.sockets:
        answer = receive(other)
        assert answer["type"] == "view", answer
        assert answer["seq"] == seq + 1


@FUZZ
@given(data=st.data())
def test_websocket_fuzz(server: Server, play: list[Play], data: st.DataObject) -> None:
    p = play[-1]
    assert p.sockets[0].view is not None
    if p.sockets[0].view["status"] == "finished":
        play.append(open_play(server))  # a new game when this one is over
        p = play[-1]
    # A new connection each time (a second one for seat 0, or a spectator's): its own chat
    # allowance, and the seat's and spectator's sockets of the table see what others see.
    seat = data.draw(st.sampled_from([0, None]), label="seat")
    query = f"?token={p.tokens[0]}" if seat is not None else ""
    with server.client.websocket_connect(f"/ws/{p.table}{query}") as ws:
        target = Socket(ws, seat)
        assert receive(target)["type"] == "view"
        for _ in range(len(server.room(p.table).presence.chat)):  # the chat so far
            assert receive(target)["type"] == "chat"
        assert target.view is not None
        message = data.draw(ws_messages(target.view["turn"], target.view["legal"]),
                            label="message")
        if isinstance(message, bytes):
            ws.send_bytes(message)
        else:
            ws.send_text(message)
        answer = receive(target)
        if answer["type"] == "error":
            assert answer["code"] == "bad_message" or not isinstance(message, bytes)
        else:  # the fuzz was a valid act or chat after all: everyone is told
            assert seat is not None
            for other in p.sockets:
                assert receive(other)["type"] == answer["type"]
        # the same connection still answers a valid message correctly (a seat's: the turn
        # is no turn at all, even if the fuzz was its last decision and the game is over) ...
        ws.send_text('{"type":"act","turn":"x","action":"bid 0"}')
        answer = receive(target)
        expected = "forbidden" if seat is None else "bad_message"
        assert answer["code"] == expected, answer
    # ... nothing changed unseen, the game goes on, and its record is valid
    room = server.room(p.table)
    assert room.row.seq == p.spectator.seq
    advance(server, p)
    check_record(room)


def test_websocket_rate_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bucket (5 a second, a burst of 5) on the app's clock, which the test moves: how
    fast this machine answers the flood changes nothing."""
    now = [1000.0]
    monkeypatch.setattr(app_module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    app = _app(tmp_path / "tables.db", ws_rate=5)
    with TestClient(app) as client:
        table = client.post("/api/tables", json={"players": 3}).json()["table"]
        with client.websocket_connect(f"/ws/{table}") as ws:
            sock = Socket(ws, None)
            receive(sock)
            # Six, each answered: every message the app takes or refuses is one it has
            # read before the clock moves on.
            for _ in range(6):
                ws.send_text("nonsense")
            codes = [receive(sock)["code"] for _ in range(6)]
            assert codes == ["bad_message"] * 5 + ["rate_limited"]
            now[0] += 0.5  # 2.5 messages' worth of refill
            for _ in range(2):
                ws.send_text("nonsense")
                assert receive(sock)["code"] == "bad_message"
            ws.send_text("nonsense")  # the refill is used up: refused, and told so
            assert receive(sock)["code"] == "rate_limited"


def test_a_flood_is_closed_but_a_long_sessions_bursts_add_up_to_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More than FLOOD_REFUSALS refusals within FLOOD_WINDOW seconds close the connection
    with 4429; as many spread over a longer session do not (the app's clock, moved by the
    test)."""
    now = [1000.0]
    monkeypatch.setattr(app_module, "time", SimpleNamespace(monotonic=lambda: now[0]))
    app = _app(tmp_path / "tables.db", ws_rate=5)
    refusals = app_module.FLOOD_REFUSALS
    with TestClient(app) as client:
        table = client.post("/api/tables", json={"players": 3}).json()["table"]
        with client.websocket_connect(f"/ws/{table}") as ws:
            sock = Socket(ws, None)
            receive(sock)
            for _ in range(2):  # two bursts, each of 3/4 of a flood, a window apart
                for _ in range(5 + refusals * 3 // 4):  # the bucket's 5, then refused
                    ws.send_text("nonsense")
                assert [receive(sock)["code"] for _ in range(5)] == ["bad_message"] * 5
                told = (refusals * 3 // 4 + 19) // 20  # told at the 1st, 21st, ... in a row
                assert [receive(sock)["code"] for _ in range(told)] == ["rate_limited"] * told
                now[0] += app_module.FLOOD_WINDOW + 1
            for _ in range(5 + refusals + 1):  # a flood within one window
                ws.send_text("nonsense")
            codes = []
            while True:
                message = ws.portal.call(ws._send_rx.receive)
                if message["type"] != "websocket.send":
                    break
                codes.append(json.loads(message["text"])["code"])
            assert message == {"type": "websocket.close", "code": 4429,
                               "reason": "too many messages"}
            assert codes[:5] == ["bad_message"] * 5
            assert set(codes[5:]) == {"rate_limited"}


# -- HTTP fuzzing --------------------------------------------------------------------------

BOT = st.sampled_from(["random", "easy", "medium", "hard", "Random", "", "file.py:Bot"])


@st.composite
def bodies(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Any]]) -> bytes:
    """A request body: mostly near-valid JSON objects, sometimes anything at all."""
    how = draw(st.integers(0, 9))
    if how == 0:
        return draw(st.binary(max_size=200))
    if how == 1:
        return dumps_fuzz(draw(JSON), draw(st.booleans())).encode("utf-8", "surrogatepass")
    if how == 2:
        return b'{"name": "' + b"x" * (MAX_MESSAGE + 10) + b'"}'
    if how == 3:
        return draw(st.sampled_from([b"[" * 3000, b"", b"null", b'{"players": 1' + b"0" * 400
                                     + b"}", b'{"players": NaN}', b'{"players": 1e400}']))
    body: dict[str, Any] = draw(st.fixed_dictionaries(
        {}, optional={k: st.one_of(v, v, JSON) for k, v in fields.items()}))
    if draw(st.booleans()):
        body.update(draw(st.dictionaries(TEXT, JSON, max_size=2)))
    return dumps_fuzz(body, draw(st.booleans())).encode("utf-8", "surrogatepass")


CREATE_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "players": st.integers(0, 8),
    "edition": st.sampled_from(["mino", "skull-king", "Mino", ""]),
    "variant": st.sampled_from(["standard", "simplified", "x"]),
    "bots": st.lists(st.none() | BOT, max_size=7),
    "turn_seconds": st.none() | st.integers(-5, 4000),
    "public": st.booleans(),
    "advisor": st.booleans(),
}
JOIN_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "name": TEXT,
    "client_seed": st.none() | TEXT,
    "client_seed_hash": st.none() | TEXT | st.just("ab" * 32),
    "rematch_token": st.none() | TEXT,
}


def post(server: Server, path: str, body: bytes) -> Any:
    return server.client.post(path, content=body, headers=JSON_HEADERS)


def table_id(data: st.DataObject, real: str) -> str:
    return data.draw(st.one_of(st.just(real), st.text(max_size=40), st.sampled_from(
        ["", "..", "%2e%2e", "abc", "a" * 33, "a" * 2000, real.upper(), real + "x"])),
        label="table id")


def path_of(table: str) -> str:
    return quote(table, safe="") or "%20"


@FUZZ
@given(body=bodies(CREATE_FIELDS))
def test_create_table_fuzz(server: Server, body: bytes) -> None:
    answer = post(server, "/api/tables", body)
    created = check_http(answer, (201, {"table", "url", "host_token", "commit"}))
    if answer.status_code == 201:
        assert created["url"] == f"/t/{created['table']}"
        assert len(created["commit"]) == 64
        info = check_http(server.client.get(f"/api/tables/{created['table']}"), (200, {
            "table", "status", "players", "edition", "variant", "turn_seconds", "commit"}))
        assert info["commit"] == created["commit"]


@FUZZ
@given(data=st.data(), body=bodies(JOIN_FIELDS))
def test_join_fuzz(server: Server, data: st.DataObject, body: bytes) -> None:
    created = new_table(server, data.draw(st.integers(3, 6), label="players"))
    table = table_id(data, created["table"])
    answer = post(server, f"/api/tables/{path_of(table)}/seats", body)
    joined = check_http(answer, (201, {"seat", "token", "name"}))
    if answer.status_code == 201:
        assert joined["seat"] == 0
        info = check_http(server.client.get(f"/api/tables/{created['table']}"))
        assert info["players"][0]["name"] == joined["name"]
        with server.client.websocket_connect(
                f"/ws/{created['table']}?token={joined['token']}") as ws:
            sock = Socket(ws, 0)
            assert receive(sock)["type"] == "view"


@FUZZ
@given(data=st.data(), body=bodies({"host_token": TEXT, "fill": st.none() | BOT}))
def test_start_fuzz(server: Server, data: st.DataObject, body: bytes) -> None:
    created = new_table(server, 3)
    if data.draw(st.booleans(), label="right token"):
        decoded = json.loads(body) if body.startswith(b"{") and body.endswith(b"}") else None
        if isinstance(decoded, dict) and "host_token" in decoded:
            decoded["host_token"] = created["host_token"]
            body = json.dumps(decoded).encode()
    table = table_id(data, created["table"])
    answer = post(server, f"/api/tables/{path_of(table)}/start", body)
    started = check_http(answer, (200, {"table", "status"}))
    if answer.status_code == 200:
        assert started["status"] in ("playing", "finished")


@FUZZ
@given(data=st.data(), body=bodies({"token": TEXT}))
def test_rematch_fuzz(server: Server, data: st.DataObject, body: bytes) -> None:
    table, host = finished_table(server)
    waiting = new_table(server, 3)["table"]
    if data.draw(st.booleans(), label="right token"):
        body = json.dumps({"token": host}).encode()
    target = data.draw(st.sampled_from([table, waiting]), label="table")
    answer = post(server, f"/api/tables/{path_of(table_id(data, target))}/rematch",
                  body)
    again = check_http(answer, (201, {"table", "url", "commit", "seat", "token"}))
    if answer.status_code == 201:
        assert again["url"] == f"/t/{again['table']}"
        assert again["seat"] is None  # the host holds no seat at an all-bot table


@FUZZ
@given(data=st.data(), body=bodies({"token": TEXT, "client_seed": TEXT}))
def test_reveal_fuzz(server: Server, data: st.DataObject, body: bytes) -> None:
    created = new_table(server, 3)
    table = table_id(data, created["table"])
    answer = post(server, f"/api/tables/{path_of(table)}/reveal", body)
    check_http(answer, (200, {"table", "status"}))
    assert answer.status_code != 200  # nobody holds a seat there: nothing to reveal


@FUZZ
@given(data=st.data(), body=bodies({"token": TEXT}))
def test_away_fuzz(server: Server, data: st.DataObject, body: bytes) -> None:
    table, _host = finished_table(server)
    waiting = new_table(server, 3)["table"]
    target = data.draw(st.sampled_from([table, waiting]), label="table")
    answer = post(server, f"/api/tables/{path_of(table_id(data, target))}/away", body)
    check_http(answer, (200, {"table", "seat", "autoplay"}))
    assert answer.status_code != 200  # no token there opens a seat in a game in play


RECORD_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "format": st.sampled_from(["minodice-record", "pgn", ""]),
    "version": st.integers(-1, 3),
    "dice_set": st.sampled_from(["mino", "skull-king", "../mino"]),
    "variant": st.sampled_from(["standard", "simplified", "x"]),
    "players": st.lists(TEXT, max_size=7),
    "first_starter": st.integers(-1, 7),
    "rounds": st.lists(st.dictionaries(st.sampled_from(["hands", "bids", "tricks"]), JSON,
                                       max_size=3), max_size=3),
}


@st.composite
def mutated(draw: st.DrawFn, record: dict[str, Any]) -> bytes:
    """A real record with one value somewhere in it replaced by anything."""
    copy = json.loads(json.dumps(record))
    where: Any = copy
    while True:
        keys = list(where) if isinstance(where, dict) else list(range(len(where)))
        if not keys:
            break
        key = draw(st.sampled_from(keys))
        if isinstance(where[key], (dict, list)) and draw(st.booleans()):
            where = where[key]
            continue
        where[key] = draw(JSON)
        break
    return dumps_fuzz(copy, draw(st.booleans())).encode("utf-8", "surrogatepass")


@FUZZ
@given(data=st.data())
def test_analyse_a_record_fuzz(server: Server, data: st.DataObject) -> None:
    """``POST /api/analyses``: anything sent as a record is refused with a protocol error
    (never a 5xx or a traceback), unless it is a record, whose analysis then starts."""
    table, _host = finished_table(server)
    record = server.client.get(f"/api/tables/{table}/record").json()
    body = data.draw(st.one_of(bodies(RECORD_FIELDS), mutated(record)), label="body")
    answer = post(server, "/api/analyses", body)
    started = check_http(answer)
    if answer.status_code < 400:
        assert answer.status_code in (200, 202)
        assert started["id"].startswith("upload-")
        follow = check_http(server.client.get(f"/api/analyses/{started['id']}"))
        assert follow["total"] == started["total"]
    else:
        # 503: the workers busy; 429: this address's last record still being analysed
        assert answer.status_code in (400, 413, 429, 503), answer.text


@FUZZ
@given(data=st.data())
def test_get_fuzz(server: Server, data: st.DataObject) -> None:
    table, _host = finished_table(server)
    target = table_id(data, table)
    tail = data.draw(st.sampled_from(["", "/record", "/seats", "/start", "/x", "/record/x"]),
                     label="tail")
    path = data.draw(st.one_of(
        st.just(f"/api/tables/{path_of(target)}{tail}"),
        st.just("/api/tables"),
        st.builds(lambda t: "/api/" + quote(t), st.text(max_size=30)),
        st.builds(lambda t: "/" + quote(t.lstrip("/"), safe="/"), st.text(max_size=30))),
        label="path")
    answer = server.client.get(path)
    body = check_http(answer)
    if path == f"/api/tables/{table}":
        assert answer.status_code == 200
        assert {"table", "status", "players", "edition", "variant", "turn_seconds",
                "commit"} <= set(body)
    if path == f"/api/tables/{table}/record":
        assert answer.status_code == 200
        assert body["fairness"]["scheme"] == "minodice-fair-2"
        load_record(body)
    if path == "/api/tables":
        assert answer.status_code == 200
        assert isinstance(body, list)


NOT_UTF8 = {
    "a byte that is no UTF-8": b'{"players": 3, "name": "\xff"}',
    "a surrogate encoded as UTF-8": b'{"players": 3, "name": "\xed\xa0\x80"}',
    "UTF-16": '{"players": 3}'.encode("utf-16"),
}


@pytest.mark.parametrize("body", NOT_UTF8.values(), ids=list(NOT_UTF8))
def test_a_json_body_that_is_not_utf8_is_a_bad_request_that_says_so(
        server: Server, body: bytes, caplog: pytest.LogCaptureFixture) -> None:
    """Every route with a JSON body answers ``400 bad_request`` naming the problem, and
    logs nothing: a byte that is no UTF-8 got FastAPI's "There was an error parsing the
    body", and the others were read as JSON (Starlette guesses UTF-16, and lets encoded
    surrogates through)."""
    table, _host = finished_table(server)
    routes = ["/api/tables", "/api/advise", "/api/odds/trick",
              *(f"/api/tables/{table}/{tail}"
                for tail in ("seats", "reveal", "start", "rematch", "away"))]
    with caplog.at_level(logging.DEBUG):
        for path in routes:
            answer = post(server, path, body)
            assert answer.status_code == 400, (path, answer.text)
            error = answer.json()["error"]
            assert error["code"] == "bad_request", (path, error)
            assert re.fullmatch(r"the body is not UTF-8 JSON \(byte \d+ is not UTF-8\)",
                                error["message"]), (path, error)
        record = post(server, "/api/analyses", body)  # a record: read as text, as before
        assert record.status_code == 400
        assert record.json()["error"]["message"] == "a game record is JSON in UTF-8"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    # UTF-8 after a byte order mark is UTF-8 all the same
    assert post(server, "/api/tables", b"\xef\xbb\xbf" + b'{"players": 3}').status_code == 201


def test_http_rate_limit(tmp_path: Path) -> None:
    app = _app(tmp_path / "tables.db", http_rate=0.001, http_burst=2)
    with TestClient(app) as client:
        assert client.post("/api/tables", json={}).status_code == 201
        assert client.post("/api/tables", json={}).status_code == 201
        refused = client.post("/api/tables", json={})
        assert refused.status_code == 429
        assert refused.json() == {"error": {"code": "rate_limited",
                                            "message": refused.json()["error"]["message"]}}
        assert client.get("/api/tables").status_code == 200  # reading is not limited


@pytest.mark.parametrize(("body", "said"), [
    (b'{"players": 3, "players": 4}', 'the body is not valid JSON: the key "players" twice '
                                      "in one object"),
    (b'{"players": 3, "turn_seconds": NaN}', "the body is not valid JSON: NaN is no JSON "
                                             "number"),
    (b"[" * 2000 + b"]" * 2000, "the body is not valid JSON: nested too deeply"),
])
def test_a_body_read_two_ways_is_a_bad_request(server: Server, body: bytes,
                                               said: str) -> None:
    """A key twice (read as its last) and NaN were taken; a body nested past json's limit
    was an internal error."""
    answer = post(server, "/api/tables", body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == {"code": "bad_request", "message": said}


@pytest.mark.parametrize("headers", [{}, {"content-type": "text/plain"},
                                     {"content-type": "application/x-www-form-urlencoded"}])
def test_a_json_body_not_said_to_be_json_is_told_the_header(server: Server,
                                                            headers: dict[str, str]) -> None:
    """FastAPI reads a body as JSON only under Content-Type: application/json (a
    cross-site form could post one otherwise): the answer said "Input should be a valid
    dictionary or object to extract fields from"."""
    answer = server.client.post("/api/tables", content=b'{"players": 3}', headers=headers)
    assert answer.status_code == 400
    assert answer.json()["error"] == {
        "code": "bad_request",
        "message": "send the body as JSON, with the header Content-Type: application/json"}
    json_ld = {"content-type": "application/ld+json; charset=utf-8"}
    assert server.client.post("/api/tables", content=b'{"players": 3}',
                              headers=json_ld).status_code == 201
