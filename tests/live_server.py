"""A real ``minodice serve`` process for the tests that talk to one over the network
(tests/online, tests/browser): started on a free port and a fresh SQLite file, ready once
``GET /api/tables`` answers, and always killed at teardown.

The server runs in a session (process group) of its own, so that killing it also ends the
bot workers it spawned. :meth:`LiveServer.kill9` crashes it the hard way (SIGKILL) and
:meth:`LiveServer.start` starts it again on the same database and port.

A module of ``tests/`` (not a package), imported as ``live_server`` like ``examples``:
pytest puts ``tests/`` on ``sys.path`` for the test packages below it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

READY_TIMEOUT = 60.0  # seconds: a hang guard (a server loading thousands of tables on a
# busy machine took over 30 s to answer)
# A test suite is one client address doing what many people would: the per-address flood
# limits are raised for it (tests/online/test_floods.py runs servers with the real ones).
LENIENT = ("--connect-rate", "100", "--new-tables", "100000", "--read-rate", "1000",
           "--waiting-per-address", "100000")
GAME_TIMEOUT = 120.0  # seconds: a hang guard for a game of bots


def free_port() -> int:
    """A port nobody listens on now (the OS picks it for a socket bound to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    """One server's settings and its current process (``None`` before the first start).

    ``grace`` is ``--grace`` (seconds away before a bot plays for a person); ``options``
    are more options for ``minodice serve``; ``lenient``: the per-address limits raised
    (:data:`LENIENT`), else the server's defaults.
    """

    db: Path | str  # a SQLite file, or a database's URL (postgresql://...)
    port: int
    log: Path
    grace: float = 30.0
    options: tuple[str, ...] = ()
    lenient: bool = True
    proc: subprocess.Popen[bytes] | None = None
    groups: list[int] = field(default_factory=list)  # every process group started

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "minodice", "serve", "--host", "127.0.0.1",
                "--port", str(self.port), "--db", str(self.db), "--bot-delay", "0",
                "--grace", f"{self.grace:g}", *(LENIENT if self.lenient else ()),
                *self.options]

    def start(self) -> None:
        """Start the server (again) and wait until it answers; fail after READY_TIMEOUT."""
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError("the server is still running")
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.groups.append(self.proc.pid)
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            code = self.proc.poll()
            if code is not None:
                raise RuntimeError(f"the server exited with {code}:\n{self.log_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/api/tables", timeout=2).status_code == 200:
                    return
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not answer in {READY_TIMEOUT:g} s:\n"
                                   f"{self.log_text()}")
            time.sleep(0.05)

    def kill9(self) -> None:
        """Crash the server: SIGKILL its process, then its bot workers."""
        proc = self.proc
        assert proc is not None, "the server was never started"
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    def stop(self) -> None:
        """Kill every process this server started, whatever state it is in."""
        for group in self.groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=10)

    def log_text(self) -> str:
        """The end of the server's log (for a failure's message)."""
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """``POST`` JSON to ``path``; its JSON answer (a 200 or 201, or the test fails)."""
        response = httpx.post(self.base + path, json=body, timeout=10)
        assert response.status_code in (200, 201), response.text
        return response.json()

    def get(self, path: str) -> Any:
        """``GET`` ``path``; its JSON answer (a 200, or the test fails)."""
        response = httpx.get(self.base + path, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    def finished_bot_game(self, players: int, bot: str = "easy") -> str:
        """The id of a new table of ``players`` bots, once they have played it to its end
        (a hang guard of GAME_TIMEOUT)."""
        table: str = self.post("/api/tables", {"players": players, "bots": [bot] * players})[
            "table"]
        deadline = time.monotonic() + GAME_TIMEOUT
        while self.get(f"/api/tables/{table}")["status"] != "finished":
            assert time.monotonic() < deadline, \
                f"the bots did not finish their game in {GAME_TIMEOUT:g} s"
            time.sleep(0.2)
        return table


StartServer = Callable[..., LiveServer]


@contextlib.contextmanager
def servers(folder: Path, grace: float = 30.0, options: tuple[str, ...] = (),
            lenient: bool = True) -> Iterator[StartServer]:
    """``start(db=None, port=None, grace=None)`` starts a server whose files are in
    ``folder`` (``grace``, ``options`` and ``lenient`` the defaults for each); every
    server it started is stopped at the end."""
    started: list[LiveServer] = []

    def start(db: Path | str | None = None, port: int | None = None,
              grace: float = grace) -> LiveServer:
        count = len(started) + 1
        server = LiveServer(db or folder / f"db{count}.sqlite3", port or free_port(),
                            folder / f"server{count}.log", grace, options, lenient)
        started.append(server)
        server.start()
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()
