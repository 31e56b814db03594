"""Real traffic against the schemas the server publishes (``GET /api/schema``).

A whole game on a real ``minodice serve``: a person who commits to a seed by hash (so the
``reveal`` views come), two bots, and a spectator watching from before the person sits
down. Every frame either connection receives — views of every phase, the chat line, the
errors for a bad message and a stale turn — is validated, as received, against the
published ``server-message`` schema, by ``jsonschema`` (not by the models the server builds
them from); every HTTP answer of the game against its route's schema in ``/openapi.json``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from typing import Any

import httpx
import jsonschema
import pytest
from websockets.asyncio.client import ClientConnection, connect

from live_server import LiveServer

pytestmark = pytest.mark.slow

TIMEOUT = 20.0
GAME_TIMEOUT = 90.0


class OpenApi:
    """Validates HTTP answers against the response schemas ``/openapi.json`` declares."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec

    def check(self, path: str, method: str, response: httpx.Response) -> dict[str, Any]:
        operation = self.spec["paths"][path][method]
        schema = operation["responses"][str(response.status_code)]["content"][
            "application/json"]["schema"]
        whole = {**schema, "components": self.spec["components"]}
        jsonschema.Draft202012Validator(whole).validate(response.json())
        answer: dict[str, Any] = response.json()
        return answer


async def _collect(ws: ClientConnection, frames: list[str], done: asyncio.Event) -> None:
    async for raw in ws:
        frames.append(raw if isinstance(raw, str) else raw.decode())
        if '"status":"finished"' in frames[-1]:
            done.set()
            return


async def test_every_message_of_a_game_matches_the_published_schemas(
        server: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as http:
        index = (await http.get("/api/schema")).json()["schemas"]
        schema = (await http.get(index["server-message"])).json()
        check = jsonschema.validators.validator_for(schema)(schema)
        openapi = OpenApi((await http.get("/openapi.json")).json())

        created = openapi.check("/api/tables", "post", await http.post(
            "/api/tables", json={"players": 3, "bots": [None, "random", "random"]}))
        table = created["table"]
        watch_url = f"{server.ws_base}/ws/{table}"
        spectator = await asyncio.wait_for(connect(watch_url, open_timeout=TIMEOUT), TIMEOUT)
        watched: list[str] = []
        watched_end = asyncio.Event()
        watching = asyncio.ensure_future(_collect(spectator, watched, watched_end))

        seed = "my own seed"
        taken = openapi.check("/api/tables/{table_id}/seats", "post", await http.post(
            f"/api/tables/{table}/seats", json={
                "name": "Ana", "client_seed_hash": hashlib.sha256(seed.encode()).hexdigest()}))
        openapi.check("/api/tables/{table_id}", "get", await http.get(f"/api/tables/{table}"))
        seat_url = f"{watch_url}?token={taken['token']}"
        ws = await asyncio.wait_for(connect(seat_url, open_timeout=TIMEOUT), TIMEOUT)
        mine: list[str] = []
        rng = random.Random(7)
        answered: set[str] = set()
        revealed = chatted = stale_sent = False

        async def send(message: dict[str, Any]) -> None:
            # A person's pace: the server takes at most 20 messages a second from a socket
            # (the rest are refused as rate_limited, and this player would wait for ever).
            await asyncio.sleep(0.06)
            await ws.send(json.dumps(message))

        async def play() -> None:
            nonlocal revealed, chatted, stale_sent
            async for raw in ws:
                text = raw if isinstance(raw, str) else raw.decode()
                mine.append(text)
                message = json.loads(text)
                if message["type"] != "view":
                    continue
                view = message["view"]
                if view["status"] == "finished":
                    return
                if view.get("reveal") and not revealed:
                    revealed = True
                    openapi.check("/api/tables/{table_id}/reveal", "post", await http.post(
                        f"/api/tables/{table}/reveal",
                        json={"token": taken["token"], "client_seed": seed}))
                turn = view["turn"]
                if turn is None or turn in answered or not view["legal"]:
                    continue
                if not chatted:  # a chat line and a refused message, mid-game
                    chatted = True
                    await send({"type": "chat", "text": "good luck"})
                    await send({"type": "chat"})
                if answered and not stale_sent:
                    stale_sent = True  # an answer to a turn that is over: "stale"
                    old = sorted(answered)[0]
                    await send({"type": "act", "turn": old, "action": view["legal"][0]})
                answered.add(turn)
                await send({"type": "act", "turn": turn, "action": rng.choice(view["legal"])})

        try:
            await asyncio.wait_for(play(), GAME_TIMEOUT)
            await asyncio.wait_for(watched_end.wait(), TIMEOUT)
        finally:
            watching.cancel()
            await ws.close()
            await spectator.close()
        openapi.check("/api/tables/{table_id}", "get", await http.get(f"/api/tables/{table}"))
        openapi.check("/api/tables/{table_id}/record", "get",
                      await http.get(f"/api/tables/{table}/record"))
        openapi.check("/api/tables/{table_id}/rematch", "post", await http.post(
            f"/api/tables/{table}/rematch", json={"token": taken["token"]}))
        openapi.check("/api/tables", "get", await http.get("/api/tables"))

    for who, frames in (("seat", mine), ("spectator", watched)):
        kinds: dict[str, int] = {}
        phases: set[str] = set()
        for text in frames:
            message = json.loads(text)
            errors = list(check.iter_errors(message))
            assert not errors, (who, errors[0].message, text[:300])
            kinds[message["type"]] = kinds.get(message["type"], 0) + 1
            if message["type"] == "view":
                phases.add(message["view"]["phase"])
                assert ("pad" in message["view"]) == (who == "seat" and
                                                      message["view"]["phase"] != "waiting")
                if who == "spectator":
                    assert message["view"]["hand"] == []
        assert phases == {"waiting", "bid", "play", "finished"}, (who, phases)
        assert kinds.get("chat") == 1, (who, kinds)
        assert any("reveal" in json.loads(t).get("view", {}) for t in frames), who
    refusals = [json.loads(t) for t in mine if json.loads(t)["type"] == "error"]
    assert {e["code"] for e in refusals} == {"bad_message", "stale"}, refusals
