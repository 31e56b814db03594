"""Server processes on the databases operators run: 1,000 tables in one process, then 1, 2
and 3 processes on PostgreSQL and Redis, with the server's own latency beside the clients'.

Each configuration gets fresh ``minodice serve`` processes (``--bot-delay 0``, the limits of
``benchmarks/server.py``'s :data:`~server.UNLIMITED` raised out of the way) and fresh
databases: a SQLite file, or a new database on a PostgreSQL server of this run's own (and a
Redis of its own for several processes; both from ``tests/services.py``, Debian's binaries
on free ports, stopped at the end). The clients are ``benchmarks/server.py``'s load
processes: tables of four people thinking ``--think`` s per decision, games spread over
their stages first; with several server processes each table's four seats connect to
different processes (no sticky sessions) and the load processes create their tables on
each process in turn.

Per configuration, over the measured window:

- **actions/s**: decisions applied, from the servers' ``minodice_actions_total``;
- **client latency** p50/p99: the load processes' clock, action sent → view showing it
  (it includes the load processes' own event-loop lag, printed beside it);
- **server latency** p50/p99: from the servers' ``minodice_action_latency_seconds``
  histogram (received → the last view of the table queued), read before and after the
  window and interpolated inside its buckets as Prometheus's ``histogram_quantile`` does;
  also the share of actions under 100 ms, which the buckets give exactly;
- **probe** p50/p99: ``GET /`` every 0.1 s from this (otherwise idle) process to each
  server in turn: how late the servers' event loops answer;
- **CPU per action**: the servers' process CPU time (their bot workers apart) over the
  actions; PostgreSQL's and Redis's likewise;
- **takeover** (several processes): after the window, one process is killed with SIGKILL
  while a player of one of its tables is connected through another process; the time from
  the kill to the first view that shows that player's next action (made by the new owner).

The reference, measured first in the same run, is one table alone in one process on
SQLite (think ``--ref-think``); every latency is also printed as a ratio to it, and the
throughput and CPU of each configuration as a ratio to the first configuration's, since
this machine is shared and noisy. The load average is printed with each measure.

The load processes stand for clients on other machines, so they run at a lower CPU
priority than the servers and the prober (``--load-nice``, 10 by default: the servers go
first for this machine's cores, and the report says so; they stay in this script's
session, where that counts: ``benchmarks/server.py``'s ``load_session``) and read views
with orjson rather than the wire models; their own event-loop lag is printed beside their
latencies. How long each server's event-loop thread ran on a core over the window, and
how long it waited runnable for one (``/proc/PID/task/PID/schedstat``: the machine's other
processes taking the cores), is printed beside its memory. ``--py-spy DIR`` samples the
servers over each window (py-spy installed apart) and prints where their time went.

Run: ``python benchmarks/cluster_bench.py [--quick] [--tables 1000] [--processes 1,2,3]
[--duration 30] [--warmup 10] [--out FILE]`` — at the priority the servers should have
(the load processes are niced below it). Several processes need ``minodice serve
--redis``; without it the run measures one process on SQLite and on PostgreSQL and says so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

import server as bench  # noqa: E402 - benchmarks/server.py: its load processes and helpers
from services import (  # noqa: E402
    Postgres,
    Redis,
    ServiceMissingError,
    postgres_server,
    redis_server,
)

HOST = bench.HOST
LATENCY = "minodice_action_latency_seconds"


# == the servers' own figures, from /metrics =================================================


Buckets = dict[float, float]  # a histogram's upper bound (le) → cumulative count


def _combine(a: Buckets, b: Buckets, sign: float) -> Buckets:
    return {le: a.get(le, 0.0) + sign * b.get(le, 0.0) for le in set(a) | set(b)}


@dataclass
class Scrape:
    """What one scrape of one server's ``/metrics`` holds that the benchmark reads: the
    action latency's histogram, the loop-lag probe's, the garbage collections' (all
    generations together, and the full ones apart) and the actions counter."""

    buckets: Buckets = field(default_factory=dict)
    lag: Buckets = field(default_factory=dict)
    gc: Buckets = field(default_factory=dict)
    gc_full: Buckets = field(default_factory=dict)
    actions: float = 0.0
    moved: float = 0.0  # tables let go (a lease lost, a write fenced): they changed hands
    # The collections' pauses added up, and their number, by generation (0, 1, 2).
    gc_seconds: Buckets = field(default_factory=dict)
    gc_count: Buckets = field(default_factory=dict)

    def _with(self, other: Scrape, sign: float) -> Scrape:
        return Scrape(_combine(self.buckets, other.buckets, sign),
                      _combine(self.lag, other.lag, sign), _combine(self.gc, other.gc, sign),
                      _combine(self.gc_full, other.gc_full, sign),
                      self.actions + sign * other.actions, self.moved + sign * other.moved,
                      _combine(self.gc_seconds, other.gc_seconds, sign),
                      _combine(self.gc_count, other.gc_count, sign))

    def __sub__(self, other: Scrape) -> Scrape:
        return self._with(other, -1.0)

    def __add__(self, other: Scrape) -> Scrape:
        return self._with(other, 1.0)


def scrape(port: int) -> Scrape:
    """The latency histogram's buckets and the actions counter of the server at ``port``
    (an empty scrape if it does not answer: a killed process)."""
    from prometheus_client.parser import text_string_to_metric_families

    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/metrics", timeout=30) as answer:
            text = answer.read().decode()
    except OSError:
        return Scrape()
    found = Scrape()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "minodice_actions_total":
                found.actions = sample.value
            elif sample.name == "minodice_leases_lost_total":
                found.moved = sample.value
            elif sample.name in ("minodice_gc_pause_seconds_sum",
                                 "minodice_gc_pause_seconds_count"):
                generation = float(sample.labels.get("generation", "-1"))
                kept = found.gc_seconds if sample.name.endswith("_sum") else found.gc_count
                kept[generation] = kept.get(generation, 0.0) + sample.value
            if not sample.name.endswith("_bucket"):
                continue
            le = float(sample.labels["le"])
            if sample.name == f"{LATENCY}_bucket":
                found.buckets[le] = sample.value
            elif sample.name == "minodice_event_loop_lag_seconds_bucket":
                found.lag[le] = sample.value
            elif sample.name == "minodice_gc_pause_seconds_bucket":
                found.gc[le] = found.gc.get(le, 0.0) + sample.value
                if sample.labels.get("generation") == "2":
                    found.gc_full[le] = sample.value
    return found


def longest(buckets: Buckets) -> str:
    """The bucket the longest observation fell in, as "<= X ms" (or "-" for none)."""
    bounds = sorted(buckets)
    previous = 0.0
    worst = None
    for le in bounds:
        if buckets[le] > previous:
            worst = le
        previous = buckets[le]
    if worst is None:
        return "-"
    below = max((b for b in bounds if b < worst), default=0.0)
    return f">{below * 1000:g}" if math.isinf(worst) else f"<={worst * 1000:g}"


def histogram_quantile(q: float, buckets: dict[float, float]) -> float:
    """The ``q`` quantile (0..1) of a cumulative histogram, in seconds, interpolated
    linearly inside its bucket (Prometheus's rule); NaN without observations, and the
    largest finite bound when it falls in the +Inf bucket."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return float("nan")
    total = buckets[bounds[-1]]
    rank = q * total
    lower, below = 0.0, 0.0
    for le in bounds:
        count = buckets[le]
        if count >= rank:
            if math.isinf(le):
                return lower
            inside = count - below
            return lower + (le - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = le, count
    return lower


def share_within(limit: float, buckets: dict[float, float]) -> float:
    """The share of observations at most ``limit`` s (``limit`` must be a bucket bound)."""
    total = buckets.get(math.inf, 0.0)
    return buckets.get(limit, float("nan")) / total if total else float("nan")


# == services and processes ==================================================================


def schedstat(pid: int) -> tuple[float, float]:
    """Seconds the main thread of ``pid`` ran on a core, and waited runnable for one (the
    kernel's ``/proc/PID/task/PID/schedstat``); zeros if it is gone."""
    try:
        run, wait, _slices = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(run) / 1e9, int(wait) / 1e9


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and every process below it."""
    return sum(bench.cpu_ticks(p) for p in (pid, *bench.children(pid)))


def postgres_pid(pg: Postgres) -> int:
    return int((pg.data / "postmaster.pid").read_text().split()[0])


def serve_has_redis() -> bool:
    """Whether this release's ``minodice serve`` takes ``--redis`` (several processes)."""
    done = subprocess.run([sys.executable, "-m", "minodice", "serve", "--help"],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "COLUMNS": "200"})
    return "--redis" in done.stdout


class Serve(bench.Server):
    """``minodice serve`` on a given database (and Redis), stopped with its process group."""

    def __init__(self, args: argparse.Namespace, workdir: Path, name: str, db: str,
                 redis: str | None, code: Path | None = None) -> None:
        super().__init__(args, workdir, name)
        # Another checkout's server (``--compare``): its src/ first on the path (``env``
        # execs Python, so the process is still the server's own).
        prefix = ["env", f"PYTHONPATH={code / 'src'}"] if code is not None else []
        self.command = [*prefix, sys.executable, "-m", "minodice", "serve",
                        "--port", str(self.port),
                        "--db", db, "--bot-delay", "0", *bench.UNLIMITED, "--grace", "3600",
                        "--bot-workers", str(args.bot_workers)]
        if redis is not None:
            self.command += ["--redis", redis]

    def kill(self) -> None:
        """SIGKILL to the server process alone (its bot workers see their pipe close)."""
        if self.process is not None:
            self.process.kill()


@dataclass
class Cpu:
    """CPU seconds used so far, by kind of process; the machine's (busy, total) jiffies."""

    servers: float
    workers: float
    postgres: float
    redis: float
    machine: tuple[float, float]


@dataclass
class Config:
    """One configuration measured: how many processes, on which store."""

    name: str
    processes: int
    store: str          # "sqlite" or "postgresql"
    tables: int
    think: float
    spread: bool = True
    code: Path | None = None   # another checkout's server (--compare)


@dataclass
class Figures:
    """The figures of one configuration's measured window."""

    config: Config
    duration: float
    actions: float                   # decisions applied (the servers' counter)
    client: list[float]              # ms, the load processes' latencies
    server: Scrape                   # the histogram's buckets over the window
    probe: list[float]               # ms
    servers_cpu: float               # CPU s of the server processes (workers apart)
    workers_cpu: float
    postgres_cpu: float
    redis_cpu: float
    load_lag_p99: list[float]
    errors: dict[str, int]
    load_average: tuple[float, float, float]
    others_cpu: float                # % of one core used by processes not ours
    connections: int
    servers_rss: float = float("nan")  # MB, all server processes at the window's end
    # The servers' event-loop threads over the window, in % of it (summed over processes):
    # on a core, and runnable but waiting for one (the machine's other processes' doing).
    loop_on_core: float = float("nan")
    loop_waiting: float = float("nan")
    takeover: float | None = None    # s, kill → first view from the new owner
    takeover_note: str = ""
    setup_s: float = float("nan")    # s, the slowest load process's setup
    setup: Scrape = field(default_factory=Scrape)  # the servers' figures over the setup
    setup_errors: dict[str, int] = field(default_factory=dict)  # retries, reconnections

    @property
    def rate(self) -> float:
        return self.actions / self.duration

    @property
    def cpu_ms(self) -> float:
        return self.servers_cpu * 1000 / self.actions if self.actions else float("nan")

    def server_ms(self, q: float) -> float:
        return histogram_quantile(q, self.server.buckets) * 1000


class Cluster:
    """The processes of one configuration, their clients, and their services."""

    def __init__(self, args: argparse.Namespace, workdir: Path, config: Config,
                 pg: Postgres | None, redis: Redis | None) -> None:
        self.args = args
        self.config = config
        self.pg = pg
        self.redis = redis
        self.workdir = workdir
        self.servers: list[Serve] = []
        self.loads: list[bench.LoadProcess] = []
        self.setup_s = float("nan")
        self.setup_errors: dict[str, int] = {}
        self.setup = Scrape()

    def __enter__(self) -> Cluster:
        c = self.config
        print(f"  {c.name}: {c.processes} process(es) on {c.store}, {c.tables} tables",
              file=sys.stderr, flush=True)
        try:
            if c.store == "postgresql":
                assert self.pg is not None
                db = self.pg.new_database()
            else:
                db = str(self.workdir / f"{c.name.replace(' ', '-')}.sqlite3")
            redis = self.redis.url if self.redis is not None and c.processes > 1 else None
            for i in range(c.processes):
                served = Serve(self.args, self.workdir, f"{c.name}-{i}".replace(" ", "-"), db,
                               redis, c.code)
                self.servers.append(served)
                served.__enter__()
            ports = [s.port for s in self.servers] if c.processes > 1 else []
            procs = max(1, min(self.args.load_procs if c.tables > 1 else 1, c.tables))
            lifetime = (self.args.setup_timeout + self.args.quiet_wait + self.args.warmup
                        + self.args.duration + 300)
            for i, n in enumerate(bench.split(c.tables, procs)):
                home = self.servers[i % len(self.servers)].port
                spread = ports[i % len(ports):] + ports[:i % len(ports)] if ports else []
                self.loads.append(bench.LoadProcess(home, n, 0, c.think, c.spread,
                                                    self.args.seed * 100 + i, lifetime,
                                                    self.args, spread))
            readies = [ld.expect("ready", self.args.setup_timeout + 30) for ld in self.loads]
            self.setup_s = max(float(r["setup_s"]) for r in readies)
            for r in readies:
                for k, v in r.get("setup_errors", {}).items():
                    self.setup_errors[k] = self.setup_errors.get(k, 0) + int(v)
            for served in self.servers:
                self.setup = self.setup + scrape(served.port)
            print(f"  {c.name}: set up in {self.setup_s:.0f} s; "
                  f"{bench.errors_text(self.setup_errors)}; "
                  f"{self.setup.moved:.0f} tables changed hands", file=sys.stderr, flush=True)
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
        for served in self.servers:
            served.stop()

    def ours(self) -> list[int]:
        pids = [ld.pid for ld in self.loads]
        for served in self.servers:
            if served.process is not None:
                pids += [served.pid, *bench.children(served.pid)]
        if self.pg is not None and self.pg.running:
            pids += [postgres_pid(self.pg), *bench.children(postgres_pid(self.pg))]
        if self.redis is not None and self.redis.proc is not None:
            pids.append(self.redis.proc.pid)
        return pids

    def wait_quiet(self) -> float:
        """Wait (at most ``--quiet-wait`` s) for the machine's other processes to use less
        than ``--quiet-below`` % of a core; what they used, in % of a core."""
        deadline = time.monotonic() + self.args.quiet_wait
        while True:
            others = self.others_during(2.0)
            if others < self.args.quiet_below or time.monotonic() > deadline:
                return others

    def others_during(self, seconds: float) -> float:
        pids = self.ours()
        ours0, machine0 = sum(bench.cpu_ticks(p) for p in pids), bench.machine_busy()
        time.sleep(seconds)
        ours1, machine1 = sum(bench.cpu_ticks(p) for p in pids), bench.machine_busy()
        total = machine1[1] - machine0[1]
        cores = os.cpu_count() or 1
        busy = (machine1[0] - machine0[0]) / total * 100 * cores if total else 0.0
        return busy - (ours1 - ours0) / seconds * 100

    def cpu(self) -> Cpu:
        """CPU s so far: servers, their workers, PostgreSQL, Redis."""
        servers = workers = 0.0
        for served in self.servers:
            if served.process is not None:
                servers += bench.cpu_ticks(served.pid)
                workers += sum(bench.cpu_ticks(w) for w in bench.children(served.pid))
        pg = tree_cpu(postgres_pid(self.pg)) if self.pg is not None else 0.0
        redis = (bench.cpu_ticks(self.redis.proc.pid)
                 if self.redis is not None and self.redis.proc is not None else 0.0)
        return Cpu(servers, workers, pg, redis, bench.machine_busy())

    def measure(self, warmup: float, duration: float) -> Figures:
        others_before = self.wait_quiet()
        c = self.config
        print(f"  {c.name}: other processes use {others_before:.0f}% of a core; warm-up "
              f"{warmup:g} s, measuring {duration:g} s", file=sys.stderr, flush=True)
        for load in self.loads:
            load.send(f"go {warmup} {duration}")
        time.sleep(warmup)
        ports = [s.port for s in self.servers]
        before = [scrape(p) for p in ports]
        profilers = self.profile(duration)
        cpu0 = self.cpu()
        sched0 = [schedstat(s.pid) for s in self.servers if s.process is not None]
        probe = probe_servers(ports, duration)
        cpu1 = self.cpu()
        sched1 = [schedstat(s.pid) for s in self.servers if s.process is not None]
        on_core = sum(b[0] - a[0] for a, b in zip(sched0, sched1, strict=False))
        waiting = sum(b[1] - a[1] for a, b in zip(sched0, sched1, strict=False))
        for profiler in profilers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                profiler.wait(30)
        after = [scrape(p) for p in ports]
        load_average = os.getloadavg()
        rss = sum(bench.rss_mb(s.pid) for s in self.servers if s.process is not None)
        results = [load.expect("result", 120) for load in self.loads]
        window = Scrape()
        for a, b in zip(after, before, strict=True):
            window = window + (a - b)
        errors: dict[str, int] = {}
        for r in results:
            for k, v in r["errors"].items():
                errors[k] = errors.get(k, 0) + int(v)
        busy = cpu1.machine[0] - cpu0.machine[0]
        total = cpu1.machine[1] - cpu0.machine[1]
        machine = busy / total * 100 * (os.cpu_count() or 1) if total else float("nan")
        load_cpu = sum(float(r["cpu_s"]) for r in results)
        ours = (cpu1.servers - cpu0.servers + cpu1.workers - cpu0.workers
                + cpu1.postgres - cpu0.postgres + cpu1.redis - cpu0.redis + load_cpu)
        return Figures(
            config=c, duration=duration, actions=window.actions,
            client=[x for r in results for x in r["latencies"]["people"]],
            server=window, probe=probe,
            servers_cpu=cpu1.servers - cpu0.servers, workers_cpu=cpu1.workers - cpu0.workers,
            postgres_cpu=cpu1.postgres - cpu0.postgres, redis_cpu=cpu1.redis - cpu0.redis,
            load_lag_p99=[float(r["lag_p99"]) for r in results], errors=errors,
            load_average=load_average, others_cpu=machine - ours / duration * 100,
            connections=sum(int(r["connections"]) for r in results), servers_rss=rss,
            setup_s=self.setup_s, setup=self.setup, setup_errors=self.setup_errors,
            loop_on_core=on_core / duration * 100, loop_waiting=waiting / duration * 100)

    def profile(self, duration: float) -> list[subprocess.Popen[bytes]]:
        """With ``--py-spy DIR``: each server sampled by py-spy over the window, without
        pausing it (``--nonblocking``), its stacks written collapsed (one line a stack and
        its count) to DIR/CONFIGURATION-N.txt. py-spy is not a dependency of the project:
        ``pip install py-spy`` where this option is used."""
        if self.args.py_spy is None:
            return []
        self.args.py_spy.mkdir(parents=True, exist_ok=True)
        found = []
        for i, served in enumerate(self.servers):
            out = self.args.py_spy / f"{self.config.name.replace(' ', '-')}-{i}.txt"
            found.append(subprocess.Popen(
                [str(Path(sys.executable).parent / "py-spy"), "record", "--pid",
                 str(served.pid), "--duration", str(max(1, int(duration))), "--rate", "100",
                 "--nonblocking", "--format", "raw", "--output", str(out)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return found

    def takeover(self) -> tuple[float | None, str]:
        """Kill one process (SIGKILL) while a person of one of its tables plays through
        another; the seconds from the kill to the first view showing the person's next
        action, which only the table's new owner can have applied."""
        if len(self.servers) < 2:
            return None, ""  # one process: nothing to take over
        victim, through = self.servers[-1], self.servers[0]
        try:
            return asyncio.run(timed_takeover(victim, through.port, self.args.takeover_timeout)
                               ), ""
        except Exception as exc:  # the figure is missing; the report says why
            return None, f"{type(exc).__name__}: {str(exc)[:200]}"


async def timed_takeover(victim: Serve, through: int, timeout: float) -> float:
    """See :meth:`Cluster.takeover`: a table of one person and two bots created on the victim,
    the person connected through ``through``; one action before the kill (the table runs),
    one after it (sent again every second until a process owns the table again)."""
    import random

    import httpx
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    from minodice.wire.messages import ViewMessage
    from minodice.wire.reading import read_server_message

    base = f"http://{HOST}:{victim.port}"
    async with httpx.AsyncClient(base_url=base, timeout=30, trust_env=False) as http:
        made = await http.post("/api/tables", json={"players": 3,
                                                    "bots": [None, "random", "random"]})
        made.raise_for_status()
        table = made.json()["table"]
        seat = (await http.post(f"/api/tables/{table}/seats",
                                json={"name": "taken-over", "client_seed": "0" * 32}))
        seat.raise_for_status()
        token = seat.json()["token"]
    url = f"ws://{HOST}:{through}/ws/{table}?token={token}"
    rng = random.Random(7)

    async def my_turn(ws: Any, seq: int, until: float) -> tuple[str, list[str], int]:
        """The next view (after ``seq``) in which this seat is to act."""
        while True:
            raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
            message = read_server_message(raw)
            if isinstance(message, ViewMessage) and message.seq > seq:
                seq = message.seq
                if message.view.turn is not None and message.view.legal:
                    return message.view.turn, list(message.view.legal), seq

    async with connect(url, open_timeout=30, proxy=None) as ws:
        turn, legal, seq = await my_turn(ws, -1, time.monotonic() + 30)
        await ws.send(json.dumps({"type": "act", "turn": turn, "action": rng.choice(legal)}))
        turn, legal, before = await my_turn(ws, seq, time.monotonic() + 30)
    killed = time.monotonic()
    victim.kill()
    deadline = killed + timeout
    action = rng.choice(legal)
    # The survivor may close the socket while nobody owns the table (a client reconnects):
    # connect again, send the action again, until a view shows it applied (a later turn).
    while time.monotonic() < deadline:
        try:
            async with connect(url, open_timeout=5, proxy=None) as ws:
                while time.monotonic() < deadline:
                    await ws.send(json.dumps({"type": "act", "turn": turn, "action": action}))
                    try:
                        now_turn, _, now = await my_turn(ws, before, min(
                            deadline, time.monotonic() + 1.0))
                    except TimeoutError:
                        continue
                    if now > before and now_turn != turn:
                        return time.monotonic() - killed
        except (OSError, TimeoutError, ConnectionClosed):
            await asyncio.sleep(0.1)
    raise TimeoutError(f"no process took the table over within {timeout:g} s")


def probe_servers(ports: Sequence[int], duration: float) -> list[float]:
    """``GET /`` every 0.1 s for ``duration`` s, to each server in turn (ms)."""
    if len(ports) == 1:
        return bench.probe_server(ports[0], duration)
    share = duration / len(ports)
    return [t for port in ports for t in bench.probe_server(port, share)]


def profile_summary(path: Path, top: int = 25) -> list[str]:
    """Where a py-spy profile (collapsed stacks: ``frame;frame;... count``) found the
    server: the share of all samples (both threads: the event loop's and the store's
    writer) of the project's and the server libraries' functions anywhere on the stack
    (inclusive; the frames a person's action passes through before ``Room.on_act`` left
    out),
    and the functions found at the top of the stack (self), the line numbers left out."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [_frame_name(f) for f in stack.split(";")]
        for name in set(frames):
            inclusive[name] = inclusive.get(name, 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
    if not total:
        return [f"{path.name}: no samples"]
    inside = max((c for n, c in inclusive.items() if n.startswith("Room.on_act ")),
                 default=total)
    lines = [f"{path.name}: {total} samples (100 a second, both threads); inclusive% of "
             "the project's and the server libraries' functions below the connection loop"]
    wanted = ("minodice/", "sqlalchemy/", "websockets/", "uvicorn/", "starlette/", "asyncio/")
    shown = [(n, c) for n, c in inclusive.items()
             if c <= inside and any(w in n for w in wanted)]
    for name, count in sorted(shown, key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {count * 100 / total:6.1f}  {name}")
    lines.append("  self% (top of the stack):")
    for name, count in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"  {count * 100 / total:6.1f}  {name}")
    return lines


def _frame_name(frame: str) -> str:
    """``function (path/to/file.py:123)`` as ``function (path/to/file.py)``."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rstrip(')').rsplit(':', 1)[0]})" if where else name


# == the report ==============================================================================


fmt = bench.fmt
percentile = bench.percentile


def print_figures(figures: list[Figures], ref: Figures) -> None:
    ref50, ref99 = percentile(ref.client, 50), percentile(ref.client, 99)
    srv50, srv99 = ref.server_ms(0.5), ref.server_ms(0.99)
    base = figures[0]
    print("latency in ms: client = action sent -> view showing it (load processes' clock); "
          "server = received -> last view queued (/metrics histogram, interpolated); probe = "
          "GET / every 0.1 s from an idle process")
    print(f"{'configuration':<22}{'tables':>7}{'act/s':>8}{'x1st':>6}{'client p50':>11}"
          f"{'p99':>8}{'p99/ref':>8}{'server p50':>11}{'p99':>8}{'p99/ref':>8}"
          f"{'<=100ms':>8}{'probe p50':>10}{'p99':>8}")
    for f in figures:
        s99 = f.server_ms(0.99)
        print(f"{f.config.name:<22}{f.config.tables:>7}{fmt(f.rate):>8}"
              f"{fmt(f.rate / base.rate, 2):>6}{fmt(percentile(f.client, 50)):>11}"
              f"{fmt(percentile(f.client, 99)):>8}"
              f"{fmt(percentile(f.client, 99) / ref99, 1):>8}{fmt(f.server_ms(0.5)):>11}"
              f"{fmt(s99):>8}{fmt(s99 / srv99, 1):>8}"
              f"{fmt(share_within(0.1, f.server.buckets) * 100, 2):>7}%"
              f"{fmt(percentile(f.probe, 50)):>10}{fmt(percentile(f.probe, 99)):>8}")
    print(f"reference (1 table, 1 process, SQLite): client p50 {fmt(ref50, 2)} p99 "
          f"{fmt(ref99, 2)} ms, server p50 {fmt(srv50, 2)} p99 {fmt(srv99, 2)} ms, "
          f"{fmt(ref.cpu_ms, 2)} ms CPU per action")
    print("CPU in ms per action (process CPU time / actions applied); load = load average "
          "(1, 5, 15 min) at the end of the window; others = % of a core used by processes "
          "not ours")
    print(f"{'configuration':<22}{'servers':>8}{'x1st':>6}{'workers':>8}{'postgres':>9}"
          f"{'redis':>7}{'load lag p99':>14}{'load average':>17}{'others%':>8}"
          f"{'takeover s':>11}")
    for f in figures:
        def per(cpu: float, actions: float = f.actions) -> float:
            return cpu * 1000 / actions if actions else float("nan")

        lags = "/".join(fmt(x, 0) for x in f.load_lag_p99)
        average = " ".join(f"{x:.2f}" for x in f.load_average)
        print(f"{f.config.name:<22}{fmt(f.cpu_ms, 2):>8}{fmt(f.cpu_ms / base.cpu_ms, 2):>6}"
              f"{fmt(per(f.workers_cpu), 2):>8}{fmt(per(f.postgres_cpu), 2):>9}"
              f"{fmt(per(f.redis_cpu), 2):>7} {lags:>13} {average:>16}{fmt(f.others_cpu, 0):>8}"
              f"{fmt(f.takeover, 2) if f.takeover is not None else '-':>11}")
    print("stalls of the servers' event loops, in ms (/metrics: the loop-lag probe, woken "
          "every 50 ms, and every garbage collection timed; 'longest' = its bucket; GC % = "
          "the collections' pauses added up, in % of the window)")
    print(f"{'configuration':<22}{'lag p50':>8}{'p99':>8}{'longest':>9}{'GCs/s':>7}"
          f"{'GC p99':>8}{'longest':>9}{'full GCs':>9}{'longest':>9}{'GC %':>6}"
          "  by generation 0/1/2: collections/s, ms each")
    for f in figures:
        m = f.server
        print(f"{f.config.name:<22}{fmt(histogram_quantile(0.5, m.lag) * 1000, 1):>8}"
              f"{fmt(histogram_quantile(0.99, m.lag) * 1000, 1):>8}{longest(m.lag):>9}"
              f"{fmt(m.gc.get(math.inf, 0.0) / f.duration, 1):>7}"
              f"{fmt(histogram_quantile(0.99, m.gc) * 1000, 1):>8}{longest(m.gc):>9}"
              f"{fmt(m.gc_full.get(math.inf, 0.0), 0):>9}{longest(m.gc_full):>9}"
              f"{fmt(sum(m.gc_seconds.values()) / f.duration * 100, 1):>6}  " + " / ".join(
                  f"{fmt(m.gc_count.get(g, 0.0) / f.duration, 1)}, "
                  f"{fmt(m.gc_seconds.get(g, 0.0) / max(1.0, m.gc_count.get(g, 0.0)) * 1000, 1)}"
                  for g in (0.0, 1.0, 2.0)))
    for f in [ref, *figures]:
        notes = [f"{f.connections} connections", f"servers' RSS {fmt(f.servers_rss, 0)} MB",
                 f"event loop on a core {fmt(f.loop_on_core, 0)}% of the window, waiting "
                 f"for one {fmt(f.loop_waiting, 0)}%",
                 f"errors: {bench.errors_text(f.errors)}",
                 f"set up in {fmt(f.setup_s, 0)} s (retried or reconnected: "
                 f"{bench.errors_text(f.setup_errors)}; tables that changed hands: "
                 f"{fmt(f.setup.moved, 0)} during the setup, {fmt(f.server.moved, 0)} in the "
                 "window)"]
        if f.takeover_note:
            notes.append(f"takeover: {f.takeover_note}")
        print(f"  {f.config.name}: " + "; ".join(notes))
    for f in figures:
        if f.config.tables >= 1000 and f.config.processes == 1:
            s99, p99 = f.server_ms(0.99), percentile(f.probe, 99)
            within = share_within(0.1, f.server.buckets)
            print(f"target, {f.config.name}: server p99 <= 100 ms "
                  f"{'met' if within >= 0.99 else 'NOT met'} ({fmt(within * 100, 2)}% within "
                  f"100 ms, p99 ~{fmt(s99)} ms); probe p99 <= 50 ms "
                  f"{'met' if p99 <= 50 else 'NOT met'} ({fmt(p99)} ms)")


# == the run =================================================================================


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a short run: 200 tables, 10 s warm-up, 15 s measured")
    parser.add_argument("--tables", type=int, default=1000, help="tables of 4 people")
    parser.add_argument("--processes", type=ints, default=[1, 2, 3],
                        help="server processes per configuration on PostgreSQL and Redis")
    parser.add_argument("--duration", type=float, default=30.0, help="measured s")
    parser.add_argument("--warmup", type=float, default=10.0, help="warm-up s")
    parser.add_argument("--think", type=float, default=2.0, help="s a person thinks")
    parser.add_argument("--think-jitter", type=float, default=0.0, metavar="J",
                        help="each think time drawn within ±J of --think (0: all equal)")
    parser.add_argument("--ref-think", type=float, default=0.1)
    parser.add_argument("--ref-duration", type=float, default=15.0)
    parser.add_argument("--load-procs", type=int, default=4, help="load processes")
    parser.add_argument("--load-nice", type=int, default=10,
                        help="nice value of the load processes (they stand for clients on "
                        "other machines; the servers and the prober keep this process's "
                        "priority); 0 for the same priority")
    parser.add_argument("--py-spy", type=Path, metavar="DIR",
                        help="sample the servers with py-spy over each window (needs "
                        "py-spy installed), collapsed stacks to DIR")
    parser.add_argument("--bot-workers", type=int, default=1, help="server --bot-workers")
    parser.add_argument("--no-sqlite", dest="sqlite", action="store_false",
                        help="skip the one-process SQLite configuration")
    parser.add_argument("--compare", type=Path, metavar="CHECKOUT",
                        help="first measure one process on SQLite with the server of another "
                        "checkout (e.g. a worktree of main): before and after in one run")
    parser.add_argument("--only-sqlite", action="store_true",
                        help="measure only the one-process SQLite configuration(s)")
    parser.add_argument("--takeover-timeout", type=float, default=60.0)
    parser.add_argument("--setup-timeout", type=float, default=900.0)
    parser.add_argument("--setup-concurrency", type=int, default=100)
    parser.add_argument("--quiet-wait", type=float, default=60.0)
    parser.add_argument("--quiet-below", type=float, default=25.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the servers' logs (and SQLite files) in DIR, not in a "
                        "temporary directory removed at the end")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    args.no_compression = False  # what benchmarks/server.py's load processes read
    if args.quick:
        args.tables, args.warmup, args.duration = min(args.tables, 200), 5.0, 15.0
        args.ref_duration, args.quiet_wait = 8.0, 10.0
    return args


@contextlib.contextmanager
def services(need_redis: bool) -> Iterator[tuple[Postgres, Redis | None]]:
    with postgres_server() as pg:
        if not need_redis:
            yield pg, None
            return
        with redis_server() as redis:
            yield pg, redis


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    limit = bench.raise_nofile()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on the way out
    has_redis = serve_has_redis()
    several = [n for n in args.processes if n > 1]
    configs: list[Config] = []
    if args.compare is not None:
        configs.append(Config(f"1 proc SQLite {args.compare.name}", 1, "sqlite", args.tables,
                              args.think, code=args.compare.resolve()))
    if args.sqlite:
        configs.append(Config("1 process SQLite", 1, "sqlite", args.tables, args.think))
    for n in sorted(set(args.processes)) if not args.only_sqlite else []:
        if n == 1 or has_redis:
            configs.append(Config(f"{n} process{'es' if n > 1 else ''} PostgreSQL", n,
                                  "postgresql", args.tables, args.think))
    command = "python benchmarks/cluster_bench.py" + "".join(
        f" {shlex.quote(a)}" for a in (sys.argv[1:] if argv is None else argv))
    from importlib.metadata import version

    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(str(args.keep)) if args.keep is not None
          else tempfile.TemporaryDirectory(prefix="minodice-cluster-")) as tmp, \
            bench.report_to(args.out), services(has_redis and bool(several)) as (pg, redis):
        workdir = Path(tmp)
        print(f"# {command} ({datetime.date.today().isoformat()})")
        print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, uvicorn "
              f"{version('uvicorn')}, PostgreSQL {pg_version(pg)}; open files {limit}; load "
              f"average at the start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"servers: python -m minodice serve --bot-delay 0 (limits raised) --grace 3600 "
              f"--bot-workers {args.bot_workers}, at nice {os.nice(0)} as the prober; "
              f"clients: {args.load_procs} load processes at nice "
              f"{os.nice(0) + args.load_nice}"
              + (" in this process's session (the scheduler's autogroup of the prober, "
                 "where their nice value counts)" if args.load_nice and autogroups() else "")
              + (" (they stand for clients on other machines: the servers go first for the "
                 "CPU; their own lag is printed)" if args.load_nice else "")
              + f", think {args.think:g} s"
              + (f" ± {args.think_jitter * 100:g}% (uniform)" if args.think_jitter else "")
              + ", games spread over their stages, views read with "
              f"orjson; warm-up {args.warmup:g} s, measured {args.duration:g} s"
              + (f"; servers sampled by py-spy (--nonblocking) into {args.py_spy}"
                 if args.py_spy is not None else ""))
        if several and not has_redis:
            print(f"NOT measured: {', '.join(map(str, several))} processes - this release's "
                  "minodice serve has no --redis (several processes share tables through it)")
        print(flush=True)
        with Cluster(args, workdir, Config("reference", 1, "sqlite", 1, args.ref_think, False),
                     None, None) as cluster:
            ref = cluster.measure(3.0, args.ref_duration)
        figures = []
        failed: list[str] = []
        for config in configs:
            try:
                with Cluster(args, workdir, config,
                             pg if config.store == "postgresql" else None, redis) as cluster:
                    found = cluster.measure(args.warmup, args.duration)
                    found.takeover, found.takeover_note = cluster.takeover()
                    figures.append(found)
            except Exception as exc:  # one configuration's failure: the others still run
                failed.append(f"{config.name}: NOT measured ({type(exc).__name__}: "
                              f"{str(exc)[:200]}; load average "
                              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})")
                print(f"  {failed[-1]}", file=sys.stderr, flush=True)
        if figures:
            print_figures(figures, ref)
        for line in failed:
            print(line)
        if args.py_spy is not None:
            print(f"where the servers' time went (py-spy, {args.py_spy}):")
            for found in sorted(args.py_spy.glob("*.txt")):
                for line in profile_summary(found):
                    print(line)


def autogroups() -> bool:
    """Whether the scheduler groups processes by session (``benchmarks/server.py``'s
    load_session says why the load processes stay in this one)."""
    try:
        return Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        return False


def pg_version(pg: Postgres) -> str:
    try:
        return (pg.data / "PG_VERSION").read_text().strip()
    except OSError:
        return "?"


if __name__ == "__main__":
    try:
        main()
    except ServiceMissingError as exc:  # a machine without PostgreSQL or Redis: say so
        sys.exit(f"cluster_bench: {exc}")
