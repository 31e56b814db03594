"""The expected-score policy, the medium bot's bids, and world fitting for the hard bot."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from minodice.bots.heuristic import EasyBot, MediumBot, expected_score_bid
from minodice.bots.sampling import policy_likelihood, sample_hands
from minodice.bots.strength import ExpectedScorePolicy, PolicyCache, strength_of
from minodice.core.actions import Bid
from minodice.core.dice import Hand, load_dice_set
from minodice.core.rules import Variant, round_points
from minodice.core.state import CHANCE, GameConfig, GameState
from minodice.core.view import view

MINO = load_dice_set("mino")


def policy(players: int = 4) -> ExpectedScorePolicy:
    return ExpectedScorePolicy(strength_of(MINO), players)


@pytest.mark.parametrize("hand", ["red", "red,red,griffin", "gray,gray,purple,minotaur,yellow"])
def test_rest_distribution_is_a_distribution_with_the_powers_as_mean(hand: str) -> None:
    pol = policy()
    h = Hand.from_str(MINO, hand)
    dist = pol.rest_distribution(h.key)
    assert len(dist) == h.size + 1
    assert sum(dist) == pytest.approx(1.0)
    mean = sum(k * q for k, q in enumerate(dist))
    assert mean == pytest.approx(strength_of(MINO).expected_tricks(h.counts, 4))


@pytest.mark.parametrize("variant", list(Variant))
def test_points_table_is_the_rules_scoring_of_the_games_variant(variant: Variant) -> None:
    pol = ExpectedScorePolicy(strength_of(MINO), 4, variant)
    for r in range(1, 9):
        for bid in range(r + 1):
            expected = tuple(round_points(bid, won, r, 0, variant)[0] for won in range(r + 1))
            assert pol.points(bid, r) == expected
    assert PolicyCache().get(MINO, 4, variant).points(2, 5) == pol.points(2, 5)


def test_medium_bot_bids_for_the_scoring_of_its_game() -> None:
    """In a simplified game a missed bid costs nothing (R15): the medium bot must weigh
    its bids by that, not by the standard game's penalties."""
    rng = random.Random(8)
    differing = 0
    for game in range(40):
        config = GameConfig(4, MINO, Variant.SIMPLIFIED, game % 4)
        state = GameState.at_round(config, 3 + game % 6)
        while state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        seen = view(state, 0)
        dist = policy().rest_distribution(seen.hand.key)
        r = seen.round_no

        def best(variant: Variant, dist: tuple[float, ...] = dist, r: int = r) -> int:
            return max(range(r + 1), key=lambda b: sum(
                q * round_points(b, min(k, r), r, 0, variant)[0] for k, q in enumerate(dist)))

        action = MediumBot().act(seen, state.legal_actions(0), rng)
        assert action == Bid(best(Variant.SIMPLIFIED))
        differing += best(Variant.SIMPLIFIED) != best(Variant.STANDARD)
    assert differing > 5


def test_ducks_with_its_bid_made_and_takes_when_it_needs() -> None:
    pol = policy()
    strength = strength_of(MINO)
    griffin, purple, red = (MINO.kind(k).index for k in ("griffin", "purple", "red"))
    mermaid_showing = 1 << 2  # a mermaid symbol is on the table
    row = strength.p_win_row(mermaid_showing, 0, False, 1)
    hand = Hand.from_str(MINO, "griffin,purple")
    # One trick needed: the griffin beats the mermaid, the purple cannot win.
    assert pol.choose([griffin, purple], hand.key, row, bid=1, won=0, round_no=2) == griffin
    # Bid 0: keep out of it with the purple.
    assert pol.choose([griffin, purple], hand.key, row, bid=0, won=0, round_no=2) == purple
    # Bid made, neither die can win this trick: shed the dangerous red, keep the gray.
    both = Hand.from_str(MINO, "red,gray")
    gray = MINO.kind("gray").index
    assert pol.choose([red, gray], both.key, row, bid=1, won=1, round_no=3) == red


def test_medium_bids_zero_with_weak_dice_late_and_more_with_strong_dice() -> None:
    pol = policy()
    state = GameState.at_round(GameConfig(4, MINO, Variant.STANDARD, 0), 6)
    weak = Hand.from_str(MINO, "gray,gray,gray,purple,purple,purple")
    strong = Hand.from_str(MINO, "minotaur,griffin,griffin,mermaid,red,red")
    left = [k.count - weak.counts[k.index] - strong.counts[k.index] for k in MINO.kinds]
    rest = [k for k, c in enumerate(left) for _ in range(c)]
    for seat in range(4):
        hand = weak if seat == 0 else strong if seat == 1 else None
        if hand is None:
            counts = [0] * len(MINO.kinds)
            for k in rest[:6]:
                counts[k] += 1
            rest = rest[6:]
            hand = MINO.hand_of_counts(counts)
        state.apply_chance(hand)
    assert expected_score_bid(view(state, 0), pol) == 0
    assert expected_score_bid(view(state, 1), pol) >= 3


def test_medium_bot_plays_whole_games_legally() -> None:
    rng = random.Random(4)
    for players in (3, 6):
        bots = [MediumBot() for _ in range(players)]
        state = GameState.new(players)
        while not state.is_terminal():
            if state.current_player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
                continue
            seat = state.current_player
            legal = state.legal_actions(seat)
            action = bots[seat].act(view(state, seat), legal, rng)
            assert action in legal
            state.apply(action, seat=seat)


def test_the_true_world_fits_heuristic_players_perfectly() -> None:
    """Against players who play the plain heuristic, the real deal has likelihood 1."""
    rng = random.Random(12)
    easy = EasyBot()
    checked = 0
    for game in range(6):
        state = GameState(GameConfig(4, MINO, Variant.STANDARD, game % 4))
        while not state.is_terminal() and state.round_no < 6:
            if state.current_player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
                continue
            seat = state.current_player
            if seat == 0 and state.rounds[-1].bids is not None:
                seen = view(state, 0)
                truth = [state.hand(s) for s in range(4)]
                strength = strength_of(MINO)
                assert policy_likelihood(seen, truth, strength, 0.1) == 1.0
                sampled = [policy_likelihood(seen, sample_hands(seen, rng), strength, 0.1)
                           for _ in range(5)]
                assert all(0 < w <= 1 for w in sampled)
                checked += 1
            legal = state.legal_actions(seat)
            state.apply(easy.act(view(state, seat), legal, rng), seat=seat)
    assert checked > 50


def test_draw_probabilities_still_exact_for_the_advisor_hands() -> None:
    state = GameState.new(4)
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == Fraction(1)
    assert all(isinstance(o, Hand) for o, _ in outcomes)
    assert any(isinstance(a, Bid) for a in (Bid(0),))


# -- the chance of taking a trick, knowing more than the whole set's odds -----------------

ALL_SPECIALS = sum(k.count << (4 * k.index) for k in MINO.kinds[:3])


def test_the_given_row_without_knowledge_is_the_whole_sets() -> None:
    s = strength_of(MINO)
    assert [k.name for k in MINO.kinds[:3]] == ["minotaur", "griffin", "mermaid"]
    assert s.special_mask == 0xFFF
    for later in range(4):
        for given in ((None, None), (ALL_SPECIALS, None)):
            assert s.p_win_row_given(0, 0, True, later, *given) == pytest.approx(
                s.p_win_row(0, 0, True, later))


def test_a_griffin_is_safer_once_the_minotaur_is_seen() -> None:
    # A griffin symbol is taken only by the minotaur or a later griffin (R10): with the
    # minotaur in the roller's hand or rolled, the players after it take it less often.
    s = strength_of(MINO)
    griffin = MINO.kind("griffin").index
    minotaur_seen = ALL_SPECIALS - 1  # the minotaur's count (kind 0) taken off
    out = s.p_win_row_given(0, 0, True, 3, ALL_SPECIALS, None)[griffin]
    seen = s.p_win_row_given(0, 0, True, 3, minotaur_seen, None)[griffin]
    assert seen > out


def test_players_who_need_tricks_make_a_trick_harder_to_keep() -> None:
    s = strength_of(MINO)
    red = MINO.kind("red").index
    hungry = s.p_win_row_given(0, 0, True, 3, None, 0b111)[red]
    sated = s.p_win_row_given(0, 0, True, 3, None, 0b000)[red]
    plain = s.p_win_row(0, 0, True, 3)[red]
    assert hungry < plain < sated


@pytest.mark.parametrize("flags", [{"intent": True}, {"unseen_specials": True},
                                   {"intent": True, "unseen_specials": True}])
def test_a_search_with_the_knowing_play_outs_plays_whole_games(flags: dict[str, bool]) -> None:
    from minodice.bots.expert import ExpertBot
    from minodice.bots.protocol import Bot
    from minodice.play.match import play_bot_game

    config = GameConfig(3, MINO, Variant.STANDARD, 0)
    bots: list[Bot] = [ExpertBot(play_budget=300, bid_budget=600, **flags), MediumBot(),
                       EasyBot()]
    state, _ = play_bot_game(config, bots, ["x", "m", "e"], 5, 0, "knowing")
    assert state.is_terminal()
    assert len(state.rounds) == 8
