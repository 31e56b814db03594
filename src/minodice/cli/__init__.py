"""The ``minodice`` command line (Typer). Each module registers its commands on ``app``."""

from __future__ import annotations

import errno
import itertools
import os
import sys

from minodice.cli.starting import commands_take_interrupts, quiet_interrupts

quiet_interrupts()  # importing the commands takes a while: Ctrl-C meanwhile ends it quietly
from minodice.cli import analyse, bots, online, play, records  # noqa: E402, F401 - importing registers the commands
from minodice.cli.common import app  # noqa: E402

commands_take_interrupts()  # (an importer of this package gets Ctrl-C back as it was)


def run() -> None:
    """Console-script entry point.

    Every command handles its own errors; what is left is the output itself failing (a
    full disk, a closed pipe). That is the machine's problem, not a bug: one line and
    status 1, never a traceback. Standard output then points at the null device, so that
    the interpreter's last flush of what is still buffered cannot fail a second time."""
    if sys.stdout is None:  # started with standard output closed (``minodice ... >&-``)
        sys.stderr.write("minodice: cannot write the output: standard output is closed\n")
        sys.exit(1)
    quiet_interrupts()  # until the command's group callback (Typer builds its commands first)
    try:
        if _serves_json_logs(sys.argv[1:]):
            sys.exit(_serve_with_json_usage_errors())
        app()
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES:
            raise
        _silence_stdout()
        if not isinstance(exc, BrokenPipeError):  # the reader left: nobody to tell
            sys.stderr.write(f"minodice: cannot write the output: {exc.strerror or exc}\n")
        sys.exit(1)


#: What writing the output can fail with: a full disk or quota, a file too large, an I/O
#: error, a reader that left. Any other OSError is a bug to see, not to word away.
_WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EPIPE})


def _serves_json_logs(args: list[str]) -> bool:
    """``minodice serve ... --log-format json``: every line it writes must be JSON."""
    return (bool(args) and args[0] == "serve"
            and ("--log-format=json" in args
                 or any(a == "--log-format" and b == "json"
                        for a, b in itertools.pairwise(args))))


def _serve_with_json_usage_errors() -> int:
    """``serve`` with JSON logs: a usage error (a port that is no number, say) is one
    JSON log record on stderr, as its other failures to start are, not Typer's boxed
    text, which a service manager's log reader could not parse. Its exit status is 2."""
    import logging

    import typer

    try:
        code = app(standalone_mode=False)
    except typer.Abort:  # Ctrl-C at a prompt (serve asks none)
        return 130
    except typer.TyperException as exc:  # Click's usage errors (Typer carries its own Click)
        from minodice.server.ops import configure_logging

        configure_logging("json")
        shown = getattr(exc, "format_message", None)
        message = shown() if callable(shown) else str(exc)
        logging.getLogger("minodice.serve").error("usage error: %s", message)
        return int(getattr(exc, "exit_code", 2))
    return code if isinstance(code, int) else 0


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real standard output (a test's capture)
        pass


__all__ = ["app", "run"]
