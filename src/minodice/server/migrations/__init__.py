"""The store's schema, versioned: Alembic migrations run by :class:`~minodice.server.store.Store`
when it opens a database, so that a release that changes the schema upgrades every saved
table instead of stranding it (SQLite now, PostgreSQL next: the same revisions).

A database written before the store was versioned (no ``alembic_version`` table, the
release of 2026-11-30) is upgraded from the first revision, which takes the tables it
finds as they are.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

HERE = Path(__file__).parent


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision this release knows."""
    revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The revision the database is at (``None``: never versioned)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Bring the database to :func:`head` (or to ``revision``: tests that build an old
    schema), in the caller's transaction."""
    command.upgrade(_config(connection), revision)
