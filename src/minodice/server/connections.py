"""HTTP connections that cannot hold the server: a request timeout and a connection cap.

uvicorn closes a keep-alive connection idle for ``timeout_keep_alive`` seconds, but only
after a first response, and any byte received cancels that timer: a client that opens a
connection and sends nothing, or sends its request a byte at a time, holds a file
descriptor for ever (1,050 of them at ``ulimit -n 1024`` and no new client was served).
uvicorn has no header timeout of its own, so :func:`guarded_protocol` makes a small
subclass of its httptools HTTP protocol (the one ``uvicorn[standard]`` runs) that adds
two rules:

- **Request timeout**: a request must arrive whole — headers and body — within
  ``request_timeout`` seconds of the connection opening (or of the previous response on a
  kept-alive connection), or the connection is closed. A WebSocket's upgrade request ends
  it (the WebSocket has its own pings and limits).
- **Connection cap**: at most ``max_connections`` connections at once (WebSockets
  included) and at most ``per_address`` of them still sending a request from one
  address. A new connection beyond the cap closes the oldest one still sending its
  request (a slow or half-open one: the clients that are served keep their connections);
  if there is none, the new one is closed at once.

Timers are per connection (``loop.call_later``), so a thousand idle sockets cost a
thousand timer entries, not a sweep over them.
"""

from __future__ import annotations

import asyncio
import resource
from collections import Counter
from typing import Any

RESERVED_DESCRIPTORS = 64  # files the server itself needs (database, workers' pipes, logs)


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit (as far as the
    system lets it), and return the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(wanted: int, descriptors: int) -> int:
    """``wanted`` connections at most, fewer if the descriptors would run out first."""
    return max(16, min(wanted, descriptors - RESERVED_DESCRIPTORS))


def guarded_protocol(request_timeout: float, max_connections: int,
                     per_address: int) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with the module docstring's two rules (pass it as
    ``uvicorn.run(http=...)``). Its state is shared by the connections of one server."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    # Connections still sending their request, oldest first (a dict keeps insertion order).
    pending: dict[Any, None] = {}
    pending_from: Counter[str] = Counter()

    class GuardedProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _address = "?"

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._address = str(self.client[0]) if self.client else "?"
            if pending_from[self._address] >= per_address:
                transport.close()  # one address's slow requests: its newest one goes
                return
            if len(self.connections) > max_connections:
                if not pending:
                    transport.close()
                    return
                oldest = next(iter(pending))
                oldest.transport.close()
                oldest._ready()
            self._waiting()

        def _waiting(self) -> None:
            """The connection waits for a request: the clock starts."""
            if self._deadline is None and not self.transport.is_closing():
                pending[self] = None
                pending_from[self._address] += 1
                self._deadline = self.loop.call_later(request_timeout, self._too_slow)

        def _ready(self) -> None:
            """The request arrived (or the connection is gone): the clock stops."""
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
                pending.pop(self, None)
                pending_from[self._address] -= 1
                if pending_from[self._address] <= 0:
                    del pending_from[self._address]

        def _too_slow(self) -> None:
            self._deadline = None
            pending.pop(self, None)
            pending_from[self._address] -= 1
            if pending_from[self._address] <= 0:
                del pending_from[self._address]
            if not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.cycle is None or self.cycle.response_complete:
                self._waiting()  # a new request begins: its own clock
            super().data_received(data)

        def on_headers_complete(self) -> None:
            if self.parser.should_upgrade():
                self._ready()  # a WebSocket: its own rules from here on
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._ready()
            super().on_message_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._ready()
            super().connection_lost(exc)

    return GuardedProtocol
