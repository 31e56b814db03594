"""Every table's settings and seats hold every field, so that the server reads them without
defaults of its own (before, ``advisor``, ``turn_seconds``, a seat's ``bot`` and
``client_seed`` could be missing, and each reader supplied its own default).

Revision ID: r0002
Revises: r0001
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "r0002"
down_revision = "r0001"
branch_labels = None
depends_on = None

SETTINGS_DEFAULTS: dict[str, Any] = {"turn_seconds": None, "advisor": True}
SEAT_DEFAULTS: dict[str, Any] = {"name": None, "bot": None, "client_seed": ""}


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, settings, seats FROM tables")).all()
    for table_id, settings_text, seats_text in rows:
        settings = _json(settings_text)
        seats = _json(seats_text)
        if not isinstance(settings, dict) or not isinstance(seats, list):
            continue  # a damaged row stays as it is, for the server to set aside and show
        whole = {**SETTINGS_DEFAULTS, **settings}
        whole_seats = [{**SEAT_DEFAULTS, **seat} if isinstance(seat, dict) else seat
                       for seat in seats]
        if whole != settings or whole_seats != seats:
            bind.execute(sa.text("UPDATE tables SET settings = :s, seats = :p WHERE id = :id"),
                         {"s": json.dumps(whole), "p": json.dumps(whole_seats), "id": table_id})


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value
