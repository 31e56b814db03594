"""A stored table's settings and seats, typed: each field and its default written once.

They were ``dict[str, Any]`` read through ``.get("advisor", True)`` at every use, so that
each reader carried its own copy of every default (and a new field meant a hunt for them).
Here they are pydantic models, for three reasons:

- the store keeps them as JSON columns, and a stored row is *data from an older release*:
  :meth:`TableSettings.load` and :meth:`Seat.load` validate it, fill every missing field
  with its default and ignore a key this release does not know (a field dropped since), so
  that any row an earlier release wrote loads as it is — no migration to fill defaults in;
- the wire package (:mod:`minodice.wire`) is pydantic already: one kind of model, one way
  to validate and dump;
- frozen models are values: a change is a new model (``model_copy(update=…)``) written
  first and adopted after, which is the room's write path (nothing changes before it is
  written).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from minodice.core.fair import SCHEME_1, seed_hash

#: Stored rows are read leniently (unknown keys ignored) and never changed in place.
_STORED = ConfigDict(frozen=True, extra="ignore")


class TableSettings(BaseModel):
    """What the table's host chose, fixed at creation (a rematch copies them)."""

    model_config = _STORED

    players: int = Field(default=0, ge=0)  # 0 only while loading: see load()
    edition: str = "mino"
    variant: str = "standard"
    first_starter: int = 0
    # RULES.md's open points (R5, R9); tables stored before them played the defaults
    start: str = "rotate"
    special_lead: str = "first-number"
    turn_seconds: int | None = None  # None: no clock
    advisor: bool = True
    # Tables created before minodice-fair-2 keep playing (and replaying) fair-1.
    fair: str = SCHEME_1
    rematch_of: str | None = None  # the finished table this one is the rematch of

    @classmethod
    def load(cls, stored: Any, seats: int) -> TableSettings:
        """The settings as stored by any release (``ValueError`` if they are no object or a
        field has the wrong type); ``players`` missing counts the ``seats``."""
        if not isinstance(stored, dict):
            raise ValueError("the table's settings are not a JSON object")
        settings = cls.model_validate(stored)
        if "players" not in stored:
            settings = settings.model_copy(update={"players": seats})
        return settings

    def stored(self) -> dict[str, Any]:
        """The JSON object the store keeps (every field, defaults included)."""
        return self.model_dump(mode="json")


class Seat(BaseModel):
    """One seat: who sits there (or nobody yet), and their part of the fair dice."""

    model_config = _STORED

    name: str | None = None  # None: free
    bot: str | None = None  # the bot's level; None: a person's seat
    token_hash: str | None = None  # sha256 of the seat's token (never the token)
    # The seed this seat gave; None while it is committed by hash only (fair-2) and not
    # revealed yet; "" for a bot or a person who gave none.
    client_seed: str | None = ""
    seed_hash: str | None = None  # sha256 of the seed, committed when joining
    held_for: str | None = None  # a rematch keeps the seat for this token's hash
    replaced: bool = False  # its seed came late: the server seed fixed one (fair-2)

    @classmethod
    def load(cls, stored: Any) -> Seat:
        """A seat as stored by any release (``ValueError`` if it is no object or a field
        has the wrong type)."""
        if not isinstance(stored, dict):
            raise ValueError("a seat of the table is not a JSON object")
        return cls.model_validate(stored)

    def stored(self) -> dict[str, Any]:
        """The JSON object the store keeps (every field, defaults included)."""
        return self.model_dump(mode="json")

    @property
    def taken(self) -> bool:
        return self.name is not None

    @property
    def committed_hash(self) -> str:
        """The hash this seat committed to (a seat that gave no seed: that of ``""``)."""
        return self.seed_hash or seed_hash("")

    @property
    def revealed(self) -> bool:
        """Whether the seed this seat committed to is known (or it committed to none)."""
        return self.client_seed is not None


def load_seats(stored: Any) -> list[Seat]:
    if not isinstance(stored, list):
        raise ValueError("the table's seats are not a JSON list")
    return [Seat.load(seat) for seat in stored]


def stored_seats(seats: list[Seat]) -> list[dict[str, Any]]:
    return [seat.stored() for seat in seats]
