"""Server capacity: tables of four people playing over real WebSockets against a real server.

A real ``minodice serve`` process (``--bot-delay 0`` and its per-address and flood limits
raised out of the way, :data:`UNLIMITED`: every simulated person comes from 127.0.0.1; a
fresh SQLite file per level) and separate load processes (this script with ``--load``) on
127.0.0.1. Each simulated person holds one WebSocket; when a view gives it a ``turn`` it
waits the think time (2 s), then sends
``{"type": "act", "turn": T, "action": <a random legal action>}``. A table whose game
ends creates and joins a new one, so every level keeps its tables busy.

Latency is measured by the load process from sending an action to receiving the first view
(higher ``seq``) in which that seat's decision shows: the number of decisions the seat has
made in the game, read from the view (bids and rolls of the finished rounds in ``history``,
``has_bid`` and the seat's rolls in ``tricks``/``trick`` of this round), has grown.

Before a level is measured its tables are created, joined and connected, and — unless
``--no-spread`` — each game is first played quickly (a few tens of ms per decision) to a
random point, so that the tables are spread over all stages of a game, as on a server that
has run for a while (views grow with a game's history). Then a warm-up, then the measured
window. For each level: actions handled per second, latency p50/p99, the server's resident
memory (VmRSS at the end) and CPU (its own process, and its bot workers apart), and the load
processes' CPU and event-loop lag (a loaded client delays its own readings).

The reference, measured first in the same run, is one table alone on a fresh server (think
time ``--ref-think``, so that it gives enough samples); each level's latency is also printed
as a ratio to it, since these machines are noisy.

Bots: on one more server, ``--bot-base`` tables of people are set up once, then tables of one
person and three ``hard`` bots are added step by step up to each K of ``--bot-tables``, and
each step is measured: the bot decisions a second (counted from the person's views at those
tables), how long each bot decision took as seen there, and the people's tables' latency
with and without the bots.

Each level of people gets a fresh server and database. The machine may be shared: before
each measure the script waits (at most ``--quiet-wait`` s) for other processes to calm down,
and it prints how much CPU they took during the measure ("others%", in % of one core).

Run: ``python benchmarks/server.py [--tables 100,500,1000] [--duration 60] [--warmup 15]
[--load-procs 4] [--bot-base 200] [--bot-tables 0,5,10,20,40]``. Everything stops by itself;
the servers are stopped (process group and all) even on errors or Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import os
import queue
import random
import resource
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from minodice.server.collector import keep_collections_short
from minodice.wire.http import SeatTaken, TableCreated

PLAYERS = 4
HOST = "127.0.0.1"
FAST_THINK = 0.06        # seconds per decision while spreading games (under 20 messages/s)
BOT_TABLE = [None, "hard", "hard", "hard"]
SERVER_LOGS = {"bot pool replaced": "replacing the workers",     # what the server's log
               "bot answers replaced by random": "playing at random",  # lines are counted
               "tracebacks": "Traceback"}


def raise_nofile(wanted: int = 65536) -> int:
    """Raise this process's open-file limit (children inherit it); returns the new one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def decisions_made(view: Mapping[str, Any], seat: int) -> int:
    """How many decisions ``seat`` has made in this game, as the view shows them.

    Each finished round holds one bid and ``round`` rolls per seat; in the round being
    played, a bid shows as ``has_bid`` and a roll in ``tricks`` or ``trick``. ``view`` is
    the message's ``view`` object as JSON reads it: a load process stands for clients on
    other machines, and validating every view with the wire models (some 2,000 a second at
    1,000 tables) would take most of a core of the machine the server is measured on.
    """
    count = sum(1 + past["round"] for past in view["history"])
    if view["phase"] in ("bid", "play"):
        if view["has_bid"][seat]:
            count += 1
        for trick in view["tricks"]:
            count += sum(1 for roll in trick["rolls"] if roll["seat"] == seat)
        count += sum(1 for roll in view["trick"] if roll["seat"] == seat)
    return int(count)


# == the load process ========================================================================


@dataclass
class LoadStats:
    """What one load process saw; only events inside the measured window count."""

    start: float = float("inf")
    end: float = float("inf")
    latencies: dict[str, list[float]] = field(
        default_factory=lambda: {"people": [], "bot-tables": []})
    errors: Counter[str] = field(default_factory=Counter)
    bot_decisions: int = 0
    bot_gaps: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    views: int = 0
    view_bytes: int = 0
    games_finished: int = 0
    tables_created: int = 0
    pending_at_end: int = 0

    def inside(self, t: float) -> bool:
        return self.start <= t < self.end


RECONNECTS = 10  # times a seat connects again after its table moved (1012) or was away (1013)


class Seat:
    """One simulated person: one WebSocket, answering each turn after the think time."""

    def __init__(self, group: Group, seat: int, table: str, token: str,
                 port: int | None = None) -> None:
        self.group = group
        self.seat = seat
        self.url = f"ws://{HOST}:{port or group.load.port}/ws/{table}?token={token}"
        self.seq = -1
        self.answered: str | None = None
        self.pending: tuple[int, float] | None = None   # (decisions before, sent at)
        self.ws: Any = None
        self.acting: asyncio.Task[None] | None = None
        self.last: tuple[str, str, int] | None = None    # (turn, action, decisions before)

    async def run(self) -> None:
        from websockets.exceptions import ConnectionClosed

        load = self.group.load
        try:
            for attempt in range(RECONNECTS + 1):
                try:
                    await self.connected()
                    return
                except ConnectionClosed as exc:
                    # 1012: the table moved to another server process (its lease changed
                    # hands); 1013: its owner could not be reached for a moment. A client
                    # behind a load balancer connects again, as the page does.
                    code = exc.rcvd.code if exc.rcvd is not None else None
                    if code not in (1012, 1013) or attempt == RECONNECTS:
                        raise
                load.stats.errors[f"reconnected after {code}"] += 1
                self.seq, self.answered = -1, None  # the new connection's view says all
                await asyncio.sleep(0.2 * (attempt + 1))
        except Exception as exc:  # a dropped connection ends this seat; count it
            load.stats.errors[f"connection: {type(exc).__name__}"] += 1
            self.group.lost()
        finally:
            if self.acting is not None:
                self.acting.cancel()

    async def connected(self) -> None:
        """One connection of this seat, until its game ends or the connection closes."""
        from websockets.asyncio.client import connect

        load = self.group.load
        # No pings of the client's own (a browser sends none; the server pings each
        # connection every 20 s all the same): 4,000 connections' pings every 20 s were
        # 3% of the server's time at 1,000 tables, answering them.
        async with connect(self.url, max_size=2**22, open_timeout=120, close_timeout=2,
                           proxy=None, compression=load.compression,
                           ping_interval=None) as ws:
            self.ws = ws
            async for raw in ws:
                now = time.perf_counter()
                message = orjson.loads(raw)  # (see decisions_made: no model here)
                kind = message.get("type")
                if kind == "view":
                    if message["seq"] <= self.seq:
                        continue
                    self.seq = message["seq"]
                    if load.stats.inside(now):
                        load.stats.views += 1
                        load.stats.view_bytes += len(raw)
                    if self.on_view(message["view"], now):
                        return
                elif kind == "error":
                    self.on_error(str(message.get("code")))

    def on_view(self, view: dict[str, Any], now: float) -> bool:
        """Read one new view; True when the game is over."""
        load = self.group.load
        count = decisions_made(view, self.seat)
        if self.pending is not None and count > self.pending[0]:
            if load.stats.inside(now):
                load.stats.latencies[self.group.kind].append(
                    round((now - self.pending[1]) * 1000, 3))
            self.pending = None
        if self.group.kind == "bot-tables":
            self.group.watch_bots(view, now)
        if view["status"] == "finished":
            self.group.finished()
            return True
        turn = view["turn"]
        if count >= self.group.spread_to and (load.released or turn is None):
            self.group.ready.set()
        legal = view["legal"]
        if turn is not None and turn != self.answered and legal:
            self.answered = turn
            action = random.choice(legal)
            if count < self.group.spread_to:
                self.act(FAST_THINK, turn, action, count)
            elif load.released:
                self.act(load.think_time(), turn, action, count)
            else:  # spread far enough: wait for the others, then think
                self.last = (turn, action, count)
                load.held.append(self)
                self.group.ready.set()
        return False

    def act(self, think: float, turn: str, action: str, count: int) -> None:
        self.acting = asyncio.ensure_future(self.act_later(think, turn, action, count))

    async def act_later(self, think: float, turn: str, action: str, count: int) -> None:
        from websockets.exceptions import ConnectionClosed

        await asyncio.sleep(think)
        self.last = (turn, action, count)
        text = orjson.dumps({"type": "act", "turn": turn, "action": action}).decode()
        self.pending = (count, time.perf_counter())
        try:
            await self.ws.send(text)
        except ConnectionClosed:  # run() connects again, and the new view asks again
            self.pending = None

    def on_error(self, code: str) -> None:
        stats = self.group.load.stats
        if stats.inside(time.perf_counter()):
            stats.errors[code] += 1
        if self.pending is not None:
            self.pending = None
            if code == "rate_limited" and self.last is not None:
                self.act(0.5, *self.last)


class Group:
    """The clients of one table; when its game ends they create and join a new table."""

    def __init__(self, load: Load, kind: str, spread_to: int) -> None:
        self.load = load
        self.kind = kind                        # "people" or "bot-tables"
        self.spread_to = spread_to              # decisions per seat played quickly first
        self.ready = asyncio.Event()
        self.seats: list[Seat] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.restarting = False
        self.bot_counts: list[int] | None = None
        self.last_view = 0.0

    async def new_table(self) -> None:
        post = self.load.post
        bots = BOT_TABLE if self.kind == "bot-tables" else None
        created = TableCreated.model_validate(
            await post("/api/tables", {"players": PLAYERS, "bots": bots}))
        table = created.table
        people = 1 if bots else PLAYERS
        tickets = []
        for i in range(people):
            taken = SeatTaken.model_validate(await post(
                f"/api/tables/{table}/seats", {"name": f"p{i}", "client_seed": f"{i:032x}"}))
            tickets.append((taken.seat, taken.token))
        # Several server processes (benchmarks/cluster_bench.py): the seats of a table connect
        # to different ones, as people behind a load balancer without sticky sessions.
        ports = self.load.ports
        first = self.load.stats.tables_created
        self.seats = [Seat(self, seat, table, token, ports[(first + seat) % len(ports)])
                      for seat, token in tickets]
        self.bot_counts = None
        self.tasks = [asyncio.ensure_future(s.run()) for s in self.seats]
        self.load.stats.tables_created += 1

    def finished(self) -> None:
        self.ready.set()
        if self.restarting:
            return
        self.restarting = True
        self.load.stats.games_finished += 1
        self.spread_to = 0
        self.load.spawn(self.restart())

    def lost(self) -> None:
        self.ready.set()

    async def restart(self) -> None:
        try:
            await asyncio.wait(self.tasks, timeout=10)
            for task in self.tasks:
                task.cancel()
            await self.new_table()
        except Exception as exc:
            self.load.stats.errors[f"new table: {type(exc).__name__}"] += 1
        finally:
            self.restarting = False

    def watch_bots(self, view: dict[str, Any], now: float) -> None:
        """Count the bot seats' decisions that this view shows for the first time, and how
        long after the previous view each came."""
        counts = [decisions_made(view, s) for s in range(PLAYERS)]
        if self.bot_counts is not None:
            new = sum(max(0, counts[s] - self.bot_counts[s])
                      for s in range(PLAYERS) if BOT_TABLE[s] is not None)
            if new and self.load.stats.inside(now):
                self.load.stats.bot_decisions += new
                self.load.stats.bot_gaps.append(round((now - self.last_view) * 1000 / new, 3))
        self.bot_counts = counts
        self.last_view = now

    def pending(self) -> int:
        return sum(1 for s in self.seats if s.pending is not None)


class Load:
    """One load process: its tables, its HTTP client, its counters."""

    def __init__(self, args: argparse.Namespace) -> None:
        import httpx

        self.args = args
        self.port: int = args.port
        self.ports: list[int] = args.ports or [args.port]  # where the seats connect
        self.think: float = args.think
        self.think_jitter: float = getattr(args, "think_jitter", 0.0)
        self.compression: str | None = None if args.no_compression else "deflate"
        self.stats = LoadStats()
        self.released = False
        self.held: list[Seat] = []
        self.groups: list[Group] = []
        self.rng = random.Random(args.seed)
        self.jitter = random.Random(args.seed + 1)  # retries spread out (apart from rng)
        self.http = httpx.AsyncClient(
            base_url=f"http://{HOST}:{self.port}", timeout=120, trust_env=False,
            # expire idle connections before the server does (uvicorn: 5 s), so that no
            # request goes out on a connection the server is closing
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=64,
                                keepalive_expiry=2.0))
        self._tasks: set[asyncio.Task[None]] = set()

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST with a few retries on transport errors (a request that never arrived) and
        on a 503 with Retry-After (nothing changed: the table was changing hands, or the
        store was away a moment), after the longer of its Retry-After and a doubling
        backoff, as ``minodice join``'s client does; each retry is counted in the stats."""
        import httpx

        from minodice.client import retry_after

        tries = 8
        for attempt in range(tries):
            try:
                response = await self.http.post(path, json=body)
            except (httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError):
                self.stats.errors["http retried"] += 1
                await asyncio.sleep(0.2 * (attempt + 1))
                continue
            wait = retry_after(response)
            if wait is not None and attempt < tries - 1:
                self.stats.errors["503 retried"] += 1
                await asyncio.sleep(min(8.0, max(wait, 0.5 * 2 ** attempt))
                                    * self.jitter.uniform(1.0, 1.25))
                continue
            if response.is_error:
                raise RuntimeError(f"POST {path}: {response.status_code} "
                                   f"{response.text[:200]} (sent {attempt + 1} times)")
            data: dict[str, Any] = response.json()
            return data
        raise RuntimeError(f"POST {path}: the server did not answer after {tries} tries")

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def add(self, people: int, bot_tables: int) -> None:
        """Create, join and connect the tables; games of people are first played quickly
        to a random point (``spread``), where they wait for :meth:`release`."""
        per_seat = 8 + sum(range(1, 9))   # decisions per seat in a 4-player game
        groups = [Group(self, "people", self.rng.randrange(per_seat) if self.args.spread
                        else 0) for _ in range(people)]
        groups += [Group(self, "bot-tables", 0) for _ in range(bot_tables)]
        gate = asyncio.Semaphore(self.args.setup_concurrency)

        async def set_up(group: Group) -> None:
            async with gate:
                await group.new_table()
                await group.ready.wait()

        began = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(set_up(g) for g in groups)),
                               timeout=self.args.setup_timeout)
        self.groups += groups
        emit("ready", setup_s=round(time.perf_counter() - began, 1),
             connections=sum(len(g.seats) for g in self.groups),
             setup_errors=dict(self.stats.errors))  # retries and reconnections included

    def think_time(self) -> float:
        """A decision's think time: ``--think`` s, or with ``--think-jitter J`` drawn
        uniformly within ±J of it (same mean). With every person thinking exactly as
        long, the answers one stall of the server held up could come back together one
        think time later, and again after that; people's think times vary (at 1,000
        tables ±50% changed nothing measurable: README)."""
        if not self.think_jitter:
            return self.think
        return random.uniform(self.think * (1 - self.think_jitter),
                              self.think * (1 + self.think_jitter))

    def release(self) -> None:
        """Everyone starts thinking, each at a random point of a think time (so that the
        tables do not act in step)."""
        if self.released:
            return
        self.released = True
        for seat in self.held:
            if seat.last is not None:
                seat.act(random.uniform(0, self.think), *seat.last)
        self.held.clear()

    async def measure(self, warmup: float, duration: float) -> None:
        self.release()
        await asyncio.sleep(warmup)
        stats = self.stats = LoadStats()
        monitor = asyncio.ensure_future(lag_monitor(stats))
        stats.start = time.perf_counter()
        stats.end = stats.start + duration
        usage0 = resource.getrusage(resource.RUSAGE_SELF)
        await asyncio.sleep(duration)
        usage1 = resource.getrusage(resource.RUSAGE_SELF)
        stats.pending_at_end = sum(g.pending() for g in self.groups)
        monitor.cancel()
        cpu = (usage1.ru_utime + usage1.ru_stime - usage0.ru_utime - usage0.ru_stime)
        emit("result", latencies=stats.latencies, errors=dict(stats.errors),
             bot_decisions=stats.bot_decisions, bot_gaps=stats.bot_gaps,
             lag_p50=percentile(stats.lags, 50), lag_p99=percentile(stats.lags, 99),
             views=stats.views, view_bytes=stats.view_bytes, cpu_s=cpu,
             games_finished=stats.games_finished, tables_created=stats.tables_created,
             pending_at_end=stats.pending_at_end,
             connections=sum(len(g.seats) for g in self.groups))


def emit(event: str, **data: Any) -> None:
    print(json.dumps({"event": event, **data}), flush=True)


async def lag_monitor(stats: LoadStats, every: float = 0.05) -> None:
    """How late this process's event loop wakes up (its own delay, added to latencies)."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(every)
        after = time.perf_counter()
        if stats.inside(after):
            stats.lags.append((after - before - every) * 1000)


async def load_main(args: argparse.Namespace) -> None:
    """Set up the first tables, then obey the orchestrator's commands on stdin:
    ``go WARMUP DURATION``, ``add PEOPLE BOT_TABLES``, ``quit``."""
    # Thousands of long-lived connections here too: keep this process's collector from
    # pausing it for long (as the server does), or its own pauses would count as latency.
    collecting = asyncio.ensure_future(keep_collections_short())
    load = Load(args)
    await load.add(args.tables, args.bot_tables)
    loop = asyncio.get_running_loop()
    while True:
        line = await asyncio.wait_for(loop.run_in_executor(None, sys.stdin.readline),
                                      timeout=args.lifetime)
        words = line.split()
        if not words or words[0] == "quit":
            collecting.cancel()
            return
        if words[0] == "go":
            await load.measure(float(words[1]), float(words[2]))
        elif words[0] == "add":
            await load.add(int(words[1]), int(words[2]))
        else:
            raise SystemExit(f"load: unknown command {line!r}")


def run_load(args: argparse.Namespace) -> None:
    raise_nofile()
    # Never outlive the run that started us, whatever happens.
    threading.Timer(args.lifetime, lambda: os._exit(3)).start()
    try:
        import uvloop
        uvloop.install()
    except ImportError:
        pass
    try:
        asyncio.run(load_main(args))
    except BaseException as exc:
        emit("failed", error=f"{type(exc).__name__}: {exc}"[:300])
        sys.stdout.flush()
        os._exit(1)
    sys.stdout.flush()
    os._exit(0)  # no slow goodbyes on thousands of sockets: the server is stopped next


# == the orchestrator ========================================================================


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def cpu_ticks(pid: int) -> float:
    """User + system CPU seconds of a process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    """Every process below ``pid`` (bot workers and their helpers)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all cores since boot."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    return total - idle, total


def probe_server(port: int, duration: float, every: float = 0.1) -> list[float]:
    """``GET /`` every ``every`` s for ``duration`` s; the answer times in ms. Sent from
    the orchestrator, which is otherwise idle, this shows how late the server's event loop
    answers, apart from any delay in the load processes."""
    import http.client

    times: list[float] = []
    end = time.monotonic() + duration
    conn: http.client.HTTPConnection | None = None
    while time.monotonic() < end:
        began = time.perf_counter()
        try:
            if conn is None:
                conn = http.client.HTTPConnection(HOST, port, timeout=30)
            conn.request("GET", "/")
            conn.getresponse().read()
            times.append((time.perf_counter() - began) * 1000)
        except (OSError, http.client.HTTPException):
            if conn is not None:
                conn.close()
            conn = None
        time.sleep(max(0.0, min(every, end - time.monotonic())))
    if conn is not None:
        conn.close()
    return times


UNLIMITED = ("--http-rate", "100000", "--read-rate", "100000", "--connect-rate", "100000",
             "--new-tables", "1000000", "--all-tables-rate", "100000", "--max-waiting",
             "1000000")


class Server:
    """``minodice serve`` in its own process group, stopped (group and all) on exit."""

    def __init__(self, args: argparse.Namespace, workdir: Path, name: str) -> None:
        self.port = free_port()
        self.log = workdir / f"server-{name}.log"
        self.command = [sys.executable, "-m", "minodice", "serve", "--port", str(self.port),
                        "--db", str(workdir / f"{name}.sqlite3"), "--bot-delay", "0",
                        *UNLIMITED, "--grace", "3600",
                        "--bot-workers", str(args.bot_workers)]
        self.process: subprocess.Popen[bytes] | None = None
        self.log_seen = 0

    def __enter__(self) -> Server:
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=log, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-500:]}")
            try:
                with urllib.request.urlopen(f"http://{HOST}:{self.port}/", timeout=2):
                    pass
            except OSError:
                time.sleep(0.2)
                continue
            time.sleep(2)  # let the bot workers warm up (they import the bots)
            return self
        raise RuntimeError("the server did not answer within 60 s")

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def log_news(self) -> dict[str, int]:
        """Counts of the server's warnings since the last call (bot pool failures...)."""
        with self.log.open("rb") as f:
            f.seek(self.log_seen)
            text = f.read().decode(errors="replace")
        self.log_seen += len(text.encode())
        return {name: text.count(mark) for name, mark in SERVER_LOGS.items()}

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        process = self.process
        if process is None:
            return
        self.process = None
        for sig, wait in ((signal.SIGTERM, 15.0), (signal.SIGKILL, 5.0)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)  # the server and its bot workers
            try:
                process.wait(wait)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)  # stragglers of the group
                return
            except subprocess.TimeoutExpired:
                continue


def load_session(nice: int) -> dict[str, Any]:
    """``subprocess.Popen``'s options for a load process at ``nice`` (0: as the server).

    A niced load process stays in this script's session, in a process group of its own
    (stopped with it): Linux's scheduler shares the cores between sessions first where it
    groups processes by session (autogroups, on here and on most distributions:
    ``/proc/sys/kernel/sched_autogroup_enabled``) and weighs a nice value only inside its
    session. Each load process used to start a session of its own, so its nice value did
    nothing and each weighed as much as the server: four load processes held it to about
    three quarters of a core at 1,000 tables, its event loop waiting for a core (in
    ``/proc/PID/task/PID/schedstat``) twice as long as it ran. Now the load processes
    together weigh as much as the server (their session is this script's, the prober's),
    and the prober goes before them in it."""
    return {"process_group": 0} if nice else {"start_new_session": True}


class LoadProcess:
    """This script with ``--load``: commands on its stdin, JSON lines on its stdout."""

    def __init__(self, port: int, tables: int, bot_tables: int, think: float, spread: bool,
                 seed: int, lifetime: float, args: argparse.Namespace,
                 ports: Sequence[int] = ()) -> None:
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()
        command = [sys.executable, __file__, "--load", "--port", str(port),
                   "--load-tables", str(tables), "--load-bot-tables", str(bot_tables),
                   "--think", str(think), "--seed", str(seed),
                   "--think-jitter", str(getattr(args, "think_jitter", 0.0)),
                   "--setup-timeout", str(args.setup_timeout),
                   "--setup-concurrency", str(args.setup_concurrency),
                   "--lifetime", str(lifetime)]
        if ports:
            command += ["--ports", ",".join(str(p) for p in ports)]
        if not spread:
            command.append("--no-spread")
        if args.no_compression:
            command.append("--no-compression")
        # A load process stands for clients on other machines: at a lower CPU priority
        # (``--load-nice``) it does not take the cores from the server it measures (the
        # report says so, and prints the load processes' own lag beside their latencies).
        nice = int(getattr(args, "load_nice", 0))
        if nice:
            command = ["nice", "-n", str(nice), *command]  # (nice execs: the same pid)
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        **load_session(nice))
        assert self.process.stdout is not None
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for raw in stream:
            with contextlib.suppress(ValueError):
                self.lines.put(json.loads(raw))
        self.lines.put({"event": "exited"})

    def expect(self, event: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"load process: no {event!r} within {timeout:.0f} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line.get("event") == event:
                return line
            if line.get("event") in ("failed", "exited"):
                raise RuntimeError(f"load process {line.get('event')}: {line.get('error', '')}")

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{command}\n".encode())
        self.process.stdin.flush()

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            try:
                self.process.wait(5)
                return
            except subprocess.TimeoutExpired:
                continue


@dataclass
class Level:
    """The figures of one measured level."""

    name: str
    tables: int
    bot_tables: int
    connections: int
    duration: float
    latencies: list[float]
    bot_latencies: list[float]
    errors: dict[str, int]
    bot_decisions: int
    bot_gaps: list[float]
    server_cpu: float        # % of one core, the server process
    workers_cpu: float       # % of one core, its bot workers
    load_cpu: list[float]    # % of one core, each load process
    load_lag_p99: list[float]
    machine_cpu: float       # % of the whole machine
    others_cpu: float        # % of one core, every other process (the machine is shared)
    server_rss: float
    workers_rss: float
    setup_s: float
    games_finished: int
    pending_at_end: int
    probe: list[float]       # ms of GET / from this (idle) process: the server's own delay
    server_log: dict[str, int]  # what the server logged during the measure, by kind
    view_kb: float

    @property
    def actions(self) -> float:
        return (len(self.latencies) + len(self.bot_latencies)) / self.duration

    @property
    def cpu_ms_per_action(self) -> float:
        acted = len(self.latencies) + len(self.bot_latencies) + self.bot_decisions
        return self.server_cpu * 10 * self.duration / acted if acted else float("nan")


def split(n: int, parts: int) -> list[int]:
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


class Session:
    """A fresh server and its load processes, with tables set up and waiting."""

    def __init__(self, args: argparse.Namespace, workdir: Path, name: str, tables: int,
                 procs: int, think: float, spread: bool, measures: int = 1) -> None:
        self.args = args
        self.name = name
        self.server = Server(args, workdir, name)
        self.procs = max(1, min(procs, tables))
        self.think = think
        self.spread = spread
        self.tables = tables
        self.bot_tables = 0
        self.setup_s = 0.0
        self.loads: list[LoadProcess] = []
        self.lifetime = (args.setup_timeout + args.quiet_wait + args.warmup + args.duration
                         + 120) * (measures + 1)

    def __enter__(self) -> Session:
        print(f"  {self.name}: starting a server, {self.tables} tables of people, "
              f"{self.procs} load process(es)", file=sys.stderr, flush=True)
        self.server.__enter__()
        try:
            for i, n in enumerate(split(self.tables, self.procs)):
                self.loads.append(LoadProcess(self.server.port, n, 0, self.think, self.spread,
                                              self.args.seed * 100 + i, self.lifetime,
                                              self.args))
            self._ready()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        for load in self.loads:
            with contextlib.suppress(Exception):
                load.send("quit")
        for load in self.loads:
            load.stop()
        self.server.stop()

    def _ready(self) -> None:
        readies = [load.expect("ready", self.args.setup_timeout + 30) for load in self.loads]
        self.setup_s = max(float(r["setup_s"]) for r in readies)
        print(f"  {self.name}: set up in {self.setup_s:.0f} s", file=sys.stderr, flush=True)

    def add_bot_tables(self, k: int) -> None:
        for load, n in zip(self.loads, split(k, len(self.loads)), strict=True):
            load.send(f"add 0 {n}")
        self.bot_tables += k
        self._ready()

    def ours(self) -> list[int]:
        return [self.server.pid, *children(self.server.pid), *(ld.pid for ld in self.loads)]

    def wait_quiet(self) -> None:
        """Wait (at most ``--quiet-wait`` s) until the machine's other processes use under
        ``--quiet-below`` % of a core: this machine is shared."""
        cores = os.cpu_count() or 1
        deadline = time.monotonic() + self.args.quiet_wait
        others = float("nan")
        while True:
            pids = self.ours()
            ours0, machine0 = sum(cpu_ticks(p) for p in pids), machine_busy()
            time.sleep(2.0)
            ours1, machine1 = sum(cpu_ticks(p) for p in pids), machine_busy()
            total = machine1[1] - machine0[1]
            busy = (machine1[0] - machine0[0]) / total * 100 * cores if total else 0.0
            others = busy - (ours1 - ours0) / 2.0 * 100
            if others < self.args.quiet_below or time.monotonic() > deadline:
                break
        print(f"  {self.name}: other processes use {others:.0f}% of a core", file=sys.stderr,
              flush=True)

    def measure(self, name: str, warmup: float, duration: float) -> Level:
        self.wait_quiet()
        print(f"  {name}: warm-up {warmup:g} s, measuring {duration:g} s", file=sys.stderr,
              flush=True)
        server = self.server
        for load in self.loads:
            load.send(f"go {warmup} {duration}")
        time.sleep(warmup)
        workers = children(server.pid)
        before = (cpu_ticks(server.pid), sum(cpu_ticks(w) for w in workers),
                  [cpu_ticks(load.pid) for load in self.loads], machine_busy())
        probe = probe_server(server.port, duration)
        workers_now = children(server.pid)
        after = (cpu_ticks(server.pid), sum(cpu_ticks(w) for w in workers_now),
                 [cpu_ticks(load.pid) for load in self.loads], machine_busy())
        server_rss = rss_mb(server.pid)
        workers_rss = sum(rss_mb(w) for w in workers_now)
        results = [load.expect("result", 60) for load in self.loads]
        busy = after[3][0] - before[3][0]
        total = after[3][1] - before[3][1]
        machine = busy / total * 100 if total else float("nan")
        ours = ((after[0] - before[0]) + (after[1] - before[1])
                + sum(a - b for a, b in zip(after[2], before[2], strict=True)))
        errors: Counter[str] = Counter()
        for r in results:
            errors.update(r["errors"])
        return Level(
            name=name, tables=self.tables, bot_tables=self.bot_tables,
            connections=sum(int(r["connections"]) for r in results), duration=duration,
            latencies=[x for r in results for x in r["latencies"]["people"]],
            bot_latencies=[x for r in results for x in r["latencies"]["bot-tables"]],
            errors=dict(errors), bot_decisions=sum(int(r["bot_decisions"]) for r in results),
            bot_gaps=[x for r in results for x in r["bot_gaps"]],
            server_cpu=(after[0] - before[0]) / duration * 100,
            workers_cpu=(after[1] - before[1]) / duration * 100,
            load_cpu=[float(r["cpu_s"]) / duration * 100 for r in results],
            load_lag_p99=[float(r["lag_p99"]) for r in results],
            machine_cpu=machine,
            others_cpu=machine * (os.cpu_count() or 1) - ours / duration * 100,
            server_rss=server_rss, workers_rss=workers_rss, setup_s=self.setup_s,
            games_finished=sum(int(r["games_finished"]) for r in results),
            pending_at_end=sum(int(r["pending_at_end"]) for r in results),
            probe=probe,
            server_log=self.server.log_news(),
            view_kb=sum(int(r["view_bytes"]) for r in results)
            / max(1, sum(int(r["views"]) for r in results)) / 1024)


def fmt(x: float, digits: int = 1) -> str:
    return "-" if x != x else f"{x:,.{digits}f}"  # NaN → "-"


def errors_text(errors: dict[str, int]) -> str:
    shown = {k: v for k, v in errors.items() if v}
    return ", ".join(f"{k} {v}" for k, v in sorted(shown.items())) or "none"


def offered(tables: int, think: float) -> float:
    """Actions a second the tables would send if every answer came at once: a 4-player
    game is 176 decisions in 8 bidding turns (the four bid together) and 144 rolls."""
    return tables * (8 * 4 + 144) / ((8 + 144) * think)


def print_levels(levels: list[Level], ref: Level, think: float) -> None:
    ref50, ref99 = percentile(ref.latencies, 50), percentile(ref.latencies, 99)
    print("latency (ms, action sent -> view showing it) and throughput; probe = GET / sent "
          "every 0.1 s from an idle process")
    print(f"{'level':<12}{'tables':>7}{'conns':>7}{'offered/s':>10}{'act/s':>8}{'p50':>10}"
          f"{'p99':>10}{'max':>10}{'p50/ref':>9}{'p99/ref':>9}{'probe p50':>10}"
          f"{'probe p99':>10}")
    for lv in levels:
        p50, p99 = percentile(lv.latencies, 50), percentile(lv.latencies, 99)
        print(f"{lv.name:<12}{lv.tables:>7}{lv.connections:>7}"
              f"{fmt(offered(lv.tables, think), 0):>10}{fmt(lv.actions):>8}{fmt(p50):>10}"
              f"{fmt(p99):>10}{fmt(max(lv.latencies, default=float('nan'))):>10}"
              f"{fmt(p50 / ref50, 2):>9}{fmt(p99 / ref99, 2):>9}"
              f"{fmt(percentile(lv.probe, 50)):>10}{fmt(percentile(lv.probe, 99)):>10}")
    print("resources (CPU in % of one core; machine in % of all cores; others = every process "
          "not ours)")
    print(f"{'level':<12}{'server CPU%':>12}{'ms/action':>10}{'server RSS MB':>14}"
          f"{'load CPU%':>16}{'load lag p99':>16}{'machine%':>9}{'others%':>8}"
          f"{'view KB':>8}")
    for lv in levels:
        print(f"{lv.name:<12}{fmt(lv.server_cpu, 0):>12}{fmt(lv.cpu_ms_per_action, 2):>10}"
              f"{fmt(lv.server_rss, 0):>14}{'+'.join(fmt(c, 0) for c in lv.load_cpu):>16}"
              f"{'/'.join(fmt(x, 0) for x in lv.load_lag_p99):>16}"
              f"{fmt(lv.machine_cpu, 0):>9}{fmt(lv.others_cpu, 0):>8}{fmt(lv.view_kb, 1):>8}")


def print_bots(levels: list[Level], base: Level) -> None:
    b50, b99 = percentile(base.latencies, 50), percentile(base.latencies, 99)
    k0 = f"K={base.bot_tables}"
    print("bot ms = time per bot decision as the bot table's person sees it; people = the "
          "tables of 4 people")
    print(f"{'K':<6}{'bot dec/s':>10}{'bot ms p50':>11}{'p99':>10}{'people p50':>11}{'p99':>10}"
          f"{'p50/' + k0:>9}{'p99/' + k0:>9}{'probe p99':>10}")
    for lv in levels:
        p50, p99 = percentile(lv.latencies, 50), percentile(lv.latencies, 99)
        print(f"{lv.bot_tables:<6}{fmt(lv.bot_decisions / lv.duration):>10}"
              f"{fmt(percentile(lv.bot_gaps, 50)):>11}{fmt(percentile(lv.bot_gaps, 99)):>10}"
              f"{fmt(p50):>11}{fmt(p99):>10}{fmt(p50 / b50, 2):>9}{fmt(p99 / b99, 2):>9}"
              f"{fmt(percentile(lv.probe, 99)):>10}")
    print(f"{'K':<6}{'people act/s':>13}{'server CPU%':>12}{'bots CPU%':>10}{'ms/action':>10}"
          f"{'load CPU%':>10}{'machine%':>9}{'others%':>8}")
    for lv in levels:
        print(f"{lv.bot_tables:<6}{fmt(len(lv.latencies) / lv.duration):>13}"
              f"{fmt(lv.server_cpu, 0):>12}{fmt(lv.workers_cpu, 0):>10}"
              f"{fmt(lv.cpu_ms_per_action, 2):>10}"
              f"{'+'.join(fmt(c, 0) for c in lv.load_cpu):>10}"
              f"{fmt(lv.machine_cpu, 0):>9}{fmt(lv.others_cpu, 0):>8}")


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=ints, default=[100, 500, 1000],
                        help="levels: concurrent tables of 4 people (comma-separated)")
    parser.add_argument("--duration", type=float, default=60.0, help="measured s per level")
    parser.add_argument("--warmup", type=float, default=15.0, help="warm-up s per level")
    parser.add_argument("--think", type=float, default=2.0, help="s a person thinks")
    parser.add_argument("--think-jitter", type=float, default=0.0, metavar="J",
                        help="each think time drawn within ±J of --think (0: all equal)")
    parser.add_argument("--ref-think", type=float, default=0.1,
                        help="think time at the one-table reference (more samples)")
    parser.add_argument("--ref-duration", type=float, default=20.0)
    parser.add_argument("--load-procs", type=int, default=4,
                        help="load processes (one Python process holding 4,000 WebSockets "
                        "lags by itself: its own delay would count as the server's)")
    parser.add_argument("--load-nice", type=int, default=0,
                        help="run the load processes at this nice value (they stand for "
                        "clients on other machines; the server keeps its priority)")
    parser.add_argument("--no-spread", dest="spread", action="store_false",
                        help="start every game at its beginning (no quick play first)")
    parser.add_argument("--no-compression", action="store_true",
                        help="clients refuse permessage-deflate (browsers ask for it)")
    parser.add_argument("--bot-base", type=int, default=200,
                        help="tables of people alongside the bot tables")
    parser.add_argument("--bot-tables", type=ints, default=[0, 5, 10, 20, 40],
                        help="levels: tables of 1 person + 3 hard bots (empty: skip)")
    parser.add_argument("--bot-workers", type=int, default=2, help="server --bot-workers")
    parser.add_argument("--setup-timeout", type=float, default=900.0)
    parser.add_argument("--quiet-wait", type=float, default=120.0,
                        help="wait at most this many s before each measure for the machine's "
                        "other processes to calm down")
    parser.add_argument("--quiet-below", type=float, default=25.0,
                        help="... to under this %% of a core")
    parser.add_argument("--setup-concurrency", type=int, default=100,
                        help="tables being set up at once by one load process")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    # The load process (started by this script).
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--ports", type=ints, default=[], help=argparse.SUPPRESS)
    parser.add_argument("--load-tables", dest="load_tables", type=int, default=0,
                        help=argparse.SUPPRESS)
    parser.add_argument("--load-bot-tables", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--lifetime", type=float, default=3600.0, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


class Tee:
    """Print to the terminal and, with ``--out``, to a file too."""

    def __init__(self, path: Path | None) -> None:
        self.file = path.open("w") if path is not None else None
        self.stdout = sys.stdout

    def write(self, text: str) -> int:
        self.stdout.write(text)
        if self.file is not None:
            self.file.write(text)
        return len(text)

    def flush(self) -> None:
        self.stdout.flush()
        if self.file is not None:
            self.file.flush()


@contextlib.contextmanager
def report_to(path: Path | None) -> Iterator[None]:
    tee = Tee(path)
    sys.stdout = tee
    try:
        yield
    finally:
        sys.stdout = tee.stdout
        if tee.file is not None:
            tee.file.close()


def describe(levels: list[Level], ref: Level) -> None:
    for lv in [ref, *levels]:
        notes = [f"setup {lv.setup_s:.0f} s", f"{lv.games_finished} games ended",
                 f"errors: {errors_text(lv.errors)}"]
        if lv.pending_at_end:
            notes.append(f"{lv.pending_at_end} actions unanswered at the end")
        if lv.bot_tables:
            notes.append(f"bot-table people p99 {fmt(percentile(lv.bot_latencies, 99))} ms")
        notes.append(f"bot workers RSS {fmt(lv.workers_rss, 0)} MB")
        logged = {k: v for k, v in lv.server_log.items() if v}
        if logged:
            notes.append("server log: " + errors_text(logged))
        print(f"  {lv.name}: " + "; ".join(notes))


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.load:
        args.tables = args.load_tables
        args.bot_tables = args.load_bot_tables
        run_load(args)
        return
    limit = raise_nofile()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    from importlib.metadata import version

    command = "python benchmarks/server.py" + "".join(
        f" {shlex.quote(a)}" for a in (sys.argv[1:] if argv is None else argv))
    with tempfile.TemporaryDirectory(prefix="minodice-bench-") as tmp, report_to(args.out):
        workdir = Path(tmp)
        print(f"# {command} ({datetime.date.today().isoformat()})")
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, websockets "
              f"{version('websockets')}, uvicorn {version('uvicorn')}; open files {limit}")
        print(f"server: python -m minodice serve --bot-delay 0 {' '.join(UNLIMITED)} "
              f"--grace 3600 --bot-workers {args.bot_workers} (fresh process and database "
              "per level)")
        print(f"load: {args.load_procs} load process(es) sharing the machine"
              + (f" at nice {args.load_nice}" if args.load_nice else "") + "; think "
              f"{args.think:g} s; warm-up {args.warmup:g} s, measured {args.duration:g} s; "
              f"games {'spread over their stages first' if args.spread else 'from the start'};"
              + (" clients ask for no WebSocket compression" if args.no_compression else
                 " clients offer deflate (minodice serve declines it)"))
        print("latency: sending an action -> the first view that shows it (load-process clock)")
        print(flush=True)
        with Session(args, workdir, "reference", 1, 1, args.ref_think, False) as session:
            ref = session.measure("reference", 3.0, args.ref_duration)
        print(f"reference: 1 table alone, think {args.ref_think:g} s, {len(ref.latencies)} "
              f"actions: p50 {fmt(percentile(ref.latencies, 50), 2)} ms, p99 "
              f"{fmt(percentile(ref.latencies, 99), 2)} ms, server CPU "
              f"{fmt(ref.cpu_ms_per_action, 2)} ms per action, others "
              f"{fmt(ref.others_cpu, 0)}% of a core")
        print(flush=True)
        levels = []
        for n in args.tables:
            name = f"{n} tables"
            with Session(args, workdir, name, n, args.load_procs, args.think,
                         args.spread) as session:
                levels.append(session.measure(name, args.warmup, args.duration))
        print_levels(levels, ref, args.think)
        describe(levels, ref)
        for lv in levels:
            p99 = percentile(lv.latencies, 99)
            if lv.tables == 1000:
                verdict = "met" if p99 <= 100 else "NOT met"
                print(f"target 1,000 tables with p99 <= 100 ms: {verdict} "
                      f"(p99 {fmt(p99)} ms)")
        print(flush=True)
        if args.bot_tables:
            steps = sorted(set(args.bot_tables))
            print(f"hard bots: {args.bot_base} tables of people (one server, set up once) + K "
                  f"tables of 1 person and 3 hard bots added step by step (server "
                  f"--bot-workers {args.bot_workers})")
            bots = []
            with Session(args, workdir, "bots", args.bot_base, args.load_procs, args.think,
                         args.spread, measures=len(steps)) as session:
                for k in steps:
                    if k > session.bot_tables:
                        session.add_bot_tables(k - session.bot_tables)
                    bots.append(session.measure(f"K={k}", args.warmup, args.duration))
            print_bots(bots, bots[0])
            describe(bots, ref)

if __name__ == "__main__":
    main()
