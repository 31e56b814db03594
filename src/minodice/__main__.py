"""``python -m minodice``: the same as the ``minodice`` command."""

from minodice.cli import run

run()
