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
from collections.abc import Mapping
from operator import add, mul

from minodice.bots.strength import ExpectedScorePolicy, Strength, choose_kind
from minodice.core.dice import KIND_BITS, SYMBOL_BASE, Hand
from minodice.core.tables import tables_for
from minodice.core.view import SeatView


def void_kinds(view: SeatView) -> list[set[int]]:
    """Per seat, the number kinds it has shown it does not hold (this round): every kind of
    each colour it failed to follow, since R9 is about colours, not kinds."""
    ds = view.dice_set
    tables = tables_for(ds, view.options.special_lead)
    voids: list[set[int]] = [set() for _ in range(view.players)]
    for trick in view.round_tricks:
        follow = -1
        for position, roll in enumerate(trick):
            kind = ds.kind(roll.kind).index
            if tables.shows_void(kind, follow):
                voids[roll.seat] |= tables.colour_kinds[follow]
            follow = (tables.follow_after[follow + 1] if position else tables.lead_follow)[kind]
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


class Unseen:
    """What one view says about the dice its seat cannot see, worked out once.

    A search decision samples hundreds of worlds from the same view; the unseen dice, the
    voids, the dice each seat has rolled and the rolls' kinds are the same for all of them,
    so they are read from the view once here instead of once per world. The draws are the
    same as :func:`sample_hands` documents, with the same random numbers, so a seed gives
    the same worlds whichever entry point is used.
    """

    def __init__(self, view: SeatView) -> None:
        ds = view.dice_set
        self.view = view
        self.nkinds = len(ds.kinds)
        self.pool = unseen_counts(view)
        self.voids = void_kinds(view)
        self.rolled = rolled_counts(view)
        self.others = [s for s in range(view.players) if s != view.seat]
        # The kinds each seat may hold (None: any), ascending: a void spares special dice.
        self.allowed: list[list[int] | None] = [
            [k for k in range(self.nkinds) if k not in voids or ds.special[k]] if voids
            else None
            for voids in self.voids]
        # What the dice a seat has rolled add to its hand's key (its hand as drawn).
        self.rolled_keys = [sum(c << (KIND_BITS * k) for k, c in enumerate(counts))
                            for counts in self.rolled]
        # Every roll of the round: (trick index, position, seat, kind, face code).
        self.rolls = [(t, position, roll.seat, ds.kind(roll.kind).index, roll.face.code)
                      for t, trick in enumerate(view.round_tricks)
                      for position, roll in enumerate(trick)]
        # The expected-score policy's roll at (roll index, hand key): see policy_likelihood
        # (one policy per view, the deciding bot's).
        self._policy_choices: dict[tuple[int, int], int] = {}

    def sample(self, rng: random.Random, strength: Strength | None = None,
               candidates: int = 1, bid_fit: float = 1.5, bid_offset: float = 0.0
               ) -> list[Hand]:
        """:func:`sample_hands` for this view; ``bid_offset`` is how far above a hand's
        expected tricks its owner is taken to bid (0: the bid is the expectation)."""
        for _ in range(20):
            hands = self._try(rng, strength, candidates, bid_fit, bid_offset)
            if hands is not None:
                return hands
        return self._by_flow()

    def _by_flow(self) -> list[Hand]:
        """Any consistent deal, for when random draws in turn keep failing the voids."""
        view = self.view
        ds = view.dice_set
        allowed: list[set[int] | None] = [
            {k for k in range(self.nkinds) if k not in self.voids[s] or ds.special[k]}
            for s in self.others]
        flow = _assign_by_flow(list(self.pool), allowed,
                               [view.hand_sizes[s] for s in self.others])
        if flow is None:
            raise ValueError("no deal of the unseen dice agrees with this view")
        hands = [view.hand] * view.players
        for seat, counts in zip(self.others, flow, strict=True):
            hands[seat] = ds.hand_of_counts(counts)
        return hands

    def _try(self, rng: random.Random, strength: Strength | None, candidates: int,
             bid_fit: float, bid_offset: float = 0.0) -> list[Hand] | None:
        view = self.view
        ds = view.dice_set
        nkinds = self.nkinds
        pool = list(self.pool)
        voids = self.voids
        others = list(self.others)
        rng.shuffle(others)
        # The most constrained seats first, so that their narrower choice is not used up.
        others.sort(key=lambda s: -len(voids[s]))
        hands: list[Hand] = [view.hand] * view.players
        use_bids = strength is not None and candidates > 1 and view.all_bids_in
        draws = candidates if use_bids else 1
        power = strength.power(view.players) if strength is not None else ()
        rand = rng.random
        for seat in others:
            allowed = self.allowed[seat]
            size = view.hand_sizes[seat]
            bag: list[int] = []
            for k in (range(nkinds) if allowed is None else allowed):
                if pool[k]:
                    bag.extend([k] * pool[k])
            if len(bag) < size:
                return None
            options: list[list[int]] = []
            for _ in range(draws):
                # ``size`` dice without replacement (a partial Fisher-Yates on a copy).
                left = bag[:]
                counts = [0] * nkinds
                m = len(left)
                for _ in range(size):
                    j = int(rand() * m)
                    m -= 1
                    counts[left[j]] += 1
                    left[j] = left[m]
                options.append(counts)
            chosen = options[0]
            if draws > 1:
                bid = view.bids[seat] or 0
                rolled = self.rolled[seat]
                weights = []
                for option in options:
                    expected = sum(map(mul, map(add, option, rolled), power)) + bid_offset
                    weights.append(math.exp(-((expected - bid) ** 2) / bid_fit))
                pick = rand() * sum(weights)
                for option, weight in zip(options, weights, strict=True):
                    pick -= weight
                    if pick <= 0:
                        chosen = option
                        break
            key = 0
            for k, c in enumerate(chosen):
                if c:
                    pool[k] -= c
                    key += c << (KIND_BITS * k)
            hands[seat] = ds.hand_of_key(key)
        return hands

    def policy_likelihood(self, hands: list[Hand], strength: Strength, mismatch: float,
                          policy: ExpectedScorePolicy | None = None,
                          mismatch_by_choices: Mapping[int, float] | None = None) -> float:
        """:func:`policy_likelihood` for this view.

        With ``policy``, the others are taken to roll what that expected-score policy
        would roll (not the plain heuristic), and a roll that differs from it among ``k``
        legal dice multiplies the weight by ``mismatch_by_choices[k]`` (``mismatch`` for a
        ``k`` it does not name): the likelihood ratio of a roll against the model's
        choice, when the model predicts the player's roll with a measured frequency."""
        view = self.view
        tables = tables_for(view.dice_set, view.options.special_lead)
        power = strength.power(view.players)
        current = [h.key + extra for h, extra in zip(hands, self.rolled_keys, strict=True)]
        won = [0] * view.players
        weight = 1.0
        bids = view.bids
        winners = view.round_trick_winners
        me = view.seat
        players = view.players
        mask = best = 0
        follow = -1
        trick_at = 0
        for roll_index, (t_index, position, seat, kind, code) in enumerate(self.rolls):
            if t_index != trick_at:  # a new trick: the last one's winner counts it
                for done in range(trick_at, t_index):
                    if done < len(winners):
                        won[winners[done]] += 1
                trick_at = t_index
                mask = best = 0
                follow = -1
            if seat != me and bids[seat] is not None:
                held = tables.kinds_for(current[seat], follow)
                if len(held) > 1:
                    if policy is None:
                        choice = choose_kind(strength, held, mask, best, position == 0,
                                             players - 1 - position,
                                             (bids[seat] or 0) - won[seat], power)
                    else:
                        # What the roll's place makes public is fixed by its index, so
                        # the choice depends on the hand alone: once per hand and roll.
                        found = self._policy_choices.get((roll_index, current[seat]))
                        if found is None:
                            row = strength.p_win_row(mask, best, position == 0,
                                                     players - 1 - position)
                            found = policy.choose(held, current[seat], row, bids[seat] or 0,
                                                  won[seat], view.round_no)
                            self._policy_choices[(roll_index, current[seat])] = found
                        choice = found
                    if choice != kind:
                        if mismatch_by_choices is None:
                            weight *= mismatch
                        else:
                            weight *= mismatch_by_choices.get(len(held), mismatch)
            current[seat] -= tables.shift[kind]
            follow = (tables.follow_after[follow + 1] if position else tables.lead_follow)[kind]
            if code >= SYMBOL_BASE:
                mask |= 1 << (code - SYMBOL_BASE)
            elif code > best:
                best = code
        return weight


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
    Random draws in turn that keep failing the voids fall back on any consistent deal.
    Many worlds from one view: :class:`Unseen` reads the view once.
    """
    return Unseen(view).sample(rng, strength, candidates, bid_fit)


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
    return Unseen(view).policy_likelihood(hands, strength, mismatch)
