"""The store upgrades: a database written by the release of 2026-11-30 (before the schema
was versioned; ``tests/data/store-2026-11-30.sqlite3``, written by
``scripts/make_old_store.py``) opens under this release, its unfinished tables resume and
finish, and every game's record verifies."""

from __future__ import annotations

import json
import logging
import random
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from minodice.core.fair import verify_record
from minodice.server import migrations
from minodice.server.app import Caps, create_app
from minodice.server.lobby import Lobby
from minodice.server.room import Room, Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool

OLD = Path(__file__).parent.parent / "data" / "store-2026-11-30.sqlite3"
FINISHED, PLAYING, WAITING = "unziuucf57", "rq5jrwe94s", "aa5vq6edcz"


def test_the_old_database_is_unversioned_as_written() -> None:
    """The fixture is what the old release wrote: no version, three tables."""
    store = Store.sqlite(OLD, upgrade=False)
    try:
        with store.engine.connect() as conn:
            assert migrations.current(conn) is None
        assert {store.row(t).status for t in (FINISHED, PLAYING, WAITING)  # type: ignore[union-attr]
                } == {"finished", "playing", "waiting"}
    finally:
        store.close()


def test_an_old_database_upgrades_and_its_games_finish_and_verify(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    shutil.copy(OLD, db)
    store = Store.sqlite(db)
    with store.engine.connect() as conn:
        assert migrations.current(conn) == migrations.head()
    # The fixture's waiting table was created long ago: a server expires such tables at
    # start-up (nobody came for them), which is not what this test is about.
    app = create_app(store, Settings(bot_delay=0, grace=3600.0), InProcessPool(4),
                     caps=Caps(expire_waiting=10.0**12), advice_pool=InProcessPool(1))
    rng = random.Random(30)
    with TestClient(app) as client:
        lobby: Lobby = app.state.lobby
        assert PLAYING in lobby.rooms
        assert WAITING in lobby.rooms
        info = client.get(f"/api/tables/{PLAYING}").json()
        assert (info["status"], info["edition"], info["advisor"]) == ("playing", "skull-king",
                                                                      False)
        # The bid already made in the round being bid is still secret to the others.
        with client.websocket_connect(f"/ws/{PLAYING}") as ws:
            view = ws.receive_json()["view"]
            assert any(view["has_bid"])
            assert all(b is None for b in view["bids"])
        # The waiting table fills up and starts.
        for name in ("Ivo", "Jo"):
            answer = client.post(f"/api/tables/{WAITING}/seats", json={"name": name})
            assert answer.status_code == 201, answer.text
        assert client.get(f"/api/tables/{WAITING}").json()["status"] == "playing"
        for table_id in (PLAYING, WAITING):
            room = lobby.room(table_id)
            table = room.table
            assert table is not None
            for _ in range(2000):
                if table.is_over():
                    break
                people = [s for s in table.to_act() if room.row.seats[s].bot is None]
                if not people:
                    client.get("/api/tables")  # let the bots' tasks run
                    continue
                client.portal.call(act, room, people[0], rng)  # type: ignore[union-attr]
            assert table.is_over(), table_id
        records = {t: client.get(f"/api/tables/{t}/record").json()
                   for t in (FINISHED, PLAYING, WAITING)}
    store.close()
    for table_id, record in records.items():
        assert verify_record(record).rolls > 0, table_id
    # Restarted on the upgraded file, the server finds every game as it was left.
    again = Store.sqlite(db)
    try:
        for table_id in records:
            row = again.row(table_id)
            assert row is not None
            assert row.status == "finished"
    finally:
        again.close()


async def act(room: Room, seat: int, rng: random.Random) -> None:
    """A person's random legal move, through the room's pipeline (which takes its lock) as
    a connection's would be."""
    table = room.table
    if table is not None and seat in table.to_act():
        await room.apply(seat, rng.choice(table.legal(seat)))


def test_settings_and_seats_are_made_whole() -> None:
    """Revision r0002: a row missing fields that older code defaulted gets them stored."""
    store = Store("sqlite://", upgrade=False)
    try:
        with store.engine.begin() as conn:
            migrations.upgrade(conn, "r0001")  # the schema such rows were written in
            conn.execute(text(
                "INSERT INTO tables VALUES ('x', 0, 'waiting', 0, :s, :p, 'h', 'ab', 'c', 1, 0, "
                "NULL)"), {"s": json.dumps({"players": 3, "edition": "mino",
                                            "variant": "standard", "first_starter": 0}),
                           "p": json.dumps([{"name": "Ana"}, {"name": None, "bot": "easy"},
                                            {"name": None}])})
            migrations.upgrade(conn)
        row = store.row("x")
        assert row is not None
        assert row.settings.advisor is True
        assert row.settings.turn_seconds is None
        assert [s.client_seed for s in row.seats] == ["", "", ""]
        assert [s.bot for s in row.seats] == [None, "easy", None]
    finally:
        store.close()


def test_opening_a_current_database_logs_no_alembic_lines(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A server start on a database already at head says nothing about migrations; an
    upgrade says it in one line of ours, without Alembic's set-up chatter."""
    db = tmp_path / "server.sqlite3"
    shutil.copy(OLD, db)
    with caplog.at_level(logging.INFO):
        Store.sqlite(db).close()
    upgraded = [r.getMessage() for r in caplog.records]
    assert upgraded == [f"upgrading the database's schema from unversioned to "
                        f"{migrations.head()}"]
    caplog.clear()
    with caplog.at_level(logging.INFO):
        Store.sqlite(db).close()
    assert [r.getMessage() for r in caplog.records] == []
    with caplog.at_level(logging.INFO):
        Store.sqlite(tmp_path / "new.sqlite3").close()
    assert [r.getMessage() for r in caplog.records] == [
        f"setting up a new database (schema {migrations.head()})"]


def test_a_newer_release_s_database_is_refused_unchanged(tmp_path: Path) -> None:
    """Alembic said "No such revision or branch 'r0099'" after a log line that claimed to
    upgrade from it: a database from a newer release is refused as such, and left alone."""
    path = tmp_path / "newer.sqlite3"
    Store.sqlite(path).close()
    with Store.sqlite(path, upgrade=False).engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'r0099'"))
    before = path.read_bytes()
    with pytest.raises(migrations.SchemaError, match=r"its schema \(r0099\) is newer than "
                       r"this release's \(r\d+\): it was written by a newer release"):
        Store.sqlite(path)
    assert path.read_bytes() == before


def test_another_program_s_database_is_refused_unchanged(tmp_path: Path) -> None:
    """A file of another program's tables was taken over: minodice's tables were added
    beside them, and the file turned to WAL."""
    import sqlite3

    path = tmp_path / "other.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE foo (x)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(migrations.SchemaError, match=r"another program's tables \(foo\)"):
        Store.sqlite(path)
    assert path.read_bytes() == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    conn.close()
    ours = tmp_path / "ours.sqlite3"  # a file of its own is set up, and in WAL at once
    Store.sqlite(ours)
    with sqlite3.connect(ours) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()
