"""The page's bid advisor: does the same question get the same best bid, and at what cost?

A tabletop tester asked ``/odds`` the same question again and again and was told another
best bid 1 time in 4 where two bids were close: the page's advisor simulated a third of
what it does now. For a few hands (the tester's, and random ones), each budget answers the
same question ``--asks`` times with different seeds; the reference is the command line's
advisor with ``--reference`` simulated rounds per bid. Printed per budget: how often the
best bid named is the reference's, and the CPU time per answer, with its ratio to the
old budget's measured in the same run (this machine is shared: only ratios travel).

Run: ``python benchmarks/web_advice.py [--asks 20] [--reference 4000]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from minodice.bots.advisor import advise
from minodice.core.dice import load_dice_set
from minodice.server.botpool import WEB_ADVICE_BUDGET, WEB_ADVICE_MAX_SAMPLES

OLD_BUDGET, OLD_MAX_SAMPLES = 8000, 300  # the page's advisor until 2026-12-03

# (players, seat, hand, edition, variant): the tester's three questions first
QUESTIONS = [
    (6, 3, "pirate,mermaid,black,blue,red,yellow", "skull-king", "simplified"),
    (4, 2, "red,red,griffin,gray,purple", "mino", "standard"),
    (4, 2, "gray,gray,gray,gray,gray,gray,gray,gray", "mino", "standard"),
]


def random_questions(count: int, seed: int) -> list[tuple[int, int, str, str, str]]:
    rng = random.Random(seed)
    kinds = [k.name for k in load_dice_set("mino").kinds for _ in range(k.count)]
    questions = []
    for _ in range(count):
        players = rng.choice([3, 4, 5])
        round_no = rng.randint(1, 7)
        questions.append((players, rng.randrange(players),
                          ",".join(rng.sample(kinds, round_no)), "mino", "standard"))
    return questions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--asks", type=int, default=20)
    parser.add_argument("--reference", type=int, default=4000)
    parser.add_argument("--random", type=int, default=5, help="random questions added")
    parser.add_argument("--seed", type=int, default=20261203)
    args = parser.parse_args()
    budgets = {"old": (OLD_BUDGET, OLD_MAX_SAMPLES), "now": (WEB_ADVICE_BUDGET,
                                                              WEB_ADVICE_MAX_SAMPLES)}
    agree = dict.fromkeys(budgets, 0)
    times: dict[str, list[float]] = {name: [] for name in budgets}
    asked = 0
    for players, seat, hand, edition, variant in QUESTIONS + random_questions(args.random,
                                                                              args.seed):
        round_no = hand.count(",") + 1
        best = advise(players, round_no, seat, hand, edition, variant,
                      samples=args.reference, seed=0).best_bid
        line = [f"{players}p r{round_no} seat {seat} {hand[:40]:40} best {best}:"]
        for name, (budget, most) in budgets.items():
            named = 0
            for ask in range(args.asks):
                start = time.process_time()
                answer = advise(players, round_no, seat, hand, edition, variant,
                                budget=budget, max_samples=most, seed=1000 + ask)
                times[name].append(time.process_time() - start)
                named += answer.best_bid == best
            agree[name] += named
            line.append(f"{name} {named}/{args.asks}")
        asked += args.asks
        print(" ".join(line), flush=True)
    old_ms = statistics.median(times["old"]) * 1000
    for name in budgets:
        ms = statistics.median(times[name]) * 1000
        print(f"{name}: the reference's best bid {agree[name]}/{asked} "
              f"({agree[name] / asked:.0%}); CPU per answer median {ms:.0f} ms, "
              f"{ms / old_ms:.2f} x old")


if __name__ == "__main__":
    main()
