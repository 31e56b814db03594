"""One seat's observation as a fixed-size vector, and the action numbering.

Both come from what the seat may know: the vector is read from its
:class:`~minodice.core.view.SeatView` alone, never from the game state, so it cannot hold
another seat's dice or a bid before all are in.

**Actions** (``ACTION_BIDS + K`` of them, K = the dice set's kinds: 16 for ``mino``):
``0..8`` bid that many tricks (R6: 0 to the round's number are legal), ``9 + k`` roll a
die of kind ``k`` (the set's kind order: ``minotaur, griffin, mermaid, red, yellow,
purple, gray`` for ``mino``).

**The vector** (``float32``; P players, K kinds; seats are *relative*: block ``j`` is the
seat ``j`` places after the observer, so block 0 is always the observer itself):

====================  ============  ==========================================================
part                  size          values
====================  ============  ==========================================================
round                 8             one-hot of the round number (1–8)
phase                 5             one-hot: draw, bid, play, roll, over
own hand              K             dice of each kind behind the observer's screen
unseen                K             dice of each kind the observer has not seen this round
                                    (the set, less its own dice and every die rolled)
seats                 9 × P         per seat: dice behind the screen, has bid, bid (0 until
                                    known), bid known, tricks won, total / 100, acts next,
                                    leads the trick, started the round
follow                K + 1         one-hot of the kind whose colour is to be followed
                                    (first entry: none)
trick                 (K + 6) × P   per seat, its die in the trick in play: rolled, kind
                                    one-hot (K), flag, number / 10, minotaur, griffin,
                                    mermaid (the symbol roles)
voids                 K × P         per seat, the number kinds it has shown it does not hold
                                    this round (R9)
====================  ============  ==========================================================

``4-player mino``: 8 + 5 + 7 + 7 + 36 + 8 + 52 + 28 = 151 values
(:func:`vector_size`).

>>> import random
>>> from minodice.core.state import GameState
>>> from minodice.core.view import view
>>> state = GameState.new(players=4)
>>> for _ in range(4):
...     state.apply_chance(state.sample_chance(random.Random(3)))
>>> vec = observation_vector(view(state, 2))
>>> vec.shape, vec.dtype.name, vector_size(4, 7)
((151,), 'float32', 151)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from minodice.bots.sampling import unseen_counts, void_kinds
from minodice.core.actions import BIDS, Action, Bid, Roll
from minodice.core.dice import FLAG, SYMBOL_BASE, DiceSet
from minodice.core.state import Phase
from minodice.core.view import SeatView

__all__ = ["ACTION_BIDS", "action_of", "action_size", "index_of", "legal_mask",
           "observation_vector", "vector_size"]

ACTION_BIDS = len(BIDS)  # bids 0..8
MAX_ROUNDS = 8
PHASES = 5
SEAT_FEATURES = 9
ROLL_FEATURES = 6  # besides the kind's one-hot


def action_size(dice_set: DiceSet) -> int:
    """How many actions: the nine bids and one roll per kind."""
    return ACTION_BIDS + len(dice_set.kinds)


def index_of(action: Action) -> int:
    """The number of ``action`` (see the module's table)."""
    if type(action) is Bid:
        return action.tricks
    assert type(action) is Roll
    return ACTION_BIDS + action.kind.index


def action_of(dice_set: DiceSet, index: int) -> Action:
    """The action numbered ``index``; ``ValueError`` for a number that is no action."""
    if 0 <= index < ACTION_BIDS:
        return BIDS[index]
    if ACTION_BIDS <= index < action_size(dice_set):
        return Roll(dice_set.kinds[index - ACTION_BIDS])
    raise ValueError(f"action {index} is not an action of the {dice_set.name} set "
                     f"(0..{action_size(dice_set) - 1})")


def vector_size(players: int, kinds: int) -> int:
    """The length of :func:`observation_vector` for ``players`` and a set of ``kinds``."""
    return (MAX_ROUNDS + PHASES + 2 * kinds + SEAT_FEATURES * players + kinds + 1
            + (kinds + ROLL_FEATURES) * players + kinds * players)


def legal_mask(seat_view: SeatView) -> npt.NDArray[np.int8]:
    """1 for each legal action of the observer now, else 0 (all 0 when it is not to act)."""
    mask = np.zeros(action_size(seat_view.dice_set), dtype=np.int8)
    for action in seat_view.legal_actions:
        mask[index_of(action)] = 1
    return mask


def observation_vector(seat_view: SeatView) -> npt.NDArray[np.float32]:
    """The observer's view as the vector the module's table lays out."""
    me = seat_view.own_seat
    n = seat_view.players
    ds = seat_view.dice_set
    k = len(ds.kinds)
    out = np.zeros(vector_size(n, k), dtype=np.float32)
    at = 0
    out[at + seat_view.round_no - 1] = 1.0
    at += MAX_ROUNDS
    out[at + int(seat_view.phase)] = 1.0
    at += PHASES
    out[at:at + k] = seat_view.hand.counts
    at += k
    out[at:at + k] = unseen_counts(seat_view)
    at += k
    for j in range(n):
        seat = (me + j) % n
        bid = seat_view.bids[seat]
        out[at:at + SEAT_FEATURES] = (
            seat_view.hand_sizes[seat],
            seat_view.has_bid[seat],
            bid or 0,
            bid is not None,
            seat_view.tricks_won[seat],
            seat_view.totals[seat] / 100,
            seat_view.current_player == seat,
            seat_view.leader == seat and seat_view.phase in (Phase.PLAY, Phase.ROLL),
            seat_view.starter == seat,
        )
        at += SEAT_FEATURES
    follow = ds.kind(seat_view.follow).index if seat_view.follow is not None else -1
    out[at + follow + 1] = 1.0
    at += k + 1
    block = k + ROLL_FEATURES
    for roll in seat_view.trick:
        base = at + ((roll.seat - me) % n) * block
        code = roll.face.code
        out[base] = 1.0
        out[base + 1 + ds.kind(roll.kind).index] = 1.0
        if code == FLAG:
            out[base + 1 + k] = 1.0
        elif code < SYMBOL_BASE:
            out[base + 2 + k] = code / 10
        else:
            out[base + 3 + k + code - SYMBOL_BASE] = 1.0
    at += block * n
    for seat, kinds in enumerate(void_kinds(seat_view)):
        base = at + ((seat - me) % n) * k
        for kind in kinds:
            out[base + kind] = 1.0
    return out
