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

- **Head size**: a request's line and headers are at most ``max_head`` bytes
  (``431``, and the connection closed), whether they come in one read or many: httptools
  keeps an unfinished header in memory, and one client sending a header (or a URL)
  without end held 100 MB and seconds of CPU.

Timers are per connection (``loop.call_later``), so a thousand idle sockets cost a
thousand timer entries, not a sweep over them.

:func:`guarded_websocket_protocol` does the same for uvicorn's WebSocket protocol, whose
control frames never reach the application (and so none of its limits): a client's pings
are limited (each costs a pong written back; one that never read them grew the server by
21 MB a second and stalled every table), and a connection the server closed is given one
second, not ten, to answer before it is dropped (a flooding client's frames are read and
thrown away until then).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import resource
import time
from collections import Counter
from collections.abc import Mapping
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


#: Bytes of a request's line and headers (h11's default; nginx allows 32 KB by default):
#: the page's requests and its WebSocket upgrade need 1 to 2 KB.
MAX_HEAD = 16 * 1024
#: Pings a WebSocket client may send: a burst, then one a second (browsers send none; a
#: client library pings every 20 s or so).
PING_BURST = 10
PINGS_PER_SECOND = 1.0
#: Seconds a client has to answer the server's close before its connection is dropped.
CLOSE_TIMEOUT = 1.0


def client_address(scope: Mapping[str, Any]) -> str:
    """The client's address as uvicorn gives it (a trusted proxy's ``X-Forwarded-For``
    already applied, nothing else trusted), as every per-address limit counts it: an IPv6
    address by its /64 network (one home or phone holds a whole /64, so counting its
    addresses one by one would give it 2^64 limits), an IPv4 one mapped into IPv6 as IPv4.

    >>> [client_address({"client": (a, 1)}) for a in ("10.0.0.7", "2001:db8:1:2::17",
    ...  "2001:db8:1:2:ffff::1", "::ffff:10.0.0.7", "testclient")]
    ['10.0.0.7', '2001:db8:1:2::/64', '2001:db8:1:2::/64', '10.0.0.7', 'testclient']
    """
    client = scope.get("client") or ("?", 0)
    return address_key(str(client[0]))


def address_key(host: str) -> str:
    """:func:`client_address` of a peer's host as the socket gives it."""
    if ":" not in host:
        return host
    try:
        address = ipaddress.IPv6Address(host.split("%")[0])
    except ValueError:
        return host
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network(f"{address}/64", strict=False))


def _head_too_large() -> bytes:
    body = json.dumps({"error": {"code": "too_large", "message": f"a request's line and "
                                 f"headers are at most {MAX_HEAD} bytes"}}).encode()
    return (b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
            b"content-type: application/json\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


class _HeadTooLargeError(Exception):
    """Raised from a parser callback to stop reading a head past its limit: httptools
    turns it into a parser error, which uvicorn answers with :meth:`send_400_response`
    (here a ``431``)."""


def guarded_protocol(request_timeout: float, max_connections: int,
                     per_address: int, max_head: int = MAX_HEAD) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with the module docstring's two rules (pass it as
    ``uvicorn.run(http=...)``). Its state is shared by the connections of one server."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    # Connections still sending their request, oldest first (a dict keeps insertion order).
    pending: dict[Any, None] = {}
    pending_from: Counter[str] = Counter()

    class GuardedProtocol(HttpToolsProtocol):
        _deadline: asyncio.TimerHandle | None = None
        _address = "?"
        _head = 0  # bytes received of the request's line and headers so far
        _in_head = False
        _parsed = 0  # bytes of this request's URL and headers the parser has given
        _oversize = False

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._address = address_key(str(self.client[0])) if self.client else "?"
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
            # Where the parser is says what the bytes are: a head from a request's first
            # byte (on_message_begin) to its headers' end, whatever the responses are
            # doing (a pipelined request's head is a head too; the rest of a body answered
            # early is not). A read that holds a whole head and a body is no head too large.
            self._head += len(data)
            at_start = not self._in_head
            super().data_received(data)
            if (self._in_head and not at_start and self._head > max_head
                    and not self.transport.is_closing()):
                self.transport.write(_head_too_large())
                self.transport.close()
            elif not self._in_head:
                self._head = 0

        def on_message_begin(self) -> None:
            self._in_head, self._head, self._parsed = True, 0, 0
            super().on_message_begin()

        # A head that arrives whole in one read is parsed within it, before the count of
        # bytes received could see it end: the parser's own pieces are counted too.
        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)  # ": " and the line's end
            super().on_header(name, value)

        def _count(self, size: int) -> None:
            self._parsed += size
            if self._parsed > max_head:
                self._oversize = True
                raise _HeadTooLargeError

        def send_400_response(self, msg: str) -> None:
            if not self._oversize:
                super().send_400_response(msg)
            elif not self.transport.is_closing():
                self.transport.write(_head_too_large())
                self.transport.close()

        def on_headers_complete(self) -> None:
            self._in_head = False
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


def guarded_websocket_protocol(ping_burst: int = PING_BURST,
                               pings_per_second: float = PINGS_PER_SECOND,
                               close_timeout: float = CLOSE_TIMEOUT) -> type[asyncio.Protocol]:
    """uvicorn's WebSocket protocol (the one it picks with ``websockets`` installed) with
    the module docstring's limits on control frames (pass it as ``uvicorn.run(ws=...)``).

    A client over its pings is dropped at once (not sent a close: a client that does not
    read would not read that either)."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.close_timeout = close_timeout
            self._pings = float(ping_burst)
            self._pinged = time.monotonic()

        def handle_ping(self) -> None:
            now = time.monotonic()
            self._pings = min(float(ping_burst),
                              self._pings + (now - self._pinged) * pings_per_second)
            self._pinged = now
            if self._pings < 1.0:
                if not self.transport.is_closing():
                    self.transport.abort()
                return
            self._pings -= 1.0
            super().handle_ping()

    return GuardedWebSocketProtocol
