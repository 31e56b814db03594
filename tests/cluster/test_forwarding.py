"""A client may connect to any process: its views are built by the table's owner for its
own seat (never another's dice), the lobby and every table's address answer alike on every
process, and ``/readyz`` and ``/metrics`` speak of Redis and takeovers."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect

from .conftest import Cluster, create, join, owner_of


async def views(url: str, count: int) -> list[dict[str, Any]]:
    """The first ``count`` view messages a connection gets (a hang guard of 20 s)."""
    out: list[dict[str, Any]] = []
    async with connect(url, open_timeout=10) as ws:
        while len(out) < count:
            message = json.loads(await asyncio.wait_for(ws.recv(), 20))
            if message["type"] == "view":
                out.append(message)
    return out


def test_a_seat_on_another_process_gets_its_own_view_as_the_owner_builds_it(
        two_processes: Cluster) -> None:
    cluster = two_processes
    a, b = cluster.servers
    table = create(a, players=3, bots=[None, None, "easy"])
    assert owner_of(cluster, table) is a
    seat0, token0 = join(b, table, "Ana")  # joined through the process that does not own it
    seat1, token1 = join(a, table, "Ben")

    async def scenario() -> tuple[list[dict[str, Any]], ...]:
        path = f"/ws/{table}?token="
        return tuple(await asyncio.gather(
            views(f"{a.ws_base}{path}{token0}", 1), views(f"{b.ws_base}{path}{token0}", 1),
            views(f"{b.ws_base}{path}{token1}", 1), views(f"{b.ws_base}/ws/{table}", 1)))

    at_owner, elsewhere, other_seat, spectator = asyncio.run(scenario())
    here, there = at_owner[0]["view"], elsewhere[0]["view"]
    assert there["you"] == seat0
    assert here["you"] == seat0
    assert there["hand"] == here["hand"]
    assert len(there["hand"]) == 1
    assert other_seat[0]["view"]["you"] == seat1
    assert spectator[0]["view"]["you"] is None
    assert spectator[0]["view"]["hand"] == []
    text = json.dumps(elsewhere) + json.dumps(spectator)
    theirs = other_seat[0]["view"]["hand"]
    # another seat's die never reaches this seat's connection or a spectator's by name in a
    # hand (the same kind may be in one's own hand: then nothing is told apart)
    if theirs != there["hand"]:
        assert json.dumps(theirs) not in json.dumps(there["hand"])
    assert '"token' not in text


def test_every_process_answers_for_every_table_and_reports_redis_and_takeovers(
        two_processes: Cluster) -> None:
    a, b = two_processes.servers
    table = create(a, players=3, bots=[None, "easy", "easy"], public=True)
    for server in (a, b):
        info = httpx.get(f"{server.base}/api/tables/{table}", timeout=10).json()
        assert info["table"] == table
        assert info["seats_free"] == 1
        ready = httpx.get(f"{server.base}/readyz", timeout=10)
        assert ready.status_code == 200, ready.text
        assert ready.json()["redis"] == "ok"
        metrics = httpx.get(f"{server.base}/metrics", timeout=10).text
        assert "minodice_lease_takeovers_total" in metrics
        # whose figures these are, even when scraped through a balancer
        assert f'address="{server.base}"' in metrics
    ids = {line.split('id="')[1].split('"')[0]
           for server in (a, b)
           for line in httpx.get(f"{server.base}/metrics", timeout=10).text.splitlines()
           if line.startswith("minodice_process_info{")}
    assert len(ids) == 2
    missing = httpx.get(f"{b.base}/api/tables/nosuchtable", timeout=10)
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    # a bad request through a process that forwards it: the owner's one-line error, as is
    bad = httpx.post(f"{b.base}/api/tables/{table}/seats", json={"name": ""}, timeout=10)
    assert bad.status_code == 400
    assert "Traceback" not in bad.text
    assert bad.json()["error"]["code"] == "bad_request"


def test_readyz_says_unready_while_redis_is_away(cluster: Cluster, redis_restartable: Any
                                                 ) -> None:
    cluster.redis = redis_restartable.url
    server = cluster.add()
    redis_restartable.stop()
    try:
        answer = httpx.get(f"{server.base}/readyz", timeout=20)
        assert answer.status_code == 503, answer.text
        assert answer.json()["store"] == "ok"
        assert "Redis" in answer.json()["redis"]
    finally:
        redis_restartable.start()
    deadline = time.monotonic() + 20
    while httpx.get(f"{server.base}/readyz", timeout=20).status_code != 200:
        assert time.monotonic() < deadline, server.log_text()
        time.sleep(0.2)
