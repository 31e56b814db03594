"""Which ``minodice`` programs a piece of test code starts, seen by Python's audit hooks.

``make check`` leaves out the tests marked ``slow`` so that it stays fast; a test that
starts the real program costs most of a second for each start, so a fast test runs the
command in-process instead (tests/command.py). ``tests/conftest.py`` watches every test
not marked ``slow`` with :func:`program_starts` and fails one that starts the program, so
the inner loop does not slow down again unseen.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import pairwise
from typing import Any

#: The argument lists started while a :func:`program_starts` block runs (None: none runs).
_recording: list[list[str]] | None = None
_hooked = False


def starts_the_program(argv: Sequence[str]) -> bool:
    """Whether a process started with ``argv`` runs the ``minodice`` command: ``python -m
    minodice`` (or ``-m minodice.cli``), or the installed ``minodice`` script."""
    if not argv:
        return False
    if os.path.basename(argv[0]) == "minodice":
        return True
    return any(flag == "-m" and module in ("minodice", "minodice.cli")
               for flag, module in pairwise(argv))


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """The audit hook: ``subprocess.Popen`` is raised with (executable, args, cwd, env)."""
    if _recording is None or event != "subprocess.Popen":
        return
    argv = args[1]
    if isinstance(argv, str | bytes | os.PathLike):
        argv = [argv]
    names = [os.fsdecode(part) for part in argv]
    if starts_the_program(names):
        _recording.append(names)


@contextmanager
def program_starts() -> Iterator[list[list[str]]]:
    """The argument lists of the ``minodice`` programs started inside the block (by
    ``subprocess`` in this process), recorded for the innermost block only. An audit hook
    cannot be removed, so it is installed once and records only inside such a block."""
    global _recording, _hooked
    if not _hooked:
        sys.addaudithook(_audit)
        _hooked = True
    outer, _recording = _recording, []
    try:
        yield _recording
    finally:
        _recording = outer
