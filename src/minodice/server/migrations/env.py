"""Alembic's entry point: migrations run on the connection the store hands over (never a
URL of their own, so the store's settings and transaction apply)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection


def run() -> None:
    connection = context.config.attributes.get("connection")
    if not isinstance(connection, Connection):
        raise RuntimeError("minodice's migrations run from minodice.server.store.Store")
    context.configure(connection=connection, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


if hasattr(context, "config"):  # run by Alembic (a test collector only imports it)
    run()
