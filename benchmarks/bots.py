"""Bot strength and speed: the targets of the bots issue, measured by real tournaments.

- ``hard`` against three ``easy`` (4 players): win share (parity 0.25, target >= 0.45),
  and hard's mean score minus easy's, paired on the same deals, with its 95% interval;
- ``easy`` against three ``random``: win share (target >= 0.80);
- ``medium`` against three ``easy``, for the ladder;
- ``hard``'s decision time on one core: median (target <= 100 ms) and p99 (<= 1 s), taken
  from a single-worker run so that no other game shares its core;
- the share of bids ``hard`` makes, by round number (aim >= 60%).

Every interval and standard error is over deals (a deal and its rotated replays are one
sample), and for each comparison the script prints how many games a given difference
needs (80% power, 5% two-sided), from the measured per-deal standard deviation.

Seeds are fresh unless ``--seed`` is given (and printed either way): figures measured on a
seed used while tuning a bot flatter it.

Run: ``python benchmarks/bots.py [--games 2000] [--workers 2] [--timing-games 30]``.
:func:`play_games` and :func:`by_round` serve ``benchmarks/expert.py`` too.
Decision times from multi-worker runs are shown too, but the single-worker figures are the
ones to compare with the targets.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import secrets
import statistics
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path

from minodice.cli.reports import render_tournament
from minodice.play.match import GameResult
from minodice.play.tournament import (
    PairStats,
    TournamentSpec,
    games_needed,
    paired_differences,
    percentile,
    play_one,
    summarize_games,
)

SAVED: dict[str, object] = {}


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


def play_games(label: str, spec: TournamentSpec, workers: int,
               save: Path | None = None) -> list[GameResult]:
    """Play ``spec``'s games in ``workers`` processes (results in game order), printing
    progress; with ``save``, each finished game is appended to it (JSON lines, without
    its record) at once, so that a run stopped early keeps what it played."""
    start = time.perf_counter()
    results: list[GameResult] = []
    out = save.open("a", encoding="utf-8") if save is not None else None
    try:
        with ProcessPoolExecutor(max_workers=workers,
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(play_one, spec, i) for i in range(spec.games)]
            for n, future in enumerate(as_completed(futures), start=1):
                result = future.result()
                results.append(result)
                if out is not None:
                    row = {k: v for k, v in asdict(result).items() if k != "record"}
                    out.write(json.dumps({"label": label, "seed": spec.seed, **row}) + "\n")
                    out.flush()
                if n % max(1, spec.games // 20) == 0 or n == spec.games:
                    print(f"  {label}: {n}/{spec.games} games, "
                          f"{time.perf_counter() - start:.0f} s", flush=True)
    finally:
        if out is not None:
            out.close()
    results.sort(key=lambda r: r.index)
    print(f"{label}: {time.perf_counter() - start:.0f} s with {workers} worker(s)")
    return results


def run(label: str, spec: TournamentSpec, workers: int) -> list[GameResult]:
    results = play_games(label, spec, workers)
    print(render_tournament(summarize_games(results), spec.games, spec.players,
                            paired_differences(results), spec.seed))
    print()
    SAVED[label] = {"spec": asdict(spec), "games": [
        {k: v for k, v in asdict(r).items() if k != "record"} for r in results]}
    return results


def pair(results: list[GameResult], a: str, b: str) -> PairStats:
    return next(p for p in paired_differences(results) if (p.a, p.b) == (a, b))


def report_pair(p: PairStats, players: int) -> None:
    """The paired difference, and the games a smaller one would need."""
    assert p.ci95 is not None
    assert p.sd_per_deal is not None
    print(f"{p.a} - {p.b}: {p.mean_difference:+.1f} points per game, 95% [{p.ci95[0]:+.1f}, "
          f"{p.ci95[1]:+.1f}] over {p.deals} deals; per-deal sd {p.sd_per_deal:.1f}")
    needs = ", ".join(f"{d:g} points: {games_needed(d, p.sd_per_deal, players):,} games"
                      for d in (2, 5, 10, 20))
    print(f"  games to detect a true difference (80% power, 5% two-sided): {needs}")


def main() -> None:
    parser = argparse.ArgumentParser(description="bot strength and speed benchmark")
    parser.add_argument("--games", type=int, default=2000, help="games of hard vs 3 easy")
    parser.add_argument("--easy-games", type=int, default=2000, help="games of easy vs 3 random")
    parser.add_argument("--timing-games", type=int, default=30,
                        help="single-worker games of hard vs 3 easy for decision times")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None,
                        help="first seed (default: a fresh one); the runs use seed, seed+1, ...")
    parser.add_argument("--skip-strength", action="store_true",
                        help="only the single-worker timing run")
    parser.add_argument("--save", type=Path, default=None,
                        help="write every game's result (JSON) here, to recompute figures")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = secrets.randbelow(10**9)
    print(f"seeds {args.seed} to {args.seed + 3} (repeat with --seed {args.seed})")
    print()
    try:
        measure(args)
    finally:
        if args.save is not None:
            args.save.write_text(json.dumps(SAVED), encoding="utf-8")


def measure(args: argparse.Namespace) -> None:

    timing = run("timing (1 worker)",
                 TournamentSpec(4, ("hard", "easy", "easy", "easy"), args.timing_games,
                                args.seed + 3), 1)
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
    print(f"easy win share vs 3 random: {easy_stats.win_share:.3f} ± {easy_stats.win_share_se:.3f} "
          "(target >= 0.80)")
    report_pair(pair(easy, "easy", "random"), 4)
    print()

    medium = run("medium vs 3 easy",
                 TournamentSpec(4, ("medium", "easy", "easy", "easy"), args.easy_games,
                                args.seed + 1), args.workers)
    m = summarize_games(medium)[0]
    print(f"medium win share vs 3 easy: {m.win_share:.3f} ± {m.win_share_se:.3f} (parity 0.25)")
    report_pair(pair(medium, "medium", "easy"), 4)
    print()

    hard = run("hard vs 3 easy",
               TournamentSpec(4, ("hard", "easy", "easy", "easy"), args.games,
                              args.seed + 2), args.workers)
    h = {s.name: s for s in summarize_games(hard)}["hard"]
    print(f"hard win share vs 3 easy: {h.win_share:.3f} ± {h.win_share_se:.3f} "
          "(target >= 0.45; parity 0.25)")
    hard_easy = pair(hard, "hard", "easy")
    report_pair(hard_easy, 4)
    assert hard_easy.ci95 is not None
    print(f"hard above easy on the same deals: {hard_easy.ci95[0] > 0}")
    print(f"hard bids made: {h.bid_success:.1%} overall (aim >= 60%)")
    for r, (made, n) in enumerate(by_round(hard, "hard")):
        print(f"  round {r + 1}: {made / n:.1%} of {n}")


if __name__ == "__main__":
    main()
