"""One game between bots, for tournaments: seats, seeded randomness and duplicate deals.

The game is played by the one :class:`~minodice.play.driver.Driver` every front end uses,
synchronously (only bots are asked); what is particular to tournaments is where chance and
the bots' generators come from.

Randomness is split so that games can be *duplicated*: the chance events of a deal come
from generators seeded by the deal alone — one for each round's draws and one for each
round's rolls (:class:`DealChance`, ``minodice-deal:SEED:DEAL:draw|roll:ROUND``) — so that
the same dice are drawn, and the k-th roll of a round gets the same luck, whichever bots sit
where. A table's own :class:`~minodice.play.table.SeededChance` (``minodice-play:``) seeds
each roll by its place instead, which resumes a saved game exactly but would not give
rotated seats the same luck; tournament results for a seed are fixed by this scheme, so it
stays. Each bot gets a generator of its own for the whole game (``minodice-bot:``).

A bot that raises, returns an illegal action or takes longer than the time limit for one
decision stops the game with a :class:`~minodice.bots.protocol.BotError` naming it (the
runners' one guard, :mod:`minodice.play.runners`).

Outside bots play in processes of their own (:mod:`minodice.bots.sandbox`), which get each
decision's view and nothing else; their clock is kept here, in the parent, and their
processes end with the game. Our own bots play in this process, timed by a Unix timer.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from minodice.bots.protocol import Bot, BotError
from minodice.bots.sandbox import SandboxedBot, prewarm
from minodice.core.dice import Face, Hand
from minodice.core.state import GameConfig, GameState
from minodice.play.driver import BotDecided, Driver, DriverEvent, seat_rngs
from minodice.play.runners import BotRunner, InProcessRunner, PerSeatRunner, SandboxRunner
from minodice.play.table import SeatSpec, Table, draw_hands, draw_into


@dataclass
class GameResult:
    """What a tournament needs of one finished game."""

    index: int
    seat_bots: list[str]
    totals: list[int]
    winners: list[int]
    bids_made: list[int]
    bids: list[int]
    decision_seconds: list[list[float]] = field(default_factory=list)
    made_by_round: list[list[bool]] = field(default_factory=list)  # per seat, per round
    record: dict[str, Any] | None = None


def distinct_names(seat_bots: list[str]) -> list[str]:
    """The seats' names for a record: the bot's, with the seat's number where two seats
    play the same bot (``easy (1)``, ``easy (3)``).

    >>> distinct_names(["easy", "hard", "easy"])
    ['easy (1)', 'hard', 'easy (3)']

    A name is Unicode text, as a record needs: a byte of a bot's file name that is no
    UTF-8 (read as a lone surrogate) shows as U+FFFD.

    >>> distinct_names(["bots/b" + chr(0xDCFF) + ".py:Bot", "easy", "easy"])
    ['bots/b\ufffd.py:Bot', 'easy (2)', 'easy (3)']
    """
    names = [_as_text(bot) for bot in seat_bots]
    return [f"{name} ({seat + 1})" if names.count(name) > 1 else name
            for seat, name in enumerate(names)]


def _as_text(name: str) -> str:
    """``name`` with what UTF-8 cannot write (lone surrogates) as U+FFFD."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        escaped = all("\udc80" <= c <= "\udcff" for c in name if "\ud800" <= c <= "\udfff")
        handler = "surrogateescape" if escaped else "surrogatepass"
        return name.encode("utf-8", handler).decode("utf-8", "replace")
    return name


def deal_rng(seed: int, deal: int, what: str, round_no: int) -> random.Random:
    """The generator of one kind of chance event of one round of one deal."""
    return random.Random(f"minodice-deal:{seed}:{deal}:{what}:{round_no}")


def play_bot_game(
    config: GameConfig,
    bots: Sequence[Bot],
    names: Sequence[str],
    seed: int,
    deal: int,
    bot_seed: str,
    time_limit: float | None = None,
) -> tuple[GameState, list[list[float]]]:
    """Play one game; returns the final state and each seat's decision times (seconds).

    ``bots`` are for this game only: the processes of outside bots end with it. While it
    plays, as many fresh processes start for the next game's outside bots.
    """
    outside: dict[str, int] = {}
    for bot in bots:
        if isinstance(bot, SandboxedBot):
            outside[bot.spec] = outside.get(bot.spec, 0) + 1
    for spec, count in outside.items():
        prewarm(spec, count)
    try:
        return _play(config, bots, names, seed, deal, bot_seed, time_limit)
    finally:
        for bot in bots:
            if isinstance(bot, SandboxedBot):
                bot.close()


class DealChance:
    """A tournament deal's chance (see the module docstring): the draws of round R from
    ``minodice-deal:SEED:DEAL:draw:R``, its rolls one after another from
    ``minodice-deal:SEED:DEAL:roll:R``. Holds the round's roll generator: a table with this
    source is played through, not saved and resumed mid-round."""

    def __init__(self, seed: int, deal: int) -> None:
        self.seed = seed
        self.deal_no = deal
        self._round = -1
        self._rolls = random.Random(0)

    def deal(self, state: GameState) -> list[Hand]:
        return draw_hands(state, deal_rng(self.seed, self.deal_no, "draw", state.round_no))

    def deal_into(self, state: GameState) -> list[Hand]:
        return draw_into(state, deal_rng(self.seed, self.deal_no, "draw", state.round_no))

    def roll(self, state: GameState) -> Face:
        if state.round_no != self._round:
            self._round = state.round_no
            self._rolls = deal_rng(self.seed, self.deal_no, "roll", state.round_no)
        face = state.sample_chance(self._rolls)
        assert isinstance(face, Face)
        return face

    def to_json(self) -> dict[str, Any]:
        return {"scheme": "minodice-deal", "seed": self.seed, "deal": self.deal_no}

    def fork(self) -> DealChance:
        other = copy.copy(self)
        other._rolls = copy.deepcopy(self._rolls)
        return other


def bot_table(config: GameConfig, names: Sequence[str], seed: int, deal: int) -> Table:
    """A table of bots named ``names`` (a bot's name is its spec; two seats may have the
    same bot, so a seat's name gets its number when needed), dealt by :class:`DealChance`."""
    seats = [SeatSpec(name if names.count(name) == 1 else f"{name} ({seat + 1})", name)
             for seat, name in enumerate(names)]
    return Table(config, seats, DealChance(seed, deal), str(seed))


def _play(
    config: GameConfig,
    bots: Sequence[Bot],
    names: Sequence[str],
    seed: int,
    deal: int,
    bot_seed: str,
    time_limit: float | None,
) -> tuple[GameState, list[list[float]]]:
    table = bot_table(config, names, seed, deal)
    inside = InProcessRunner({(seat, names[seat]): bot for seat, bot in enumerate(bots)
                              if not isinstance(bot, SandboxedBot)})
    outside: dict[int, BotRunner] = {
        seat: SandboxRunner({(seat, names[seat]): bot})
        for seat, bot in enumerate(bots) if isinstance(bot, SandboxedBot)}
    times: list[list[float]] = [[] for _ in range(config.players)]

    def timed(event: DriverEvent) -> None:
        if isinstance(event, BotDecided):
            times[event.seat].append(event.seconds)

    driver = Driver(table, PerSeatRunner(outside, inside), time_limit=time_limit,
                    bot_rng=seat_rngs(bot_seed, config.players), listeners=[timed])
    try:
        driver.run()
    except BotError as error:  # the game up to the failing decision, for the bot's author
        error.game_so_far = table.game_state()
        raise
    return table.game_state(), times


def made_by_round(state: GameState) -> list[list[bool]]:
    """Per seat, per finished round: was the bid exactly right?"""
    return [
        [log.winners.count(seat) == log.bids[seat]
         for log in state.rounds if log.bids is not None and log.points is not None]
        for seat in range(state.n)
    ]
