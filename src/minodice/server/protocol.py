"""The server's side of the table protocol (PROTOCOL.md, ``minodice-table`` version 1):
messages built from the models of :mod:`minodice.wire`, and client messages read.

Every view sent is built here from one :class:`~minodice.core.view.SeatView` — the view of
the connection that receives it — and the table's public facts, never from the game state
(STYLE 15). What a seat may not know is not in its ``SeatView`` to begin with.

Views are built for every seat at every change of a table: they are built as the plain
JSON objects that :class:`minodice.wire.messages.ViewMessage` describes, field for field, and
written by :func:`dumps` (orjson), not through the models. Built with ``model_construct`` and
written by pydantic's serialiser they cost two to four times as much against the same
reference (``benchmarks/views.py``, two runs on a loaded machine: 0.75 and 1.02 of the time
``json.dumps`` takes for the whole view, against 0.38 and 0.25 this way), with nothing
validated either way. Their static types are the models' ``TypedDict`` twins
(:mod:`minodice.wire.shapes`, proved equal to the models by tests/test_wire_shapes.py): mypy
checks every key built here, at no cost when it runs. So the models describe them, the
schemas are generated from the models, and the tests validate what the server really sends
(every message of whole games, tests/online/test_schemas.py; every view of random games,
tests/test_wire.py) against those schemas. ``seat_view_from_message`` lives in
:mod:`minodice.wire.reading` now (the client reads views without importing the server) and
is re-exported here for old callers.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict, TypeGuard, cast, get_args

import orjson

from minodice.core.dice import SYMBOL_BASE, DiceSet
from minodice.core.fair import SCHEME_2, Fairness
from minodice.core.jsontext import loads_strict
from minodice.core.rules import MAX_PLAYERS, MIN_PLAYERS, resolve_trick, rounds_for
from minodice.core.state import Phase
from minodice.core.view import PublicRoll, SeatView
from minodice.wire.messages import ErrorCode, ErrorMessage, Status, ViewMessage
from minodice.wire.messages import Phase as WirePhase
from minodice.wire.reading import seat_view_from_message
from minodice.wire.shapes import (
    ErrorMessageDict,
    FairnessKeyDict,
    PastRoundDict,
    PlayerDict,
    RollDict,
    TrickDict,
    ViewDict,
    ViewExtras,
    ViewMessageDict,
    WhyDict,
)

MAX_MESSAGE = 4096          # bytes of one client message
MAX_CHAT = 200              # characters of one chat line
ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
STATUSES: tuple[str, ...] = get_args(Status)


def is_status(status: str) -> TypeGuard[Status]:
    """Whether a stored status is one a view shows (not ``expired``: nobody sees those)."""
    return status in STATUSES


@dataclass(frozen=True)
class TableFacts:
    """What everyone may know about a table, whatever their seat."""

    table: str
    status: Status
    edition: str
    variant: str
    players: list[PlayerDict]        # in seat order
    turn_seconds: int | None
    commit: str
    to_act: list[int]
    deadline: int | None
    extra: ViewExtras                # rematch, fairness once revealed, ...


def _roll(roll: PublicRoll) -> RollDict:
    return {"seat": roll.seat, "die": roll.kind, "face": roll.face.record_value}


def _why(dice_set: DiceSet, rolls: Sequence[PublicRoll]) -> WhyDict:
    """Why a finished trick was won, in words a page can translate (``reason`` is one of
    the names of :class:`~minodice.core.rules.Reason`)."""
    result = resolve_trick([(r.seat, r.face.code) for r in rolls])
    win = rolls[result.winning_roll].face
    why: WhyDict = {"reason": result.reason.value, "face": win.record_value}
    if result.beaten_role >= 0:
        why["beaten"] = dice_set.symbols[result.beaten_role]
    if result.bonus and win.code >= SYMBOL_BASE:
        why["bonus"] = result.bonus
    return why


def _leading(rolls: Sequence[PublicRoll]) -> int | None:
    """The seat whose roll wins the trick in progress so far (public: every roll is)."""
    if not rolls:
        return None
    return rolls[resolve_trick([(r.seat, r.face.code) for r in rolls]).winning_roll].seat


def round_tricks(v: SeatView) -> list[TrickDict]:
    """The view's ``tricks``: this round's finished tricks, who won each and why — the
    same for every seat, and changed once a trick (a server sending many views of one
    moment builds it once: it is half the work of building a view)."""
    return _tricks(v.dice_set, v.round_tricks[:len(v.round_trick_winners)],
                   v.round_trick_winners)


def _tricks(dice_set: DiceSet, tricks: Sequence[Sequence[PublicRoll]],
            winners: Sequence[int]) -> list[TrickDict]:
    return [{"rolls": [_roll(r) for r in t], "winner": w, "why": _why(dice_set, t)}
            for t, w in zip(tricks, winners, strict=False)]


def history_message(v: SeatView) -> list[PastRoundDict]:
    """The view's ``history``: the finished rounds, the same for every seat (a server
    sending many views of one moment builds it once)."""
    n = v.players
    return [{
        "round": past.round_no,
        "starter": v.starter_of_round(past.round_no),
        "hands": [h.names() for h in past.hands],
        "bids": list(past.bids),
        "tricks_won": [past.trick_winners.count(s) for s in range(n)],
        "points": list(past.points),
        "bonus": list(past.bonus),
        "totals": list(past.totals),
        "tricks": _tricks(v.dice_set, past.tricks, past.trick_winners),
    } for past in v.history]


@functools.lru_cache(maxsize=64)
def _name_widths(ds: DiceSet) -> tuple[int, ...]:
    """The lengths of the dice set's kinds' names, longest first (a dice set is loaded
    once and never changes: every view of every table asks for the same few)."""
    return tuple(sorted((len(kind.name) for kind in ds.kinds), reverse=True))


def _pad(ds: DiceSet, hand: list[str], legal: list[str], playing: bool) -> str:
    """Spaces that make a seat's view as long whatever dice it holds.

    The names of the dice in ``hand`` (and, in play, the ``roll KIND`` actions in
    ``legal``) differ in length: without this, the size of an encrypted frame would tell an
    eavesdropper whether a round-1 die is the minotaur. With it, ``hand``, ``legal`` and
    ``pad`` together are always as long as the longest names could make them for this many
    dice — a width that only the hand's size (public: ``hand_sizes``) and the phase decide.
    (During bidding ``legal`` is the bids 0..r, public too, so only in play is it counted.)
    """
    widths = _name_widths(ds)
    k = len(hand)
    width = 2 + k * (widths[0] + 2) + max(k - 1, 0)       # ["name","name"]
    used = len(dumps(hand))
    if playing and legal:
        m = min(k, len(widths))                            # ["roll name",...]
        width += 2 + sum(w + 7 for w in widths[:m]) + max(m - 1, 0)
        used += len(dumps(legal))
    return " " * (width - used)


class _ViewEnd(TypedDict, total=False):
    """The fields a game's view has in some cases only, where the view sends them."""

    winners: list[int] | None
    pad: str | None


_NO_END: _ViewEnd = {}  # (a waiting view has neither)


def view_message(facts: TableFacts, seat_view: SeatView | None, you: int | None,
                 turn: str | None, seq: int,
                 history: list[PastRoundDict] | None = None,
                 tricks: list[TrickDict] | None = None) -> ViewMessageDict:
    """The ``view`` message for one connection (``seat_view`` None: before the game).

    ``history``, ``tricks``: :func:`history_message` and :func:`round_tricks` of this
    moment, if the caller has them already. The ``history`` comes last in a game's view
    (:func:`view_text` splices it in as text).
    """
    n = len(facts.players)
    playing = facts.status == "playing"
    view: ViewDict
    if seat_view is None or facts.status == "waiting":
        view = {
            "table": facts.table, "status": facts.status, "edition": facts.edition,
            "variant": facts.variant, "players": facts.players, "you": you,
            "round": 0, "rounds": rounds_for(n) if MIN_PLAYERS <= n <= MAX_PLAYERS else 0,
            "starter": None, "phase": "waiting", "hand": [], "hand_sizes": [0] * n,
            "has_bid": [False] * n, "bids": [None] * n, "tricks_won": [0] * n, "trick": [],
            "follow": None, "leading": None, "tricks": [], "legal": [], "totals": [0] * n,
            "history": [],
            "to_act": facts.to_act, "turn": turn if playing else None,
            "deadline": facts.deadline, "commit": facts.commit,
            "turn_seconds": facts.turn_seconds, **facts.extra, **_NO_END}
        return {"type": "view", "seq": seq, "view": view}
    v = seat_view
    finished = v.phase is Phase.OVER
    ds = v.dice_set
    phase: WirePhase = "finished" if finished else (
        "bid" if v.phase in (Phase.DRAW, Phase.BID) else "play")
    done = len(v.round_trick_winners)
    hand, legal, pad = _seat_fields(v, you, phase)
    end: _ViewEnd = {}
    if finished:
        end["winners"] = [s for s in range(n) if v.totals[s] == max(v.totals)]
    if pad is not None:
        end["pad"] = pad
    view = {
        "table": facts.table,
        "status": facts.status,
        "edition": facts.edition,
        "variant": facts.variant,
        "players": facts.players,
        "you": you,
        "round": v.round_no,
        "rounds": v.rounds,
        "starter": v.starter,
        "phase": phase,
        "hand": hand,
        "hand_sizes": list(v.hand_sizes) if not finished else [0] * n,
        "has_bid": list(v.has_bid),
        "bids": list(v.bids),
        "tricks_won": list(v.tricks_won),
        "trick": [_roll(r) for r in v.trick],
        "follow": v.follow if v.trick else None,
        "leading": _leading(v.trick),
        "tricks": tricks if tricks is not None else _tricks(ds, v.round_tricks[:done],
                                                            v.round_trick_winners),
        # a seat's legal actions are sent while the game is played (the pad counts them
        # all the same: a view's size says nothing of the dice)
        "legal": legal if playing else [],
        "totals": list(v.totals),
        **end,
        "to_act": facts.to_act,
        "turn": turn if playing else None,
        "deadline": facts.deadline,
        "commit": facts.commit,
        "turn_seconds": facts.turn_seconds,
        **facts.extra,
        "history": history if history is not None else history_message(v),
    }
    return {"type": "view", "seq": seq, "view": view}


def _seat_fields(v: SeatView, you: int | None, phase: WirePhase
                 ) -> tuple[list[str], list[str], str | None]:
    """What differs between the views of one moment's seats besides ``you`` and
    ``turn``: the ``hand``, the ``legal`` actions (before the view keeps them only while
    the game is played) and the ``pad`` (``None``: a spectator's view has none)."""
    if you is None:
        return [], [], None
    hand = [] if phase == "finished" else v.hand.names()
    legal = [str(a) for a in v.legal_actions]
    return hand, legal, _pad(v.dice_set, hand, legal, phase == "play")


def view_texts(facts: TableFacts, seat_views: dict[int | None, SeatView],
               turns: dict[int | None, str | None], seq: int, history_json: str,
               tricks: list[TrickDict] | None = None) -> dict[int | None, str]:
    """:func:`view_text` for each seat of ``seat_views`` (views of one moment; ``turns``
    their turns), each the same text as alone: the message is built once, for a seat
    (the public fields: players, rolls, tricks, scores), and each other seat's copy gets
    only its own fields (``you``, ``hand``, ``bids``, ``legal``, ``pad``, ``turn``); a copy of a
    dict keeps its keys' order, so the JSON is written in the same order."""
    texts: dict[int | None, str] = {}
    seated = [seat for seat in seat_views if seat is not None]
    if not seated or facts.status == "waiting":
        return {seat: view_text(facts, v, seat, turns.get(seat), seq, history_json, tricks)
                for seat, v in seat_views.items()}
    first = seated[0]
    base = view_message(facts, seat_views[first], first, turns.get(first), seq, [], tricks)
    view = base["view"]
    phase = view["phase"]
    playing = facts.status == "playing"
    for seat, v in seat_views.items():
        message: ViewMessageDict
        if seat == first:
            message = base
        else:
            own = dict(view)  # (the same keys in the same order)
            hand, legal, pad = _seat_fields(v, seat, phase)
            own["you"] = seat
            own["hand"] = hand
            own["bids"] = list(v.bids)  # its own bid, before all are in
            own["legal"] = legal if playing else []
            own["turn"] = turns.get(seat) if playing else None
            if pad is None:
                del own["pad"]  # a spectator's
            else:
                own["pad"] = pad
            message = {"type": "view", "seq": seq, "view": cast(ViewDict, own)}
        text = dumps(message)
        texts[seat] = f"{text[:-4]}{history_json}}}}}"  # as view_text splices it
    return texts


def view_text(facts: TableFacts, seat_view: SeatView, you: int | None, turn: str | None,
              seq: int, history_json: str,
              tricks: list[TrickDict] | None = None) -> str:
    """The ``view`` message of :func:`view_message` as JSON text, with ``history_json`` (the
    ``history``, already encoded) spliced in: a server encodes the finished rounds, most of
    a view, once a round rather than once for every view it sends (and builds this round's
    ``tricks`` once a trick, if it passes them)."""
    text = dumps(view_message(facts, seat_view, you, turn, seq, [], tricks))
    # ...,"history":[]}}: the history goes last in the view
    return f"{text[:-4]}{history_json}}}}}"


def build_view(facts: TableFacts, seat_view: SeatView | None, you: int | None,
               turn: str | None, seq: int) -> ViewMessage:
    """:func:`view_message` as the model, validated (for tests and tools; the server
    sends :func:`view_text`)."""
    return ViewMessage.model_validate(view_message(facts, seat_view, you, turn, seq))


def fairness_key(fair: Fairness) -> FairnessKeyDict:
    """The record's ``fairness`` key that a finished table's views reveal."""
    key: FairnessKeyDict = {"scheme": fair.scheme, "commit": fair.commit,
                            "server_seed": fair.server_seed.hex(),
                            "client_seeds": list(fair.client_seeds)}
    if fair.scheme == SCHEME_2:
        key["table"] = fair.table
        key["client_seed_hashes"] = list(fair.seed_hashes)
        key["replaced"] = list(fair.replaced)
    return key


def error_message(code: str, message: str, rule: str | None = None) -> ErrorMessageDict:
    """An ``error`` message (checked: ``code`` must be one of the protocol's)."""
    checked = ErrorMessage.model_validate({"type": "error", "code": code, "message": message,
                                           "rule": rule})
    return {"type": "error", "code": checked.code, "message": checked.message,
            "rule": checked.rule}


def dumps(message: Any) -> str:
    """``message`` as compact JSON text, UTF-8 as it is (no ``\\u`` escapes).

    Written by orjson: a view's JSON is the largest share of a broadcast's time, and
    orjson writes the same text as ``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))`` in a fifth of the time (``benchmarks/views.py``). What orjson
    refuses (an integer beyond 64 bits, a lone surrogate) goes to ``json.dumps`` as before.
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


#: Sent before a connection is closed (1012) because its table moved to another server
#: process (several processes share tables: ``minodice serve --redis``): connecting again,
#: to any process, gives the whole view. A connection's outbox closes after sending it.
MOVED = dumps(error_message("moved", "this table is now served by another server process; "
                            "connect again"))

#: Sent before a connection is closed (4404) because its table expired while it watched (a
#: waiting table no person has taken a seat at expires, spectators or not): the error a new
#: connection to it gets too (``not_found``). A connection's outbox closes after sending it.
TABLE_EXPIRED = dumps(error_message("not_found", "this table expired: nobody took a seat at "
                                    "it in time"))


class BadMessageError(ValueError):
    """A client message the protocol does not allow; ``code`` is the error code to send."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Act:
    turn: str
    action: str


@dataclass(frozen=True)
class Chat:
    text: str


def parse_client_message(text: str) -> Act | Chat:
    """Read one client message; :class:`BadMessageError` says what is wrong with it."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        raise BadMessageError("too_large", f"a message is at most {MAX_MESSAGE} bytes")
    try:
        data = loads_strict(text)
    except json.JSONDecodeError:
        raise BadMessageError("bad_message", "not JSON") from None
    except ValueError as exc:  # NaN, a key twice: JSON's text, not JSON's meaning
        raise BadMessageError("bad_message", f"not JSON: {exc}"[:200]) from None
    except RecursionError:
        raise BadMessageError("bad_message", "not JSON: nested too deeply") from None
    try:  # "\ud800" is valid JSON but no text: echoed in a chat, it would break every socket
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):
        raise BadMessageError("bad_message", "a string holds a lone surrogate (not "
                              "Unicode text)") from None
    if not isinstance(data, dict):
        raise BadMessageError("bad_message", "a message is a JSON object with a \"type\"")
    kind = data.get("type")
    if kind == "act":
        turn, action = data.get("turn"), data.get("action")
        if not isinstance(turn, str) or not isinstance(action, str):
            raise BadMessageError("bad_message",
                             'an "act" message needs "turn" and "action", both strings')
        return Act(turn, action)
    if kind == "chat":
        chat = data.get("text")
        if not isinstance(chat, str) or not chat.strip():
            raise BadMessageError("bad_message",
                                  'a "chat" message needs "text", 1 to 200 characters')
        if len(chat) > MAX_CHAT:
            raise BadMessageError("too_large", f"a chat line is at most {MAX_CHAT} characters")
        return Chat(chat)
    shown = kind if isinstance(kind, str) and len(kind) <= 20 else "?"
    raise BadMessageError("bad_message", f'unknown message type {shown!r}: use "act" or "chat"')


__all__ = ["ERROR_CODES", "MAX_CHAT", "MAX_MESSAGE", "Act", "BadMessageError", "Chat",
           "TableFacts", "build_view", "dumps", "error_message", "history_message",
           "parse_client_message", "seat_view_from_message",
           "view_message", "view_text", "view_texts"]
