"""minodice: the reference digital implementation of the dice trick-taking game Mino Dice."""

__version__ = "0.1.0"
