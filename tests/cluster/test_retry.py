"""A burst of joins forwarded between processes, and what a client is told while a table's
owner is away for a moment: ``503`` with ``Retry-After`` (nothing changed), which
``minodice join``'s client sends again a bounded number of times."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from typing import Any

import httpx
import pytest
import redis
from websockets.asyncio.client import connect

from minodice import client
from minodice.client import ClientError

from .conftest import Cluster, create

OPEN = ("--http-rate", "100000", "--all-tables-rate", "100000", "--max-waiting", "100000",
        "--waiting-per-address", "100000")


def test_a_burst_of_forwarded_joins_waits_for_redis_instead_of_failing(
        cluster: Cluster, redis_restartable: Any) -> None:
    """More joins at once than a process has connections to Redis, while Redis is slow
    (paused for a moment): each waits for a connection and gets its seat. Before, the
    101st concurrent command raised MaxConnectionsError: 503 for a join, and the same for
    the lease renewals of every table of the process."""
    cluster.redis = redis_restartable.url
    # A long lease: this is about connections to Redis, not about takeovers. With the
    # default 5 s, a CI machine busy enough to starve the owner's loop for 5 s let the
    # other process take a table over mid-burst (a 503 that changed nothing, which
    # ``minodice join`` sends again: test_the_join_client_retries_a_503_until_...).
    long_lease = ("--lease-seconds", "30")
    owner, other = cluster.add(*OPEN, *long_lease), cluster.add(*OPEN, *long_lease)
    count = 160

    async def scenario() -> list[httpx.Response]:
        limits = httpx.Limits(max_connections=count, max_keepalive_connections=count)
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            tables = []
            for _ in range(count):
                made = await http.post(f"{owner.base}/api/tables",
                                       json={"players": 3, "bots": [None, "easy", "easy"]})
                assert made.status_code == 201, made.text
                tables.append(made.json()["table"])
            paused = redis.Redis.from_url(cluster.redis)
            try:
                paused.client_pause(1500)  # every command waits 1.5 s
            finally:
                paused.close()
            return list(await asyncio.gather(*(
                http.post(f"{other.base}/api/tables/{table}/seats",
                          json={"name": "Ana", "client_seed": "s"}) for table in tables)))

    answers = asyncio.run(scenario())
    refused = [a.text for a in answers if a.status_code != 201]
    assert not refused, (len(refused), refused[:3], cluster.logs()[-3000:])
    assert "MaxConnectionsError" not in cluster.logs()
    assert "taken over" not in cluster.logs()  # every seat was taken at its first owner


def ghost_owner(cluster: Cluster, table: str) -> None:
    """The table's lease held by a process that announced no address: its owner is away
    (as for the moment a process that just died still holds its leases)."""
    r = redis.Redis.from_url(cluster.redis)
    try:
        r.set(f"minodice:lease:{table}", "ghost", px=60_000)
    finally:
        r.close()


def test_a_request_for_a_table_whose_owner_is_away_says_when_to_try_again(
        two_processes: Cluster) -> None:
    a, b = two_processes.servers
    table = create(a, players=3, bots=[None, "easy", "easy"])
    ghost_owner(two_processes, table)
    answer = httpx.post(f"{b.base}/api/tables/{table}/seats",
                        json={"name": "Ana", "client_seed": "s"}, timeout=20)
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "unavailable"
    assert answer.headers["retry-after"] == "1"
    # a refusal that is no use repeating has none
    bad = httpx.post(f"{b.base}/api/tables/nosuchtable/seats", json={"name": "Ana"},
                     timeout=20)
    assert bad.status_code == 404
    assert "retry-after" not in bad.headers


def test_the_join_client_retries_a_503_until_the_owner_is_back(two_processes: Cluster,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    """``minodice join``'s client: the owner away for two seconds, then back (its lease
    gone: another process takes the table over), and the seat is taken; away for good, a
    one-line error after a bounded number of tries."""
    monkeypatch.setattr(client, "BACKOFF", 0.2)
    a, b = two_processes.servers
    table = create(a, players=3, bots=[None, "easy", "easy"])
    ghost_owner(two_processes, table)

    async def owner_back() -> None:
        await asyncio.sleep(2.0)
        r = redis.Redis.from_url(two_processes.redis)
        try:
            r.delete(f"minodice:lease:{table}")
        finally:
            r.close()

    async def scenario() -> client.SeatTicket:
        back = asyncio.ensure_future(owner_back())
        try:
            return await client.join(f"{b.base}/t/{table}", "Ana")
        finally:
            await back

    began = time.monotonic()
    ticket = asyncio.run(scenario())
    assert ticket.seat == 0
    assert time.monotonic() - began >= 2.0  # it waited for the owner, and did not give up

    gone = create(a, players=3, bots=[None, "easy", "easy"])
    ghost_owner(two_processes, gone)
    monkeypatch.setattr(client, "RETRIES", 2)
    with pytest.raises(ClientError) as refused:
        asyncio.run(client.join(f"{b.base}/t/{gone}", "Ben"))
    message = str(refused.value)
    assert "\n" not in message
    assert "changing hands" in message
    assert "sent 3 times" in message


def test_a_connection_through_another_process_waits_for_a_slow_owner(
        cluster: Cluster) -> None:
    """The table's owner stalls for 7 s (SIGSTOP, well within its lease) while a player
    connects through another process: the player gets the view once the owner is back,
    where after 5 s it was told ``moved`` with nothing moved (and connected again, to
    the same busy owner)."""
    long_lease = ("--lease-seconds", "30")
    owner, other = cluster.add(*long_lease), cluster.add(*long_lease)
    table = create(owner, players=3, bots=[None, "easy", "easy"])
    answer = httpx.post(f"{owner.base}/api/tables/{table}/seats",
                        json={"name": "Ana", "client_seed": "s"}, timeout=20)
    token = answer.json()["token"]

    async def first_message() -> dict[str, Any]:
        async with connect(f"{other.ws_base}/ws/{table}?token={token}",
                           open_timeout=10) as ws:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 30))
            return message

    assert owner.proc is not None
    os.kill(owner.proc.pid, signal.SIGSTOP)
    try:
        async def scenario() -> dict[str, Any]:
            waiting = asyncio.ensure_future(first_message())
            await asyncio.sleep(7.0)
            os.kill(owner.proc.pid, signal.SIGCONT)  # type: ignore[union-attr]
            return await waiting

        message = asyncio.run(scenario())
    finally:
        os.kill(owner.proc.pid, signal.SIGCONT)
    assert message["type"] == "view", message
    assert message["view"]["you"] == 0
