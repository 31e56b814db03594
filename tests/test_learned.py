"""The play-out policy learned from the search's own choices (:mod:`minodice.bots.learned`)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from minodice.bots.expert import ExpertBot
from minodice.bots.learned import (
    FEATURES,
    LearnedPlayPolicy,
    LearnedPolicyCache,
    candidate_features,
    shipped_weights,
    table_context,
)
from minodice.bots.search import playout
from minodice.bots.strength import ExpectedScorePolicy, PolicyCache, strength_of
from minodice.core.actions import Bid
from minodice.core.dice import load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, GameConfig, GameState, decision_seats
from minodice.core.view import SeatView, view

DICE = load_dice_set("mino")
STRENGTH = strength_of(DICE)
ROOT = Path(__file__).resolve().parent.parent


def _fit_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "fit_play_policy", ROOT / "scripts" / "fit_play_policy.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fit_play_policy"] = module
    spec.loader.exec_module(module)
    return module


def test_every_die_has_one_value_per_feature() -> None:
    row = candidate_features(12.0, 0.4, 0.3, True, 1, 2, 3, 4, 0.5, 1.2, False)
    assert len(row) == len(FEATURES)
    assert row[0] == 12.0 / 40  # the expected score per 10 x round


def test_the_shipped_weights_fit_this_version_of_the_features() -> None:
    weights = shipped_weights()
    assert len(weights) == len(FEATURES)
    # The search values what the expected-score policy values: its weight is positive.
    assert weights[FEATURES.index("expected_score")] > 0


def test_who_still_needs_tricks_is_read_from_the_bids() -> None:
    # Seat 0 leads (rolled 0); seats 1 and 3 still need tricks, seat 2 has its one.
    later, table = table_context([1, 2, 1, 1], [0, 0, 1, 0], player=0, n=4, rolled=0,
                                 tricks_left=3)
    assert later == 2 / 3
    assert table == (2 + 1) / 3
    # The last to roll has no one after it.
    assert table_context([1, 2, 1, 1], [0, 0, 1, 0], 3, 4, 3, 3)[0] == 0.0


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_weighing_only_the_expected_score_rolls_the_die_of_highest_expected_score(
        seed: int) -> None:
    rng = random.Random(seed)
    policy = LearnedPlayPolicy(STRENGTH, 4, [1.0] + [0.0] * (len(FEATURES) - 1))
    state = GameState(GameConfig(4, DICE, Variant.STANDARD, 0))
    for seat in decision_seats(state, rng):
        legal = state.legal_actions(seat)
        if isinstance(legal[0], Bid):
            state.apply(rng.choice(legal), seat=seat)
            continue
        kinds = state.legal_kinds()
        if len(kinds) > 1:
            row = STRENGTH.p_win_row(state.symbol_mask, state.best_number,
                                     state.rolled == 0, 3 - state.rolled)
            hand, bid, won = state.hands[seat], state.bids[seat], state.tricks_won[seat]
            pts = policy.points(bid, state.round_no)
            values = {k: policy.kind_value(k, hand, row[k], pts, won) for k in kinds}
            chosen = policy.choose_in_context(kinds, hand, row, bid, won, state.round_no,
                                              0.5, 1.0, state.rolled == 0)
            assert values[chosen] == max(values.values())
        state.apply(rng.choice(legal), seat=seat)
        if state.round_no > 4:
            break


def test_the_play_outs_use_the_learned_policy_only_when_asked() -> None:
    plain = PolicyCache().get(DICE, 4, Variant.STANDARD)
    learned = LearnedPolicyCache().get(DICE, 4, Variant.STANDARD)
    assert type(plain) is ExpectedScorePolicy
    assert isinstance(learned, LearnedPlayPolicy)
    assert learned.weights == shipped_weights()
    assert type(ExpertBot().policy_for(_a_view())[0]) is ExpectedScorePolicy
    assert isinstance(ExpertBot(learned_play=True).policy_for(_a_view())[0], LearnedPlayPolicy)


def _a_view() -> SeatView:
    rng = random.Random(3)
    state = GameState(GameConfig(4, DICE, Variant.STANDARD, 0))
    while state.current_player == CHANCE:
        state.apply_chance(state.sample_chance(rng))
    return view(state, state.current_player)


def test_a_play_out_with_the_learned_policy_finishes_the_round_the_same_way_twice() -> None:
    def finish(seed: int) -> list[int]:
        rng = random.Random(seed)
        state = GameState(GameConfig(4, DICE, Variant.STANDARD, 0))
        while state.current_player == CHANCE or state.bids.count(-1):
            if state.current_player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
            else:
                state.apply(Bid(0), seat=state.current_player)
        policy = LearnedPolicyCache().get(DICE, 4, Variant.STANDARD)
        playout(state, random.Random(seed), STRENGTH, STRENGTH.power(4), policy,
                frozenset(range(4)))
        points = state.rounds[0].points
        assert points is not None
        return list(points)

    assert finish(5) == finish(5)


def test_the_fit_recovers_the_weights_that_made_the_choices() -> None:
    script = _fit_script()
    rng = np.random.default_rng(7)
    true = np.array([2.0, -1.0] + [0.0] * (len(FEATURES) - 2))
    x = rng.normal(size=(4000, 3, len(FEATURES)))
    mask = np.ones((4000, 3), dtype=bool)
    mask[::2, 2] = False  # half the decisions have two dice
    x[~mask] = 0.0
    scores = np.where(mask, x @ true, -np.inf)
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in p])
    w = script.fit(x, mask, y, ridge=0.1)
    assert np.abs(w - true).max() < 0.2
    # It never picks a padded die.
    assert script.agreement(w, x, mask, y) > 0.5
