"""Ctrl-C while the command is still starting: it ends at once, with status 130 and without
a traceback.

Importing the commands and building their options takes a second on a busy machine, and
a KeyboardInterrupt raised meanwhile printed a traceback of whichever import it hit. Until
a command runs (:func:`commands_take_interrupts`, called before each), Ctrl-C ends the
program at once; from then on each command answers it its own way.
"""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    os._exit(130)  # nothing is open yet that would need closing


def quiet_interrupts() -> None:
    """Ctrl-C ends the program at once from here, where it would raise KeyboardInterrupt:
    in the main thread, and not where it is ignored (a job started in the background)."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        signal.signal(signal.SIGINT, _interrupted_while_starting)


def commands_take_interrupts() -> None:
    """Ctrl-C raises KeyboardInterrupt again, as a command expects."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is _interrupted_while_starting):
        signal.signal(signal.SIGINT, signal.default_int_handler)
