"""Issue #17's fault tests: several ``minodice serve --redis`` processes on one PostgreSQL
and one Redis, players on different processes, and the owner of their table killed,
paused, or Redis restarted under them. Every game must finish, every acknowledged action
be in its record once, and the record verify."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

import httpx

from minodice.core.fair import verify_record
from minodice.server.store import Store

from .conftest import (
    LEASE,
    Cluster,
    Player,
    check_game,
    create,
    join,
    metric,
    owner_of,
)


async def play_all(players: list[Player]) -> None:
    await asyncio.gather(*(p.play() for p in players))


def four_seats(cluster: Cluster) -> tuple[str, list[Player]]:
    """A table of three people and a bot, created on the first process; the people join
    and connect through the first three processes (one each)."""
    a, b, c = cluster.servers[:3]
    table = create(a, players=4, bots=[None, None, None, "easy"])
    players = []
    for i, server in enumerate((a, b, c)):
        seat, token = join(server, table, f"P{i}")
        order = cluster.servers[i:] + cluster.servers[:i]
        players.append(Player(cluster, order, table, seat, token, seed=i))
    return table, players


async def until(check: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the game did not get there"
        await asyncio.sleep(0.05)


def mid_trick(players: list[Player]) -> bool:
    """Round 2 or later has begun for someone (the test kills during play)."""
    return any(p.seq > 30 for p in players)


def test_owner_killed_mid_trick_another_takes_over_and_the_game_finishes(
        cluster: Cluster) -> None:
    for _ in range(3):
        cluster.add()
    table, players = four_seats(cluster)
    owner = owner_of(cluster, table)
    assert owner is cluster.servers[0], "the creating process owns the table"

    async def scenario() -> float:
        game = asyncio.ensure_future(play_all(players))
        await until(lambda: mid_trick(players) or game.done())
        assert not game.done()
        killed = time.monotonic()
        owner.kill9()
        # The last seq the dead owner wrote: a view past it is the new owner's (views the
        # old one published just before it died may still arrive after the kill).
        store = Store(cluster.db, upgrade=False)
        row = store.row(table)
        store.close()
        assert row is not None
        before = row.seq
        await until(lambda: any(seq > before for p in players for _, _, seq in p.views))
        first = min(t for p in players for t, _, seq in p.views if seq > before)
        await asyncio.wait_for(game, 240)
        return first - killed

    takeover = asyncio.run(scenario())
    print(f"takeover: kill -9 -> first view from the new owner {takeover:.2f} s "
          f"(lease {LEASE:g} s)")
    survivor = cluster.servers[1]
    record = httpx.get(f"{survivor.base}/api/tables/{table}/record", timeout=20).json()
    check_game(cluster, table, players, record)
    assert sum(metric(s, "minodice_lease_takeovers_total") for s in cluster.alive()) >= 1
    assert takeover < LEASE + 8, cluster.logs()


def test_paused_owner_is_fenced_learns_it_lost_the_table_and_nothing_is_applied_twice(
        cluster: Cluster) -> None:
    for _ in range(3):
        cluster.add()
    table, players = four_seats(cluster)
    owner = cluster.servers[0]
    assert owner.proc is not None

    async def scenario() -> None:
        game = asyncio.ensure_future(play_all(players))
        await until(lambda: mid_trick(players) or game.done())
        assert not game.done()
        assert owner.proc is not None
        os.kill(owner.proc.pid, signal.SIGSTOP)
        before = max(p.seq for p in players)
        try:  # another process takes the table over while the owner sleeps
            await until(lambda: any(seq > before + 3 for p in players
                                    for _, _, seq in p.views), 60)
        finally:
            os.kill(owner.proc.pid, signal.SIGCONT)
        await asyncio.wait_for(game, 240)

    asyncio.run(scenario())
    record = httpx.get(f"{cluster.servers[1].base}/api/tables/{table}/record",
                       timeout=20).json()
    check_game(cluster, table, players, record)
    deadline = time.monotonic() + 20
    while metric(owner, "minodice_leases_lost_total") < 1:  # it learnt it lost the table
        assert time.monotonic() < deadline, owner.log_text()
        time.sleep(0.2)
    assert "let it go" in owner.log_text()
    assert owner_of(cluster, table) is not owner


def test_redis_restarted_mid_game_play_resumes_nothing_lost_or_doubled(
        cluster: Cluster, redis_restartable: Any) -> None:
    cluster.redis = redis_restartable.url
    for _ in range(3):
        cluster.add()
    table, players = four_seats(cluster)

    async def scenario() -> None:
        game = asyncio.ensure_future(play_all(players))
        await until(lambda: mid_trick(players) or game.done())
        assert not game.done()
        redis_restartable.stop()  # without its data: leases, epochs, channels all gone
        await asyncio.sleep(1.0)
        redis_restartable.start()
        await asyncio.wait_for(game, 240)

    asyncio.run(scenario())
    record = httpx.get(f"{cluster.servers[0].base}/api/tables/{table}/record",
                       timeout=20).json()
    check_game(cluster, table, players, record)


def test_two_people_taking_the_last_seat_through_two_processes_exactly_one_gets_it(
        cluster: Cluster) -> None:
    a, b = cluster.add(), cluster.add()
    for _ in range(5):
        table = create(a, players=3, bots=[None, "easy", "easy"], public=True)
        listed = httpx.get(f"{b.base}/api/tables", timeout=10).json()
        assert table in [t["table"] for t in listed], "the lobby is shared"

        async def both(table: str = table) -> list[httpx.Response]:
            async with httpx.AsyncClient(timeout=20) as http:
                return list(await asyncio.gather(*(
                    http.post(f"{server.base}/api/tables/{table}/seats",
                              json={"name": name, "client_seed": name})
                    for server, name in ((a, "Ana"), (b, "Ben")))))

        answers = asyncio.run(both())
        assert sorted(r.status_code for r in answers) == [201, 409], \
            [r.text for r in answers]
        info = httpx.get(f"{b.base}/api/tables/{table}", timeout=10).json()
        winner = next(r for r in answers if r.status_code == 201).json()
        assert info["players"][winner["seat"]]["name"] == winner["name"]
        assert info["status"] == "playing"
        listed = httpx.get(f"{a.base}/api/tables", timeout=10).json()
        assert table not in [t["table"] for t in listed]


def test_rolling_restart_of_every_process_during_fifty_games_every_game_finishes(
        cluster: Cluster) -> None:
    for _ in range(3):
        cluster.add("--bot-delay", "0.2")
    async def create_all() -> list[str]:
        async with httpx.AsyncClient(timeout=60) as http:
            answers = await asyncio.gather(*(
                http.post(f"{cluster.servers[i % 3].base}/api/tables",
                          json={"players": 3, "bots": ["easy"] * 3}) for i in range(50)))
        assert all(a.status_code == 201 for a in answers), [a.text for a in answers]
        return [str(a.json()["table"]) for a in answers]

    tables = asyncio.run(create_all())
    began = time.monotonic()
    store = Store(cluster.db, upgrade=False)
    playing: list[int] = []
    for server in list(cluster.servers):  # one at a time: SIGTERM, then start again
        time.sleep(1)
        assert server.proc is not None
        playing.append(len(store.ids(["playing"])))
        stopping = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(30)
        assert "tables handed over" in server.log_text()
        starting = time.monotonic()
        server.start()
        print(f"stopped in {starting - stopping:.1f} s, started in "
              f"{time.monotonic() - starting:.1f} s")
    store.close()
    restarted = time.monotonic() - began
    assert all(playing), f"games playing at each stop: {playing}: nothing was tested"
    deadline = time.monotonic() + 150
    waiting = set(tables)
    while waiting:
        assert time.monotonic() < deadline, f"{len(waiting)} games did not finish"
        for table in list(waiting):
            answer = httpx.get(f"{cluster.servers[0].base}/api/tables/{table}/record",
                               timeout=10)
            if answer.status_code == 200:
                verify_record(answer.json())
                waiting.discard(table)
        time.sleep(0.5)
    takeovers = sum(metric(s, "minodice_lease_takeovers_total") for s in cluster.alive())
    print(f"rolling restart of 3 processes in {restarted:.1f} s, games playing at each "
          f"stop: {playing}; all finished {time.monotonic() - began:.1f} s after the "
          f"first stop; {takeovers:g} takeovers counted by the new processes")
    assert takeovers >= 1


def test_a_takeover_that_finds_the_log_damaged_sets_the_table_aside_once(
        cluster: Cluster) -> None:
    """The owner killed; its tables' logs were damaged meanwhile (the deal gone, an event
    that is not JSON). The process that takes them over sets each aside with one line in
    its log, keeps its lease (no sweep of any process loads it again and again), answers
    ``damaged`` for it, and serves the sound table beside them."""
    from sqlalchemy import text

    a, b = cluster.add(), cluster.add()
    tables = []
    for name in ("sound", "gone", "garbled"):
        table = create(a, players=3, bots=[None, "easy", "easy"])
        join(a, table, name)
        tables.append(table)
    store = Store(cluster.db, upgrade=False)
    try:
        deadline = time.monotonic() + 60
        while any((row := store.load(t)) is None or row.events < 3 for t in tables):
            assert time.monotonic() < deadline, "the games did not start"
            time.sleep(0.1)
        sound, gone, garbled = tables
        with store.engine.begin() as conn:
            conn.execute(text("DELETE FROM events WHERE table_id = :id AND n = 0"),  # the deal
                         {"id": gone})
            conn.execute(text("UPDATE events SET data = '{not json' WHERE table_id = :id "
                              "AND n = 1"), {"id": garbled})
    finally:
        store.close()
    a.kill9()
    deadline = time.monotonic() + 30 + LEASE
    while owner_of(cluster, sound) is not b or owner_of(cluster, gone) is not b \
            or owner_of(cluster, garbled) is not b:
        assert time.monotonic() < deadline, b.log_text()[-3000:]
        time.sleep(0.2)
    for table in (gone, garbled):
        answer = httpx.get(f"{b.base}/api/tables/{table}", timeout=10)
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["code"] == "damaged"
        assert "retry-after" not in answer.headers  # trying again is no use
    assert httpx.get(f"{b.base}/api/tables/{sound}", timeout=10).json()["status"] == "playing"
    time.sleep(LEASE * 2)  # several sweeps and renewals: still b's, set aside once
    log = b.log_text()
    for table in (gone, garbled):
        assert owner_of(cluster, table) is b
        assert log.count(f"table {table} is damaged and set aside") == 1, log[-3000:]
    assert "Traceback" not in log
