"""Typed errors of the engine and of record reading.

An illegal action is refused with the rule it breaks, never quietly "fixed" (STYLE 5).
Messages name players through a placeholder so that the engine, which knows seats but
not names, and the record reader, which knows names, share one wording.
"""

from __future__ import annotations

from collections.abc import Sequence

PLAYER = "{player}"


class MinodiceError(Exception):
    """Base class of every error this package raises on purpose."""


class IllegalActionError(MinodiceError, ValueError):
    """An action or chance outcome that the rules do not allow in this state.

    ``rule`` is the rule id (``"R9"``) or ``None``; ``seat`` the player concerned, if any.
    ``template`` may contain ``{player}``, filled in by :meth:`describe`.
    """

    def __init__(self, rule: str | None, template: str, seat: int | None = None) -> None:
        self.rule = rule
        self.template = template
        self.seat = seat
        super().__init__(self.describe())

    def describe(self, names: Sequence[str] | None = None) -> str:
        """The message with the player's name (or ``player N``) filled in."""
        if self.seat is None:
            who = "the player"
        elif names is not None and 0 <= self.seat < len(names):
            who = names[self.seat]
        else:
            who = f"player {self.seat}"
        return self.template.replace(PLAYER, who)


class InvalidRecordError(MinodiceError, ValueError):
    """A game record that breaks RECORD.md or the rules, located as RECORD.md asks.

    ``round``, ``trick`` and ``roll`` count from 1 and are ``None`` where they do not apply.
    """

    def __init__(
        self,
        message: str,
        rule: str | None = None,
        round: int | None = None,  # noqa: A002 - the record's own word
        trick: int | None = None,
        roll: int | None = None,
    ) -> None:
        self.message = message
        self.rule = rule
        self.round = round
        self.trick = trick
        self.roll = roll
        super().__init__(str(self))

    def __str__(self) -> str:
        place = []
        if self.round is not None:
            place.append(f"round {self.round}")
        if self.trick is not None:
            place.append(f"trick {self.trick}")
        if self.roll is not None:
            place.append(f"roll {self.roll}")
        prefix = ", ".join(place)
        return f"{prefix}: {self.message}" if prefix else self.message

    def to_json(self) -> dict[str, object]:
        return {
            "error": {
                "round": self.round,
                "trick": self.trick,
                "roll": self.roll,
                "rule": self.rule,
                "message": self.message,
            }
        }
