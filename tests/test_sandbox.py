"""Outside bots run in a process of their own: they cannot see the game state, change the
engine, guess the deals, print into our output, hang us or end our process — and they
play exactly as they would in ours.

Each bot that cheats raises if its cheat worked; a finished game means it failed.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot_trace import TRACED, stopped_in_its_sleep
from minodice.bots.loading import make_bot
from minodice.bots.protocol import BotError
from minodice.core.dice import DiceSet, load_dice_set
from minodice.play.match import GameResult
from minodice.play.table import new_table
from minodice.play.tournament import TournamentSpec, run_games

ROOT = Path(__file__).resolve().parent.parent
BROKEN = "tests/plugins/broken_bots.py"
NOISY = "tests/plugins/noisy_bot.py:NoisyBot"
HANG_GUARD = 60.0  # seconds: a wait this long means a hang, not a busy machine
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)"
                  rb"|\x1b[()][A-Z0-9]|\x1b[=>]")


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m minodice.cli`` from the project folder (``timeout``: a hang guard)."""
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "minodice.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)


def totals(results: list[GameResult]) -> list[tuple[list[int], list[int]]]:
    return [(r.totals, r.bids_made) for r in results]


def children() -> set[int]:
    """The processes whose parent is this one (Linux)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.add(int(entry.name))
    return found


@pytest.fixture(autouse=True)
def in_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


# -- cheating ------------------------------------------------------------------------------


def test_a_bot_cannot_find_the_game_state() -> None:
    """Today's in-process bot finds ``play_bot_game``'s ``state`` one frame up."""
    run_games(TournamentSpec(3, (f"{BROKEN}:StateSnoopingBot", "easy", "random"), 3, 1))


def test_a_bot_at_the_table_cannot_find_the_game_state() -> None:
    table = new_table(3, ["Ana"], [f"{BROKEN}:StateSnoopingBot"], seed=3)
    for seat in (1, 2):
        assert table.bot_decision(seat) in table.legal(seat)


def engine_tables(dice_set: DiceSet) -> dict[str, dict[object, object]]:
    """Every table the engine keeps on ``dice_set``, copied."""
    kept = dice_set.engine_tables
    assert isinstance(kept, dict)
    return {f"{option}.{name}": dict(value) for option, tables in kept.items()
            for name in dir(tables) if isinstance(value := getattr(tables, name, None), dict)}


def test_a_bot_cannot_change_the_engine_tables() -> None:
    mino = load_dice_set("mino")
    run_games(TournamentSpec(4, ("random",) * 4, 1, 0))  # the engine's tables are built
    before = engine_tables(mino)
    assert before
    try:
        tampered = run_games(TournamentSpec(
            4, (f"{BROKEN}:TableTamperingBot", "easy", "medium", "random"), 8, 11))
        assert engine_tables(mino) == before, "the bot rewrote our legal-move tables"
        honest = run_games(TournamentSpec(
            4, (f"{BROKEN}:FirstActionBot", "easy", "medium", "random"), 8, 11))
        assert totals(tampered) == totals(honest)
    finally:
        mino.engine_tables = None  # rebuilt on next use, whatever happened


def test_a_bot_cannot_guess_the_tournament_seed() -> None:
    """With seed 0 by default, the bot's own generator gave the seed (and every deal) away."""
    done = cli("tournament", "--players", "3", "--bots",
               f"{BROKEN}:SeedGuessingBot,easy,random", "--games", "3", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seed"] >= 2**32


# -- the same play in its own process -------------------------------------------------------


@pytest.mark.parametrize("bot", ["RandomLegalBot", "StoredRngBot"])
def test_an_isolated_bot_gets_the_same_random_draws(bot: str) -> None:
    """The bot's generator travels to its process and back: it plays exactly as the
    built-in ``random`` bot does in ours, also when it keeps the generator it was given."""
    outside = run_games(TournamentSpec(3, (f"{BROKEN}:{bot}", "easy", "random"), 6, 5))
    inside = run_games(TournamentSpec(3, ("random", "easy", "random"), 6, 5))
    assert totals(outside) == totals(inside)


def test_an_outside_bot_is_a_proxy_and_leaves_no_process_behind() -> None:
    before = children()
    bot = make_bot("tests/plugins/outside_bot.py:FirstLegalBot")
    assert type(bot).__name__ == "SandboxedBot"
    assert not hasattr(bot, "decisions")  # the real bot lives elsewhere
    run_games(TournamentSpec(4, ("tests/plugins/outside_bot.py:FirstLegalBot", "easy",
                                 f"{BROKEN}:RandomLegalBot", "random"), 8, 2))
    del bot
    deadline = time.monotonic() + HANG_GUARD
    while children() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert children() - before == set(), f"bot processes still running after {HANG_GUARD:g} s"


# -- misbehaving, through the API -------------------------------------------------------------


def expect_error(spec: str, time_limit: float | None = None) -> str:
    with pytest.raises(BotError) as info:
        run_games(TournamentSpec(3, (spec, "easy", "random"), 3, 1, time_limit=time_limit))
    return str(info.value)


def test_a_bot_that_ends_its_process_is_named() -> None:
    message = expect_error(f"{BROKEN}:AbruptBot")
    assert f"{BROKEN}:AbruptBot" in message
    assert "ended its process (exit status 1)" in message


def test_a_bot_raising_keyboard_interrupt_is_named() -> None:
    message = expect_error(f"{BROKEN}:InterruptingBot")
    assert f"{BROKEN}:InterruptingBot" in message
    assert "raised KeyboardInterrupt" in message


def test_the_time_limit_holds_off_the_main_thread(trace: Path) -> None:
    """No SIGALRM in a thread: the parent's clock stops the bot all the same (before,
    it was waited for and reported only once its 5 s sleep was over)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            run_games(TournamentSpec(3, (f"{TRACED}:TracedSlowBot", "easy", "random"), 2, 1,
                                     time_limit=0.3))
        except BotError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(HANG_GUARD)
    assert not thread.is_alive(), f"the tournament still ran after {HANG_GUARD:g} s"
    assert outcome, "no BotError"
    assert f"{TRACED}:TracedSlowBot" in str(outcome[0])  # the first to decide: no other
    assert "took longer than 0.3 s" in str(outcome[0])
    assert stopped_in_its_sleep(trace)


@pytest.mark.parametrize("bot", ["ChildSpawningSlowBot", "SessionEscapingSlowBot"])
def test_a_bot_that_overruns_is_stopped_with_what_it_started(
        bot: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its process group is ended; a process started in a session of its own (through a
    parent that exited: a daemon's double fork) outlived it, holding on for 30 s."""
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("MINODICE_TEST_PIDFILE", str(pidfile))
    # 2 s: time enough to start its child and write the pid file on a busy machine, far
    # short of its 30 s sleep
    message = expect_error(f"{BROKEN}:{bot}", time_limit=2)
    assert f"{BROKEN}:{bot}" in message
    assert "took longer than 2 s" in message
    assert pidfile.exists(), "the bot was stopped before it started its child"
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + HANG_GUARD  # it is killed at once; a busy machine lags
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    pytest.fail("the bot's own child process outlived it")


def test_a_bot_whose_constructor_hangs_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    from minodice.bots import sandbox

    monkeypatch.setattr(sandbox, "CREATE_SECONDS", 1.0)
    with pytest.raises(BotError) as info:
        make_bot(f"{BROKEN}:HangingInitBot")  # sleeps an hour
    assert f"{BROKEN}:HangingInitBot" in str(info.value)
    assert "took longer than 1 s to start" in str(info.value)


def test_a_bot_flooding_its_answer_pipe_is_cut_off() -> None:
    message = expect_error(f"{BROKEN}:FloodingBot", time_limit=60)
    assert f"{BROKEN}:FloodingBot" in message
    assert "an answer longer than 64 KB" in message


def test_a_bot_process_that_dies_at_the_table_leaves_the_table_alive() -> None:
    """The terminal game asks its bots through the table: the bot's end is not ours."""
    script = ("from minodice.play.table import new_table\n"
              "from minodice.bots.protocol import BotError\n"
              f"table = new_table(3, ['Ana'], ['{BROKEN}:KillerBot'], seed=1)\n"
              "try:\n"
              "    table.bot_decision(1)\n"
              "except BotError as exc:\n"
              "    print('error:', exc)\n"
              "print('still here')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "ended its process (exit status 3)" in done.stdout
    assert "still here" in done.stdout


def test_the_terminal_table_survives_a_bot_that_ends_its_process(tmp_path: Path) -> None:
    """``play`` with such a bot: before, the table died with it (exit 3) and left the
    terminal in the table's alternate screen. Now the table says which bot failed, and
    leaving it restores the terminal."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "USER": "tester"}
    for key in ("NO_COLOR", "FORCE_COLOR", "LANGUAGE", "LC_ALL", "MINODICE_GAMES"):
        env.pop(key, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "minodice", "play", "--delay", "0", "--players", "3",
         "--name", "Ana", "--bots", f"{BROKEN}:KillerBot", "--games-dir", str(tmp_path),
         "--seed", "1"], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT,
        start_new_session=True)
    os.close(slave)
    raw = bytearray()

    def read_until(done: Callable[[], bool], seconds: float = 60) -> None:
        end = time.monotonic() + seconds  # a hang guard
        while not done() and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    return
                raw.extend(chunk)

    def screen() -> str:
        return re.sub(r"\s+", " ", ANSI.sub(b"", bytes(raw)).decode("utf-8", "replace"))

    try:
        read_until(lambda: "Your bid, Ana" in screen())  # asked: keys before that are lost
        for _ in range(20):  # Ana bids 0 (again, if the table was not yet taking keys)
            os.write(master, b"0\r")
            read_until(lambda: "Ana has bid" in screen(), 3.0)
            if "Ana has bid" in screen():
                break
        read_until(lambda: "ended its process" in screen())  # the bots' turn
        assert proc.poll() is None, f"the table ended with status {proc.returncode}"
        assert "KillerBot" in screen()
        assert "ended its process (exit status 3)" in screen()
        os.write(master, b"q")
        read_until(lambda: proc.poll() is not None)
        assert proc.wait(timeout=30) == 0
        assert b"\x1b[?1049l" in raw  # the table's alternate screen was left
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


# -- misbehaving, through the command line ------------------------------------------------------


@pytest.mark.parametrize(("command", "bot", "phrase"), [
    ("tournament", "AbruptBot", "ended its process (exit status 1)"),
    ("tournament", "KillerBot", "ended its process (exit status 3)"),
    ("tournament", "InterruptingBot", "raised KeyboardInterrupt"),
    ("tournament --workers 2", "AbruptBot", "ended its process (exit status 1)"),
    ("tournament --workers 2", "InterruptingBot", "raised KeyboardInterrupt"),
    ("simulate", "AbruptBot", "ended its process (exit status 1)"),
    ("simulate", "KillerBot", "ended its process (exit status 3)"),
    ("simulate", "InterruptingBot", "raised KeyboardInterrupt"),
])
def test_one_line_naming_the_bot_clean_stdout_exit_1(command: str, bot: str,
                                                     phrase: str) -> None:
    spec = f"{BROKEN}:{bot}"
    done = cli(*command.split(), "--players", "3", "--bots", f"{spec},easy,random",
               "--games", "4", "--json", timeout=60)
    assert done.returncode == 1
    # standard output holds the error object and nothing else (no summary, no bot output)
    error = json.loads(done.stdout)["error"]
    assert phrase in error["message"]
    assert error["record"] is None
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert spec in lines[0]
    assert phrase in lines[0]
    # the fresh seed whole, to play the run again (a long number was cut short)
    assert f", in game {error['game']} (seed {error['seed']})" in lines[0]


def test_simulate_has_a_time_limit(trace: Path) -> None:
    spec = f"{TRACED}:TracedSlowBot"
    done = cli("simulate", "--players", "3", "--bots", f"{spec},easy,random",
               "--games", "2", "--time-limit", "0.2", timeout=60)
    assert done.returncode == 1
    assert done.stdout == ""
    assert spec in done.stderr
    assert "took longer than 0.2 s" in done.stderr
    assert stopped_in_its_sleep(trace)


@pytest.mark.parametrize("command", ["tournament", "simulate"])
def test_a_printing_bot_does_not_reach_our_output(command: str) -> None:
    done = cli(command, "--players", "3", "--bots", f"{NOISY},easy,random",
               "--games", "3", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # one JSON object, nothing else
    assert isinstance(data, dict)
    assert "noisy" not in done.stderr.lower()
    assert "thinking" not in done.stderr
    text = cli(command, "--players", "3", "--bots", f"{NOISY},easy,random", "--games", "3")
    assert text.returncode == 0, text.stderr
    assert "thinking" not in text.stdout
    assert "fd 1" not in text.stdout
    assert "imported" not in text.stdout


def test_a_failing_bot_s_last_output_is_quoted_in_its_error() -> None:
    """What a bot prints reaches no output of ours, but its author had no trace of why it
    failed: the last lines it printed (output and error alike) end the error, escaped."""
    message = expect_error(f"{BROKEN}:TalkingRaisingBot")
    assert "raised RuntimeError: the talking bot gives up" in message
    # the last three lines, in the order printed, output and error alike
    assert re.search(r"; its last output: \\x1b\[31mwarned 2\\x1b\[0m / decision 3: \d legal / "
                     r"\\x1b\[31mwarned 3\\x1b\[0m$", message), message
    assert "\x1b" not in message  # the escape is shown, never sent


def test_a_bot_printing_more_than_a_pipe_holds_plays_on() -> None:
    """Its output is read while it decides, so it never blocks on a full pipe."""
    results = run_games(TournamentSpec(3, (f"{BROKEN}:LoudBot", "easy", "random"), 1, 5,
                                       time_limit=HANG_GUARD), 1)
    assert len(results) == 1
    assert results[0].bids == [8, 8, 8]


def test_the_game_a_bot_stopped_is_kept_with_the_records(tmp_path: Path) -> None:
    """A tournament or simulation a bot stopped kept no record of the game: its author could
    not see the position. With --save-records it is written (a record that stops where the
    bot failed, saying why), and the error says where; without, how to keep it."""
    spec = f"{BROKEN}:TalkingRaisingBot"
    for command in ("tournament", "simulate"):
        folder = tmp_path / command
        done = cli(command, "--players", "3", "--bots", f"{spec},easy,random", "--games", "3",
                   "--seed", "4", "--save-records", str(folder))
        assert done.returncode == 1
        path = folder / "game-0001.json"
        assert done.stderr.strip().endswith(f"; the game so far: {path}"), done.stderr
        assert ", in game 1 (seed 4); its last output: " in done.stderr
        record = json.loads(path.read_text("utf-8"))
        assert record["stopped"].startswith(f"bot '{spec}' (seat 1) raised RuntimeError")
        assert sorted(p.name for p in folder.iterdir()) == ["game-0001.json"]
        shown = cli("replay", "--show-hands", str(path))
        assert shown.returncode == 0, shown.stderr
        assert "Game not finished: round 2 of 8" in shown.stdout  # its third decision
        assert shown.stdout.splitlines()[-1] == f"Stopped: {record['stopped']}"
        without = cli(command, "--players", "3", "--bots", f"{spec},easy,random",
                      "--games", "3", "--seed", "4")
        assert without.stderr.strip().endswith("; --save-records FOLDER keeps the game so far")
        # with --json, a script reads it on standard output too (replay's and analyse's
        # errors come so), the record kept named
        again = cli(command, "--players", "3", "--bots", f"{spec},easy,random", "--games", "3",
                    "--seed", "4", "--save-records", str(folder), "--force", "--json")
        assert again.returncode == 1
        error = json.loads(again.stdout)["error"]
        assert (error["game"], error["seed"], error["record"]) == (1, 4, str(path))
        assert error["message"].startswith(f"bot '{spec}' (seat 1) raised RuntimeError")
