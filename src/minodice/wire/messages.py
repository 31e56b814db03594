"""The WebSocket messages of the table protocol (PROTOCOL.md, ``minodice-table`` version 1).

One pydantic model per message and per part of one, so that the server that builds them,
the clients that read them, the benchmarks and the published JSON Schemas
(:mod:`minodice.wire.schema`) share one definition instead of four readings of a text.

Fields a server leaves out in some cases (``pad``, ``winners``, ``fairness``, ``reveal``;
``beaten`` and ``bonus`` of a trick's ``why``) are optional with no value: a server builds
them with :meth:`~pydantic.BaseModel.model_construct` and writes them with
``exclude_unset=True``, so an absent field stays absent on the wire, as the contract says.
Every model allows more fields than it names: "a server may send more fields", and an old
client must read a newer server.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

#: A face as ``RECORD.md`` writes it: a number 1–7, ``"flag"``, or a symbol's name.
Face = Annotated[int | str, Field(description='a face as in RECORD.md: 1–7, "flag" or a '
                                   "symbol's name")]
#: A point in time: milliseconds since the Unix epoch.
Time = Annotated[int, Field(description="milliseconds since the Unix epoch")]

#: Every code an ``error`` may carry (HTTP answers use the same codes).
ErrorCode = Literal["bad_request", "not_found", "forbidden", "conflict", "too_large",
                    "rate_limited", "illegal", "not_your_turn", "stale", "bad_message",
                    "unavailable", "damaged", "busy", "moved"]
#: Why a trick was won (the names of :class:`minodice.core.rules.Reason`).
Reason = Literal["all-three", "beats", "only-symbol", "same-symbol", "highest", "tie",
                 "only-flags"]
Status = Literal["waiting", "playing", "finished"]
Phase = Literal["waiting", "bid", "play", "finished"]


class WireModel(BaseModel):
    """A part of a message: more fields than named are kept (a newer server's)."""

    model_config = ConfigDict(extra="allow")


class Player(WireModel):
    """``PLAYER``: who sits in a seat (seat order), as every connection sees it."""

    name: str | None = Field(description="null for a free seat")
    bot: str | None = Field(description="the bot playing this seat, null for a person")
    connected: bool
    autoplay: str | None = Field(None, description="the bot playing for this person while "
                                 "they are away longer than the grace period, else null")


class Roll(WireModel):
    """One die rolled in a trick."""

    seat: int
    die: str = Field(description="the die's kind")
    face: Face


class Why(WireModel):
    """Why a finished trick was won, in words a page can translate."""

    reason: Reason
    face: Face = Field(description="the winning face")
    beaten: str | None = Field(None, description="the symbol the winning symbol beat")
    bonus: int | None = Field(None, description="the R14 bonus the winner earns if their "
                              "bid is right")


class Trick(WireModel):
    """A finished trick."""

    rolls: list[Roll]
    winner: int
    why: Why


class PastRound(WireModel):
    """A finished round, the same for every seat."""

    round: int
    starter: int
    hands: list[list[str]] = Field(description="every seat's dice of the round, revealed")
    bids: list[int]
    tricks_won: list[int]
    points: list[int]
    bonus: list[int]
    totals: list[int]
    tricks: list[Trick] = Field(default_factory=list)


class Reveal(WireModel):
    """fair-2, while the seeds committed by hash are being revealed."""

    pending: list[int] = Field(description="the seats still to reveal")
    deadline: Time
    seed_hashes: list[str] = Field(description="every seat's commitment, in seat order")


class FairnessKey(WireModel):
    """The record's ``fairness`` key, revealed once the game is over (RECORD.md)."""

    scheme: str = Field(description='"minodice-fair-2" (or "minodice-fair-1")')
    commit: str
    server_seed: str
    client_seeds: list[str]
    client_seed_hashes: list[str] | None = None
    replaced: list[int] | None = None
    table: str | None = None


class RuleOptionsWire(WireModel):
    """RULES.md's open points as a table plays them (docs/RECORD.md, ``rule_options``)."""

    start: Literal["rotate", "fixed"] = Field(
        "rotate", description="R5: rotate (the next player clockwise starts each later "
        "round) or fixed (round 1's start player starts every round)")
    special_lead: Literal["first-number", "no-colour"] = Field(
        "first-number", description="R9: in a trick a special die leads, the first number "
        "die sets the colour (first-number) or there is none to follow (no-colour)")


class View(WireModel):
    """What one seat (or a spectator) may know now — never more."""

    table: str
    status: Status
    edition: str
    variant: str
    players: list[Player]
    you: int | None = Field(description="this connection's seat, null for a spectator")
    round: int = Field(description="the round being played, 1-based; 0 before the first deal")
    rounds: int
    starter: int | None = Field(description="the seat that started this round")
    phase: Phase
    hand: list[str] = Field(description="this seat's dice not yet rolled ([] for a spectator)")
    hand_sizes: list[int]
    has_bid: list[bool]
    bids: list[int | None] = Field(description="null for every other seat's bid until all "
                                   "bids of the round are in")
    tricks_won: list[int]
    trick: list[Roll] = Field(description="the trick in progress")
    follow: str | None = Field(description="the colour to follow in this trick, or null")
    leading: int | None = Field(description="the seat whose roll wins the trick in progress "
                                "so far (null before its first roll)")
    tricks: list[Trick] = Field(description="this round's finished tricks")
    legal: list[str] = Field(description='the actions this seat may take now: "bid N", '
                             '"roll KIND"')
    totals: list[int]
    to_act: list[int] = Field(description="the seats whose decision the game waits for")
    turn: str | None = Field(description="the decision this seat is asked for now")
    deadline: Time | None
    commit: str = Field(description="the fairness commitment, sha256(server_seed) in hex")
    turn_seconds: int | None
    advisor: bool = True
    public: bool = False
    rule_options: RuleOptionsWire | None = Field(
        None, description="only where the table plays RULES.md's open points otherwise "
        "than by default")
    rematch: str | None = Field(None, description="the rematch's table once asked for")
    winners: list[int] | None = Field(None, description="finished: the seats on the highest "
                                      "total")
    fairness: FairnessKey | None = Field(None, description="finished: the revealed key")
    reveal: Reveal | None = None
    pad: str | None = Field(None, description="a seat's view: spaces, so that the view's size "
                            "says nothing about the dice it holds")
    history: list[PastRound] = Field(description="the finished rounds (last in the message)")


class ViewMessage(WireModel):
    """``view``: the connection's whole current view; keep the highest ``seq``."""

    type: Literal["view"]
    seq: int = Field(description="grows with every change of the table, across restarts")
    view: View


class ErrorMessage(WireModel):
    """``error``: the message the client sent was refused, and nothing changed."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    rule: str | None = Field(None, description='the rule an "illegal" action breaks ("R9")')


class ChatMessage(WireModel):
    """``chat``: a line someone at the table typed, relayed exactly (show it as text)."""

    type: Literal["chat"]
    seat: int | None
    name: str
    text: str
    at: Time


#: Every message a server sends on the table's WebSocket.
ServerMessage = Annotated[ViewMessage | ErrorMessage | ChatMessage,
                          Field(discriminator="type")]


class ActMessage(WireModel):
    """``act``: the answer to the view's ``turn``."""

    type: Literal["act"]
    turn: str = Field(description="the view's turn this action answers")
    action: str = Field(description='"bid N" or "roll KIND", as in the view\'s legal')


class ChatSend(WireModel):
    """``chat`` from a seat (spectators cannot chat)."""

    type: Literal["chat"]
    text: str = Field(min_length=1, max_length=200)


#: Every message a client may send.
ClientMessage = Annotated[ActMessage | ChatSend, Field(discriminator="type")]
