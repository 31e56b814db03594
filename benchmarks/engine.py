"""Engine speed: random full 4-player games per second, and events per second, on one core.

Events are decisions plus chance outcomes, counted as the issue defines them: a 4-player
game has 32 bids, 144 die choices, 144 dice drawn and 144 rolls (464 events). The engine is
driven through its public API — ``current_player``, ``legal_actions()``, ``apply()``,
``sample_chance()``, ``apply_chance()`` — the calls bots and servers make, legality checks
included.

The reference is OpenSpiel's C++ ``oh_hell`` driven from Python in the same run, the same
way: decisions drawn uniformly from ``legal_actions()``, chance outcomes drawn from
``chance_outcomes()`` by their listed probabilities (``random.choices``). A second line
shows OpenSpiel with the cheaper uniform index into its outcome list (valid only because
``oh_hell``'s chance outcomes happen to be uniform), for comparison.

Runs alternate between the engines several times (this machine is shared and noisy) and
the median of each is reported. Run: ``python benchmarks/engine.py [--seconds 2 --repeats 5]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from minodice.core.dice import load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState
from minodice.play.simulate import SimulationSummary, simulate

PLAYERS = 4


def events_per_game(players: int) -> tuple[int, int]:
    """(decisions, chance events) of one game: bids + die choices; dice drawn + rolls."""
    rounds = {3: 8, 4: 8, 5: 7, 6: 6}[players]
    dice = players * sum(range(1, rounds + 1))
    return players * rounds + dice, 2 * dice


def minodice_games(seconds: float, seed: int) -> tuple[int, float]:
    """Random games through the public API for about ``seconds``; (games, elapsed)."""
    config = GameConfig(PLAYERS, load_dice_set("mino"), Variant.STANDARD, 0)
    rng = random.Random(seed)
    rand = rng.random
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GameState(config)
        while True:
            player = state.current_player
            if player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
            elif player == TERMINAL:
                break
            else:
                actions = state.legal_actions()
                state.apply(actions[int(rand() * len(actions))])
        games += 1
    return games, time.perf_counter() - start


def simulate_games(seconds: float, seed: int) -> tuple[int, float]:
    """What ``minodice simulate`` does without ``--save-records``: per-game seeded
    generators, the random-play loop and the summary, in chunks of 200 games."""
    dice_set = load_dice_set("mino")
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        summary = SimulationSummary(PLAYERS)
        for state in simulate(PLAYERS, 200, seed + games, dice_set):
            summary.add(state)
        games += summary.games
    return games, time.perf_counter() - start


def openspiel_games(seconds: float, seed: int, weighted: bool) -> tuple[int, int, int, float]:
    """oh_hell games; (games, decisions, chance events, elapsed)."""
    import pyspiel

    game = pyspiel.load_game("oh_hell", {"players": PLAYERS})
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state: Any = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if weighted:
                    actions, probs = zip(*outcomes, strict=True)
                    state.apply_action(rng.choices(actions, weights=probs)[0])
                else:
                    state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                chances += 1
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rand() * len(actions))])
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


def median_rate(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(a for a, _ in samples), statistics.median(b for _, b in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="alternating runs per engine")
    args = parser.parse_args()
    try:
        import pyspiel  # noqa: F401
        have_openspiel = True
    except ImportError:
        have_openspiel = False

    decisions, chances = events_per_game(PLAYERS)
    per_game = decisions + chances
    ours: list[tuple[float, float]] = []
    sim: list[tuple[float, float]] = []
    ref_w: list[tuple[float, float]] = []
    ref_w_split: list[tuple[float, float]] = []
    ref_u: list[tuple[float, float]] = []

    def run_ours(i: int) -> None:
        games, elapsed = minodice_games(args.seconds, i)
        ours.append((games / elapsed, games * per_game / elapsed))

    def run_sim(i: int) -> None:
        games, elapsed = simulate_games(args.seconds, i)
        sim.append((games / elapsed, games * per_game / elapsed))

    def run_ref(i: int) -> None:
        games, dec, ch, elapsed = openspiel_games(args.seconds, i, weighted=True)
        ref_w.append((games / elapsed, (dec + ch) / elapsed))
        ref_w_split.append((dec / elapsed, ch / elapsed))
        games, dec, ch, elapsed = openspiel_games(args.seconds, i, weighted=False)
        ref_u.append((games / elapsed, (dec + ch) / elapsed))

    runs: list[Callable[[int], None]] = [run_ours, run_sim]
    if have_openspiel:
        runs.append(run_ref)
    for i in range(args.repeats):
        for run in runs:
            run(i)

    print(f"Random {PLAYERS}-player games on one core, median of {args.repeats} alternating "
          f"runs of {args.seconds:g} s")
    print(f"events per minodice game: {per_game} ({decisions} decisions, {chances} chance)")
    games_s, events_s = median_rate(ours)
    print(f"minodice engine API      {games_s:>9,.0f} games/s {events_s:>12,.0f} events/s")
    sim_games, sim_events = median_rate(sim)
    print(f"minodice simulate (CLI)  {sim_games:>9,.0f} games/s {sim_events:>12,.0f} events/s")
    if not have_openspiel:
        print("OpenSpiel not installed (pip install open_spiel, or make bench): no reference")
        return
    ref_games, ref_events = median_rate(ref_w)
    ref_dec, ref_ch = median_rate(ref_w_split)
    print(f"OpenSpiel oh_hell        {ref_games:>9,.0f} games/s {ref_events:>12,.0f} events/s "
          f"({ref_dec:,.0f} decisions/s + {ref_ch:,.0f} chance/s; chance by probability)")
    uni_games, uni_events = median_rate(ref_u)
    print(f"OpenSpiel oh_hell, uniform chance index "
          f"{uni_games:>9,.0f} games/s {uni_events:>12,.0f} events/s")
    print(f"ratio minodice / oh_hell (events/s): {events_s / ref_events:.2f}x  (target >= 3x)")
    print(f"ratio simulate / oh_hell (events/s): {sim_events / ref_events:.2f}x")
    print(f"ratio minodice / oh_hell with uniform chance index: {events_s / uni_events:.2f}x")


if __name__ == "__main__":
    main()
