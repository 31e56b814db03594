"""The tables and their event logs, as the release of 2026-11-30 wrote them.

A database of that release already has both tables (and no ``alembic_version``): they are
taken as they are. A new database gets them here.

Revision ID: r0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "tables" not in existing:
        op.create_table(
            "tables",
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column("created_at", sa.Integer, nullable=False),
            sa.Column("status", sa.String(16), nullable=False, index=True),
            sa.Column("public", sa.Boolean, nullable=False),
            sa.Column("settings", sa.JSON, nullable=False),
            sa.Column("seats", sa.JSON, nullable=False),
            sa.Column("host_token_hash", sa.String(64), nullable=False),
            sa.Column("server_seed", sa.String(64), nullable=False),
            sa.Column("commit", sa.String(64), nullable=False),
            sa.Column("seq", sa.Integer, nullable=False),
            sa.Column("events", sa.Integer, nullable=False),
            sa.Column("rematch", sa.String(32), nullable=True),
        )
    if "events" not in existing:
        op.create_table(
            "events",
            sa.Column("table_id", sa.String(32), primary_key=True),
            sa.Column("n", sa.Integer, primary_key=True),
            sa.Column("data", sa.Text, nullable=False),
        )
