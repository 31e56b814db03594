"""``minodice table --db postgresql://…`` inspects a table stored on PostgreSQL as it does
one in a SQLite file: a sound table replays, a damaged one is named with its damage (exit
1), an unknown id and an unreachable server are one-line refusals that never show the
URL's password."""

from __future__ import annotations

import asyncio
import random

from sqlalchemy import text
from typer.testing import CliRunner

from minodice.cli import app as cli_app
from minodice.server.lobby import Lobby
from minodice.server.room import Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool
from .test_write_faults import seated_game


async def _played_tables(store: Store, count: int) -> list[str]:
    """``count`` tables of 4 people, each 30 decisions into its game."""
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=3600.0))
    rng = random.Random(17)
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
    return ids


def test_table_command_reads_a_postgresql_store(postgres_url: str) -> None:
    store = Store(postgres_url)
    try:
        sound, damaged = asyncio.run(_played_tables(store, 2))
        with store.engine.begin() as conn:  # a hole in the middle of one table's log
            conn.execute(text("DELETE FROM events WHERE table_id = :id AND n = 5"),
                         {"id": damaged})
    finally:
        store.close()
    runner = CliRunner()

    result = runner.invoke(cli_app, ["table", sound, "--db", postgres_url, "--events"])
    assert result.exit_code == 0, result.output
    assert f"table {sound}: playing, 4 players" in result.output
    assert "sound: the log replays" in result.output
    assert '"type":"deal"' in result.output.replace(" ", "")  # the logged events, listed

    result = runner.invoke(cli_app, ["table", damaged, "--db", postgres_url])
    assert result.exit_code == 1, result.output
    assert "damaged:" in result.output
    assert "Traceback" not in result.output

    result = runner.invoke(cli_app, ["table", "nosuchtable", "--db", postgres_url])
    assert result.exit_code == 1
    assert "no table 'nosuchtable'" in result.output


def test_table_command_refuses_an_unreachable_postgresql_in_one_line() -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"postgresql://someone:s3cret-pw@127.0.0.1:{port}/nowhere"
    result = CliRunner().invoke(cli_app, ["table", "abc", "--db", url])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("minodice table: cannot open the database postgresql")
    assert "s3cret-pw" not in result.output
    assert "Traceback" not in result.output
