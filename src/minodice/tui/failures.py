"""When something fails at the table: a bot's own failure, or a bug in minodice.

An outside bot is someone else's code: whatever its ``act`` raises is its failure (the bot
runners' one guard, :mod:`minodice.play.runners`, makes it a ``BotError`` naming it), and
the table says so.
Anything else that goes wrong while a bot decides is a bug of ours: its traceback goes to
a log file (:func:`write_crash_log`), and the person is told where.
"""

from __future__ import annotations

import tempfile
import time
import traceback
from pathlib import Path

from minodice.core.record import dumps_record
from minodice.play.table import Table


def write_crash_log(exc: BaseException, game: Path | None, table: Table) -> Path | None:
    """The traceback of a bug in a new log file beside the game (else in the temporary
    folder), with what is needed to reproduce it; ``None`` if no log could be written."""
    from minodice import __version__

    text = "".join([
        f"minodice {__version__}, {time.strftime('%Y-%m-%d %H:%M:%S')}\n",
        f"game file: {game}\n" if game else "",
        "\n", *traceback.format_exception(exc), "\n",
        "table snapshot:\n", dumps_record(table.snapshot()),
    ])
    folders = ([game.parent] if game else []) + [Path(tempfile.gettempdir())]
    for folder in folders:
        try:
            fd, name = tempfile.mkstemp(dir=folder, prefix="minodice-error-", suffix=".log")
            with open(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError:
            continue
        return Path(name)
    return None
