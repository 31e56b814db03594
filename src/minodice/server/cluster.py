"""Several server processes on one store and one Redis (``minodice serve --redis``).

What the processes share, and nothing home-made beyond it:

- **Ownership**: each waiting or playing table is played by the one process holding its
  lease (:mod:`.leases`: ``SET NX PX``, renewed every third of its time). Every write of
  the table carries the lease's epoch, and the store's fence refuses an older owner's
  (:class:`~minodice.server.store.FencingError`), so a paused ex-owner never writes after
  a takeover. A process that loses a renewal, or whose write is fenced, lets the table go:
  its room stops (no timer, no bot), its connections are told ``moved`` and closed (1012),
  and they connect again — to any process.
- **Takeover**: every ``sweep`` seconds every process takes the tables without a live
  lease (a dead owner's expired; a stopping owner released its own): loaded from the store
  (the room's resume path: clocks, bots, grace periods). It finds them in the leases'
  expiry index (:meth:`Leases.due`: one ``ZRANGEBYSCORE`` up to now), so that a sweep
  costs the tables that changed hands, not every table of the store; a slow backstop
  reads the store's live tables a page a sweep, round and round, for tables the index
  does not know (after Redis lost its data, all of them at the pace of a full pass).
  The new owner announces each takeover (``minodice:taken``): the connections forwarded to
  the old one are told ``moved``.
- **Forwarding** (no sticky sessions): a client connected to a process that does not own
  its table is served from there. Its messages are forwarded to the owner over Redis
  pub/sub (``minodice:in:OWNER``); the owner counts it as a connection of its seat and
  builds its views for that seat only, and publishes each to the connection's process
  alone (``minodice:out:PROC``, with the connection's id): another seat's dice never leave
  the owner. Replies and errors travel the same ordered way. HTTP requests about a table
  (join, start, reveal, rematch, its record...) are forwarded to the owner's address
  (``minodice:proc:PROC``, kept while the process lives), so that two people taking the
  last seat through two processes meet at one room's lock and the store's fence: exactly
  one gets it.
- **The lobby**: the public list is read from the store (:meth:`Lobby.shared_page`).

Under load: a process's commands to Redis share a pool of ``REDIS_CONNECTIONS``; one that
finds none free waits for one rather than failing (a burst of joins once got ``503`` from
a full pool, and renewals failed with them, so tables changed hands for nothing). The
lease keeper (renewals, this process's address) has a connection of its own, so that no
burst delays a renewal past its lease. A ``503`` that changed nothing (the table changing
hands, its owner not reachable before the request was sent) carries ``Retry-After``.

Pub/sub delivers at most once: a message lost while Redis restarts costs a view (the next
change sends a whole one) or an act's answer (the client is told ``unavailable`` and sends
it again; the turn it names makes a second copy ``stale``, never applied twice).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from minodice.server import ops
from minodice.server.leases import Lease, LeaseLostError, Leases
from minodice.server.lobby import ID_ALPHABET, Lobby
from minodice.server.presence import Sender
from minodice.server.protocol import (
    MOVED,
    Act,
    BadMessageError,
    dumps,
    error_message,
    parse_client_message,
)
from minodice.server.room import Room

log = logging.getLogger("minodice.server.cluster")
# httpx logs every request it makes at INFO: one line a forwarded request is noise.
logging.getLogger("httpx").setLevel(logging.WARNING)

OUTAGE_LOG_EVERY = 30.0  # seconds between two log lines of one outage that goes on
PREFIX = "minodice:"
TAKEN = f"{PREFIX}taken"  # the channel of every process: a table's new owner
FORWARD_HEADER = "x-minodice-forward"  # the cluster's secret: a request from a peer
REQUEST_TIMEOUT = 5.0  # seconds an owner has to answer a forwarded message
# Seconds an owner has to answer a connection's opening. A busy owner's late answer is
# better than "moved", which only makes the client connect again and the owner do the same
# work twice (at 300 tables over 3 busy processes, 727 of 1,200 connections were sent away
# so with 5 s); a dead owner is known at once all the same (nobody listens to its channel).
OPEN_TIMEOUT = 20.0
# Connections to Redis a process opens at most. A burst of requests beyond it waits for a
# free one (up to REQUEST_TIMEOUT) rather than failing: redis-py's default pool raised
# MaxConnectionsError at its 100th concurrent command, which refused new tables and joins
# with 503 and failed lease renewals, so that the tables changed hands under load.
REDIS_CONNECTIONS = 100
RENEW_AT_ONCE = 500  # leases renewed in one round trip to Redis (a pipeline)
LIVE = ("playing", "waiting")  # the statuses of a table that has an owner
# What one sweep reads at most (more waits for the next sweep):
DUE_AT_ONCE = 1000  # tables of the expiry index whose lease expired
BACKSTOP_PAGE = 100  # the store's live tables, looked up in Redis: the slow backstop
FULL_PAGE = 1000  # the same while a full pass runs (at start, after Redis lost its data)
REMOTE_PAGE = 100  # tables this process forwards connections for, their owners read again
ADOPT_AT_ONCE = 16  # tables a sweep loads concurrently


class OwnerGoneError(Exception):
    """The owner a message was forwarded to did not take it (dead, or not listening)."""


class RemoteSender:
    """On the owner: a connection another process holds. Its views and errors are published
    to that process alone, for that one connection."""

    def __init__(self, cluster: Cluster, proc: str, conn_id: str, seat: int | None) -> None:
        self.cluster = cluster
        self.proc = proc
        self.conn_id = conn_id
        self.seat = seat

    def send(self, text: str) -> None:
        self.cluster.publish(self.proc, {"c": self.conn_id, "t": text})


class Outage:
    """The log lines of something that stops answering and is retried twice a second: one
    when it goes down, one every :data:`OUTAGE_LOG_EVERY` seconds while it stays down, one
    when it is back — not 120 lines a minute per process while Redis restarts."""

    def __init__(self, what: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.clock = clock
        self.since: float | None = None
        self.said = 0.0

    def still(self, why: str) -> None:
        """Another failed try."""
        now = self.clock()
        if self.since is None:
            self.since = self.said = now
            log.warning("%s are down: %s", self.what, why)
        elif now - self.said >= OUTAGE_LOG_EVERY:
            self.said = now
            log.warning("%s are still down after %.0f s: %s", self.what, now - self.since, why)

    def over(self) -> None:
        """A try that worked."""
        if self.since is not None:
            log.warning("%s are back after %.0f s", self.what, self.clock() - self.since)
            self.since = None


@dataclass
class RemoteConn:
    """On this process: a client's connection to a table another process owns."""

    conn: Sender
    table_id: str
    owner: str


class Cluster:
    """This process among the others (see the module docstring)."""

    def __init__(self, url: str, lobby: Lobby, advertise: str, lease_ms: int = 5000,
                 sweep: float = 0.5, rng: random.Random | None = None) -> None:
        self.redis: Redis = _client(url, REDIS_CONNECTIONS)
        self.leases = Leases(self.redis, lease_ms, prefix=PREFIX)
        self.proc = self.leases.owner
        # The lease keeper's own connection: renewals and this process's liveness never
        # wait behind a burst of forwarded messages and joins for one of the pool's.
        self.keeper: Redis = _client(url, 2)
        self.renewals = Leases(self.keeper, lease_ms, owner=self.proc, prefix=PREFIX)
        self.lobby = lobby
        self.advertise = advertise.rstrip("/")
        self.lease_ms = lease_ms
        self.sweep = sweep
        self.secret = ""
        self.held: dict[str, Lease] = {}
        self.renewed: dict[str, float] = {}  # when each lease was last known ours
        self.remote: dict[str, RemoteConn] = {}
        self.remote_tables: dict[str, set[str]] = {}  # table id -> ids in ``remote``
        # The sweep (see sweep_once). Its order of takeovers and its backstop's starting
        # point are random, so that several processes spread over different tables.
        self._rng = rng or random.Random(secrets.randbits(64))
        self._generation: str | None = None  # the expiry index's, as last seen
        self._full: tuple[int, str] | None = (0, "")  # a full pass's cursor (or none)
        self._backstop = (self._rng.randrange(len(LIVE)),
                          "".join(self._rng.choice(ID_ALPHABET) for _ in range(10)))
        self._remote_queue: list[str] = []
        self.senders: dict[tuple[str, str], tuple[str, RemoteSender]] = {}
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._awaited: dict[str, str] = {}  # a connection's id -> its forwarded op's reply
        self._adopting: dict[str, asyncio.Future[bool]] = {}
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[Any]] = set()
        self.http = httpx.AsyncClient(timeout=REQUEST_TIMEOUT * 2)
        self.stopping = False
        lobby.live_loads = False
        lobby.shared_list = True
        lobby.lease_new = self._lease_new
        lobby.on_forget = self._forgotten
        lobby.on_fenced = self._fenced

    # -- keys and channels ----------------------------------------------------------------

    def _proc_key(self, proc: str) -> str:
        return f"{PREFIX}proc:{proc}"

    def _in(self, proc: str) -> str:
        return f"{PREFIX}in:{proc}"

    def _out(self, proc: str) -> str:
        return f"{PREFIX}out:{proc}"

    # -- life -------------------------------------------------------------------------------

    async def start(self) -> None:
        await self._announce()
        for loop in (self._listen, self._keep, self._watch, self._publisher):
            self._tasks.append(asyncio.ensure_future(loop()))
        log.info("process %s joined the cluster at %s", self.proc, self.advertise)

    async def stop(self) -> None:
        """A graceful stop: every table this process owns stopped, then its lease released,
        so that another process takes it over at once (not after the lease's expiry)."""
        self.stopping = True
        for task in self._tasks:
            task.cancel()
        for table_id in list(self.held):
            room = self.lobby.rooms.get(table_id)
            if room is not None:
                for conn in list(room.presence.conns):
                    if isinstance(conn, RemoteSender):
                        conn.send(MOVED)
                await room.close()
                self.lobby.rooms.pop(table_id, None)
        await self._flush()
        released = 0
        for lease in list(self.held.values()):
            with contextlib.suppress(RedisError, OSError):
                released += await self.leases.release(lease)
        self.held.clear()
        with contextlib.suppress(RedisError, OSError):
            await self.redis.delete(self._proc_key(self.proc))
        log.info("process %s left the cluster; %d tables handed over", self.proc, released)
        # A cancellation a client library swallowed (one arriving inside its read) would
        # leave a loop running and this stop waiting for it for ever: each task is
        # cancelled again until it ends (and the sweep's loop also ends once stopping).
        pending = {task for task in self._tasks if not task.done()}
        while pending:
            for task in pending:
                task.cancel()
            _done, pending = await asyncio.wait(pending, timeout=0.5)
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.http.aclose()
        for client in (self.redis, self.keeper):
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _flush(self) -> None:
        """Publish what waits in the outbox now (a stop's last ``moved`` notices)."""
        items: list[tuple[str, str]] = []
        while not self._outbox.empty():
            items.append(self._outbox.get_nowait())
        if items:
            with contextlib.suppress(RedisError, OSError):
                await self._publish_all(items)

    async def ready(self) -> str | None:
        """Why Redis cannot be used now, or ``None`` (``/readyz``)."""
        try:
            await self.redis.ping()
        except (RedisError, OSError) as exc:
            return f"Redis does not answer: {type(exc).__name__}"
        return None

    def trusted(self, scope: Mapping[str, Any]) -> bool:
        """Whether an HTTP request comes from a peer process (it bears the cluster's
        secret): it is served here as it is, neither forwarded again nor limited twice."""
        for key, value in scope.get("headers") or []:
            if key == FORWARD_HEADER.encode():
                return bool(self.secret) and secrets.compare_digest(
                    value, self.secret.encode())
        return False

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    async def _announce(self) -> None:
        """This process is alive at its address; and the cluster's secret (made by the
        first process to ask, read by every other). On the keeper's connection, as the
        renewals."""
        redis = self.keeper
        await redis.set(self._proc_key(self.proc), self.advertise, px=self.lease_ms * 2)
        key = f"{PREFIX}secret"
        await redis.set(key, secrets.token_hex(32), nx=True)
        value = await redis.get(key)
        self.secret = value.decode() if isinstance(value, bytes) else str(value or "")

    # -- ownership ----------------------------------------------------------------------------

    async def _lease_new(self, table_id: str) -> int:
        lease = await self.leases.take(table_id)
        if lease is None:
            raise RuntimeError(f"table id {table_id} is leased already")
        self.held[table_id] = lease
        self.renewed[table_id] = time.monotonic()
        return lease.epoch

    def _forgotten(self, table_id: str) -> None:
        """A table that needs no owner any more (finished, expired, never written)."""
        lease = self.held.pop(table_id, None)
        self.renewed.pop(table_id, None)
        if lease is not None:
            self._spawn(self._release(lease, hand_over=False))

    async def _release(self, lease: Lease, hand_over: bool = True) -> None:
        with contextlib.suppress(RedisError, OSError):
            await self.leases.release(lease, hand_over)

    def _fenced(self, room: Room) -> None:
        self._spawn(self.let_go(room.id, "a write was refused by the fence"))

    async def let_go(self, table_id: str, why: str) -> None:
        """This process no longer owns ``table_id``: its room stops, its connections (here
        and elsewhere) are told to connect again."""
        lease = self.held.pop(table_id, None)
        self.renewed.pop(table_id, None)
        room = self.lobby.rooms.get(table_id)
        if room is not None and room.row.status in ("waiting", "playing"):
            for conn in list(room.presence.conns):
                conn.send(MOVED)
            self.lobby.let_go(table_id)
        for key, (tid, _) in list(self.senders.items()):
            if tid == table_id:
                del self.senders[key]
        ops.LEASES_LOST.inc()
        log.warning("table %s: this process let it go: %s", table_id, why,
                    extra={"table": table_id})
        if lease is not None:
            await self._release(lease)
        # A lease lost without a release (Redis lost its data, or it expired): the index
        # lists the table as expired unless its new owner's score is there already.
        with contextlib.suppress(RedisError, OSError):
            await self.leases.orphaned(table_id)

    def owns(self, table_id: str) -> bool:
        """Whether this process serves ``table_id`` as its owner (a damaged table it holds
        included: it answers that it is damaged)."""
        return table_id in self.held and (table_id in self.lobby.rooms
                                          or table_id in self.lobby.damaged)

    async def resolve(self, table_id: str) -> str | None:
        """Where ``table_id`` is served: ``None`` for here (this process owns it, took it
        now, or it needs no owner: unknown, finished), else the owner's process id."""
        for _ in range(20):
            if self.owns(table_id):
                return None
            owner = await self.leases.owner_of(table_id)
            if owner is not None and owner != self.proc:
                return owner
            try:
                if owner is None and await self.adopt(table_id):
                    return None
            except SQLAlchemyError as exc:  # the store does not answer: nobody can load it
                raise OwnerGoneError(f"table {table_id} cannot be read now") from exc
            await asyncio.sleep(0.05)  # taken or given up meanwhile: look again
        raise OwnerGoneError(f"table {table_id} changes hands too often")

    async def adopt(self, table_id: str, listed: bool = False) -> bool:
        """Take ``table_id`` if nobody holds it; whether it is served here now (also when
        it needs no owner: not in the store, finished; ``listed``: the expiry index listed
        it, and lists it no more then). One attempt a table at a time."""
        running = self._adopting.get(table_id)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._adopting[table_id] = future
        try:
            result = await self._adopt(table_id, listed)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may wait for it
            raise
        else:
            future.set_result(result)
        finally:
            del self._adopting[table_id]
        return result

    async def settled(self, table_id: str) -> None:
        """Wait until this process's attempt to take ``table_id`` over (if one runs) ends:
        a request forwarded here because the lease is ours then finds the table loaded."""
        running = self._adopting.get(table_id)
        if running is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(running)

    async def _adopt(self, table_id: str, listed: bool) -> bool:
        if self.owns(table_id) or self.stopping:
            return not self.stopping
        loop = asyncio.get_running_loop()
        store = self.lobby.store
        row = await loop.run_in_executor(None, store.row, table_id)
        if row is None or row.status not in LIVE:
            if listed:  # (a finished table never plays again: nobody is to look again)
                await self.leases.unlist(table_id)
            return True
        lease = await self.leases.take(table_id, floor=row.epoch)
        if lease is None:
            return False
        self.held[table_id] = lease
        self.renewed[table_id] = time.monotonic()
        try:  # the epoch claimed in the store first: then the log is as nobody else may
            await store.claim(table_id, lease.epoch)  # change it any more
            full = await loop.run_in_executor(None, store.load, table_id)
        except ValueError as exc:  # an event that is not JSON: kept here, set aside (owned
            # and renewed, so that no sweep of any process loads it again and again)
            self.lobby.set_aside(table_id, exc)
            return True
        except Exception as exc:  # the store away, or a newer owner claimed it first
            log.warning("table %s could not be taken over now: %s", table_id,
                        getattr(exc, "why", type(exc).__name__), extra={"table": table_id})
            self.held.pop(table_id, None)
            await self._release(lease)
            return False
        if full is None:
            return True
        room = self.lobby.adopt(full, lease.epoch)
        ops.TAKEOVERS.inc()
        log.info("table %s taken over with epoch %d at seq %d", table_id, lease.epoch,
                 full.seq, extra={"table": table_id, "seq": full.seq})
        self._outbox.put_nowait((TAKEN, json.dumps({"t": table_id, "o": self.proc})))
        if room is not None:
            await room.resume()
        return True

    # -- loops ------------------------------------------------------------------------------

    async def _keep(self) -> None:
        """Renew every lease (a lost one: let the table go), say this process lives, and
        forget the connections of processes that died."""
        every = self.lease_ms / 3000
        began = time.monotonic()
        while True:
            # A round's own time (Redis slow, the loop busy) is taken from the wait, not
            # added to it: rounds keep a third of the lease apart however long each takes.
            await asyncio.sleep(max(0.0, began + every - time.monotonic()))
            began = time.monotonic()
            try:
                await self._announce()
            except (RedisError, OSError) as exc:
                log.warning("Redis does not answer: %s", type(exc).__name__)
            now = time.monotonic()
            held = list(self.held.items())
            for start in range(0, len(held), RENEW_AT_ONCE):
                batch = held[start:start + RENEW_AT_ONCE]
                try:
                    results = await self.renewals.renew_all([lease for _, lease in batch])
                except (RedisError, OSError) as exc:
                    results = [exc] * len(batch)
                for (table_id, lease), result in zip(batch, results, strict=True):
                    if self.held.get(table_id) is not lease:
                        continue  # let go meanwhile
                    if result is None:
                        self.renewed[table_id] = now
                    elif isinstance(result, LeaseLostError):
                        await self.let_go(table_id, "its lease was lost")
                    elif now - self.renewed.get(table_id, 0.0) > self.lease_ms / 1000:
                        # Unknown whether it is still ours (Redis away): past its time,
                        # another process may own it.
                        await self.let_go(table_id, "its lease could not be renewed in time")
            # (a table being created is leased before its room exists: not finished)
            finished = [tid for tid in self.held
                        if (room := self.lobby.rooms.get(tid)) is not None
                        and room.row.status not in ("waiting", "playing")]
            for table_id in finished:  # a finished table needs no owner
                self._forgotten(table_id)
            await self._forget_dead_senders()

    async def _forget_dead_senders(self) -> None:
        procs = {proc for proc, _ in self.senders}
        for proc in procs:
            try:
                alive = await self.redis.exists(self._proc_key(proc))
            except (RedisError, OSError):
                return
            if alive:
                continue
            for key, (table_id, sender) in list(self.senders.items()):
                if key[0] == proc:
                    del self.senders[key]
                    room = self.lobby.rooms.get(table_id)
                    if room is not None:
                        await room.disconnect(sender)

    async def _watch(self) -> None:
        """The takeover sweep, every ``sweep`` seconds (:meth:`sweep_once`). A failure is
        logged when it begins and when it ends, not every half second meanwhile."""
        failing: str | None = None
        while not self.stopping:
            await asyncio.sleep(self.sweep)
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis or the database away: next time
                why = type(exc).__name__
                if why != failing:
                    log.warning("the takeover sweep failed: %s (tried again every %g s)",
                                why, self.sweep)
                failing = why
            else:
                if failing is not None:
                    log.info("the takeover sweep works again")
                failing = None

    async def sweep_once(self) -> None:
        """Take every table without an owner; move the connections whose table's owner
        changed (their clients connect again and find the new one).

        What it reads is what changed, not every table: the expiry index's tables whose
        lease expired or was handed over (one ``ZRANGEBYSCORE``); one page of the
        backstop (:meth:`_backstop_page`); the owners of one page of the tables this
        process forwards connections for (a takeover's notice lost while Redis
        restarted). At 100,000 tables that is a few hundred rows and keys, where reading
        every table's lease was 100,000 of each, in every process, every sweep. Each part
        runs even if one before failed (the database away: Redis still answers); the
        first failure is raised at the end.
        """
        failures: list[Exception] = []
        for part in (self._take_due, self._backstop_page, self._check_remote):
            if self.stopping:
                return
            try:
                await part()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failures.append(exc)
        if failures:
            raise failures[0]

    async def _take_due(self) -> None:
        """The expiry index's tables whose lease expired or was handed over: taken."""
        # (a new generation proposed each time: after a loss, whoever asks first makes
        # one no process has seen)
        generation, due = await self.leases.due(DUE_AT_ONCE, secrets.token_hex(8))
        if generation != self._generation:
            if self._generation is not None:
                log.warning("Redis lost its data (the lease index is new): every table of "
                            "the store is looked at again")
            self._generation = generation
            self._full = (0, "")
        for table_id in due:  # its lease expired: nobody serves it now
            self._moved_to(table_id, None)
        await self._adopt_all([tid for tid in due if tid not in self.held], listed=True)

    async def _adopt_all(self, ids: list[str], listed: bool = False) -> None:
        """Take the tables ``ids`` (those nobody holds), a few at a time, in a random
        order: several processes sweeping at once each begin with different ones. Every
        table is tried; then the first failure is raised."""
        if not ids:
            return
        self._rng.shuffle(ids)
        slots = asyncio.Semaphore(ADOPT_AT_ONCE)

        async def one(table_id: str) -> None:
            async with slots:
                if not self.stopping and table_id not in self.held:
                    await self.adopt(table_id, listed)

        results = await asyncio.gather(*(one(tid) for tid in ids), return_exceptions=True)
        for result in results:  # every table tried; the first failure told (the sweep's)
            if isinstance(result, BaseException):
                raise result

    async def _backstop_page(self) -> None:
        """One page of the store's live tables (:meth:`Store.ids_after`: one range of an
        index), those without a lease taken: the tables the expiry index does not know.
        ``BACKSTOP_PAGE`` a sweep, round and round from a random point; ``FULL_PAGE`` a
        sweep from the start to the end while a full pass runs."""
        full = self._full
        which, after = full if full is not None else self._backstop
        limit = FULL_PAGE if full is not None else BACKSTOP_PAGE
        loop = asyncio.get_running_loop()
        ids = await loop.run_in_executor(None, self.lobby.store.ids_after, LIVE[which],
                                         after, limit)
        cursor = (which, ids[-1]) if len(ids) == limit else (which + 1, "")
        if full is not None:
            self._full = cursor if cursor[0] < len(LIVE) else None
        else:
            self._backstop = (cursor[0] % len(LIVE), cursor[1])
        ids = [tid for tid in ids if tid not in self.held]
        owners = await self.leases.owners(ids)
        await self._adopt_all([tid for tid, owner in zip(ids, owners, strict=True)
                               if owner is None])

    async def _check_remote(self) -> None:
        """The owners of up to ``REMOTE_PAGE`` tables this process forwards connections
        for, read again (round and round): a takeover's notice may have been lost."""
        if not self._remote_queue:
            self._remote_queue = list(self.remote_tables)
        batch = [tid for tid in self._remote_queue[:REMOTE_PAGE] if tid in self.remote_tables]
        del self._remote_queue[:REMOTE_PAGE]
        for table_id, owner in zip(batch, await self.leases.owners(batch), strict=True):
            self._moved_to(table_id, owner)

    def _moved_to(self, table_id: str, owner: str | None) -> None:
        """``table_id`` is ``owner``'s now (``None``: nobody's): this process's
        connections forwarded to another process for it are told ``moved``."""
        for conn_id in list(self.remote_tables.get(table_id, ())):
            rc = self.remote.get(conn_id)
            if rc is not None and rc.owner != owner:
                self.detach(conn_id)
                rc.conn.send(MOVED)

    async def _listen(self) -> None:
        """This process's two channels: messages for the tables it owns (``in``), and
        views and answers for the connections it holds (``out``)."""
        incoming, outgoing = self._in(self.proc), self._out(self.proc)
        outage = Outage("the cluster's channels")
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(incoming, outgoing, TAKEN)
                outage.over()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    data = json.loads(message["data"])
                    channel = message["channel"]
                    channel = channel.decode() if isinstance(channel, bytes) else channel
                    if channel == incoming:
                        self._spawn(self._serve(data))
                    elif channel == TAKEN:
                        self._moved_to(str(data.get("t")), str(data.get("o")))
                    else:
                        self._deliver(data)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis went away: subscribe again when it is back
                outage.still(type(exc).__name__)
                await asyncio.sleep(0.5)
            finally:
                # redis-py types aclose in some releases and not in others: a typed name
                # for it checks the same under both, with no ignore that one of them flags.
                close_pubsub: Callable[[], Awaitable[None]] = pubsub.aclose
                with contextlib.suppress(Exception):
                    await close_pubsub()

    async def _publisher(self) -> None:
        """Publishes in the order sent (one connection, one pipeline at a time): a
        connection's views come in order, and an answer after the errors it follows."""
        while True:
            items = [await self._outbox.get()]
            while not self._outbox.empty():
                items.append(self._outbox.get_nowait())
            try:
                await self._publish_all(items)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("%d messages to other processes were lost: %s", len(items),
                            type(exc).__name__)
                await asyncio.sleep(0.2)

    async def _publish_all(self, items: list[tuple[str, str]]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for channel, text in items:
            pipe.publish(channel, text)
        await pipe.execute()

    def publish(self, proc: str, payload: dict[str, Any]) -> None:
        self._outbox.put_nowait((self._out(proc), json.dumps(payload, separators=(",", ":"))))

    def _deliver(self, data: dict[str, Any]) -> None:
        reply = data.get("r")
        if reply is not None:
            future = self._pending.pop(str(reply), None)
            if future is not None and not future.done():
                future.set_result(data)
            return
        rc = self.remote.get(str(data.get("c")))
        if rc is not None:
            text = str(data.get("t"))
            rc.conn.send(text)
            if text == MOVED:
                self.detach(str(data.get("c")))

    # -- forwarding: this process's side ---------------------------------------------------

    def attach(self, conn: Sender, table_id: str, owner: str) -> str:
        conn_id = uuid.uuid4().hex
        self.remote[conn_id] = RemoteConn(conn, table_id, owner)
        self.remote_tables.setdefault(table_id, set()).add(conn_id)
        return conn_id

    def detach(self, conn_id: str) -> RemoteConn | None:
        # an opening still waiting for its owner ends now: the table moved meanwhile
        future = self._pending.get(self._awaited.get(conn_id, ""))
        if future is not None and not future.done():
            future.set_result({"moved": True})
        rc = self.remote.pop(conn_id, None)
        if rc is not None:
            conns = self.remote_tables.get(rc.table_id)
            if conns is not None:
                conns.discard(conn_id)
                if not conns:
                    del self.remote_tables[rc.table_id]
        return rc

    async def forward(self, owner: str, op: str, table_id: str, conn_id: str,
                      **more: Any) -> bool:
        """A connection's opening, message or closing, to the table's owner; whether the
        owner took it (``False``: the table moved). The owner has ``REQUEST_TIMEOUT`` to
        answer (``OPEN_TIMEOUT`` an opening)."""
        reply_id = uuid.uuid4().hex
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[reply_id] = future
        self._awaited[conn_id] = reply_id
        payload = {"op": op, "t": table_id, "c": conn_id, "p": self.proc, "r": reply_id,
                   **more}
        try:
            took = await self.redis.publish(self._in(owner), json.dumps(payload))
            if not took:
                raise OwnerGoneError(f"process {owner} does not listen")
            answer = await asyncio.wait_for(
                future, OPEN_TIMEOUT if op == "open" else REQUEST_TIMEOUT)
        except (TimeoutError, RedisError, OSError) as exc:
            raise OwnerGoneError(str(exc)) from None
        finally:
            self._pending.pop(reply_id, None)
            if self._awaited.get(conn_id) == reply_id:
                del self._awaited[conn_id]
        return not answer.get("moved")

    async def address(self, proc: str) -> str | None:
        value = await self.redis.get(self._proc_key(proc))
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    # -- forwarding: the owner's side ------------------------------------------------------

    async def _serve(self, data: dict[str, Any]) -> None:
        """A message forwarded by another process for a table this one owns."""
        proc, conn_id, table_id = str(data.get("p")), str(data.get("c")), str(data.get("t"))
        room = self.lobby.rooms.get(table_id) if table_id in self.held else None
        moved = room is None or room.closed
        if moved and data.get("op") == "close":
            # its table went while it was open (expired with its spectators): nothing
            # else forgets it
            self.senders.pop((proc, conn_id), None)
        try:
            if room is not None and not moved:
                moved = not await self._apply(room, data, proc, conn_id)
        except Exception:
            log.exception("a forwarded message failed")
        self.publish(proc, {"r": data.get("r"), "moved": moved})

    async def _apply(self, room: Room, data: dict[str, Any], proc: str, conn_id: str) -> bool:
        op = data.get("op")
        key = (proc, conn_id)
        if op == "open":
            seat = data.get("seat")
            sender = RemoteSender(self, proc, conn_id, seat if isinstance(seat, int) else None)
            self.senders[key] = (room.id, sender)
            await room.connect(sender)
            return True
        entry = self.senders.get(key)
        if entry is None:
            return op == "close"
        sender = entry[1]
        if op == "close":
            del self.senders[key]
            await room.disconnect(sender)
            return True
        try:
            parsed = parse_client_message(str(data.get("m")))
        except BadMessageError as exc:
            sender.send(dumps(error_message(exc.code, exc.message)))
            return True
        if isinstance(parsed, Act):
            await room.on_act(sender, parsed)
        elif sender.seat is None or room.presence.chat_allowed(sender.seat, time.monotonic()):
            await room.on_chat(sender, parsed)
        else:
            sender.send(dumps(error_message("rate_limited", "at most 5 chat lines in 10 s "
                                            "a seat")))
        return True


def _client(url: str, connections: int) -> Redis:
    """A Redis client of at most ``connections`` connections; a command that finds none
    free waits for one (up to ``REQUEST_TIMEOUT``), then fails as Redis away would."""
    pool = BlockingConnectionPool.from_url(url, max_connections=connections,
                                           timeout=REQUEST_TIMEOUT, socket_timeout=5,
                                           socket_connect_timeout=5)
    return Redis.from_pool(pool)  # the client owns its pool: closed with it
