"""Where tables live: one small interface over SQLAlchemy Core (SQLite by default).

Two tables: ``tables`` holds each table's settings, seats (token *hashes*, never tokens),
its secret server seed, status and ``seq``; ``events`` is the append-only log of each game:
every decision and every chance outcome, in order. A game is its parameters plus its
events (STYLE 6), so a restarted server rebuilds every unfinished table from these two.

Writes are transactions that end before the server tells anyone what happened (STYLE 14).
SQLite runs in WAL mode with ``synchronous=NORMAL``: a committed transaction survives the
server process being killed at any moment (it is in the operating system's hands); only a
power cut could take the last ones, which ``durable=True`` (``synchronous=FULL``) covers too.
Another database (PostgreSQL) needs only another URL: nothing here is SQLite-specific but
the pragmas.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine

metadata = MetaData()

tables = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", Integer, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("public", Boolean, nullable=False),
    Column("settings", JSON, nullable=False),
    Column("seats", JSON, nullable=False),
    Column("host_token_hash", String(64), nullable=False),
    Column("server_seed", String(64), nullable=False),
    Column("commit", String(64), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("events", Integer, nullable=False),
    Column("rematch", String(32), nullable=True),
)

events = Table(
    "events",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("n", Integer, primary_key=True),
    Column("data", Text, nullable=False),
)


@dataclass
class TableRow:
    """One table as stored (secrets included: for the server's own use only)."""

    id: str
    created_at: int
    status: str
    public: bool
    settings: dict[str, Any]
    seats: list[dict[str, Any]]
    host_token_hash: str
    server_seed: str
    commit: str
    seq: int
    events: int = 0
    rematch: str | None = None
    log: list[dict[str, Any]] = field(default_factory=list)


# The statements of every move, built (and compiled) once rather than for each save.
_APPEND = insert(events)
_ADVANCE = (update(tables).where(tables.c.id == bindparam("table_id"))
            .values(seq=bindparam("seq"), events=bindparam("events")))


class Store:
    """The tables and their event logs.

    Saves go through one connection held open (the server saves from one thread, its event
    loop); it is opened again after a failure. Reads take their own connections.
    """

    def __init__(self, url: str, durable: bool = False) -> None:
        self.engine: Engine = create_engine(url, future=True)
        if self.engine.dialect.name == "sqlite":
            sync = "FULL" if durable else "NORMAL"

            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cursor = dbapi_conn.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute(f"PRAGMA synchronous={sync}")
                cursor.execute("PRAGMA busy_timeout=5000")
                cursor.close()

        metadata.create_all(self.engine)
        self._writer: Connection | None = None

    @classmethod
    def sqlite(cls, path: Path, durable: bool = False) -> Store:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}", durable)

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        """A transaction on the held connection: committed at the end, rolled back (and
        the connection let go) on any error."""
        if self._writer is None:
            self._writer = self.engine.connect()
        conn = self._writer
        try:
            with conn.begin():
                yield conn
        except BaseException:
            self._writer = None
            conn.close()
            raise

    def create(self, row: TableRow) -> None:
        with self._tx() as conn:
            conn.execute(insert(tables).values(
                id=row.id, created_at=row.created_at, status=row.status, public=row.public,
                settings=row.settings, seats=row.seats, host_token_hash=row.host_token_hash,
                server_seed=row.server_seed, commit=row.commit, seq=row.seq, events=0,
                rematch=row.rematch))

    def save(self, table_id: str, new_events: Sequence[dict[str, Any]] = (),
             first: int = 0, **fields: Any) -> None:
        """Append ``new_events`` (numbered from ``first``) and update ``fields``, at once."""
        with self._tx() as conn:
            if new_events:
                conn.execute(_APPEND, [
                    {"table_id": table_id, "n": first + i,
                     "data": json.dumps(e, separators=(",", ":"))}
                    for i, e in enumerate(new_events)])
                fields["events"] = first + len(new_events)
            if fields.keys() == {"seq", "events"}:  # a move: the common case
                conn.execute(_ADVANCE, {"table_id": table_id, **fields})
            elif fields:
                conn.execute(update(tables).where(tables.c.id == table_id).values(**fields))

    def load(self, table_id: str) -> TableRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(tables).where(tables.c.id == table_id)).mappings().first()
            if row is None:
                return None
            log = [json.loads(r.data) for r in conn.execute(
                select(events.c.data).where(events.c.table_id == table_id)
                .order_by(events.c.n))]
        return _row(row, log)

    def ids(self, statuses: Sequence[str]) -> list[str]:
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(
                select(tables.c.id).where(tables.c.status.in_(list(statuses)))
                .order_by(tables.c.created_at))]

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self.engine.dispose()


def _row(row: Any, log: list[dict[str, Any]]) -> TableRow:
    return TableRow(
        id=row["id"], created_at=row["created_at"], status=row["status"],
        public=bool(row["public"]), settings=dict(row["settings"]), seats=list(row["seats"]),
        host_token_hash=row["host_token_hash"], server_seed=row["server_seed"],
        commit=row["commit"], seq=row["seq"], events=row["events"], rematch=row["rematch"],
        log=log)


def now_ms() -> int:
    return int(time.time() * 1000)
