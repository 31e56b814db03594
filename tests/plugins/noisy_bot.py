"""An outside bot that talks: it prints when imported, when made and at every decision,
on standard output and error, through ``sys.stdout`` and straight to file descriptor 1."""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Sequence

from minodice.core.actions import Action
from minodice.core.view import SeatView

print("noisy_bot imported")


class NoisyBot:
    def __init__(self) -> None:
        print("NoisyBot made")

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        print(f"thinking about {len(legal)} actions")
        print("to stderr", file=sys.stderr)
        os.write(1, b"straight to fd 1\n")
        return legal[0]
