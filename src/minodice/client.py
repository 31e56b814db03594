"""A small client for the table protocol: take a seat on any server and play it.

This is how outside bots enter online play (``minodice join URL --bot hard``), and the
client the tests drive. It speaks only PROTOCOL.md: HTTP for the table and the seat, then
one WebSocket on which it answers every view that asks it for a decision.

    import asyncio, random
    from minodice.client import join, play

    async def main() -> None:
        seat = await join("http://127.0.0.1:8000/t/abcdefgh23", "Ana")
        final = await play(seat, lambda view: random.choice(view["legal"]))
        print(final["totals"])

    asyncio.run(main())

A decision function gets the protocol's view (a dict) and returns one of ``view["legal"]``.
:func:`bot_decider` turns any engine bot (``act(view, legal, rng)``) into one, asked
through the same :class:`~minodice.play.runners.InProcessRunner` and guard as every other
bot (off the event loop, so a slow bot does not stall the connection; a bot that raises,
answers an illegal action or overruns its time limit is one
:class:`~minodice.bots.protocol.BotError` naming it, and the caller chooses what follows).
The game itself is driven by the server's driver; this side only answers its seat's turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
import websockets
from pydantic import BaseModel

from minodice.bots.protocol import Bot, BotError
from minodice.core.names import has_surrogates
from minodice.play.driver import STOP, OnBotError
from minodice.play.runners import DecisionRequest, InProcessRunner
from minodice.wire.http import ErrorAnswer, SeatTaken, TableCreated
from minodice.wire.messages import ErrorMessage, ViewMessage
from minodice.wire.reading import read_server_message, seat_view_from_message

AnswerT = TypeVar("AnswerT", bound=BaseModel)
Decide = Callable[[dict[str, Any]], "str | Awaitable[str]"]


class ClientError(Exception):
    """The server refused something, or answered what this client does not understand."""


# A request refused with 503 and a Retry-After (nothing changed: the table was changing
# hands between server processes, the store was away for a moment) is sent again, at most
# RETRIES more times, each after the longer of its Retry-After and a backoff doubling from
# BACKOFF seconds (up to MAX_WAIT, with a little jitter so that many clients spread out).
RETRIES = 4
BACKOFF = 0.5
MAX_WAIT = 8.0


def retry_after(response: httpx.Response) -> float | None:
    """Seconds after which the server asks for ``response``'s request again (a 503 with
    ``Retry-After`` in seconds), or ``None``: not to be sent again as it is."""
    if response.status_code != 503:
        return None
    value = response.headers.get("retry-after", "")
    try:
        seconds = float(value)
    except ValueError:
        return None
    return max(0.0, seconds) if seconds == seconds else None  # (NaN: not a number)


async def post_retrying(http: httpx.AsyncClient, path: str, body: dict[str, Any],
                        retries: int | None = None, rng: random.Random | None = None
                        ) -> tuple[httpx.Response, int]:
    """POST ``body`` to ``path``; a refusal that asks to be retried is sent again, at
    most ``retries`` (:data:`RETRIES`) more times. The last answer and how many times it
    was sent."""
    retries = RETRIES if retries is None else retries
    rng = rng or random.Random()
    for attempt in range(retries + 1):
        try:
            response = await http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise ClientError(f"cannot reach {http.base_url}: {exc}") from None
        wait = retry_after(response)
        if wait is None or attempt == retries:
            return response, attempt + 1
        await asyncio.sleep(min(MAX_WAIT, max(wait, BACKOFF * 2 ** attempt))
                            * rng.uniform(1.0, 1.25))
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns


@dataclass(frozen=True)
class SeatTicket:
    """A taken seat: where the server is, which table, which seat, and its secret token."""

    base: str
    table: str
    seat: int
    token: str
    name: str
    seed: str | None = None  # a seed committed by hash, to reveal when every seat is taken

    @property
    def ws_url(self) -> str:
        scheme = "wss" if self.base.startswith("https") else "ws"
        return f"{scheme}://{urlsplit(self.base).netloc}/ws/{self.table}?token={self.token}"


def split_table_url(url: str) -> tuple[str, str]:
    """``http://host:port/t/ID`` → (``http://host:port``, ``ID``)."""
    refused = ClientError(f"{url!r} is not a table link (http://HOST:PORT/t/TABLE)")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - read for its check: a port past 65535 raises here
    except ValueError:  # "http://[::1/t/a", "http://host:99999/t/a"
        raise refused from None
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme not in ("http", "https") or not parts.hostname or len(segments) != 2 \
            or segments[0] != "t" or has_surrogates(url):  # bytes no URL can carry
        raise refused
    return f"{parts.scheme}://{parts.netloc}", segments[1]


def _refusal(response: httpx.Response, tries: int = 1) -> ClientError:
    after = f" (sent {tries} times)" if tries > 1 else ""
    try:
        error = ErrorAnswer.model_validate_json(response.content).error
    except ValueError:
        return ClientError(f"the server answered {response.status_code}{after}")
    return ClientError(f"{error.message} ({error.code}){after}")


def _answer(model: type[AnswerT], response: httpx.Response) -> AnswerT:
    """An answer read with its model (PROTOCOL.md): a server that answers something else is
    a :class:`ClientError`, not a ``KeyError`` deep in a caller."""
    try:
        return model.model_validate_json(response.content)
    except ValueError as exc:
        raise ClientError(f"the server's answer is not the protocol's: {exc}"[:300]) from None


async def create_table(base: str, **settings: Any) -> dict[str, Any]:
    """``POST /api/tables``: ``players``, ``edition``, ``variant``, ``bots``, ..."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        response, tries = await post_retrying(http, "/api/tables", settings)
    if response.status_code != 201:
        raise _refusal(response, tries)
    created = _answer(TableCreated, response)
    return created.model_dump(mode="json")


async def join(url: str, name: str, client_seed: str | None = None,
               commit: bool = False) -> SeatTicket:
    """Take a free seat at the table ``url`` links to (with a fresh random client seed).

    ``commit``: send only the seed's hash (``minodice-fair-2``); :func:`play` reveals the
    seed when the server asks for it, so nobody can choose a seed against this one. Without
    it the seed is sent plain at once (the older way; the table then need not wait for it).
    """
    base, table = split_table_url(url)
    seed = client_seed if client_seed is not None else secrets.token_hex(16)
    body = ({"name": name, "client_seed_hash": hashlib.sha256(seed.encode()).hexdigest()}
            if commit else {"name": name, "client_seed": seed})
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        response, tries = await post_retrying(http, f"/api/tables/{table}/seats", body)
    if response.status_code != 201:
        raise _refusal(response, tries)
    taken = _answer(SeatTaken, response)
    return SeatTicket(base, table, taken.seat, taken.token, taken.name,
                      seed if commit else None)


async def reveal(ticket: SeatTicket) -> None:
    """Tell the server the seed this seat committed to (once every seat is taken)."""
    async with httpx.AsyncClient(base_url=ticket.base, timeout=30) as http:
        response, tries = await post_retrying(
            http, f"/api/tables/{ticket.table}/reveal",
            {"token": ticket.token, "client_seed": ticket.seed})
    if response.status_code != 200:
        raise _refusal(response, tries)


def bot_decider(bot: Bot, rng: random.Random | None = None, time_limit: float | None = None,
                on_bot_error: OnBotError = STOP,
                name: str | None = None) -> Callable[[dict[str, Any]], Awaitable[str]]:
    """A decision function that asks an engine bot, through the view it describes.

    A failing bot raises :class:`ClientError` with the bot's error (``STOP``: the seat is
    left, and the server's clock or stand-in plays on), or plays a random legal action
    (``RANDOM``).
    """
    generator = rng or random.Random(secrets.randbits(64))
    label = name or str(getattr(bot, "name", None) or type(bot).__name__)
    runners: dict[int, InProcessRunner] = {}

    async def decide(view: dict[str, Any]) -> str:
        seat_view = seat_view_from_message(view)
        seat = seat_view.seat if seat_view.seat is not None else 0
        runner = runners.setdefault(seat, InProcessRunner({(seat, label): bot}))
        request = DecisionRequest(seat, label, seat_view, generator, time_limit)
        try:
            return str((await runner.decide_async(request)).action)
        except BotError as exc:
            if on_bot_error is STOP:
                raise ClientError(str(exc)) from None
            return str(random.SystemRandom().choice(list(seat_view.legal_actions)))

    return decide


async def play(
    ticket: SeatTicket,
    decide: Decide,
    on_message: Callable[[dict[str, Any]], None] | None = None,
    reconnect: bool = True,
    on_connection: Callable[[bool], None] | None = None,
) -> dict[str, Any]:
    """Play the seat until the game is over; returns the last view.

    Answers each view that names a ``turn`` for this seat once; reconnects after a dropped
    connection (a reconnecting client gets the whole view again) unless told not to.
    ``on_connection`` hears ``False`` once as a connection is lost (the client then tries
    again and again, a server being restarted) and ``True`` once it is back: a person
    watching must not take the silence in between for a game still going.
    """
    answered: str | None = None
    revealed = False
    sent: str | None = None  # the last act sent, to send again if it was refused for rate
    best: dict[str, Any] = {}
    best_seq = -1
    delay = 0.2
    lost = False
    while True:
        try:
            async with websockets.connect(ticket.ws_url, max_size=2**22) as ws:
                # The first view of a connection is whole and current, even if the server
                # did not see a change (same seq) since the last connection dropped.
                fresh = True
                delay = 0.2
                if lost and on_connection is not None:
                    on_connection(True)
                lost = False
                async for raw in ws:
                    try:
                        read = read_server_message(raw)
                    except ValueError as exc:
                        raise ClientError(str(exc)) from None
                    message = read.model_dump(mode="json", exclude_unset=True)
                    if on_message is not None:
                        on_message(message)
                    if isinstance(read, ErrorMessage) and read.code == "forbidden":
                        raise ClientError(read.message)
                    if isinstance(read, ErrorMessage) and read.code == "rate_limited" \
                            and sent is not None:
                        # Refused unread (more than 20 messages a second, say against fast
                        # bots): nothing changed, so no new view will come; send it again.
                        await asyncio.sleep(1.0)
                        await ws.send(sent)
                        continue
                    if not isinstance(read, ViewMessage) or (read.seq <= best_seq
                                                             and not fresh):
                        continue
                    fresh = False
                    best_seq, best = read.seq, message["view"]
                    view = read.view
                    if view.status == "finished":
                        return best
                    pending = view.reveal.pending if view.reveal is not None else []
                    if ticket.seed is not None and ticket.seat in pending and not revealed:
                        revealed = True
                        with contextlib.suppress(ClientError):  # then the server draws one
                            await reveal(ticket)
                    turn = view.turn
                    if turn is None or turn == answered or not view.legal:
                        continue
                    choice = decide(best)
                    action = await choice if not isinstance(choice, str) else choice
                    answered = turn
                    sent = json.dumps({"type": "act", "turn": turn, "action": action})
                    await ws.send(sent)
        except (OSError, websockets.ConnectionClosed, websockets.InvalidHandshake):
            if not reconnect:
                raise ClientError("the connection closed before the game ended") from None
            if not lost and on_connection is not None:
                on_connection(False)
            lost = True
            answered = None  # the answer may not have arrived: answer the view again
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
