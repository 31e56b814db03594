"""PostgreSQL and Redis servers of the tests' own: started from Debian's binaries on free
ports, listening on 127.0.0.1 only, with their files in a temporary folder, and stopped at
the end (``make test`` installs the binaries where they are missing:
scripts/ensure_services.sh).

PostgreSQL refuses to run as root: run as root, both run as an unprivileged user
(``postgres`` where the package made it, else ``nobody``), in a folder that user owns.
Each test gets a fresh database of its own on the session's server (``CREATE DATABASE``
takes a few milliseconds), so that no test sees another's tables.

A module of ``tests/`` (not a package), imported as ``services`` like ``live_server``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

START_TIMEOUT = 30.0  # seconds: a hang guard for a server coming up


class ServiceMissingError(RuntimeError):
    """A server's binary is not on this machine (the message says how to get it)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_bin() -> Path:
    """The folder of PostgreSQL's server binaries (the newest version installed)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"),
                   key=lambda p: int(Path(p).parent.parent.name)
                   if Path(p).parent.parent.name.isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    if on_path:
        return Path(on_path).parent
    raise ServiceMissingError("PostgreSQL's server is not installed: run `make test` (it installs "
                         "Debian's postgresql) or `apt-get install postgresql`")


def redis_binary() -> Path:
    found = shutil.which("redis-server") or (
        "/usr/bin/redis-server" if os.access("/usr/bin/redis-server", os.X_OK) else None)
    if found is None:
        raise ServiceMissingError("redis-server is not installed: run `make test` (it installs "
                             "Debian's redis-server) or `apt-get install redis-server`")
    return Path(found)


def _unprivileged() -> tuple[int, int] | None:
    """The (uid, gid) to run servers as when we are root; ``None`` when we are not."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(name)
            return entry.pw_uid, entry.pw_gid
    raise ServiceMissingError("running as root, and no unprivileged user (postgres, nobody) to "
                         "run PostgreSQL as")


def _folder(prefix: str) -> Path:
    """A temporary folder the servers' user owns (``/tmp/pytest-of-root`` is root's only)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    user = _unprivileged()
    if user is not None:
        os.chown(folder, *user)
    return folder


def _run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    user = _unprivileged()
    if user is not None:
        kwargs.setdefault("user", user[0])
        kwargs.setdefault("group", user[1])
        kwargs.setdefault("extra_groups", [])
    return subprocess.run(args, capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL, **kwargs)


def _wait_for_port(port: int, what: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not listen in {START_TIMEOUT:g} s:\n"
                               f"{_tail(log)}")
        time.sleep(0.05)


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-3000:]
    except OSError:
        return ""


@dataclass
class Postgres:
    """One PostgreSQL server (a cluster of its own); :meth:`stop` and :meth:`start` again
    keep its data, as a restart of an operator's database would."""

    folder: Path
    port: int = field(default_factory=free_port)
    running: bool = False
    _databases: int = 0

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def url(self, database: str = "postgres") -> str:
        """The URL ``minodice serve --db`` takes (no password: trust on 127.0.0.1 only)."""
        return f"postgresql://minodice@127.0.0.1:{self.port}/{database}"

    def init(self) -> None:
        done = _run([str(postgres_bin() / "initdb"), "-D", str(self.data), "-U", "minodice",
                     "--auth=trust", "--no-sync", "--no-instructions", "-E", "UTF8",
                     "--locale=C"])
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip()[-2000:]}")

    def start(self) -> None:
        # Only TCP on 127.0.0.1 (no Unix socket in a system folder), a few connections,
        # and no fsync: a test's data need not survive a power cut, only a restart.
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   "-c unix_socket_directories='' -c fsync=off -c full_page_writes=off "
                   "-c max_connections=60 -c shared_buffers=16MB")
        done = _run([str(postgres_bin() / "pg_ctl"), "-D", str(self.data), "-l", str(self.log),
                     "-o", options, "-w", "-t", str(int(START_TIMEOUT)), "start"])
        if done.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start: {done.stderr.strip()[-500:]}\n"
                               f"{_tail(self.log)}")
        _wait_for_port(self.port, "PostgreSQL", self.log)
        self.running = True

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: connections are cut, as an operator's restart does)."""
        if not self.running:
            return
        _run([str(postgres_bin() / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w",
              "stop"])
        self.running = False

    def new_database(self) -> str:
        """A fresh, empty database on this server; its URL."""
        import psycopg

        self._databases += 1
        name = f"test_{os.getpid()}_{self._databases}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=minodice "
                             "dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextlib.contextmanager
def postgres_server() -> Iterator[Postgres]:
    """A PostgreSQL server of its own, stopped and removed at the end."""
    server = Postgres(_folder("minodice-pg-"))
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(server.folder, ignore_errors=True)


@dataclass
class Redis:
    """One redis-server, no persistence."""

    folder: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log(self) -> Path:
        return self.folder / "redis.log"

    def start(self) -> None:
        user = _unprivileged()
        extra: dict[str, Any] = {}
        if user is not None:
            extra = {"user": user[0], "group": user[1], "extra_groups": []}
        self.proc = subprocess.Popen(
            [str(redis_binary()), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.folder), "--save", "", "--appendonly", "no",
             "--daemonize", "no", "--logfile", str(self.log)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, **extra)
        _wait_for_port(self.port, "redis-server", self.log)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@contextlib.contextmanager
def redis_server() -> Iterator[Redis]:
    server = Redis(_folder("minodice-redis-"))
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)
