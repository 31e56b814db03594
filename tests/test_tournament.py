"""Tournaments: reproducible, right statistics, and broken outside bots reported by name
without hanging — through the API and through ``minodice tournament`` / ``simulate``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from bot_trace import TRACED, stopped_in_its_sleep
from minodice.bots.loading import load_bot_factory
from minodice.bots.protocol import BotError
from minodice.core.record import load_record
from minodice.play.match import GameResult
from minodice.play.tournament import (
    BotStats,
    TournamentSpec,
    games_needed,
    lineup,
    mean_ci95,
    paired_differences,
    percentile,
    run_games,
    summarize_games,
)

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = ROOT / "tests" / "plugins"
BROKEN = "tests/plugins/broken_bots.py"
OUTSIDE_FILE = "tests/plugins/outside_bot.py:FirstLegalBot"
OUTSIDE_MODULE = "outside_bot:FirstLegalBot"  # with tests/plugins on the import path
STAT_KEYS = {"name", "games", "deals", "mean_score", "ci95", "win_share", "win_share_se",
             "bid_success", "decision_ms_median", "decision_ms_p99"}


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m minodice.cli`` from the project folder (``timeout``: a hang guard)."""
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(PLUGINS)}
    return subprocess.run([sys.executable, "-m", "minodice.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def flat(text: str) -> str:
    """Error text without the boxes and line breaks of Typer's rich error panel."""
    for ch in "│╭╮╰╯─":
        text = text.replace(ch, " ")
    return " ".join(text.split())


def outcome(results: list[GameResult]) -> list[tuple[Any, ...]]:
    """Everything about the games except the clock."""
    return [(r.index, r.seat_bots, r.totals, r.winners, r.bids_made, r.bids, r.made_by_round)
            for r in results]


# -- reproducibility ---------------------------------------------------------------------


def test_same_seed_same_tournament_whatever_the_workers() -> None:
    spec = TournamentSpec(4, ("medium", "easy", "random", OUTSIDE_FILE), 8, 42)
    first = run_games(spec)
    again = run_games(spec)
    parallel = run_games(spec, workers=2)
    assert [r.index for r in first] == list(range(8))
    assert outcome(first) == outcome(again)
    assert outcome(first) == outcome(parallel)
    assert [s.mean_score for s in summarize_games(first)] == [
        s.mean_score for s in summarize_games(parallel)]
    other = run_games(TournamentSpec(4, spec.bots, 8, 43))
    assert [r.totals for r in other] != [r.totals for r in first]


def test_seats_rotate_so_every_bot_sits_everywhere_in_a_deal() -> None:
    bots = ("a", "b", "c", "d", "e")
    spec = TournamentSpec(5, bots, 10, 0)
    for deal in range(2):
        seatings = [lineup(spec, deal * 5 + k) for k in range(5)]
        for seat in range(5):
            assert sorted(s[seat] for s in seatings) == sorted(bots)
    results = run_games(TournamentSpec(3, ("easy", "random", OUTSIDE_FILE), 6, 3))
    assert [r.seat_bots for r in results[:3]] == [
        ["easy", "random", OUTSIDE_FILE], ["random", OUTSIDE_FILE, "easy"],
        [OUTSIDE_FILE, "easy", "random"]]


def test_tournament_cli_same_seed_same_report() -> None:
    args = ("tournament", "--players", "3", "--bots", "easy,random,medium", "--games", "6",
            "--seed", "9", "--json")
    reports = []
    for extra in ((), ("--workers", "2")):
        done = cli(*args, *extra)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        reports.append([{k: v for k, v in bot.items() if not k.startswith("decision_ms")}
                        for bot in data["bots"]])
    assert reports[0] == reports[1]
    assert {b["name"] for b in reports[0]} == {"easy", "random", "medium"}


def test_records_of_a_tournament_replay_to_its_results() -> None:
    """``TournamentSpec(records=True)``: each game's record (RECORD.md) goes to
    ``on_record`` as its game is back, replays to the game's totals, names the seats of one
    bot apart (R1), and is the same whatever the workers; it is not kept in the results."""
    spec = TournamentSpec(3, ("easy", "random", "easy"), 6, 11, records=True)
    for workers in (1, 2):
        kept: dict[int, dict[str, Any]] = {}
        results = run_games(spec, workers=workers, on_record=kept.__setitem__)
        assert sorted(kept) == list(range(6))
        assert all(r.record is None for r in results)
        for result in results:
            record = kept[result.index]
            assert (record["seed"], record["game"], record["deal"]) == (
                11, result.index + 1, result.index // 3 + 1)
            entries = ["easy (1)", "random", "easy (3)"]  # by their place in the line-up
            shift = result.index % 3
            assert record["players"] == entries[shift:] + entries[:shift]
            loaded = load_record(record)
            assert loaded.state.is_terminal()
            assert list(loaded.state.totals) == result.totals
        if workers == 1:
            first = kept
        else:
            assert kept == first
    assert outcome(run_games(spec)) == outcome(results)  # records change no game


def test_tournament_cli_saves_records_and_never_replaces_them(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    args = ("tournament", "--players", "3", "--bots", "easy,random,medium", "--games", "3",
            "--seed", "9", "--save-records", str(folder))
    done = cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # still one JSON object
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == ["game-0001.json", "game-0002.json", "game-0003.json"]
    means: dict[str, list[int]] = {}
    for f in files:
        record = json.loads(f.read_text(encoding="utf-8"))
        totals = load_record(record).state.totals
        for name, total in zip(record["players"], totals, strict=True):
            means.setdefault(name, []).append(total)
    assert {b["name"]: b["mean_score"] for b in report["bots"]} == {
        name: round(statistics.mean(t), 3) for name, t in means.items()}
    before = {f.name: f.read_bytes() for f in files}
    again = cli(*args)
    assert again.returncode == 1
    assert "game-0001.json exists (and 2 more of this run's names); add --force" in again.stderr
    assert "Traceback" not in again.stderr
    assert {f.name: f.read_bytes() for f in folder.iterdir()} == before
    forced = cli(*args, "--force")
    assert forced.returncode == 0, forced.stderr
    assert f"Records saved in {folder}/" in forced.stdout
    assert {f.name: f.read_bytes() for f in folder.iterdir()} == before  # the same seed
    onto_file = tmp_path / "file.txt"
    onto_file.write_text("keep me", encoding="utf-8")
    refused = cli("tournament", "--bots", "random", "--players", "3", "--games", "1",
                  "--save-records", str(onto_file))
    assert refused.returncode == 2
    assert "--save-records" in flat(refused.stderr)
    assert onto_file.read_text(encoding="utf-8") == "keep me"


# -- statistics --------------------------------------------------------------------------

# Two-sided 95% Student t quantiles (from tables, 4 decimals), independent of the code.
STUDENT_T95 = {1: 12.7062, 2: 4.3027, 5: 2.5706, 10: 2.2281, 30: 2.0423, 31: 2.0395,
               40: 2.0211, 60: 2.0003, 100: 1.9840}


def by_hand_ci(values: list[float]) -> tuple[float, float, float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = STUDENT_T95[n - 1] * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def hand_made_games() -> list[GameResult]:
    """Two deals of a 3-player tournament of bots A, B, C (seats rotated within a deal);
    four games end in a tie. Deal 0 is games 0-2, deal 1 games 3-5."""
    return [
        GameResult(0, ["A", "B", "C"], [100, 50, 100], [0, 2], [3, 1, 2], [8, 8, 8],
                   [[0.001, 0.003], [0.010], [0.002]]),
        GameResult(1, ["B", "C", "A"], [20, -40, 60], [2], [2, 0, 5], [8, 8, 8],
                   [[0.004], [0.020, 0.030], [0.005]]),
        GameResult(2, ["C", "A", "B"], [10, 30, 30], [1, 2], [4, 4, 1], [8, 8, 8],
                   [[0.006], [0.002, 0.009], [0.001]]),
        GameResult(3, ["A", "B", "C"], [40, 40, 10], [0, 1], [2, 2, 2], [8, 8, 8]),
        GameResult(4, ["B", "C", "A"], [0, 30, 50], [2], [1, 3, 2], [8, 8, 8]),
        GameResult(5, ["C", "A", "B"], [-20, 70, 10], [1], [0, 1, 1], [8, 8, 8]),
    ]


def test_summary_of_hand_made_games() -> None:
    stats = {s.name: s for s in summarize_games(hand_made_games())}
    assert list(stats) == ["A", "B", "C"]
    a, b, c = stats["A"], stats["B"], stats["C"]
    assert (a.games, b.games, c.games) == (6, 6, 6)
    assert (a.deals, b.deals, c.deals) == (2, 2, 2)
    # Scores: A 100, 60, 30 | 40, 50, 70; B 50, 20, 30 | 40, 0, 10; C 100, -40, 10 | 10, 30, -20
    assert a.mean_score == pytest.approx(350 / 6)
    assert b.mean_score == pytest.approx(150 / 6)
    assert c.mean_score == pytest.approx(90 / 6)
    # Wins, ties split: A 0.5 + 1 + 0.5 | 0.5 + 1 + 1; B 0 + 0 + 0.5 | 0.5; C 0.5 | 0.
    assert a.win_share == pytest.approx(4.5 / 6)
    assert b.win_share == pytest.approx(1 / 6)
    assert c.win_share == pytest.approx(0.5 / 6)
    assert sum(s.win_share * s.games for s in stats.values()) == pytest.approx(6)
    # Bids made out of 8 a game: A 3 + 5 + 4 + 2 + 2 + 1, B 1 + 2 + 1 + 2 + 1 + 1, ...
    assert a.bid_success == pytest.approx(17 / 48)
    assert b.bid_success == pytest.approx(8 / 48)
    assert c.bid_success == pytest.approx(11 / 48)
    # Decision times in ms (deal 0 only): A 1, 3, 5, 2, 9; B 10, 4, 1; C 2, 20, 30, 6.
    assert a.decision_ms_median == pytest.approx(3)
    assert a.decision_ms_p99 == pytest.approx(9)
    assert b.decision_ms_median == pytest.approx(4)
    assert b.decision_ms_p99 == pytest.approx(10)
    assert c.decision_ms_median == pytest.approx(13)  # (6 + 20) / 2
    assert c.decision_ms_p99 == pytest.approx(30)


def test_intervals_are_over_deals_not_seats() -> None:
    """A deal and its rotated replays are one sample: the 95% interval of a mean score
    comes from the per-deal means (2 deals: Student's t with 1 degree of freedom), not
    from the six correlated seat scores."""
    a = {s.name: s for s in summarize_games(hand_made_games())}["A"]
    # A's per-deal means: 190 / 3 and 160 / 3; sd 7.071, standard error 7.071 / sqrt(2) = 5,
    # half width 12.7062 * 5 = 63.53 around 58.33.
    assert a.ci95 is not None
    assert a.ci95[0] == pytest.approx(58.333 - 63.531, abs=0.01)
    assert a.ci95[1] == pytest.approx(58.333 + 63.531, abs=0.01)
    # The seat-by-seat interval (t with 5 df over 6 scores) is far narrower: not it.
    _, seat_low, seat_high = by_hand_ci([100.0, 60, 30, 40, 50, 70])
    assert seat_high - seat_low < 60 < a.ci95[1] - a.ci95[0]
    # Win share per deal: 2 / 3 and 2.5 / 3; standard error sd / sqrt(2) = 0.08333.
    assert a.win_share_se == pytest.approx(1 / 12, abs=1e-4)


def test_paired_differences_on_the_same_deals() -> None:
    pairs = {(p.a, p.b): p for p in paired_differences(hand_made_games())}
    assert set(pairs) == {("A", "B"), ("A", "C"), ("B", "C")}
    ab = pairs[("A", "B")]
    # A - B per deal: 190/3 - 100/3 = 30, 160/3 - 50/3 = 36.667; mean 33.33 (= 58.33 - 25).
    assert ab.deals == 2
    assert ab.mean_difference == pytest.approx(100 / 3)
    assert ab.sd_per_deal == pytest.approx((20 / 3) / math.sqrt(2))
    half = 12.7062 * (20 / 3) / 2  # t(1) * sd / sqrt(2)
    assert ab.ci95 is not None
    assert ab.ci95[0] == pytest.approx(100 / 3 - half, abs=0.01)
    assert ab.ci95[1] == pytest.approx(100 / 3 + half, abs=0.01)
    # t(0.975; 1) + t(0.80; 1) = 12.7062 + 1.3764 standard errors (from tables): with two
    # deals the standard error is itself a guess; 2.8 of them promised far too much
    assert ab.detectable == pytest.approx((12.7062 + 1.3764) * (20 / 3) / 2, abs=0.01)
    bc = pairs[("B", "C")]
    # B - C per deal: 100/3 - 70/3 = 10, 50/3 - 20/3 = 10: the same each deal.
    assert bc.mean_difference == pytest.approx(10)
    assert bc.sd_per_deal == pytest.approx(0, abs=1e-9)
    assert data_keys(bc.to_json()) == {"a", "b", "deals", "mean_difference", "ci95",
                                       "sd_per_deal", "detectable"}


def data_keys(data: dict[str, Any]) -> set[str]:
    return set(data)


def test_an_unfinished_last_deal_weighs_by_its_games() -> None:
    """4 games of 3 players: deal 1 has one game. The mean stays the mean per game, and
    the paired difference equals the difference of the means."""
    games = hand_made_games()[:4]
    stats = {s.name: s for s in summarize_games(games)}
    assert stats["A"].mean_score == pytest.approx((190 + 40) / 4)
    assert stats["B"].mean_score == pytest.approx((100 + 40) / 4)
    assert stats["A"].deals == 2
    pair = {(p.a, p.b): p for p in paired_differences(games)}[("A", "B")]
    assert pair.mean_difference == pytest.approx((230 - 140) / 4)
    # Over deals, weighted by games: x = 30 (3 games) and 0 (1 game); mean 22.5;
    # se = sqrt(D/(D-1) * sum(w^2 (x - m)^2)) / sum(w) = sqrt(2 * (9*56.25 + 506.25)) / 4
    se = math.sqrt(2 * (9 * 7.5**2 + 22.5**2)) / 4
    assert pair.ci95 is not None
    assert pair.ci95[1] - pair.mean_difference == pytest.approx(12.7062 * se, abs=0.01)


def test_one_deal_gives_no_interval() -> None:
    games = hand_made_games()[:3]
    for s in summarize_games(games):
        assert s.deals == 1
        assert s.ci95 is None
        assert s.win_share_se is None
        assert s.to_json()["ci95"] is None
    assert all(p.ci95 is None for p in paired_differences(games))


def test_summary_when_one_bot_holds_several_seats() -> None:
    """Per seat-game: 'games' counts seats played, and a game's win is shared once."""
    games = [
        GameResult(0, ["X", "X", "Y"], [10, 10, 0], [0, 1], [1, 1, 0], [3, 3, 3]),
        GameResult(1, ["X", "Y", "X"], [0, 20, 5], [1], [0, 3, 1], [3, 3, 3]),
    ]
    stats = {s.name: s for s in summarize_games(games)}
    assert stats["X"].games == 4
    assert stats["Y"].games == 2
    assert stats["X"].mean_score == pytest.approx(25 / 4)
    assert stats["X"].win_share == pytest.approx(1 / 4)
    assert stats["Y"].win_share == pytest.approx(1 / 2)
    assert sum(s.win_share * s.games for s in stats.values()) == pytest.approx(2)
    assert stats["X"].bid_success == pytest.approx(3 / 12)
    assert stats["X"].decision_ms_median == 0.0  # no times recorded
    (pair,) = paired_differences(games)
    assert (pair.a, pair.b) == ("X", "Y")
    assert pair.mean_difference == pytest.approx(25 / 4 - 20 / 2)


def test_bot_stats_json_has_exactly_the_promised_keys() -> None:
    stats = summarize_games(hand_made_games())
    for s in stats:
        data = s.to_json()
        assert set(data) == STAT_KEYS
        assert s.ci95 is not None
        assert data["ci95"] == [s.ci95[0], s.ci95[1]]
    assert isinstance(stats[0], BotStats)


def test_games_needed_is_a_power_calculation() -> None:
    """Deals for a two-sided 5% test with 80% power: ((1.96 + 0.8416) * sd / d)^2, each
    deal being ``players`` games."""
    assert games_needed(10.0, 40.0, 4) == 4 * math.ceil((2.8016 * 4) ** 2)
    assert games_needed(5.0, 40.0, 4) == 4 * math.ceil((2.8016 * 8) ** 2)
    assert games_needed(40.0, 10.0, 3) == 3 * 2  # never fewer than 2 deals


def test_mean_ci95_on_small_samples() -> None:
    mean, low, high = mean_ci95([10, 20, 30])
    assert mean == 20
    # sd 10, half width 4.3027 * 10 / sqrt(3) = 24.841
    assert low == pytest.approx(-4.841, abs=0.005)
    assert high == pytest.approx(44.841, abs=0.005)
    assert mean_ci95([5]) == (5, 5, 5)
    mean, low, high = mean_ci95([0, 10])
    assert mean == 5
    assert high - mean == pytest.approx(12.7062 * 5, abs=0.01)
    assert mean_ci95([7, 7, 7, 7]) == (7, 7, 7)


def test_mean_ci95_uses_student_t_for_every_sample_size() -> None:
    """Student's t, as documented, also beyond 30 values (where it is not yet 1.96)."""
    rng = random.Random(5)
    wrong = []
    for df in sorted(STUDENT_T95):
        values = [float(rng.randrange(-200, 300)) for _ in range(df + 1)]
        mean, low, high = mean_ci95(values)
        expected_half = STUDENT_T95[df] * statistics.stdev(values) / math.sqrt(df + 1)
        assert mean == pytest.approx(statistics.fmean(values))
        if abs((high - low) / 2 - expected_half) > 0.002 * expected_half:
            wrong.append(f"df {df}: half width {(high - low) / 2:.3f}, "
                         f"Student t gives {expected_half:.3f}")
    assert wrong == []


def test_percentile_is_nearest_rank() -> None:
    values = list(range(1, 201))
    random.Random(1).shuffle(values)
    assert percentile(values, 0.99) == 198
    assert percentile(values, 0.5) == 100
    assert percentile(values, 1.0) == 200
    assert percentile(values, 0.0) == 1
    assert percentile([3.5], 0.99) == 3.5
    assert percentile([4, 1, 3, 2], 0.5) == 2
    assert percentile([4, 1, 3, 2], 0.99) == 4


# -- broken outside bots, through the API -----------------------------------------------


def expect_bot_error(spec: str, *, time_limit: float | None = None, games: int = 3,
                     workers: int = 1) -> str:
    with pytest.raises(BotError) as info:
        run_games(TournamentSpec(3, (spec, "easy", "random"), games, 1,
                                 time_limit=time_limit), workers)
    return str(info.value)


@pytest.mark.parametrize(("cls", "phrase"), [
    ("RaisingBot", "raised RuntimeError: the raising bot gives up"),
    ("IllegalBot", "returned Bid(99), which is not legal"),
    ("IllegalRollBot", "which is not legal"),
    ("NonActionBot", "returned the str 'bid 1', not an action: act(view, legal, rng) returns "
                     "one of the Bid or Roll objects in legal"),
    ("BrokenInitBot", "creating it failed: ValueError: the broken bot cannot start"),
    ("NoActBot", "has no act"),
    ("NOT_A_CLASS", "not a class"),
    ("NoSuchClass", "has no NoSuchClass"),
])
def test_broken_bot_is_named_in_the_error(cls: str, phrase: str) -> None:
    spec = f"{BROKEN}:{cls}"
    message = expect_bot_error(spec)
    assert spec in message
    assert phrase in message


def test_a_bot_that_raises_is_told_where_in_its_code_and_in_which_game() -> None:
    """"raised KeyError: 'late failure'" was all its author learned: the bot's output goes
    nowhere, and the game was not said. Now the line of its code and the game are."""
    line = next(i for i, text in enumerate(
        (PLUGINS / "broken_bots.py").read_text().splitlines(), 1)
        if 'raise RuntimeError("the raising bot gives up")' in text)
    message = expect_bot_error(f"{BROKEN}:RaisingBot")
    assert message.endswith("raised RuntimeError: the raising bot gives up at "
                            f"broken_bots.py:{line} in act, in game 1 (seed 1)"), message


def test_missing_file_and_module_are_named() -> None:
    for spec, phrase in (("tests/plugins/no_such_file.py:Bot", "no file"),
                         ("no_such_module_xyz:Bot", "ModuleNotFoundError")):
        with pytest.raises(BotError) as info:
            load_bot_factory(spec)
        assert spec in str(info.value)
        assert phrase in str(info.value)
        message = expect_bot_error(spec)
        assert spec in message


def test_a_plugin_that_fails_to_import_is_named(tmp_path: Path) -> None:
    plugin = tmp_path / "bad_import.py"
    plugin.write_text("import math\nraise ImportError('needs numpy 9')\n")
    spec = f"{plugin}:Bot"
    with pytest.raises(BotError) as info:
        load_bot_factory(spec)
    assert spec in str(info.value)
    assert "needs numpy 9" in str(info.value)


def test_slow_bot_is_stopped_at_the_time_limit(trace: Path) -> None:
    spec = f"{TRACED}:TracedSlowBot"
    message = expect_bot_error(spec, time_limit=0.2)
    assert spec in message
    assert "took longer than 0.2 s" in message
    assert stopped_in_its_sleep(trace)


def test_slow_bot_that_swallows_exceptions_is_still_reported() -> None:
    """A bot whose own ``except Exception`` swallows the interruption, and answers 3 s
    later, has still broken a 0.2 s limit: the tournament must say so, not carry on."""
    spec = f"{BROKEN}:SwallowingSlowBot"
    message = expect_bot_error(spec, time_limit=0.2, games=1)
    assert spec in message
    assert "took longer" in message


def test_bot_calling_sys_exit_gets_an_error_naming_it() -> None:
    spec = f"{BROKEN}:ExitingBot"
    try:
        message = expect_bot_error(spec)
    except SystemExit as exc:
        pytest.fail(f"the bot's sys.exit({exc.code}) ended the tournament, no BotError")
    assert spec in message


def test_broken_bot_in_worker_processes_is_named_and_stopped(trace: Path) -> None:
    spec = f"{BROKEN}:RaisingBot"
    message = expect_bot_error(spec, games=12, workers=2)
    assert spec in message
    # 2 s, not 0.2: with two workers, another game's first decision may be a built-in
    # bot's, under the same limit; the slow bot is still stopped in its 5 s sleep.
    message = expect_bot_error(f"{TRACED}:TracedSlowBot", games=6, workers=2, time_limit=2)
    assert "TracedSlowBot" in message
    assert stopped_in_its_sleep(trace)


# -- through the command line -------------------------------------------------------------


@pytest.mark.parametrize(("bot", "extra", "phrase"), [
    (f"{BROKEN}:RaisingBot", (), "raised RuntimeError"),
    (f"{BROKEN}:IllegalBot", (), "not legal"),
    (f"{BROKEN}:NonActionBot", (), "not an action"),
    (f"{BROKEN}:BrokenInitBot", (), "creating it failed"),
    (f"{BROKEN}:NoSuchClass", (), "has no NoSuchClass"),
    ("tests/plugins/no_such_file.py:Bot", (), "no file"),
    (f"{TRACED}:TracedSlowBot", ("--time-limit", "0.2"), "took longer than 0.2 s"),
    (f"{BROKEN}:RaisingBot", ("--workers", "2"), "raised RuntimeError"),
    # with two workers, 2 s: the other game's built-in bots are under the limit too
    (f"{TRACED}:TracedSlowBot", ("--workers", "2", "--time-limit", "2"), "took longer"),
])
def test_tournament_cli_names_a_broken_bot(bot: str, extra: tuple[str, ...], phrase: str,
                                           trace: Path) -> None:
    done = cli("tournament", "--players", "4", "--bots", f"{bot},easy,random,easy",
                        "--games", "8", "--seed", "1", *extra, timeout=60)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert bot in flat(done.stderr)
    assert phrase in flat(done.stderr)
    assert done.stdout.strip() == ""
    if "Slow" in bot:
        assert stopped_in_its_sleep(trace)


def test_tournament_cli_survives_a_bot_that_ends_its_process() -> None:
    """The bot's process is its own: its end is named, and no worker dies with it."""
    bot = f"{BROKEN}:KillerBot"
    done = cli("tournament", "--players", "3", "--bots", f"{bot},easy,random", "--games", "6",
               "--workers", "2", timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert bot in flat(done.stderr)
    assert "ended its process (exit status 3)" in done.stderr
    assert "worker process died" not in done.stderr


def test_tournament_cli_reports_a_bot_calling_sys_exit() -> None:
    bot = f"{BROKEN}:ExitingBot"
    done = cli("tournament", "--players", "3", "--bots", f"{bot},easy,random",
                  "--games", "2", timeout=60)
    assert done.returncode != 0, "exit status 0 and no report at all"
    assert bot in flat(done.stderr)


def test_simulate_cli_names_a_broken_bot() -> None:
    bot = f"{BROKEN}:RaisingBot"
    done = cli("simulate", "--players", "3", "--games", "2", "--bots", f"easy,{bot},random")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert bot in flat(done.stderr)
    assert "raised RuntimeError" in done.stderr


# -- outside bots that work ---------------------------------------------------------------


@pytest.mark.parametrize("bot", [OUTSIDE_FILE, OUTSIDE_MODULE])
def test_outside_bot_plays_a_tournament(bot: str) -> None:
    done = cli("tournament", "--players", "3", "--bots", f"{bot},easy,random",
                  "--games", "6", "--seed", "4", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    stats = {b["name"]: b for b in data["bots"]}
    assert set(stats) == {bot, "easy", "random"}
    assert stats[bot]["games"] == 6
    assert 0 <= stats[bot]["bid_success"] <= 1
    text = cli("tournament", "--players", "3", "--bots", f"{bot},easy,random",
                  "--games", "3", "--seed", "4")
    assert text.returncode == 0, text.stderr
    assert bot in text.stdout


@pytest.mark.parametrize("bot", [OUTSIDE_FILE, OUTSIDE_MODULE])
def test_outside_bot_plays_simulate(bot: str) -> None:
    done = cli("simulate", "--players", "4", "--games", "3", "--seed", "2", "--bots",
                  f"{bot},easy,random,{bot}", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["games"] == 3
    assert len(data["mean_scores"]) == 4
    text = cli("simulate", "--players", "3", "--games", "2", "--bots", bot)
    assert text.returncode == 0, text.stderr
    assert bot in text.stdout


def test_outside_module_bot_in_worker_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(PLUGINS))
    spec = TournamentSpec(3, (OUTSIDE_MODULE, "easy", OUTSIDE_FILE), 6, 8)
    serial = run_games(spec)
    assert outcome(serial) == outcome(run_games(spec, workers=2))
    names = {s.name: s.games for s in summarize_games(serial)}
    assert names == {OUTSIDE_MODULE: 6, "easy": 6, OUTSIDE_FILE: 6}


def test_tournament_json_is_one_object_with_the_promised_keys() -> None:
    done = cli("tournament", "--players", "4", "--bots", "easy,random,random,medium",
                  "--games", "8", "--seed", "3", "--json")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip().splitlines()) == 1
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    bots = data["bots"]
    assert [b["name"] for b in bots] == ["easy", "random", "medium"]
    for bot in bots:
        assert set(bot) == STAT_KEYS
        assert bot["deals"] == 2
        low, high = bot["ci95"]
        assert low <= bot["mean_score"] <= high
        assert 0 <= bot["win_share"] <= 1
        assert bot["win_share_se"] >= 0
        assert 0 <= bot["bid_success"] <= 1
        assert 0 <= bot["decision_ms_median"] <= bot["decision_ms_p99"]
    assert sum(b["games"] for b in bots) == 4 * 8
    assert sum(b["win_share"] * b["games"] for b in bots) == pytest.approx(8, abs=0.01)
    assert data["deals"] == 2
    means = {b["name"]: b["mean_score"] for b in bots}
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [
        ("easy", "random"), ("easy", "medium"), ("random", "medium")]
    for pair in data["pairs"]:
        assert pair["deals"] == 2
        assert pair["mean_difference"] == pytest.approx(means[pair["a"]] - means[pair["b"]],
                                                        abs=0.002)
        low, high = pair["ci95"]
        assert low <= pair["mean_difference"] <= high


def test_tournament_text_report_lists_every_bot() -> None:
    done = cli("tournament", "--players", "3", "--bots", "easy,random,medium",
                  "--games", "3", "--seed", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for name in ("easy", "random", "medium"):
        assert any(line.split()[:1] == [name] for line in lines), name
    assert "seed 1" in done.stdout
    assert "1 deal" in done.stdout
    assert "no interval" in done.stdout  # one deal: no spread to measure


def test_tournament_text_report_shows_paired_differences_over_deals() -> None:
    done = cli("tournament", "--players", "3", "--bots", "easy,random,random",
                  "--games", "12", "--seed", "5")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "4 deals" in text
    assert "over deals" in text
    pair = [line for line in text.splitlines() if line.lstrip().startswith("easy − random")]
    assert len(pair) == 1, text
    assert "[" in pair[0]
    assert "±" in text


def test_tournament_seed_defaults_to_a_fresh_one_that_is_printed() -> None:
    """Without --seed every run is new (a bot cannot rebuild the deals from seed 0), and
    the seed it printed repeats it exactly."""
    args = ("tournament", "--players", "3", "--bots", "easy,random,random", "--games", "3")
    first = cli(*args, "--json")
    second = cli(*args, "--json")
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert isinstance(a["seed"], int)
    assert a["seed"] != b["seed"]
    assert a["seed"] >= 2**32  # too many to try them all
    again = cli(*args, "--json", "--seed", str(a["seed"]))
    c = json.loads(again.stdout)
    strip = [{k: v for k, v in bot.items() if not k.startswith("decision_ms")}
             for bot in a["bots"]]
    assert [{k: v for k, v in bot.items() if not k.startswith("decision_ms")}
            for bot in c["bots"]] == strip
    text = cli(*args)
    assert text.returncode == 0, text.stderr
    assert "--seed " in text.stdout  # the command that repeats it


def test_progress_is_reported_as_games_finish_with_workers() -> None:
    """The progress bar moves during the run, not only at its end."""
    from minodice.play.tournament import TournamentSpec as Spec
    from minodice.play.tournament import run_games as run

    seen: list[int] = []
    spec = Spec(3, ("easy", "random", "random"), 40, 3)
    run(spec, 2, seen.append)
    assert seen == sorted(seen)
    assert seen[-1] == 40
    assert len(seen) > 2


@pytest.mark.parametrize("after", [0.3, 0.6, 1.2])
def test_ctrl_c_ends_a_tournament_with_workers_without_a_traceback(after: float) -> None:
    """Ctrl-C reaches the whole process group: the workers, even while they were still
    starting, printed their own tracebacks (2 runs in 30). Now they ignore it and the
    tournament ends them itself, at once. Earlier, while the commands are imported (a
    second on a busy machine), it printed the traceback of an import (CI, 2 runs of 3);
    while the workers were started, it was lost and the tournament played on to its end
    (2 runs in 20); once they were ended, multiprocessing's resource tracker warned of
    their semaphores."""
    env = {**os.environ, "COLUMNS": "200"}
    proc = subprocess.Popen([sys.executable, "-m", "minodice.cli", "tournament", "--games",
                             "4000", "--bots", "medium,easy,easy,random", "--seed", "1",
                             "--workers", "2"], cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # as from a terminal: a job started in the background of a
                            # script (as CI may be) inherits Ctrl-C ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # timed from the interpreter's own start (its first milliseconds, before it takes
    # Ctrl-C, any program dies of it: a stalled CI machine once took over 0.6 s there)
    _wait_until_it_takes_ctrl_c(proc)
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    try:
        out, err = proc.communicate(timeout=60)  # a hang guard: it ends at once
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    # at once, not after the batches already given out (the whole run takes 1-2 minutes)
    assert time.monotonic() - sent < 10
    assert proc.returncode == 130, (proc.returncode, out[-300:], err[-300:])
    assert "Traceback" not in err, err
    assert "Traceback" not in out, out
    assert err.strip() in ("", "minodice tournament: interrupted (seed 1); records written "
                           "so far are kept"), err


def test_sigterm_ends_a_tournament_and_its_workers(tmp_path: Path) -> None:
    """``kill PID`` reaches the tournament alone: it died at once, and its workers played
    on with no parent, holding its output open (a pipe's reader waited minutes for them).
    Now it ends them as Ctrl-C does, says so, and keeps the records written."""
    proc = subprocess.Popen([sys.executable, "-m", "minodice.cli", "tournament", "--games",
                             "4000", "--bots", "medium,easy,easy,random", "--seed", "1",
                             "--workers", "2", "--save-records", str(tmp_path / "records")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2:  # the workers playing
            assert proc.poll() is None
            assert time.monotonic() < deadline, "no workers started"
            time.sleep(0.1)
        workers = _children(proc.pid)
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)  # a hang guard: the pipes close at once
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 143, (out[-300:], err[-300:])
    assert err.strip() == ("minodice tournament: stopped (SIGTERM) (seed 1); records written "
                           "so far are kept"), err
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers):
        assert time.monotonic() < deadline, "workers left running"
        time.sleep(0.1)


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux's /proc), zombies left out."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _wait_until_it_takes_ctrl_c(proc: subprocess.Popen[str]) -> None:
    """Until ``proc`` catches or ignores SIGINT (Linux's /proc/PID/status)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return  # ended already (its status would be a zombie's): the assertions say how
        try:
            status = Path(f"/proc/{proc.pid}/status").read_text()
        except OSError:
            return
        masks = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if (int(masks["SigCgt"], 16) | int(masks["SigIgn"], 16)) & (1 << (signal.SIGINT - 1)):
            return
        time.sleep(0.001)
    raise AssertionError("the interpreter never took Ctrl-C")


def test_ctrl_c_while_the_workers_start_ends_the_tournament_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C between two batches given out (while the workers ignore it as they start)
    was kept for later: then it was raised outside the code that ends the workers, and the
    pool's own exit waited for every batch (a reviewer's run: 42.7 s for 600 games)."""
    import concurrent.futures

    submit = concurrent.futures.ProcessPoolExecutor.submit
    calls = []

    def submit_then_interrupt(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            # the terminal's Ctrl-C, kept pending. To this thread: the command has no other
            # thread then, but pytest may keep some from other tests, and the kernel hands a
            # process-wide signal to one that does not block it, which drops it as ignored
            signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit",
                        submit_then_interrupt)
    # as at a terminal: a test run started in the background (as CI's may be) inherits
    # Ctrl-C ignored, and an ignored Ctrl-C is rightly dropped
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            run_games(TournamentSpec(4, ("medium", "easy", "easy", "random"), 2000, 1),
                      workers=2)
        assert time.monotonic() - start < 15  # the whole run: about a minute
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(("games", "said"), [
    (5, "2 deals, each played 4 times with the seats rotated (the last one only once: "
        "--games 8 plays it in every seat)"),
    (10, "3 deals, each played 4 times with the seats rotated (the last one only 2 times: "
         "--games 12 plays it in every seat)"),
])
def test_a_deal_played_in_part_is_said_with_the_games_that_play_it_whole(
        games: int, said: str) -> None:
    """"(the last one only 1 times)": and nothing said of how to play it in every seat."""
    from minodice.cli.reports import render_tournament
    from minodice.play.tournament import TournamentSpec as Spec
    from minodice.play.tournament import paired_differences, run_games, summarize_games

    results = run_games(Spec(4, ("random",) * 4, games, 3))
    text = render_tournament(summarize_games(results), games, 4,
                             paired_differences(results), 3)
    assert said in text.splitlines()[1]


def test_two_seats_of_one_bot_keep_their_names_through_the_rotation() -> None:
    """Records named two seats of one bot by the seat they sat in, so that "easy (1)" was
    another line-up entry in the next game; now by their place in --bots."""
    from minodice.play.tournament import TournamentSpec as Spec

    seen: list[list[str]] = []
    run_games(Spec(4, ("easy", "easy", "random", "random"), 4, 3, records=True),
              on_record=lambda _i, record: seen.append(record["players"]))
    entries = ["easy (1)", "easy (2)", "random (3)", "random (4)"]
    assert sorted(map(tuple, seen)) == sorted(
        tuple(entries[shift:] + entries[:shift]) for shift in range(4))


def test_the_report_counts_a_bot_s_seats_and_says_so_when_it_held_several() -> None:
    """"8 games" over "easy 24": the column counted seats, headed "games". It is headed
    "seats" now, and the count is explained where a bot held more than one seat."""
    from minodice.cli.reports import render_tournament
    from minodice.play.tournament import TournamentSpec as Spec
    from minodice.play.tournament import run_games, summarize_games

    shared = run_games(Spec(3, ("easy", "easy", "random"), 3, 5))
    text = render_tournament(summarize_games(shared), 3, 3, (), 5).splitlines()
    assert text[2].split()[:2] == ["bot", "seats"]
    assert [line.split()[:2] for line in text[3:5]] == [["easy", "6"], ["random", "3"]]
    assert text[1].endswith("; seats: a bot's seats in all games (a game counts once for "
                            "each of its seats)")
    alone = run_games(Spec(3, ("easy", "medium", "random"), 3, 5))
    assert "a game counts once" not in render_tournament(summarize_games(alone), 3, 3, (), 5)
