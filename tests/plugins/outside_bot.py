"""A correct bot from outside the package, loaded by the tests as ``file.py:Class`` and
``module:Class``: it only uses the public bot interface (view, legal actions, its rng)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from minodice.core.actions import Action, Bid
from minodice.core.view import SeatView


class FirstLegalBot:
    """Bids as many tricks as it holds special dice; otherwise rolls the first legal die."""

    name = "first-legal"

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        self.decisions += 1
        if isinstance(legal[0], Bid):
            specials = sum(1 for kind in view.hand.kinds() if kind.special)
            return next((a for a in legal if isinstance(a, Bid) and a.tricks == specials),
                        legal[0])
        return legal[0]
