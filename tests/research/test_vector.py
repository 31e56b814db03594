"""The batched engine against the scalar one: the same games give the same scores, and
random games give the same distributions."""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass, field

import pytest

pytest.importorskip("numpy", reason="the research extra is not installed "
                    "(pip install -e '.[research]', or make research-test)")

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from minodice.core.actions import Bid, Roll
from minodice.core.dice import Face, Hand
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions
from minodice.core.state import CHANCE, TERMINAL, GameState, Phase
from minodice.vector import VectorGame


@dataclass
class Played:
    """A scalar game and every step of it: (kind of step, seat, value)."""

    state: GameState
    steps: list[tuple[str, int, object]] = field(default_factory=list)
    choices: list[set[int]] = field(default_factory=list)  # the kinds each die choice allowed


def play_scalar(players: int, dice_set: str, variant: str, seed: int,
                options: RuleOptions = DEFAULT_RULE_OPTIONS) -> Played:
    """A random game on the scalar engine, its steps recorded."""
    rng = random.Random(seed)
    state = GameState.new(players, dice_set, variant, first_starter=rng.randrange(players),
                          options=options)
    played = Played(state)
    while state.current_player != TERMINAL:
        if state.current_player == CHANCE:
            seat = state.drawing_seat if state.phase is Phase.DRAW else -1
            outcome = state.sample_chance(rng)
            if isinstance(outcome, Hand):
                played.steps.append(("draw", seat, outcome.counts))
            else:
                assert isinstance(outcome, Face)
                played.steps.append(("roll", -1, outcome.code))
            state.apply_chance(outcome)
        else:
            seat = state.current_player
            action = rng.choice(state.legal_actions())
            if isinstance(action, Bid):
                played.steps.append(("bid", seat, action.tricks))
            else:
                assert isinstance(action, Roll)
                played.steps.append(("choose", seat, action.kind.index))
                played.choices.append({a.kind.index for a in state.legal_actions()
                                       if isinstance(a, Roll)})
            state.apply(action)
    return played


def replay_batched(games: list[Played], players: int, dice_set: str, variant: str,
                   options: RuleOptions = DEFAULT_RULE_OPTIONS) -> None:
    """Every step of ``games`` through one batch; each round's points and the totals
    compared with the scalar engine's, and who acts at every decision."""
    starters = [g.state.config.first_starter for g in games]
    batch = VectorGame(len(games), players, dice_set, variant, first_starter=starters,
                       options=options)
    length = len(games[0].steps)
    choice_no = 0
    assert all(len(g.steps) == length for g in games)  # one shape for every game
    for i in range(length):
        kind = games[0].steps[i][0]
        seats = [g.steps[i][1] for g in games]
        values = [g.steps[i][2] for g in games]
        assert all(g.steps[i][0] == kind for g in games)
        round_no = batch.round_no
        if kind == "draw":
            assert batch.phase is Phase.DRAW
            assert batch.drawing_seat == seats[0]
            batch.draw(np.array(values))
        elif kind == "roll":
            batch.roll(np.array(values))
        else:
            assert batch.current.tolist() == seats
            legal = batch.legal_actions()
            if kind == "choose":  # the very dice the scalar engine allows (R8, R9)
                allowed = [{9 + k for k in g.choices[choice_no]} for g in games]
                assert [set(np.flatnonzero(row).tolist()) for row in legal] == allowed
                choice_no += 1
            numbers = [int(v) if kind == "bid" else 9 + int(v)  # type: ignore[call-overload]
                       for v in values]
            assert legal[np.arange(len(games)), numbers].all()
            batch.act(np.array(numbers))
        if batch.round_no != round_no or batch.over:
            expected = [g.state.rounds[round_no - 1].points for g in games]
            assert batch.round_points.tolist() == expected, f"round {round_no}"
    assert batch.over
    assert batch.totals.tolist() == [g.state.totals for g in games]


CONFIGS = [(p, d, v) for p in (3, 4, 5, 6) for d in ("mino", "skull-king")
           for v in ("standard", "simplified")]


@pytest.mark.parametrize(("players", "dice_set", "variant"), CONFIGS)
def test_the_same_games_score_the_same_in_both_engines(
        players: int, dice_set: str, variant: str) -> None:
    games = [play_scalar(players, dice_set, variant, seed) for seed in range(24)]
    replay_batched(games, players, dice_set, variant)


@pytest.mark.parametrize("options", ["start=fixed", "special-lead=no-colour",
                                     "start=fixed special-lead=no-colour"])
@pytest.mark.parametrize("players", [3, 6])
def test_the_open_rules_play_alike_in_both_engines(players: int, options: str) -> None:
    """RULES.md's open points (R5, R9) played otherwise: the same starters, the same legal
    dice at every choice and the same scores."""
    chosen = RuleOptions.parse(options)
    games = [play_scalar(players, "mino", "standard", seed, chosen) for seed in range(24)]
    replay_batched(games, players, "mino", "standard", chosen)


@settings(max_examples=15, deadline=None)
@given(config=st.sampled_from(CONFIGS),
       seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=12))
def test_any_batch_of_games_scores_as_the_scalar_engine(
        config: tuple[int, str, str], seeds: list[int]) -> None:
    players, dice_set, variant = config
    replay_batched([play_scalar(players, dice_set, variant, s) for s in seeds],
                   players, dice_set, variant)


def test_illegal_steps_are_refused_with_the_rule() -> None:
    batch = VectorGame(2, players=3)
    with pytest.raises(ValueError, match="cannot bid now"):
        batch.bid(np.array([0, 0]))
    with pytest.raises(ValueError, match="R4"):
        batch.draw(np.zeros((2, 7), dtype=np.int64))
    rng = np.random.default_rng(0)
    for _ in range(3):
        batch.random_step(rng)
    with pytest.raises(ValueError, match="R6"):
        batch.bid(np.array([0, 2]))
    for _ in range(3):
        batch.random_step(rng)
    held = batch.hands[np.arange(2), batch.current].argmax(axis=1)
    with pytest.raises(ValueError, match="R8, R9"):
        batch.choose((held + 1) % 7)  # a kind not held (round 1: one die)
    batch.choose(held)
    with pytest.raises(ValueError, match="R8"):
        batch.roll(np.array([55, 55]))
    with pytest.raises(ValueError, match="3 to 6 players"):
        VectorGame(4, players=2)


def _summary(totals: list[list[int]], made: list[int], rounds: int) -> dict[str, float]:
    flat = [t for game in totals for t in game]
    return {"mean": statistics.fmean(flat), "sd": statistics.stdev(flat),
            "made": sum(made) / (len(totals) * len(totals[0]) * rounds)}


@pytest.mark.slow  # 2,000 scalar games: make check leaves it out
def test_random_games_have_the_same_distributions_in_both_engines() -> None:
    """2,000 random 4-player games each: mean and spread of the totals and the share of
    bids made agree within 4.5 standard errors (a false alarm about once in 100,000), the
    spread within 5% (also about 4.5 standard errors)."""
    n, players, rounds = 2000, 4, 8
    scalar_totals, scalar_made = [], []
    rng = random.Random(5)
    for _ in range(n):
        state = GameState.new(players, first_starter=rng.randrange(players))
        while state.current_player != TERMINAL:
            if state.current_player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
            else:
                actions = state.legal_actions()
                state.apply(actions[int(rng.random() * len(actions))])
        scalar_totals.append(state.totals)
        scalar_made.append(sum(log.bids[s] == log.winners.count(s)  # type: ignore[index]
                               for log in state.rounds for s in range(players)))
    batch = VectorGame(n, players, first_starter=np.random.default_rng(6).integers(0, 4, n))
    generator = np.random.default_rng(7)
    made = np.zeros(n, dtype=np.int64)
    while not batch.over:
        round_no = batch.round_no
        batch.random_step(generator)
        if batch.round_no != round_no or batch.over:
            made += (batch.round_points > 0).sum(axis=1)  # standard: > 0 exactly if made
    ours = _summary(scalar_totals, scalar_made, rounds)
    theirs = _summary(batch.totals.tolist(), made.tolist(), rounds)
    se_mean = math.hypot(ours["sd"], theirs["sd"]) / math.sqrt(n * players)
    assert abs(ours["mean"] - theirs["mean"]) < 4.5 * se_mean, (ours, theirs)
    assert abs(ours["sd"] / theirs["sd"] - 1) < 0.05, (ours, theirs)
    p = ours["made"]
    se_made = math.sqrt(2 * p * (1 - p) / (n * players * rounds))
    assert abs(ours["made"] - theirs["made"]) < 4.5 * se_made, (ours, theirs)


def test_actions_that_are_no_whole_numbers_are_refused() -> None:
    """``np.asarray(actions, dtype=np.int64)`` took 0.7 for a bid of 0 in every game, and a
    bid while the games chose dice was "kind -9 may not be rolled"."""
    games = VectorGame(4, players=4)
    rng = np.random.default_rng(0)

    def play_until(phase: Phase) -> None:
        while games.phase is not phase:
            games.random_step(rng)

    play_until(Phase.BID)
    with pytest.raises(ValueError, match="actions are whole numbers"):
        games.act(np.full(4, 0.7))
    with pytest.raises(ValueError, match="bids are whole numbers"):
        games.bid(np.full(4, np.nan))
    games.act(np.zeros(4))  # whole numbers, even as floats
    play_until(Phase.PLAY)
    with pytest.raises(ValueError, match=r"^game 0: action 0 is a bid, and the games are "
                                         r"choosing dice \(actions 9 and up\)$"):
        games.act(np.zeros(4, dtype=np.int64))


@pytest.mark.parametrize(("players", "dice_set", "options"), [
    (3, "mino", ""), (4, "skull-king", "special-lead=no-colour"), (6, "mino", "start=fixed")])
def test_a_seats_observation_is_the_encodings_of_its_view_at_every_step(
        players: int, dice_set: str, options: str) -> None:
    """``VectorGame.observe`` against ``observation_vector(view(state, seat))`` of the
    scalar engine, for every seat after every step of the same games: the batch's arrays
    hold every hidden die and bid, and only this keeps them from an agent."""
    from minodice.core.view import view
    from minodice.envs.encoding import observation_vector

    chosen = RuleOptions.parse(options) if options else DEFAULT_RULE_OPTIONS
    games = [play_scalar(players, dice_set, "standard", seed, chosen) for seed in range(6)]
    states = [GameState.new(players, dice_set, "standard",
                            first_starter=g.state.config.first_starter, options=chosen)
              for g in games]
    batch = VectorGame(len(games), players, dice_set, "standard",
                       first_starter=[s.config.first_starter for s in states], options=chosen)
    ds = states[0].dice_set

    def compare() -> None:
        for seat in range(players):
            expected = np.stack([observation_vector(view(s, seat, ())) for s in states])
            np.testing.assert_array_equal(batch.observe(seat), expected)
        acting = np.array([max(s.current_player, 0) for s in states])
        expected = np.stack([observation_vector(view(s, int(a), ()))
                             for s, a in zip(states, acting, strict=True)])
        np.testing.assert_array_equal(batch.observe(acting), expected)

    compare()
    for i in range(len(games[0].steps)):
        kind = games[0].steps[i][0]
        values = [g.steps[i][2] for g in games]
        for state, value in zip(states, values, strict=True):
            if kind == "draw":
                state.apply_chance(ds.hand_of_counts(list(value)))  # type: ignore[call-overload]
            elif kind == "roll":
                state.apply_chance(ds.face_of_code(int(value)))  # type: ignore[call-overload]
            elif kind == "bid":
                state.apply(Bid(int(value)))  # type: ignore[call-overload]
            else:
                state.apply(Roll(ds.kinds[int(value)]))  # type: ignore[call-overload]
        if kind in ("draw", "roll"):
            batch.apply_chance(np.array(values))
        else:
            batch.act(np.array([int(v) if kind == "bid" else 9 + int(v)  # type: ignore[call-overload]
                                for v in values]))
        compare()
    assert batch.over


def test_observing_a_seat_that_is_no_seat_is_refused() -> None:
    batch = VectorGame(2, players=3)
    with pytest.raises(ValueError, match="a seat is 0 to 2"):
        batch.observe(3)
    with pytest.raises(ValueError, match="whole numbers"):
        batch.observe(np.array([0.5, 1.0]))
