"""A game played by people and bots, as the terminal (and later the browser) runs it.

The session owns the randomness (seeded, so a seed reproduces a game), asks bots for
their decisions, applies people's, rolls the dice, and reports what happened as
:class:`Event` values a screen can show one by one. It saves the game as a record whose
extra ``"session"`` key holds the seats and the seed, so that a saved game resumes
*exactly*: every chance event and every bot decision draws from a generator seeded by
its place in the game (round, roll number, decision number), not from a stream that
would have to be replayed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minodice.bots.protocol import BUILTIN_BOTS, Bot, BotError, make_bot
from minodice.core.actions import Action, Bid, Roll
from minodice.core.dice import Face, load_dice_set
from minodice.core.errors import InvalidRecordError
from minodice.core.record import dumps_record, export_record, parse_record
from minodice.core.rules import TrickResult, Variant, resolve_trick
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState, Phase
from minodice.core.view import SeatView, view
from minodice.files import read_text


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in a seat: a person (``bot`` is None) or a bot given by its spec."""

    name: str
    bot: str | None = None

    @property
    def is_human(self) -> bool:
        return self.bot is None


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
class BidsRevealed:
    bids: tuple[int, ...]


@dataclass(frozen=True)
class RoundScored:
    round_no: int


@dataclass(frozen=True)
class RoundStarted:
    round_no: int


@dataclass(frozen=True)
class GameOver:
    winners: tuple[int, ...]


Event = Rolled | TrickWon | BidsRevealed | RoundScored | RoundStarted | GameOver


class SessionError(ValueError):
    """A saved game that cannot be resumed, or a wrong set-up; the message says why."""


class Session:
    """One game at the table (see the module docstring)."""

    def __init__(self, config: GameConfig, seats: Sequence[SeatSpec], seed: int) -> None:
        if len(seats) != config.players:
            raise SessionError(f"{config.players} seats needed, {len(seats)} given")
        self.config = config
        self.seats = list(seats)
        self.seed = seed
        self.state = GameState(config)
        self.bots: dict[int, Bot] = {
            i: make_bot(s.bot) for i, s in enumerate(self.seats) if s.bot is not None}
        self._decisions = 0
        self.extra: dict[str, Any] = {}  # a resumed record's other keys, written back as read
        self.draw_pending_round()

    # -- set-up and saving -------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.seats]

    @property
    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.is_human]

    def record(self) -> dict[str, Any]:
        extra = dict(self.extra)
        extra["session"] = {
            "seed": self.seed,
            "bots": [s.bot for s in self.seats],
            "decisions": self._decisions,
        }
        return export_record(self.state, self.names, extra)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(dumps_record(self.record()), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def resume(cls, path: Path, trust_bots: bool = False) -> Session:
        """Continue a saved game exactly where it stopped.

        Only the built-in bots are loaded from a record: a record may come from anyone,
        and an outside bot (``file.py:Class``) is code. ``trust_bots`` allows them.
        """
        try:
            text = read_text(path)
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        try:
            loaded = parse_record(text)
        except InvalidRecordError as exc:
            raise SessionError(f"{path} is not a valid game record: {exc}") from None
        if loaded.state.is_terminal():
            raise SessionError(f"{path} is a finished game; show it with: minodice replay "
                               f"{path}")
        info = loaded.extra.get("session")
        if not isinstance(info, dict):
            raise SessionError(f"{path} was not saved by minodice play (no session data), "
                               "so it does not say who plays which seat")
        seed = info.get("seed")
        bots = info.get("bots")
        if (not isinstance(seed, int) or isinstance(seed, bool) or not isinstance(bots, list)
                or len(bots) != len(loaded.players)
                or not all(b is None or isinstance(b, str) for b in bots)):
            raise SessionError(f"{path}: its session data is damaged")
        outside = [b for b in bots if b is not None and b not in BUILTIN_BOTS]
        if outside and not trust_bots:
            raise SessionError(
                f"{path} names an outside bot ({outside[0]}), which is code; continue only "
                "if you trust the file, with --trust-bots")
        seats = [SeatSpec(name, bot) for name, bot in zip(loaded.players, bots, strict=True)]
        session = cls.__new__(cls)
        session.config = loaded.state.config
        session.seats = seats
        session.seed = seed
        session.state = loaded.state
        try:
            session.bots = {i: make_bot(s.bot) for i, s in enumerate(seats) if s.bot is not None}
        except BotError as exc:
            raise SessionError(f"{path}: {exc}") from None
        session.extra = {k: v for k, v in loaded.extra.items() if k != "session"}
        decisions = info.get("decisions", 0)
        session._decisions = decisions if isinstance(decisions, int) else 0
        session.draw_pending_round()
        return session

    # -- randomness ----------------------------------------------------------------------

    def _rng(self, *where: object) -> random.Random:
        return random.Random(":".join(["minodice-play", str(self.seed), *map(str, where)]))

    def draw_pending_round(self) -> list[Event]:
        """Draw the hands of a round that is waiting for them (chance, seeded per round)."""
        events: list[Event] = []
        state = self.state
        if state.phase is Phase.DRAW:
            rng = self._rng("draw", state.round_no)
            for _ in range(state.drawing_seat):  # seats drawn before a save: skip their draws
                state.sample_chance(rng)
            while state.phase is Phase.DRAW:
                state.apply_chance(state.sample_chance(rng))
            events.append(RoundStarted(state.round_no))
        return events

    def _roll(self) -> list[Event]:
        """Roll the chosen die; the face comes from the generator of this roll's place."""
        state = self.state
        log = state.rounds[-1]
        rolls_before = sum(len(t) for t in log.tricks)
        rng = self._rng("roll", state.round_no, rolls_before)
        pending = state.pending_roll
        assert pending is not None
        seat = state.leader + state.rolled
        seat %= state.n
        face = state.sample_chance(rng)
        assert isinstance(face, Face)
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
                events.extend(self.draw_pending_round())
        return events

    # -- decisions -----------------------------------------------------------------------

    def waiting_for(self) -> list[int]:
        """Seats whose decision the game waits for: people first while bidding."""
        state = self.state
        if state.phase is Phase.BID:
            pending = state.bidders()
            order = [(state.starter + i) % state.n for i in range(state.n)]
            return [s for s in order if s in pending]
        if state.current_player >= 0:
            return [state.current_player]
        return []

    def view_of(self, seat: int) -> SeatView:
        return view(self.state, seat)

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply ``seat``'s decision (checked by the engine) and what follows from it."""
        state = self.state
        round_no = state.round_no
        state.apply(action, seat=seat)
        self._decisions += 1
        events: list[Event] = []
        if isinstance(action, Bid) and state.round_no == round_no and state.phase is Phase.PLAY:
            log = state.rounds[-1]
            assert log.bids is not None
            events.append(BidsRevealed(tuple(log.bids)))
        if isinstance(action, Roll):
            events.extend(self._roll())
        return events

    def bot_decision(self, seat: int) -> Action:
        """Ask the bot in ``seat`` for its decision (may take a moment: run off the UI)."""
        bot = self.bots[seat]
        rng = self._rng("bot", seat, self.state.round_no, self._decisions)
        legal = self.state.legal_actions(seat)
        action = bot.act(view(self.state, seat), legal, rng)
        if action not in legal:
            raise SessionError(f"bot {self.seats[seat].bot!r} chose an illegal action {action}")
        return action

    def is_over(self) -> bool:
        return self.state.current_player == TERMINAL

    def is_chance(self) -> bool:
        return self.state.current_player == CHANCE


def new_session(
    players: int = 4,
    humans: Sequence[str] = ("You",),
    bots: Sequence[str] = ("easy",),
    edition: str = "mino",
    variant: str = "standard",
    seed: int = 0,
    first_starter: int | None = None,
) -> Session:
    """People first, then bots (cycling through ``bots``) to fill ``players`` seats."""
    if not 3 <= players <= 6:
        raise SessionError(f"Mino Dice is for 3 to 6 players, not {players}")
    if len(humans) > players:
        raise SessionError(f"{len(humans)} people for {players} seats")
    if not bots and len(humans) < players:
        raise SessionError("no bot to fill the empty seats")
    names = list(humans)
    if len(set(names)) != len(names) or any(not n.strip() for n in names):
        raise SessionError("names must be distinct and not empty")
    bot_names = ["Ariadne", "Theseus", "Minos", "Daedalus", "Icarus", "Pasiphae"]
    seats = [SeatSpec(n) for n in names]
    spare = [n for n in bot_names if n not in names]
    for i in range(players - len(names)):
        level = bots[i % len(bots)]
        seats.append(SeatSpec(spare[i], level))
    rng = random.Random(f"minodice-play:{seed}:starter")
    starter = rng.randrange(players) if first_starter is None else first_starter
    config = GameConfig(players, load_dice_set(edition), Variant(variant), starter)
    return Session(config, seats, seed)
