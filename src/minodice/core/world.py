"""Worlds consistent with a view: full states for search under imperfect information.

A search bot never sees the state. It samples the dice it cannot see (see
:mod:`minodice.bots.sampling`) and asks this module for a state that agrees with
everything its view shows — the round, the totals, the bids once revealed, every roll of
the round so far — and has the sampled dice behind the other screens.
"""

from __future__ import annotations

from collections.abc import Sequence

from minodice.core.actions import Bid, Roll
from minodice.core.dice import Hand
from minodice.core.state import GameConfig, GameState
from minodice.core.view import SeatView


def initial_hands(view: SeatView, current: Sequence[Hand]) -> list[Hand]:
    """Each seat's hand as drawn this round: its current dice plus the dice it has rolled."""
    ds = view.dice_set
    counts = [list(h.counts) for h in current]
    for trick in view.round_tricks:
        for roll in trick:
            counts[roll.seat][ds.kind(roll.kind).index] += 1
    return [ds.hand_of_counts(c) for c in counts]


def world_from_view(
    view: SeatView, hands: Sequence[Hand], bids: Sequence[int] | None = None
) -> GameState:
    """A state for ``view``'s moment in which seat *s* currently holds ``hands[s]``.

    ``hands[view.seat]`` must be the view's own hand. While bids are still secret, pass
    the ``bids`` to assume (all seats), or ``None`` to stop at the bidding.
    """
    config = GameConfig(view.players, view.dice_set, view.variant, view.first_starter,
                        view.options)
    state = GameState.at_round(config, view.round_no, list(view.totals))
    for hand in initial_hands(view, hands):
        state.apply_chance(hand)
    known = view.bids if view.all_bids_in else bids
    if known is None:
        return state
    for seat, bid in enumerate(known):
        state.apply(Bid(int(bid if bid is not None else 0)), seat=seat)
    ds = view.dice_set
    for trick in view.round_tricks:
        for roll in trick:
            state.apply(Roll(ds.kind(roll.kind)), seat=roll.seat)
            state.apply_chance(roll.face)
    return state
