"""Mino Dice as a PettingZoo AEC environment (3–6 players, both editions and variants).

>>> env = MinoDiceEnv(players=4, render_mode="ansi")
>>> env.reset(seed=7)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     if termination or truncation:
...         action = None
...     else:
...         action = int(np.flatnonzero(obs["action_mask"])[0])   # the first legal action
...     env.step(action)
>>> env.agents, len(env.final_totals)
([], 4)

**Agents** are ``player_0`` .. ``player_{P-1}`` in seating order. **Turns**: the engine's
order. Chance (drawing the hands, rolling the chosen die) is stepped by the environment
itself with its own generator, so an agent only ever acts.

**Bids** are simultaneous and secret in the game (R6). An AEC environment steps one
agent at a time, so the seats bid one after another from the round's start player — but
*hidden*: no observation, view or info shows a bid until every bid of the round is in,
so a later bidder knows no more than it would at a real table. (Only the order of acting
is sequential; what each bidder knows is the game's.)

**Observations** (``observe(agent)``, for any agent at any time) are a dict: the
fixed-size ``"observation"`` vector of :mod:`minodice.envs.encoding` (its layout is
documented there) and ``"action_mask"`` (``int8``, 1 for each legal action; all 0 when
the agent is not to act). The structured view — the engine's
:class:`~minodice.core.view.SeatView`, holding exactly what that seat may know — is in
``infos[agent]["view"]`` for the agent to act (what ``last()`` returns), and
:meth:`MinoDiceEnv.view` gives it for any agent.

**Actions**: ``0..8`` bid, ``9 + k`` roll a die of kind ``k`` (:mod:`minodice.envs.encoding`).
An illegal action raises :class:`ValueError` naming it and the rule it breaks; the game
is left as it was.

**Rewards** are points: when a round is scored, each agent is rewarded its points for
that round (R12–R15), so an agent's rewards over a game add up to its final total.
The game ends (every agent ``terminated``) after the last round; nothing truncates it.

**Seeding**: ``reset(seed=s)`` seeds the environment's generator, which draws the first
start player and every chance event: the same seed and the same actions give the same
game. ``reset()`` without a seed plays on with the same generator (a new game); the
first one, unseeded, takes its seed from the operating system. A seed also seeds each
agent's ``action_space(agent)``, so that a random agent's ``sample()`` repeats too.

**Parallel API**: PettingZoo's ``aec_to_parallel`` needs agents that act in a fixed
cycle, each once, in the order of ``agents``. Mino Dice does not: the start player moves
on each round and the winner of a trick leads the next, so the conversion does not apply
(``metadata["is_parallelizable"]`` is False and the tests check that the conversion
refuses it). :func:`parallel_env` is a parallel environment of its own instead, where
the bids are truly simultaneous (every seat bids in one ``step``) and a die is rolled by
one seat a step (the others' masks allow only the no-op action, number ``action_size``).
Its ``infos[agent]["view"]`` is each agent's view at every step, and it takes the same
``rule_options``.

``render_mode="ansi"``: :meth:`render` returns the table as a spectator sees it (no hand
behind a screen, no bid before all are in); ``"human"`` prints it.
"""

from __future__ import annotations

import operator
import random
import secrets
from collections.abc import Mapping
from typing import Any, ClassVar

from minodice.envs import missing_extra

try:
    import numpy as np
    import numpy.typing as npt
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ModuleNotFoundError as missing:
    raise missing_extra(__name__, missing) from None

from minodice.core.dice import load_dice_set
from minodice.core.errors import IllegalActionError
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, Variant
from minodice.core.state import CHANCE, GameConfig, GameState, Phase
from minodice.core.view import PastRound, SeatView, past_rounds, view
from minodice.envs.encoding import (
    action_of,
    action_size,
    legal_mask,
    observation_vector,
    vector_size,
)

__all__ = ["MinoDiceEnv", "MinoDiceParallelEnv", "env", "parallel_env"]

Observation = dict[str, npt.NDArray[Any]]


def _agent_name(seat: int) -> str:
    return f"player_{seat}"


def action_number(agent: str, action: object) -> int:
    """An action as the whole number it must be: ``int()`` took 3.5 for a bid of 3 and
    said of ``"x"`` only Python's own words."""
    if not isinstance(action, bool):
        try:
            return operator.index(action)  # type: ignore[arg-type]  # anything may come
        except TypeError:
            pass
    raise ValueError(f"{agent}: an action is a whole number (see action_mask), not "
                     f"{action!r}")


class MinoDiceEnv(AECEnv[str, Observation, int]):
    """One game of Mino Dice at a time; see the module's docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"], "name": "minodice_v0", "is_parallelizable": False}

    def __init__(self, players: int = 4, dice_set: str = "mino", variant: str = "standard",
                 render_mode: str | None = None,
                 rule_options: RuleOptions = DEFAULT_RULE_OPTIONS) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode {render_mode!r} is not one of: ansi, human")
        self.render_mode = render_mode
        self._dice_set = load_dice_set(dice_set)
        self._variant = Variant(variant)
        self._players = players
        self._options = rule_options  # RULES.md's open points (docs/RULES.md)
        GameState(GameConfig(players, self._dice_set, self._variant))  # checks R1 up front
        self.possible_agents = [_agent_name(s) for s in range(players)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        size = vector_size(players, len(self._dice_set.kinds))
        n_actions = action_size(self._dice_set)
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._rng: random.Random | None = None
        self.state_: GameState | None = None
        self.final_totals: list[int] = []
        self._history: tuple[tuple[int, bool], tuple[PastRound, ...]] = ((-1, False), ())

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the game ---------------------------------------------------------------------

    @property
    def game(self) -> GameState:
        """The engine's state (all of it, hidden dice too: for tools, never for a seat)."""
        if self.state_ is None:
            raise RuntimeError("call reset() first")
        return self.state_

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
            _seed_action_spaces(self.action_spaces, seed)
        elif self._rng is None:
            self._rng = random.Random(secrets.randbits(64))
        rng = self._rng
        starter = rng.randrange(self._players)
        self.state_ = GameState(GameConfig(self._players, self._dice_set, self._variant,
                                           starter, self._options))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.final_totals = []
        self._history = ((-1, False), ())
        self._play_chance()
        self._select()

    def _play_chance(self) -> None:
        """Step chance until an agent is to act (or the game is over)."""
        state = self.game
        assert self._rng is not None
        while state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(self._rng))

    def _select(self) -> None:
        state = self.game
        for agent in self.agents:
            self.infos[agent] = {}
        if state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            self.final_totals = list(state.totals)
            self.agent_selection = self.agents[0]
            return
        self.agent_selection = _agent_name(state.current_player)
        self.infos[self.agent_selection] = {"view": self.view(self.agent_selection)}

    def view(self, agent: str) -> SeatView:
        """What ``agent`` may know now: the engine's own per-seat view."""
        state = self.game
        key = (len(state.rounds), state.is_terminal())
        if self._history[0] != key:  # the finished rounds change only when one ends
            self._history = (key, past_rounds(state))
        return view(state, self._seat[agent], self._history[1])

    def observe(self, agent: str) -> Observation:
        # The vector reads no finished round: the view without them is enough.
        seat_view = view(self.game, self._seat[agent], ())
        return {"observation": observation_vector(seat_view),
                "action_mask": legal_mask(seat_view)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game
        if action is None:
            raise ValueError(f"{agent} is to act: step(None) is only for a finished agent")
        try:
            move = action_of(self._dice_set, action_number(agent, action))
            rounds_before = len(state.rounds)
            state.apply(move, seat=self._seat[agent])
        except IllegalActionError as exc:
            rule = f" ({exc.rule})" if exc.rule else ""
            raise ValueError(f"{exc.describe([*self.possible_agents])}{rule}") from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._play_chance()
        self._reward_rounds(rounds_before)
        self._select()
        self._accumulate_rewards()

    def _reward_rounds(self, rounds_before: int) -> None:
        """The round in play when the step began, if the step scored it, rewards every
        agent its points (a step scores at most that one: the next waits for bids)."""
        log = self.game.rounds[rounds_before - 1]
        if log.points is not None:
            for seat, points in enumerate(log.points):
                self.rewards[_agent_name(seat)] += float(points)

    def render(self) -> str | None:
        """``"ansi"``: the table as a spectator sees it, as text; ``"human"``: that text
        printed (PettingZoo's ``render_test`` makes a ``"human"`` environment first)."""
        if self.render_mode is None:
            return None
        text = render_text(view(self.game, None))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def state(self) -> npt.NDArray[np.float32]:
        raise NotImplementedError("the whole state holds hidden dice: observe a seat instead")

    def close(self) -> None:
        pass


def _seed_action_spaces(spaces_by_agent: Mapping[str, spaces.Space[Any]], seed: int) -> None:
    """``reset(seed)`` seeds each agent's ``action_space(agent).sample()`` too (each its
    own stream), as Gymnasium's environments do: a seeded random agent repeats itself."""
    for index, space in enumerate(spaces_by_agent.values()):
        space.seed(seed + index)


def render_text(seat_view: SeatView) -> str:
    """The table as text from a view (a spectator's shows no hand and no hidden bid)."""
    lines = [f"Mino Dice ({seat_view.dice_set.name}, {seat_view.variant}), "
             f"round {seat_view.round_no}/{seat_view.rounds}, {seat_view.phase.name.lower()}"]
    for seat in range(seat_view.players):
        bid = seat_view.bids[seat]
        shown = "?" if bid is None and seat_view.has_bid[seat] else (
            "-" if bid is None else str(bid))
        mark = "*" if seat == seat_view.current_player else " "
        held = seat_view.hand_sizes[seat]
        lines.append(f"{mark} player_{seat}: {held} {'die' if held == 1 else 'dice'}, "
                     f"bid {shown}, "
                     f"tricks {seat_view.tricks_won[seat]}, total {seat_view.totals[seat]}")
    if seat_view.trick:
        lines.append("trick: " + ", ".join(f"player_{r.seat} {r}" for r in seat_view.trick))
    return "\n".join(lines)


def env(**kwargs: Any) -> MinoDiceEnv:
    """PettingZoo's usual constructor name."""
    return MinoDiceEnv(**kwargs)


class MinoDiceParallelEnv(ParallelEnv[str, Observation, int]):
    """Mino Dice as a PettingZoo parallel environment: simultaneous bids, one roll a step.

    Every agent is in every step. While bidding, each agent bids (its mask: the legal
    bids) and the bids are applied together, none seen before all are in. While playing,
    only the agent to roll has legal dice in its mask; every other agent's mask allows
    only the no-op action (number ``action_size``), which it must send (or leave out).
    Rewards, observations and seeding are those of :class:`MinoDiceEnv`.

    An illegal action raises :class:`ValueError` (naming the agent and the rule), the game
    left as it was. With ``on_illegal="end"`` it ends the game instead, as PettingZoo's
    ``TerminateIllegalWrapper`` does for AEC environments (there is no such wrapper for
    parallel ones): the agent that sent it is rewarded ``illegal_reward``, the others 0,
    every agent is terminated and the offender's info holds ``"illegal_move"``, the reason.
    PettingZoo's ``parallel_seed_test``, which samples actions without their masks, needs
    this.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"], "name": "minodice_parallel_v0"}

    def __init__(self, players: int = 4, dice_set: str = "mino", variant: str = "standard",
                 render_mode: str | None = None, on_illegal: str = "raise",
                 illegal_reward: float = -1.0,
                 rule_options: RuleOptions = DEFAULT_RULE_OPTIONS) -> None:
        if on_illegal not in ("raise", "end"):
            raise ValueError(f"on_illegal {on_illegal!r} is not one of: raise, end")
        self._aec = MinoDiceEnv(players, dice_set, variant, render_mode, rule_options)
        self.on_illegal = on_illegal
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.possible_agents = self._aec.possible_agents[:]
        self.agents: list[str] = []
        self.noop = action_size(self._aec._dice_set)
        size = vector_size(players, len(self._aec._dice_set.kinds))
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.noop + 1,), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(self.noop + 1) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _observe(self, agent: str) -> Observation:
        game = self._aec.game
        seat = self._aec._seat[agent]
        seat_view = view(game, seat, ())  # the vector reads no finished round
        mask = np.zeros(self.noop + 1, dtype=np.int8)
        mask[:self.noop] = legal_mask(seat_view)
        if game.phase is Phase.BID and game.bids[seat] < 0:
            pass  # a bidder: its legal bids
        elif not mask.any():
            mask[self.noop] = 1
        return {"observation": observation_vector(seat_view), "action_mask": mask}

    def view(self, agent: str) -> SeatView:
        """What ``agent`` may know now (:meth:`MinoDiceEnv.view`)."""
        return self._aec.view(agent)

    def _all(self) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Every agent's observation, and its info: its structured view, as the AEC
        environment gives the agent to act (every agent is in every step here)."""
        obs = {a: self._observe(a) for a in self.agents}
        return obs, {a: {"view": self.view(a)} for a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        self._aec.reset(seed=seed, options=options)
        if seed is not None:
            _seed_action_spaces(self.action_spaces, seed)
        self.agents = self.possible_agents[:]
        return self._all()

    def step(self, actions: dict[str, int]) -> tuple[
            dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool],
            dict[str, dict[str, Any]]]:
        if not self.agents:
            raise ValueError("no game in play (none yet, or it is over): call reset()")
        try:
            rewards = self._apply(actions)
        except _IllegalStepError as illegal:
            if self.on_illegal == "raise":
                raise ValueError(str(illegal)) from None
            return self._end_by_illegal(illegal.agent, str(illegal))
        game = self._aec.game
        done = game.is_terminal()
        obs, infos = self._all()
        terminations = dict.fromkeys(self.agents, done)
        truncations = dict.fromkeys(self.agents, False)
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def _end_by_illegal(self, offender: str, reason: str) -> tuple[
            dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool],
            dict[str, dict[str, Any]]]:
        obs, infos = self._all()
        rewards = dict.fromkeys(self.agents, 0.0)
        rewards[offender] = self.illegal_reward
        infos[offender] = {"illegal_move": reason}
        terminations = dict.fromkeys(self.agents, True)
        truncations = dict.fromkeys(self.agents, False)
        self.agents = []
        return obs, rewards, terminations, truncations, infos

    def _apply(self, actions: dict[str, int]) -> dict[str, float]:
        """Checks and applies one step's actions (every bid before any is applied), and
        returns the rewards; an illegal one raises :class:`_IllegalStepError`, nothing applied."""
        game = self._aec.game
        aec = self._aec
        rewards = dict.fromkeys(self.agents, 0.0)
        if game.phase is Phase.BID:
            bidders = [a for a in self.agents if game.bids[aec._seat[a]] < 0]
            for agent in bidders:  # every bid checked before any is applied
                if agent not in actions:
                    raise _IllegalStepError(agent, f"{agent} must bid this step")
                bid = _number(agent, actions[agent])
                if not 0 <= bid <= game.round_no:
                    raise _IllegalStepError(agent, f"{agent}: a bid is 0 to {game.round_no} in "
                                       f"round {game.round_no}, not {bid} (R6)")
            order = [aec.agent_selection] + [a for a in bidders if a != aec.agent_selection]
            for agent in order:
                aec.agent_selection = agent
                aec.step(action_number(agent, actions[agent]))
                for a in self.agents:
                    rewards[a] += aec.rewards[a]
        else:
            agent = aec.agent_selection
            action = actions.get(agent)
            if action is None or _number(agent, action) == self.noop:
                raise _IllegalStepError(agent, f"{agent} is to roll a die this step")
            for other, act in actions.items():
                if other != agent and act is not None and _number(other, act) != self.noop:
                    raise _IllegalStepError(other, f"{other} is not to act this step: send "
                                       f"{self.noop} (no-op)")
            try:
                aec.step(action_number(agent, action))
            except ValueError as exc:  # the engine refused it: the game is as it was
                raise _IllegalStepError(agent, str(exc)) from None
            for a in self.agents:
                rewards[a] += aec.rewards[a]
        return rewards

    def render(self) -> str | None:
        return self._aec.render()

    def state(self) -> npt.NDArray[np.float32]:
        raise NotImplementedError("the whole state holds hidden dice: observe a seat instead")

    def close(self) -> None:
        pass


class _IllegalStepError(ValueError):
    """An action the parallel environment refuses, with the agent that sent it."""

    def __init__(self, agent: str, reason: str) -> None:
        super().__init__(reason)
        self.agent = agent


def _number(agent: str, action: object) -> int:
    """:func:`action_number`, its refusal an :class:`_IllegalStepError` of ``agent``."""
    try:
        return action_number(agent, action)
    except ValueError as exc:
        raise _IllegalStepError(agent, str(exc)) from None


def parallel_env(**kwargs: Any) -> MinoDiceParallelEnv:
    """PettingZoo's usual constructor name for the parallel form."""
    return MinoDiceParallelEnv(**kwargs)
