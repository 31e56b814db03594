"""The game analysis's mistakes: are the ones it reports with few worlds real?

The analysis screens every choice of a decision in the same sampled worlds and calls the
best of them the best choice. With few worlds (the server's 60) and several near-equal
choices, that best is partly luck. Since 2026-12-03 a choice ranked below another is
weighed again against it on fresh worlds (``bots/analysis.py``, the second look), and a
mistake must also be significant.

This plays seeded games (``--lineup``, default ``hard,medium,easy``), analyses each at
``--samples`` worlds a choice (default 60), and for every decision that either rule calls
a mistake weighs the two choices again with ``--reference`` worlds (default 1,000, another
seed) on the screening's paired worlds: a mistake *holds* if the choice named best still
scores more than 2 points above the choice made, *reverses* if it scores less. The old rule
is the screening alone (loss > 2 points); the new rule is the analysis as shipped.

Run: ``python benchmarks/analysis.py [--games 3] [--seed 20261203]``.
"""

from __future__ import annotations

import argparse
import random
import time

from minodice.bots.analysis import NOISE_POINTS, Decision, analyse_game
from minodice.bots.loading import make_bot
from minodice.core.state import GameState, decision_seats
from minodice.core.view import view


def play(lineup: list[str], seed: int) -> GameState:
    rng = random.Random(seed)
    state = GameState.new(players=len(lineup), first_starter=rng.randrange(len(lineup)))
    bots = [make_bot(name) for name in lineup]
    for seat in decision_seats(state, rng):
        action = bots[seat].act(view(state, seat), state.legal_actions(seat), rng)
        state.apply(action, seat=seat)
    return state


def screening_best(d: Decision) -> str:
    return max(d.options, key=lambda o: o.expected_score).choice


def screening_loss(d: Decision) -> float:
    values = {o.choice: o.expected_score for o in d.options}
    return values[screening_best(d)] - values[d.chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lineup", default="hard,medium,easy")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--samples", type=int, default=60)
    parser.add_argument("--reference", type=int, default=1000)
    args = parser.parse_args()
    lineup = args.lineup.split(",")
    names = [f"{name}{seat}" for seat, name in enumerate(lineup)]
    tally = {rule: {"called": 0, "hold": 0, "reverse": 0, "between": 0}
             for rule in ("screening alone", "with the second look")}
    started = time.process_time()
    for game in range(args.games):
        state = play(lineup, args.seed + game)
        quick = analyse_game(state, names, seed=args.seed, samples=args.samples)
        for d in quick.decisions:
            called = {"screening alone": (screening_loss(d) > NOISE_POINTS, screening_best(d)),
                      "with the second look": (d.mistake, d.best)}
            if not any(flag for flag, _best in called.values()):
                continue

            def this_one(r: int, t: int | None, _i: int, seat: int, d: Decision = d) -> bool:
                return (r, t, seat) == (d.round_no, d.trick, d.seat)

            (again,) = analyse_game(state, names, seed=args.seed + 1, samples=args.reference,
                                    only=this_one).decisions
            values = {o.choice: o.expected_score for o in again.options}
            for rule, (flag, best) in called.items():
                if not flag:
                    continue
                count = tally[rule]
                count["called"] += 1
                loss = values[best] - values[d.chosen]
                count["hold" if loss > NOISE_POINTS else "reverse" if loss < 0 else "between"] += 1
    print(f"{args.games} games of {', '.join(lineup)} (seed {args.seed}), analysed at "
          f"{args.samples} worlds a choice; mistakes weighed again at {args.reference}")
    print(f"{'rule':<22} {'mistakes':>8} {'hold':>6} {'0 to 2':>7} {'reverse':>8}")
    for rule, count in tally.items():
        print(f"{rule:<22} {count['called']:>8} {count['hold']:>6} {count['between']:>7} "
              f"{count['reverse']:>8}")
    print(f"(hold: still more than {NOISE_POINTS:g} points lost; reverse: the choice made "
          f"scores more; CPU {time.process_time() - started:.0f} s)")


if __name__ == "__main__":
    main()
