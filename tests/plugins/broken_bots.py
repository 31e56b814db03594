"""Misbehaving outside bots for the error-handling tests (none of them fails on import)."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Sequence
from typing import Any

from minodice.core.actions import Action, Bid
from minodice.core.dice import load_dice_set
from minodice.core.view import SeatView


class RaisingBot:
    """Raises in ``act``."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        raise RuntimeError("the raising bot gives up")


class IllegalBot:
    """Returns a well-formed action that is never legal (a bid far above the round)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return Bid(99)


class IllegalRollBot:
    """Bids legally, then rolls a die kind it does not hold (the minotaur, if it can)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if isinstance(legal[0], Bid):
            return legal[0]
        from minodice.core.actions import Roll
        held = {a.kind.name for a in legal if isinstance(a, Roll)}
        for kind in view.dice_set.kinds:
            if kind.name not in held:
                return Roll(kind)
        return Roll(load_dice_set("skull-king").kinds[0])


class NonActionBot:
    """Returns something that is not an action at all."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Any:
        return "bid 1"


class SlowBot:
    """Sleeps far longer than any time limit the tests set."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        time.sleep(5)
        return legal[0]


class SwallowingSlowBot:
    """Slow on its first decision, and its ``except Exception`` swallows whatever interrupts
    it (as careless bot code does); it answers after about 3 s, far over the limit."""

    def __init__(self) -> None:
        self.first = True

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if self.first:
            self.first = False
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline:
                with contextlib.suppress(Exception):  # careless on purpose
                    time.sleep(0.05)
        return legal[0]


class BrokenInitBot:
    """Its constructor raises."""

    def __init__(self) -> None:
        raise ValueError("the broken bot cannot start")

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[0]


class NoActBot:
    """Has no ``act`` method."""

    def play(self) -> None:
        return None


NOT_A_CLASS = 42


class ExitingBot:
    """Calls ``sys.exit(0)`` in ``act``, as a script-minded bot might."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import sys
        sys.exit(0)


class KillerBot:
    """Ends its own process abruptly (as a crash in native code would)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import os
        os._exit(3)
