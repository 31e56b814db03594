"""The typed protocol (minodice.wire): what the server builds is what the schemas say,
the HTTP routes declare their answers, and the document shows the schemas the server
publishes. (Real traffic against the schemas: tests/online/test_schemas.py.)"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from minodice.bots.loading import make_bot
from minodice.client import bot_decider
from minodice.play.table import Table, new_table
from minodice.server.app import create_app
from minodice.server.botpool import BotPool
from minodice.server.protocol import (
    BadMessageError,
    TableFacts,
    error_message,
    parse_client_message,
    view_message,
)
from minodice.server.room import Settings
from minodice.server.store import Store
from minodice.wire.messages import Status, ViewMessage
from minodice.wire.reading import read_server_message, seat_view_from_message
from minodice.wire.schema import SCHEMAS, json_schema, with_schemas
from minodice.wire.shapes import ViewExtras

ROOT = Path(__file__).resolve().parent.parent


def plain(message: Mapping[str, object]) -> dict[str, Any]:
    """A built message as the plain dict it is (its TypedDict, for a reader of any dict)."""
    return dict(message)


def validator(name: str) -> jsonschema.protocols.Validator:
    schema = json_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def facts(table: Any, status: Status, extra: ViewExtras) -> TableFacts:
    return TableFacts("abcdefgh23", status, table.view(None).dice_set.name, "standard",
                      [{"name": n, "bot": None, "connected": True, "autoplay": None}
                       for n in table.names], 60, "c" * 64, table.to_act(), 1, extra)


@pytest.mark.slow  # whole games, every view checked by jsonschema: ~10 s of CPU
@settings(max_examples=3, deadline=None)
@given(players=st.integers(3, 6), edition=st.sampled_from(["mino", "skull-king"]),
       seed=st.integers(0, 2**32 - 1), every=st.sampled_from([9, 13]))
def test_every_view_of_a_game_is_what_the_schema_says(players: int, edition: str, seed: int,
                                                       every: int) -> None:
    """Every seat's and a spectator's view, at moments all through a game, validates
    against the published ``view`` schema and reads back into the same SeatView."""
    check = validator("server-message")
    table = new_table(players, [f"P{i}" for i in range(players)], ["random"],
                      seed=seed, edition=edition)
    rng = random.Random(seed)
    step = 0
    while True:
        over = table.is_over()
        if step % every == 0 or over:
            extra: ViewExtras = {"advisor": True, "rematch": None, "public": False}
            if over:
                extra["fairness"] = {"scheme": "minodice-fair-2", "commit": "c" * 64,
                                     "server_seed": "0" * 64, "client_seeds": [""] * players,
                                     "client_seed_hashes": ["h"] * players, "replaced": [],
                                     "table": "abcdefgh23"}
            for seat in [None, *range(players)]:
                turn = table.turn(seat) if seat is not None else None
                message = view_message(facts(table, "finished" if over else "playing", extra),
                                       table.view(seat), seat, turn, step)
                check.validate(plain(message))
                read = read_server_message(json.dumps(message))
                assert isinstance(read, ViewMessage)
                assert seat_view_from_message(read.view) == table.view(seat)
                assert ("pad" in message["view"]) == (seat is not None)
        if over:
            break
        seat = rng.choice(table.to_act())
        table.act(seat, rng.choice(table.legal(seat)))
        step += 1


def test_a_waiting_view_and_errors_match_their_schemas() -> None:
    table = new_table(4, ["Ana"], ["random"], seed=1)
    extra: ViewExtras = {"advisor": False, "rematch": None, "public": True,
             "reveal": {"pending": [0], "deadline": 5, "seed_hashes": ["a", "b", "c", "d"]}}
    waiting = view_message(facts(table, "waiting", extra), None, None, None, 0)
    validator("view").validate(plain(waiting))
    reveal = waiting["view"].get("reveal")
    assert reveal is not None
    assert reveal["pending"] == [0]
    assert "pad" not in waiting["view"]
    assert "winners" not in waiting["view"]
    validator("error").validate(plain(error_message("illegal", "no", "R9")))
    with pytest.raises(ValueError, match="code"):
        error_message("no_such_code", "a server bug, caught where it is made")


@given(st.one_of(
    st.fixed_dictionaries({"type": st.just("act"), "turn": st.text(max_size=10),
                           "action": st.text(max_size=10)}),
    st.fixed_dictionaries({"type": st.just("chat"), "text": st.text(max_size=210)}),
    st.dictionaries(st.sampled_from(["type", "turn", "action", "text"]),
                    st.one_of(st.none(), st.integers(), st.text(max_size=5)), max_size=4)))
def test_the_server_accepts_exactly_what_the_client_schema_allows(message: dict[str, Any]) -> None:
    """What ``parse_client_message`` takes is what ``client-message`` describes (a chat of
    only blanks, which the schema cannot say, aside)."""
    check = validator("client-message")
    text = json.dumps(message)
    try:
        parse_client_message(text)
        accepted = True
    except BadMessageError:
        accepted = False
    blank_chat = message.get("type") == "chat" and isinstance(message.get("text"), str) \
        and message["text"] != "" and not message["text"].strip()
    if not blank_chat:
        assert accepted == check.is_valid(message), message


def test_the_client_refuses_a_message_the_protocol_does_not_have() -> None:
    with pytest.raises(ValueError, match="not a table protocol message"):
        read_server_message('{"type": "view", "seq": 1, "view": {"table": 3}}')
    with pytest.raises(ValueError, match="not a table protocol message"):
        read_server_message('{"type": "gossip"}')


async def test_the_decider_reads_the_view_through_the_model() -> None:
    table = new_table(4, ["Ana"], ["random"], seed=3)
    message = view_message(facts(table, "playing", {}), table.view(0), 0, table.turn(0), 1)
    decide = bot_decider(make_bot("easy"), random.Random(1))
    assert await decide(plain(message["view"])) in message["view"]["legal"]
    broken = {**plain(message["view"]), "hand": "not a list"}
    with pytest.raises(ValueError, match="not a game view"):
        await decide(broken)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    pool = BotPool(workers=1)
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    try:
        yield TestClient(create_app(store, Settings(bot_delay=0), pool))
    finally:
        pool.close()
        store.close()


def test_every_route_declares_its_answer_and_its_errors(client: TestClient) -> None:
    """``/openapi.json`` (what ``/docs`` shows) has a named response schema for the success
    of every route and the error body for its refusals."""
    spec = client.get("/openapi.json").json()
    routes = [r for r in client.app.routes  # type: ignore[attr-defined]
              if isinstance(r, APIRoute) and r.include_in_schema]
    assert len(routes) >= 15
    for route in routes:
        for method in route.methods or set():
            operation = spec["paths"][route.path_format][method.lower()]
            answers = operation["responses"]
            ok = str(route.status_code or 200)
            schema = answers[ok]["content"]["application/json"]["schema"]
            ref = schema.get("$ref") or schema.get("items", {}).get("$ref")
            assert ref, (method, route.path, schema)
            assert ref.split("/")[-1] in spec["components"]["schemas"]
            errors = [code for code in answers if code.startswith(("4", "5"))]
            assert errors, (method, route.path)
            for code in errors:
                if code == "422":
                    continue  # FastAPI's own entry; this app answers 400 bad_request
                error = answers[code]["content"]["application/json"]["schema"]["$ref"]
                assert error.endswith("/ErrorAnswer"), (method, route.path, code)


def test_the_schemas_are_published_at_stable_addresses(client: TestClient) -> None:
    index = client.get("/api/schema")
    assert index.status_code == 200
    listed = index.json()["schemas"]
    assert set(listed) == set(SCHEMAS)
    for name, url in listed.items():
        assert url == f"/api/schema/{name}.json"
        answer = client.get(url)
        assert answer.status_code == 200
        assert answer.json() == json_schema(name)
        jsonschema.validators.validator_for(answer.json()).check_schema(answer.json())
    missing = client.get("/api/schema/nothing.json")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"


def test_the_document_shows_the_schemas_the_server_publishes() -> None:
    """docs/PROTOCOL.md is rewritten by scripts/protocol_schemas.py; run it after a change
    to the messages."""
    document = (ROOT / "docs" / "PROTOCOL.md").read_text("utf-8")
    assert with_schemas(document) == document, "run: python scripts/protocol_schemas.py"
    for name in SCHEMAS:
        assert f"/api/schema/{name}.json" in document


@pytest.mark.parametrize(("text", "said"), [
    ('{"type": "act", "turn": "1-bid", "action": "bid 0", "type": "chat", "text": "hi"}',
     'not JSON: the key "type" twice in one object'),
    ('{"type": "act", "turn": "1-bid", "action": "bid 0", "n": NaN}',
     "not JSON: NaN is no JSON number"),
    ('{"type": "chat", "text": "x", "n": -Infinity}', "not JSON: -Infinity is no JSON number"),
])
def test_a_message_read_two_ways_is_refused(text: str, said: str) -> None:
    """A key twice (Python's reader takes the last, others the first: one text, two
    messages) and NaN (no JSON) were read as if valid."""
    with pytest.raises(BadMessageError) as caught:
        parse_client_message(text)
    assert caught.value.code == "bad_message"
    assert str(caught.value) == said


@pytest.mark.parametrize("turn", ["01-bid", " 1-bid", "1-bid ", "+1-bid", "١-bid", "1-01-1",
                                  "0-bid", "1-1-1-1", "1_0-bid", "1--1"])
def test_a_turn_written_otherwise_than_the_server_writes_it_is_no_turn(turn: str) -> None:
    """"01-bid" was told it had "not come" (int() reads "01", " 1" and Arabic digits)."""
    assert Table.turn_order(turn) is None
    assert Table.turn_order("12-bid") == (12, 0, 0)
    assert Table.turn_order("3-2-4") == (3, 2, 4)
