"""Saved games on disk, so that none is ever lost (``minodice play``, ``minodice games``).

- A new game gets a name of its own, ``game-YYYYmmdd-HHMMSS-XXXXXXXX.json`` (the time and
  a random suffix, no seed: the seed would tell the dice to come), created without
  replacing anything, so two people starting in the same second get two files.
- A session holds a lock on its game (``flock`` on ``.NAME.lock`` beside it) until it
  ends: a second session on the same file is refused with a sentence naming the first.
- Every write goes to a temporary file of its own in the same folder, is flushed to the
  disk (``fsync``), renamed over the game (``os.replace``), and then the folder is
  flushed too: a crash leaves the old game or the new one, never half a file. A write
  that fails removes its temporary file.

>>> name = new_game_name(0)
>>> name.startswith("game-") and name.endswith(".json") and len(name) == 34
True
"""

from __future__ import annotations

import errno
import os
import secrets
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from minodice.core.errors import InvalidRecordError
from minodice.core.record import dumps_record, parse_record
from minodice.files import FileLock, LockHeldError, read_text
from minodice.text.safe import one_line

if TYPE_CHECKING:
    from minodice.play.table import Table

_SUFFIX_LETTERS = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: easy to read out
_IGNORED_DIR_SYNC = {errno.EINVAL, errno.ENOTSUP, errno.EACCES, errno.EBADF}


class SaveError(Exception):
    """A game that could not be saved (or opened for saving): ``where`` and ``why``."""

    def __init__(self, where: Path, why: str, sentence: str | None = None) -> None:
        self.where = where
        self.why = why
        super().__init__(sentence or f"cannot save to {where}: {why}")


class GameInUseError(SaveError):
    """Another session holds the game."""

    def __init__(self, path: Path, holder: int | None) -> None:
        who = f" (process {holder})" if holder else ""
        super().__init__(path, "open in another session",
                         f"{path} is open in another minodice play{who}; finish or quit "
                         "that one first")
        self.holder = holder


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


# -- writing ----------------------------------------------------------------------------------


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_folder(folder: Path) -> None:
    """Flush ``folder`` itself, so that a new or renamed name in it survives a crash."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        if exc.errno in _IGNORED_DIR_SYNC:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _IGNORED_DIR_SYNC:  # some file systems cannot sync a folder
            raise
    finally:
        os.close(fd)


def _place_new(tmp: str, path: Path) -> None:
    """Give ``tmp`` the name ``path`` only if nothing has it (``FileExistsError`` if so)."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError as exc:  # a file system without hard links: claim the name, then fill it
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK,
                             errno.ENOSYS):
            raise
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.replace(tmp, path)
        return
    os.unlink(tmp)


def write_atomic(path: Path, text: str, *, replace: bool = True, private: bool = True) -> None:
    """Write ``text`` to ``path`` through a temporary file of its own in the same folder.

    ``replace=False`` never replaces an existing file (``FileExistsError``). ``private``
    files are readable by their owner only (a saved game holds secret bids); others get
    the usual permissions. Any ``OSError`` leaves ``path`` as it was and no temporary file.
    """
    folder = path.parent
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            if not private:
                os.fchmod(fh.fileno(), 0o666 & ~_umask())
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            _place_new(tmp, path)
        _sync_folder(folder)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def save_table(table: Table, path: Path) -> None:
    """Write ``table``'s snapshot (a record that resumes exactly) to ``path``, atomically.

    The snapshot holds the bids already made in a round still being bid: the file is for
    the people at this screen only (it is made readable by its owner only).
    """
    write_atomic(path, dumps_record(table.snapshot()))


def check_folder(folder: Path) -> None:
    """Make sure games can be saved in ``folder`` (made if missing), by writing a file there.

    :class:`SaveError` says where and why not.
    """
    if folder.exists() and not folder.is_dir():
        why = os.strerror(errno.ENOTDIR)
        raise SaveError(folder, why, f"cannot save games in {folder}: {why}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".minodice-probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise SaveError(folder, _why(exc),
                        f"cannot save games in {folder}: {_why(exc)}") from None


# -- one session per game ---------------------------------------------------------------------


def _take_lock(game: Path) -> FileLock:
    """The session's lock on ``game``: ``.NAME.lock`` beside it."""
    try:
        return FileLock.take(game.parent / f".{game.name}.lock")
    except LockHeldError as exc:
        raise GameInUseError(game, exc.holder) from None
    except OSError as exc:
        raise SaveError(game.parent, _why(exc),
                        f"cannot save games in {game.parent}: {_why(exc)}") from None


def new_game_name(now: float | None = None) -> str:
    """``game-YYYYmmdd-HHMMSS-XXXXXXXX.json``: the local time and 8 random letters."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if now is None else now))
    suffix = "".join(secrets.choice(_SUFFIX_LETTERS) for _ in range(8))
    return f"game-{stamp}-{suffix}.json"


class GameFile:
    """A saved game held by this session: its path and, while open, its lock."""

    def __init__(self, path: Path, lock: FileLock | None = None) -> None:
        self.path = path
        self._lock = lock

    @classmethod
    def create(cls, folder: Path, text: str) -> GameFile:
        """A new game file in ``folder`` holding ``text``, under a name no other game has."""
        check_folder(folder)
        for _ in range(100):
            path = folder / new_game_name()
            lock = _take_lock(path)
            try:
                write_atomic(path, text, replace=False)
            except FileExistsError:
                lock.release()
                continue
            except OSError as exc:
                lock.release()
                raise SaveError(path, _why(exc)) from None
            except BaseException:  # nothing written: no lock left behind to say otherwise
                lock.release()
                raise
            return cls(path, lock)
        raise SaveError(folder, "no free file name")  # pragma: no cover - 32**8 names a second

    @classmethod
    def open(cls, path: Path) -> GameFile:
        """Hold the saved game ``path`` for this session (:class:`GameInUseError` if taken)."""
        return cls(path, _take_lock(path))

    def save(self, text: str) -> None:
        """Replace the game with ``text``; :class:`SaveError` says where and why not."""
        try:
            write_atomic(self.path, text)
        except OSError as exc:
            raise SaveError(self.path, _why(exc)) from None

    def close(self) -> None:
        """Let the game go: another session may open it now."""
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> GameFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


# -- listing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedGame:
    """What ``minodice games`` shows of one file."""

    path: Path
    modified: float
    players: tuple[str, ...] = ()
    round_no: int = 0
    rounds: int = 0
    finished: bool = False
    resumable: bool = False  # saved by minodice play: it says who plays which seat
    problem: str = ""        # why the file is no game record, if it is not

    @property
    def can_continue(self) -> bool:
        return self.resumable and not self.finished and not self.problem


def read_saved_game(path: Path) -> SavedGame:
    try:
        modified = path.stat().st_mtime
    except OSError as exc:
        return SavedGame(path, 0.0, problem=_why(exc))
    try:
        loaded = parse_record(read_text(path))
    except (ValueError, InvalidRecordError) as exc:
        # one short line: the error of a broken file may quote megabytes of it
        return SavedGame(path, modified, problem=one_line(str(exc)))
    state = loaded.state
    return SavedGame(path, modified, tuple(loaded.players), state.round_no, state.n_rounds,
                     state.is_terminal(), isinstance(loaded.extra.get("session"), dict))


def list_games(folder: Path) -> list[SavedGame]:
    """The records in ``folder`` (``*.json``), newest first."""
    try:
        paths = [p for p in folder.glob("*.json") if not p.name.startswith(".")]
    except OSError:
        return []
    games = [read_saved_game(p) for p in paths if p.is_file()]
    return sorted(games, key=lambda g: (-g.modified, g.path.name))


def newest_unfinished(folder: Path) -> SavedGame | None:
    """The newest game in ``folder`` that ``minodice play`` can continue."""
    return next((g for g in list_games(folder) if g.can_continue), None)
