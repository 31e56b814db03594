"""The log of one round as a record stores it: hands drawn, bids, the rolls of every
trick, trick winners and the scores. The engine appends to it as the round is played;
views and records read it."""

from __future__ import annotations

RollEntry = tuple[int, int, int]  # (seat, kind index, face code)


class RoundLog:
    """What happened in one round, as a record stores it, plus its computed results."""

    __slots__ = ("bids", "bonus", "hands", "points", "totals", "tricks", "winners")

    def __init__(self, players: int) -> None:
        self.hands: list[int] = [0] * players      # hand keys as drawn
        self.bids: list[int] | None = None         # None until all bids are in
        self.tricks: list[list[RollEntry]] = []
        self.winners: list[int] = []               # winner of each finished trick
        self.points: list[int] | None = None       # set when the round is scored
        self.bonus: list[int] | None = None
        self.totals: list[int] | None = None

    def copy(self) -> RoundLog:
        other = RoundLog(0)
        other.hands = self.hands[:]
        other.bids = None if self.bids is None else self.bids[:]
        other.tricks = [t[:] for t in self.tricks]
        other.winners = self.winners[:]
        other.points = None if self.points is None else self.points[:]
        other.bonus = None if self.bonus is None else self.bonus[:]
        other.totals = None if self.totals is None else self.totals[:]
        return other
