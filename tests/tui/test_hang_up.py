"""The real ``minodice play`` in a pseudo-terminal, ended by a signal rather than a key: the
terminal closed (SIGHUP) or ``kill PID`` (SIGTERM) save and quit as q does — the bids
already made kept, the terminal given back as it was (normal screen, cursor, no mouse)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from minodice.cli.play import resume_table

# The child becomes a session of its own with the pseudo-terminal as its controlling
# terminal (as a shell in a terminal window does), so that closing it is a real hang-up.
LAUNCH = ("import os, sys; os.login_tty(0); "
          "os.execv(sys.executable, [sys.executable, '-m', 'minodice', *sys.argv[1:]])")


class Terminal:
    """``minodice ARGS`` in an 80×24 pseudo-terminal, and everything it wrote."""

    def __init__(self, *args: str) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", PYTHONIOENCODING="utf-8")
        env.pop("NO_COLOR", None)
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCH, *args], stdin=slave,
                                     stdout=slave, stderr=slave, env=env)
        os.close(slave)
        self.master: int | None = master
        self.output = b""

    def read(self, timeout: float = 0.1) -> bool:
        """Read what came within ``timeout``; ``False`` once the program is gone."""
        assert self.master is not None
        ready, _w, _x = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the other side is closed
            return False
        self.output += chunk
        return bool(chunk)

    def wait_for(self, text: str, timeout: float = 90) -> None:
        end = time.monotonic() + timeout
        while text.encode() not in self.output:
            if time.monotonic() > end or not self.read():
                raise AssertionError(f"{text!r} never came; the screen's last bytes: "
                                     f"{self.output[-600:]!r}")

    def send(self, keys: str) -> None:
        assert self.master is not None
        os.write(self.master, keys.encode())
        time.sleep(0.3)  # one key at a time, as typed (an escape is not a prefix of more)

    def finish(self, timeout: float = 60) -> int:
        """Everything the program writes until it ends; its exit status."""
        end = time.monotonic() + timeout
        while self.master is not None and self.read(0.2):
            if time.monotonic() > end:
                break
        return self.proc.wait(timeout=max(1.0, end - time.monotonic()))

    def hang_up(self, timeout: float = 60) -> int:
        """Close the terminal, as a closed window does: the program gets SIGHUP."""
        assert self.master is not None
        os.close(self.master)
        self.master = None
        return self.proc.wait(timeout=timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.master is not None:
            os.close(self.master)
            self.master = None


def only_game(folder: Path) -> Path:
    games = list(folder.glob("*.json"))
    assert len(games) == 1, games
    return games[0]


def ana_has_bid(tmp_path: Path) -> Terminal:
    """Ana and Ben at one screen: Ana bids 1, and the screen waits for Ben."""
    term = Terminal("play", "--name", "Ana", "--name", "Ben", "--seed", "41", "--delay", "0",
                    "--games-dir", str(tmp_path / "games"))
    try:
        term.wait_for("Pass to Ana")
        term.send("\r")
        term.wait_for("Your bid, Ana")
        term.send("1")
        term.send("\r")
        term.wait_for("Pass to Ben")
    except BaseException:
        term.close()
        raise
    return term


def assert_ana_s_bid_kept(game: Path) -> None:
    """The game holds Ana's secret bid: resumed, it asks Ben (and the bots), not Ana."""
    saved = json.loads(game.read_text("utf-8"))
    assert saved["session"]["bids"] == [1, None, None, None]
    table = resume_table(game)
    assert 0 not in table.to_act()
    assert 1 in table.to_act()
    assert table.view(0).bids[0] == 1


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_kill_saves_the_bids_and_gives_the_terminal_back(tmp_path: Path, signum: int) -> None:
    term = ana_has_bid(tmp_path)
    try:
        before = len(term.output)
        term.proc.send_signal(signum)
        code = term.finish()
    finally:
        term.close()
    after = term.output[before:]
    assert code == 0, after[-600:]
    # The terminal as it was: the normal screen, the cursor shown, no mouse reports.
    for sequence in (b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?1000l", b"\x1b[?1003l"):
        assert sequence in after, sequence
    assert b"Game saved. Continue it with:" in after  # as after q
    assert_ana_s_bid_kept(only_game(tmp_path / "games"))
    assert not list((tmp_path / "games").glob(".*.lock"))  # the game let go


def test_closing_the_terminal_saves_the_bids(tmp_path: Path) -> None:
    term = ana_has_bid(tmp_path)
    try:
        code = term.hang_up()
    finally:
        term.close()
    assert code == 0
    assert_ana_s_bid_kept(only_game(tmp_path / "games"))
    assert not list((tmp_path / "games").glob(".*.lock"))
