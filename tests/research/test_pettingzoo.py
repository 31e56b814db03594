"""The PettingZoo environment: PettingZoo's own checks, seeding, rewards, hidden information."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo", reason="the research extra is not installed "
                    "(pip install -e '.[research]', or make research-test)")

import numpy as np
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)
from pettingzoo.utils.conversions import aec_to_parallel

from minodice.core.actions import Bid
from minodice.core.rules import RuleOptions, SpecialLead, StartRule
from minodice.core.state import Phase
from minodice.core.view import view
from minodice.envs.encoding import observation_vector
from minodice.envs.pettingzoo import MinoDiceEnv, parallel_env

# PettingZoo's api_test warns about any Dict observation, the usual form with an action mask.
pytestmark = pytest.mark.filterwarnings("ignore:Observation:UserWarning")

CONFIGS = [(3, "mino", "standard"), (4, "skull-king", "simplified"), (5, "mino", "simplified"),
           (6, "skull-king", "standard")]


@pytest.mark.parametrize(("players", "dice_set", "variant"), CONFIGS)
def test_pettingzoo_api_and_seed_tests(players: int, dice_set: str, variant: str) -> None:
    api_test(MinoDiceEnv(players, dice_set, variant), num_cycles=400)
    seed_test(lambda: MinoDiceEnv(players, dice_set, variant), num_cycles=400)


def test_the_open_rules_reach_the_game() -> None:
    """RULES.md's open points (docs/RULES.md): the environment plays by them, and
    PettingZoo's own test passes under them."""
    options = RuleOptions(StartRule.FIXED, SpecialLead.NO_COLOUR)
    env = MinoDiceEnv(4, rule_options=options)
    api_test(env, num_cycles=200)
    env.reset(seed=3)
    assert env.game.config.options == options


@pytest.mark.parametrize("players", [3, 6])
def test_parallel_env_passes_parallel_api_test(players: int) -> None:
    parallel_api_test(parallel_env(players=players), num_cycles=400)


def test_aec_to_parallel_does_not_apply() -> None:
    """Turns are no fixed cycle (trick winners lead): the conversion refuses the env."""
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(MinoDiceEnv())


def play_random(env: MinoDiceEnv, seed: int) -> tuple[dict[str, float], list[int]]:
    """A whole game of random legal actions; each agent's rewards added up."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    got = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        got[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        assert info["view"] == env.view(agent)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return got, env.final_totals


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_rewards_are_points_and_add_up_to_totals(players: int) -> None:
    env = MinoDiceEnv(players)
    got, totals = play_random(env, seed=players)
    assert [got[a] for a in env.possible_agents] == [float(t) for t in totals]
    assert env.game.totals == totals
    # every round's points were paid: the rounds' points add up to the same totals
    assert [sum(log.points[s] for log in env.game.rounds if log.points) for s in
            range(players)] == totals


def test_reset_with_a_seed_reproduces_the_game() -> None:
    a, b = MinoDiceEnv(4), MinoDiceEnv(4)
    assert play_random(a, 11)[1] == play_random(b, 11)[1]
    assert [log.hands for log in a.game.rounds] == [log.hands for log in b.game.rounds]
    play_random(b, 12)
    assert [log.hands for log in a.game.rounds] != [log.hands for log in b.game.rounds]


def test_an_illegal_action_is_refused_and_loses_nothing() -> None:
    env = MinoDiceEnv(4)
    env.reset(seed=3)
    agent = env.agent_selection
    before = env.observe(agent)
    with pytest.raises(ValueError, match=r"R6") as err:
        env.step(5)  # a bid of 5 in round 1
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="not an action"):
        env.step(99)
    assert env.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], before["observation"])


@pytest.mark.parametrize("action", [0.5, 1.0, np.float64(0.7), "x", True, [0]])
def test_an_action_that_is_no_whole_number_is_refused_in_words(action: object) -> None:
    """``int()`` took 0.5 for a bid of 0 (a policy's output passed for an action), and
    said of "x" only Python's own words."""
    env = MinoDiceEnv(4)
    env.reset(seed=3)
    agent = env.agent_selection
    with pytest.raises(ValueError, match=f"^{agent}: an action is a whole number"):
        env.step(action)  # type: ignore[arg-type]
    assert env.agent_selection == agent
    parallel = parallel_env(players=4)
    parallel.reset(seed=3)
    with pytest.raises(ValueError, match="an action is a whole number"):
        parallel.step(dict.fromkeys(parallel.agents, action))  # type: ignore[arg-type]
    env.step(np.int64(0))  # type: ignore[arg-type]  # a NumPy integer is a whole number


def _to_bidding(seed: int) -> MinoDiceEnv:
    env = MinoDiceEnv(4)
    env.reset(seed=seed)
    assert env.game.phase is Phase.BID
    return env


def test_a_bid_is_hidden_until_all_are_in() -> None:
    """Whatever the first bidder bids, the others observe exactly the same."""
    seen = []
    for bid in (0, 1):
        env = _to_bidding(5)
        first = env.agent_selection
        env.step(bid)
        seen.append({a: (env.observe(a)["observation"], env.render(), env.infos[a])
                     for a in env.possible_agents if a != first})
    for agent, (vector, text, info) in seen[0].items():
        other_vector, other_text, other_info = seen[1][agent]
        assert np.array_equal(vector, other_vector)
        assert text == other_text
        assert info == other_info


def test_the_observation_holds_no_other_seat_s_dice() -> None:
    """Exchanging two other seats' hidden hands (of one size) changes nothing seat 0 sees."""
    env = _to_bidding(8)
    state = env.game
    for _ in range(3):
        state.apply(Bid(0), seat=state.current_player)
    swapped = state.clone()
    swapped.hands[1], swapped.hands[2] = state.hands[2], state.hands[1]
    assert swapped.hands != state.hands or state.hands[1] == state.hands[2]
    assert np.array_equal(observation_vector(view(state, 0)),
                          observation_vector(view(swapped, 0)))


def test_parallel_env_bids_together_and_plays_a_whole_game() -> None:
    env = parallel_env(players=4)
    obs, _ = env.reset(seed=2)
    rng = random.Random(2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            actions[agent] = int(legal[rng.randrange(len(legal))])
        if steps == 0:  # round 1's bids: every seat bids in the first step
            assert all(a < 2 for a in actions.values())
        obs, rewards, _, _, _ = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        steps += 1
    # 8 rounds: one bidding step and r rolls a seat each, 36 rolls x 4 seats
    assert steps == 8 + 36 * 4
    assert [totals[a] for a in env.possible_agents] == env._aec.final_totals


def test_render_shows_the_table_without_secrets() -> None:
    env = MinoDiceEnv(4, render_mode="ansi")
    env.reset(seed=1)
    first = env.agent_selection
    env.step(1)
    text = env.render()
    assert text is not None
    assert "round 1/8, bid" in text
    assert f"{first}: 1 die, bid ?" in text


def test_parallel_env_ending_on_illegal_actions_passes_parallel_seed_test() -> None:
    """PettingZoo's ``parallel_seed_test`` samples actions without their masks: the default
    environment refuses the first illegal one (a ValueError, as every illegal action), so
    the test could not run. ``on_illegal="end"`` ends the game on it instead."""
    with pytest.raises(ValueError, match="R6"):
        parallel_seed_test(lambda: parallel_env(players=4), num_cycles=50)
    parallel_seed_test(lambda: parallel_env(players=4, on_illegal="end"), num_cycles=50)


@pytest.mark.parametrize("phase", ["bid", "roll"])
def test_an_illegal_action_ends_the_game_when_asked(phase: str) -> None:
    """The offender is rewarded ``illegal_reward`` and told why; the others 0; all terminated;
    the engine's game is left as it was; a further step is refused in words."""
    env = parallel_env(players=4, on_illegal="end", illegal_reward=-50.0)
    obs, _ = env.reset(seed=5)
    if phase == "roll":  # the bids in, then the seat to roll sends a die it may not roll
        env.step(dict.fromkeys(env.agents, 0))
        obs = {a: env._observe(a) for a in env.agents}
    game = env._aec.game
    before = (list(game.bids), [list(t) for t in game.rounds[-1].tricks],
              game.current_player, list(game.totals))
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    offender = next(a for a in env.agents if obs[a]["action_mask"][:env.noop].any())
    illegal = [i for i, ok in enumerate(obs[offender]["action_mask"][:env.noop]) if not ok]
    actions[offender] = illegal[-1]
    _, rewards, terminations, truncations, infos = env.step(actions)
    assert rewards[offender] == -50.0
    assert all(r == 0.0 for a, r in rewards.items() if a != offender)
    assert all(terminations.values())
    assert not any(truncations.values())
    assert offender in infos[offender]["illegal_move"], infos[offender]
    assert env.agents == []
    assert (list(game.bids), [list(t) for t in game.rounds[-1].tricks],
            game.current_player, list(game.totals)) == before
    with pytest.raises(ValueError, match="call reset"):
        env.step(actions)
    with pytest.raises(ValueError, match="on_illegal"):
        parallel_env(on_illegal="ignore")


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_s_terminate_illegal_wrapper_ends_the_aec_game() -> None:
    """What the README tells AEC users: the wrapper reads our action mask."""
    from pettingzoo.utils.wrappers import TerminateIllegalWrapper

    env = TerminateIllegalWrapper(MinoDiceEnv(4), illegal_reward=-1.0)
    env.reset(seed=1)
    offender = env.agent_selection
    env.step(8)  # a bid of 8 in round 1
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0
    assert all(r == 0 for a, r in env.rewards.items() if a != offender)


def test_pettingzoo_s_render_test_passes(capsys: pytest.CaptureFixture[str]) -> None:
    """PettingZoo's ``render_test`` makes a ``"human"`` environment first: it was refused
    ("render_mode 'human' is not one of: ansi")."""
    render_test(lambda render_mode=None: MinoDiceEnv(4, render_mode=render_mode))
    assert "Mino Dice (mino, standard), round 1/8" in capsys.readouterr().out


def test_a_seed_repeats_a_random_agents_samples_too() -> None:
    """``action_space(agent).sample()`` went on from the process's own randomness."""
    def samples(seed: int) -> list[int]:
        env = MinoDiceEnv(4)
        env.reset(seed=seed)
        par = parallel_env(players=3)
        par.reset(seed=seed)
        return ([int(env.action_space(a).sample()) for a in env.possible_agents for _ in "ab"]
                + [int(par.action_space(a).sample()) for a in par.possible_agents])
    assert samples(7) == samples(7)
    assert samples(7) != samples(8)


def test_the_parallel_env_takes_the_open_rules_and_gives_each_agent_its_view() -> None:
    """``parallel_env(rule_options=…)`` was a TypeError, and its infos were empty where the
    AEC environment gives the agent to act its view."""
    options = RuleOptions(StartRule.FIXED, SpecialLead.NO_COLOUR)
    env = parallel_env(players=4, rule_options=options)
    obs, infos = env.reset(seed=4)
    assert env._aec.game.config.options == options
    rng = random.Random(4)
    while env.agents:
        for agent in env.agents:
            seat_view = infos[agent]["view"]
            assert seat_view.seat == env._aec._seat[agent]
            assert seat_view == env.view(agent)
            assert seat_view.hand == env._aec.game.hand(seat_view.seat)
            assert seat_view.options == options
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                   for a in env.agents}
        obs, _, _, _, infos = env.step(actions)
