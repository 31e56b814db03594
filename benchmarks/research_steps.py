"""Steps per second of the research interfaces, beside OpenSpiel's ``oh_hell``, in one run.

Random 4-player games on one core, every loop counting steps as ``benchmarks/engine.py``
does (one decision or one chance step, as the engine takes them: 352 a game of Mino
Dice): decisions uniformly among the legal ones, chance by its probabilities.

- **oh_hell**: OpenSpiel's C++ game, its fastest honest loop (``engine.py``'s (d)).
- **scalar engine**: :class:`~minodice.core.state.GameState` with ``sample_chance``
  (``engine.py``'s (b)).
- **PettingZoo**: :class:`~minodice.envs.pettingzoo.MinoDiceEnv`, ``env.last()`` (the
  observation vector and the mask, from the seat's view) then ``env.step`` with a random
  legal action; the chance steps the environment takes by itself are counted too.
- **OpenSpiel**: ``python_minodice`` (:mod:`minodice.envs.openspiel`) through ``pyspiel``:
  ``legal_actions()`` and ``apply_action``; chance by ``chance_outcomes()`` (every hand
  listed with its probability, as any OpenSpiel algorithm sees it).
- **batched**: :class:`~minodice.vector.VectorGame` with N games in lockstep; a call
  takes one step of each game, so it counts N steps.

The issue's goal is the batched engine at >= 10x oh_hell's steps per second. Runs
alternate between the loops (the machine is shared), the median of each loop's runs is
printed, and every ratio is of medians from this run.

Run: ``python benchmarks/research_steps.py [--seconds 2 --repeats 3]`` (needs the research
extra: ``pip install -e '.[research]'``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from engine import PLAYERS, Figures, Run, minodice_fast, openspiel_fast, openspiel_generic_loop
from minodice.envs.pettingzoo import MinoDiceEnv


def pettingzoo_loop(seconds: float, seed: int) -> Run:
    env = MinoDiceEnv(PLAYERS)
    rng = random.Random(seed)
    env.reset(seed=seed)
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[int(rng.random() * len(legal))]))
        state = env.game
        rolls = sum(len(trick) for log in state.rounds for trick in log.tricks)
        decisions += len(state.rounds) * PLAYERS + rolls
        chances += len(state.rounds) * PLAYERS + rolls
        games += 1
    return games, decisions, chances, time.perf_counter() - start


def openspiel_minodice(seconds: float, seed: int) -> Run:
    import pyspiel

    import minodice.envs.openspiel  # noqa: F401  (registers python_minodice)

    game = pyspiel.load_game("python_minodice", {"players": PLAYERS})
    return openspiel_generic_loop(game, seconds, seed)


def batched(n: int) -> Callable[[float, int], Run]:
    from minodice.vector import VectorGame

    def loop(seconds: float, seed: int) -> Run:
        rng = np.random.default_rng(seed)
        games = steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            batch = VectorGame(n, PLAYERS)
            while not batch.over:
                batch.random_step(rng)
            games += n
            steps += n * batch.steps
        # Decisions and chance steps alternate in Mino Dice: half of each game's steps.
        return games, steps // 2, steps - steps // 2, time.perf_counter() - start
    return loop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=3, help="alternating runs per loop")
    parser.add_argument("--sizes", default="1,64,1024,16384", help="batch sizes N")
    args = parser.parse_args()
    reference = Figures("oh_hell (C++, fastest loop)", openspiel_fast)
    figures = [
        reference,
        Figures("minodice scalar engine (sample_chance)", minodice_fast),
        Figures("PettingZoo MinoDiceEnv (last + step)", pettingzoo_loop),
        Figures("OpenSpiel python_minodice (pyspiel)", openspiel_minodice),
    ]
    for n in (int(s) for s in args.sizes.split(",")):
        figures.append(Figures(f"batched VectorGame, N = {n:,}", batched(n)))
    for i in range(args.repeats):
        for fig in figures:
            fig.run(args.seconds, i)
    print(f"Random {PLAYERS}-player games on one core, median of {args.repeats} alternating "
          f"runs of {args.seconds:g} s each")
    print(f"{'':<52} {'steps/game':>10} {'games/s':>9} {'steps/s':>11} {'/ oh_hell':>10}")
    for fig in figures:
        print(f"{fig.line()} {fig.steps_s / reference.steps_s:>9.2f}x")
    best = max(figures[4:], key=lambda f: f.steps_s)
    print(f"goal: batched >= 10x oh_hell; best: {best.label}: "
          f"{best.steps_s / reference.steps_s:.1f}x")


if __name__ == "__main__":
    main()
