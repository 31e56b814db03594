"""An index on ``tables (status, id)``: the takeover sweep of several processes
(server/cluster.py) pages through the waiting and playing tables in id order as a
backstop, and a page must cost its own rows — with the index on ``status`` alone, every
page read and sorted every table of that status.

Revision ID: r0005
Revises: r0004
"""

from __future__ import annotations

from alembic import op

revision = "r0005"
down_revision = "r0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_tables_status_id", "tables", ["status", "id"])
