"""Bot strength and speed: the targets of the bots issue, measured by real tournaments.

- ``hard`` against three ``easy`` (4 players): win share (parity 0.25, target >= 0.45),
  mean scores with their 95% intervals (target: apart, hard's above);
- ``easy`` against three ``random``: win share (target >= 0.80);
- ``medium`` against three ``easy``, for the ladder;
- ``hard``'s decision time on one core: median (target <= 100 ms) and p99 (<= 1 s), taken
  from a single-worker run so that no other game shares its core;
- the share of bids ``hard`` makes, by round number (aim >= 60% overall).

Run: ``python benchmarks/bots.py [--games 2000] [--workers 2] [--timing-games 30]``.
Decision times from multi-worker runs are shown too, but the single-worker figures are the
ones to compare with the targets.
"""

from __future__ import annotations

import argparse
import statistics
import time

from minodice.play.match import GameResult
from minodice.play.tournament import TournamentSpec, percentile, run_games, summarize_games
from minodice.text.tables import render_tournament


def by_round(results: list[GameResult], bot: str) -> list[tuple[int, int]]:
    """(made, bids) per round number for every seat ``bot`` sat in."""
    table: list[tuple[int, int]] = []
    for result in results:
        for seat, name in enumerate(result.seat_bots):
            if name != bot:
                continue
            for r, made in enumerate(result.made_by_round[seat]):
                while len(table) <= r:
                    table.append((0, 0))
                m, n = table[r]
                table[r] = (m + int(made), n + 1)
    return table


def run(label: str, spec: TournamentSpec, workers: int) -> list[GameResult]:
    start = time.perf_counter()
    done = [0]

    def progress(n: int) -> None:
        if n - done[0] >= max(1, spec.games // 20) or n == spec.games:
            done[0] = n
            print(f"  {label}: {n}/{spec.games} games, {time.perf_counter() - start:.0f} s",
                  flush=True)

    results = run_games(spec, workers, progress)
    print(f"{label}: {time.perf_counter() - start:.0f} s with {workers} worker(s)")
    print(render_tournament(summarize_games(results), spec.games, spec.players))
    print()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description="bot strength and speed benchmark")
    parser.add_argument("--games", type=int, default=2000, help="games of hard vs 3 easy")
    parser.add_argument("--easy-games", type=int, default=2000, help="games of easy vs 3 random")
    parser.add_argument("--timing-games", type=int, default=30,
                        help="single-worker games of hard vs 3 easy for decision times")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--skip-strength", action="store_true",
                        help="only the single-worker timing run")
    args = parser.parse_args()

    timing = run("timing (1 worker)",
                 TournamentSpec(4, ("hard", "easy", "easy", "easy"), args.timing_games,
                                args.seed + 1), 1)
    hard_ms = [t * 1000 for r in timing for s, name in enumerate(r.seat_bots)
               if name == "hard" for t in r.decision_seconds[s]]
    print(f"hard decision time, one core: median {statistics.median(hard_ms):.1f} ms "
          f"(target <= 100), p99 {percentile(hard_ms, 0.99):.1f} ms (target <= 1000), "
          f"max {max(hard_ms):.1f} ms over {len(hard_ms)} decisions")
    print()
    if args.skip_strength:
        return

    easy = run("easy vs 3 random",
               TournamentSpec(4, ("easy", "random", "random", "random"), args.easy_games,
                              args.seed), args.workers)
    easy_stats = summarize_games(easy)[0]
    print(f"easy win share vs 3 random: {easy_stats.win_share:.3f} (target >= 0.80)")
    print()

    medium = run("medium vs 3 easy",
                 TournamentSpec(4, ("medium", "easy", "easy", "easy"), args.easy_games,
                                args.seed), args.workers)
    print(f"medium win share vs 3 easy: {summarize_games(medium)[0].win_share:.3f} "
          "(parity 0.25)")
    print()

    hard = run("hard vs 3 easy",
               TournamentSpec(4, ("hard", "easy", "easy", "easy"), args.games, args.seed),
               args.workers)
    stats = {s.name: s for s in summarize_games(hard)}
    h, e = stats["hard"], stats["easy"]
    apart = h.ci95[0] > e.ci95[1]
    print(f"hard win share vs 3 easy: {h.win_share:.3f} (target >= 0.45; parity 0.25)")
    print(f"mean score hard {h.mean_score:.1f} {list(h.ci95)} vs easy {e.mean_score:.1f} "
          f"{list(e.ci95)}: intervals apart, hard above: {apart}")
    print(f"hard bids made: {h.bid_success:.1%} overall (aim >= 60%)")
    for r, (made, n) in enumerate(by_round(hard, "hard")):
        print(f"  round {r + 1}: {made / n:.1%} of {n}")


if __name__ == "__main__":
    main()
