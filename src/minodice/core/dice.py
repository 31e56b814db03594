"""Dice sets, die kinds, faces and hands: the value objects of the game.

A dice set is *data* (a JSON file shipped in ``core/data``), not code, so that a user can
correct or invent one (RULES.md, Components). Everything the engine needs at speed is
precomputed here once per set: small-integer face codes, per-kind face tables and the
bit layout of a hand key.

Face codes are small integers chosen so that comparisons are cheap:
``0`` is a flag, ``1..99`` a number, and ``100 + role`` a symbol, where the role is
``0`` for the minotaur (skull-king), ``1`` for the griffin (pirate) and ``2`` for the mermaid.

Every value's ``repr()`` is Python that rebuilds it from the names :mod:`minodice.core`
exports (STYLE 3), and its ``str()`` is its notation:

>>> mino = load_dice_set("mino")
>>> mino.kind("red")
load_dice_set('mino').kind('red')
>>> [str(f) for f in mino.kind("gray").faces]
['flag', 'flag', 'flag', '1', '1', '7']
>>> mino.face("griffin"), mino.face(7)
(Face(101, 'griffin'), Face(7, '7'))
>>> hand = Hand.from_str(mino, "red,griffin,red")
>>> str(hand), hand
('griffin,red,red', Hand.from_str(load_dice_set('mino'), 'griffin,red,red'))
>>> eval(repr(hand)) == hand
True
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any, Final, Literal, get_args

# Final: constants to mypy and to a compiled engine (``make compiled``), which inlines them.
FLAG: Final = 0
SYMBOL_BASE: Final = 100
MINOTAUR_ROLE: Final = 0
GRIFFIN_ROLE: Final = 1
MERMAID_ROLE: Final = 2
KIND_BITS: Final = 4  # a hand holds at most 8 dice of a kind (round 8): 4 bits per kind suffice
KIND_MASK: Final = (1 << KIND_BITS) - 1
MAX_KINDS: Final = 12

#: The editions shipped, by the names records use; the one statement of them: the server's
#: request models take the type, the page and the score pad the list (``/api/meta``).
EditionName = Literal["mino", "skull-king"]
BUILTIN_DICE_SETS: Final[tuple[EditionName, ...]] = get_args(EditionName)


class DiceSetError(ValueError):
    """A dice-set file that cannot describe a playable set."""


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a die as it shows after a roll.

    ``str()`` is the record notation: ``"flag"``, ``"7"`` or the symbol's name.
    """

    code: int
    name: str

    @property
    def is_flag(self) -> bool:
        return self.code == FLAG

    @property
    def is_symbol(self) -> bool:
        return self.code >= SYMBOL_BASE

    @property
    def is_number(self) -> bool:
        return FLAG < self.code < SYMBOL_BASE

    @property
    def record_value(self) -> int | str:
        """The JSON value of this face in a record: an int for numbers, else a name."""
        return self.code if self.is_number else self.name

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Face({self.code}, {self.name!r})"


@dataclass(frozen=True, slots=True)
class DieKind:
    """A kind of die (``red``, ``griffin``...) of ``dice_set``. A number kind's ``colour``
    is what R9 follows; a set may give two number kinds one colour.

    Equal by content (``dice_set`` is not compared); ``repr()`` names it through its set.
    """

    name: str
    index: int
    count: int
    colour: str
    special: bool
    faces: tuple[Face, ...]
    dice_set: DiceSet | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        kinds = getattr(self.dice_set, "kinds", ())  # none yet while the set is being read
        if 0 <= self.index < len(kinds) and kinds[self.index] is self:
            return f"{self.dice_set!r}.kind({self.name!r})"
        return (f"DieKind({self.name!r}, {self.index}, {self.count}, {self.colour!r}, "
                f"{self.special}, {self.faces!r})")

    def roll_outcomes(self) -> list[tuple[Face, Fraction]]:
        """Each distinct face with its exact probability (each of six faces is 1/6, R8)."""
        seen: dict[Face, Fraction] = {}
        for face in self.faces:
            seen[face] = seen.get(face, Fraction(0)) + Fraction(1, 6)
        return list(seen.items())


class DiceSet:
    """A named dice set with precomputed tables for the engine."""

    __slots__ = (
        "_data",
        "_face_by_name",
        "_faces",
        "_kind_by_name",
        "engine_tables",
        "face_codes",
        "kind_names",
        "kinds",
        "name",
        "shift",
        "size",
        "special",
        "symbols",
        "title",
    )

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = copy.deepcopy(data)  # what repr() and pickling rebuild the set from
        try:
            self.name: str = str(data["name"])
            self.title: str = str(data.get("title", self.name))
            symbols = tuple(str(s) for s in data["symbols"])
            raw_kinds = list(data["kinds"])
        except (KeyError, TypeError) as exc:
            raise DiceSetError(f"dice set needs name, symbols and kinds: {exc}") from exc
        if len(symbols) != 3 or len(set(symbols)) != 3:
            raise DiceSetError("a dice set names exactly three distinct symbols")
        if not 1 <= len(raw_kinds) <= MAX_KINDS:
            raise DiceSetError(f"a dice set has 1 to {MAX_KINDS} kinds")
        self.symbols: tuple[str, str, str] = (symbols[0], symbols[1], symbols[2])
        self._face_by_name: dict[str, Face] = {"flag": Face(FLAG, "flag")}
        for role, sym in enumerate(self.symbols):
            self._face_by_name[sym] = Face(SYMBOL_BASE + role, sym)
        for number in range(1, SYMBOL_BASE):
            self._face_by_name[str(number)] = Face(number, str(number))
        self._faces: dict[int, Face] = {f.code: f for f in self._face_by_name.values()}
        kinds: list[DieKind] = []
        for index, raw in enumerate(raw_kinds):
            kinds.append(self._parse_kind(index, raw))
        names = [k.name for k in kinds]
        if len(set(names)) != len(names):
            raise DiceSetError("die kind names must be distinct")
        self.kinds: tuple[DieKind, ...] = tuple(kinds)
        self.kind_names: tuple[str, ...] = tuple(kind.name for kind in self.kinds)
        self.size = sum(k.count for k in kinds)
        self._kind_by_name = {k.name: k for k in kinds}
        self.face_codes: tuple[tuple[int, ...], ...] = tuple(
            tuple(f.code for f in k.faces) for k in kinds
        )
        self.special: tuple[bool, ...] = tuple(k.special for k in kinds)
        self.shift: tuple[int, ...] = tuple(1 << (KIND_BITS * k.index) for k in kinds)
        # The engine's lookup tables for this set, built on first use (core.tables.Tables).
        # Kept on the set itself so that they live and die with it.
        self.engine_tables: Any = None

    def _parse_kind(self, index: int, raw: Any) -> DieKind:
        try:
            name = str(raw["name"])
            count = int(raw["count"])
            special = bool(raw.get("special", False))
            colour = str(raw.get("colour", name))
            raw_faces = list(raw["faces"])
        except (KeyError, TypeError, ValueError) as exc:
            raise DiceSetError(f"die kind #{index + 1}: {exc}") from exc
        if len(raw_faces) != 6:
            raise DiceSetError(f"die kind {name!r} must have six faces")
        if count < 1:
            raise DiceSetError(f"die kind {name!r} needs a positive count")
        faces = tuple(self.face(f) for f in raw_faces)
        return DieKind(name, index, count, colour, special, faces, self)

    # -- lookups -------------------------------------------------------------------------

    def kind(self, name: str) -> DieKind:
        """The die kind called ``name``; ``KeyError`` if the set has none."""
        return self._kind_by_name[name]

    def has_kind(self, name: object) -> bool:
        return isinstance(name, str) and name in self._kind_by_name

    def face(self, value: int | str) -> Face:
        """Parse a face from its record value (``7``, ``"7"``, ``"flag"``, ``"griffin"``)."""
        try:
            return self._face_by_name[str(value)]
        except KeyError:
            raise ValueError(f"{value!r} is not a face of the {self.name} dice set") from None

    def face_of_code(self, code: int) -> Face:
        return self._faces[code]

    def symbol_role(self, face: Face) -> int | None:
        """0, 1 or 2 for a symbol face (minotaur, griffin, mermaid role), else None."""
        return face.code - SYMBOL_BASE if face.is_symbol else None

    def hand_of_key(self, key: int) -> Hand:
        """The hand with engine key ``key``.

        Deliberately not interned: a cache of hands seen would hold other players' dice
        where any code holding this dice set (a bot, through its view) could read them.
        """
        counts = tuple((key >> (KIND_BITS * i)) & KIND_MASK for i in range(len(self.kinds)))
        return Hand(self, key, counts)

    def hand_size(self, key: int) -> int:
        """The number of dice in the hand with engine key ``key``."""
        size = 0
        while key:
            size += key & KIND_MASK
            key >>= KIND_BITS
        return size

    def hand_of_counts(self, counts: tuple[int, ...] | list[int]) -> Hand:
        if any(not 0 <= c <= KIND_MASK for c in counts) or len(counts) != len(self.kinds):
            raise ValueError(f"not a hand of the {self.name} set: {list(counts)}")
        key = 0
        for i, c in enumerate(counts):
            key += c << (KIND_BITS * i)
        return self.hand_of_key(key)

    def is_builtin(self) -> bool:
        """Whether this is the shipped set of its name (as :func:`load_dice_set` gives it)."""
        return self.name in BUILTIN_DICE_SETS and load_dice_set(self.name) is self

    def __repr__(self) -> str:
        if self.is_builtin():
            return f"load_dice_set({self.name!r})"
        return f"DiceSet({self._data!r})"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickle as a name (a shipped set) or as its data, never with its engine tables:
        a view sent to a bot's worker process stays small, and the worker uses its own."""
        if self.is_builtin():
            return load_dice_set, (self.name,)
        return DiceSet, (self._data,)

    def __str__(self) -> str:
        return self.name


class Hand:
    """A multiset of die kinds (a player's dice behind the screen); equal by content.

    ``str()`` is the comma-separated kind names in the set's order, as the ``advise``
    command takes them; ``key`` is the engine's integer encoding (4 bits per kind).
    """

    __slots__ = ("counts", "dice_set", "key", "size")

    def __init__(self, dice_set: DiceSet, key: int, counts: tuple[int, ...]) -> None:
        self.dice_set = dice_set
        self.key = key
        self.counts = counts
        self.size = sum(counts)

    @classmethod
    def from_kinds(cls, dice_set: DiceSet, kinds: list[str] | tuple[str, ...]) -> Hand:
        counts = [0] * len(dice_set.kinds)
        for name in kinds:
            counts[dice_set.kind(name).index] += 1
        return dice_set.hand_of_counts(counts)

    @staticmethod
    def check_counts(dice_set: DiceSet, counts: tuple[int, ...] | list[int]) -> None:
        """``ValueError`` unless every count fits a hand key (at most 15 of a kind)."""
        for kind, count in zip(dice_set.kinds, counts, strict=True):
            if not 0 <= count <= KIND_MASK:
                raise ValueError(f"{count} {kind.name} dice do not fit in one hand")

    @classmethod
    def from_str(cls, dice_set: DiceSet, text: str) -> Hand:
        parts = [p.strip() for p in text.split(",") if p.strip()]
        return cls.from_kinds(dice_set, parts)

    def kinds(self) -> list[DieKind]:
        """The dice one by one, in the set's kind order."""
        out: list[DieKind] = []
        for kind, count in zip(self.dice_set.kinds, self.counts, strict=True):
            out.extend([kind] * count)
        return out

    def names(self) -> list[str]:
        """The dice's kind names one by one, in the set's kind order (a server names every
        seat's hand in every view it sends: straight from the counts, no kinds between)."""
        out: list[str] = []
        for name, count in zip(self.dice_set.kind_names, self.counts, strict=True):
            if count:
                out += (name,) * count
        return out

    def count(self, kind: DieKind) -> int:
        return self.counts[kind.index]

    def __len__(self) -> int:
        return self.size

    def __str__(self) -> str:
        return ",".join(self.names())

    def __repr__(self) -> str:
        return f"Hand.from_str({self.dice_set!r}, {str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Hand) and other.key == self.key and other.dice_set is self.dice_set
        )

    def __hash__(self) -> int:
        return hash(self.key)


@cache
def load_dice_set(name: str = "mino") -> DiceSet:
    """Load one of the dice sets shipped with the package (``mino`` or ``skull-king``)."""
    if name not in BUILTIN_DICE_SETS:
        raise DiceSetError(
            f"unknown dice set {name!r}; choose one of {', '.join(BUILTIN_DICE_SETS)}"
        )
    text = resources.files("minodice.core").joinpath("data", f"{name}.json").read_text("utf-8")
    return DiceSet(json.loads(text))


def dice_set_from_file(path: str) -> DiceSet:
    """Load a user's own dice-set JSON file (same shape as the shipped ones)."""
    with open(path, encoding="utf-8") as fh:
        return DiceSet(json.load(fh))
