"""The random bot: a uniformly random legal action. The baseline of every ladder."""

from __future__ import annotations

import random
from collections.abc import Sequence

from minodice.core.actions import Action
from minodice.core.view import SeatView


class RandomBot:
    """Bids and rolls uniformly at random among the legal actions."""

    name = "random"

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[int(rng.random() * len(legal))]
