"""Outside bots in a process of their own, which gets a seat's view and nothing else.

A bot loaded as ``file.py:Class`` or ``module:Class`` is code from anywhere. Run in our
process it could read the whole game state off the call stack or the garbage collector,
rewrite the engine's tables kept on the shared dice set, print into our output or end the
process. So every outside bot runs in a child process of its own — one per seat and per
game, so that nothing it learnt of a deal survives into the deal's rotated replays, and
no two seats share memory — started from a fresh interpreter that never saw a game:

- our side sends the bot's spec and import path, then for each decision the seat's view,
  the legal actions and the state of the bot's random generator (pickled: a child trusts
  its parent; a view pickles small, its dice set travelling by name);
- the child answers with one JSON line: the action *as text*, which we parse
  (:func:`~minodice.core.actions.parse_action`) and check against the legal actions, and
  the generator's new state, checked before use. We never unpickle what a child sends,
  and read at most :data:`MAX_ANSWER` bytes of it;
- the child's standard input leads nowhere, and what the bot prints (output and error
  alike) reaches only us, never our output: we keep its last :data:`MAX_SAID` bytes and
  quote its last lines, escaped, in the error that stops the bot, the only trace its author
  has (on POSIX; elsewhere it is lost). It runs in a session of its own, with no terminal
  and no Ctrl-C;
- the clock is ours: a child that overruns a decision's time limit, or
  :data:`CREATE_SECONDS` to load and make its bot, is killed with every process it
  started (its process group; on Linux also what left the group for a session of its own,
  the child adopting orphans so that a double fork is still found below it), and the bot
  is named in a :class:`~minodice.bots.protocol.BotError`. So is a child that ends,
  raises or answers nonsense.

The random generator makes the trip both ways, so a bot plays exactly as it would in our
process: the same draws, decision after decision.

What a process cannot stop: the child runs as the same user, so it can read files and
use the network, and two children could talk through the file system. Only an operating-
system sandbox (a container, another user) closes that; run code you do not trust there.

Run as ``python -m minodice.bots.sandbox``, this module is the child.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import pickle
import queue
import random
import signal
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import minodice
from minodice.bots.protocol import BotError, BotFactory, load_in_process, not_an_action
from minodice.core.actions import Action, Bid, Roll, parse_action
from minodice.core.view import SeatView

#: Seconds a decision may take when nobody says (the terminal table's bots).
DEFAULT_TIME_LIMIT = 60.0
#: Seconds a child may take to import its bot and make it.
CREATE_SECONDS = 60.0
#: The longest answer line read from a child (a generator state is about 7 KB).
MAX_ANSWER = 64 * 1024
#: Longest text of a child's (a bot's exception message, say) shown in an error.
MAX_TEXT = 300
#: The most of what a bot printed that is kept (its end), to quote when it fails.
MAX_SAID = 4096
#: Lines of what a bot printed quoted in its error.
SAID_LINES = 3

_POSIX = os.name == "posix"
_HEADER = struct.Struct(">I")


# -- our side --------------------------------------------------------------------------------


class _GoneError(Exception):
    """The child ended; ``status`` is its exit status (negative: killed by that signal)."""

    def __init__(self, status: int | None) -> None:
        super().__init__(status)
        self.status = status


class _LateError(Exception):
    """The child did not answer in time."""


class _GarbledError(Exception):
    """The child answered something that is not an answer."""


def _clean(text: object) -> str:
    """A child's text, safe to print on one line: control characters escaped, cut short."""
    from minodice.text.safe import printable

    shown = printable(str(text))
    return shown if len(shown) <= MAX_TEXT else shown[:MAX_TEXT] + "…"


def _child_command() -> list[str]:
    # Isolated mode (-I): no PYTHON* variables, no user site, not the current folder; the
    # parent's import path arrives with the first message.
    home = str(Path(minodice.__file__).resolve().parent.parent)
    code = (f"import sys; sys.path.insert(0, {home!r}); "
            "from minodice.bots.sandbox import main; main()")
    return [sys.executable, "-I", "-c", code]


class _Child:
    """One child process: started, told which bot to load, then asked and answered."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.owner = os.getpid()
        self.proc = subprocess.Popen(
            _child_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if _POSIX else subprocess.DEVNULL,
            start_new_session=_POSIX,
            creationflags=0 if _POSIX else getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0))
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self._out: IO[bytes] = self.proc.stdin
        self._in = self.proc.stdout.fileno()
        # what the bot printed: read whenever we wait for an answer (the bot runs only
        # then), so that it never blocks on a full pipe; its end kept for its errors
        self._err = self.proc.stderr.fileno() if self.proc.stderr is not None else None
        self.said = bytearray()
        self._buffer = b""
        self._chunks: queue.Queue[bytes] | None = None
        if not _POSIX:  # no select() on pipes: a thread reads
            self._chunks = queue.Queue()
            threading.Thread(target=self._pump, daemon=True).start()
        self.loaded = False
        _LIVE.add(self)
        with contextlib.suppress(_GoneError):  # then its first answer says how it ended
            self.send(("load", spec, list(sys.path)))

    def _pump(self) -> None:
        assert self._chunks is not None
        while True:
            try:
                chunk = os.read(self._in, 65536)
            except OSError:
                chunk = b""
            self._chunks.put(chunk)
            if not chunk:
                return

    def alive(self) -> bool:
        return self.owner == os.getpid() and self.proc.poll() is None

    def send(self, message: tuple[Any, ...]) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._out.write(_HEADER.pack(len(data)) + data)
            self._out.flush()
        except OSError:
            raise _GoneError(self._status()) from None

    def _status(self) -> int | None:
        try:
            return self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def _read(self, timeout: float | None) -> bytes | None:
        """Some bytes (b"" at the end), or None when ``timeout`` passed first."""
        if self._chunks is not None:
            try:
                return self._chunks.get(timeout=timeout)
            except queue.Empty:
                return None
        import select

        watched = [self._in] if self._err is None else [self._in, self._err]
        ready, _, _ = select.select(watched, [], [], timeout)
        if self._err is not None and self._err in ready:
            self._keep_said()
        if self._in not in ready:
            return None
        try:
            return os.read(self._in, 65536)
        except OSError:
            return b""

    def _keep_said(self) -> None:
        """Read what the bot printed, keeping the last :data:`MAX_SAID` bytes."""
        assert self._err is not None
        try:
            chunk = os.read(self._err, 65536)
        except OSError:
            chunk = b""
        if not chunk:  # closed: no more to watch (else select reports it ready forever)
            self._err = None
            return
        self.said += chunk
        del self.said[:-MAX_SAID]

    def last_said(self) -> str:
        """"; its last output: ..." quoting the last lines the bot printed (read up to
        now, the pipe drained without waiting), or "" if it printed nothing."""
        if self._err is not None and self.owner == os.getpid():
            import select

            for _ in range(64):  # at most 4 MB more; a bot still printing is cut there
                ready, _, _ = select.select([self._err], [], [], 0)
                if not ready:
                    break
                self._keep_said()
                if self._err is None:
                    break
        lines = [line.strip() for line in
                 bytes(self.said).decode("utf-8", "replace").splitlines()]
        lines = [line for line in lines if line][-SAID_LINES:]
        if not lines:
            return ""
        return "; its last output: " + _clean(" / ".join(lines))

    def receive(self, seconds: float | None) -> dict[str, Any]:
        """The child's next answer, within ``seconds`` (None: however long it takes)."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_ANSWER:
                raise _GarbledError(f"an answer longer than {MAX_ANSWER // 1024} KB")
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise _LateError
            chunk = self._read(wait)
            if chunk is None:
                continue
            if not chunk:
                raise _GoneError(self._status())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_ANSWER:
            raise _GarbledError(f"an answer longer than {MAX_ANSWER // 1024} KB")
        try:
            answer = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise _GarbledError("an answer that is not JSON") from None
        if not isinstance(answer, dict):
            raise _GarbledError("an answer that is not a JSON object")
        return answer

    def kill(self) -> None:
        """End the child and everything it started; idempotent."""
        _LIVE.discard(self)
        if self.owner != os.getpid():
            return
        alive = self.proc.poll() is None
        if alive or _POSIX:
            if alive:  # (not reaped: its pid is no one else's; we alone reap it)
                # first what left the child's process group (a new session, a double
                # fork: on Linux the child adopts its orphans, so they are its descendants)
                _end_descendants(self.proc.pid)
            try:
                if _POSIX:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            except (ProcessLookupError, PermissionError):
                pass
        with contextlib.suppress(OSError):
            self._out.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._err = None


def _descendants(root: int) -> set[int]:
    """The processes below ``root`` (Linux's /proc; none elsewhere), ``root`` left out."""
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return set()
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    todo = [root]
    while todo:
        for pid in parents.get(todo.pop(), ()):
            if pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def _end_descendants(root: int) -> None:
    """Stop every process below ``root`` until no new one appears (one forking as we look
    is stopped with the rest), then kill them all. A process a bot started in a session
    of its own escapes the process group that :meth:`_Child.kill` ends; the child adopts
    orphans (``PR_SET_CHILD_SUBREAPER``, see :func:`_adopt_orphans`), so a double fork
    does not escape this either. Only processes of our user can be signalled."""
    if not sys.platform.startswith("linux"):
        return
    stopped: set[int] = set()
    for _ in range(20):
        fresh = _descendants(root) - stopped
        if not fresh:
            break
        for pid in fresh:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        stopped |= fresh
    for pid in stopped:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


_LIVE: weakref.WeakSet[_Child] = weakref.WeakSet()
_SPARES: dict[str, list[_Child]] = {}
_CHECKED: set[str] = set()
_LOCK = threading.Lock()


def _quoting(message: str, said: str) -> BotError:
    """A BotError with what the bot last printed (:meth:`_Child.last_said`) at its end."""
    error = BotError(message)
    error.said = said
    return error


def _gone_text(status: int | None) -> str:
    if status is None:
        return "ended its process"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"ended its process (killed by {name})"
    return f"ended its process (exit status {status})"


def _bot_text(spec: str, text: object) -> str:
    """A child's error message about loading or making the bot, naming the bot."""
    shown = _clean(text)
    prefix = f"bot {spec!r}"
    return shown if shown.startswith(prefix) else f"{prefix}: {shown}"


def _start_up(child: _Child, request: tuple[Any, ...] | None, deadline: float, doing: str,
              failed: str, give_up: Callable[[], None]) -> None:
    """Send ``request`` (if any) and wait for the child's "ok" by ``deadline``; on any
    failure give the child up and raise a BotError naming the bot and what it was
    ``doing`` ("loading", "being made")."""
    spec = child.spec
    try:
        if request is not None:
            child.send(request)
        answer = child.receive(max(0.0, deadline - time.monotonic()))
    except _LateError:
        said = child.last_said()
        give_up()
        raise _quoting(f"bot {spec!r} took longer than {CREATE_SECONDS:g} s to start",
                       said) from None
    except _GoneError as gone:
        said = child.last_said()
        give_up()
        raise _quoting(f"bot {spec!r} {_gone_text(gone.status)} while {doing}", said) from None
    except _GarbledError as bad:
        said = child.last_said()
        give_up()
        raise _quoting(f"bot {spec!r} sent {bad} while {doing}", said) from None
    if answer.get("ok") is not True:
        said = child.last_said()
        give_up()
        raise _quoting(_bot_text(spec, answer.get("error", failed)), said)


def _ready(child: _Child, deadline: float) -> None:
    """Wait until ``child`` has loaded its bot's code; BotError naming it otherwise."""
    if child.loaded:
        return
    _start_up(child, None, deadline, "loading", "could not be loaded", child.kill)
    child.loaded = True


def check_outside_bot(spec: str) -> None:
    """Load ``spec`` in a child process (kept for the bot's first game); BotError naming
    the bot if its code cannot be loaded. Checked once per process."""
    with _LOCK:
        if spec in _CHECKED:
            return
    child = _take(spec)
    _ready(child, time.monotonic() + CREATE_SECONDS)
    with _LOCK:
        _CHECKED.add(spec)
        _SPARES.setdefault(spec, []).append(child)


def prewarm(spec: str, count: int) -> None:
    """Have ``count`` children loading ``spec`` ready for the next game (they start now,
    while this game plays)."""
    with _LOCK:
        spares = _SPARES.setdefault(spec, [])
        spares[:] = [c for c in spares if c.alive()]
        missing = count - len(spares)
    for _ in range(missing):
        try:
            child = _Child(spec)
        except OSError:  # no more processes now: the next game starts its own
            return
        with _LOCK:
            _SPARES.setdefault(spec, []).append(child)


def close_spares() -> None:
    """End the children kept ready for games that will not come."""
    with _LOCK:
        spares = [c for children in _SPARES.values() for c in children]
        _SPARES.clear()
    for child in spares:
        child.kill()


def _take(spec: str) -> _Child:
    with _LOCK:
        spares = _SPARES.get(spec, [])
        while spares:
            child = spares.pop(0)
            if child.alive():
                return child
            child.kill()
    try:
        return _Child(spec)
    except OSError as exc:
        raise BotError(f"bot {spec!r}: cannot start its process: {exc}") from None


class SandboxedBot:
    """An outside bot playing in a child process (see the module docstring).

    ``act`` asks the child within :attr:`time_limit` seconds; :meth:`decide` within the
    limit given. Every failure is a :class:`BotError` naming the bot and its seat, after
    which the child is gone. :meth:`close` ends the child (and so does garbage collection).
    """

    def __init__(self, spec: str, time_limit: float | None = DEFAULT_TIME_LIMIT) -> None:
        self.spec = spec
        self.name = spec
        self.time_limit = time_limit
        deadline = time.monotonic() + CREATE_SECONDS
        child = _take(spec)
        self._child: _Child | None = child
        self._finalizer = weakref.finalize(self, child.kill)
        _ready(child, deadline)
        _start_up(child, ("new",), deadline, "being made", "could not be made", self.close)

    def close(self) -> None:
        """End the bot's process (idempotent)."""
        self._child = None
        self._finalizer()

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return self.decide(view, legal, rng, self.time_limit)

    def decide(self, view: SeatView, legal: Sequence[Action], rng: random.Random,
               time_limit: float | None) -> Action:
        """The bot's action for ``view``, checked against ``legal``; ``rng`` advances as the
        bot drew from it."""
        seat = "" if view.seat is None else f" (seat {view.seat + 1})"
        who = f"bot {self.spec!r}{seat}"
        child = self._child
        if child is None:
            raise BotError(f"{who} has stopped: its process was ended")
        try:
            child.send(("act", view, tuple(legal), rng.getstate()))
            answer = child.receive(time_limit)
        except _LateError:
            raise self._stopped(f"{who} took longer than {time_limit:g} s for one "
                                "decision") from None
        except _GoneError as gone:
            raise self._stopped(f"{who} {_gone_text(gone.status)}") from None
        except _GarbledError as bad:
            raise self._stopped(f"{who} sent {bad}") from None
        if "error" in answer:
            raise self._stopped(f"{who} {_clean(answer['error'])}")
        shown = ", ".join(str(a) for a in legal)
        if "returned" in answer:
            raise _quoting(not_an_action(who, _clean(answer["returned"]),
                                         _clean(str(answer.get("type", "object"))), legal),
                           child.last_said())
        text = answer.get("action")
        try:
            if not isinstance(text, str) or len(text) > 100:
                raise ValueError
            action = parse_action(view.dice_set, text)
        except ValueError:
            raise _quoting(f"{who} returned {_clean(repr(text))}, which is not legal here "
                           f"(legal: {shown})", child.last_said()) from None
        if action not in legal:
            raise _quoting(f"{who} returned {action!r}, which is not legal here "
                           f"(legal: {shown})", child.last_said())
        try:
            rng.setstate(_rng_state(answer.get("rng")))
        except (TypeError, ValueError, OverflowError):
            raise self._stopped(f"{who} sent a random generator state that is not "
                                "one") from None
        return action

    def _stopped(self, message: str) -> BotError:
        """The error that ends the bot: ``message`` and the last it printed; its process
        ended."""
        said = self._child.last_said() if self._child is not None else ""
        self.close()
        return _quoting(message, said)


def _rng_state(data: object) -> tuple[Any, ...]:
    """A ``random.Random`` state from its JSON form; ValueError unless exactly one."""
    if not (isinstance(data, list) and len(data) == 3 and data[0] == 3
            and isinstance(data[1], list) and len(data[1]) == 625
            and all(type(x) is int and 0 <= x < 2**32 for x in data[1])
            and data[1][-1] <= 624
            and (data[2] is None or type(data[2]) is float)):
        raise ValueError("not a generator state")
    return (3, tuple(data[1]), data[2])


def sandboxed_factory(spec: str) -> BotFactory:
    """A factory of :class:`SandboxedBot` for ``spec``, once its code loads in a child."""
    check_outside_bot(spec)
    return lambda: SandboxedBot(spec)


@atexit.register
def _end_all() -> None:
    for child in list(_LIVE):
        child.kill()


def _forget_after_fork() -> None:
    """A forked process must not talk to its parent's children."""
    _SPARES.clear()
    _CHECKED.clear()
    _LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


# -- the child's side --------------------------------------------------------------------------


def _read_message(stream: IO[bytes]) -> tuple[Any, ...] | None:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    message = pickle.loads(data)  # from our parent, whom we trust
    assert isinstance(message, tuple)
    return message


def _watch_parent(parent: int) -> None:
    """End this process when its parent is gone, even in the middle of a decision."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _describe(exc: BaseException) -> str:
    try:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    except Exception:
        return type(exc).__name__


def _where(exc: BaseException) -> str:
    """Where in the bot's own code ``exc`` was raised (" at mybot.py:42 in act"): its
    author has no other trace of it (the child's output goes nowhere). Frames of Python's
    own library and of minodice are passed over; "" where none is the bot's."""
    import sysconfig
    import traceback

    paths = sysconfig.get_paths()
    ours = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
            paths["stdlib"] + os.sep, paths["platstdlib"] + os.sep)
    try:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            path = os.path.abspath(frame.filename)
            if not path.startswith(ours):
                return f" at {os.path.basename(path)}:{frame.lineno} in {frame.name}"
    except Exception:  # an exception whose traceback cannot be read: said without it
        return ""
    return ""


def _adopt_orphans() -> None:
    """Linux: become the parent of every orphan among our descendants (a process a bot
    started that left its own parent behind), so that :func:`_end_descendants` finds it."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(Exception):  # a libc without prctl: the process group only
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def main() -> None:
    """The child: load one bot, make it, answer its decisions until told no more."""
    _adopt_orphans()
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    nothing = os.open(os.devnull, os.O_RDWR)
    os.dup2(nothing, 0)
    os.dup2(2, 1)  # the bot's print()s join its errors: both only for our parent to quote
    with contextlib.suppress(Exception):  # and in the order it printed them
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()

    def answer(data: dict[str, Any]) -> None:
        for stream in (sys.stdout, sys.stderr):  # what the bot printed comes first
            with contextlib.suppress(Exception):
                stream.flush()
        answers.write(json.dumps(data).encode("ascii") + b"\n")
        answers.flush()

    factory: BotFactory | None = None
    bot: Any = None
    rng = random.Random()
    while True:
        message = _read_message(requests)
        if message is None:
            return
        kind = message[0]
        if kind == "load":
            spec, path = message[1], message[2]
            sys.path[:] = path
            try:
                factory = load_in_process(spec)
            except BotError as exc:
                answer({"error": str(exc)})
                return
            except BaseException as exc:
                answer({"error": f"bot {spec!r}: importing it failed: {_describe(exc)}"})
                return
            answer({"ok": True})
        elif kind == "new":
            assert factory is not None
            try:
                bot = factory()
            except BaseException as exc:
                answer({"error": f"creating it failed: {_describe(exc)}"})
                return
            if not callable(getattr(bot, "act", None)):
                answer({"error": "it has no act(view, legal, rng) method"})
                return
            answer({"ok": True})
        elif kind == "act":
            view, legal, draws = message[1], message[2], message[3]
            rng.setstate(draws)
            try:
                action = bot.act(view, legal, rng)
            except SystemExit:
                answer({"error": "tried to exit"})
                continue
            except BaseException as exc:
                answer({"error": f"raised {_describe(exc)}{_where(exc)}"})
                continue
            if isinstance(action, Bid | Roll):
                answer({"action": str(action), "rng": [
                    3, list(rng.getstate()[1]), rng.getstate()[2]]})
            else:
                try:
                    shown = repr(action)[:MAX_TEXT]
                except Exception:
                    shown = f"a {type(action).__name__}"
                answer({"returned": shown, "type": type(action).__name__[:MAX_TEXT]})


if __name__ == "__main__":
    main()
