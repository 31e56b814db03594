"""Batch simulation of games between random legal players (``minodice simulate``).

Each game gets its own generator, seeded from the run's seed and the game's number, so
that game *i* is the same whatever else runs, and the same seed gives byte-identical
records. The game loop drives the engine through its public API only — the same calls a
bot or a server makes, legality checks included.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from minodice.core.dice import DiceSet
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState
from minodice.play.match import made_by_round


def game_rng(seed: int, index: int) -> random.Random:
    """The generator of game ``index`` of a run seeded ``seed`` (stable across Pythons)."""
    return random.Random(f"minodice:{seed}:{index}")


def play_random_game(config: GameConfig, rng: random.Random) -> GameState:
    """Play one whole game with uniformly random legal decisions and ``rng`` for chance."""
    state = GameState(config)
    rand = rng.random
    sample = state.sample_chance
    apply_chance = state.apply_chance
    legal = state.legal_actions
    apply = state.apply
    while True:
        player = state.current_player
        if player == CHANCE:
            apply_chance(sample(rng))
        elif player == TERMINAL:
            return state
        else:
            actions = legal()
            apply(actions[int(rand() * len(actions))])


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
) -> Iterator[GameState]:
    """Yield ``games`` finished random games; ``on_game`` sees each with its index."""
    for index in range(games):
        rng = game_rng(seed, index)
        config = GameConfig(players, dice_set, variant, rng.randrange(players))  # R5
        state = play_random_game(config, rng)
        if on_game is not None:
            on_game(index, state)
        yield state
