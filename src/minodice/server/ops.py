"""What an operator watches: ``/healthz``, ``/readyz``, Prometheus ``/metrics``, JSON logs.

- ``GET /healthz``: the process answers (its event loop runs): 200 ``{"status": "alive"}``.
  A load balancer restarts a process that stops answering it.
- ``GET /readyz``: the process can serve tables now: the store answers and its schema is
  this release's (migrations current), and a SQLite file's disk has room for a move's
  commit. 503 with the reason otherwise, so that a load
  balancer sends people elsewhere while the database is away, without restarting us.
- ``GET /metrics``: Prometheus's text format, from the standard client library (metric
  names below). Counters are totals since the start; Prometheus's ``rate()`` makes them
  per second (actions/s: ``rate(minodice_actions_total[1m])``).
- ``--log-format json``: one JSON object a line (python-json-logger), with ``table`` and
  ``seq`` where a line is about a table's change; every line ``minodice serve`` writes is
  one, its "ready" line and a failure to start included (nothing on stdout). Tokens are
  never logged (the access log is off: WebSocket URLs carry them), nor anything a seat
  hides (its dice, its bid): ``--log-level debug`` adds lines about tables' and
  connections' comings and goings and each person's action (its latency, not its
  content).

The server-side latency of an action is measured from the moment a person's action is
received (before the table's lock) to the moment the last connection of the table was
handed its new view — what the clients' own latency includes besides the network and their
own lag. One call site in the act path (:func:`action_received`, :func:`action_done`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    Info,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from minodice.server.botpool import BotPool
    from minodice.server.lobby import Lobby
    from minodice.server.store import Store

log = logging.getLogger("minodice.server.ops")

# Latency buckets (seconds): a move should take milliseconds; the target is a p99
# under 100 ms at 1,000 tables, so the buckets are fine around it.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.15, 0.25,
                   0.5, 1.0, 2.5, 5.0)
BOT_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

# The process's own metrics (one server a process): registered in each app's registry.
ACTIONS = Counter("minodice_actions", "Decisions applied to tables (people's and bots').",
                  registry=None)
ACTION_LATENCY = Histogram(
    "minodice_action_latency_seconds",
    "Server-side latency of a person's action: received to the last view of its table sent.",
    buckets=LATENCY_BUCKETS, registry=None)
TAKEOVERS = Counter("minodice_lease_takeovers",
                    "Tables this process took over (their owner died, stopped or lost them).",
                    registry=None)
LEASES_LOST = Counter("minodice_leases_lost",
                      "Tables this process let go: a lease lost, or a write fenced.",
                      registry=None)
BOT_DECISIONS = Histogram("minodice_bot_decision_seconds",
                          "Time a bot decision took, queue wait included.",
                          buckets=BOT_BUCKETS, registry=None)
# Where the event loop stalls: every table waits while it does (the server-side latency's
# tail comes from here), so an operator sees the cause beside the effect.
STALL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
LOOP_LAG = Histogram("minodice_event_loop_lag_seconds",
                     "How late the event loop woke a task asleep for LAG_EVERY s.",
                     buckets=STALL_BUCKETS, registry=None)
GC_PAUSES = Histogram("minodice_gc_pause_seconds",
                      "Garbage collections: how long each stopped the process.",
                      ["generation"], buckets=STALL_BUCKETS, registry=None)
LAG_EVERY = 0.05  # seconds between the loop-lag probe's wake-ups

#: The table whose change the current task works on (the JSON logs name it on every line).
TABLE: ContextVar[str | None] = ContextVar("minodice_table", default=None)


def action_received(table_id: str) -> float:
    """A person's action arrived for ``table_id``: the start of its latency (and of the
    log lines that name the table)."""
    TABLE.set(table_id)
    return time.perf_counter()


def action_done(table_id: str, seq: int, started: float) -> None:
    """The action was written and every connection of the table handed its new view."""
    elapsed = time.perf_counter() - started
    ACTION_LATENCY.observe(elapsed)
    log.debug("action applied", extra={"table": table_id, "seq": seq,
                                       "latency_ms": round(elapsed * 1000, 3)})


def action_applied() -> None:
    """Any decision (a person's or a bot's) became part of a table."""
    ACTIONS.inc()


async def watch_loop_lag(every: float = LAG_EVERY) -> None:
    """Until cancelled: sleep ``every`` s, and count how much later than that the loop
    woke us (a callback that ran long, a collection, a blocking call on the loop)."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(every)
        LOOP_LAG.observe(max(0.0, loop.time() - before - every))


class CollectionTimer:
    """Times every garbage collection through ``gc.callbacks`` (a few hundred ns each)."""

    def __init__(self) -> None:
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started:
            GC_PAUSES.labels(str(info.get("generation", "?"))).observe(
                time.perf_counter() - self._started)
            self._started = 0.0

    def __enter__(self) -> CollectionTimer:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_exc: object) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self)


class ServerCollector(Collector):
    """The gauges read when Prometheus scrapes: tables by status, open connections, and
    bot decisions waiting for a worker."""

    def __init__(self, lobby: Lobby, pools: dict[str, BotPool]) -> None:
        self.lobby = lobby
        self.pools = pools

    def collect(self) -> Iterable[Metric]:
        tables = GaugeMetricFamily("minodice_tables", "Tables in this process, by status.",
                                   labels=["status"])
        counts: dict[str, int] = {}
        connections = 0
        for room in list(self.lobby.rooms.values()):
            counts[room.row.status] = counts.get(room.row.status, 0) + 1
            connections += len(room.presence.conns)
        for status in ("waiting", "playing", "finished"):
            counts.setdefault(status, 0)
        for status, count in sorted(counts.items()):
            tables.add_metric([status], count)
        yield tables
        yield GaugeMetricFamily("minodice_connections",
                                "Open WebSocket connections to tables (seats and spectators).",
                                value=connections)
        queue = GaugeMetricFamily("minodice_bot_queue",
                                  "Jobs waiting for a worker of a pool.", labels=["pool"])
        for name, pool in self.pools.items():
            queue.add_metric([name], pool.waiting)
        yield queue


def registry_for(lobby: Lobby, pools: dict[str, BotPool],
                 process: dict[str, str] | None = None) -> CollectorRegistry:
    """One app's registry: its gauges and the process's counters and histograms; with
    several processes, ``minodice_process_info`` names the one that answered (its cluster
    id and address), so that a scrape says whose figures these are."""
    registry = CollectorRegistry(auto_describe=True)
    for metric in (ACTIONS, ACTION_LATENCY, BOT_DECISIONS, TAKEOVERS, LEASES_LOST,
                   LOOP_LAG, GC_PAUSES):
        registry.register(metric)
    registry.register(ServerCollector(lobby, pools))
    if process is not None:
        Info("minodice_process", "This server process in its cluster: its id (the owner id "
             "in table leases and log lines) and the address the others reach it at.",
             registry=registry).info(process)
    return registry


def operations_router(store: Store, lobby: Lobby, pools: dict[str, BotPool],
                      ready_timeout: float = 5.0,
                      redis_ready: Callable[[], Awaitable[str | None]] | None = None,
                      process: dict[str, str] | None = None) -> APIRouter:
    """``/healthz``, ``/readyz`` and ``/metrics`` (not in the API's schema: for operators)."""
    router = APIRouter(include_in_schema=False)
    registry = registry_for(lobby, pools, process)

    @router.get("/healthz")
    async def healthz() -> JSONResponse:
        return JSONResponse({"status": "alive"}, headers={"Cache-Control": "no-store"})

    @router.get("/readyz")
    async def readyz() -> JSONResponse:
        loop = asyncio.get_running_loop()
        try:  # the check blocks on the database: off the event loop, within a deadline
            why = await asyncio.wait_for(loop.run_in_executor(None, store.ready),
                                         ready_timeout)
        except TimeoutError:
            why = f"the database did not answer in {ready_timeout:g} s"
        headers = {"Cache-Control": "no-store"}
        answer = {"status": "ready", "store": why or "ok"}
        if redis_ready is not None:  # several processes: Redis too (``serve --redis``)
            try:
                redis_why = await asyncio.wait_for(redis_ready(), ready_timeout)
            except TimeoutError:
                redis_why = f"Redis did not answer in {ready_timeout:g} s"
            answer["redis"] = redis_why or "ok"
            why = why or redis_why
        if why is not None:
            return JSONResponse({**answer, "status": "unready"}, 503, headers=headers)
        return JSONResponse(answer, headers=headers)

    @router.get("/metrics")
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST,
                        headers={"Cache-Control": "no-store"})

    return router


# -- logs ------------------------------------------------------------------------------------

def json_log_handler(stream: Any = None) -> logging.Handler:
    """A handler writing one JSON object a line: time, level, logger, message, and the
    table (from the record, or the task's current table) and seq where known."""
    from pythonjsonlogger.json import JsonFormatter

    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter(
        "{asctime}{levelname}{name}{message}", style="{",
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"}))
    handler.addFilter(_with_table)
    return handler


def _with_table(record: logging.LogRecord) -> bool:
    if getattr(record, "table", None) is None:
        table = TABLE.get()
        if table is not None:
            record.table = table
    return True


def configure_logging(log_format: str, level: int = logging.INFO) -> None:
    """The server's logging: ``text`` (a line of prose) or ``json`` (JSON lines). In JSON,
    Python's warnings are log records too: every line on stderr must parse."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    logging.captureWarnings(log_format == "json")
    if log_format == "json":
        root.addHandler(json_log_handler())
    else:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
        root.addHandler(handler)
    root.setLevel(level)

