"""One server per database, or one cluster: claimed before the store is opened.

Two ``minodice serve`` on one database each load its unfinished tables and play them: the
fence keeps the second's writes out (server/store.py), but it serves stale tables, and its
players are told only "try again". So a server claims its database first, and a second is
refused at start, naming the first:

- a SQLite file: an exclusive lock on ``.NAME.lock`` beside it (the same lock as a saved
  game's; the operating system lets go of it when its process ends, ``kill -9`` included);
- PostgreSQL: an advisory lock held by a connection of its own for the process's life,
  exclusive for a process alone, shared by the processes of one cluster (``--redis``): a
  process alone is refused beside a cluster, and a cluster's process beside one alone.
  The lock goes with its session (PostgreSQL restarted): a thread checks it every few
  seconds and takes it again.

A process just killed may still hold its claim for a moment (its database connection is
closed by the database server once it notices): a claim is tried for a few seconds. A
server stopped by SIGTERM or Ctrl+C removes the lock's file; one killed outright leaves it
behind, let go of: the next one takes it. A ``sqlite:///FILE`` URL is claimed as its file
(cli/online.py reads it as one).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from minodice.files import FileLock, LockHeldError

#: The advisory lock's key (the store's migrations take 5410719 for their transactions).
CLAIM_KEY = 5410720
#: How long a claim is tried before it is refused: a process killed a moment ago lets go.
CLAIM_WAIT = 5.0
#: Seconds between two checks that a PostgreSQL claim's session is still there.
CLAIM_CHECK = 5.0

log = logging.getLogger(__name__)


class DatabaseInUseError(Exception):
    """Another server holds the database; the message says which and what to do."""


def claim_sqlite(path: Path, wait: float | None = None) -> Callable[[], None]:
    """Hold the SQLite file ``path`` for this process: its release, or
    :class:`DatabaseInUseError`; ``OSError`` where the lock's file cannot be made."""
    deadline = time.monotonic() + (CLAIM_WAIT if wait is None else wait)
    while True:
        try:
            lock = FileLock.take(path.parent / f".{path.name}.lock")
        except LockHeldError as exc:
            if time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            who = f"process {exc.holder}" if exc.holder is not None else "another process"
            raise DatabaseInUseError(
                f"another minodice serve ({who}) is using the database {path}: stop it "
                "first, or give this one a database of its own (--db)") from None
        return lock.release


def claim_postgresql(url: str, shared: bool, wait: float | None = None,
                     check_every: float | None = None) -> Callable[[], None]:
    """Hold the PostgreSQL database at SQLAlchemy's ``url`` for this process (``shared``:
    as one of a cluster's): its release, or :class:`DatabaseInUseError`; SQLAlchemy's
    errors where the database does not answer."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": 5})
    # autocommit: the connection is idle between statements, never "idle in transaction"
    conn: Any = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    kind = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    deadline = time.monotonic() + (CLAIM_WAIT if wait is None else wait)
    take = text(f"SELECT {kind}(:key)")
    try:
        while not conn.execute(take, {"key": CLAIM_KEY}).scalar():
            if time.monotonic() >= deadline:
                raise DatabaseInUseError(
                    "a minodice serve without --redis is using this database: stop it, or "
                    "start every process with --redis" if shared else
                    "other minodice serve processes are using this database: stop them, or "
                    "start this one with --redis and the same Redis, as one of them")
            time.sleep(0.2)
    except BaseException:
        conn.close()
        engine.dispose()
        raise

    held = [conn]  # the connection holding the lock now (the keeper's, once started)
    stop = threading.Event()

    def keep() -> None:
        """The lock lives with its session: PostgreSQL restarted (or the connection cut)
        lets go of it, and a second server could then claim the database beside this one.
        Checked every CLAIM_CHECK seconds, and taken again on a new connection."""
        lost = False
        while not stop.wait(CLAIM_CHECK if check_every is None else check_every):
            try:
                held[0].execute(text("SELECT 1"))
                continue
            except Exception:  # whatever the driver says: the session is gone
                with suppress(Exception):
                    held[0].close()
            try:
                again: Any = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            except Exception:  # the database still away: tried again later
                continue
            held[0] = again
            if again.execute(take, {"key": CLAIM_KEY}).scalar():
                log.warning("the claim on the database was lost with its connection "
                            "(PostgreSQL restarted?) and is held again")
                lost = False
            else:
                if not lost:
                    log.error("the claim on the database was lost with its connection, and "
                              "another minodice serve holds it now: stop one of them")
                lost = True
                with suppress(Exception):
                    again.close()  # the next check fails, and tries again

    keeper = threading.Thread(target=keep, name="minodice-claim", daemon=True)
    keeper.start()

    def release() -> None:
        # the database server lets go of the lock with the session (one gone meanwhile
        # has let go already)
        stop.set()
        keeper.join(timeout=10)
        with suppress(Exception):
            held[0].close()
        engine.dispose()

    return release
