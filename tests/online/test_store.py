"""The store on both engines — SQLite and PostgreSQL (a server of the tests' own,
tests/services.py) — through the same migrations: the same log, the same promise (a write
that was not acknowledged left nothing), and the fence (issue #17): a write of a table's
log from an older lease epoch, or with a ``seq`` that is not the next, is refused in the
same transaction, whoever else writes at the same moment.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event, inspect

from minodice.core.fair import verify_record
from minodice.server import migrations
from minodice.server.lobby import Lobby
from minodice.server.room import Room, Settings
from minodice.server.rows import Seat, TableSettings
from minodice.server.store import (
    SINGLE_PROCESS_EPOCH,
    FencingError,
    Store,
    StoreError,
    TableRow,
    engine_url,
    now_ms,
)

from .test_hidden import InProcessPool
from .test_write_faults import seated_game


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database's URL on each engine."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tables.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store(store_url)
    try:
        yield opened
    finally:
        opened.close()


_counter = iter(range(10**9))


def new_row(store: Store, epoch: int = SINGLE_PROCESS_EPOCH) -> TableRow:
    """A waiting table, written (seq 1), as the lobby creates one."""
    row = TableRow(id=f"t{next(_counter):09d}", created_at=now_ms(), status="waiting",
                   public=True, settings=TableSettings(players=3, edition="mino"),
                   seats=[Seat(token_hash="0" * 64)] * 3,
                   host_token_hash="1" * 64, server_seed="2" * 64, commit="3" * 64, seq=1,
                   epoch=epoch)
    store.create(row)
    return row


def bid(n: int) -> dict[str, Any]:
    return {"type": "bid", "seat": n % 3, "bid": n}


def test_the_engines_are_the_ones_asked_for(store: Store, store_url: str) -> None:
    assert store.engine.dialect.name == ("sqlite" if store_url.startswith("sqlite")
                                         else "postgresql")
    with store.engine.connect() as conn:
        assert migrations.current(conn) == migrations.head() == "r0005"
        assert "epoch" in {c["name"] for c in inspect(conn).get_columns("tables")}
    assert store.ready() is None


def test_a_server_databases_writer_keeps_its_connection_until_it_is_idle(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's check of a connection is a round trip: the writer keeps its connection
    while writes follow each other, and gives it back (checked at its next use) once it
    was idle ``WRITER_IDLE`` seconds — after a restart of the database, say."""
    store = Store(postgres_url)
    try:
        checkouts: list[int] = []
        event.listen(store.engine.pool, "checkout", lambda *_: checkouts.append(1))
        row = new_row(store)
        before = len(checkouts)

        async def save(first: int, count: int) -> None:
            for n in range(first, first + count):
                await store.save_async(row.id, [bid(n)], n, seq=2 + n)

        asyncio.run(save(0, 3))
        assert len(checkouts) - before == 1
        monkeypatch.setattr(store, "_writer_idle", 0.0)  # every pause is long enough now
        asyncio.run(save(3, 2))
        assert len(checkouts) - before == 3
        assert store.load(row.id).log == [bid(n) for n in range(5)]  # type: ignore[union-attr]
    finally:
        store.close()


def test_live_ids_come_a_page_at_a_time_by_an_index(store: Store) -> None:
    """The takeover sweep's backstop (server/cluster.py): a page of one status's ids after
    a cursor, read by the index on (status, id) — a page costs its rows, not the table's."""
    rows = [new_row(store) for _ in range(5)]
    store.save(rows[0].id, status="playing")
    waiting = sorted(row.id for row in rows[1:])
    assert store.ids_after("waiting", "", 2) == waiting[:2]
    assert store.ids_after("waiting", waiting[1], 2) == waiting[2:]
    assert store.ids_after("waiting", waiting[3], 2) == []
    assert store.ids_after("playing", "", 100) == [rows[0].id]
    with store.engine.connect() as conn:
        indexes = {i["name"]: i["column_names"] for i in inspect(conn).get_indexes("tables")}
        assert indexes["ix_tables_status_id"] == ["status", "id"]
        if store.engine.dialect.name == "sqlite":
            plan = " ".join(str(r[-1]) for r in conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN SELECT id FROM tables WHERE status = 'waiting' "
                "AND id > 'x' ORDER BY id LIMIT 100"))
            assert "ix_tables_status_id" in plan, plan
            assert "TEMP B-TREE" not in plan, plan  # no sort of every row


def test_postgres_urls_go_through_psycopg_3() -> None:
    assert engine_url("postgresql://u@h:5/d") == "postgresql+psycopg://u@h:5/d"
    assert engine_url("postgres://u@h/d") == "postgresql+psycopg://u@h/d"
    assert engine_url("sqlite:///x.db") == "sqlite:///x.db"


def test_a_table_and_its_log_round_trip(store: Store) -> None:
    row = new_row(store)
    store.save(row.id, [bid(0), bid(1)], 0, seq=2)
    store.save(row.id, [bid(2)], 2, seq=3, status="playing")
    loaded = store.load(row.id)
    assert loaded is not None
    assert (loaded.seq, loaded.events, loaded.status) == (3, 3, "playing")
    assert loaded.log == [bid(0), bid(1), bid(2)]
    assert loaded.created_at == row.created_at  # milliseconds: past 32 bits
    assert loaded.settings == row.settings
    assert loaded.seats == row.seats
    assert store.ids(["playing"]) == [row.id]


def test_a_write_out_of_turn_is_refused_and_leaves_nothing(store: Store) -> None:
    row = new_row(store)
    store.save(row.id, [bid(0)], 0, seq=2)
    with pytest.raises(FencingError, match="seq 2 is not the next after 2"):
        store.save(row.id, [bid(9)], 1, seq=2)  # a writer that missed seq 2
    with pytest.raises(FencingError, match="seq 4 is not the next"):
        store.save(row.id, [bid(9)], 1, seq=4)  # one that skips a seq
    loaded = store.load(row.id)
    assert loaded is not None
    assert (loaded.seq, loaded.log) == (2, [bid(0)])


def test_an_older_epoch_is_refused_after_a_newer_one_wrote(store: Store) -> None:
    row = new_row(store)
    store.save(row.id, [bid(0)], 0, seq=2, epoch=1)
    store.save(row.id, [bid(1)], 1, seq=3, epoch=2)  # a takeover: the new owner writes
    with pytest.raises(FencingError, match="epoch 1 is older than the owner's 2") as refused:
        store.save(row.id, [bid(2)], 2, seq=4, epoch=1)  # the paused ex-owner wakes up
    assert (refused.value.stored_seq, refused.value.stored_epoch) == (3, 2)
    assert isinstance(refused.value, StoreError)
    loaded = store.load(row.id)
    assert loaded is not None
    assert (loaded.seq, loaded.epoch, loaded.log) == (3, 2, [bid(0), bid(1)])


def test_events_without_a_seq_are_a_bug_not_a_write(store: Store) -> None:
    row = new_row(store)
    with pytest.raises(ValueError, match="next seq"):
        store.save(row.id, [bid(0)], 0)
    assert store.event_texts(row.id) == []


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writes=st.lists(st.tuples(st.integers(1, 8), st.integers(0, 3)), max_size=12))
def test_the_fence_lets_through_exactly_the_next_seq_from_a_current_epoch(
        store: Store, writes: list[tuple[int, int]]) -> None:
    """Any order of writes, however wrong: the store takes those that follow the fence's
    rule, and its log is exactly theirs."""
    row = new_row(store, epoch=0)
    seq, epoch, log = 1, 0, list[dict[str, Any]]()
    for n, (asked_seq, asked_epoch) in enumerate(writes):
        event = bid(n)
        allowed = asked_seq == seq + 1 and asked_epoch >= epoch
        try:
            store.save(row.id, [event], len(log), seq=asked_seq, epoch=asked_epoch)
        except FencingError:
            assert not allowed
        else:
            assert allowed
            seq, epoch = asked_seq, asked_epoch
            log.append(event)
    loaded = store.load(row.id)
    assert loaded is not None
    assert (loaded.seq, loaded.epoch, loaded.log) == (seq, epoch, log)


def test_two_processes_writing_the_same_seq_at_once_one_wins(store_url: str) -> None:
    """Two stores (as two processes) on one database race for seq 2 many times: each
    time exactly one write is acknowledged, and the log holds exactly its event."""
    first, second = Store(store_url), Store(store_url)
    try:
        rows = [new_row(first) for _ in range(20)]

        async def race(row: TableRow) -> list[BaseException | None]:
            results = await asyncio.gather(
                first.save_async(row.id, [bid(1)], 0, seq=2),
                second.save_async(row.id, [bid(2)], 0, seq=2),
                return_exceptions=True)
            return list(results)

        async def all_races() -> list[list[BaseException | None]]:
            return [await race(row) for row in rows]

        for row, results in zip(rows, asyncio.run(all_races()), strict=True):
            won = [i for i, r in enumerate(results) if r is None]
            assert len(won) == 1, results
            assert all(isinstance(r, StoreError) for r in results if r is not None)
            loaded = first.load(row.id)
            assert loaded is not None
            assert loaded.log == [bid(1 + won[0])]
    finally:
        first.close()
        second.close()


def test_a_fenced_write_does_not_sink_the_others_committed_with_it(store: Store) -> None:
    a, b = new_row(store), new_row(store)

    async def go() -> list[BaseException | None]:
        # Queued together: one group commit, in which b's write is out of turn.
        return list(await asyncio.gather(
            store.save_async(a.id, [bid(0)], 0, seq=2),
            store.save_async(b.id, [bid(0)], 0, seq=5),
            store.save_async(a.id, [bid(1)], 1, seq=3),
            return_exceptions=True))

    results = asyncio.run(go())
    assert results[0] is None
    assert isinstance(results[1], FencingError)
    assert results[2] is None
    assert store.load(a.id).log == [bid(0), bid(1)]  # type: ignore[union-attr]
    assert store.load(b.id).log == []  # type: ignore[union-attr]


def test_waiting_tables_expire_on_both_engines(store: Store) -> None:
    old, young = new_row(store), new_row(store)
    store.save(old.id, created_at=now_ms() - 10_000_000)
    assert asyncio.run(store.expire_waiting(now_ms() - 1_000_000)) == 1
    assert store.row(old.id).status == "expired"  # type: ignore[union-attr]
    assert store.row(young.id).status == "waiting"  # type: ignore[union-attr]


def test_an_analysis_is_kept_for_its_seed_and_samples_on_both_engines(store: Store) -> None:
    row = new_row(store)
    assert store.analysis(row.id, 0, 60) is None
    first = {"players": ["Ana", "Bo"], "decisions": [{"loss": 0.25}], "summary": []}
    asyncio.run(store.save_analysis_async(row.id, 0, 60, first))
    assert store.analysis(row.id, 0, 60) == first
    assert store.analysis(row.id, 0, None) is None   # other samples: other figures
    assert store.analysis(row.id, 1, 60) is None     # another seed too
    second = {**first, "decisions": []}
    asyncio.run(store.save_analysis_async(row.id, 0, None, second))  # replaces the first
    assert store.analysis(row.id, 0, None) == second
    assert store.analysis(row.id, 0, 60) is None


def test_a_game_plays_to_its_end_and_replays_from_the_store(store_url: str) -> None:
    """The server's lobby and rooms on each engine: a game of three people to its end,
    its record verified, then the store read back by a fresh lobby (a restart)."""
    rng = random.Random(17)
    store = Store(store_url)

    async def go() -> None:
        lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
        room, _conns = await seated_game(lobby)
        table = room.table
        assert table is not None
        while not table.is_over():
            seat = table.to_act()[0]
            await room.apply(seat, rng.choice(table.legal(seat)))
        record = room.record()
        verify_record(record)  # raises at the first problem
        await lobby.close()
        # A restart: the table rebuilt from the store alone is the same game.
        fresh = Lobby(store, InProcessPool(1), Settings(bot_delay=0))
        row = store.load(room.id)
        assert row is not None
        assert (row.status, row.seq, len(row.log)) == ("finished", room.row.seq,
                                                       room.row.events)
        reloaded = Room(row, store, fresh.pool, fresh.settings)
        assert reloaded.table is not None
        assert reloaded.table.record() == table.record()
        await fresh.close()

    try:
        asyncio.run(go())
    finally:
        store.close()


def test_the_shared_public_list_holds_public_waiting_tables_with_a_free_seat_in_order(
        store: Store) -> None:
    """Several processes: the lobby lists from the store, a page after a cursor at a time,
    never a private, full, started or expired table."""
    rows = [new_row(store) for _ in range(5)]
    store.save(rows[1].id, status="playing")
    store.save(rows[2].id, public=False)
    store.save(rows[3].id, seats=[Seat(name="Ana")] * 3)  # full: its seeds are revealed
    listed = store.public_waiting(10)
    assert [r.id for r in listed] == [rows[0].id, rows[4].id]
    first = store.public_waiting(1)
    assert [r.id for r in first] == [rows[0].id]
    after = store.public_waiting(1, (first[0].created_at, first[0].id))
    assert [r.id for r in after] == [rows[4].id]
    assert store.public_waiting(5, (after[0].created_at, after[0].id)) == []
