"""Per-seat views: exactly what one player may know, and nothing more (STYLE 4).

Bots, screens and servers get a :class:`SeatView`, never the :class:`GameState`. A view
holds the seat's own dice but only the *number* of dice behind every other screen, and
shows bids only once all bids of the round are in (R6) — before that a player sees their
own bid and who has bid, not what. Everything rolled is public (R8), and so are the hands
of finished rounds, since every die of a finished round has been rolled in the open.

>>> import random
>>> from minodice.core.state import GameState
>>> state = GameState.new(players=3)
>>> rng = random.Random(1)
>>> for _ in range(3):
...     state.apply_chance(state.sample_chance(rng))
>>> state.apply(state.legal_actions(1)[1], seat=1)     # seat 1 bids 1, secretly
>>> view(state, 0).bids, view(state, 1).bids
((None, None, None), (None, 1, None))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from minodice.core.actions import Action
from minodice.core.dice import DiceSet, Face, Hand
from minodice.core.rules import (
    DEFAULT_RULE_OPTIONS,
    RuleOptions,
    StartRule,
    Variant,
    starter_of_round,
)
from minodice.core.state import GameState, Phase, RollEntry


@dataclass(frozen=True, slots=True)
class PublicRoll:
    """A die rolled in the open: who rolled which kind, and the face it shows."""

    seat: int
    kind: str
    face: Face

    def __str__(self) -> str:
        return f"{self.kind}→{self.face}"


@dataclass(frozen=True, slots=True)
class PastRound:
    """A finished round, all public: hands (every die was rolled), bids, tricks, scores."""

    round_no: int
    hands: tuple[Hand, ...]
    bids: tuple[int, ...]
    tricks: tuple[tuple[PublicRoll, ...], ...]
    trick_winners: tuple[int, ...]
    points: tuple[int, ...]
    bonus: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """What ``seat`` may know at this moment of the game; ``seat`` is None for a spectator,
    who sees what every seat sees, minus a hand."""

    seat: int | None
    players: int
    dice_set: DiceSet
    variant: Variant
    round_no: int
    rounds: int
    phase: Phase
    starter: int
    current_player: int
    hand: Hand
    hand_sizes: tuple[int, ...]
    has_bid: tuple[bool, ...]
    bids: tuple[int | None, ...]
    tricks_won: tuple[int, ...]
    leader: int
    follow: str | None
    trick: tuple[PublicRoll, ...]
    pending_roll: str | None
    round_tricks: tuple[tuple[PublicRoll, ...], ...]
    round_trick_winners: tuple[int, ...]
    history: tuple[PastRound, ...]
    totals: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    #: R5's and R9's open points as this game plays them (public: the table's rules).
    options: RuleOptions = DEFAULT_RULE_OPTIONS

    @property
    def own_seat(self) -> int:
        """The seat of a player's view (a bot's always has one); ``ValueError`` for a
        spectator's, who has none."""
        if self.seat is None:
            raise ValueError("a spectator's view has no seat")
        return self.seat

    @property
    def all_bids_in(self) -> bool:
        return all(self.has_bid)

    @property
    def trick_number(self) -> int:
        return len(self.round_tricks)

    @property
    def first_starter(self) -> int:
        """The start player of round 1, implied by this round's (R5, as the options say):
        a view carries only the current round's, and a finished round's is worked out."""
        if self.options.start is StartRule.FIXED:
            return self.starter
        return (self.starter - (self.round_no - 1)) % self.players

    def starter_of_round(self, round_no: int) -> int:
        """The start player of round ``round_no`` (from 1), as R5 and the options say."""
        return starter_of_round(self.first_starter, round_no, self.players, self.options.start)


def _public_rolls(dice_set: DiceSet, rolls: list[RollEntry]) -> tuple[PublicRoll, ...]:
    return tuple(
        PublicRoll(seat, dice_set.kinds[kind].name, dice_set.face_of_code(code))
        for seat, kind, code in rolls
    )


def past_rounds(state: GameState) -> tuple[PastRound, ...]:
    """The finished rounds, all public: the same for every seat (a caller that builds many
    views of one moment may compute them once and pass them to :func:`view`)."""
    ds = state.dice_set
    return tuple(
        PastRound(
            i + 1,
            tuple(ds.hand_of_key(k) for k in past.hands),
            tuple(past.bids or ()),
            tuple(_public_rolls(ds, t) for t in past.tricks),
            tuple(past.winners),
            tuple(past.points or ()),
            tuple(past.bonus or ()),
            tuple(past.totals or ()),
        )
        for i, past in enumerate(state.rounds)
        if past.points is not None
    )


def view(state: GameState, seat: int | None,
         history: tuple[PastRound, ...] | None = None) -> SeatView:
    """The view of ``seat`` (0-based index in seating order), or a spectator's (None).

    ``history``: :func:`past_rounds` of this very state, if the caller has it already.
    """
    _check_seat(state, seat)
    ds = state.dice_set
    in_bidding = state.phase in (Phase.DRAW, Phase.BID)
    has_bid = tuple(b >= 0 for b in state.bids) if state.phase is Phase.BID else (
        (state.rounds[-1].bids is not None,) * state.n)
    bids = _bids_seen(state, seat)
    if history is None:
        history = past_rounds(state)
    current = state.rounds[-1] if state.rounds[-1].points is None else None
    round_tricks = tuple(_public_rolls(ds, t) for t in current.tricks) if current else ()
    trick = round_tricks[-1] if round_tricks and len(round_tricks[-1]) < state.n else ()
    pending = state.pending_roll
    return SeatView(
        seat=seat,
        players=state.n,
        dice_set=ds,
        variant=state.variant,
        round_no=state.round_no,
        rounds=state.n_rounds,
        phase=state.phase,
        starter=state.starter,
        current_player=state.current_player,
        hand=state.hand(seat) if seat is not None else ds.hand_of_key(0),
        hand_sizes=tuple(ds.hand_size(k) for k in state.hands),
        has_bid=has_bid,
        bids=bids,
        tricks_won=tuple(state.tricks_won) if not in_bidding else (0,) * state.n,
        leader=state.leader,
        follow=ds.kinds[state.follow].name if state.phase in (
            Phase.PLAY, Phase.ROLL) and state.follow >= 0 else None,
        trick=trick,
        pending_roll=pending.kind.name if pending is not None else None,
        round_tricks=round_tricks,
        round_trick_winners=tuple(current.winners) if current else (),
        history=history,
        totals=tuple(state.totals),
        legal_actions=state.legal_actions(seat) if seat is not None else (),
        options=state.config.options,
    )


def views(state: GameState, seats: Iterable[int | None],
          history: tuple[PastRound, ...] | None = None) -> dict[int | None, SeatView]:
    """:func:`view` of each of ``seats`` (a spectator's for ``None``), equal to building
    each alone: the public part (rolls, tricks, scores — most of a view) is built once and
    only what differs between seats (its hand, its own bid before all are in, its legal
    actions) once a seat. A server telling every seat of a table each change needs this."""
    wanted = list(dict.fromkeys(seats))
    for seat in wanted:
        _check_seat(state, seat)
    public = view(state, None, history)
    found: dict[int | None, SeatView] = {}
    for seat in wanted:
        found[seat] = public if seat is None else replace(
            public, seat=seat, hand=state.hand(seat), bids=_bids_seen(state, seat),
            legal_actions=state.legal_actions(seat))
    return found


def _check_seat(state: GameState, seat: int | None) -> None:
    if seat is not None and not 0 <= seat < state.n:
        raise ValueError(f"there is no seat {seat} in a {state.n}-player game")


def _bids_seen(state: GameState, seat: int | None) -> tuple[int | None, ...]:
    """The bids ``seat`` may see: all once the round's are in, else its own alone."""
    if state.rounds[-1].bids is not None:
        return tuple(state.bids)
    return tuple(state.bids[s] if s == seat and state.bids[s] >= 0 else None
                 for s in range(state.n))
