"""The takeover sweep of ``minodice serve --redis`` (server/cluster.py) at many tables: what
one sweep of one process reads, and how long it takes, against the sweep before the leases'
expiry index — every live table's id from the store and every lease from Redis
(``Store.ids`` and an ``MGET`` of them all) — measured in the same run on the same data.

``--tables`` live tables (half waiting, half playing) are written to a fresh PostgreSQL
database on a server of this run's own (``tests/services.py``: Debian's binaries, free
ports, stopped at the end; ``--sqlite`` for a SQLite file), and all of them are leased in a
Redis of its own by another owner that lives: the steady state of a cluster, where nothing
changes hands. The process measured holds none of them.

Per sweep, the median of ``--repeat`` alternating runs: wall milliseconds, ids read from the
store, keys Redis looked up (its ``keyspace_hits`` + ``keyspace_misses``), and the new
sweep's figures as a ratio to the reference's. Then the renewals an owner sends every third
of its lease: 10,000 leases renewed once, 50 at a time each its own round trip (the
reference, as before) and 500 a pipeline (now). Run under ``nice -n 10``:
``python benchmarks/sweep.py [--tables 20000] [--sqlite] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import redis

from minodice.server.botpool import BotPool
from minodice.server.cluster import LIVE, Cluster
from minodice.server.leases import Lease, Leases
from minodice.server.lobby import Lobby, new_id
from minodice.server.room import Settings
from minodice.server.rows import Seat, TableSettings, stored_seats
from minodice.server.store import Store, now_ms, tables

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from services import postgres_server, redis_server  # noqa: E402

RENEWED = 10_000  # leases renewed in the second part (at most)


class CountingStore(Store):
    """The store, counting the ids its reads of many tables return."""

    rows = 0

    def ids(self, statuses: Sequence[str]) -> list[str]:
        out = super().ids(statuses)
        self.rows += len(out)
        return out

    def ids_after(self, status: str, after: str, limit: int) -> list[str]:
        out = super().ids_after(status, after, limit)
        self.rows += len(out)
        return out


def write_tables(store: Store, count: int) -> list[str]:
    """``count`` live tables of three seats, written in batches (not a game each)."""
    settings = TableSettings(players=3, edition="mino").stored()
    seats = stored_seats([Seat(), Seat(), Seat()])
    ids = [new_id() for _ in range(count)]
    for start in range(0, count, 1000):
        rows = [{"id": tid, "created_at": now_ms(), "status": LIVE[i % 2], "public": False,
                 "settings": settings, "seats": seats, "host_token_hash": "1" * 64,
                 "server_seed": "2" * 64, "commit": "3" * 64, "seq": 1, "events": 0,
                 "rematch": None, "epoch": 0}
                for i, tid in enumerate(ids[start:start + 1000])]
        with store.engine.begin() as conn:
            conn.execute(tables.insert(), rows)
    return ids


def lookups(client: redis.Redis) -> int:
    stats = client.info("stats")
    return int(stats["keyspace_hits"]) + int(stats["keyspace_misses"])


async def measure(store: CountingStore, client: redis.Redis,
                  sweep: Callable[[], Coroutine[Any, Any, None]]) -> tuple[float, int, int]:
    """One sweep: its milliseconds, ids read from the store, keys looked up in Redis."""
    store.rows = 0
    before = lookups(client)
    began = time.perf_counter()
    await sweep()
    elapsed = (time.perf_counter() - began) * 1000
    return elapsed, store.rows, lookups(client) - before  # (INFO itself reads no key)


async def renewals(leases: Leases, ids: list[str], repeat: int) -> None:
    """Every lease renewed once: 50 at a time each its own round trip (the reference, as
    before), and 500 a pipeline (now, the index moved with each)."""
    held = [Lease(tid, 0) for tid in ids[:RENEWED]]

    async def one_by_one() -> None:
        for start in range(0, len(held), 50):
            await asyncio.gather(*(leases.renew(lease) for lease in held[start:start + 50]))

    async def pipelined() -> None:
        for start in range(0, len(held), 500):
            assert not any(await leases.renew_all(held[start:start + 500]))

    times: dict[str, list[float]] = {"one_by_one": [], "pipelined": []}
    for _ in range(repeat):
        for name, renew in (("one_by_one", one_by_one), ("pipelined", pipelined)):
            began = time.perf_counter()
            await renew()
            times[name].append(time.perf_counter() - began)
    old, new = (statistics.median(times[name]) for name in ("one_by_one", "pipelined"))
    print(f"{len(held)} leases renewed once, median of {repeat}: 50 at a time "
          f"{len(held) / old:,.0f}/s (reference), 500 a pipeline {len(held) / new:,.0f}/s; "
          f"time ratio {new / old:.3f}")


async def run(args: argparse.Namespace, db_url: str, redis_url: str) -> None:
    store = CountingStore(db_url)
    pool = BotPool(workers=1)  # no table is loaded: its worker never starts
    lobby = Lobby(store, pool, Settings(bot_delay=0))
    other = Leases.from_url(redis_url, ttl_ms=3_600_000)  # the live owner of every table
    here = Cluster(redis_url, lobby, "http://127.0.0.1:9", lease_ms=3_600_000)
    client = redis.Redis.from_url(redis_url)
    loop = asyncio.get_running_loop()
    try:
        began = time.perf_counter()
        ids = write_tables(store, args.tables)
        for start in range(0, len(ids), 50):  # (a client's pool holds at most 100)
            await asyncio.gather(*(other.take(tid) for tid in ids[start:start + 50]))
        print(f"{args.tables} live tables written and leased in "
              f"{time.perf_counter() - began:.1f} s")
        while True:  # a new process's full pass first: the steady state after it
            await here.sweep_once()
            if here._full is None:
                break

        async def reference() -> None:
            """The sweep before the index: every live id, every lease."""
            live = await loop.run_in_executor(None, store.ids, list(LIVE))
            owners = await here.leases.owners(live)
            assert all(owner == other.owner for owner in owners)

        old: list[tuple[float, int, int]] = []
        new: list[tuple[float, int, int]] = []
        for _ in range(args.repeat):
            old.append(await measure(store, client, reference))
            new.append(await measure(store, client, here.sweep_once))
        assert not here.held, "the sweep took a table a live owner holds"
        print(f"load average {os.getloadavg()[0]:.1f}; per sweep, median of {args.repeat}:")
        print(f"{'':28} {'ms':>9} {'store ids':>10} {'Redis keys':>11}")
        for name, runs in (("every lease (reference)", old), ("expiry index + backstop", new)):
            ms, rows, keys = (statistics.median(r[i] for r in runs) for i in range(3))
            print(f"{name:28} {ms:9.2f} {rows:10.0f} {keys:11.0f}")
        ratios = [statistics.median(n[i] for n in new) / max(1e-9, statistics.median(
            o[i] for o in old)) for i in range(3)]
        print(f"{'index / reference':28} {ratios[0]:9.4f} {ratios[1]:10.4f} {ratios[2]:11.4f}")
        await renewals(other, ids, min(args.repeat, 3))
    finally:
        await here.stop()
        await other.close()
        client.close()
        await lobby.close()
        pool.close()
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file, not PostgreSQL")
    args = parser.parse_args()
    with redis_server() as red:
        if args.sqlite:
            with tempfile.TemporaryDirectory() as folder:
                asyncio.run(run(args, f"sqlite:///{folder}/tables.sqlite3", red.url))
        else:
            with postgres_server() as pg:
                asyncio.run(run(args, pg.new_database(), red.url))


if __name__ == "__main__":
    main()
