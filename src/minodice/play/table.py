"""The table: one game with people and bots, as every front end runs it (STYLE 13).

The terminal, the server and the tests drive the same object. A :class:`Table` owns the
engine state and a source of chance; it says who must act (:meth:`Table.to_act`), applies a
seat's decision and everything that follows from it until a decision is needed again
(rolling the chosen die, finishing the trick, scoring, dealing the next round), and
reports what happened as :class:`Event` values. Front ends only ever see a
:class:`~minodice.core.view.SeatView` (:meth:`Table.view`), never the state.

Chance comes from a :class:`Chance` source: :class:`SeededChance` for local games (a seed
reproduces the game, each event seeded by its place so that a saved game resumes exactly)
and :class:`FairChance` for servers (PROTOCOL.md ``minodice-fair-1``).

A table snapshots and restores exactly, secret bids included: :meth:`Table.snapshot` is a
record (RECORD.md) plus a ``"session"`` key holding the seats, the chance source's state and
the bids already made in a round still being bid.

>>> table = new_table(players=3, humans=["Ana"], bots=["random"], seed=5)
>>> table.to_act()            # everyone bids at once; nobody has yet
[2, 0, 1]
>>> events = table.act(0, Bid(1))
>>> table.view(1).bids        # Ana's bid stays secret until all are in
(None, None, None)
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from minodice.bots.loading import make_bot
from minodice.bots.protocol import BUILTIN_BOTS, Bot, BotError
from minodice.core.actions import Action, Bid, Roll
from minodice.core.dice import Face, Hand, load_dice_set
from minodice.core.errors import InvalidRecordError
from minodice.core.fair import SCHEME_1, FairStream
from minodice.core.fair import deal as fair_deal
from minodice.core.fair import roll as fair_roll
from minodice.core.record import RecordNotes, export_record, load_record
from minodice.core.rules import (
    DEFAULT_RULE_OPTIONS,
    RuleOptions,
    TrickResult,
    Variant,
    resolve_trick,
)
from minodice.core.state import TERMINAL, GameConfig, GameState, Phase
from minodice.core.view import PastRound, SeatView, past_rounds, view, views
from minodice.text.safe import one_line, printable

# -- seats and events ---------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in a seat: a person (``bot`` is None) or a bot given by its spec."""

    name: str
    bot: str | None = None

    @property
    def is_human(self) -> bool:
        return self.bot is None


@dataclass(frozen=True)
class Dealt:
    """A round's hands were drawn. Secret: for the table's own log, never for a seat."""

    round_no: int
    hands: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class BidMade:
    """A seat bid. Secret until all bids are in: for the table's own log only."""

    seat: int
    bid: int


@dataclass(frozen=True)
class BidsRevealed:
    bids: tuple[int, ...]


@dataclass(frozen=True)
class Rolled:
    seat: int
    kind: str
    face: str


@dataclass(frozen=True)
class TrickWon:
    trick: int
    rolls: tuple[tuple[int, int, int], ...]  # (seat, kind index, face code)
    result: TrickResult


@dataclass(frozen=True)
class RoundScored:
    round_no: int


@dataclass(frozen=True)
class RoundStarted:
    round_no: int


@dataclass(frozen=True)
class GameOver:
    winners: tuple[int, ...]


Event = Dealt | BidMade | BidsRevealed | Rolled | TrickWon | RoundScored | RoundStarted | GameOver

#: The events that are the game itself (decisions and chance outcomes); the rest follow.
PRIMARY = (Dealt, BidMade, Rolled)


#: The keys of a record another program wrote that speak of where its dice came from (a
#: server's proof, its totals, a simulation's seed): a resumed game's dice to come are
#: drawn afresh, so they would be false of it.
_FROM_ITS_DICE = frozenset({"fairness", "totals", "seed"})


#: A number in a turn's name (:meth:`Table.turn_order`): ASCII digits, no leading zero.
_TURN_NUMBER = re.compile(r"[1-9][0-9]{0,3}")


class TableError(ValueError):
    """A table that cannot be set up or restored; the message says why."""


class ReplayError(TableError):
    """A logged event that does not follow from the table's chance source or rules."""


# -- chance --------------------------------------------------------------------------------


class Chance(Protocol):
    """Where a table's dice come from."""

    def deal(self, state: GameState) -> list[Hand]:
        """The hands of the round waiting to be drawn, one per seat."""
        ...

    def roll(self, state: GameState) -> Face:
        """The face of the die chosen and waiting to be rolled."""
        ...

    def to_json(self) -> dict[str, Any]:
        """What a snapshot needs to pick this source up again."""
        ...

    # A source may also have ``deal_into(state) -> list[Hand]``: deal and apply at once,
    # the same hands as ``deal`` (seeded sources: no copy of the state to draw from).

    def fork(self) -> Chance:
        """An independent source that goes on from where this one stands."""
        ...


def draw_into(state: GameState, rng: random.Random) -> list[Hand]:
    """:func:`draw_hands`, applied to ``state`` as they are drawn (no copy of the state)."""
    hands: list[Hand] = []
    while state.phase is Phase.DRAW:
        hand = state.sample_chance(rng)
        assert isinstance(hand, Hand)
        state.apply_chance(hand)
        hands.append(hand)
    return hands


def draw_hands(state: GameState, rng: random.Random) -> list[Hand]:
    """The hands of the round waiting to be drawn, with the engine's own sampler, one seat
    after another, from ``rng``."""
    probe = state.clone()
    hands: list[Hand] = []
    while probe.phase is Phase.DRAW:
        hand = probe.sample_chance(rng)
        assert isinstance(hand, Hand)
        probe.apply_chance(hand)
        hands.append(hand)
    return hands


class SeededChance:
    """Local games: each deal and roll from a generator seeded by the game seed and the
    event's place (round, roll number), so that a saved game resumes exactly."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _rng(self, *where: object) -> random.Random:
        return random.Random(":".join(["minodice-play", str(self.seed), *map(str, where)]))

    def deal(self, state: GameState) -> list[Hand]:
        return draw_hands(state, self._rng("draw", state.round_no))

    def deal_into(self, state: GameState) -> list[Hand]:
        return draw_into(state, self._rng("draw", state.round_no))

    def roll(self, state: GameState) -> Face:
        rolls_before = sum(len(t) for t in state.rounds[-1].tricks)
        face = state.sample_chance(self._rng("roll", state.round_no, rolls_before))
        assert isinstance(face, Face)
        return face

    def to_json(self) -> dict[str, Any]:
        return {"scheme": "seeded", "seed": self.seed}

    def fork(self) -> SeededChance:
        return self  # every outcome follows from the state's place: nothing to copy


class FairChance:
    """Server games: the ``minodice-fair-1`` or ``-2`` stream, dealing and rolling in game
    order (the scheme names the stream's blocks)."""

    def __init__(self, key: bytes, position: int = 0, scheme: str = SCHEME_1) -> None:
        self.scheme = scheme
        self.stream = FairStream(key, scheme, position)

    def deal(self, state: GameState) -> list[Hand]:
        return fair_deal(self.stream, state.dice_set, state.n, state.round_no)

    def roll(self, state: GameState) -> Face:
        pending = state.pending_roll
        assert pending is not None
        return fair_roll(self.stream, state.dice_set, pending.kind.name)

    def to_json(self) -> dict[str, Any]:
        return {"scheme": self.scheme, "position": self.stream.position}

    def fork(self) -> FairChance:
        return FairChance(self.stream.key, self.stream.position, self.scheme)


# -- the table -----------------------------------------------------------------------------


class Table:
    """One game at a table (see the module docstring)."""

    def __init__(self, config: GameConfig, seats: Sequence[SeatSpec], chance: Chance,
                 bot_seed: str = "", extra: dict[str, Any] | None = None) -> None:
        if len(seats) != config.players:
            raise TableError(f"{config.players} seats needed, {len(seats)} given")
        # The record's rule (RECORD.md): a name is any text but "", no two alike; a record
        # that replay reads resumes, a name of spaces too.
        names = [s.name for s in seats]
        if "" in names:
            raise TableError(f"seat {names.index('') + 1} has no name")
        twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if twice is not None:
            raise TableError(f"two seats are named '{printable(twice)}': names must differ")
        self.config = config
        self.seats = list(seats)
        self.chance = chance
        self.bot_seed = bot_seed
        self.extra: dict[str, Any] = dict(extra or {})  # a resumed record's other keys
        self.notes: RecordNotes = {}  # and those of its rounds and rolls, never changed
        self._state = GameState(config)
        self._decisions = 0
        self._bots: dict[int, Bot] = {}
        self._history: tuple[int, tuple[PastRound, ...]] = (-1, ())
        self.started = False

    # -- who and what ----------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_human]

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def round_no(self) -> int:
        return self._state.round_no

    @property
    def decisions(self) -> int:
        """How many decisions have been applied (a counter that never goes back)."""
        return self._decisions

    def is_over(self) -> bool:
        return self._state.current_player == TERMINAL

    def game_state(self) -> GameState:
        """The engine state itself, hidden dice and all: for an owner that is no player (a
        tournament scoring its games, a simulation). Never for a seat; never change it."""
        return self._state

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may know now (``None``: a spectator, who sees no hand)."""
        return view(self._state, seat, self.history())

    def views(self, seats: Iterable[int | None]) -> dict[int | None, SeatView]:
        """:meth:`view` of each of ``seats``, their public part built once
        (:func:`minodice.core.view.views`)."""
        return views(self._state, seats, self.history())

    def history(self) -> tuple[PastRound, ...]:
        """The finished rounds (public), built once per finished round, not per view."""
        done = sum(1 for log in self._state.rounds if log.points is not None)
        if self._history[0] != done:
            self._history = (done, past_rounds(self._state))
        return self._history[1]

    def to_act(self) -> list[int]:
        """The seats whose decision the game waits for, from the round's start player.

        While bidding that is every seat still to bid (bids are simultaneous, R6).
        """
        state = self._state
        if not self.started or state.phase is Phase.OVER:
            return []
        if state.phase is Phase.BID:
            pending = set(state.bidders())
            return [s for s in ((state.starter + i) % state.n for i in range(state.n))
                    if s in pending]
        return [state.current_player] if state.current_player >= 0 else []

    def legal(self, seat: int) -> tuple[Action, ...]:
        return self._state.legal_actions(seat) if self.started else ()

    def turn(self, seat: int) -> str | None:
        """A name for the decision ``seat`` is asked for now (``None`` if none).

        ``R-bid`` while bidding round R; ``R-T-Q`` for the Q-th roll of trick T of round R.
        """
        if seat not in self.to_act():
            return None
        return self.current_turn()

    def current_turn(self) -> str | None:
        """The decision the game waits for now, whoever it is asked of."""
        state = self._state
        if not self.started:
            return None
        if state.phase is Phase.BID:
            return f"{state.round_no}-bid"
        if state.phase is Phase.PLAY:
            return f"{state.round_no}-{state.trick_number()}-{state.rolled + 1}"
        return None

    @staticmethod
    def turn_order(turn: str) -> tuple[int, int, int] | None:
        """Where a turn name stands in the game, for telling a stale answer; None if it
        is not a turn name at all."""
        parts = turn.split("-")
        # numbers as the server writes them: "01", " 1" or "١" (int() reads them all) are
        # no turn's name, and were told they had "not come"
        if len(parts) == 2 and parts[1] == "bid" and _TURN_NUMBER.fullmatch(parts[0]):
            return (int(parts[0]), 0, 0)
        if len(parts) == 3 and all(_TURN_NUMBER.fullmatch(p) for p in parts):
            r, t, q = (int(p) for p in parts)
            return (r, t, q)
        return None

    # -- the flow of the game --------------------------------------------------------------

    def start(self) -> list[Event]:
        """Deal the first round; the game then waits for the bids."""
        if self.started:
            return []
        self.started = True
        return self._deal_pending()

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s decision (checked by the engine: ``IllegalActionError``), then
        everything that follows until a decision is needed again."""
        state = self._state
        if not self.started:
            from minodice.core.errors import IllegalActionError
            raise IllegalActionError(None, "the game has not started")
        round_no = state.round_no
        state.apply(action, seat=seat)
        self._decisions += 1
        events: list[Event] = []
        if isinstance(action, Bid):
            events.append(BidMade(seat, action.tricks))
            if state.round_no == round_no and state.phase is Phase.PLAY:
                log = state.rounds[-1]
                assert log.bids is not None
                events.append(BidsRevealed(tuple(log.bids)))
        else:
            events.extend(self._roll())
        return events

    def play_quietly(self, seat: int, action: Action) -> None:
        """:meth:`act` without reporting what happened: for owners that listen to no
        event (a tournament, a simulation), which play a game in a fraction of the time
        building the events would take. The same rules, the same dice."""
        state = self._state
        if not self.started:
            from minodice.core.errors import IllegalActionError
            raise IllegalActionError(None, "the game has not started")
        state.apply(action, seat=seat)
        self._decisions += 1
        if state.pending_roll is not None:
            log = state.rounds[-1]
            state.apply_chance(self.chance.roll(state))
            if log.points is not None and state.phase is Phase.DRAW:
                self._draw()

    def _draw(self) -> list[Hand]:
        """Draw the round's hands into the state: in place where the source can (it then
        needs no copy of the state to draw from)."""
        state = self._state
        deal_into = getattr(self.chance, "deal_into", None)
        if deal_into is not None:
            drawn: list[Hand] = deal_into(state)
            return drawn
        hands = self.chance.deal(state)
        for hand in hands:
            state.apply_chance(hand)
        return hands

    def next_to_act(self) -> int | None:
        """The first of :meth:`to_act` (None if none), without building the list."""
        if not self.started:
            return None
        player = self._state.current_player
        return player if player >= 0 else None

    def fork(self) -> Table:
        """An independent copy to make a change on: a server makes a move on a fork,
        writes it, and only then takes the fork for the table, so that a move whose write
        fails leaves no trace, and nobody reading the table meanwhile sees it."""
        other = copy.copy(self)
        other._state = self._state.clone()
        other.chance = self.chance.fork()
        other.extra = dict(self.extra)
        other._bots = dict(self._bots)
        return other

    def adopt(self, fork: Table) -> None:
        """Become ``fork`` (made by :meth:`fork` and changed since): whoever holds this
        table sees the change, and nobody saw it before it was adopted."""
        vars(self).update(vars(fork))

    def _deal_pending(self) -> list[Event]:
        state = self._state
        if state.phase is not Phase.DRAW:
            return []
        hands = self._draw()
        return [Dealt(state.round_no, tuple(tuple(h.names()) for h in hands)),
                RoundStarted(state.round_no)]

    def _roll(self) -> list[Event]:
        state = self._state
        log = state.rounds[-1]
        pending = state.pending_roll
        assert pending is not None
        seat = (state.leader + state.rolled) % state.n
        face = self.chance.roll(state)
        trick_no = len(log.tricks)
        rolls = (*log.tricks[-1], (seat, pending.kind.index, face.code))
        round_no = state.round_no
        state.apply_chance(face)
        events: list[Event] = [Rolled(seat, pending.kind.name, str(face))]
        if len(rolls) == state.n:
            result = resolve_trick([(s, c) for s, _, c in rolls])
            events.append(TrickWon(trick_no, rolls, result))
        if log.points is not None:
            events.append(RoundScored(round_no))
            if state.phase is Phase.OVER:
                events.append(GameOver(tuple(state.winners())))
            else:
                events.extend(self._deal_pending())
        return events

    # -- bots ------------------------------------------------------------------------------

    def bot(self, seat: int) -> Bot:
        """The bot of a bot seat, made on first use."""
        bot = self._bots.get(seat)
        if bot is None:
            spec = self.seats[seat].bot
            if spec is None:
                raise TableError(f"seat {seat} is a person's")
            bot = self._bots[seat] = make_bot(spec)
        return bot

    def bot_rng(self, seat: int) -> random.Random:
        """The generator for the next decision of ``seat``'s bot, seeded by its place."""
        return random.Random(f"minodice-play:{self.bot_seed}:bot:{seat}:{self._state.round_no}"
                             f":{self._decisions}")

    def bot_decision(self, seat: int, bot: Bot | None = None) -> Action:
        """Ask a bot (the seat's own, or ``bot``) for ``seat``'s decision, in this process,
        through the runners' one guard: whatever goes wrong is a :class:`BotError` naming
        the bot and the seat. May take a moment: a front end runs it off its event loop.
        """
        from minodice.play.runners import DecisionRequest, InProcessRunner

        spec = self.seats[seat].bot or "stand-in"
        runner = InProcessRunner({(seat, spec): bot or self.bot(seat)})
        return runner.decide(DecisionRequest(seat, spec, self, self.bot_rng(seat))).action

    # -- records, snapshots and logs -------------------------------------------------------

    def record(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """The public record (RECORD.md): no secret bids, no die chosen but not rolled."""
        return export_record(self._state, self.names, {**self.extra, **(extra or {})},
                             self.notes)

    def snapshot(self) -> dict[str, Any]:
        """The record plus everything needed to go on exactly (``"session"``).

        Holds the bids already made in a round still being bid: keep a snapshot where
        only the table's owner can read it.
        """
        state = self._state
        secret = ([b if b >= 0 else None for b in state.bids]
                  if state.phase is Phase.BID else None)
        return self.record({"session": {
            "seed": self.chance.to_json().get("seed", 0),
            "chance": self.chance.to_json(),
            "bots": [s.bot for s in self.seats],
            "decisions": self._decisions,
            "bot_seed": self.bot_seed,
            "bids": secret,
        }})

    @classmethod
    def restore(cls, data: dict[str, Any], chance: Chance | None = None,
                trust_bots: bool = False, seat_bots: Sequence[str | None] | None = None,
                seed: int | None = None) -> Table:
        """A table from :meth:`snapshot` (or a record saved by an older ``play``).

        ``chance`` replaces the snapshot's own source (a server's fair stream); only the
        built-in bots are loaded unless ``trust_bots``: a saved game may come from anyone,
        and an outside bot (``file.py:Class``) is code.

        A record another program wrote has no session: it does not say who plays which
        seat, nor where its dice come from. ``seat_bots`` says it (a bot's name, or None
        for a person, one per player) and ``seed`` seeds the dice still to come.
        """
        try:
            loaded = load_record(data)
        except InvalidRecordError as exc:  # one short line: a broken record may echo MBs
            raise TableError(f"not a valid game record: {one_line(str(exc))}") from None
        info = loaded.extra.get("session")
        if not isinstance(info, dict) and seat_bots is not None:
            if len(seat_bots) != len(loaded.players):
                raise TableError(f"its {len(loaded.players)} players need "
                                 f"{len(loaded.players)} seats, not {len(seat_bots)}")
            if seed is None:
                raise ValueError("seats for a record without a session need a seed")
            info = {"seed": seed, "bots": list(seat_bots), "decisions": 0}
        if not isinstance(info, dict):
            raise TableError("it was not saved by minodice play (no session data), so it "
                             "does not say who plays which seat")
        seed, bots = info.get("seed"), info.get("bots")
        if (not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(bots, list)
                or len(bots) != len(loaded.players)
                or not all(b is None or isinstance(b, str) for b in bots)):
            raise TableError("its session data is damaged")
        outside = [b for b in bots if b is not None and b not in BUILTIN_BOTS]
        if outside and not trust_bots:
            raise TableError(f"it names an outside bot ({outside[0]}), which is code; "
                             "continue only if you trust the file, with --trust-bots")
        seats = [SeatSpec(name, bot) for name, bot in zip(loaded.players, bots, strict=True)]
        bot_seed = info.get("bot_seed", str(seed))
        table = cls(loaded.state.config, seats, chance or SeededChance(seed),
                    bot_seed if isinstance(bot_seed, str) else str(seed),
                    {k: v for k, v in loaded.extra.items()
                     if k != "session" and (seat_bots is None or k not in _FROM_ITS_DICE)})
        table._state = loaded.state
        table.notes = loaded.notes
        table.started = True
        decisions = info.get("decisions", 0)
        table._decisions = decisions if isinstance(decisions, int) else 0
        for name in {b for b in bots if b is not None}:
            try:
                make_bot(name)
            except BotError as exc:
                raise TableError(str(exc)) from None
        secret = info.get("bids")
        state = table._state
        if isinstance(secret, list) and state.phase is Phase.BID and len(secret) == state.n:
            for seat, bid in enumerate(secret):
                if isinstance(bid, int) and not isinstance(bid, bool):
                    try:
                        state.apply(Bid(bid), seat=seat)
                    except ValueError:
                        raise TableError("its session data is damaged (a secret bid "
                                         "breaks R6)") from None
        table._deal_pending()
        return table

    def replay(self, events: Sequence[Event]) -> None:
        """Bring a new table to where a log of its primary events left it.

        Decisions are applied again; chance outcomes are drawn again from this table's
        own source and must equal the logged ones (a fair stream checks itself this way).
        """
        expected = [e for e in events if isinstance(e, PRIMARY)]
        produced: list[Event] = []
        for event in expected:
            if isinstance(event, Dealt):
                if not produced:
                    produced.extend(e for e in self.start() if isinstance(e, PRIMARY))
            elif isinstance(event, BidMade):
                produced.extend(e for e in self.act(event.seat, Bid(event.bid))
                                if isinstance(e, PRIMARY))
            elif isinstance(event, Rolled):
                action = Roll(self.config.dice_set.kind(event.kind))
                produced.extend(e for e in self.act(event.seat, action)
                                if isinstance(e, PRIMARY))
        if produced != expected:
            where = next((i for i, (a, b) in enumerate(zip(produced, expected, strict=False))
                          if a != b), min(len(produced), len(expected)))
            raise ReplayError(f"logged event {where + 1} does not follow from the table: "
                              f"{expected[where] if where < len(expected) else 'missing'}")


def event_to_json(event: Event) -> dict[str, Any]:
    """A primary event as the JSON a table's log stores."""
    if isinstance(event, Dealt):
        return {"type": "deal", "round": event.round_no, "hands": [list(h) for h in event.hands]}
    if isinstance(event, BidMade):
        return {"type": "bid", "seat": event.seat, "bid": event.bid}
    if isinstance(event, Rolled):
        return {"type": "roll", "seat": event.seat, "die": event.kind, "face": event.face}
    raise ValueError(f"not a primary event: {event!r}")


def event_from_json(data: dict[str, Any]) -> Event:
    kind = data.get("type")
    if kind == "deal":
        return Dealt(int(data["round"]), tuple(tuple(str(k) for k in h) for h in data["hands"]))
    if kind == "bid":
        return BidMade(int(data["seat"]), int(data["bid"]))
    if kind == "roll":
        return Rolled(int(data["seat"]), str(data["die"]), str(data["face"]))
    raise ValueError(f"not a logged event: {data!r}")


BOT_NAMES = ("Ariadne", "Theseus", "Minos", "Daedalus", "Icarus", "Pasiphae")


def new_table(
    players: int = 4,
    humans: Sequence[str] = ("You",),
    bots: Sequence[str] = ("easy",),
    edition: str = "mino",
    variant: str = "standard",
    seed: int = 0,
    first_starter: int | None = None,
    options: RuleOptions = DEFAULT_RULE_OPTIONS,
) -> Table:
    """A local game, started: people first, then bots (cycling through ``bots``)."""
    if not 3 <= players <= 6:
        raise TableError(f"Mino Dice is for 3 to 6 players, not {players}")
    if len(humans) > players:
        raise TableError(f"{len(humans)} people for {players} seats")
    if not bots and len(humans) < players:
        raise TableError("no bot to fill the empty seats")
    names = list(humans)
    seats = [SeatSpec(n) for n in names]
    spare = [n for n in BOT_NAMES if n not in names]
    for i in range(players - len(names)):
        seats.append(SeatSpec(spare[i], bots[i % len(bots)]))
    starter = _starter(seed, players) if first_starter is None else first_starter
    config = GameConfig(players, load_dice_set(edition), Variant(variant), starter, options)
    table = Table(config, seats, SeededChance(seed), str(seed))
    table.start()
    return table


def _starter(seed: int, players: int) -> int:
    return random.Random(f"minodice-play:{seed}:starter").randrange(players)


def another_game(table: Table, seed: int) -> Table:
    """A new local game at ``table``'s seats (the same people and bots, edition and
    variant and rule options), dealt from ``seed``, with the start player drawn from it as
    well."""
    config = GameConfig(table.players, table.config.dice_set, table.config.variant,
                        _starter(seed, table.players), table.config.options)
    game = Table(config, list(table.seats), SeededChance(seed), str(seed))
    game.start()
    return game
