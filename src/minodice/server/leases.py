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
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

# Take: only if nobody holds the lease; then the next epoch, in the same atomic step. The
# epoch is at least the store's epoch + 1 (ARGV[3]): a Redis restarted without its data
# forgot the epochs, and an owner below the store's epoch would be refused every write.
_TAKE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local epoch = redis.call('INCR', KEYS[2])
  local floor = tonumber(ARGV[3])
  if epoch <= floor then
    epoch = floor + 1
    redis.call('SET', KEYS[2], epoch)
  end
  return epoch
end
return 0
"""
# Renew or give up: only the owner may (compare and act in one step).
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
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

    @classmethod
    def from_url(cls, url: str, ttl_ms: int = 10_000) -> Leases:
        return cls(Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5), ttl_ms)

    def _keys(self, table_id: str) -> list[str]:
        return [f"{self.prefix}lease:{table_id}", f"{self.prefix}epoch:{table_id}"]

    async def take(self, table_id: str, floor: int = 0) -> Lease | None:
        """The table's lease with its new epoch (above ``floor``: the epoch the store
        holds), or ``None`` if a live owner holds it."""
        epoch = int(await self._take(keys=self._keys(table_id),
                                     args=[self.owner, self.ttl_ms, floor]))
        return Lease(table_id, epoch) if epoch else None

    async def renew(self, lease: Lease) -> None:
        """Extend the lease by ``ttl_ms``; :class:`LeaseLostError` if it is not ours now."""
        if not int(await self._renew(keys=self._keys(lease.table_id)[:1],
                                     args=[self.owner, self.ttl_ms])):
            raise LeaseLostError(f"table {lease.table_id}: the lease of epoch {lease.epoch} "
                                 "is no longer this process's")

    async def release(self, lease: Lease) -> bool:
        """Give the table up (a graceful stop); whether it was still ours."""
        return bool(int(await self._release(keys=self._keys(lease.table_id)[:1],
                                            args=[self.owner])))

    async def owner_of(self, table_id: str) -> str | None:
        """The id of the process holding the table's lease now, if any."""
        value = await self.client.get(self._keys(table_id)[0])
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    async def ping(self) -> bool:
        """Whether Redis answers (for ``/readyz``)."""
        return bool(await self.client.ping())

    async def close(self) -> None:
        await self.client.aclose()
