"""OpenSpiel's ISMCTS bot against our ``hard`` bot, on ``python_minodice``.

One ISMCTS seat and three ``hard`` bots, 4 players, ``mino``, standard scoring. Deals
are duplicated as in ``minodice tournament``: deal *d* is played 4 times with the ISMCTS
seat rotated through every seat, each time with the same hands and the same luck for
the k-th roll of a round (generators seeded by the deal, :func:`minodice.play.match.deal_rng`).
Printed: the ISMCTS seat's mean score per game minus the mean of the ``hard`` seats in
the same games, with a 95% interval over deals (Student's t), and both means.

ISMCTS is OpenSpiel's own (``open_spiel.python.algorithms.ismcts.ISMCTSBot``): worlds
from ``resample_from_infostate`` (our hand sampler), UCT over information states. Its
evaluator plays the rest of the *round* at random with the engine (rounds are
independent: the dice go back in the bag, R3) and returns the totals then; OpenSpiel's
``RandomRolloutEvaluator`` would play every later round too, through ``pyspiel``,
hundreds of times slower for the same decision.

Run: ``python benchmarks/ismcts_vs_hard.py --deals 3 --simulations 100`` (needs the
research extra).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from minodice.bots.loading import make_bot
from minodice.core.state import CHANCE
from minodice.core.view import view
from minodice.envs.encoding import index_of
from minodice.envs.openspiel import MinoDiceState, chance_tables
from minodice.play.match import deal_rng
from minodice.play.tournament import t95

PLAYERS = 4


class RoundRollout(mcts.Evaluator):  # type: ignore[misc]
    """The rest of the round played at random by the engine; the totals then."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def evaluate(self, state: MinoDiceState) -> Any:
        engine = state.engine.clone()
        rng = self._rng
        round_no = engine.round_no
        while engine.round_no == round_no and not engine.is_terminal():
            if engine.current_player == CHANCE:
                engine.apply_chance(engine.sample_chance(rng))
            else:
                actions = engine.legal_actions()
                engine.apply(actions[int(rng.random() * len(actions))])
        return np.array(engine.totals, dtype=np.float64)

    def prior(self, state: MinoDiceState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return list(state.chance_outcomes())
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def play(game: Any, searcher: Any, search_seat: int, seed: int, deal: int
         ) -> tuple[list[int], float, int]:
    """One game; the totals, the seconds ISMCTS thought and its decisions."""
    state = game.new_initial_state()
    hard = [make_bot("hard") for _ in range(PLAYERS)]
    rngs = [random.Random(f"ismcts:{seed}:{deal}:{seat}") for seat in range(PLAYERS)]
    thought, decisions = 0.0, 0
    round_no = 0
    draw = roll = random.Random(0)
    while not state.is_terminal():
        engine = state.engine
        if engine.round_no != round_no:
            round_no = engine.round_no
            draw = deal_rng(seed, deal, "draw", round_no)
            roll = deal_rng(seed, deal, "roll", round_no)
        if state.is_chance_node():
            outcome = engine.sample_chance(roll if engine.pending_roll else draw)
            state.apply_action(chance_tables(engine.dice_set.name).index_of(outcome))
            continue
        seat = state.current_player()
        if seat == search_seat:
            start = time.perf_counter()
            action = searcher.step(state)
            thought += time.perf_counter() - start
            decisions += 1
        else:
            legal = engine.legal_actions(seat)
            action = index_of(hard[seat].act(view(engine, seat), legal, rngs[seat]))
        state.apply_action(int(action))
    return list(state.engine.totals), thought, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--simulations", type=int, default=100, help="ISMCTS per decision")
    parser.add_argument("--worlds", type=int, default=20, help="ISMCTS world samples kept")
    parser.add_argument("--uct", type=float, default=40.0, help="UCT constant (points)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game("python_minodice", {"players": PLAYERS})
    differences, ours, theirs = [], [], []
    thought = decisions = 0.0
    for deal in range(args.deals):
        diff_sum = 0.0
        for search_seat in range(PLAYERS):
            searcher = ismcts.ISMCTSBot(
                game, RoundRollout(args.seed * 1000 + deal * 10 + search_seat), args.uct,
                args.simulations, max_world_samples=args.worlds,
                random_state=np.random.RandomState(args.seed + deal * 10 + search_seat))
            totals, secs, n = play(game, searcher, search_seat, args.seed, deal)
            thought += secs
            decisions += n
            others = [t for s, t in enumerate(totals) if s != search_seat]
            ours.append(totals[search_seat])
            theirs.extend(others)
            diff_sum += totals[search_seat] - statistics.fmean(others)
            print(f"deal {deal} seat {search_seat}: ISMCTS {totals[search_seat]:+d}, "
                  f"hard {others}", flush=True)
        differences.append(diff_sum / PLAYERS)
    mean = statistics.fmean(differences)
    print(f"{args.deals} deals x {PLAYERS} seats = {len(ours)} games; ISMCTS "
          f"{args.simulations} simulations, {args.worlds} worlds, UCT c {args.uct:g}; "
          f"{thought / decisions:.2f} s a decision")
    print(f"mean score a game: ISMCTS {statistics.fmean(ours):.1f}, "
          f"hard {statistics.fmean(theirs):.1f}")
    if len(differences) > 1:
        half = t95(len(differences) - 1) * statistics.stdev(differences) / math.sqrt(
            len(differences))
        print(f"ISMCTS - hard: {mean:+.1f} points a game, 95% interval "
              f"[{mean - half:+.1f}, {mean + half:+.1f}] over {len(differences)} deals")
    else:
        print(f"ISMCTS - hard: {mean:+.1f} points a game (one deal: no interval)")


if __name__ == "__main__":
    main()
