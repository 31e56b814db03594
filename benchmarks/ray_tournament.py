"""Tournament games per second: worker processes against Ray tasks, 1 and 2 of each.

The same tournament (same bots, same seed) four ways: ``--workers 1`` and ``--workers 2``
(this machine's process pool) and Ray with 1 and 2 CPUs (a local Ray instance, as
``--ray local`` starts it). Ray's start-up is timed apart from the games; every run's
results are checked to be the same games.

Run: ``python benchmarks/ray_tournament.py [--games 64 --bots medium,medium,easy,random]``
(needs the research extra).
"""

from __future__ import annotations

import argparse
import logging
import time

import ray

from minodice.play.match import GameResult
from minodice.play.tournament import TournamentSpec, run_games


def same_games(results: list[GameResult]) -> list[tuple[object, ...]]:
    return [(r.index, r.seat_bots, r.totals, r.bids) for r in results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--bots", default="medium,medium,easy,random")
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    bots = tuple(args.bots.split(","))
    spec = TournamentSpec(len(bots), bots, args.games, args.seed)
    rows: list[tuple[str, float, float]] = []
    reference: list[tuple[object, ...]] | None = None
    for workers in (1, 2):
        start = time.perf_counter()
        results = run_games(spec, workers)
        rows.append((f"--workers {workers}", 0.0, time.perf_counter() - start))
        reference = reference or same_games(results)
        assert same_games(results) == reference
    for cpus in (1, 2):
        start = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.ERROR, _node_ip_address="127.0.0.1")
        up = time.perf_counter() - start
        start = time.perf_counter()
        results = run_games(spec, cpus, ray_address="auto")
        rows.append((f"--ray local --workers {cpus} (Ray, {cpus} CPU)", up,
                     time.perf_counter() - start))
        ray.shutdown()
        assert same_games(results) == reference
    print(f"{args.games} games of {', '.join(bots)}, seed {args.seed}; the same games every way")
    print(f"{'':<40} {'start-up s':>10} {'games s':>8} {'games/s':>8}")
    for label, up, secs in rows:
        print(f"{label:<40} {up:>10.1f} {secs:>8.1f} {args.games / secs:>8.2f}")


if __name__ == "__main__":
    main()
