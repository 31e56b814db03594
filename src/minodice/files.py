"""Reading a person's text file, with one plain sentence for whatever goes wrong.

What is read is capped (:data:`MAX_RECORD_BYTES`): a record is a few kilobytes, and
``minodice replay /dev/zero`` must end with an error, not with all the memory there is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

#: The most a record may hold; the longest game's record is about 20 KB.
MAX_RECORD_BYTES = 16 * 1024 * 1024


def _too_big(where: object, limit: int) -> ValueError:
    return ValueError(f"cannot read {where}: larger than {limit // (1024 * 1024)} MB, "
                      "far more than any game record")


def read_capped(stream: BinaryIO, where: object, limit: int = MAX_RECORD_BYTES) -> str:
    """At most ``limit`` bytes of ``stream`` as UTF-8 text; ``ValueError`` with a one-line
    reason (naming ``where``) if there is more or it is not UTF-8."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise _too_big(where, limit)
    try:
        # A byte-order mark is left for the reader of the text (a record's reader drops
        # one): dropped here too, a file that starts with two would pass for one.
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"cannot read {where}: not UTF-8 text") from None


def _open_without_waiting(path: Path) -> BinaryIO:
    """``path`` opened for reading. A named pipe nobody writes to would make a plain open
    wait for a writer for ever; opened without waiting, it reads as empty instead, while a
    pipe with a writer (``minodice replay <(...)``, ``/dev/stdin``) reads as usual."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # reads wait for the writer's data, as usual
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(path: Path, limit: int = MAX_RECORD_BYTES) -> str:
    """The file's UTF-8 text; ``ValueError`` with a one-line reason if it cannot be read."""
    try:
        with _open_without_waiting(path) as fh:
            return read_capped(fh, path, limit)
    except FileNotFoundError:
        raise ValueError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"cannot read {path}: it is a folder") from None
    except MemoryError:
        raise _too_big(path, limit) from None
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
