"""The server's messages as the plain dicts it builds: ``TypedDict`` twins of the models.

A server builds a view for every seat at every change of a table; building them through
the pydantic models of :mod:`.messages` (``model_construct`` and pydantic's serialiser)
cost two to four times as much as plain dicts written by ``json.dumps``
(``benchmarks/views.py``). A ``TypedDict`` is a plain dict at run time — nothing is built,
checked or copied — while mypy checks every key the server writes and the type of its
value. So the server builds these, and the models stay the one definition that clients
read with, the JSON Schemas are generated from, and the tests validate real traffic
against.

Twins may drift apart: ``tests/test_wire.py`` proves that each ``TypedDict`` here names
exactly its model's fields, with the same JSON Schema for each (through pydantic, which
reads both), and that the fields a model requires are required here too. A field that a
server leaves out in some cases (``pad``, ``winners``, ``fairness``, ``reveal``; ``beaten``
and ``bonus`` of a ``why``) is ``NotRequired``.
"""

from __future__ import annotations

from typing import Literal, NotRequired

# typing_extensions' TypedDict (typing's from 3.12 on): pydantic reads only it on 3.11.
from typing_extensions import TypedDict

from minodice.wire.messages import ErrorCode, Phase, Reason, Status

Face = int | str


class PlayerDict(TypedDict):
    """:class:`~minodice.wire.messages.Player`."""

    name: str | None
    bot: str | None
    connected: bool
    autoplay: str | None


class RollDict(TypedDict):
    """:class:`~minodice.wire.messages.Roll`."""

    seat: int
    die: str
    face: Face


class WhyDict(TypedDict):
    """:class:`~minodice.wire.messages.Why`."""

    reason: Reason
    face: Face
    beaten: NotRequired[str | None]
    bonus: NotRequired[int | None]


class TrickDict(TypedDict):
    """:class:`~minodice.wire.messages.Trick`."""

    rolls: list[RollDict]
    winner: int
    why: WhyDict


class PastRoundDict(TypedDict):
    """:class:`~minodice.wire.messages.PastRound`."""

    round: int
    starter: int
    hands: list[list[str]]
    bids: list[int]
    tricks_won: list[int]
    points: list[int]
    bonus: list[int]
    totals: list[int]
    tricks: list[TrickDict]


class RevealDict(TypedDict):
    """:class:`~minodice.wire.messages.Reveal`."""

    pending: list[int]
    deadline: int
    seed_hashes: list[str]


class FairnessKeyDict(TypedDict):
    """:class:`~minodice.wire.messages.FairnessKey` (``Fairness.to_json`` writes it)."""

    scheme: str
    commit: str
    server_seed: str
    client_seeds: list[str]
    client_seed_hashes: NotRequired[list[str] | None]
    replaced: NotRequired[list[int] | None]
    table: NotRequired[str | None]


class RuleOptionsDict(TypedDict):
    """:class:`~minodice.wire.messages.RuleOptionsWire`."""

    start: Literal["rotate", "fixed"]
    special_lead: Literal["first-number", "no-colour"]


class ViewExtras(TypedDict, total=False):
    """The fields of a view that are the table's, not the game's: every view has the first
    three; ``fairness`` once the game is over, ``reveal`` while seeds are revealed."""

    advisor: bool
    public: bool
    rematch: str | None
    rule_options: RuleOptionsDict | None
    fairness: FairnessKeyDict | None
    reveal: RevealDict | None


class ViewDict(ViewExtras):
    """:class:`~minodice.wire.messages.View`."""

    table: str
    status: Status
    edition: str
    variant: str
    players: list[PlayerDict]
    you: int | None
    round: int
    rounds: int
    starter: int | None
    phase: Phase
    hand: list[str]
    hand_sizes: list[int]
    has_bid: list[bool]
    bids: list[int | None]
    tricks_won: list[int]
    trick: list[RollDict]
    follow: str | None
    leading: int | None
    tricks: list[TrickDict]
    legal: list[str]
    totals: list[int]
    to_act: list[int]
    turn: str | None
    deadline: int | None
    commit: str
    turn_seconds: int | None
    winners: NotRequired[list[int] | None]
    pad: NotRequired[str | None]
    history: list[PastRoundDict]


class ViewMessageDict(TypedDict):
    """:class:`~minodice.wire.messages.ViewMessage`."""

    type: Literal["view"]
    seq: int
    view: ViewDict


class ErrorMessageDict(TypedDict):
    """:class:`~minodice.wire.messages.ErrorMessage`."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    rule: str | None


class ChatMessageDict(TypedDict):
    """:class:`~minodice.wire.messages.ChatMessage`."""

    type: Literal["chat"]
    seat: int | None
    name: str
    text: str
    at: int
