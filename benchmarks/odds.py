"""The odds page's answers: how long the advisor and the trick odds take, per table size.

The page asks the server (``POST /api/advise``, ``POST /api/odds/trick``), which runs the
same functions in a worker process; this measures those functions themselves, for every
player count and round, on random hands, with the page's budget. The reference, measured
in the same run, is the command line's advisor on a 4-player round-8 hand (the README's
figure), so that the ratios hold on a busy machine too.

Run: ``python benchmarks/odds.py [--hands 5] [--seed 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from minodice.bots.advisor import advise
from minodice.core.dice import load_dice_set
from minodice.core.rules import rounds_for
from minodice.server.botpool import advice_json, trick_odds_json


def timed(fn: object, *args: object) -> float:
    start = time.perf_counter()
    fn(*args)  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=5, help="random hands per setting")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ds = load_dice_set("mino")
    bag = [k.name for k in ds.kinds for _ in range(k.count)]

    reference = statistics.median(
        timed(advise, 4, 8, rng.randrange(4), ",".join(rng.sample(bag, 8)), "mino",
              "standard", None, rng.randrange(10**9)) for _ in range(args.hands))
    print(f"reference: minodice advise, 4 players, round 8 (command line budget): "
          f"median {reference:.1f} ms")
    print()
    print("bid advice for the page (POST /api/advise): median and worst of "
          f"{args.hands} random hands, ms (ratio to the reference)")
    print("players  " + "  ".join(f"round {r:<9}" for r in range(1, 9)))
    worst_all = 0.0
    six_six = (0.0, 0.0)
    for players in (3, 4, 5, 6):
        cells = []
        for r in range(1, rounds_for(players) + 1):
            times = [timed(advice_json, players, r, rng.randrange(players),
                           ",".join(rng.sample(bag, r)), "mino", "standard")
                     for _ in range(args.hands)]
            med, worst = statistics.median(times), max(times)
            worst_all = max(worst_all, worst)
            if (players, r) == (6, 6):
                six_six = (med, worst)
            cells.append(f"{med:5.0f}/{worst:<4.0f}({med / reference:3.1f}x)")
        print(f"{players:<7}  " + "  ".join(cells))
    print(f"6 players, round 6: median {six_six[0]:.0f} ms, worst {six_six[1]:.0f} ms; "
          f"worst of all settings {worst_all:.0f} ms (target <= 100 ms)")
    print()
    print("trick odds (POST /api/odds/trick), 1,000 simulated tricks: ms")
    for players in (3, 4, 6):
        for hand_size, rolled in ((1, 0), (4, 1), (6, players - 1)):
            if rolled >= players:
                continue
            times = []
            for _ in range(args.hands):
                picks = rng.sample(bag, hand_size + rolled)
                hand, others = picks[:hand_size], picks[hand_size:]
                trick = [(k, ds.kind(k).faces[rng.randrange(6)].record_value) for k in others]
                times.append(timed(trick_odds_json, players, hand, trick, "mino"))
            print(f"  {players} players, {hand_size} dice in hand, {rolled} rolled before: "
                  f"median {statistics.median(times):.0f} ms, worst {max(times):.0f} ms "
                  f"({statistics.median(times) / reference:.1f}x)")


if __name__ == "__main__":
    main()
