"""Where tables live: one small interface over SQLAlchemy Core (SQLite by default).

Two tables: ``tables`` holds each table's settings, seats (token *hashes*, never tokens),
its secret server seed, status and ``seq``; ``events`` is the append-only log of each game:
every decision and every chance outcome, in order. A game is its parameters plus its
events (STYLE 6), so a restarted server rebuilds every unfinished table from these two.
A third, ``analyses``, keeps each finished game's analysis once computed (it is derived
from the log, but costs minutes of a worker to compute again).

Writes are transactions that end before the server tells anyone what happened (STYLE 14).
SQLite runs in WAL mode with ``synchronous=NORMAL``: a committed transaction survives the
server process being killed at any moment (it is in the operating system's hands); only a
power cut could take the last ones, which ``durable=True`` (``synchronous=FULL``) covers too.
PostgreSQL (``postgresql://…``, through psycopg 3) takes the same schema through the same
migrations; its connections are checked before use (``pool_pre_ping``), so that a database
restarted under a running server costs the writes made while it was down (refused, never
acknowledged), and at most one after (see ``WRITER_IDLE``).

Where the writes run: a database server (PostgreSQL), a durable SQLite, or a write that
finds a file SQLite's lock taken go to the store's own thread, so that a slow network, a
lock held by another process or an ``fsync`` never stalls the event loop. The writes of a
table's life on a file SQLite (:data:`LOOP_JOBS`: a new table, its moves, its seats) are
committed on the event loop itself when the write lock is free at once: in WAL mode with
``synchronous=NORMAL`` a commit is a ``write()`` into the operating system's cache, tens of
microseconds, no ``fsync``. The common one — a move or a change of who is connected: one
fenced ``UPDATE`` and its events — goes through the ``sqlite3`` module alone; the rarer ones
(a new table, new seats) through SQLAlchemy on the same connection. On the thread the same
commits cost the event loop far more: at 1,000 tables the thread's Python (SQLAlchemy) and
the loop's took the GIL from each other at every ``sqlite3`` call, each waiting up to the
interpreter's 5 ms switch interval for it — a convoy in which the loop stalled and the
moves waited seconds at 75% of one core. And while the thread has a write under way every
later one waits behind it (a table's writes keep their order), so when new tables and their
seats went there, 15-20% of the moves followed them (counted at 400 tables), and the
thread's SQLAlchemy took 12% of the server's samples at 1,000. What a loop commit never
does: wait for a lock (its connection's ``busy_timeout`` is 0; a batch that finds the lock
taken goes to the thread, which waits as before) or checkpoint the WAL (its connection's automatic
checkpoints are off; the thread runs a ``PASSIVE`` checkpoint, which never blocks a
writer, after every :data:`CHECKPOINT_EVERY` loop commits and when the store closes).

Fencing: every write of a table's event log carries the writer's lease ``epoch`` and the
next ``seq``, and the store applies it only if the table's stored ``seq`` is the one before
and its stored ``epoch`` is not newer — checked and written in one transaction, by one
conditional ``UPDATE`` that takes the row's lock (PostgreSQL) or the database's (SQLite).
A writer that lost its table to another process, or that missed a write, is refused with
:class:`FencingError` whatever it believes about its lease. One process uses
:data:`SINGLE_PROCESS_EPOCH`; leases shared between processes will pass theirs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Connection,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from minodice.server.rows import Seat, TableSettings, load_seats, stored_seats

log = logging.getLogger("minodice.server")

metadata = MetaData()


class StoreError(Exception):
    """A write that did not happen (a full disk, a lock another process held too long, a
    database gone): nothing of it is in the store, so nothing of it may be shown.

    ``shared``: the cause hits every write alike (the database, not this write's data).
    """

    def __init__(self, why: str, shared: bool = True) -> None:
        super().__init__(why)
        self.why = why
        self.shared = shared


class FencingError(StoreError):
    """A write of a table's log refused by the fence: its ``epoch`` is older than the
    table's (another process owns the table now), or its ``seq`` is not the next one (the
    writer missed a write). Nothing of it was written; the writer's view of the table is
    stale, so retrying the same write is refused again."""

    def __init__(self, table_id: str, seq: int, epoch: int, stored_seq: int | None,
                 stored_epoch: int | None) -> None:
        if stored_seq is None:
            why = f"table {table_id} is not in the store"
        elif stored_epoch is not None and epoch < stored_epoch:
            why = (f"table {table_id}: epoch {epoch} is older than the owner's "
                   f"{stored_epoch}")
        else:
            why = f"table {table_id}: seq {seq} is not the next after {stored_seq}"
        super().__init__(why, shared=False)
        self.table_id = table_id
        self.seq = seq
        self.epoch = epoch
        self.stored_seq = stored_seq
        self.stored_epoch = stored_epoch


#: The epoch of a server that is the only process writing its store (no shared leases).
SINGLE_PROCESS_EPOCH = 1

tables = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", BigInteger, nullable=False),  # ms: past 32 bits (r0003)
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
    Column("epoch", Integer, nullable=False, server_default="0"),  # the fence (r0003)
)
# The backstop of the takeover sweep pages through live tables by id (r0005).
Index("ix_tables_status_id", tables.c.status, tables.c.id)

events = Table(
    "events",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("n", Integer, primary_key=True),
    Column("data", Text, nullable=False),
)

#: A finished game's analysis (``minodice analyse --json``), computed once (r0004).
analyses = Table(
    "analyses",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seed", BigInteger, nullable=False),
    Column("samples", Integer, nullable=True),
    Column("created_at", BigInteger, nullable=False),
    Column("data", Text, nullable=False),
)


@dataclass
class TableRow:
    """One table as stored (secrets included: for the server's own use only)."""

    id: str
    created_at: int
    status: str
    public: bool
    settings: TableSettings
    seats: list[Seat]
    host_token_hash: str
    server_seed: str
    commit: str
    seq: int
    events: int = 0
    rematch: str | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    epoch: int = SINGLE_PROCESS_EPOCH


# The statements of every move, built (and compiled) once rather than for each save. The
# fence: the row is updated only by the writer of the next seq from a current epoch.
_APPEND = insert(events)
_FENCED = ((tables.c.id == bindparam("table_id")) & (tables.c.seq == bindparam("previous"))
           & (tables.c.epoch <= bindparam("epoch")))
_ADVANCE = (update(tables).where(_FENCED)
            .values(seq=bindparam("seq"), events=bindparam("events"),
                    epoch=bindparam("epoch")))


Write = Callable[[Connection], None]

#: Seconds a server database's writer connection may stay idle and still be used without
#: the pool's check (see ``Store.__init__``).
WRITER_IDLE = 2.0

#: Bytes a SQLite store's disk must have free to be ready: a move's commit writes a few
#: pages, and a disk with less is full for it (``/readyz``).
READY_FREE_BYTES = 1 << 20

#: Loop commits (see the module docstring) between two checkpoints of the WAL on the
#: store's thread: SQLite's own automatic checkpoint is every 1,000 pages, and a loop
#: commit writes two to four.
CHECKPOINT_EVERY = 250


@dataclass(frozen=True)
class Save:
    """One fenced save of a table, as a job of either kind: called with a SQLAlchemy
    connection (:data:`Write`), or :meth:`here` with a ``sqlite3`` cursor (on the event
    loop, without SQLAlchemy's cost) when it is a move or a change of who is connected (no
    field but ``status``)."""

    table_id: str
    events_json: list[str]
    first: int
    fields: dict[str, Any]
    epoch: int

    def __call__(self, conn: Connection) -> None:
        _save(conn, self.table_id, self.events_json, self.first, self.fields, self.epoch)

    @property
    def plain(self) -> bool:
        """Whether :meth:`here` can write it (it has a seq, and no field but status)."""
        return "seq" in self.fields and self.fields.keys() <= {"seq", "status"}

    def here(self, cursor: sqlite3.Cursor) -> None:
        """The same statements as :func:`_save` through ``sqlite3`` directly."""
        seq = int(self.fields["seq"])
        status = self.fields.get("status")
        sets = "seq=?, epoch=?" + (", events=?" if self.events_json else "") + (
            ", status=?" if status is not None else "")
        values: list[Any] = [seq, self.epoch]
        if self.events_json:
            values.append(self.first + len(self.events_json))
        if status is not None:
            values.append(status)
        cursor.execute(f"UPDATE tables SET {sets} WHERE id=? AND seq=? AND epoch<=?",
                       (*values, self.table_id, seq - 1, self.epoch))
        if cursor.rowcount != 1:
            stored = cursor.execute("SELECT seq, epoch FROM tables WHERE id=?",
                                    (self.table_id,)).fetchone()
            raise FencingError(self.table_id, seq, self.epoch,
                               None if stored is None else stored[0],
                               None if stored is None else stored[1])
        if self.events_json:
            cursor.executemany("INSERT INTO events (table_id, n, data) VALUES (?, ?, ?)",
                               [(self.table_id, self.first + i, data)
                                for i, data in enumerate(self.events_json)])


@dataclass(frozen=True)
class Create:
    """A new table's row, as a job (:data:`Write`)."""

    row: TableRow

    def __call__(self, conn: Connection) -> None:
        _insert(conn, self.row)


#: The jobs a file SQLite may commit on the event loop (see the module docstring): single
#: statements of one table, quick and without effects outside the transaction. The rest
#: (a new owner's claim, the start-up expiry over every table, an analysis) take the thread.
LOOP_JOBS = (Save, Create)


class _LockedError(Exception):
    """A loop commit found SQLite's write lock taken: the batch goes to the thread."""


class Store:
    """The tables and their event logs.

    The server writes through :meth:`write` (and :meth:`save_async`, :meth:`create_async`):
    on one thread of the store's own, over one connection held open there, so that a slow
    disk or a lock held by another process never stalls the event loop — the other tables
    play on. Writes that queue up while one runs are committed together in one transaction
    (a group commit: one disk sync for many moves). A write that fails raises
    :class:`StoreError` and leaves nothing behind. The synchronous :meth:`create` and
    :meth:`save` are for tools and tests that own the store alone. Reads take their own
    connections.
    """

    def __init__(self, url: str, durable: bool = False, busy_timeout: float = 5.0,
                 upgrade: bool = True) -> None:
        url = engine_url(url)
        sqlite = url.startswith("sqlite")
        # The writer thread opens its connection itself; the pool may hand a connection
        # to another thread later (reads), which is safe as each is used by one at a time.
        # An in-memory database (tests) is one connection, or each thread would get its own.
        memory = sqlite and url.rstrip("/") in ("sqlite:", "sqlite:///:memory:")
        options: dict[str, Any] = {}
        if memory:
            options["poolclass"] = StaticPool
        if sqlite:
            options["connect_args"] = {"check_same_thread": False}
        else:
            # A database server can restart under us: a pooled connection is checked before
            # use, and a server that does not answer fails a write in seconds, not minutes.
            options["pool_pre_ping"] = True
            options["connect_args"] = {"connect_timeout": max(1, int(busy_timeout))}
        self.engine: Engine = create_engine(url, future=True, **options)
        # The writer keeps its connection between transactions (opening a file costs; the
        # pool's check of a server database's connection is a round trip, 6% of a
        # process's samples on PostgreSQL at 300 tables). A server database's connection
        # goes back to the pool once it has been idle WRITER_IDLE seconds, so that after a
        # quiet spell the pre-ping replaces one the database dropped (restarted, say)
        # before a write is lost on it; a connection in use that the database drops
        # fails that one write (refused, never acknowledged), and the next takes another.
        self._writer_idle = math.inf if sqlite else WRITER_IDLE
        self._writer_used = 0.0
        wal: list[bool] = []  # (one item once the file may be turned to WAL)
        if self.engine.dialect.name == "sqlite":
            sync = "FULL" if durable else "NORMAL"
            wait_ms = int(busy_timeout * 1000)

            @event.listens_for(self.engine, "connect")
            def _pragmas(dbapi_conn: Any, _record: Any) -> None:
                cursor = dbapi_conn.cursor()
                if wal:
                    cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute(f"PRAGMA synchronous={sync}")
                cursor.execute(f"PRAGMA busy_timeout={wait_ms}")
                cursor.close()

        if upgrade:  # to this release's schema (see server/migrations); a tool that only
            from minodice.server import migrations  # reads may leave it as it is

            with self.engine.begin() as conn:
                if self.engine.dialect.name == "postgresql":
                    # Processes starting at once on one database upgrade it one at a time.
                    conn.execute(text("SELECT pg_advisory_xact_lock(5410719)"))
                migrations.upgrade(conn)
            if sqlite and not memory:
                # WAL once the file is known to be ours (a tool that only reads, or a file
                # refused, another program's, is left as it was): the connections opened
                # from now on set it; the upgrade's is closed
                wal.append(True)
                self.engine.dispose()
                with self.engine.connect():  # now, before the loop's own connection writes
                    pass
        self._writer: Connection | None = None
        # The loop's own connection to a file SQLite (see the module docstring), opened at
        # its first commit; None where commits stay on the thread (a URL with options, a
        # URI filename say, is opened as SQLAlchemy opens it: on the thread).
        # The file of a SQLite store (its disk is watched by /readyz), None for another.
        database = self.engine.url.database if sqlite and not memory else None
        self.file: Path | None = (Path(database) if database and database != ":memory:"
                                  else None)
        self._here_path: str | None = (database if self.file is not None and not durable
                                       and not self.engine.url.query else None)
        self._here: sqlite3.Connection | None = None
        self._here_engine: Engine | None = None
        self._here_commits = 0
        self._checkpointing = False
        # The columns of ``tables`` that reads select: all of them once upgraded.
        self._columns: list[Column[Any]] | None = list(tables.c) if upgrade else None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="minodice-store")
        self._queue: list[tuple[Write, asyncio.Future[None]]] = []
        self._draining = False
        self._drainer: asyncio.Future[None] | None = None
        self._closed = False

    @classmethod
    def sqlite(cls, path: Path, durable: bool = False, busy_timeout: float = 5.0,
               upgrade: bool = True) -> Self:
        path.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{path}", durable, busy_timeout, upgrade)

    # -- the server's writes: all or nothing, never waiting on the event loop ---------------

    async def write(self, job: Write) -> None:
        """Run ``job`` in a transaction; returns once it is committed.

        Raises :class:`StoreError` if it was not (then nothing of it was written). The
        caller's cancellation does not cancel the write: whoever waits must learn its fate.
        Jobs run on the store's thread, except :data:`LOOP_JOBS` when no other write is
        under way: committed at once on the loop if the lock is free (see the module
        docstring), without a queue, a task or a future.
        """
        loop = asyncio.get_running_loop()
        if not self._draining and self._committed_on_loop(loop, [job]):
            return  # else queued for the thread (which waits for a lock held elsewhere)
        done: asyncio.Future[None] = loop.create_future()
        self._queue.append((job, done))
        if not self._draining:
            self._draining = True
            self._drainer = asyncio.ensure_future(self._drain())
        await asyncio.shield(done)

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                jobs = [job for job, _ in batch]
                try:
                    await self._commit(loop, jobs)
                except StoreError as exc:
                    if len(batch) > 1 and not exc.shared:
                        # One bad write must not sink the others: each alone once more.
                        for job, done in batch:
                            try:
                                await self._commit(loop, [job])
                            except StoreError as single:
                                _settle(done, single)
                            else:
                                _settle(done, None)
                        continue
                    for _, done in batch:
                        _settle(done, exc)
                else:
                    for _, done in batch:
                        _settle(done, None)
        finally:
            self._draining = False

    async def _commit(self, loop: asyncio.AbstractEventLoop, jobs: list[Write]) -> None:
        """Every job in one transaction, or none of them: here on the loop if they are all
        :data:`LOOP_JOBS` and the lock is free (see the module docstring), else on the
        thread."""
        if not self._committed_on_loop(loop, jobs):
            await loop.run_in_executor(self._thread, self._commit_all, jobs)

    def _committed_on_loop(self, loop: asyncio.AbstractEventLoop, jobs: Sequence[Write]
                           ) -> bool:
        """Commit ``jobs`` here on the loop if they are all :data:`LOOP_JOBS` and the write
        lock is free (see the module docstring); whether it was done (``False``: they are
        the thread's; :class:`StoreError` if the commit failed)."""
        if self._here_path is None or not all(isinstance(job, LOOP_JOBS) for job in jobs):
            return False
        try:
            self._commit_here(jobs)
        except _LockedError:
            return False  # another process writes: the thread waits for it
        self._committed_here(loop)
        return True

    def _committed_here(self, loop: asyncio.AbstractEventLoop) -> None:
        """Count a loop commit; every CHECKPOINT_EVERY, a checkpoint on the thread."""
        self._here_commits += 1
        if self._here_commits >= CHECKPOINT_EVERY and not self._checkpointing:
            self._here_commits = 0
            self._checkpointing = True
            loop.run_in_executor(self._thread, self._checkpoint)

    def _commit_here(self, jobs: Sequence[Write]) -> None:
        """On the event loop: the jobs in one transaction, or none of them — plain saves
        through :meth:`Save.here`, the others through SQLAlchemy on the same connection;
        :class:`_LockedError` at once if another connection holds the write lock."""
        conn = self._here
        if conn is None:
            conn = self._open_here()
        cursor = conn.cursor()
        try:
            cursor.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise _LockedError from exc
            raise StoreError(_why(exc), True) from exc
        except sqlite3.Error as exc:
            raise StoreError(_why(exc), True) from exc
        through: Connection | None = None
        try:
            for job in jobs:
                if isinstance(job, Save) and job.plain:
                    job.here(cursor)
                else:
                    if through is None:
                        assert self._here_engine is not None
                        through = self._here_engine.connect()
                    job(through)  # inside the transaction begun above
            cursor.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    cursor.execute("ROLLBACK")
            if conn.in_transaction:  # not rolled back: closing the connection does it
                self._drop_here()
            if isinstance(exc, StoreError):
                raise
            if isinstance(exc, sqlite3.IntegrityError | IntegrityError):
                raise StoreError(_why(exc), False) from exc  # one write's own
            if isinstance(exc, sqlite3.Error | SQLAlchemyError | OSError):
                raise StoreError(_why(exc), True) from exc
            raise
        finally:
            cursor.close()
            if through is not None:
                # Its own "transaction" (SQLAlchemy's autobegin) ends with a rollback of
                # the DB-API connection, which does nothing after the COMMIT or ROLLBACK.
                with contextlib.suppress(SQLAlchemyError):
                    through.close()

    def _open_here(self) -> sqlite3.Connection:
        """The loop's connection (see the module docstring), and a SQLAlchemy engine over
        that one connection for the jobs that are not plain saves."""
        if self._closed:
            raise StoreError("the store is closed", True)
        assert self._here_path is not None
        try:
            conn = sqlite3.connect(self._here_path, isolation_level=None,
                                   check_same_thread=False)
            # Never wait for a lock here, never checkpoint here (the thread does both).
            conn.execute("PRAGMA busy_timeout=0")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA wal_autocheckpoint=0")
            # isolation_level=None: the driver begins nothing, so SQLAlchemy's statements
            # run in the transaction _commit_here begins; no reset (a rollback) when a
            # connection goes back to the pool, the transaction being ours.
            engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool,
                                   pool_reset_on_return=None)
            engine.connect().close()  # the dialect's first look, outside any transaction
        except (sqlite3.Error, SQLAlchemyError) as exc:
            raise StoreError(_why(exc), True) from exc
        self._here, self._here_engine = conn, engine
        return conn

    def _drop_here(self) -> None:
        """Close the loop's connection (which rolls back what it had begun); the next
        loop commit opens another."""
        conn, engine = self._here, self._here_engine
        self._here = self._here_engine = None
        if engine is not None:
            engine.dispose()
        if conn is not None:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

    def _checkpoint(self) -> None:
        """On the store's thread: copy the WAL's committed pages into the database file
        (``PASSIVE``: as far as readers allow, never waiting for or blocking a writer)."""
        try:
            if self._writer is None:
                self._writer = self.engine.connect()
            self._writer.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
            self._writer.commit()
        except SQLAlchemyError as exc:
            log.warning("a checkpoint of the WAL failed (the next one tries again): %s",
                        _why(exc))
            if self._writer is not None:
                self._writer.close()
                self._writer = None
        finally:
            self._checkpointing = False

    def _commit_all(self, jobs: list[Write]) -> None:
        """On the store's thread: every job in one transaction, or none of them."""
        try:
            with self._tx() as conn:
                for job in jobs:
                    job(conn)
        except SQLAlchemyError as exc:
            # An operational error (locked, disk full, gone) hits every write alike; an
            # integrity error is one write's own.
            raise StoreError(_why(exc), not isinstance(exc, IntegrityError)) from exc
        except OSError as exc:
            raise StoreError(_why(exc), True) from exc

    async def create_async(self, row: TableRow) -> None:
        await self.write(Create(row))

    async def save_async(self, table_id: str, new_events: Sequence[dict[str, Any]] = (),
                         first: int = 0, *, epoch: int = SINGLE_PROCESS_EPOCH,
                         **fields: Any) -> None:
        """:meth:`save` without blocking the loop (see :meth:`write`)."""
        await self.write(Save(table_id, _events_json(new_events), first, fields, epoch))

    # -- for tools and tests that own the store --------------------------------------------

    @contextmanager
    def _tx(self) -> Iterator[Connection]:
        """A transaction on the held connection: committed at the end, rolled back (and
        the connection let go) on any error."""
        if (self._writer is not None
                and time.monotonic() - self._writer_used > self._writer_idle):
            self._writer.close()  # back to the pool, checked before its next use
            self._writer = None
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
        self._writer_used = time.monotonic()

    def create(self, row: TableRow) -> None:
        with self.engine.begin() as conn:
            _insert(conn, row)

    def save(self, table_id: str, new_events: Sequence[dict[str, Any]] = (),
             first: int = 0, *, epoch: int = SINGLE_PROCESS_EPOCH, **fields: Any) -> None:
        """Append ``new_events`` (numbered from ``first``) and update ``fields``, at once.

        With a ``seq`` in ``fields`` (and there must be one with events) the write is
        fenced: :class:`FencingError` unless ``seq`` is the next and ``epoch`` current.
        """
        with self.engine.begin() as conn:
            _save(conn, table_id, _events_json(new_events), first, fields, epoch)

    def load(self, table_id: str) -> TableRow | None:
        """The table and its log (``ValueError`` for an event that is not JSON)."""
        row = self.row(table_id)
        if row is None:
            return None
        for i, data in enumerate(self.event_texts(table_id)):
            try:
                row.log.append(json.loads(data))
            except ValueError:
                raise ValueError(f"event {i + 1} of the log is not JSON") from None
        return row

    def row(self, table_id: str) -> TableRow | None:
        """The table without its log (from a database of an older schema too: a tool that
        only reads does not upgrade it)."""
        with self.engine.connect() as conn:
            if self._columns is None:
                present = {c["name"] for c in inspect(conn).get_columns("tables")}
                self._columns = [c for c in tables.c if c.name in present]
            row = conn.execute(select(*self._columns).where(tables.c.id == table_id)
                               ).mappings().first()
        return None if row is None else _row(row, [])

    def event_texts(self, table_id: str) -> list[str]:
        """The log as stored, one text an event (for inspecting a damaged table)."""
        with self.engine.connect() as conn:
            return [r.data for r in conn.execute(
                select(events.c.data).where(events.c.table_id == table_id)
                .order_by(events.c.n))]

    def ids(self, statuses: Sequence[str]) -> list[str]:
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(
                select(tables.c.id).where(tables.c.status.in_(list(statuses)))
                .order_by(tables.c.created_at))]

    def ids_after(self, status: str, after: str, limit: int) -> list[str]:
        """Up to ``limit`` ids of the tables of ``status`` after the id ``after``, in id
        order: a page of the takeover sweep's backstop (server/cluster.py). One range of
        the index on ``(status, id)``, so that a page costs its rows, not every table."""
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(
                select(tables.c.id).where((tables.c.status == status) & (tables.c.id > after))
                .order_by(tables.c.id).limit(limit))]

    def public_waiting(self, limit: int, after: tuple[int, str] | None = None
                       ) -> list[TableRow]:
        """Up to ``limit`` public waiting tables with a free seat, oldest first, after the
        table ``after`` (its ``created_at`` and id): the lobby's list when several
        processes share the store (no process holds every table). Without their logs."""
        out: list[TableRow] = []
        with self.engine.connect() as conn:
            while len(out) < limit:
                query = select(*list(tables.c)).where(
                    (tables.c.status == "waiting") & tables.c.public)
                if after is not None:
                    query = query.where(
                        (tables.c.created_at > after[0])
                        | ((tables.c.created_at == after[0]) & (tables.c.id > after[1])))
                batch = conn.execute(query.order_by(tables.c.created_at, tables.c.id)
                                     .limit(limit)).mappings().all()
                for found in batch:
                    row = _row(found, [])
                    if not all(seat.taken for seat in row.seats):
                        out.append(row)
                        if len(out) == limit:
                            break
                if len(batch) < limit:
                    break
                after = (batch[-1]["created_at"], batch[-1]["id"])
        return out

    async def claim(self, table_id: str, epoch: int) -> None:
        """A new owner's first write: the table's ``epoch`` raised to its lease's, before
        it reads the log, so that from now on the fence refuses every write of an older
        owner (one paused, or still finishing a move) — nothing it writes after this can
        be missing from what the new owner loads. :class:`FencingError` if a newer owner
        claimed it already."""

        def job(conn: Connection) -> None:
            result = conn.execute(update(tables).where(
                (tables.c.id == table_id) & (tables.c.epoch <= epoch)).values(epoch=epoch))
            if result.rowcount != 1:
                stored = conn.execute(select(tables.c.seq, tables.c.epoch)
                                      .where(tables.c.id == table_id)).first()
                raise FencingError(table_id, 0, epoch,
                                   None if stored is None else stored.seq,
                                   None if stored is None else stored.epoch)

        await self.write(job)

    async def expire_waiting(self, created_before: int) -> int:
        """Mark every waiting table created before ``created_before`` (ms) ``expired``, in
        one statement on the store's thread, without loading them (at start-up); returns
        how many."""
        counted: list[int] = []

        def job(conn: Connection) -> None:
            result = conn.execute(update(tables).where(
                (tables.c.status == "waiting") & (tables.c.created_at < created_before))
                .values(status="expired"))
            counted.append(int(result.rowcount))

        await self.write(job)
        return sum(counted)

    # -- a finished game's analysis (server/replays.py) -----------------------------------

    def analysis(self, table_id: str, seed: int, samples: int | None
                 ) -> dict[str, Any] | None:
        """The analysis kept for ``table_id`` if it was computed with this ``seed`` and
        ``samples`` (another setting's figures are not the ones asked for), else ``None``.
        Blocking: call it off the event loop."""
        with self.engine.connect() as conn:
            row = conn.execute(select(analyses.c.seed, analyses.c.samples, analyses.c.data)
                               .where(analyses.c.table_id == table_id)).first()
        if row is None or row.seed != seed or row.samples != samples:
            return None
        try:
            kept: dict[str, Any] = json.loads(row.data)
        except ValueError:
            log.warning("table %s: its kept analysis is not JSON; computing it again",
                        table_id)
            return None
        return kept

    async def save_analysis_async(self, table_id: str, seed: int, samples: int | None,
                                  result: dict[str, Any]) -> None:
        """Keep ``result`` as the analysis of ``table_id`` (replacing an older one), on the
        store's thread (see :meth:`write`)."""
        data = json.dumps(result, separators=(",", ":"))
        values = {"seed": seed, "samples": samples, "created_at": now_ms(), "data": data}

        def job(conn: Connection) -> None:
            done = conn.execute(update(analyses).where(analyses.c.table_id == table_id)
                                .values(**values))
            if not done.rowcount:
                conn.execute(insert(analyses).values(table_id=table_id, **values))

        await self.write(job)

    def ready(self) -> str | None:
        """Why the store cannot serve now (unreachable, schema not this release's), or
        ``None``: for ``/readyz``. Blocking: call it off the event loop."""
        from minodice.server import migrations

        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
                revision = migrations.current(conn)
        except SQLAlchemyError as exc:
            return f"the database does not answer: {_why(exc)}"
        if revision != migrations.head():
            return f"the database's schema is {revision}, this release's {migrations.head()}"
        if self.file is not None:
            # A full disk is said by every move refused ("unavailable"), and was ready here.
            try:
                free = shutil.disk_usage(self.file.absolute().parent).free
            except OSError:
                free = None
            if free is not None and free < READY_FREE_BYTES:
                return (f"the disk of the database is full ({free} bytes free): moves "
                        "cannot be saved")
        return None

    def close(self, checkpoint: bool = True) -> None:
        """Let the connections go (a second close does nothing); without ``checkpoint``
        the WAL is left as it is (for a file that turned out to be no database)."""
        if self._closed:
            return
        self._closed = True

        self._drop_here()

        def _close() -> None:
            if self._here_path is not None and checkpoint:
                self._checkpoint()
            if self._writer is not None:
                self._writer.close()
                self._writer = None

        self._thread.submit(_close).result()
        self._thread.shutdown()
        self.engine.dispose()


def _settle(done: asyncio.Future[None], exc: BaseException | None) -> None:
    if done.done():
        return
    if exc is None:
        done.set_result(None)
    else:
        done.set_exception(exc)


def _why(exc: BaseException) -> str:
    """The cause in a few words for the log (never the SQL, which holds the data)."""
    orig = getattr(exc, "orig", None) or exc
    return f"{type(orig).__name__}: {str(orig).splitlines()[0][:120] if str(orig) else ''}"


def _events_json(new_events: Sequence[dict[str, Any]]) -> list[str]:
    return [json.dumps(e, separators=(",", ":")) for e in new_events]


def engine_url(url: str) -> str:
    """SQLAlchemy's URL for a database URL as people write it: ``postgresql://`` (or
    ``postgres://``) means PostgreSQL through psycopg 3, the driver this package installs."""
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return "postgresql+psycopg://" + url[len(scheme):]
    return url


def _insert(conn: Connection, row: TableRow) -> None:
    conn.execute(insert(tables).values(
        id=row.id, created_at=row.created_at, status=row.status, public=row.public,
        settings=row.settings.stored(), seats=stored_seats(row.seats),
        host_token_hash=row.host_token_hash,
        server_seed=row.server_seed, commit=row.commit, seq=row.seq, events=0,
        rematch=row.rematch, epoch=row.epoch))


def _save(conn: Connection, table_id: str, events_json: list[str], first: int,
          fields: dict[str, Any], epoch: int) -> None:
    fields = dict(fields)
    if "settings" in fields:
        fields["settings"] = TableSettings.stored(fields["settings"])
    if "seats" in fields:
        fields["seats"] = stored_seats(fields["seats"])
    if events_json and "seq" not in fields:
        raise ValueError("events are written with the next seq (the fence checks it)")
    if events_json:
        fields["events"] = first + len(events_json)
    if "seq" in fields:
        # The fence first: it takes the row's lock, so the events below are appended by
        # the one writer whose seq and epoch it let through.
        seq = int(fields.pop("seq"))
        values: dict[str, Any] = {"table_id": table_id, "seq": seq, "previous": seq - 1,
                                  "epoch": epoch}
        if fields.keys() == {"events"}:  # a move: the common case
            result = conn.execute(_ADVANCE, {**values, **fields})
        else:
            result = conn.execute(update(tables).where(_FENCED).values(
                seq=bindparam("seq"), epoch=bindparam("epoch"), **fields), values)
        if result.rowcount != 1:
            stored = conn.execute(select(tables.c.seq, tables.c.epoch)
                                  .where(tables.c.id == table_id)).first()
            raise FencingError(table_id, seq, epoch, None if stored is None else stored.seq,
                               None if stored is None else stored.epoch)
    elif fields:
        conn.execute(update(tables).where(tables.c.id == table_id).values(**fields))
    if events_json:
        conn.execute(_APPEND, [{"table_id": table_id, "n": first + i, "data": data}
                               for i, data in enumerate(events_json)])


def _row(row: Any, log: list[dict[str, Any]]) -> TableRow:
    """A stored row as this release reads it (``ValueError`` for settings or seats that
    are not what any release wrote; missing fields take their defaults, see rows.py)."""
    seats = load_seats(row["seats"])
    return TableRow(
        id=row["id"], created_at=row["created_at"], status=row["status"],
        public=bool(row["public"]), settings=TableSettings.load(row["settings"], len(seats)),
        seats=seats,
        host_token_hash=row["host_token_hash"], server_seed=row["server_seed"],
        commit=row["commit"], seq=row["seq"], events=row["events"], rematch=row["rematch"],
        log=log, epoch=row.get("epoch", SINGLE_PROCESS_EPOCH))


def now_ms() -> int:
    return int(time.time() * 1000)
