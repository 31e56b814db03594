"""Actions a player takes: a secret bid, or choosing which die to roll.

Both are small immutable values whose ``str()`` is their notation and whose ``repr()``
rebuilds them (STYLE 3). The face a die shows is *not* an action: it is the outcome of a
chance event (see :class:`minodice.core.dice.Face`).

>>> from minodice.core.dice import load_dice_set
>>> mino = load_dice_set("mino")
>>> str(Bid(2)), str(Roll(mino.kind("red")))
('bid 2', 'roll red')
>>> parse_action(mino, "roll griffin")
Roll(load_dice_set('mino').kind('griffin'))
>>> parse_action(mino, "bid 0")
Bid(0)
>>> eval(repr(Roll(mino.kind("red")))) == Roll(mino.kind("red"))
True
"""

from __future__ import annotations

from dataclasses import dataclass

from minodice.core.dice import DiceSet, DieKind


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``tricks`` tricks for this round (R6)."""

    tricks: int

    def __str__(self) -> str:
        return f"bid {self.tricks}"

    def __repr__(self) -> str:
        return f"Bid({self.tricks})"


@dataclass(frozen=True, slots=True, eq=False)
class Roll:
    """Choose a die of ``kind`` from behind the screen and roll it (R8).

    Compared by kind name, so that actions of a copied dice set still match.
    """

    kind: DieKind

    def __str__(self) -> str:
        return f"roll {self.kind.name}"

    def __repr__(self) -> str:
        return f"Roll({self.kind!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Roll) and other.kind.name == self.kind.name

    def __hash__(self) -> int:
        return hash(("roll", self.kind.name))


Action = Bid | Roll

BIDS: tuple[Bid, ...] = tuple(Bid(n) for n in range(9))


def _is_number(word: str) -> bool:
    """Digits 0-9 only, as a record writes a bid: ``str.isdigit`` also takes "²" (which
    ``int`` refuses) and "١" (which it reads as 1), and a bid has at most a few digits."""
    return 0 < len(word) <= 9 and word.isascii() and word.isdigit()


def parse_action(dice_set: DiceSet, text: str) -> Action:
    """Read ``"bid N"`` / ``"N"`` or ``"roll KIND"`` / ``"KIND"``; ``ValueError`` otherwise."""
    words = text.strip().lower().split()
    if len(words) == 2 and words[0] in ("bid", "roll"):
        verb, arg = words
    elif len(words) == 1:
        verb, arg = ("bid" if _is_number(words[0]) else "roll"), words[0]
    else:
        raise ValueError(f"not an action: {text!r} (try 'bid 2' or 'roll red')")
    if verb == "bid":
        if not _is_number(arg):
            raise ValueError("a bid is a whole number written in the digits 0-9 (at most 9 "
                             f"of them), not {arg[:20]!r}")
        return Bid(int(arg))
    if not dice_set.has_kind(arg):
        kinds = ", ".join(k.name for k in dice_set.kinds)
        raise ValueError(f"no die kind {arg!r} in the {dice_set.name} set ({kinds})")
    return Roll(dice_set.kind(arg))
