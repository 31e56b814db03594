"""Reading a person's text file, with one plain sentence for whatever goes wrong; and the
lock that keeps a file to one process (a saved game, a server's database).

What is read is capped (:data:`MAX_RECORD_BYTES`): a record is a few kilobytes, and
``minodice replay /dev/zero`` must end with an error, not with all the memory there is.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
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


class UnreadableError(ValueError):
    """Nothing was read (no such file, a folder, no permission), as against a file read
    whose text is no record (not UTF-8, too large): a reader may say the two apart."""


def read_text(path: Path, limit: int = MAX_RECORD_BYTES) -> str:
    """The file's UTF-8 text; ``ValueError`` with a one-line reason if it cannot be read
    (:class:`UnreadableError` where the file could not be opened or read at all)."""
    try:
        with _open_without_waiting(path) as fh:
            return read_capped(fh, path, limit)
    except FileNotFoundError:
        raise UnreadableError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise UnreadableError(f"cannot read {path}: it is a folder") from None
    except MemoryError:
        raise _too_big(path, limit) from None
    except OSError as exc:
        raise UnreadableError(f"cannot read {path}: {exc.strerror}") from None


# -- one process at a time ---------------------------------------------------------------------


class LockHeldError(Exception):
    """Another process holds the lock; ``holder`` is its process id, if it wrote one."""

    def __init__(self, path: Path, holder: int | None) -> None:
        super().__init__(f"{path} is held by process {holder}")
        self.path = path
        self.holder = holder


if sys.platform == "win32":  # pragma: no cover - no flock; one process is trusted
    def _try_lock(fd: int) -> bool:
        return True
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


class FileLock:
    """An exclusive lock (``flock``) on the file ``path``, which holds the owner's process
    id while it is held and is removed as it is let go. The operating system lets go of it
    when its process ends however it ends (``kill -9`` included): a stale file is taken."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd: int | None = fd

    @classmethod
    def take(cls, path: Path) -> FileLock:
        """The lock, or :class:`LockHeldError`; ``OSError`` where the file cannot be made."""
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
            if not _try_lock(fd):
                holder = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                raise LockHeldError(path, int(holder) if holder.isdigit() else None)
            # The holder before us removes the file as it lets go: make sure we locked the
            # file that has the name now, not one removed in between.
            try:
                now = os.stat(path)
                mine = os.fstat(fd)
                same = (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        return cls(path, fd)

    def release(self) -> None:
        if self.fd is None:
            return
        with suppress(OSError):
            os.unlink(self.path)  # while still locked: nobody can take it in between
        os.close(self.fd)
        self.fd = None
