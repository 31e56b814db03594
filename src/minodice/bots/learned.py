"""A play-out policy learned from the search's own choices (one step of expert iteration).

Why: the search (:mod:`.search`) rates each die by playing the round out with the
expected-score policy (:class:`~minodice.bots.strength.ExpectedScorePolicy`) for the
players it takes to be sensible, so its choices can be no better than those play-outs let
them be: knowing every hand buys it nothing in play (the expert's module docstring), and
``hard`` rolls the die that policy would roll only about 65% of the time among two. The
search is that policy improved by one step of look-ahead; a policy that imitates the
search is a better model of how the searchers at the table play, and a play-out that uses
it rates a die by a round played more as it will be played.

The policy scores each legal die by a weighted sum of :data:`FEATURES` and rolls the best
(deterministic, as the expected-score policy is). The weights are fitted to the search's
choices in self-play by ``scripts/fit_play_policy.py`` (a conditional logit, seeded) and
shipped as ``bots/data/play-policy.json``: nothing is fitted or downloaded at run time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources

from minodice.bots.strength import ExpectedScorePolicy, PolicyCache, Strength, strength_of
from minodice.core.dice import KIND_BITS, KIND_MASK, DiceSet
from minodice.core.rules import Variant

#: What the learned policy sees of each legal die, in the order of its weights. ``take``
#: is the die's chance of taking this trick (:meth:`Strength.p_win_row`); ``needing`` is
#: 1 while its player still needs tricks; ``urgency`` the tricks still needed per trick
#: left; ``later_needing`` the share of the players still to roll in this trick who still
#: need tricks; ``table_need`` the tricks the others still need per trick left (above 1
#: the others fight for every trick, below it they duck).
FEATURES = (
    "expected_score",       # the expected-score policy's value of the die, per 10 × round
    "take",
    "take_needing",
    "take_zero_bid",
    "take_urgency",
    "take_later_needing",
    "take_table_need",
    "power_needing",
    "power_done",
    "special",
    "special_needing",
    "special_leading",
)


def special_kinds(strength: Strength) -> tuple[bool, ...]:
    """Per kind: is it a special die (a symbol on some face)? Read from the strength's
    :attr:`~minodice.bots.strength.Strength.special_mask`, which says so once."""
    mask = strength.special_mask
    return tuple(bool((mask >> (KIND_BITS * k.index)) & KIND_MASK)
                 for k in strength.dice_set.kinds)


def candidate_features(expected: float, take: float, power: float, special: bool,
                       need: int, bid: int, tricks_left: int, round_no: int,
                       later_needing: float, table_need: float, leading: bool
                       ) -> tuple[float, ...]:
    """The :data:`FEATURES` of one legal die (see there); shared by the fitting script and
    the play-outs so that both see the same numbers."""
    needing = 1.0 if need > 0 else 0.0
    spec = 1.0 if special else 0.0
    return (
        expected / (10.0 * round_no),
        take,
        take * needing,
        take if bid == 0 else 0.0,
        take * max(need, 0) / tricks_left,
        take * later_needing,
        take * table_need,
        power * needing,
        power * (1.0 - needing),
        spec,
        spec * needing,
        spec if leading else 0.0,
    )


def table_context(bids: Sequence[int], tricks_won: Sequence[int], player: int, n: int,
                  rolled: int, tricks_left: int) -> tuple[float, float]:
    """(``later_needing``, ``table_need``) of :data:`FEATURES` for ``player`` about to roll
    the ``rolled``-th die of a trick (0 = leading) with ``tricks_left`` tricks (this one
    included) to play."""
    later = n - 1 - rolled
    needing = 0
    for i in range(later):
        other = (player + 1 + i) % n
        if bids[other] > tricks_won[other]:
            needing += 1
    others_need = 0
    for other in range(n):
        if other != player and bids[other] > tricks_won[other]:
            others_need += bids[other] - tricks_won[other]
    return (needing / later if later else 0.0), others_need / tricks_left


class LearnedPlayPolicy(ExpectedScorePolicy):
    """The expected-score policy's value of each die, weighed with the features of the
    trick and the table by the fitted ``weights`` (module docstring)."""

    def __init__(self, strength: Strength, players: int, weights: Sequence[float],
                 variant: Variant = Variant.STANDARD) -> None:
        super().__init__(strength, players, variant)
        if len(weights) != len(FEATURES):
            raise ValueError(f"{len(weights)} weights for {len(FEATURES)} features")
        self.weights = tuple(weights)
        self.special = special_kinds(strength)

    def features(self, kinds: Sequence[int], hand_key: int, row: tuple[float, ...],
                 bid: int, won: int, round_no: int, later_needing: float,
                 table_need: float, leading: bool) -> list[tuple[float, ...]]:
        """The :data:`FEATURES` of each of ``kinds`` (the fitting script's view too)."""
        pts = self.points(bid, round_no)
        tricks_left = self.strength.dice_set.hand_size(hand_key)
        need = bid - won
        return [candidate_features(self.kind_value(k, hand_key, row[k], pts, won), row[k],
                                   self.power[k], self.special[k], need, bid,
                                   max(1, tricks_left), round_no, later_needing,
                                   table_need, leading)
                for k in kinds]

    def choose_in_context(self, kinds: Sequence[int], hand_key: int, row: tuple[float, ...],
                          bid: int, won: int, round_no: int, later_needing: float,
                          table_need: float, leading: bool) -> int:
        """The legal kind with the highest weighted features."""
        if len(kinds) == 1:
            return kinds[0]
        w = self.weights
        best_kind, best_score = kinds[0], -1e18
        for k, f in zip(kinds, self.features(kinds, hand_key, row, bid, won, round_no,
                                             later_needing, table_need, leading),
                        strict=True):
            score = 0.0
            for wi, fi in zip(w, f, strict=True):
                score += wi * fi
            if score > best_score:
                best_kind, best_score = k, score
        return best_kind


@cache
def shipped_weights() -> tuple[float, ...]:
    """The weights in ``bots/data/play-policy.json`` (read once), checked against
    :data:`FEATURES` by name so that a file from another version fails loudly."""
    text = resources.files("minodice.bots").joinpath("data", "play-policy.json").read_text(
        "utf-8")
    data = json.loads(text)
    names = tuple(data["features"])
    if names != FEATURES:
        raise ValueError(f"play-policy.json has features {names}, this version {FEATURES}")
    return tuple(float(w) for w in data["weights"])


class LearnedPolicyCache(PolicyCache):
    """One :class:`LearnedPlayPolicy` with the shipped weights per table, owned by one bot."""

    def make(self, dice_set: DiceSet, players: int, variant: Variant) -> ExpectedScorePolicy:
        return LearnedPlayPolicy(strength_of(dice_set), players, shipped_weights(), variant)
