"""The fence: each table keeps the lease ``epoch`` of the process that wrote it last, and
the store lets a write of its log through only from that epoch or a newer one, with the
next ``seq`` (see :mod:`minodice.server.store`). Tables written before have epoch 0, which
every writer's epoch passes.

``created_at`` (milliseconds since 1970) is widened to 64 bits where the column type has a
width (PostgreSQL's ``integer`` is 32 bits; SQLite's integers are 64 bits already).

Revision ID: r0003
Revises: r0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0003"
down_revision = "r0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("epoch", sa.Integer, nullable=False,
                                      server_default="0"))
    if op.get_bind().dialect.name != "sqlite":
        op.alter_column("tables", "created_at", type_=sa.BigInteger,
                        existing_type=sa.Integer, existing_nullable=False)
