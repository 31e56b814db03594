"""``python -m minodice.cli``."""

from minodice.cli import run

run()
