"""Batch simulation of games between random legal players (``minodice simulate``).

Each game gets its own generator, seeded from the run's seed and the game's number, so
that game *i* is the same whatever else runs, and the same seed gives byte-identical
records. Games are played by the one :class:`~minodice.play.driver.Driver`, synchronously,
at a table whose chance and whose players all draw from the game's one generator
(:class:`SharedChance`, :class:`UniformRunner`): the same calls a bot or a server makes,
legality checks included, and the same games as before the driver (the golden records).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from minodice.core.dice import DiceSet, Face, Hand
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, Variant
from minodice.core.state import GameConfig, GameState
from minodice.play.driver import Driver
from minodice.play.match import made_by_round
from minodice.play.runners import Decision, DecisionRequest
from minodice.play.table import SeatSpec, Table, draw_hands, draw_into


def game_rng(seed: int, index: int) -> random.Random:
    """The generator of game ``index`` of a run seeded ``seed`` (stable across Pythons)."""
    return random.Random(f"minodice:{seed}:{index}")


class SharedChance:
    """Every draw and roll of a game from one generator, in game order (shared with the
    players: :class:`UniformRunner`)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def deal(self, state: GameState) -> list[Hand]:
        return draw_hands(state, self.rng)

    def deal_into(self, state: GameState) -> list[Hand]:
        return draw_into(state, self.rng)

    def roll(self, state: GameState) -> Face:
        face = state.sample_chance(self.rng)
        assert isinstance(face, Face)
        return face

    def to_json(self) -> dict[str, Any]:
        return {"scheme": "shared"}

    def fork(self) -> SharedChance:
        return self  # played through in place, never forked


class UniformRunner:
    """A uniformly random legal decision, ``legal[int(rng.random() * len(legal))]``, with
    the request's generator; builds no view (the fastest player there is)."""

    def decide(self, request: DecisionRequest) -> Decision:
        legal = request.legal
        return Decision(legal[int(request.rng.random() * len(legal))], 0.0)

    async def decide_async(self, request: DecisionRequest) -> Decision:
        return self.decide(request)

    def close(self) -> None:
        pass


SEAT_NAMES = ("1", "2", "3", "4", "5", "6")


def play_random_game(config: GameConfig, rng: random.Random) -> GameState:
    """Play one whole game with uniformly random legal decisions and ``rng`` for chance."""
    seats = [SeatSpec(SEAT_NAMES[s], "uniform") for s in range(config.players)]
    table = Table(config, seats, SharedChance(rng))
    Driver(table, UniformRunner(), bot_rng=lambda seat: rng).run()
    return table.game_state()


@dataclass
class SimulationSummary:
    """What ``minodice simulate`` reports."""

    players: int
    games: int = 0
    seconds: float = 0.0
    score_sums: list[int] = field(default_factory=list)
    bids: int = 0
    bids_made: int = 0

    def add(self, state: GameState) -> None:
        if not self.score_sums:
            self.score_sums = [0] * state.n
        self.games += 1
        for seat, total in enumerate(state.totals):
            self.score_sums[seat] += total
        for seat_rounds in made_by_round(state):
            self.bids += len(seat_rounds)
            self.bids_made += sum(seat_rounds)

    @property
    def mean_scores(self) -> list[float]:
        return [s / self.games for s in self.score_sums] if self.games else []

    @property
    def bid_success(self) -> float:
        return self.bids_made / self.bids if self.bids else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0


def simulate(
    players: int,
    games: int,
    seed: int,
    dice_set: DiceSet,
    variant: Variant = Variant.STANDARD,
    on_game: Callable[[int, GameState], None] | None = None,
    options: RuleOptions = DEFAULT_RULE_OPTIONS,
) -> Iterator[GameState]:
    """Yield ``games`` finished random games; ``on_game`` sees each with its index."""
    for index in range(games):
        rng = game_rng(seed, index)
        config = GameConfig(players, dice_set, variant, rng.randrange(players), options)  # R5
        state = play_random_game(config, rng)
        if on_game is not None:
            on_game(index, state)
        yield state
