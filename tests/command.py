"""The ``minodice`` command run inside the test process, and as a real program.

A real program costs most of a second to start (the interpreter, Typer, Rich, the engine);
inside the test process, through Typer's ``CliRunner``, the same command line costs
milliseconds, so the many cases of a command run that way. What only a real program shows
(the entry point, the exit status the shell gets, the bytes of real standard streams, a
memory limit) stays with a few tests per command that run it, marked ``slow``: they compare
the program's bytes with the in-process run's, so the two ways cannot drift apart unseen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

from typer.testing import CliRunner

from minodice.cli import app


def in_process(*args: str, stdin: bytes | None = None,
               env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """``minodice ARGS`` run in this process, as a finished process: exit status, the bytes
    written to standard output and standard error (both UTF-8, as with
    ``PYTHONIOENCODING=utf-8``; standard error is no terminal).

    An exception that escapes the command fails the test here, with its traceback: run by a
    person, it would have printed a traceback instead of a clear message.
    """
    result = CliRunner().invoke(app, list(args), input=stdin, env=env)
    escaped = result.exception
    if escaped is not None and not isinstance(escaped, SystemExit):
        raise AssertionError(f"minodice {' '.join(args)[:200]} let an exception out: "
                             f"{escaped!r}") from escaped
    return subprocess.CompletedProcess(["minodice", *args], result.exit_code,
                                       result.stdout_bytes, result.stderr_bytes)


def as_text(done: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[str]:
    """The same finished process with its streams decoded (UTF-8)."""
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode("utf-8"),
                                       done.stderr.decode("utf-8"))


def as_program(*args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None,
               module: str = "minodice") -> subprocess.CompletedProcess[bytes]:
    """``python -m MODULE ARGS`` as a real program, its standard streams in UTF-8 (as
    :func:`in_process` writes them), standard error a pipe."""
    full_env = dict(os.environ, PYTHONIOENCODING="utf-8")
    full_env.pop("FORCE_COLOR", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", module, *args], input=stdin,
                          capture_output=True, env=full_env, timeout=120, check=False)
