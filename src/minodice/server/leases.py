"""Table leases in Redis: at most one owner process a table at a time, each owner with a
larger epoch than the one before (issue #17; the server's use of them: :mod:`.cluster`).

A lease is a key ``minodice:lease:TABLE`` holding its owner's id, set with ``SET NX PX``
(only if nobody holds it, with an expiry), and renewed by its owner well before it
expires; a dead owner's lease simply expires and another process takes the table. Taking
a lease increments the table's epoch (``minodice:epoch:TABLE``) in the same atomic script,
so every owner of a table has a strictly larger epoch than every owner before it.

A lease alone cannot stop a paused owner (a long garbage collection, ``SIGSTOP``) from
writing after its lease expired and another took over: the store's fence does
(:mod:`minodice.server.store`): every write of a table's log carries its owner's epoch,
and the store refuses one older than the table's. A renewal that fails tells the owner it
lost the table (:class:`LeaseLostError`).

**The expiry index** (``minodice:expiries``, a sorted set): each lease's table scored by
the moment its lease expires, written by the same scripts that take and renew it, on
Redis's own clock (``TIME``: the processes' clocks may differ, Redis's is one). A table
released for another owner is scored 0, expired at once; a table that needs no owner any
more (finished) leaves the index. So the tables without an owner are the index's members
scored up to now (:meth:`Leases.due`): one ``ZRANGEBYSCORE`` whose cost is the tables that
changed, where reading every lease would cost every table.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

# Redis's clock in milliseconds (a script may read it: Redis 5+ replicates a script's
# effects, not the script).
_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""
# Take: only if nobody holds the lease; then the next epoch, in the same atomic step. The
# epoch is at least the store's epoch + 1 (ARGV[3]): a Redis restarted without its data
# forgot the epochs, and an owner below the store's epoch would be refused every write.
# KEYS: lease, epoch, index; ARGV: owner, ttl, floor, table.
_TAKE = _NOW + """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local epoch = redis.call('INCR', KEYS[2])
  local floor = tonumber(ARGV[3])
  if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], epoch)
  end
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[2]), ARGV[4])
  return epoch
end
return 0
"""
# Renew: only the owner may (compare and act in one step); the index moves with it.
# KEYS: lease, index; ARGV: owner, ttl, table.
_RENEW = _NOW + """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[3])
  return 1
end
return 0
"""
# Give up: only the owner may. ARGV[3] '1': another process is to take the table at once
# (scored expired); '0': it needs no owner (finished), it leaves the index.
# KEYS: lease, index; ARGV: owner, table, hand over.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  if ARGV[3] == '1' then
    redis.call('ZADD', KEYS[2], 0, ARGV[2])
  else
    redis.call('ZREM', KEYS[2], ARGV[2])
  end
  return 1
end
return 0
"""
# The index's tables whose lease expired (scored up to now), at most ARGV[1]; and the
# index's generation (ARGV[2] if there was none): a token written by the first process
# to ask, so that every process sees when Redis lost its data (a new token), and with it
# the index. KEYS: index, generation.
_DUE = _NOW + """
redis.call('SET', KEYS[2], ARGV[2], 'NX')
local generation = redis.call('GET', KEYS[2])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
return {generation, due}
"""
# A table the index should (not) list, while nobody holds its lease. ARGV[2] '1': listed
# as expired, unless the index has it already (an owner's score stays); '0': taken out
# (it needs no owner). KEYS: lease, index; ARGV: table, list it.
_MARK = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
if ARGV[2] == '1' then
  return redis.call('ZADD', KEYS[2], 'NX', 0, ARGV[1])
end
return redis.call('ZREM', KEYS[2], ARGV[1])
"""


class LeaseLostError(Exception):
    """This process no longer owns the table (its lease expired and was taken, or was
    released): it must stop writing it and let go of its connections."""


@dataclass(frozen=True)
class Lease:
    """A table owned by this process, and the epoch its writes carry."""

    table_id: str
    epoch: int


class Leases:
    """This process's leases in one Redis (``owner``: this process's id, unique)."""

    def __init__(self, client: Redis, ttl_ms: int = 10_000, owner: str | None = None,
                 prefix: str = "minodice:") -> None:
        self.client = client
        self.ttl_ms = ttl_ms
        self.owner = owner or uuid.uuid4().hex
        self.prefix = prefix
        self._take: Any = client.register_script(_TAKE)
        self._renew: Any = client.register_script(_RENEW)
        self._release: Any = client.register_script(_RELEASE)
        self._due: Any = client.register_script(_DUE)
        self._mark: Any = client.register_script(_MARK)

    @classmethod
    def from_url(cls, url: str, ttl_ms: int = 10_000) -> Leases:
        return cls(Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5), ttl_ms)

    @property
    def index(self) -> str:
        """The expiry index's key."""
        return f"{self.prefix}expiries"

    def key(self, table_id: str) -> str:
        """The key of ``table_id``'s lease (its value: the owner's id)."""
        return f"{self.prefix}lease:{table_id}"

    def _keys(self, table_id: str) -> list[str]:
        return [self.key(table_id), f"{self.prefix}epoch:{table_id}"]

    async def take(self, table_id: str, floor: int = 0) -> Lease | None:
        """The table's lease with its new epoch (above ``floor``: the epoch the store
        holds), or ``None`` if a live owner holds it."""
        epoch = int(await self._take(keys=[*self._keys(table_id), self.index],
                                     args=[self.owner, self.ttl_ms, floor, table_id]))
        return Lease(table_id, epoch) if epoch else None

    async def renew(self, lease: Lease) -> None:
        """Extend the lease by ``ttl_ms``; :class:`LeaseLostError` if it is not ours now."""
        if not int(await self._renew(keys=[self.key(lease.table_id), self.index],
                                     args=[self.owner, self.ttl_ms, lease.table_id])):
            raise LeaseLostError(f"table {lease.table_id}: the lease of epoch {lease.epoch} "
                                 "is no longer this process's")

    async def renew_all(self, leases: Sequence[Lease]) -> list[BaseException | None]:
        """:meth:`renew` for many leases in one round trip (a pipeline): for each, ``None``
        (renewed), a :class:`LeaseLostError`, or the error that kept Redis from
        answering for it."""
        if not leases:
            return []
        async with self.client.pipeline(transaction=False) as pipe:
            for lease in leases:
                await self._renew(keys=[self.key(lease.table_id), self.index],
                                  args=[self.owner, self.ttl_ms, lease.table_id], client=pipe)
            answers = await pipe.execute(raise_on_error=False)
        out: list[BaseException | None] = []
        for lease, answer in zip(leases, answers, strict=True):
            if isinstance(answer, BaseException):
                out.append(answer)
            elif int(answer):
                out.append(None)
            else:
                out.append(LeaseLostError(f"table {lease.table_id}: the lease of epoch "
                                          f"{lease.epoch} is no longer this process's"))
        return out

    async def release(self, lease: Lease, hand_over: bool = True) -> bool:
        """Give the table up; whether it was still ours. ``hand_over``: another process
        is to take it at once (a graceful stop); else it needs no owner (finished)."""
        return bool(int(await self._release(
            keys=[self.key(lease.table_id), self.index],
            args=[self.owner, lease.table_id, "1" if hand_over else "0"])))

    async def due(self, limit: int, generation: str) -> tuple[str, list[str]]:
        """The index's generation (``generation`` if it had none) and up to ``limit``
        tables of the index whose lease expired or was handed over: those that may have
        no owner now."""
        answer = await self._due(keys=[self.index, f"{self.prefix}generation"],
                                 args=[limit, generation])
        current, tables = answer
        return _text(current), [_text(t) for t in tables]

    async def orphaned(self, table_id: str) -> bool:
        """Put ``table_id`` in the index as expired if nobody holds its lease and the index
        does not list it (Redis lost its data, or a lease was lost without a release):
        the next sweep of any process takes it. Whether it was added."""
        return bool(int(await self._mark(keys=[self.key(table_id), self.index],
                                         args=[table_id, "1"])))

    async def unlist(self, table_id: str) -> bool:
        """Take ``table_id`` out of the index, unless a lease holds it (it needs no owner:
        finished, or not in the store). Whether it was listed."""
        return bool(int(await self._mark(keys=[self.key(table_id), self.index],
                                         args=[table_id, "0"])))

    async def owner_of(self, table_id: str) -> str | None:
        """The id of the process holding the table's lease now, if any."""
        value = await self.client.get(self.key(table_id))
        return None if value is None else _text(value)

    async def owners(self, table_ids: Sequence[str]) -> list[str | None]:
        """:meth:`owner_of` for many tables (an ``MGET`` of 500 keys at a time)."""
        out: list[str | None] = []
        for start in range(0, len(table_ids), 500):
            keys = [self.key(tid) for tid in table_ids[start:start + 500]]
            out.extend(None if value is None else _text(value)
                       for value in await self.client.mget(keys))
        return out

    async def ping(self) -> bool:
        """Whether Redis answers (for ``/readyz``)."""
        return bool(await self.client.ping())

    async def close(self) -> None:
        await self.client.aclose()


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
