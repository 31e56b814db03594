"""Reading the server's messages back: checked against the models, then into the engine's
own :class:`~minodice.core.view.SeatView`, so that any bot written for the engine plays over
the network unchanged (clients, bots over the network, benchmarks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from minodice.core.actions import parse_action
from minodice.core.dice import Hand, load_dice_set
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, Variant
from minodice.core.state import Phase
from minodice.core.view import PastRound, PublicRoll, SeatView
from minodice.wire.messages import ChatMessage, ErrorMessage, Roll, ServerMessage, View, ViewMessage

_ANY_SERVER_MESSAGE: Any = ServerMessage  # an annotated union: no class for mypy to see
_SERVER_MESSAGE: TypeAdapter[ViewMessage | ErrorMessage | ChatMessage] = TypeAdapter(
    _ANY_SERVER_MESSAGE)


def read_server_message(raw: str | bytes) -> ViewMessage | ErrorMessage | ChatMessage:
    """One message from the server, checked; ``ValueError`` naming the first problem."""
    try:
        return _SERVER_MESSAGE.validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ValueError(f"not a table protocol message: {where}: {first['msg']}"[:300]) \
            from None


def seat_view_from_message(view: View | Mapping[str, Any]) -> SeatView:
    """The :class:`SeatView` a ``view`` (the model, or its JSON object) describes.
    ``ValueError`` if it is not a game view (before the game, say)."""
    try:
        v = view if isinstance(view, View) else View.model_validate(view)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise ValueError(f"not a game view: {where}: {first['msg']}"[:300]) from None
    try:
        return _seat_view(v)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"not a game view: {exc}") from None


def _seat_view(v: View) -> SeatView:
    ds = load_dice_set(v.edition)
    n = len(v.players)
    phase = {"bid": Phase.BID, "play": Phase.PLAY, "finished": Phase.OVER}[v.phase]
    if v.starter is None:
        raise ValueError("no round has started")

    def rolls(items: Sequence[Roll]) -> tuple[PublicRoll, ...]:
        return tuple(PublicRoll(r.seat, r.die, ds.face(r.face)) for r in items)

    finished = [rolls(t.rolls) for t in v.tricks]
    winners = tuple(t.winner for t in v.tricks)
    trick = rolls(v.trick)
    round_tricks = tuple(finished) + ((trick,) if phase is Phase.PLAY else ())
    # once the game is over, the leader is the one of the last trick played
    last = v.history[-1].tricks if phase is Phase.OVER and v.history else None
    leader = (trick[0].seat if trick else winners[-1] if winners
              else last[-1].rolls[0].seat if last else v.starter)
    history = tuple(PastRound(
        p.round, tuple(Hand.from_kinds(ds, h) for h in p.hands), tuple(p.bids),
        tuple(rolls(t.rolls) for t in p.tricks), tuple(t.winner for t in p.tricks),
        tuple(p.points), tuple(p.bonus), tuple(p.totals)) for p in v.history)
    return SeatView(
        seat=v.you, players=n, dice_set=ds, variant=Variant(v.variant), round_no=v.round,
        rounds=v.rounds, phase=phase, starter=v.starter,
        current_player=v.to_act[0] if v.to_act else -4, hand=Hand.from_kinds(ds, v.hand),
        hand_sizes=tuple(v.hand_sizes), has_bid=tuple(v.has_bid), bids=tuple(v.bids),
        tricks_won=tuple(v.tricks_won), leader=leader, follow=v.follow, trick=trick,
        pending_roll=None, round_tricks=round_tricks, round_trick_winners=winners,
        history=history, totals=tuple(v.totals),
        legal_actions=tuple(parse_action(ds, a) for a in v.legal),
        options=RuleOptions.from_json(v.rule_options.model_dump())
        if v.rule_options is not None else DEFAULT_RULE_OPTIONS)
