"""The store's schema, versioned: Alembic migrations run by :class:`~minodice.server.store.Store`
when it opens a database, so that a release that changes the schema upgrades every saved
table instead of stranding it (SQLite now, PostgreSQL next: the same revisions).

A database written before the store was versioned (no ``alembic_version`` table, the
release of 2026-11-30) is upgraded from the first revision, which takes the tables it
finds as they are.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect

if TYPE_CHECKING:
    from alembic.config import Config

HERE = Path(__file__).parent
LOG = logging.getLogger(__name__)


def _config(connection: Connection | None = None) -> Config:
    # Alembic is imported here, under _alembic_quiet: importing it logs its plugins' set-up.
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@contextmanager
def _alembic_quiet() -> Iterator[None]:
    """Alembic's informational lines (its plugins, its dialect) held back unless the
    server logs at debug level: they say nothing to someone who ran ``minodice serve``."""
    alembic_log = logging.getLogger("alembic")
    level = alembic_log.level
    if alembic_log.getEffectiveLevel() > logging.DEBUG:
        alembic_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        alembic_log.setLevel(level)


class SchemaError(Exception):
    """A database this release will not write to: one from a newer release (it cannot
    know that schema), or one that holds another program's tables."""


def revisions() -> set[str]:
    """Every revision this release knows."""
    with _alembic_quiet():
        from alembic.script import ScriptDirectory

        scripts = ScriptDirectory.from_config(_config())
        return {script.revision for script in scripts.walk_revisions()}


def head() -> str:
    """The newest revision this release knows."""
    with _alembic_quiet():
        from alembic.script import ScriptDirectory

        revision = ScriptDirectory.from_config(_config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The revision the database is at (``None``: never versioned)."""
    with _alembic_quiet():
        from alembic.runtime.migration import MigrationContext

        return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Bring the database to :func:`head` (or to ``revision``: tests that build an old
    schema), in the caller's transaction.

    A database already there is left alone without running Alembic's command: every server
    start opens the store. An upgrade that does run says so in one line of ours."""
    target = head() if revision == "head" else revision
    was = current(connection)
    if was == target:
        return
    if was is not None and was not in revisions():
        raise SchemaError(f"its schema ({was}) is newer than this release's ({head()}): it was "
                          "written by a newer release of minodice; run that one on it")
    found = inspect(connection).get_table_names()
    if was is None and "tables" not in found and found:
        shown = ", ".join(sorted(found)[:3]) + (", …" if len(found) > 3 else "")
        raise SchemaError(f"it holds another program's tables ({shown}): give minodice a "
                          "database of its own")
    if was is None and "tables" not in found:
        LOG.info("setting up a new database (schema %s)", target)
    else:
        LOG.info("upgrading the database's schema from %s to %s", was or "unversioned",
                 target)
    with _alembic_quiet():
        from alembic import command

        command.upgrade(_config(connection), revision)
