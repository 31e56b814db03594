"""The ``easy`` and ``medium`` bots: heuristics, no search.

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

from minodice.bots.strength import ExpectedScorePolicy, PolicyCache, choose_kind, strength_of
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
        own_bid = view.bids[view.own_seat]
        need = (own_bid if own_bid is not None else 0) - view.tricks_won[view.own_seat]
        kind = choose_kind(strength, [a.kind.index for a in rolls], mask, best, empty, later,
                           need, strength.power(view.players))
        return next(a for a in rolls if a.kind.index == kind)


def expected_score_bid(view: SeatView, policy: ExpectedScorePolicy) -> int:
    """The bid with the best expected score when each die wins with its power, independently.

    Unlike rounding the expected tricks, this weighs what each bid pays and costs in the
    game's variant: a zero bid pays 10 × round, a miss costs 10 per trick off (nothing in
    the simplified variant).
    """
    dist = policy.rest_distribution(view.hand.key)
    r = view.round_no

    def value(bid: int) -> float:
        pts = policy.points(bid, r)
        return sum(q * pts[min(k, r)] for k, q in enumerate(dist))

    return max(range(r + 1), key=value)


class MediumBot:
    """Bids the best expected score and plays each die for the best expected score.

    How it thinks. The same chances as ``easy`` (each die's power, the chance that a die
    takes the trick now), but every decision weighs the points at stake: for the bid, the
    whole distribution of tricks its dice may win; for each die, the chance it takes this
    trick together with what the dice left behind the screen will probably win, scored
    as its game scores a round (R12–R13, or R15). It needs no search, so it decides in
    microseconds.
    """

    name = "medium"

    def __init__(self) -> None:
        self._policies = PolicyCache()

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        policy = self._policies.get(view.dice_set, view.players, view.variant)
        if isinstance(legal[0], Bid):
            bid = expected_score_bid(view, policy)
            return next((a for a in legal if isinstance(a, Bid) and a.tricks == bid), legal[-1])
        rolls = [a for a in legal if isinstance(a, Roll)]
        mask, best, empty = trick_summary(view)
        row = policy.strength.p_win_row(mask, best, empty, view.players - 1 - len(view.trick))
        own_bid = view.bids[view.own_seat]
        kind = policy.choose([a.kind.index for a in rolls], view.hand.key, row,
                             own_bid if own_bid is not None else 0,
                             view.tricks_won[view.own_seat], view.round_no)
        return next(a for a in rolls if a.kind.index == kind)
