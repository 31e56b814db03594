"""Which changes to the expert help? Variants of it at one table, on duplicate deals.

Each idea for the expert (more worlds, the standings off, no spite, ...) is a variant: the
expert with some constructor arguments changed. Up to four variants (or ``hard``) sit at
one table; every deal is played once per rotation of the seats, so each variant holds
every hand of the deal once, and the differences between variants are paired deal by deal
(a deal and its rotated replays are one sample). One four-game deal thus compares four
bots at the cost that separate matches against three ``hard`` would spend on one of them.
The table is not three ``hard``: it chooses among variants; the figures against three
``hard`` come from ``benchmarks/expert.py`` on fresh seeds.

Besides score, win share and the paired differences it gives each variant's bids made by
round, beside the chance its own play-outs gave of making each bid it chose
(``SearchBot.last_bid_forecast``), and its CPU time per decision (this process's CPU
seconds, so a busy machine slows the run, not the figures). Every budget is a number of
worlds, never a time, so the load changes how many games finish, not their results.

Run: ``nice -n 19 python benchmarks/expert_variants.py --lineup expert,worlds,noend,hard
--variant worlds=play_budget=12000,bid_budget=42000 --variant noend=endgame_rounds=0
--deals 20 --workers 2 --save FILE``; ``--report FILE`` gives the figures of the whole
deals saved there (of a run stopped early, say).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import secrets
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path
from typing import cast

from minodice.bots.expert import ExpertBot
from minodice.bots.protocol import Bot
from minodice.bots.sampling import Unseen
from minodice.bots.search import HardBot, SearchBot
from minodice.bots.strength import Strength
from minodice.cli.reports import render_tournament
from minodice.core.actions import Action, Bid
from minodice.core.dice import Hand, load_dice_set
from minodice.core.rules import Variant, rounds_for
from minodice.core.state import GameConfig, GameState
from minodice.core.view import SeatView
from minodice.play.match import GameResult, deal_rng, made_by_round, play_bot_game
from minodice.play.table import draw_hands
from minodice.play.tournament import (
    estimate_over_deals,
    paired_differences,
    percentile,
    summarize_games,
)

PLAYERS = 4
#: The line-up's names that need no ``--variant``.
BUILT_IN = ("hard", "expert", "perfect", "perfect-expert", "perfect-play", "perfect-bid")
#: Constructor arguments a variant may set, with their types.
ARGUMENTS = {"endgame_rounds": int, "smart_others": bool, "play_budget": int,
             "bid_budget": int, "opponent_model": bool, "min_samples": int,
             "spite": float, "made_bonus": float, "standings_points": float,
             "hard_bids": bool, "world_tries": int, "world_candidates": int,
             "bid_max_samples": int, "unseen_specials": bool,
             "intent": bool, "smart_self": bool, "learned_play": bool,
             # not the expert's: the variant sees every hand, as perfect-expert does
             "sees_every_hand": bool}


def parse_variant(text: str) -> tuple[str, dict[str, object]]:
    """``name=arg=value,arg=value`` as (name, the expert's keyword arguments).

    >>> parse_variant("worlds=play_budget=12000,spite=0")
    ('worlds', {'play_budget': 12000, 'spite': 0.0})
    """
    name, _, rest = text.partition("=")
    if not name or not rest:
        raise ValueError(f"variant {text!r}: expected name=argument=value,...")
    kwargs: dict[str, object] = {}
    for item in rest.split(","):
        key, _, value = item.partition("=")
        kind = ARGUMENTS.get(key)
        if kind is None:
            raise ValueError(f"variant {name!r}: unknown argument {key!r} "
                             f"(one of {', '.join(ARGUMENTS)})")
        if kind is bool:
            if value not in ("true", "false"):
                raise ValueError(f"variant {name!r}: {key} is true or false, not {value!r}")
            kwargs[key] = value == "true"
        else:
            kwargs[key] = kind(value)
    return name, kwargs


class _SeesEveryHand:
    """The true hands of a deal's rounds, for a bot that sees every hand: the bound of what
    better inference of the hidden dice could buy (issue 19's perfect-knowledge gap).

    The benchmark knows them because a deal's draws are seeded by (seed, deal, round)
    (:func:`deal_rng`); the hands still held are those drawn less the dice rolled."""

    def __init__(self, seed: int, deal: int) -> None:
        self.seed = seed
        self.deal = deal

    def hands(self, view: SeatView) -> list[Hand]:
        config = GameConfig(view.players, view.dice_set, view.variant, view.first_starter,
                            view.options)
        state = GameState.at_round(config, view.round_no, list(view.totals))
        drawn = draw_hands(state, deal_rng(self.seed, self.deal, "draw", view.round_no))
        counts = [list(h.counts) for h in drawn]
        for trick in view.round_tricks:
            for roll in trick:
                counts[roll.seat][view.dice_set.kind(roll.kind).index] -= 1
        hands = [view.dice_set.hand_of_counts(c) for c in counts]
        if hands[view.own_seat].counts != view.hand.counts:
            raise RuntimeError("the deal's hands do not match the view: not this deal's game")
        return hands


def sighted(base: type[SearchBot], truth: _SeesEveryHand, kwargs: dict[str, object],
            bids: bool = True, plays: bool = True) -> SearchBot:
    """``base`` whose sampled worlds are the true deal: to bid (``bids``), to play
    (``plays``) or both.

    Seeing the hands only to play bounds what inference can buy: a bid is made before
    anything about the others' dice is public (R6), so no inference helps there."""

    class Sighted(base):  # type: ignore[valid-type,misc]
        def _sample_world(self, view: SeatView, rng: random.Random, strength: Strength,
                          unseen: Unseen | None = None) -> list[Hand]:
            if not plays:
                return cast(list[Hand], super()._sample_world(view, rng, strength, unseen))
            return truth.hands(view)

        def bid_world(self, view: SeatView) -> Callable[[Unseen, random.Random], list[Hand]] | None:
            if not bids:
                return None
            hands = truth.hands(view)
            return lambda unseen, rng: hands

    return cast(SearchBot, Sighted(**kwargs))


def make_variant(name: str, variants: dict[str, dict[str, object]], seed: int = 0,
                 deal: int = 0) -> SearchBot:
    """``hard``, ``expert`` (as shipped), ``perfect`` / ``perfect-expert`` (``hard`` / the
    expert seeing every hand of deal ``deal`` of ``seed``), ``perfect-play`` /
    ``perfect-bid`` (the expert seeing them only to play / only to bid) or a named variant
    of the expert (seeing every hand too with ``sees_every_hand=true``)."""
    if name == "hard":
        return HardBot()
    if name == "expert":
        return ExpertBot()
    if name == "perfect":
        return sighted(HardBot, _SeesEveryHand(seed, deal), {})
    if name == "perfect-expert":
        return sighted(ExpertBot, _SeesEveryHand(seed, deal), {})
    if name == "perfect-play":
        return sighted(ExpertBot, _SeesEveryHand(seed, deal), {}, bids=False)
    if name == "perfect-bid":
        return sighted(ExpertBot, _SeesEveryHand(seed, deal), {}, plays=False)
    kwargs = dict(variants[name])
    if kwargs.pop("sees_every_hand", False):
        return sighted(ExpertBot, _SeesEveryHand(seed, deal), kwargs)
    return ExpertBot(**kwargs)  # type: ignore[arg-type]


class _Watched:
    """A bot whose decisions are timed in CPU seconds of this process, and whose bids are
    kept with the chance its own play-outs gave of making them."""

    def __init__(self, bot: SearchBot) -> None:
        self.bot = bot
        self.cpu: list[float] = []
        self.forecasts: list[tuple[int, float]] = []  # (round, forecast), bid order
        self.shorts: list[float] = []  # its forecast of winning fewer tricks, bid order

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        start = time.process_time()
        action = self.bot.act(view, legal, rng)
        self.cpu.append(time.process_time() - start)
        if isinstance(action, Bid):
            chance = self.bot.last_bid_forecast if len(legal) > 1 else 1.0
            self.forecasts.append((view.round_no, -1.0 if chance is None else chance))
            short = self.bot.last_bid_short if len(legal) > 1 else 0.0
            self.shorts.append(-1.0 if short is None else short)
        return action


def play_game(lineup: Sequence[str], variants: dict[str, dict[str, object]], seed: int,
              index: int) -> dict[str, object]:
    """Game ``index``: deal ``index // 4``, the lineup rotated by ``index % 4``."""
    shift = index % PLAYERS
    names = list(lineup[shift:]) + list(lineup[:shift])
    deal = index // PLAYERS
    bots = [_Watched(make_variant(n, variants, seed, deal)) for n in names]
    starter = deal_rng(seed, deal, "starter", 0).randrange(PLAYERS)
    config = GameConfig(PLAYERS, load_dice_set("mino"), Variant.STANDARD, starter)
    players: list[Bot] = list(bots)
    state, _ = play_bot_game(config, players, names, seed, deal, f"{seed}:{index}")
    made = made_by_round(state)
    result = GameResult(index, names, list(state.totals), state.winners(),
                        [sum(m) for m in made], [len(m) for m in made],
                        [b.cpu for b in bots], made)
    row = {k: v for k, v in asdict(result).items() if k != "record"}
    row["forecasts"] = [b.forecasts for b in bots]
    row["shorts"] = [b.shorts for b in bots]
    # Per seat, per round: (bid, tricks won, points), for where the points are lost.
    row["rounds"] = [[(log.bids[seat], log.winners.count(seat), log.points[seat])
                      for log in state.rounds
                      if log.bids is not None and log.points is not None]
                     for seat in range(PLAYERS)]
    return row


def pooled(saved: Sequence[dict[str, object]]
           ) -> list[tuple[str, list[int], list[dict[str, object]]]]:
    """The saved games grouped by line-up and variants, whatever their seed: per group its
    name, its seeds, and its games renumbered so that the deals of each seed follow those
    of the one before (a deal of a seed stays one sample; no two seeds share a number).

    >>> run = {"lineup": ["a", "b"], "variants": {}}
    >>> rows = [{"run": {**run, "seed": 5}, "index": i} for i in (0, 1, 4)]
    >>> rows += [{"run": {**run, "seed": 7}, "index": i} for i in (0, 3)]
    >>> [(name, seeds, [r["index"] for r in rs]) for name, seeds, rs in pooled(rows)]
    [('a, b {}', [5, 7], [0, 1, 4, 8, 11])]
    """
    groups: dict[str, dict[int, list[dict[str, object]]]] = {}
    for row in saved:
        run = cast("dict[str, object]", row["run"])
        name = f"{', '.join(cast('list[str]', run['lineup']))} {run['variants']}"
        groups.setdefault(name, {}).setdefault(int(str(run["seed"])), []).append(row)
    out = []
    for name, by_seed in groups.items():
        rows: list[dict[str, object]] = []
        offset = 0
        for seed_rows in by_seed.values():
            indices = [int(str(r["index"])) for r in seed_rows]
            rows += [{**r, "index": i + offset} for r, i in zip(seed_rows, indices, strict=True)]
            offset += (max(indices) // PLAYERS + 1) * PLAYERS
        out.append((name, list(by_seed), rows))
    return out


def margins_over_hard(saved: Sequence[dict[str, object]]) -> dict[tuple[int, int], float]:
    """Per (seed, deal) of whole deals: the mean, over the deal's games, of the one bot
    that is not ``hard``'s score minus the ``hard`` seats' mean (tables of one bot against
    three ``hard``)."""
    margins: dict[tuple[int, int], list[float]] = {}
    for row in saved:
        run = cast("dict[str, object]", row["run"])
        names = cast("list[str]", row["seat_bots"])
        totals = cast("list[int]", row["totals"])
        others = [i for i, n in enumerate(names) if n != "hard"]
        if len(others) != 1:
            raise ValueError(f"not one bot against hard: {names}")
        hard = [t for n, t in zip(names, totals, strict=True) if n == "hard"]
        key = (int(str(run["seed"])), int(str(row["index"])) // PLAYERS)
        margins.setdefault(key, []).append(totals[others[0]] - statistics.mean(hard))
    return {k: statistics.mean(v) for k, v in margins.items() if len(v) == PLAYERS}


def across_runs(first: Sequence[dict[str, object]], second: Sequence[dict[str, object]]
                ) -> str:
    """Two bots each measured against three ``hard`` in runs of their own on the same
    deals: the first's margin over ``hard`` minus the second's, paired deal by deal, with
    its 95% interval over the deals both runs finished.

    >>> def game(bot, seed, index, score):
    ...     return {"run": {"seed": seed}, "index": index, "seat_bots": [bot] + ["hard"] * 3,
    ...             "totals": [score, 10, 20, 30]}
    >>> a = [game("x", 1, i, 40 + 10 * (i // 4)) for i in range(8)]
    >>> b = [game("y", 1, i, 20) for i in range(8)]
    >>> across_runs(a, b)
    '2 deals: x - y = +25.0 points a game, 95% [-38.5, +88.5]'
    """
    a, b = margins_over_hard(first), margins_over_hard(second)
    both = sorted(set(a) & set(b))
    if len(both) < 2:
        return f"{len(both)} deals in both runs: no interval (that needs 2)"
    diffs = [a[k] - b[k] for k in both]
    name = {}
    for label, rows in (("first", first), ("second", second)):
        names = cast("list[str]", rows[0]["seat_bots"])
        name[label] = next(n for n in names if n != "hard")
    e = estimate_over_deals(diffs, [1.0] * len(diffs))
    assert e.ci95 is not None
    return (f"{len(both)} deals: {name['first']} - {name['second']} = {e.mean:+.1f} points a "
            f"game, 95% [{e.ci95[0]:+.1f}, {e.ci95[1]:+.1f}]")


def report(rows: list[dict[str, object]], seed: int | None) -> None:
    """The figures of the whole deals among ``rows``."""
    by_deal: dict[int, list[dict[str, object]]] = {}
    for row in rows:
        by_deal.setdefault(int(str(row["index"])) // PLAYERS, []).append(row)
    whole = sorted((r for rs in by_deal.values() if len(rs) == PLAYERS for r in rs),
                   key=lambda r: int(str(r["index"])))
    if not whole:
        print(f"no whole deal yet ({len(rows)} games)")
        return
    extra = ("forecasts", "run", "rounds", "shorts")  # kept beside a GameResult's fields
    results = [GameResult(**{k: v for k, v in r.items() if k not in extra})  # type: ignore[arg-type]
               for r in whole]
    print(render_tournament(summarize_games(results), len(results), PLAYERS,
                            paired_differences(results), seed))
    print("(the ms columns are CPU time per decision of the bot's process)")
    print()
    print(paired_wins(results))
    print()
    names = list(dict.fromkeys(n for r in results for n in r.seat_bots))
    for name in names:
        cpu = [t * 1000 for r in results for s, n in enumerate(r.seat_bots) if n == name
               for t in r.decision_seconds[s]]
        made = [m for r in results for s, n in enumerate(r.seat_bots) if n == name
                for m in r.made_by_round[s]]
        forecasts = [f for row, r in zip(whole, results, strict=True)
                     for s, n in enumerate(r.seat_bots) if n == name
                     for f in row["forecasts"][s]]  # type: ignore[index]
        print(f"{name}: bids made {statistics.mean(made):.1%} of {len(made)}, its forecast "
              f"{statistics.mean(f for _, f in forecasts):.1%}; CPU per decision median "
              f"{statistics.median(cpu):.1f} ms, p99 {percentile(cpu, 0.99):.1f} ms, max "
              f"{max(cpu):.1f} ms over {len(cpu)}")
        rounds = sorted({rr for rr, _ in forecasts})
        line = []
        for rr in rounds:
            pairs = [(f, m) for (r2, f), m in zip(forecasts, made, strict=True) if r2 == rr]
            line.append(f"r{rr} {statistics.mean(m for _, m in pairs):.0%}/"
                        f"{statistics.mean(f for f, _ in pairs):.0%}")
        print("  made/forecast by round: " + " ".join(line))
        # Games saved before the rounds were kept have none.
        rounds_played: list[Sequence[int]] = [
            rd for row, r in zip(whole, results, strict=True)
            for s, n in enumerate(r.seat_bots) if n == name
            for rd in cast("list[list[list[int]]]", row.get("rounds", [[]] * PLAYERS))[s]]
        if rounds_played:
            print("  " + leaks(rounds_played))
        shorts = [f for row, r in zip(whole, results, strict=True)
                  for s, n in enumerate(r.seat_bots) if n == name
                  for f in cast("list[list[float]]", row.get("shorts", [[]] * PLAYERS))[s]]
        if shorts and len(shorts) == len(rounds_played):
            over = statistics.mean(won < bid for bid, won, _ in rounds_played)
            print(f"  won fewer tricks than bid: {over:.1%}, its forecast "
                  f"{statistics.mean(shorts):.1%}")
    print()


def paired_wins(results: Sequence[GameResult]) -> str:
    """The win share the issue's target is set in, compared the way scores are: for every
    two bots, ``a``'s share of the wins minus ``b``'s, paired deal by deal (a shared first
    place counts its share), with its 95% interval over deals; and each bot's final score
    spread (standard deviation over its games): at equal mean scores, the bot whose
    score spreads more wins more often against players who must all be beaten.

    >>> def game(index, totals):
    ...     top = max(totals)
    ...     return GameResult(index, ["a", "b"], totals,
    ...                       [s for s, t in enumerate(totals) if t == top], [0, 0], [0, 0])
    >>> print(paired_wins([game(0, [10, 0]), game(1, [0, 10]), game(4, [20, 0]),
    ...                    game(5, [10, 10])]))
    wins a - b: +0.25 a game, 95% [-2.93, +3.43] (2 deals)
    score spread (SD over games): a 7.1, b 5.0
    """
    per_deal: dict[int, dict[str, list[float]]] = {}
    scores: dict[str, list[int]] = {}
    for result in results:
        deal = per_deal.setdefault(result.index // PLAYERS, {})
        for seat, name in enumerate(result.seat_bots):
            won = 1 / len(result.winners) if seat in result.winners else 0.0
            deal.setdefault(name, []).append(won)
            scores.setdefault(name, []).append(result.totals[seat])
    names = list(scores)
    lines = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            diffs = [statistics.mean(d[a]) - statistics.mean(d[b])
                     for d in per_deal.values() if a in d and b in d]
            if len(diffs) < 2:
                continue
            e = estimate_over_deals(diffs, [1.0] * len(diffs))
            assert e.ci95 is not None
            lines.append(f"wins {a} - {b}: {e.mean:+.2f} a game, 95% [{e.ci95[0]:+.2f}, "
                         f"{e.ci95[1]:+.2f}] ({len(diffs)} deals)")
    spreads = ", ".join(f"{n} {statistics.pstdev(v):.1f}" for n, v in scores.items())
    lines.append(f"score spread (SD over games): {spreads}")
    return "\n".join(lines)


def leaks(rounds: Sequence[Sequence[int]]) -> str:
    """Where a bot's points go (``rounds``: its (bid, tricks won, points) of every round,
    game after game): its mean points by round, and its bids split into made,
    over (fewer tricks than bid) and under (more), zero bids apart, with the mean points
    of each part — the largest leak is the part whose share times loss is largest."""
    by_round: dict[int, list[int]] = {}
    for index, (_, _, points) in enumerate(rounds):
        by_round.setdefault(index % rounds_for(PLAYERS) + 1, []).append(points)
    parts: dict[str, list[int]] = {}
    for bid, won, points in rounds:
        zero = "zero" if bid == 0 else "bid>0"
        side = "made" if won == bid else ("over" if won < bid else "under")
        parts.setdefault(f"{zero} {side}", []).append(points)
    text = "points by round: " + " ".join(
        f"r{r} {statistics.mean(p):+.1f}" for r, p in sorted(by_round.items()))
    text += "\n  bids: " + ", ".join(
        f"{k} {len(v) / len(rounds):.1%} (mean {statistics.mean(v):+.1f}, "
        f"{len(v) * statistics.mean(v) / len(rounds):+.1f}/round)"
        for k, v in sorted(parts.items()))
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description="variants of the expert at one table")
    parser.add_argument("--lineup", default="expert,hard,hard,hard",
                        help="four names: hard, expert, or variants named by --variant")
    parser.add_argument("--variant", action="append", default=[],
                        help="name=argument=value,... (the expert's constructor arguments)")
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None, help="default: a fresh one")
    parser.add_argument("--save", type=Path, default=None,
                        help="append every finished game (JSON lines) here")
    parser.add_argument("--report", type=Path, default=None, nargs="+",
                        help="play nothing: the figures of the games saved in these files")
    parser.add_argument("--pool", action="store_true",
                        help="with --report: one report for the runs of the same line-up and "
                             "variants on different seeds (each seed's deal one sample)")
    parser.add_argument("--against", type=Path, default=None, nargs="+",
                        help="with --report (one bot against three hard): that bot's margin "
                             "over hard minus the margin of the bot saved in these files, on "
                             "the deals both played")
    args = parser.parse_args()
    if args.report is not None and args.against is not None:
        first, second = ([json.loads(line) for path in paths
                          for line in path.read_text(encoding="utf-8").splitlines()]
                         for paths in (args.report, args.against))
        print(across_runs(first, second))
        return
    if args.report is not None:
        saved = [json.loads(line) for path in args.report
                 for line in path.read_text(encoding="utf-8").splitlines()]
        if args.pool:
            for lineup, seeds, games in pooled(saved):
                print(f"lineup {lineup}, seeds {', '.join(map(str, seeds))} pooled")
                report(games, None)
            return
        for line in dict.fromkeys(json.dumps(r["run"]) for r in saved):
            run = json.loads(line)
            print(f"lineup {', '.join(run['lineup'])}, variants {run['variants']}")
            report([r for r in saved if r["run"] == run], int(run["seed"]))
        return
    variants = dict(parse_variant(v) for v in args.variant)
    lineup = args.lineup.split(",")
    unknown = [n for n in lineup if n not in BUILT_IN and n not in variants]
    if len(lineup) != PLAYERS or unknown:
        sys.exit(f"--lineup: four names of {', '.join(BUILT_IN)} or a --variant "
                 f"(unknown: {unknown})")
    seed = secrets.randbelow(10**9) if args.seed is None else args.seed
    run = {"lineup": lineup, "variants": variants, "seed": seed}
    print(f"seed {seed} (repeat with --seed {seed}); lineup {lineup}; variants {variants}",
          flush=True)
    rows: list[dict[str, object]] = []
    out = args.save.open("a", encoding="utf-8") if args.save is not None else None
    start = time.perf_counter()
    try:
        with ProcessPoolExecutor(max_workers=args.workers,
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(play_game, lineup, variants, seed, i)
                       for i in range(args.deals * PLAYERS)]
            for n, future in enumerate(as_completed(futures), start=1):
                row = future.result()
                rows.append(row)
                if out is not None:
                    out.write(json.dumps({"run": run, **row}) + "\n")
                    out.flush()
                print(f"  {n}/{len(futures)} games, {time.perf_counter() - start:.0f} s",
                      flush=True)
    finally:
        if out is not None:
            out.close()
    report(rows, seed)


if __name__ == "__main__":
    main()
