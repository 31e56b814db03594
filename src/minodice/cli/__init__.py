"""The ``minodice`` command line (Typer). Each module registers its commands on ``app``."""

from __future__ import annotations

from minodice.cli import analyse, bots, online, play, records  # noqa: F401 - importing registers the commands
from minodice.cli.common import app


def run() -> None:
    """Console-script entry point."""
    app()


__all__ = ["app", "run"]
