"""One game between bots: seats, seeded randomness, decision clocks and misbehaviour.

Randomness is split so that games can be *duplicated*: the chance events of a deal come
from generators seeded by the deal alone — one for each round's draws and one for each
round's rolls — so that the same dice are drawn, and the k-th roll of a round gets the same
luck, whichever bots sit where. Each bot gets a generator of its own.

A bot that raises, returns an illegal action or takes longer than the time limit for one
decision stops the game with a :class:`~minodice.bots.protocol.BotError` naming it.

Outside bots play in processes of their own (:mod:`minodice.bots.sandbox`), which get each
decision's view and nothing else; their clock is kept here, in the parent, and their
processes end with the game. Our own bots play in this process, timed by a Unix timer.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from minodice.bots.protocol import Bot, BotError
from minodice.bots.sandbox import SandboxedBot, prewarm
from minodice.core.actions import Bid, Roll
from minodice.core.errors import IllegalActionError
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState
from minodice.core.view import view


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


class _DecisionTimeoutError(BaseException):
    """Raised inside a bot that overran its time. A BaseException, so that a bot's own
    ``except Exception`` cannot swallow it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise _DecisionTimeoutError


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block after ``seconds`` (Unix timers; a no-op where unavailable)."""
    if not seconds or not hasattr(signal, "setitimer"):
        yield
        return
    try:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
    except ValueError:  # not the main thread: no timers there
        yield
        return
    # Fires again every ``seconds`` until the block ends, in case a bot swallows it anyway.
    signal.setitimer(signal.ITIMER_REAL, seconds, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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


def _play(
    config: GameConfig,
    bots: Sequence[Bot],
    names: Sequence[str],
    seed: int,
    deal: int,
    bot_seed: str,
    time_limit: float | None,
) -> tuple[GameState, list[list[float]]]:
    state = GameState(config)
    rngs = [random.Random(f"minodice-bot:{bot_seed}:{seat}") for seat in range(config.players)]
    times: list[list[float]] = [[] for _ in range(config.players)]
    draw_rng = roll_rng = random.Random(0)
    current_round = 0
    while state.current_player != TERMINAL:
        player = state.current_player
        if state.round_no != current_round:
            current_round = state.round_no
            draw_rng = deal_rng(seed, deal, "draw", current_round)
            roll_rng = deal_rng(seed, deal, "roll", current_round)
        if player == CHANCE:
            rng = roll_rng if state.pending_roll is not None else draw_rng
            state.apply_chance(state.sample_chance(rng))
            continue
        legal = state.legal_actions(player)
        seat_view = view(state, player)
        name = names[player]
        bot = bots[player]
        start = time.perf_counter()
        try:
            if isinstance(bot, SandboxedBot):  # its own process, our clock
                action = bot.decide(seat_view, legal, rngs[player], time_limit)
            else:
                with _time_limit(time_limit):
                    action = bot.act(seat_view, legal, rngs[player])
        except _DecisionTimeoutError:
            raise BotError(f"bot {name!r} (seat {player + 1}) took longer than "
                           f"{time_limit:g} s for one decision") from None
        except BotError:
            raise
        except (Exception, SystemExit) as exc:
            what = "tried to exit" if isinstance(exc, SystemExit) else (
                f"raised {type(exc).__name__}: {exc}")
            raise BotError(f"bot {name!r} (seat {player + 1}) {what}") from None
        elapsed = time.perf_counter() - start
        if time_limit and elapsed > time_limit:
            raise BotError(f"bot {name!r} (seat {player + 1}) took {elapsed:.2f} s for one "
                           f"decision (limit {time_limit:g} s)")
        times[player].append(elapsed)
        if not isinstance(action, Bid | Roll) or action not in legal:
            shown = ", ".join(str(a) for a in legal)
            raise BotError(f"bot {name!r} (seat {player + 1}) returned {action!r}, "
                           f"which is not legal here (legal: {shown})")
        try:
            state.apply(action, seat=player)
        except IllegalActionError as exc:  # cannot happen for an action in legal
            raise BotError(f"bot {name!r} (seat {player + 1}): {exc}") from None
    return state, times


def made_by_round(state: GameState) -> list[list[bool]]:
    """Per seat, per finished round: was the bid exactly right?"""
    return [
        [log.winners.count(seat) == log.bids[seat]
         for log in state.rounds if log.bids is not None and log.points is not None]
        for seat in range(state.n)
    ]
