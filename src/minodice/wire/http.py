"""The HTTP bodies of the table protocol: every request and every answer, as pydantic models.

The server's routes declare them (so ``/docs`` and ``/openapi.json`` show each answer's
shape and its errors), and clients read answers with them. Requests are strict (a client's
``"4"`` is not the number 4) and ignore fields they do not know; answers allow more fields
than they name, as the contract lets a server send more.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from minodice.bots.protocol import BotLevel
from minodice.core.dice import EditionName
from minodice.core.rules import MAX_PLAYERS, MAX_ROUNDS, MIN_PLAYERS
from minodice.wire.messages import ErrorCode, Face, Player, RuleOptionsWire, Status

BotName = BotLevel
Variant = Literal["standard", "simplified"]


class Request(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


# -- requests ---------------------------------------------------------------------------------


class RuleOptionsRequest(Request):
    """RULES.md's open points (R5, R9) for a new table; a key left out keeps its default."""

    start: Literal["rotate", "fixed"] = "rotate"
    special_lead: Literal["first-number", "no-colour"] = "first-number"


class CreateTable(Request):
    """``POST /api/tables``."""

    players: int = Field(4, ge=MIN_PLAYERS, le=MAX_PLAYERS)
    edition: EditionName = "mino"
    variant: Variant = "standard"
    bots: list[BotName | None] | None = Field(None, description="one per seat; null = a person")
    turn_seconds: int | None = Field(None, ge=5, le=3600)
    public: bool = False
    advisor: bool = Field(True, description="whether the bid advisor may be used at this table")
    rule_options: RuleOptionsRequest | None = Field(
        None, description="RULES.md's open points, where the table plays them otherwise "
        "than by default")


class JoinSeat(Request):
    """``POST /api/tables/ID/seats``."""

    #: The schema only bounds the text read; :func:`minodice.server.lobby.clean_name` says
    #: what a name may be (1 to 24 characters once trimmed), in one message for every length.
    name: str = Field(max_length=1000)
    client_seed: str | None = Field(None, max_length=64,
                                    description="a seed sent plain (minodice-fair-1 clients)")
    client_seed_hash: str | None = Field(None, max_length=64,
                                         description="sha256 (hex) of the seat's seed, "
                                         "revealed once every seat is taken (fair-2)")
    rematch_token: str | None = Field(None, max_length=100,
                                      description="a seat's token of the game before: "
                                      "takes the same seat at its rematch")


class RevealSeed(Request):
    """``POST /api/tables/ID/reveal``."""

    token: str = Field(max_length=100)
    client_seed: str = Field(max_length=64)


class StartTable(Request):
    """``POST /api/tables/ID/start``."""

    host_token: str = Field(max_length=100)
    fill: BotName | None = None


class AdviseRequest(Request):
    """``POST /api/advise``: the dice behind your screen and where you sit."""

    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    round: int = Field(ge=1, le=MAX_ROUNDS)
    seat: int = Field(ge=0, le=MAX_PLAYERS - 1,
                      description="places after the round's start player (0: you start)")
    hand: list[str] = Field(min_length=1, max_length=MAX_ROUNDS)
    edition: EditionName = "mino"
    variant: Variant = "standard"
    announced: list[int | None] | None = Field(
        None, max_length=MAX_PLAYERS, description="bids already announced, by seat after the start "
        "player (null where unknown); those players then play for them")
    special_lead: Literal["first-number", "no-colour"] = Field(
        "first-number", description="R9's open point as the table plays it (docs/RULES.md)")


class RolledDie(Request):
    die: str = Field(max_length=20)
    face: int | str = Field(description="a face as in RECORD.md: 1–7, \"flag\" or a symbol")


class TrickOddsRequest(Request):
    """``POST /api/odds/trick``: your dice and the trick so far."""

    players: int = Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)
    hand: list[str] = Field(min_length=1, max_length=MAX_ROUNDS)
    rolled: list[RolledDie] = Field(default_factory=list, max_length=MAX_PLAYERS - 1)
    edition: EditionName = "mino"
    special_lead: Literal["first-number", "no-colour"] = Field(
        "first-number", description="R9's open point as the table plays it (docs/RULES.md)")


class Rematch(Request):
    """``POST /api/tables/ID/rematch``."""

    token: str = Field(max_length=100)
    client_seed: str | None = Field(None, max_length=64)
    client_seed_hash: str | None = Field(None, max_length=64)


# -- answers ----------------------------------------------------------------------------------


class ErrorDetail(Answer):
    code: ErrorCode | Literal["internal"]
    message: str


class ErrorAnswer(Answer):
    """Every refusal: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


class TableCreated(Answer):
    """``201`` to ``POST /api/tables``."""

    table: str
    url: str
    host_token: str = Field(description="starts the table and fills its seats; keep it secret")
    commit: str


class SeatTaken(Answer):
    """``201`` to ``POST /api/tables/ID/seats``."""

    seat: int
    token: str = Field(description="plays the seat; keep it secret")
    name: str = Field(description="the name as seated (a taken name gets a number)")


class TableStatus(Answer):
    """``200`` to ``reveal`` and ``start``."""

    table: str
    status: Status


class RematchCreated(Answer):
    """``201`` to ``POST /api/tables/ID/rematch``."""

    table: str
    url: str
    commit: str
    seat: int | None
    token: str | None
    host_token: str | None = Field(None, description="only to whoever created the rematch")


class TableInfo(Answer):
    """``GET /api/tables/ID``."""

    table: str
    status: Status
    players: list[Player]
    edition: str
    variant: str
    turn_seconds: int | None
    commit: str
    public: bool
    seats_free: int
    url: str
    advisor: bool
    rematch: str | None
    rule_options: RuleOptionsWire | None = Field(
        None, description="only where the table plays RULES.md's open points otherwise")


class PublicTable(Answer):
    """An item of ``GET /api/tables``: a public table waiting for players."""

    table: str
    players: int
    edition: str
    variant: str
    seats_free: int
    url: str
    names: list[str] = Field(description="who sits at the table already")


class Translations(Answer):
    """``GET /api/i18n/LANG``."""

    lang: str
    messages: dict[str, str | list[str]] = Field(description="English → translation "
                                                 "(plural entries: [one, other])")


class DiceKind(Answer):
    name: str
    count: int
    colour: str
    special: bool
    faces: list[Face] = Field(description="the six faces in roll order")


class DiceSetInfo(Answer):
    """``GET /api/dice/EDITION``: kinds in bag order, faces in roll order."""

    name: str
    title: str
    symbols: list[str]
    kinds: list[DiceKind]


class RulesText(Answer):
    """``GET /api/rules/LANG``."""

    lang: str
    edition: str
    paragraphs: list[str]


class BidOdds(Answer):
    bid: int
    expected_score: float
    make_chance: float
    samples: int


class Advice(Answer):
    """``POST /api/advise``: the bid advisor's answer."""

    players: int
    round: int
    seat: int
    hand: list[str]
    samples: int
    best_bid: int
    bids: list[BidOdds]
    tricks_distribution: list[float]
    expected_tricks: float
    heuristic_tricks: float


class DieOdds(Answer):
    die: str
    chance: float
    legal: bool


class TrickOdds(Answer):
    """``POST /api/odds/trick``: each of your dice's chance to take the trick."""

    follow: str | None
    legal: list[str]
    later: int
    samples: int
    dice: list[DieOdds]


class GameRecord(Answer):
    """``GET /api/tables/ID/record``: the game's record (RECORD.md) with ``fairness``."""

    format: str = Field(description='"minodice-record"')
    fairness: dict[str, Any]


class SchemaIndex(Answer):
    """``GET /api/schema``: the JSON Schema of every WebSocket message, by name."""

    schemas: dict[str, str] = Field(description="name → the address of its schema")


class MessageSchema(Answer):
    """``GET /api/schema/NAME.json``: a JSON Schema (draft 2020-12) of one message."""

    title: str
    description: str


_SENTENCES = {400: "a request the protocol does not allow", 403: "forbidden",
              404: "no such table (or it expired)", 409: "not now (see the route)",
              413: "the body is too large", 429: "over this address's rate",
              503: "unavailable, damaged or busy: try again later"}


def error_answers(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """FastAPI's ``responses=`` for a route's refusals, all :class:`ErrorAnswer`."""
    return {status: {"model": ErrorAnswer, "description": _SENTENCES[status]}
            for status in statuses}
