"""Outside bots that leave a trace, so that a test sees what they did without a clock.

Each appends a word a line to the file named by ``MINODICE_TEST_TRACE`` (when it is set;
worker and bot processes inherit it).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Sequence

from minodice.core.actions import Action
from minodice.core.view import SeatView


def _trace(word: str) -> None:
    where = os.environ.get("MINODICE_TEST_TRACE")
    if where:
        with open(where, "a", encoding="utf-8") as fh:
            fh.write(word + "\n")


class TracedSlowBot:
    """Writes ``start``, sleeps 5 s, writes ``end`` and answers: a bot stopped at its time
    limit leaves a ``start`` with no ``end``; one that was waited for leaves both."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        _trace("start")
        time.sleep(5)
        _trace("end")
        return legal[0]
