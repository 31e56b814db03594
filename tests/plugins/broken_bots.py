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


class HangingBot:
    """Writes its process id to the file named by ``MINODICE_TEST_PIDFILE`` (when it is
    set), then sleeps an hour: a test sees whether the process was stopped, not how long
    that took."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import os
        where = os.environ.get("MINODICE_TEST_PIDFILE")
        if where:
            with open(where + ".part", "w") as fh:
                fh.write(str(os.getpid()))
            os.replace(where + ".part", where)  # whole, or not there yet
        time.sleep(3600)
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


class AbruptBot:
    """Ends its process with ``os._exit(1)``: the status a failed command returns anyway."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import os
        os._exit(1)


class InterruptingBot:
    """Raises ``KeyboardInterrupt`` in ``act``, as if someone had pressed Ctrl-C."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        raise KeyboardInterrupt


class HangingInitBot:
    """Its constructor never returns."""

    def __init__(self) -> None:
        time.sleep(3600)

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[0]


class ChildSpawningSlowBot:
    """Starts a process of its own that holds the bot's pipes open, then sleeps: stopping
    it must stop that process too (it would sleep 5 minutes)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import os
        import subprocess
        import sys
        # longer than the test waits for it to end (60 s): it must be killed
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                                 close_fds=False)
        where = os.environ.get("MINODICE_TEST_PIDFILE")
        if where:
            with open(where + ".part", "w") as fh:
                fh.write(str(child.pid))
            os.replace(where + ".part", where)  # whole, or not there yet
        time.sleep(30)
        return legal[0]


class SessionEscapingSlowBot:
    """Starts a process in a session of its own through a parent that exits at once (a
    daemon's double fork: out of the bot's process group, and an orphan), then sleeps:
    stopping the bot must stop that process too."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import os
        import subprocess
        import sys
        where = os.environ.get("MINODICE_TEST_PIDFILE", os.devnull)
        starter = ("import os, subprocess, sys\n"
                   "child = subprocess.Popen([sys.executable, '-c', 'import time; "
                   "time.sleep(300)'], start_new_session=True)\n"
                   "with open(sys.argv[1] + '.part', 'w') as fh: fh.write(str(child.pid))\n"
                   "os.replace(sys.argv[1] + '.part', sys.argv[1])\n")
        subprocess.run([sys.executable, "-c", starter, where], check=True)
        time.sleep(30)
        return legal[0]


class FloodingBot:
    """Writes a megabyte without a line break into every pipe of its process it can, the
    answer pipe included, then answers."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import os
        for fd in range(3, 64):
            with contextlib.suppress(OSError):
                os.write(fd, b"x" * (1 << 20))
        return legal[0]


class TalkingRaisingBot:
    """Prints at each decision (output, error, and a colour escape), raises at its third."""

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import sys
        self.decisions += 1
        print(f"decision {self.decisions}: {len(legal)} legal")
        print(f"\x1b[31mwarned {self.decisions}\x1b[0m", file=sys.stderr, flush=True)
        if self.decisions == 3:
            raise RuntimeError("the talking bot gives up")
        return legal[0]


class LoudBot:
    """Prints 300 KB of lines at every decision (more than a pipe holds), then plays."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        print("all work and no play\n" * 15000, flush=True)
        return legal[0]


# -- bots that cheat: each raises if the cheat worked, so a finished game means it failed --


def _found(what: str) -> None:
    raise RuntimeError(f"cheated: {what}")


class StateSnoopingBot:
    """Looks for the full game state (and anything holding the tournament's seed) on the
    call stack and among every object of its process; plays the first legal action."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        import gc
        import inspect

        from minodice.core.state import GameState

        wanted = ("GameState", "Table", "TournamentSpec", "GameConfig", "_DealTally")
        frame = inspect.currentframe()
        while frame is not None:
            for name, value in frame.f_locals.items():
                if type(value).__name__ in wanted or name in ("state", "seed", "seeds"):
                    _found(f"{type(value).__name__} {name!r} in {frame.f_code.co_name}")
            frame = frame.f_back
        for obj in gc.get_objects():
            if isinstance(obj, GameState) or type(obj).__name__ in wanted:
                _found(f"a {type(obj).__name__} among the objects")
        return legal[0]


class TableTamperingBot:
    """Rewrites the engine's legal-move tables kept on its view's dice set (every table
    entry cut to its first choice, so that every seat may roll only one die); plays the
    first legal action."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        kept = view.dice_set.engine_tables
        for tables in kept.values() if isinstance(kept, dict) else ():
            for name in dir(tables):
                value = getattr(tables, name, None)
                if isinstance(value, dict):
                    for key, entry in list(value.items()):
                        if isinstance(entry, tuple):
                            value[key] = entry[:1]
        return legal[0]


class FirstActionBot:
    """Always the first legal action (what the tampering bot plays, without tampering)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[0]


class SeedGuessingBot:
    """Tries small tournament seeds against its own generator, which is seeded by the
    seed, the game and the seat: found, every deal of the tournament can be rebuilt."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        mine = rng.getstate()
        for seed in range(4):
            for game in range(16):
                for seat in range(6):
                    guess = random.Random(f"minodice-bot:{seed}:{game}:{seat}")
                    if guess.getstate() == mine:
                        _found(f"the tournament seed is {seed} (game {game}, seat {seat})")
        return legal[0]


class RandomLegalBot:
    """Plays like the built-in ``random`` bot, with the generator it is given (the same
    draws in its own process as in ours)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[int(rng.random() * len(legal))]


class StoredRngBot:
    """Keeps the generator of its first decision and draws from that one ever after."""

    def __init__(self) -> None:
        self.rng: random.Random | None = None

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if self.rng is None:
            self.rng = rng
        return legal[int(self.rng.random() * len(legal))]
