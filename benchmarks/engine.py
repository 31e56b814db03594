"""Engine speed: steps per second of random full 4-player games, through each public API.

What is counted. A *step* is one call that moves the game on, as the engine takes it: a
decision (a bid, a die chosen) or one chance step. In minodice a chance step is a whole
hand drawn (R4) or one die rolled, so a 4-player game takes 32 draws, 32 bids, 144 dice
chosen and 144 rolled: 352 steps. (An earlier version counted 464 "events", one for every
die drawn, which the engine never takes one at a time.) In OpenSpiel's ``oh_hell`` a chance
step is the dealer, the number of tricks, one card dealt or the trump card, and a game's
length varies with the number of tricks. Both loops count the steps as they take them, and
the steps per game printed are those counts.

How each engine is driven. One loop for both: read the player to act once per step; at a
decision, a uniform index into ``legal_actions()``; at a chance step, one of two ways:

- **generic**: ``chance_outcomes()`` lists every outcome with its probability and one is
  chosen by weight (``random.choices``), as a driver that knows nothing of the game must.
  For minodice that lists every hand the seat may draw, each with an exact ``Fraction``:
  about 320 hands a draw on average, 1,524 for the first hand of round 8, against at most
  52 cards (float probabilities) for ``oh_hell``. That is the real cost of listing a
  whole hand as one chance step, so this ratio compares the two chance models more than
  the two engines; it is printed for what it is.
- **fastest honest**: each engine's cheapest exact way to draw from the same distribution.
  minodice: ``sample_chance(rng)``. ``oh_hell``: its chance outcomes are equally likely
  (checked on a game before every run), so a uniform index into them is exact; indexing
  ``legal_actions()``, which at a chance node are those outcomes' actions, is faster than
  indexing ``chance_outcomes()`` (both are printed; the ratio uses the faster).

Each way is its own loop, written out in full: a shared loop taking the chance step as a
function would add a call to every step of both engines, which is what is measured.

``oh_hell`` is asked ``current_player()`` once per step, as our loop reads
``current_player`` once: a loop asking ``is_terminal()`` and ``is_chance_node()`` instead
(as an earlier version did) makes it about 10% slower, and the comparison kinder to us.

Which engines. minodice as installed (pure Python), and, when ``build/compiled`` holds a
build of the current source (``make compiled``: the engine's core compiled with mypyc,
see ``scripts/compile_core.py``), the same two loops over that build, run in a worker
process started with it on ``PYTHONPATH`` that waits for its turn while the others run.
Both give the same games (``tests/test_compiled.py``). The reference is OpenSpiel's C++
``oh_hell`` through its Python bindings. One more line runs the fast loop over an engine
that does nothing (:class:`IdleEngine`): what the loop itself costs, the bound on any
engine driven this way.

The ratios. Of the two, the generic one is far the lower (the stricter), and it is set by
the hands listed, not by the speed of a step; the fastest-path ratio is the engines' speed
per step, and issue #10's goal (at least 3×) is stated on it. Runs alternate between the
loops several times (this machine is shared and noisy), the median of each loop's runs is
reported, and every ratio is of medians measured in the same run.

Run: ``python benchmarks/engine.py [--seconds 2 --repeats 5]`` (``make bench`` builds the
compiled core first where it can, and installs OpenSpiel).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minodice.core.dice import load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState
from minodice.play.simulate import SimulationSummary, simulate

PLAYERS = 4
OS_CHANCE, OS_TERMINAL = -1, -4  # pyspiel.PlayerId.CHANCE and .TERMINAL

# A run: (games, decisions, chance steps, elapsed seconds).
Run = tuple[int, int, int, float]


def minodice_generic(seconds: float, seed: int) -> Run:
    """Chance by ``chance_outcomes()``, chosen by weight."""
    config = GameConfig(PLAYERS, load_dice_set("mino"), Variant.STANDARD, 0)
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GameState(config)
        while True:
            player = state.current_player
            if player == CHANCE:
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_chance(rng.choices(outcomes, weights=probs)[0])
                chances += 1
            elif player == TERMINAL:
                break
            else:
                actions = state.legal_actions()
                state.apply(actions[int(rand() * len(actions))])
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


def minodice_fast(seconds: float, seed: int) -> Run:
    """Chance by ``sample_chance(rng)``."""
    config = GameConfig(PLAYERS, load_dice_set("mino"), Variant.STANDARD, 0)
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = GameState(config)
        while True:
            player = state.current_player
            if player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
                chances += 1
            elif player == TERMINAL:
                break
            else:
                actions = state.legal_actions()
                state.apply(actions[int(rand() * len(actions))])
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


def simulate_games(seconds: float, seed: int) -> Run:
    """What ``minodice simulate`` does without ``--save-records``: per-game seeded
    generators, the random-play loop and the summary, in chunks of 200 games. Its steps
    are counted from each finished game's log."""
    dice_set = load_dice_set("mino")
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        summary = SimulationSummary(PLAYERS)
        for state in simulate(PLAYERS, 200, seed + games, dice_set):
            summary.add(state)
            rolls = sum(len(trick) for log in state.rounds for trick in log.tricks)
            decisions += len(state.rounds) * PLAYERS + rolls  # bids, dice chosen
            chances += len(state.rounds) * PLAYERS + rolls    # hands drawn, dice rolled
        games += summary.games
    return games, decisions, chances, time.perf_counter() - start


def openspiel_game() -> Any:
    import pyspiel

    return pyspiel.load_game("oh_hell", {"players": PLAYERS})


def check_uniform_chance(game: Any, seed: int) -> None:
    """The fast ``oh_hell`` loops are exact only if its chance outcomes are equally likely
    and ``legal_actions()`` at a chance node are their actions: check a whole game."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        actions = state.legal_actions()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            if [a for a, _ in outcomes] != actions or len({p for _, p in outcomes}) != 1:
                raise SystemExit("oh_hell's chance outcomes are not uniform: no fast reference")
        state.apply_action(rng.choice(actions))


def openspiel_generic(seconds: float, seed: int) -> Run:
    """Chance by ``chance_outcomes()``, chosen by weight."""
    return openspiel_generic_loop(openspiel_game(), seconds, seed)


def openspiel_generic_loop(game: Any, seconds: float, seed: int) -> Run:
    """Random games of any OpenSpiel ``game`` as an OpenSpiel algorithm plays them: chance by
    ``chance_outcomes()`` chosen by weight, decisions uniformly among ``legal_actions()``."""
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while True:
            player = state.current_player()
            if player == OS_CHANCE:
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, weights=probs)[0])
                chances += 1
            elif player == OS_TERMINAL:
                break
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rand() * len(actions))])
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


def openspiel_uniform_outcomes(seconds: float, seed: int) -> Run:
    """Chance by a uniform index into ``chance_outcomes()``."""
    game = openspiel_game()
    check_uniform_chance(game, seed)
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while True:
            player = state.current_player()
            if player == OS_CHANCE:
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                chances += 1
            elif player == OS_TERMINAL:
                break
            else:
                actions = state.legal_actions()
                state.apply_action(actions[int(rand() * len(actions))])
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


def openspiel_fast(seconds: float, seed: int) -> Run:
    """Chance by a uniform index into ``legal_actions()`` (the chance outcomes' actions)."""
    game = openspiel_game()
    check_uniform_chance(game, seed)
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while True:
            player = state.current_player()
            if player == OS_TERMINAL:
                break
            actions = state.legal_actions()
            state.apply_action(actions[int(rand() * len(actions))])
            if player == OS_CHANCE:
                chances += 1
            else:
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


class IdleEngine:
    """An engine in Python that does nothing: 352 steps a game, every other one a chance
    step, through the same calls. What the loop itself costs."""

    __slots__ = ("_steps", "current_player")

    def __init__(self) -> None:
        self.current_player = 0
        self._steps = 0

    def legal_actions(self) -> tuple[int, ...]:
        return IDLE_ACTIONS

    def apply(self, action: int) -> None:
        self._steps += 1
        self.current_player = CHANCE if self._steps < STEPS_PER_GAME else TERMINAL

    def sample_chance(self, rng: random.Random) -> float:
        return rng.random()

    def apply_chance(self, outcome: float) -> None:
        self._steps += 1
        self.current_player = 0 if self._steps < STEPS_PER_GAME else TERMINAL


IDLE_ACTIONS = (0, 1, 2)
STEPS_PER_GAME = 352


def idle_loop(seconds: float, seed: int) -> Run:
    """The fast loop over :class:`IdleEngine`."""
    rng = random.Random(seed)
    rand = rng.random
    games = decisions = chances = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = IdleEngine()
        while True:
            player = state.current_player
            if player == CHANCE:
                state.apply_chance(state.sample_chance(rng))
                chances += 1
            elif player == TERMINAL:
                break
            else:
                actions = state.legal_actions()
                state.apply(actions[int(rand() * len(actions))])
                decisions += 1
        games += 1
    return games, decisions, chances, time.perf_counter() - start


# -- the compiled core, in a process of its own --------------------------------------------

COMPILED = Path(__file__).resolve().parent.parent / "build" / "compiled"
WORKER_LOOPS: dict[str, Callable[[float, int], Run]] = {
    "generic": minodice_generic, "fast": minodice_fast}


def worker() -> None:
    """Run loops on request (``LOOP SECONDS SEED`` a line) and answer each with its run:
    the benchmark's process for the compiled core, started with it on ``PYTHONPATH``."""
    import minodice.core.state

    print(minodice.core.state.__file__, flush=True)
    for line in sys.stdin:
        loop, seconds, seed = line.split()
        print(json.dumps(WORKER_LOOPS[loop](float(seconds), int(seed))), flush=True)


class CompiledWorker:
    """The worker process: between two runs it waits for its next line, using no CPU."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(COMPILED))
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.engine = self.stdout.readline().strip()
        if not self.engine or self.engine.endswith(".py"):
            raise SystemExit(f"the compiled worker runs no compiled engine: {self.engine!r}")

    def loop(self, name: str) -> Callable[[float, int], Run]:
        def run(seconds: float, seed: int) -> Run:
            self.stdin.write(f"{name} {seconds} {seed}\n")
            self.stdin.flush()
            games, decisions, chances, elapsed = json.loads(self.stdout.readline())
            return int(games), int(decisions), int(chances), float(elapsed)
        return run

    def close(self) -> None:
        self.stdin.close()
        self.proc.wait(timeout=60)


def compiled_status() -> str | None:
    """None if build/compiled is a build of the current source, else why it is not used."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "compile_core.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                          text=True, check=False)
    return None if proc.returncode == 0 else proc.stdout.strip()


class Figures:
    """The runs of one loop, and their medians."""

    def __init__(self, label: str, loop: Callable[[float, int], Run]) -> None:
        self.label = label
        self.loop = loop
        self.runs: list[Run] = []

    def run(self, seconds: float, seed: int) -> None:
        self.runs.append(self.loop(seconds, seed))

    @property
    def games_s(self) -> float:
        return statistics.median(g / e for g, _, _, e in self.runs)

    @property
    def steps_s(self) -> float:
        return statistics.median((d + c) / e for _, d, c, e in self.runs)

    @property
    def steps_per_game(self) -> float:
        return sum(d + c for _, d, c, _ in self.runs) / sum(g for g, _, _, _ in self.runs)

    def line(self) -> str:
        return (f"{self.label:<52} {self.steps_per_game:>10.1f} {self.games_s:>9,.0f} "
                f"{self.steps_s:>11,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--repeats", type=int, default=5, help="alternating runs per loop")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return
    try:
        import pyspiel  # noqa: F401
        have_openspiel = True
    except ImportError:
        have_openspiel = False
    not_compiled = compiled_status()
    compiled = CompiledWorker() if not_compiled is None else None

    ours_generic = Figures("(a) minodice, generic (chance_outcomes)", minodice_generic)
    ours_fast = Figures("(b) minodice, fastest (sample_chance)", minodice_fast)
    sim = Figures("    minodice simulate (the CLI's loop)", simulate_games)
    figures = [ours_generic, ours_fast, sim]
    if compiled is not None:
        fast_generic = Figures("(a) minodice compiled, generic", compiled.loop("generic"))
        fast_fast = Figures("(b) minodice compiled, fastest", compiled.loop("fast"))
        figures += [fast_generic, fast_fast]
    idle = Figures("    the loop alone (an idle engine in Python)", idle_loop)
    figures.append(idle)
    ref_generic = Figures("(c) oh_hell, generic (chance_outcomes)", openspiel_generic)
    ref_outcomes = Figures("    oh_hell, uniform index, chance_outcomes()",
                           openspiel_uniform_outcomes)
    ref_fast = Figures("(d) oh_hell, fastest (uniform index, legal_actions)", openspiel_fast)
    if have_openspiel:
        figures += [ref_generic, ref_outcomes, ref_fast]
    for i in range(args.repeats):
        for fig in figures:
            fig.run(args.seconds, i)
    if compiled is not None:
        compiled.close()

    print(f"Random {PLAYERS}-player games on one core, median of {args.repeats} alternating "
          f"runs of {args.seconds:g} s each")
    print("a step: one decision or one chance step, counted as the engine takes them")
    if compiled is not None:
        print(f"compiled core (make compiled): {compiled.engine}")
    else:
        print(f"compiled core: not measured: {not_compiled}")
    print(f"{'':<52} {'steps/game':>10} {'games/s':>9} {'steps/s':>11}")
    for fig in figures:
        print(fig.line())
    if not have_openspiel:
        print("OpenSpiel not installed (pip install open_spiel, or make bench): no reference")
        return

    columns = {"pure": (ours_generic, ours_fast)}
    if compiled is not None:
        columns["compiled"] = (fast_generic, fast_fast)
    print(f"{'ratio of steps/s':<52}" + "".join(f" {name:>10}" for name in columns))
    rows = [("generic: (a) / (c)", 0, ref_generic, "the stricter: every hand listed"),
            ("fastest: (b) / (d)", 1, ref_fast, "the goal: >= 3x"),
            ("(b) / oh_hell indexing chance_outcomes()", 1, ref_outcomes, "")]
    for label, which, ref, note in rows:
        cells = "".join(f" {pair[which].steps_s / ref.steps_s:>9.2f}x"
                        for pair in columns.values())
        print(f"{label:<52}{cells}  {note}".rstrip())
    print(f"{'the loop alone / (d)':<52} {idle.steps_s / ref_fast.steps_s:>9.2f}x")


if __name__ == "__main__":
    main()
