"""Sampling the dice a player cannot see, consistently with everything that is public.

What is public to a seat (its view): its own dice; every die rolled this round; the size
of every screen; the bag's contents (the whole set, R3); and each failure to follow a
colour, which shows that player holds no die of that colour — of any kind of it — for the
rest of the round (R9, read from the engine's tables in :mod:`minodice.core.tables`). Once
bids are revealed they are evidence too: a player who bid high probably holds strong
dice. :func:`sample_hands` draws other seats' hands from the unseen dice, respecting the
voids exactly and favouring, among a few candidates, hands that fit the player's bid.
"""

from __future__ import annotations

import math
import random

from minodice.bots.strength import Strength, choose_kind
from minodice.core.dice import SYMBOL_BASE, Hand
from minodice.core.tables import tables_for
from minodice.core.view import SeatView
from minodice.core.world import initial_hands


def void_kinds(view: SeatView) -> list[set[int]]:
    """Per seat, the number kinds it has shown it does not hold (this round): every kind of
    each colour it failed to follow, since R9 is about colours, not kinds."""
    ds = view.dice_set
    tables = tables_for(ds)
    voids: list[set[int]] = [set() for _ in range(view.players)]
    for trick in view.round_tricks:
        follow = -1
        for roll in trick:
            kind = ds.kind(roll.kind).index
            if tables.shows_void(kind, follow):
                voids[roll.seat] |= tables.colour_kinds[follow]
            follow = tables.follow_after[follow + 1][kind]
    return voids


def unseen_counts(view: SeatView) -> list[int]:
    """Dice of each kind that this seat has not seen: the set less its hand and all rolls."""
    ds = view.dice_set
    counts = [k.count - view.hand.counts[k.index] for k in ds.kinds]
    for trick in view.round_tricks:
        for roll in trick:
            counts[ds.kind(roll.kind).index] -= 1
    return counts


def rolled_counts(view: SeatView) -> list[list[int]]:
    """Per seat, the dice it has rolled this round, by kind."""
    ds = view.dice_set
    out = [[0] * len(ds.kinds) for _ in range(view.players)]
    for trick in view.round_tricks:
        for roll in trick:
            out[roll.seat][ds.kind(roll.kind).index] += 1
    return out


def _eligible(pool: list[int], allowed: set[int] | None) -> list[int]:
    """The unseen dice one by one (kind indices), among allowed kinds."""
    return [k for k, c in enumerate(pool) for _ in range(c) if allowed is None or k in allowed]


def _draw(bag: list[int], kinds: int, size: int, rng: random.Random) -> list[int] | None:
    """Draw ``size`` dice (counts by kind) from ``bag``, which is left unchanged."""
    if len(bag) < size:
        return None
    bag = bag[:]
    counts = [0] * kinds
    m = len(bag)
    for _ in range(size):
        j = int(rng.random() * m)
        m -= 1
        counts[bag[j]] += 1
        bag[j] = bag[m]
    return counts


def _assign_by_flow(pool: list[int], allowed: list[set[int] | None],
                    sizes: list[int]) -> list[list[int]] | None:
    """Some assignment of ``sizes[i]`` pool dice to each seat within its allowed kinds.

    Max-flow (seats → kinds → pool), for the rare case where random draws in turn paint
    themselves into a corner; ``None`` only if no assignment exists at all.
    """
    kinds = len(pool)
    flow = [[0] * kinds for _ in sizes]
    left = list(pool)
    for seat, size in enumerate(sizes):
        for _ in range(size):
            # Breadth-first search for an augmenting path from ``seat`` to a free die.
            parent: dict[tuple[str, int], tuple[str, int] | None] = {("s", seat): None}
            queue: list[tuple[str, int]] = [("s", seat)]
            end: tuple[str, int] | None = None
            while queue and end is None:
                node = queue.pop(0)
                if node[0] == "s":
                    for k in range(kinds):
                        ok = allowed[node[1]] is None or k in (allowed[node[1]] or ())
                        if ok and ("k", k) not in parent:
                            parent[("k", k)] = node
                            if left[k] > 0:
                                end = ("k", k)
                                break
                            queue.append(("k", k))
                else:
                    for other in range(len(sizes)):
                        if flow[other][node[1]] > 0 and ("s", other) not in parent:
                            parent[("s", other)] = node
                            queue.append(("s", other))
            if end is None:
                return None
            left[end[1]] -= 1
            step: tuple[str, int] | None = end
            while step is not None and parent[step] is not None:
                prev = parent[step]
                assert prev is not None
                if step[0] == "k":
                    flow[prev[1]][step[1]] += 1
                else:
                    flow[step[1]][prev[1]] -= 1
                step = prev
    return flow


def sample_hands(
    view: SeatView,
    rng: random.Random,
    strength: Strength | None = None,
    candidates: int = 1,
    bid_fit: float = 1.5,
) -> list[Hand]:
    """Every seat's current hand in one world consistent with ``view`` (own hand as is).

    With ``strength`` and ``candidates > 1`` and the bids revealed, each other seat's hand
    is chosen among ``candidates`` draws with weights ``exp(-(E - bid)² / bid_fit)`` that
    favour hands whose expected tricks E (at the start of the round) are near the bid.
    """
    for _ in range(20):
        hands = _try_sample(view, rng, strength, candidates, bid_fit)
        if hands is not None:
            return hands
    # Random draws in turn kept failing the voids: take any consistent assignment.
    ds = view.dice_set
    voids = void_kinds(view)
    others = [s for s in range(view.players) if s != view.seat]
    allowed: list[set[int] | None] = [
        {k for k in range(len(ds.kinds)) if k not in voids[s] or ds.special[k]}
        for s in others]
    flow = _assign_by_flow(unseen_counts(view), allowed, [view.hand_sizes[s] for s in others])
    if flow is None:
        raise ValueError("no deal of the unseen dice agrees with this view")
    hands = [view.hand] * view.players
    for seat, counts in zip(others, flow, strict=True):
        hands[seat] = ds.hand_of_counts(counts)
    return hands


def _try_sample(
    view: SeatView,
    rng: random.Random,
    strength: Strength | None,
    candidates: int,
    bid_fit: float,
) -> list[Hand] | None:
    ds = view.dice_set
    pool = unseen_counts(view)
    voids = void_kinds(view)
    rolled = rolled_counts(view)
    others = [s for s in range(view.players) if s != view.seat]
    rng.shuffle(others)
    # The most constrained seats first, so that their narrower choice is not used up.
    others.sort(key=lambda s: -len(voids[s]))
    hands: list[Hand] = [view.hand] * view.players
    use_bids = strength is not None and candidates > 1 and view.all_bids_in
    for seat in others:
        allowed = None
        if voids[seat]:
            allowed = {k for k in range(len(pool)) if k not in voids[seat] or ds.special[k]}
        size = view.hand_sizes[seat]
        options: list[list[int]] = []
        bag = _eligible(pool, allowed)
        for _ in range(candidates if use_bids else 1):
            drawn = _draw(bag, len(pool), size, rng)
            if drawn is None:
                return None
            options.append(drawn)
        chosen = options[0]
        if use_bids and len(options) > 1:
            assert strength is not None
            bid = view.bids[seat] or 0
            weights = []
            for option in options:
                initial = [a + b for a, b in zip(option, rolled[seat], strict=True)]
                expected = strength.expected_tricks(initial, view.players)
                weights.append(math.exp(-((expected - bid) ** 2) / bid_fit))
            pick = rng.random() * sum(weights)
            for option, weight in zip(options, weights, strict=True):
                pick -= weight
                if pick <= 0:
                    chosen = option
                    break
        for k, c in enumerate(chosen):
            pool[k] -= c
        hands[seat] = ds.hand_of_counts(chosen)
    return hands


def policy_likelihood(
    view: SeatView,
    hands: list[Hand],
    strength: Strength,
    mismatch: float,
) -> float:
    """How well a sampled world explains the other players' rolls so far this round.

    Replays the round's rolls in the world: each time another player rolled a die other
    than the one the plain heuristic (:func:`~minodice.bots.strength.choose_kind`) would
    have chosen from the sampled hand, the world's weight is multiplied by ``mismatch``.
    Against players who think like the heuristic this sharpens the guess a lot; against
    others a ``mismatch`` well above 0 keeps every consistent world possible.
    """
    ds = view.dice_set
    tables = tables_for(ds)
    power = strength.power(view.players)
    current = [h.key for h in initial_hands(view, hands)]
    won = [0] * view.players
    weight = 1.0
    bids = view.bids
    for t_index, trick in enumerate(view.round_tricks):
        mask = best = 0
        follow = -1
        for position, roll in enumerate(trick):
            kind = ds.kind(roll.kind).index
            seat = roll.seat
            if seat != view.seat and bids[seat] is not None:
                held = tables.kinds_for(current[seat], follow)
                if len(held) > 1:
                    choice = choose_kind(strength, held, mask, best, position == 0,
                                         view.players - 1 - position,
                                         (bids[seat] or 0) - won[seat], power)
                    if choice != kind:
                        weight *= mismatch
            current[seat] -= tables.shift[kind]
            follow = tables.follow_after[follow + 1][kind]
            code = roll.face.code
            if code >= SYMBOL_BASE:
                mask |= 1 << (code - SYMBOL_BASE)
            elif code > best:
                best = code
        if t_index < len(view.round_trick_winners):
            won[view.round_trick_winners[t_index]] += 1
    return weight
