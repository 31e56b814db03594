"""A real ``minodice serve`` on a real PostgreSQL server (issue #17), which is restarted in
the middle of a game: while it is down the server refuses actions with ``unavailable`` and
acknowledges none; once it is back play goes on by itself; nothing acknowledged is lost
(the game is read back by a new server process and verifies). The server logs JSON lines
naming the table and seq, and never a token.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from live_server import servers
from minodice.core.fair import verify_record
from services import Postgres

from .test_live import TIMEOUT, Conn, autoplay, create, shows, take_seat, ws_url

OPTIONS = ("--bot-workers", "1", "--log-format", "json", "--log-level", "debug")


async def status_of(http: httpx.AsyncClient, path: str) -> int:
    return (await http.get(path)).status_code


async def until_status(http: httpx.AsyncClient, path: str, status: int) -> None:
    deadline = time.monotonic() + TIMEOUT
    while await status_of(http, path) != status:
        assert time.monotonic() < deadline, f"{path} never answered {status}"
        await asyncio.sleep(0.1)


def latency_count(text: str) -> float:
    return next(s.value for family in text_string_to_metric_families(text)
                for s in family.samples if s.name == "minodice_action_latency_seconds_count")


async def test_postgresql_restarted_mid_game_loses_nothing_and_play_resumes(
        tmp_path: Path, postgres_service: Postgres) -> None:
    rng = random.Random(5)
    pg = postgres_service  # stopped and started again here: the session's server
    with servers(tmp_path, options=OPTIONS) as start:
        server = start(db=pg.new_database())
        async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as http:
            assert await status_of(http, "/readyz") == 200
            table = await create(http, players=3, bots=[None, "random", "random"])
            tid = table["table"]
            ticket = await take_seat(server, tid, "Ana")
            conn = await Conn.open(ws_url(server, tid, ticket.token))
            try:
                for _ in range(4):  # a few decisions written to PostgreSQL
                    view = await conn.my_turn()
                    await conn.answer(view, rng)
                view = await conn.my_turn()  # the game waits for this seat
                seq = conn.seq

                await asyncio.to_thread(pg.stop, "fast")  # connections are cut
                assert await status_of(http, "/healthz") == 200
                unready = await http.get("/readyz")
                assert unready.status_code == 503
                assert "database" in unready.json()["store"]
                action = str(rng.choice(view["legal"]))
                for _ in range(2):  # refused, and refused again: never acknowledged
                    await conn.act(view["turn"], action)
                    error = await conn.error()  # strict: no view comes before it
                    assert error["code"] == "unavailable", error
                assert conn.seq == seq

                await asyncio.to_thread(pg.start)
                await until_status(http, "/readyz", 200)
                conn.answered = view["turn"]
                await conn.act(view["turn"], action)
                shown = await conn.next_view(lambda v: shows(v, 0, view["turn"], action))
                assert conn.seq > seq
                assert shown["status"] in ("playing", "finished")
                await asyncio.wait_for(autoplay(conn, 6), 120)
            finally:
                await conn.close()
                if not pg.running:  # the session's server, for the tests after this one
                    await asyncio.to_thread(pg.start)
            record = (await http.get(f"/api/tables/{tid}/record")).json()
            verify_record(record)
            measured = latency_count((await http.get("/metrics")).text)
            assert measured >= 6

        # A new process reads the game back from PostgreSQL alone: every decision is there.
        server.kill9()
        await asyncio.to_thread(server.start)
        async with httpx.AsyncClient(base_url=server.base, timeout=TIMEOUT) as http:
            again = (await http.get(f"/api/tables/{tid}/record")).json()
        assert again == record

    lines = server.log.read_text().splitlines()
    logged = [json.loads(line) for line in lines if line.startswith("{")]
    assert logged, "no JSON log line"
    applied: list[dict[str, Any]] = [entry for entry in logged
                                     if entry.get("message") == "action applied"]
    assert len(applied) >= 6
    assert {entry["table"] for entry in applied} == {tid}
    seqs = [entry["seq"] for entry in applied]
    assert seqs == sorted(seqs)
    assert all(isinstance(s, int) for s in seqs)
    failed = [entry for entry in logged if "a write failed" in entry.get("message", "")]
    assert len(failed) >= 2
    assert all(entry["table"] == tid for entry in failed)  # named on lines of the act path
    text = server.log.read_text()
    for secret in (ticket.token, table["host_token"]):
        assert secret not in text, "a token reached the log"


def test_one_process_alone_or_one_cluster_per_database(tmp_path: Path, postgres_url: str,
                                                     redis_service: Any,
                                                     monkeypatch: Any) -> None:
    """A process without --redis beside others on one PostgreSQL database served its own
    stale copies of their tables: a process alone holds the database, the processes of a
    cluster share it, and whichever comes second to the other kind is refused."""
    from typer.testing import CliRunner

    import minodice.server.claims as claims
    from live_server import free_port
    from minodice.cli import app as cli_app

    monkeypatch.setattr(claims, "CLAIM_WAIT", 0.5)
    with servers(tmp_path, options=OPTIONS) as start:
        alone = start(db=postgres_url)
        assert alone.proc is not None
        beside = CliRunner().invoke(cli_app, ["serve", "--port", str(free_port()),
                                              "--db", postgres_url])
        assert beside.exit_code == 1, beside.output
        assert "other minodice serve processes are using this database" in beside.output
        joining = CliRunner().invoke(cli_app, ["serve", "--port", str(free_port()), "--db",
                                               postgres_url, "--redis", redis_service.url])
        assert joining.exit_code == 1, joining.output
        assert "a minodice serve without --redis is using this database" in joining.output
        for result in (beside, joining):
            assert "Traceback" not in result.output
        alone.kill9()
    # a cluster's processes share it; one alone is refused beside them
    release = [claims.claim_postgresql(claims_url(postgres_url), shared=True, wait=30)
               for _ in range(2)]  # (once the database has seen the one alone gone)
    try:
        with pytest.raises(claims.DatabaseInUseError):
            claims.claim_postgresql(claims_url(postgres_url), shared=False, wait=0.3)
    finally:
        for let_go in release:
            let_go()
    claims.claim_postgresql(claims_url(postgres_url), shared=False, wait=30)()  # free again


def test_a_claim_lost_with_its_connection_is_taken_again(postgres_url: str) -> None:
    """PostgreSQL restarted lets go of every session's advisory locks: the claim was gone
    for the rest of the server's life, and a second server could start beside it. Its
    session cut (as a restart does), the claim is held again on a new one."""
    from sqlalchemy import create_engine
    from sqlalchemy import text as sql

    import minodice.server.claims as claims

    url = claims_url(postgres_url)
    holder = ("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = :key "
              "AND granted")
    watcher = create_engine(url)
    release = claims.claim_postgresql(url, shared=False, wait=30, check_every=0.2)
    try:
        with watcher.connect() as conn:
            pids: list[int] = list(conn.execute(sql(holder), {"key": claims.CLAIM_KEY}).scalars())
            [first] = pids
            assert conn.execute(sql("SELECT pg_terminate_backend(:pid)"),
                                {"pid": first}).scalar()
        deadline = time.monotonic() + 30
        while True:
            with watcher.connect() as conn:
                now: list[int] = list(
                    conn.execute(sql(holder), {"key": claims.CLAIM_KEY}).scalars())
            if now and now != [first]:
                break
            assert time.monotonic() < deadline, "the claim was not taken again"
            time.sleep(0.1)
        with pytest.raises(claims.DatabaseInUseError):
            claims.claim_postgresql(url, shared=False, wait=0.3)
    finally:
        release()
        watcher.dispose()
    claims.claim_postgresql(url, shared=False, wait=30)()  # let go of at the end


def claims_url(url: str) -> str:
    from minodice.server.store import engine_url

    return engine_url(url)
