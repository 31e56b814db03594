"""The OpenSpiel game: OpenSpiel's random simulation test, chance, resampling, secrets."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

pytest.importorskip("pyspiel", reason="the research extra is not installed "
                    "(pip install -e '.[research]', or make research-test)")

import pyspiel

from minodice.core.rules import RuleOptions, SpecialLead, StartRule
from minodice.core.state import GameState, Phase
from minodice.envs import openspiel as minodice_openspiel


def load(players: int = 4, dice_set: str = "mino", variant: str = "standard") -> pyspiel.Game:
    assert minodice_openspiel.SHORT_NAME in pyspiel.registered_names()
    return pyspiel.load_game("python_minodice",
                             {"players": players, "dice_set": dice_set, "variant": variant})


@pytest.mark.parametrize(("players", "dice_set", "variant"),
                         [(3, "mino", "standard"), (6, "skull-king", "simplified")])
def test_openspiel_random_simulation_test_with_serialisation(
        players: int, dice_set: str, variant: str) -> None:
    pyspiel.random_sim_test(load(players, dice_set, variant), num_sims=2, serialize=True,
                            verbose=False)


def play_to(state: pyspiel.State, rng: random.Random, decisions: int) -> None:
    """Random chance and random legal decisions until ``decisions`` have been made."""
    while not state.is_terminal() and decisions > 0:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, weights=probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions -= 1
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(actions, weights=probs)[0])


def step(state: pyspiel.State, rng: random.Random) -> None:
    """One step: a chance outcome by its probability, or a random legal decision."""
    if state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(actions, weights=probs)[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def test_chance_outcomes_are_the_engine_s_exact_probabilities() -> None:
    game = load(4)
    state = game.new_initial_state()
    rng = random.Random(4)
    while not (state.engine.round_no == 2 and state.is_chance_node()):
        step(state, rng)
    engine: GameState = state.engine
    exact = {game.hand_index_of(h): p for h, p in engine.chance_outcomes()}
    assert sum(exact.values()) == 1
    got = dict(state.chance_outcomes())
    assert got.keys() == exact.keys()
    assert all(abs(got[a] - float(p)) < 1e-12 for a, p in exact.items())
    assert sorted(got) == [a for a, _ in state.chance_outcomes()]
    while state.engine.phase is not Phase.ROLL:
        step(state, rng)
    faces = state.chance_outcomes()
    kind = state.engine.pending_roll.kind  # type: ignore[union-attr]
    for action, p in faces:
        face = game.face_of(action)
        assert Fraction(p).limit_denominator(6) == Fraction(kind.faces.count(face), 6)


def test_resample_keeps_the_information_state_and_changes_the_hidden_dice() -> None:
    game = load(4)
    rng = random.Random(11)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = bids_changed = 0
    checked = 0
    for decisions in (1, 2, 5, 9, 20, 40, 70, 90, 130):
        state = game.new_initial_state()
        play_to(state, rng, decisions)
        if state.is_terminal():
            continue
        player = state.current_player()
        for sample in range(6):
            other = state.resample_from_infostate(player, sampler)
            checked += 1
            assert other.information_state_string(player) == \
                state.information_state_string(player)
            assert other.information_state_tensor(player) == \
                state.information_state_tensor(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert other.legal_actions() == state.legal_actions()
            assert other.returns() == state.returns()
            assert len(other.history()) == len(state.history())
            hands = [other.engine.hands[s] for s in range(4) if s != player]
            moved += hands != [state.engine.hands[s] for s in range(4) if s != player]
            bids_changed += other.engine.bids != state.engine.bids
            # a resampled state is a state like any other: it plays on and serialises
            copy = game.deserialize_state(other.serialize())
            assert str(copy) == str(other)
            if sample == 0:
                play_to(other, rng, 10_000)
                assert other.is_terminal()
    assert checked >= 40
    assert moved > checked // 2  # the other seats' dice are drawn anew, not kept
    assert bids_changed > 0      # so are bids not yet revealed


def test_a_hidden_bid_changes_no_other_seat_s_information_state() -> None:
    """Whatever the first bidder bids, the others' strings and tensors are the same."""
    game = load(3)
    seen = []
    for bid in (0, 1):
        state = game.new_initial_state()
        play_to(state, random.Random(2), 0)
        bidder = state.current_player()
        state.apply_action(bid)
        seen.append([(state.information_state_string(p), state.information_state_tensor(p),
                      state.observation_string(p), state.observation_tensor(p))
                     for p in range(3) if p != bidder])
    assert seen[0] == seen[1]


def test_clone_and_serialisation_are_independent_copies() -> None:
    game = load(5, "skull-king", "simplified")
    state = game.new_initial_state()
    play_to(state, random.Random(3), 30)
    clone = state.clone()
    restored = game.deserialize_state(state.serialize())
    assert str(clone) == str(state) == str(restored)
    assert restored.history() == state.history()
    play_to(clone, random.Random(4), 5)
    assert str(clone) != str(state)
    assert str(restored) == str(game.deserialize_state(state.serialize()))


def test_rewards_are_round_points_and_add_up_to_the_returns() -> None:
    """Summed at every decision node, whoever's, as OpenSpiel's ``random_sim_test`` (and
    ``rl_environment``'s time steps) have them."""
    game = load(4)
    state = game.new_initial_state()
    rng = random.Random(9)
    got = [0.0] * 4
    while not state.is_terminal():
        if state.is_chance_node():
            play_to(state, rng, 0)
            continue
        got = [a + b for a, b in zip(got, state.rewards(), strict=True)]
        state.apply_action(rng.choice(state.legal_actions()))
    got = [a + b for a, b in zip(got, state.rewards(), strict=True)]
    assert got == state.returns() == [float(t) for t in state.engine.totals]


def test_a_games_length_counts_its_decisions_not_its_chance_nodes() -> None:
    """OpenSpiel: "outcomes of chance nodes are not included in this length"; it was
    twice the decisions."""
    for players in (3, 4, 5, 6):
        game = load(players)
        state = game.new_initial_state()
        rng = random.Random(players)
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                play_to(state, rng, 0)
            else:
                decisions += 1
                state.apply_action(rng.choice(state.legal_actions()))
        assert game.max_game_length() == decisions


def test_a_player_count_outside_the_rules_is_refused() -> None:
    with pytest.raises(ValueError, match="3 to 6 players"):
        load(2)


def test_the_start_player_and_the_open_rules_are_parameters() -> None:
    """``first_starter`` (R5's "unless given"), ``start`` and ``special_lead`` (RULES.md's
    open points) reach the engine; OpenSpiel's own test passes under them."""
    params = {"players": 3, "first_starter": 2, "start": "fixed", "special_lead": "no-colour"}
    game = pyspiel.load_game("python_minodice", params)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state = game.new_initial_state()
    assert state.engine.config.options == RuleOptions(StartRule.FIXED, SpecialLead.NO_COLOUR)
    rng = random.Random(8)
    starters = set()
    while not state.is_terminal():
        starters.add(state.engine.starter)
        step(state, rng)
    assert starters == {2}
    with pytest.raises(ValueError, match="start is rotate or fixed"):
        pyspiel.load_game("python_minodice", {"start": "left"})
