"""Tournaments between bots: rotated seats, duplicate deals, worker processes, statistics.

Game *i* plays deal ``i // N`` with the line-up rotated by ``i % N`` seats (N players), so
that every N consecutive games replay the same dice with each bot in every seat; luck
largely cancels out. Results are gathered in game order whatever the number of workers,
so the same seed gives the same tournament.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import cache

from minodice.bots.protocol import BotError, load_bot_factory, make_bot
from minodice.core.dice import load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import GameConfig
from minodice.play.match import GameResult, deal_rng, made_by_round, play_bot_game


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom.

    Found by bisection on the t distribution's tail, ``P(|T| > t) = I(df/(df+t²); df/2, 1/2)``.

    >>> round(t95(2), 3), round(t95(31), 4), round(t95(10_000), 3)
    (4.303, 2.0395, 1.96)
    """
    low, high = 0.0, 1000.0
    for _ in range(200):
        mid = (low + high) / 2
        tail = _incomplete_beta(df / 2.0, 0.5, df / (df + mid * mid))
        if tail > 0.05:
            low = mid
        else:
            high = mid
    return (low + high) / 2


@cache
def _t95_cached(df: int) -> float:
    return t95(df)


def mean_ci95(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95% confidence interval (Student's t; a point for fewer than 2 values).

    >>> mean_ci95([10, 20, 30])
    (20.0, -4.841, 44.841)
    >>> mean_ci95([5.0])
    (5.0, 5.0, 5.0)
    """
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = _t95_cached(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, round(mean - half, 3), round(mean + half, 3)


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-quantile (``q`` in 0..1) of ``values``."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class TournamentSpec:
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    dice_set: str = "mino"
    variant: str = "standard"
    time_limit: float | None = 10.0


@dataclass
class BotStats:
    name: str
    games: int
    mean_score: float
    ci95: tuple[float, float]
    win_share: float
    bid_success: float
    decision_ms_median: float
    decision_ms_p99: float

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name, "games": self.games, "mean_score": round(self.mean_score, 3),
            "ci95": [self.ci95[0], self.ci95[1]], "win_share": round(self.win_share, 4),
            "bid_success": round(self.bid_success, 4),
            "decision_ms_median": round(self.decision_ms_median, 3),
            "decision_ms_p99": round(self.decision_ms_p99, 3),
        }


def lineup(spec: TournamentSpec, index: int) -> list[str]:
    """The bots seat by seat in game ``index`` (rotated by ``index % players``)."""
    shift = index % spec.players
    bots = list(spec.bots)
    return bots[shift:] + bots[:shift]


def play_one(spec: TournamentSpec, index: int) -> GameResult:
    """Game ``index`` of the tournament (runs in a worker process)."""
    names = lineup(spec, index)
    deal = index // spec.players
    bots = [make_bot(name) for name in names]
    starter = deal_rng(spec.seed, deal, "starter", 0).randrange(spec.players)
    config = GameConfig(spec.players, load_dice_set(spec.dice_set), Variant(spec.variant),
                        starter)
    state, times = play_bot_game(config, bots, names, spec.seed, deal,
                                 f"{spec.seed}:{index}", spec.time_limit)
    made = made_by_round(state)
    return GameResult(index, names, list(state.totals), state.winners(),
                      [sum(m) for m in made], [len(m) for m in made], times, made)


def _play_many(spec: TournamentSpec, indices: Sequence[int]) -> list[GameResult]:
    return [play_one(spec, i) for i in indices]


def run_games(
    spec: TournamentSpec,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> list[GameResult]:
    """Play every game of ``spec``, in ``workers`` processes; results in game order."""
    for name in set(spec.bots):
        load_bot_factory(name)  # fail early, in the parent, with the bot's name
    indices = list(range(spec.games))
    results: list[GameResult] = []
    if workers <= 1:
        for i in indices:
            results.append(play_one(spec, i))
            if on_progress:
                on_progress(len(results))
        return results
    chunk = max(1, min(8, spec.games // (workers * 8) or 1))
    batches = [indices[i:i + chunk] for i in range(0, len(indices), chunk)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future[list[GameResult]]] = {
            pool.submit(_play_many, spec, batch) for batch in batches}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    results.extend(future.result())
                if on_progress:
                    on_progress(len(results))
        except BrokenProcessPool:
            for future in pending:
                future.cancel()
            raise BotError("a worker process died during the tournament; one of the bots "
                           f"({', '.join(sorted(set(spec.bots)))}) may have ended or crashed "
                           "the interpreter (run with --workers 1 to find which)") from None
        except BaseException:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    results.sort(key=lambda r: r.index)
    return results


def summarize_games(results: Sequence[GameResult]) -> list[BotStats]:
    """Per bot name (all its seats together): score, interval, wins, bids, decision times."""
    scores: dict[str, list[float]] = {}
    wins: dict[str, float] = {}
    made: dict[str, int] = {}
    bids: dict[str, int] = {}
    times: dict[str, list[float]] = {}
    order: list[str] = []
    for result in results:
        for seat, name in enumerate(result.seat_bots):
            if name not in scores:
                order.append(name)
                scores[name], times[name] = [], []
                wins[name], made[name], bids[name] = 0.0, 0, 0
            scores[name].append(result.totals[seat])
            if seat in result.winners:
                wins[name] += 1 / len(result.winners)
            made[name] += result.bids_made[seat]
            bids[name] += result.bids[seat]
            if result.decision_seconds:
                times[name].extend(result.decision_seconds[seat])
    stats = []
    for name in order:
        mean, low, high = mean_ci95(scores[name])
        ms = [t * 1000 for t in times[name]] or [0.0]
        stats.append(BotStats(
            name, len(scores[name]), mean, (low, high), wins[name] / len(scores[name]),
            made[name] / bids[name] if bids[name] else 0.0,
            statistics.median(ms), percentile(ms, 0.99)))
    return stats
