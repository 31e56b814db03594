"""A finished game's analysis, kept: ``analyses`` holds one row a table (and the seed and
samples it was computed with), so that a restarted server gives it again instead of
spending minutes of its analysis workers on it (server/replays.py).

Revision ID: r0004
Revises: r0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "r0004"
down_revision = "r0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("samples", sa.Integer, nullable=True),  # NULL: the command line's default
        sa.Column("created_at", sa.BigInteger, nullable=False),
        sa.Column("data", sa.Text, nullable=False),       # the ``--json`` answer
    )
