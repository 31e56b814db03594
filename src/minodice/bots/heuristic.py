"""The ``easy`` bot: a sensible heuristic, no search.

How it thinks. *Bidding*: each die has a chance to win a trick (its power, see
:mod:`minodice.bots.strength`); the bot bids the sum over its dice, rounded. *Playing*:
while it still needs tricks it rolls the die most likely to take this trick given what is
already on the table, unless none is likely — then it sheds its weakest die and keeps its
strength for later. Once it has its tricks it ducks: the die least likely to win,
shedding its most dangerous dice (a red, the minotaur) when they cannot win anyway.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from minodice.bots.strength import choose_kind, strength_of
from minodice.core.actions import Action, Bid, Roll
from minodice.core.dice import FLAG, SYMBOL_BASE
from minodice.core.view import SeatView


def trick_summary(view: SeatView) -> tuple[int, int, bool]:
    """(symbols showing as a mask, best number, table empty) of the trick in play."""
    mask = best = 0
    for roll in view.trick:
        code = roll.face.code
        if code >= SYMBOL_BASE:
            mask |= 1 << (code - SYMBOL_BASE)
        elif code > FLAG and code > best:
            best = code
    return mask, best, not view.trick


def heuristic_bid(view: SeatView) -> int:
    """The rounded sum of the hand's powers, within 0..round."""
    expected = strength_of(view.dice_set).expected_tricks(view.hand.counts, view.players)
    return max(0, min(view.round_no, int(expected + 0.5)))


class EasyBot:
    """Bids its dice's summed chances; plays to reach its bid, then ducks."""

    name = "easy"

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if isinstance(legal[0], Bid):
            bid = heuristic_bid(view)
            return next((a for a in legal if isinstance(a, Bid) and a.tricks == bid), legal[-1])
        rolls = [a for a in legal if isinstance(a, Roll)]
        strength = strength_of(view.dice_set)
        mask, best, empty = trick_summary(view)
        later = view.players - 1 - len(view.trick)
        own_bid = view.bids[view.seat]
        need = (own_bid if own_bid is not None else 0) - view.tricks_won[view.seat]
        kind = choose_kind(strength, [a.kind.index for a in rolls], mask, best, empty, later,
                           need, strength.power(view.players))
        return next(a for a in rolls if a.kind.index == kind)
