"""Tournaments between bots: rotated seats, duplicate deals, worker processes, statistics.

Game *i* plays deal ``i // N`` with the line-up rotated by ``i % N`` seats (N players), so
that every N consecutive games replay the same dice with each bot in every seat; luck
largely cancels out. Results are gathered in game order whatever the number of workers,
so the same seed gives the same tournament.

The statistics treat the *deal* as the sample: the scores of one game are correlated (the
seats share the dice), and so are those of a deal's rotated replays, so the seat scores
are not independent. Every interval and standard error is computed over deals (a ratio
estimate clustered by deal, Student's t with deals - 1 degrees of freedom); differences
between two bots are paired on the same deals.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import secrets
import signal
import statistics
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import cache
from typing import Any

from minodice.bots.loading import load_bot_factory, make_bot
from minodice.bots.protocol import BotError
from minodice.bots.sandbox import close_spares
from minodice.core.dice import load_dice_set
from minodice.core.record import export_record
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, Variant
from minodice.core.state import GameConfig
from minodice.play.match import (
    GameResult,
    deal_rng,
    distinct_names,
    made_by_round,
    play_bot_game,
)


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

    >>> round(t95(2), 3), round(t95(31), 4), round(t95(10_000), 3)
    (4.303, 2.0395, 1.96)
    """
    return t_beyond(df, 0.05)


def t_beyond(df: int, tails: float) -> float:
    """The ``t`` that Student's t with ``df`` degrees of freedom passes (either way) with
    probability ``tails``: ``P(|T| > t) = tails``.

    Found by bisection on the t distribution's tail, ``P(|T| > t) = I(df/(df+t²); df/2, 1/2)``.

    >>> round(t_beyond(4, 0.4), 3), round(t_beyond(10_000, 0.4), 3)
    (0.941, 0.842)
    """
    low, high = 0.0, 1000.0
    for _ in range(200):
        mid = (low + high) / 2
        tail = _incomplete_beta(df / 2.0, 0.5, df / (df + mid * mid))
        if tail > tails:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def power_factor(df: int) -> float:
    """Standard errors between no difference and the smallest true one a two-sided test at
    5% finds 4 times in 5, when the standard error is estimated from ``df + 1`` deals:
    ``t(0.975) + t(0.80)`` of Student's t (2.80 for many deals, 3.72 for 5, 14.1 for 2).

    >>> round(power_factor(10_000), 2), round(power_factor(4), 2), round(power_factor(1), 2)
    (2.8, 3.72, 14.08)
    """
    return _t95_cached(df) + _t80_cached(df)


@cache
def _t80_cached(df: int) -> float:
    return t_beyond(df, 0.4)


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


@dataclass(frozen=True)
class Estimate:
    """A mean over deals: its standard error and 95% interval (None with fewer than 2
    deals), and the standard deviation of one deal of average size."""

    mean: float
    deals: int
    se: float | None
    ci95: tuple[float, float] | None
    sd: float | None


def estimate_over_deals(totals: Sequence[float], sizes: Sequence[float]) -> Estimate:
    """``sum(totals) / sum(sizes)``, with its spread measured between deals.

    ``totals[d]`` is what deal ``d`` added up (a bot's scores, say) over ``sizes[d]``
    samples (its seats in the deal's games). The standard error is the ratio estimator's,
    clustered by deal: ``sqrt(D / (D - 1) * sum((T_d - m * n_d)^2)) / sum(n_d)``; with
    equal sizes it is the standard deviation of the per-deal means over ``sqrt(D)``.

    >>> e = estimate_over_deals([190, 160], [3, 3])
    >>> round(e.mean, 3), e.se, e.ci95, round(e.sd, 3)
    (58.333, 5.0, (-5.198, 121.864), 7.071)
    """
    deals = len(totals)
    size = sum(sizes)
    mean = sum(totals) / size
    if deals < 2:
        return Estimate(mean, deals, None, None, None)
    spread = math.sqrt(deals / (deals - 1)
                       * sum((t - mean * n) ** 2 for t, n in zip(totals, sizes, strict=True)))
    se = spread / size
    half = _t95_cached(deals - 1) * se
    return Estimate(mean, deals, se, (round(mean - half, 3), round(mean + half, 3)),
                    se * math.sqrt(deals))


#: Two-sided 5% test with 80% power: z(0.975) + z(0.8).
_POWER_Z = 1.959964 + 0.841621


def games_needed(difference: float, sd_per_deal: float, players: int) -> int:
    """Games for a paired comparison to detect a true mean difference of ``difference``
    points per game with 80% power at the 5% level (two-sided), when one deal's difference
    varies with standard deviation ``sd_per_deal``: ``((1.96 + 0.84) * sd / difference)^2``
    deals (at least 2) of ``players`` games each.

    >>> games_needed(10.0, 40.0, 4)
    504
    """
    deals = max(2, math.ceil((_POWER_Z * sd_per_deal / difference) ** 2))
    return deals * players


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
    records: bool = False  # keep each game's record (RECORD.md) in its result
    options: RuleOptions = DEFAULT_RULE_OPTIONS  # R5's and R9's open points


@dataclass
class BotStats:
    """One bot's results (all its seats together). ``games`` counts seat-games; the
    interval and the standard error are over ``deals`` (None with fewer than 2)."""

    name: str
    games: int
    deals: int
    mean_score: float
    ci95: tuple[float, float] | None
    win_share: float
    win_share_se: float | None
    bid_success: float
    decision_ms_median: float
    decision_ms_p99: float

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name, "games": self.games, "deals": self.deals,
            "mean_score": round(self.mean_score, 3),
            "ci95": [self.ci95[0], self.ci95[1]] if self.ci95 else None,
            "win_share": round(self.win_share, 4),
            "win_share_se": round(self.win_share_se, 4) if self.win_share_se is not None
            else None,
            "bid_success": round(self.bid_success, 4),
            "decision_ms_median": round(self.decision_ms_median, 3),
            "decision_ms_p99": round(self.decision_ms_p99, 3),
        }


@dataclass
class PairStats:
    """Bot ``a``'s mean score per game minus bot ``b``'s, paired on the same deals.

    ``sd_per_deal`` is the standard deviation of one deal's difference (what
    :func:`games_needed` wants); ``detectable`` the smallest true difference this run finds
    with 80% power at the 5% level (:func:`power_factor` standard errors: 2.8 with many
    deals, more with few, whose standard error is itself uncertain).
    """

    a: str
    b: str
    deals: int
    mean_difference: float
    ci95: tuple[float, float] | None
    sd_per_deal: float | None
    detectable: float | None

    def to_json(self) -> dict[str, object]:
        return {
            "a": self.a, "b": self.b, "deals": self.deals,
            "mean_difference": round(self.mean_difference, 3),
            "ci95": [self.ci95[0], self.ci95[1]] if self.ci95 else None,
            "sd_per_deal": round(self.sd_per_deal, 3) if self.sd_per_deal is not None
            else None,
            "detectable": round(self.detectable, 3) if self.detectable is not None else None,
        }


def fresh_seed() -> int:
    """A new tournament seed: 63 random bits, too many for a bot to try them all and so
    rebuild the deals (every deal follows from the seed)."""
    return secrets.randbits(63)


def lineup(spec: TournamentSpec, index: int) -> list[str]:
    """The bots seat by seat in game ``index`` (rotated by ``index % players``)."""
    return rotated(list(spec.bots), index)


def rotated(seats: list[str], index: int) -> list[str]:
    """``seats`` (one per player, in --bots order) as game ``index`` seats them."""
    shift = index % len(seats)
    return seats[shift:] + seats[:shift]


def play_one(spec: TournamentSpec, index: int) -> GameResult:
    """Game ``index`` of the tournament (runs in a worker process)."""
    names = lineup(spec, index)
    deal = index // spec.players
    bots = [make_bot(name) for name in names]
    starter = deal_rng(spec.seed, deal, "starter", 0).randrange(spec.players)
    config = GameConfig(spec.players, load_dice_set(spec.dice_set), Variant(spec.variant),
                        starter, spec.options)
    try:
        state, times = play_bot_game(config, bots, names, spec.seed, deal,
                                     f"{spec.seed}:{index}", spec.time_limit)
    except BotError as exc:  # which game: --games and --seed play up to it again
        stopped = exc.in_game(index, spec.seed)
        stopped.game_so_far = None  # a worker sends the record, not the engine's state
        if spec.records and exc.game_so_far is not None:
            stopped.record = export_record(
                exc.game_so_far, rotated(distinct_names(list(spec.bots)), index),
                {"seed": spec.seed, "game": index + 1, "deal": deal + 1,
                 "stopped": str(stopped)})
        raise stopped from None
    made = made_by_round(state)
    record = None
    if spec.records:
        # A record's players are distinct (R1); the seed, game and deal say where in the
        # tournament it was played (the same seed plays it again).
        # two seats of one bot are told apart by their place in --bots, the same in
        # every game of the rotation ("easy (1)" was whoever sat first)
        record = export_record(state, rotated(distinct_names(list(spec.bots)), index),
                               {"seed": spec.seed, "game": index + 1, "deal": deal + 1})
    return GameResult(index, names, list(state.totals), state.winners(),
                      [sum(m) for m in made], [len(m) for m in made], times, made, record)


def _play_many(spec: TournamentSpec, indices: Sequence[int]) -> list[GameResult]:
    return [play_one(spec, i) for i in indices]


def run_games(
    spec: TournamentSpec,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    ray_address: str | None = None,
    on_record: Callable[[int, dict[str, Any]], None] | None = None,
) -> list[GameResult]:
    """Play every game of ``spec``, in ``workers`` processes; results in game order.

    With ``spec.records``, each game's record goes to ``on_record(index, record)`` as soon
    as its game is back (in the order games finish), and is not kept in the results: a
    long tournament's records are written as it goes, not held in memory to its end.

    Workers are started fresh (``spawn``): they inherit nothing of this process, such as
    its outside bots' processes. Processes kept ready for outside bots end with the run.
    With ``ray_address``, the games are Ray tasks on that cluster instead
    (:mod:`minodice.play.ray_runner`), with the same results.
    """
    try:
        if ray_address is not None:
            from minodice.play.ray_runner import run_games_on_ray

            for name in set(spec.bots):
                load_bot_factory(name)
            return run_games_on_ray(spec, ray_address, workers,
                                    _batches(spec, max(workers, 2)), _play_many, on_progress,
                                    lambda batch: _hand_over(batch, on_record))
        return _run_games(spec, workers, on_progress, on_record)
    finally:
        close_spares()


@contextlib.contextmanager
def _interrupts_to_this_process_only() -> Iterator[None]:
    """Worker processes started meanwhile ignore Ctrl-C (an ignored signal stays ignored
    in a child, and Python keeps it so): the terminal sends it to the whole process group,
    and each worker printed its own traceback, even while it was still starting up. This
    process alone is interrupted, and ends the workers itself.

    A Ctrl-C that comes meanwhile is not lost (the tournament then played to its end, 2
    runs in 20): the signal is blocked too, and Linux keeps a blocked signal pending even
    while it is ignored, so it arrives once the handler is back. That holds for a signal
    sent to this thread; one that the kernel hands to another thread of this process is
    dropped while ignored, so the command starts no thread of its own before (its
    progress bar draws without one). The threads and workers started meanwhile may keep
    it blocked: they ignore it either way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _hand_over(batch: list[GameResult],
               on_record: Callable[[int, dict[str, Any]], None] | None) -> list[GameResult]:
    """``batch`` without its records, each given to ``on_record`` first."""
    for result in batch:
        if result.record is not None and on_record is not None:
            on_record(result.index, result.record)
        result.record = None
    return batch


def _run_games(
    spec: TournamentSpec,
    workers: int,
    on_progress: Callable[[int], None] | None,
    on_record: Callable[[int, dict[str, Any]], None] | None,
) -> list[GameResult]:
    for name in set(spec.bots):
        load_bot_factory(name)  # fail early, in the parent, with the bot's name
    indices = list(range(spec.games))
    results: list[GameResult] = []
    if workers <= 1:
        for i in indices:
            results.append(_hand_over([play_one(spec, i)], on_record)[0])
            if on_progress:
                on_progress(len(results))
        return results
    batches = _batches(spec, workers)
    # Ended by Ctrl-C, the pool leaves its semaphores to multiprocessing's resource
    # tracker, a process of its own started with the pool, which then warned of them:
    # three lines of noise after "interrupted" (it is told its warnings as command options).
    if _TRACKER_QUIET not in sys.warnoptions:
        sys.warnoptions.append(_TRACKER_QUIET)
    with ProcessPoolExecutor(max_workers=workers,
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        pending: set[Future[list[GameResult]]] = set()
        try:
            # (inside the try: a Ctrl-C kept for the end of the workers' start ends them
            # too, instead of leaving the pool's exit to wait for every batch)
            with _interrupts_to_this_process_only():
                pending = {pool.submit(_play_many, spec, batch) for batch in batches}
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    results.extend(_hand_over(future.result(), on_record))
                if on_progress:
                    on_progress(len(results))
        except BrokenProcessPool:
            for future in pending:
                future.cancel()
            raise BotError("a worker process died during the tournament; one of the bots "
                           f"({', '.join(sorted(set(spec.bots)))}) may have ended or crashed "
                           "the interpreter (run with --workers 1 to find which)") from None
        except BaseException:
            # Ctrl-C (or a bot's error) ends the run now: the workers ignore Ctrl-C and
            # would finish their batches first, the interpreter waiting for them. (Their
            # futures are left to the pool, which fails them as its workers end: one
            # cancelled here made its thread raise InvalidStateError, in Python 3.11.)
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            pool.shutdown(wait=False)
            raise
    results.sort(key=lambda r: r.index)
    return results


_TRACKER_QUIET = "ignore:resource_tracker:UserWarning"


def _batches(spec: TournamentSpec, workers: int) -> list[list[int]]:
    """The games in batches of up to 8, about 8 batches a worker (fewer for few games)."""
    indices = list(range(spec.games))
    chunk = max(1, min(8, spec.games // (workers * 8) or 1))
    return [indices[i:i + chunk] for i in range(0, len(indices), chunk)]


@dataclass
class _DealTally:
    """What one bot gathered in one deal."""

    seats: int = 0
    score: float = 0.0
    wins: float = 0.0


def _by_deal(results: Sequence[GameResult]) -> tuple[list[str], dict[int, dict[str, _DealTally]],
                                                     dict[int, int]]:
    """Bot names in order of appearance; per deal, each bot's tally; games per deal."""
    order: list[str] = []
    deals: dict[int, dict[str, _DealTally]] = {}
    games: dict[int, int] = {}
    for result in results:
        deal = result.index // len(result.seat_bots)
        games[deal] = games.get(deal, 0) + 1
        tallies = deals.setdefault(deal, {})
        for seat, name in enumerate(result.seat_bots):
            if name not in order:
                order.append(name)
            tally = tallies.setdefault(name, _DealTally())
            tally.seats += 1
            tally.score += result.totals[seat]
            if seat in result.winners:
                tally.wins += 1 / len(result.winners)
    return order, deals, games


def summarize_games(results: Sequence[GameResult]) -> list[BotStats]:
    """Per bot name (all its seats together): score, interval, wins, bids, decision times.

    Means are per seat-game; intervals and standard errors are over deals (see the module
    docstring).
    """
    order, deals, _ = _by_deal(results)
    made: dict[str, int] = dict.fromkeys(order, 0)
    bids: dict[str, int] = dict.fromkeys(order, 0)
    times: dict[str, list[float]] = {name: [] for name in order}
    for result in results:
        for seat, name in enumerate(result.seat_bots):
            made[name] += result.bids_made[seat]
            bids[name] += result.bids[seat]
            if result.decision_seconds:
                times[name].extend(result.decision_seconds[seat])
    stats = []
    for name in order:
        tallies = [d[name] for d in deals.values() if name in d]
        seats = [t.seats for t in tallies]
        score = estimate_over_deals([t.score for t in tallies], seats)
        wins = estimate_over_deals([t.wins for t in tallies], seats)
        ms = [t * 1000 for t in times[name]] or [0.0]
        stats.append(BotStats(
            name, sum(seats), len(tallies), score.mean, score.ci95, wins.mean, wins.se,
            made[name] / bids[name] if bids[name] else 0.0,
            statistics.median(ms), percentile(ms, 0.99)))
    return stats


def paired_differences(results: Sequence[GameResult]) -> list[PairStats]:
    """For every two bots (in order of appearance), ``a``'s mean score minus ``b``'s,
    paired deal by deal: each deal's difference of the two bots' mean scores in it,
    weighted by the deal's games (so that the mean is the difference of the means)."""
    order, deals, games = _by_deal(results)
    pairs = []
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            both = [d for d, t in deals.items() if a in t and b in t]
            weights = [float(games[d]) for d in both]
            totals = [games[d] * (deals[d][a].score / deals[d][a].seats
                                  - deals[d][b].score / deals[d][b].seats) for d in both]
            e = estimate_over_deals(totals, weights)
            pairs.append(PairStats(a, b, e.deals, e.mean, e.ci95,
                                   None if e.sd is None else e.sd,
                                   None if e.se is None
                                   else power_factor(e.deals - 1) * e.se))
    return pairs
