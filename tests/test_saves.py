"""Saved games are never lost: one file per game, a lock per file, writes that cannot
leave half a file, a games folder checked before play, a failed save said on screen, and
commands printed after play that run as printed.

The end-to-end cases run the real ``minodice play`` in a pseudo-terminal, as a person
would, and press its keys.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import pty
import re
import select
import shlex
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from minodice.cli import app
from minodice.cli.play import resume_table
from minodice.core.record import parse_record
from minodice.play import saves
from minodice.play.saves import GameFile, GameInUseError, SaveError
from minodice.play.table import Table, new_table
from minodice.tui.app import save_table

ANSI = re.compile(rb"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)")


def table_after(decisions: int, seed: int = 4, people: tuple[str, ...] = ("Ana",)) -> Table:
    table = new_table(4, list(people), ["easy"], seed=seed)
    for _ in range(decisions):
        seat = table.to_act()[0]
        action = (table.legal(seat)[0] if table.seats[seat].is_human
                  else table.bot_decision(seat))
        table.act(seat, action)
    return table


def base_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, TERM="xterm-256color", PYTHONIOENCODING="utf-8", LANG="C.UTF-8",
               USER="tester")
    for key in ("FORCE_COLOR", "NO_COLOR", "LANGUAGE", "LC_ALL", "MINODICE_GAMES"):
        env.pop(key, None)
    env.update(extra)
    return env


def minodice(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``minodice ARGS`` with pipes (not a terminal)."""
    return subprocess.run([sys.executable, "-m", "minodice", *args], capture_output=True,
                          text=True, env=env or base_env(), timeout=120, check=False)


class Terminal:
    """A program in an 80×24 pseudo-terminal: read what it draws, press keys."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave,
                                     env=env or base_env(), start_new_session=True)
        os.close(slave)
        self.master = master
        self.raw = b""
        self.closed = False

    def _read(self, seconds: float) -> None:
        ready, _, _ = select.select([self.master], [], [], seconds)
        if not ready:
            return
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # the program ended and closed the terminal
            chunk = b""
        if not chunk:
            self.closed = True
        self.raw += chunk

    @property
    def text(self) -> str:
        return ANSI.sub(b"", self.raw).decode("utf-8", "replace")

    def wait_for(self, needle: str, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        while needle not in self.text:
            if self.closed or time.monotonic() > end:
                raise AssertionError(f"{needle!r} never appeared; the screen said:\n"
                                     f"{self.text[-3000:]}")
            self._read(0.1)

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def finish(self, timeout: float = 60) -> int:
        end = time.monotonic() + timeout
        while not self.closed and time.monotonic() < end:
            self._read(0.1)
        code = self.proc.wait(timeout=10)
        os.close(self.master)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if not self.closed:
            os.close(self.master)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    started: list[Terminal] = []
    yield started
    for terminal in started:
        terminal.kill()


READY = "q save & quit"  # the keys line: the table is drawn and takes keys


def play_in(terminals: list[Terminal], *args: str, argv: list[str] | None = None,
            env: dict[str, str] | None = None) -> Terminal:
    terminal = Terminal([*(argv or [sys.executable, "-m", "minodice"]), "play", "--delay", "0",
                         *args], env)
    terminals.append(terminal)
    return terminal


def note_after(terminal: Terminal, prefix: str) -> str:
    """The line the program printed after play that starts with ``prefix``."""
    for line in terminal.text.splitlines():
        if prefix in line:
            return line[line.index(prefix) + len(prefix):].strip()
    raise AssertionError(f"no {prefix!r} line in:\n{terminal.text[-2000:]}")


# -- writing a file: unique temporary file, fsync, replace, clean up ----------------------------


def test_a_save_fsyncs_the_file_and_its_folder(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    save_table(table_after(5), tmp_path / "game.json")
    assert parse_record((tmp_path / "game.json").read_text("utf-8"))
    assert str(tmp_path) in synced          # the folder, so the new name survives a crash
    assert any(s.startswith(str(tmp_path / ".game.json.")) for s in synced)  # the data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_a_failed_save_leaves_the_old_file_and_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.json"
    save_table(table_after(5), path)
    before = path.read_bytes()

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    monkeypatch.setattr(Path, "replace", full)
    with pytest.raises(OSError, match="No space left"):
        save_table(table_after(9), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_two_saves_at_once_use_two_temporary_files(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary file is never a fixed name another session may write at the same time."""
    names: list[str] = []
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        names.append(str(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    save_table(table_after(3), tmp_path / "game.json")
    save_table(table_after(4), tmp_path / "game.json")
    assert len(set(names)) == 2
    assert all(Path(n).parent == tmp_path and n != str(tmp_path / "game.tmp") for n in names)


# -- names: never shared, no seed -----------------------------------------------------------------


def test_two_games_started_in_the_same_second_get_two_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.0)
    first = GameFile.create(tmp_path, "one")
    second = GameFile.create(tmp_path, "two")
    assert first.path != second.path
    assert first.path.read_text("utf-8") == "one"
    assert second.path.read_text("utf-8") == "two"
    assert re.fullmatch(r"game-\d{8}-\d{6}-[0-9a-z]{6,}\.json", first.path.name)
    first.close()
    second.close()


def test_two_people_start_the_same_seed_in_the_same_second(
        tmp_path: Path, terminals: list[Terminal]) -> None:
    """Two ``play --seed 42`` at once, as two people would: two games, two files."""
    folder = tmp_path / "games"
    sessions = [play_in(terminals, "--seed", "42", "--games-dir", str(folder))
                for _ in range(2)]
    for session in sessions:
        session.wait_for(READY)
    for session in sessions:
        session.press("q")
    assert [s.finish() for s in sessions] == [0, 0]
    files = sorted(folder.glob("*.json"))
    assert len(files) == 2
    for f in files:  # the time and a random suffix; no seed (it tells the dice to come)
        assert re.fullmatch(r"game-\d{8}-\d{6}-[a-z2-9]{8}\.json", f.name), f.name
    printed = {note_after(s, "--resume") for s in sessions}
    assert len(printed) == 2


# -- one session per game -----------------------------------------------------------------------


def test_a_game_file_is_held_by_one_session(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    save_table(table_after(10), path)
    first = GameFile.open(path)
    with pytest.raises(GameInUseError) as refused:
        GameFile.open(path)
    message = str(refused.value)
    assert str(path) in message
    assert "open in another" in message
    assert str(os.getpid()) in message
    first.close()
    again = GameFile.open(path)  # released: the next session may take it
    again.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]  # no lock file left


def test_a_second_resume_of_an_open_game_refuses_and_leaves_the_file(
        tmp_path: Path, terminals: list[Terminal]) -> None:
    path = tmp_path / "game.json"
    save_table(table_after(10), path)
    first = play_in(terminals, "--resume", str(path))
    first.wait_for(READY)
    before = path.read_bytes()
    second = minodice("play", "--resume", str(path))
    assert second.returncode == 1
    assert "open in another minodice play" in second.stderr
    assert str(path) in second.stderr
    assert path.read_bytes() == before
    first.press("q")
    assert first.finish() == 0
    # Once the first session is gone, the game may be resumed again.
    third = minodice("play", "--resume", str(path))
    assert "open in another" not in third.stderr
    assert "needs a terminal" in third.stderr


# -- the games folder: checked at start; a failed save said, the game kept --------------------


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Path:
    """A folder that exists and cannot be written (as root: a read-only file system)."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    for candidate in (Path("/sys"), Path("/proc/sys")):
        try:
            os.close(os.open(candidate / "minodice-probe", os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError:
            return candidate
    pytest.skip("no folder this test cannot write to")


def test_an_unwritable_games_folder_is_refused_before_play(unwritable_folder: Path) -> None:
    result = CliRunner().invoke(app, ["play", "--games-dir", str(unwritable_folder)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"cannot save games in {unwritable_folder}" in result.stderr
    assert "--games-dir" in result.stderr


def test_a_failed_save_keeps_the_game_open_and_quitting_unsaved_fails(
        tmp_path: Path, terminals: list[Terminal]) -> None:
    folder = tmp_path / "games"
    session = play_in(terminals, "--games-dir", str(folder))
    session.wait_for(READY)
    shutil.rmtree(folder)
    folder.write_text("not a folder any more", "utf-8")  # every save there fails now
    session.press("q")
    session.wait_for("Could not save")
    assert session.proc.poll() is None  # still playing
    session.press("q")                  # quit anyway: no saved game
    assert session.finish() == 1
    last = session.text.strip().splitlines()[-1]  # printed once the terminal is restored
    assert "not saved" in last
    assert str(folder) in last
    assert "Not a directory" in last


# -- the commands printed after play run as printed --------------------------------------------


@pytest.mark.parametrize("how", ["script", "module"])
def test_the_printed_resume_command_runs_as_printed(tmp_path: Path, terminals: list[Terminal],
                                                    how: str) -> None:
    script = Path(sys.executable).parent / "minodice"
    if how == "script" and not script.exists():
        pytest.skip("no minodice console script next to this Python")
    argv = [str(script)] if how == "script" else [sys.executable, "-m", "minodice"]
    env = base_env(PATH="/usr/bin:/bin")  # as after `make play`: minodice is not on the PATH
    folder = tmp_path / "my games"      # a space: the printed command must quote it
    session = play_in(terminals, "--games-dir", str(folder), argv=argv, env=env)
    session.wait_for(READY)
    session.press("q")
    assert session.finish() == 0
    command = note_after(session, "Continue it with:")
    saved = next(folder.glob("*.json"))
    assert shlex.split(command)[-2:] == ["--resume", str(saved)]
    again = Terminal(["/bin/sh", "-c", command], env)
    terminals.append(again)
    again.wait_for(READY)
    again.press("q")
    assert again.finish() == 0
    assert note_after(again, "Continue it with:") == command


def test_the_printed_resume_command_runs_with_an_outside_bot_from_another_folder(
        tmp_path: Path, terminals: list[Terminal]) -> None:
    """A game against ``mybot.py:Class`` started in the bot's folder: the printed command
    lacked --trust-bots (the game refused to load the bot), and the bot's file was looked
    for in the folder the game was continued from."""
    bots = tmp_path / "my bots"
    bots.mkdir()
    shutil.copy(Path(__file__).parent / "plugins" / "outside_bot.py", bots / "mybot.py")
    folder = tmp_path / "games"
    python = shlex.quote(sys.executable)
    start = Terminal(["/bin/sh", "-c", f"cd {shlex.quote(str(bots))} && exec {python} -m "
                      f"minodice play --delay 0 --games-dir {shlex.quote(str(folder))} "
                      "--bots mybot.py:FirstLegalBot"])
    terminals.append(start)
    start.wait_for(READY)
    start.press("q")
    assert start.finish() == 0
    command = note_after(start, "Continue it with:")
    assert command.endswith(" --trust-bots")
    again = Terminal(["/bin/sh", "-c", f"cd {shlex.quote(str(tmp_path))} && {command}"])
    terminals.append(again)
    again.wait_for(READY)
    again.press("q")
    assert again.finish() == 0
    assert note_after(again, "Continue it with:") == command


# -- minodice games and play --continue ----------------------------------------------------------


def saved_games(folder: Path) -> list[Path]:
    """Three saved games, oldest first: unfinished, unfinished, finished."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, (decisions, people) in enumerate([(3, ("Ana",)), (40, ("Ben", "Cleo")),
                                             (None, ("Dara",))]):
        table = table_after(decisions or 0, seed=i, people=people)
        if decisions is None:
            while not table.is_over():
                seat = table.to_act()[0]
                table.act(seat, table.legal(seat)[0])
        path = folder / f"saved-{i}.json"
        save_table(table, path)
        os.utime(path, (1_700_000_000 + 100 * i, 1_700_000_000 + 100 * i))
        paths.append(path)
    return paths


def test_games_lists_saved_games_newest_first(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    oldest, middle, finished = saved_games(folder)
    (folder / "broken.json").write_text("{", "utf-8")
    proc = minodice("games", "--games-dir", str(folder))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    order = [next(i for i, line in enumerate(lines) if p.name in line)
             for p in (finished, middle, oldest)]
    assert order == sorted(order)
    middle_line = lines[order[1]]
    assert "Ben, Cleo" in middle_line
    assert re.search(r"round [1-8]/8", middle_line)
    assert time.strftime("%Y-%m-%d", time.localtime(1_700_000_100)) in middle_line
    assert "finished" in lines[order[0]]
    assert "broken.json" in proc.stdout  # listed, with why it cannot be resumed


def test_games_says_when_there_are_none(tmp_path: Path) -> None:
    proc = minodice("games", "--games-dir", str(tmp_path / "none-yet"))
    assert proc.returncode == 0
    assert f"No saved games in {tmp_path / 'none-yet'}" in proc.stdout
    assert "minodice play" in proc.stdout


def test_continue_takes_the_newest_unfinished_game(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    _oldest, middle, _finished = saved_games(folder)
    newest = saves.newest_unfinished(folder)
    assert newest is not None
    assert newest.path == middle
    assert resume_table(newest.path).names[:2] == ["Ben", "Cleo"]


def test_continue_with_no_saved_game_says_so(tmp_path: Path) -> None:
    proc = minodice("play", "--continue", "--games-dir", str(tmp_path))
    assert proc.returncode == 1
    assert "no unfinished game" in proc.stderr.lower()
    assert str(tmp_path) in proc.stderr


def test_continue_with_only_another_program_s_record_names_the_way_on(tmp_path: Path) -> None:
    """`games` listed it ("a record, not saved by minodice play"), and `play --continue`
    said only "no unfinished game": it now says how that record goes on."""
    done = minodice("simulate", "--games", "1", "--save-records", str(tmp_path / "recs"))
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "recs" / "game-0001.json").read_text("utf-8"))
    record["rounds"] = record["rounds"][:3]
    path = tmp_path / "games" / "cut.json"
    path.parent.mkdir()
    path.write_text(json.dumps(record), "utf-8")
    proc = minodice("play", "--continue", "--games-dir", str(path.parent))
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith(
        f"; the record {path} (not saved by minodice play) goes on with: "
        f"{proc.stderr.split('start one with: ')[1].split(' play')[0]} play --resume {path} "
        "--name YOUR-NAME"), proc.stderr


def test_continue_resumes_it_in_the_terminal(tmp_path: Path, terminals: list[Terminal]) -> None:
    folder = tmp_path / "games"
    _oldest, middle, _finished = saved_games(folder)
    session = play_in(terminals, "--continue", "--games-dir", str(folder))
    session.wait_for(READY)
    session.press("q")
    assert session.finish() == 0
    assert str(middle) in note_after(session, "Continue it with:")


# -- simulate --save-records ------------------------------------------------------------------


def test_simulate_does_not_overwrite_a_record_unless_forced(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    kept = folder / "game-0002.json"
    kept.write_text("someone's game", "utf-8")
    proc = minodice("simulate", "-g", "3", "--save-records", str(folder))
    assert proc.returncode != 0
    assert "game-0002.json" in proc.stderr
    assert "--force" in proc.stderr
    assert kept.read_text("utf-8") == "someone's game"
    assert sorted(p.name for p in folder.iterdir()) == ["game-0002.json"]
    proc = minodice("simulate", "-g", "3", "--save-records", str(folder), "--force")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(kept.read_text("utf-8"))["format"] == "minodice-record"
    assert sorted(p.name for p in folder.iterdir()) == [
        "game-0001.json", "game-0002.json", "game-0003.json"]


def test_a_lost_write_race_is_refused_not_overwritten(tmp_path: Path) -> None:
    """The check before the run is not enough: the write itself never replaces a file."""
    path = tmp_path / "game-0001.json"
    path.write_text("first", "utf-8")
    with pytest.raises(FileExistsError):
        saves.write_atomic(path, "second", replace=False)
    assert path.read_text("utf-8") == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-0001.json"]


def test_save_error_says_where_and_why(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", "utf-8")
    with pytest.raises(SaveError) as failed:
        GameFile.create(blocker, "{}")
    assert str(blocker) in str(failed.value)
    assert "Not a directory" in str(failed.value)
