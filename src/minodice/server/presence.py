"""Who is at one table: its connections, how many each seat has, since when a seat's
person is away, and the chat (the lines kept, and each seat's rate).

A :class:`Presence` only counts; what a coming or going changes in the game (the grace
period, the stand-in) is the :class:`~minodice.play.driver.Driver`'s, and writing and
broadcasting it is the :class:`~minodice.server.room.Room`'s.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from minodice.wire.shapes import ChatMessageDict

CHAT_KEPT = 50
CHAT_LINES, CHAT_WINDOW = 5, 10.0  # chat lines a seat may send in a window of seconds


class Sender(Protocol):
    """A connection as the room sees it: somewhere to put outgoing text."""

    seat: int | None

    def send(self, text: str) -> None: ...


class Presence:
    """The connections of one table of ``seats`` seats (nobody is there at ``now``)."""

    def __init__(self, seats: int, now: float) -> None:
        self.conns: list[Sender] = []
        self.online = [0] * seats  # open connections per seat
        self.away_since: list[float | None] = [now] * seats  # None: connected
        self.chat: deque[ChatMessageDict] = deque(maxlen=CHAT_KEPT)
        self._chat_times: dict[int, deque[float]] = {}  # each seat's last lines' times

    def open(self, conn: Sender) -> None:
        """A connection opens (counted for its seat only by :meth:`arrive`)."""
        self.conns.append(conn)

    def arrive(self, seat: int) -> bool:
        """Count a connection of ``seat``; returns whether it is the seat's only one."""
        self.online[seat] += 1
        self.away_since[seat] = None
        return self.online[seat] == 1

    def close(self, conn: Sender, counted: bool, now: float) -> bool:
        """A connection closes (uncounted if ``counted``); returns whether its seat is
        now left without one. A connection not open is not closed twice."""
        if conn not in self.conns:
            return False
        self.conns.remove(conn)
        seat = conn.seat
        if not counted or seat is None:
            return False
        self.online[seat] -= 1
        if self.online[seat]:
            return False
        self.away_since[seat] = now
        return True

    def is_open(self, conn: Sender) -> bool:
        return conn in self.conns

    def connected(self, seat: int) -> bool:
        return self.online[seat] > 0

    def spectators(self) -> int:
        return sum(1 for conn in self.conns if conn.seat is None)

    def chat_allowed(self, seat: int, now: float) -> bool:
        """Whether ``seat`` may send a chat line now (at most CHAT_LINES in CHAT_WINDOW s,
        counted for the seat across all its connections); counts the line if so."""
        times = self._chat_times.setdefault(seat, deque(maxlen=CHAT_LINES))
        if len(times) == CHAT_LINES and now - times[0] < CHAT_WINDOW:
            return False
        times.append(now)
        return True

    def say(self, line: ChatMessageDict, text: str) -> None:
        """Keep a chat line (for who connects later) and send it to every connection."""
        self.chat.append(line)
        for conn in list(self.conns):
            conn.send(text)
