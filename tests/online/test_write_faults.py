"""A move becomes real only once it is written (issue: faults and floods).

Before: a save that failed (another process holding SQLite's write lock, a full disk) left
the move applied in memory, the player's socket closed, reconnecting players were shown the
unsaved roll under a ``seq`` they had seen with another board, play went on with the move
missing from the log, and on restart the log no longer replayed — so every table on the
server was gone. One damaged table stopped the whole server, and a connection that failed
to open left a ghost that kept its seat "connected".

Here the failures are real where they can be (SQLite's write lock held by another
connection on the same file), and injected where a real one cannot be made on demand (a
full disk).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

from minodice.cli import app as cli_app
from minodice.server.app import create_app
from minodice.server.lobby import ApiError, Lobby
from minodice.server.protocol import Act, Chat
from minodice.server.room import Room, Settings
from minodice.server.store import Save, Store, StoreError, Write

from .test_hidden import InProcessPool


class Conn:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.sent: list[dict[str, Any]] = []

    def send(self, text_: str) -> None:
        self.sent.append(json.loads(text_))

    def views(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == "view"]

    def errors(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == "error"]


class DiskFull(Save):
    """A last statement of a transaction that the database refuses, as with a full disk,
    on either path of a write (the store's thread, or the event loop's own commit)."""

    def __init__(self) -> None:
        super().__init__("-", [], 0, {"seq": 0}, 0)

    def __call__(self, conn: Any) -> None:
        raise OperationalError("INSERT", {}, sqlite3.OperationalError(
            "database or disk is full"))

    def here(self, cursor: sqlite3.Cursor) -> None:
        raise sqlite3.OperationalError("database or disk is full")


class FlakyStore(Store):
    """A real store whose writes fail while ``failing`` is set, as with a full disk: the
    transaction starts, then the database refuses it, and nothing of it stays."""

    failing = False

    def _commit_all(self, jobs: list[Write]) -> None:
        super()._commit_all([*jobs, DiskFull()] if self.failing else jobs)

    def _commit_here(self, jobs: Sequence[Write]) -> None:
        super()._commit_here([*jobs, DiskFull()] if self.failing else jobs)


@contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """Another process's writer: holds SQLite's write lock on ``path`` until the end."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


async def seated_game(lobby: Lobby, players: int = 3) -> tuple[Room, list[Conn]]:
    room, _host = await lobby.create(players, "mino", "standard", None, None, False)
    for i in range(players):
        await lobby.join(room.id, f"P{i}", None)
    conns = [Conn(i) for i in range(players)]
    for conn in conns:
        await room.connect(conn)
    return room, conns


def log_of(store: Store, table_id: str) -> list[dict[str, Any]]:
    row = store.load(table_id)
    assert row is not None
    return row.log


async def test_a_failed_write_is_never_shown_and_can_be_retried(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    store = Store.sqlite(db, busy_timeout=0.2)
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    rng = random.Random(3)
    try:
        room, conns = await seated_game(lobby)
        table = room.table
        assert table is not None
        for _ in range(7):  # into the play of round 2, where rolls are made
            seat = table.to_act()[0]
            await room.apply(seat, rng.choice(table.legal(seat)))
        seat = table.to_act()[0]
        me = conns[seat]
        turn = table.turn(seat)
        assert turn is not None
        action = str(table.legal(seat)[0])
        seq, decisions = room.row.seq, table.decisions
        before = json.dumps(table.record(), sort_keys=True)
        seen = {id(c): len(c.sent) for c in conns}
        with write_lock(db):
            await room.on_act(me, Act(turn, action))
        # Refused with a clear error, and nothing anyone can see has changed.
        assert me.errors()[-1]["code"] == "unavailable"
        assert room.row.seq == seq
        assert table.decisions == decisions
        assert json.dumps(table.record(), sort_keys=True) == before
        for conn in conns:
            new = conn.sent[seen[id(conn)]:]
            assert [m for m in new if m["type"] == "view"] == [], "an unsaved move was shown"
        # A reconnecting player gets the board as it was, under the seq it was shown with.
        again = Conn(seat)
        await room.connect(again)
        assert again.views()[-1]["seq"] >= seq
        assert again.views()[-1]["view"]["hand"] == me.views()[-1]["view"]["hand"]
        # The retry goes through, exactly once, and the log replays on a fresh start.
        await room.on_act(me, Act(turn, action))
        assert table.decisions == decisions + 1
        assert me.views()[-1]["seq"] > seq
        fresh = Lobby(store, InProcessPool(1), Settings(bot_delay=0))
        reloaded = Room(store.load(room.id) or pytest.fail("gone"), store, fresh.pool,
                        fresh.settings)
        assert reloaded.table is not None
        assert reloaded.table.record() == table.record()
    finally:
        await lobby.close()
        store.close()


async def test_a_full_disk_changes_nothing_for_anyone(tmp_path: Path) -> None:
    store = FlakyStore.sqlite(tmp_path / "s.sqlite3")
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    rng = random.Random(8)
    try:
        room, conns = await seated_game(lobby, 4)
        table = room.table
        assert table is not None
        events_before = len(log_of(store, room.id))
        for _ in range(20):
            seat = table.to_act()[0]
            turn = table.turn(seat)
            assert turn is not None
            action = rng.choice(table.legal(seat))
            seq, decisions, shown = room.row.seq, table.decisions, len(conns[seat].views())
            store.failing = True
            await room.on_act(conns[seat], Act(turn, str(action)))
            assert conns[seat].errors()[-1]["code"] == "unavailable"
            assert (room.row.seq, table.decisions) == (seq, decisions)
            assert len(conns[seat].views()) == shown
            store.failing = False
            await room.on_act(conns[seat], Act(turn, str(action)))
            assert table.decisions == decisions + 1
        assert len(log_of(store, room.id)) == room.row.events > events_before
    finally:
        await lobby.close()
        store.close()


async def test_a_write_waiting_on_a_lock_does_not_stall_the_event_loop(tmp_path: Path) -> None:
    """While one table's write waits for another process's lock, the event loop runs
    other work (here: this test's own sleep returns before the write is done)."""
    db = tmp_path / "s.sqlite3"
    store = Store.sqlite(db, busy_timeout=2.0)
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    try:
        room, conns = await seated_game(lobby)
        table = room.table
        assert table is not None
        seat = table.to_act()[0]
        turn = table.turn(seat)
        assert turn is not None
        with write_lock(db):
            act = asyncio.ensure_future(room.on_act(conns[seat], Act(turn, "bid 0")))
            await asyncio.sleep(0.05)
            assert not act.done(), "the write ran on the event loop"
            # Chat needs no write: it goes through while the move waits.
            talker = conns[(seat + 1) % 3]
            await room.on_chat(talker, Chat("still here"))
            assert talker.sent[-1]["text"] == "still here"
            assert not act.done()
        await act
        assert table.decisions == 1
    finally:
        await lobby.close()
        store.close()


# A bot's move that cannot be written is tried again: test_room_clocks.py, on a fake clock.


async def test_a_join_that_cannot_be_written_keeps_the_seat_free(tmp_path: Path) -> None:
    store = FlakyStore.sqlite(tmp_path / "s.sqlite3")
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    try:
        room, _host = await lobby.create(3, "mino", "standard", None, None, False)
        await lobby.join(room.id, "Ana", None)
        await lobby.join(room.id, "Ben", None)
        store.failing = True
        with pytest.raises(ApiError) as refused:
            await lobby.join(room.id, "Cy", None)
        assert (refused.value.status, refused.value.code) == (503, "unavailable")
        assert room.seats_free() == 1
        assert room.row.status == "waiting"
        assert room.table is None
        store.failing = False
        await lobby.join(room.id, "Cy", None)
        assert room.row.status == "playing"
        stored = store.load(room.id)
        assert stored is not None
        assert [s.name for s in stored.seats] == ["Ana", "Ben", "Cy"]
    finally:
        await lobby.close()
        store.close()


class BrokenConn(Conn):
    def send(self, text_: str) -> None:
        raise ConnectionResetError("gone while opening")


async def test_a_connection_that_fails_to_open_leaves_no_ghost(tmp_path: Path) -> None:
    store = FlakyStore.sqlite(tmp_path / "s.sqlite3")
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    try:
        room, conns = await seated_game(lobby)
        for conn in conns:
            await room.disconnect(conn)
        assert not any(p["connected"] for p in room.players())
        # Opening fails: while the store cannot write (the presence change), and on a
        # connection that breaks while it is sent its first view.
        store.failing = True
        await room.connect(Conn(0))
        store.failing = False
        with pytest.raises(ConnectionResetError):
            await room.connect(BrokenConn(1))
        assert room.presence.online[1] == 0
        assert room.players()[1]["connected"] is False
        assert room.driver is not None
        assert room.driver.is_away(1), "the stand-in's grace period did not start"
        for opened in list(room.presence.conns):
            await room.disconnect(opened)
        assert room.presence.online == [0, 0, 0]
        assert not any(p["connected"] for p in room.players())
        await room.disconnect(conns[0])  # a second close of the same connection: no effect
        assert room.presence.online == [0, 0, 0]
    finally:
        await lobby.close()
        store.close()


# -- a damaged table is set aside; the server starts with every sound one ---------------------


DAMAGES = {
    "changed face": "UPDATE events SET data = replace(data, '\"face\":\"', '\"face\":\"x') "
                    "WHERE table_id = :id AND data LIKE '%\"roll\"%'",
    "changed deal": "UPDATE events SET data = json_set(data, '$.hands[0][0]', CASE "
                    "json_extract(data, '$.hands[0][0]') WHEN 'gray' THEN 'red' ELSE 'gray' "
                    "END) WHERE table_id = :id AND n = 0",
    "missing middle event": "DELETE FROM events WHERE table_id = :id AND n = 5",
    "non-JSON event": "UPDATE events SET data = '{not json' WHERE table_id = :id AND n = 3",
    "bad seed": "UPDATE tables SET server_seed = 'zz' WHERE id = :id",
    "empty seat list": "UPDATE tables SET seats = '[]' WHERE id = :id",
}


async def _tables(db: Path, count: int) -> list[str]:
    store = Store.sqlite(db)
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    rng = random.Random(11)
    ids = []
    try:
        for _ in range(count):
            room, _conns = await seated_game(lobby, 4)
            table = room.table
            assert table is not None
            for _ in range(30):
                seat = table.to_act()[0]
                await room.apply(seat, rng.choice(table.legal(seat)))
            ids.append(room.id)
    finally:
        await lobby.close()
        store.close()
    return ids


def test_damaged_tables_are_set_aside_and_the_rest_are_served(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "s.sqlite3"
    ids = asyncio.run(_tables(db, len(DAMAGES) + 1))
    sound, damaged = ids[0], dict(zip(DAMAGES, ids[1:], strict=True))
    store = Store.sqlite(db)
    with store.engine.begin() as conn:
        for damage, table_id in damaged.items():
            conn.execute(text(DAMAGES[damage]), {"id": table_id})
    caplog.set_level(logging.INFO, "minodice.server")
    app = create_app(store, Settings(bot_delay=0), InProcessPool(1))
    with TestClient(app) as client:
        assert client.get(f"/api/tables/{sound}").json()["status"] == "playing"
        for damage, table_id in damaged.items():
            answer = client.get(f"/api/tables/{table_id}")
            assert answer.status_code == 503, damage
            assert answer.json()["error"]["code"] == "damaged", damage
            with client.websocket_connect(f"/ws/{table_id}") as ws:
                message = ws.receive_json()
                assert message["code"] == "damaged", damage
    logged = caplog.text
    for damage, table_id in damaged.items():
        assert f"table {table_id} is damaged and set aside" in logged, damage
    assert "Traceback" not in logged
    # The command that inspects one: what is stored, and why it does not replay.
    runner = CliRunner()
    result = runner.invoke(cli_app, ["table", sound, "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "sound" in result.output
    for damage, table_id in damaged.items():
        result = runner.invoke(cli_app, ["table", table_id, "--db", str(db), "--events"])
        assert result.exit_code == 1, (damage, result.output)
        assert "damaged:" in result.output, damage
        assert "Traceback" not in result.output
    result = runner.invoke(cli_app, ["table", "nosuchtable", "--db", str(db)])
    assert result.exit_code == 1
    assert "no table" in result.output


def test_a_failed_write_raises_store_error_and_leaves_nothing(tmp_path: Path) -> None:
    store = FlakyStore.sqlite(tmp_path / "s.sqlite3")

    async def go() -> None:
        lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0))
        room, _ = await lobby.create(3, "mino", "standard", None, None, False)
        store.failing = True
        with pytest.raises(StoreError):
            await store.save_async(room.id, [{"type": "bid", "seat": 0, "bid": 1}], 0, seq=9)
        store.failing = False
        row = store.load(room.id)
        assert row is not None
        assert row.seq == 1
        assert row.log == []
        await lobby.close()

    asyncio.run(go())
    store.close()
