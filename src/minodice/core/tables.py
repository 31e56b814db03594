"""Which dice may be rolled: R8 and R9 stated once, as tables the engine and the bots read.

A player may roll only a die they hold (R8) and, while a colour is to be followed, must
roll a die of that colour or a special die if they hold one of that colour (R9). R9 is
about *colours*: a user's dice set may give two number kinds one colour, and then either
kind follows the other. :meth:`Tables.rollable` is the one statement of both rules, and
:meth:`Tables.next_follow` of which die sets the colour; the tables below are filled from
them once per dice set, and every path reads them — the engine's fast and careful paths
alike, search play-outs, and the bots' reading of what a roll shows about a hand
(:meth:`Tables.shows_void`).

Legal choices depend only on *which* kinds a hand holds and on the colour to follow, so
the tables are small (2^kinds × (kinds + 1) entries) and filled completely up front: they
never record the hands actually seen, which a memo shared through the dice set would
leak to anyone holding a view.

>>> from minodice.core.dice import load_dice_set
>>> mino = load_dice_set("mino")
>>> t = tables_for(mino)
>>> red, yellow, griffin = (mino.kind(k).index for k in ("red", "yellow", "griffin"))
>>> [mino.kinds[k].name for k in t.rollable([red, yellow, griffin], red)]
['red', 'griffin']
>>> t.shows_void(yellow, red), t.shows_void(griffin, red)
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from minodice.core.actions import Roll
from minodice.core.dice import KIND_BITS, KIND_MASK, DiceSet, Face
from minodice.core.rules import SpecialLead

# One bit per kind (the lowest bit of its 4-bit field in a hand key), for 16 kinds.
PRESENT_BITS: Final = sum(1 << (KIND_BITS * k) for k in range(16))


def legal_key(hand_key: int, follow: int) -> int:
    """The tables' key for a hand and the colour to follow (a kind index, ``-1``: none).

    The engine's hot paths inline this expression; it is here to say what it means.
    """
    return ((hand_key | hand_key >> 1 | hand_key >> 2 | hand_key >> 3) & PRESENT_BITS) << 4 | (
        follow + 1)


class Tables:
    """Per-dice-set lookup tables shared by every state of that set (pure memo).

    ``kinds`` are the set's die kinds. For ``key = legal_key(hand key, follow)``:
    ``legal[key]`` are the :class:`Roll` actions allowed and ``legal_kinds[key]`` their
    kind indices. ``breaks_follow[follow + 1][kind]`` is the part of a hand key that, if
    any of it is held, forbids rolling ``kind`` (the kinds of ``follow``'s colour, or 0):
    the engine checks a single roll with it (:meth:`may_roll`). ``colour_kinds[k]`` are
    the number kinds of kind ``k``'s colour (none for a special die, never followed), and
    ``follow_after[follow + 1][kind]`` the colour to follow once ``kind`` is rolled after
    the lead, ``lead_follow[kind]`` once it leads (the same as ``follow_after[0]`` but
    where R9's option makes a trick that a special die led one without colour).
    ``face_objs[k]`` are kind ``k``'s six faces, ``face_by_code[k]`` the same by code
    (the engine checks an outcome with it) and ``roll_outcomes[k]`` its distinct faces
    with their exact probabilities.
    """

    __slots__ = (
        "breaks_follow",
        "colour_kinds",
        "face_by_code",
        "face_codes",
        "face_objs",
        "follow_after",
        "kinds",
        "lead_follow",
        "legal",
        "legal_kinds",
        "nkinds",
        "roll_outcomes",
        "rolls",
        "shift",
        "special",
        "special_lead",
    )

    def __init__(self, dice_set: DiceSet,
                 special_lead: SpecialLead = SpecialLead.FIRST_NUMBER) -> None:
        self.kinds = dice_set.kinds
        self.special_lead = special_lead
        self.rolls: tuple[Roll, ...] = tuple(Roll(k) for k in dice_set.kinds)
        self.face_objs: tuple[tuple[Face, ...], ...] = tuple(k.faces for k in dice_set.kinds)
        self.face_by_code: tuple[dict[int, Face], ...] = tuple(
            {f.code: f for f in k.faces} for k in dice_set.kinds)
        self.roll_outcomes: tuple[tuple[tuple[Face, Fraction], ...], ...] = tuple(
            tuple(k.roll_outcomes()) for k in dice_set.kinds)
        self.face_codes = dice_set.face_codes
        self.special = dice_set.special
        self.shift = dice_set.shift
        self.nkinds = len(dice_set.kinds)
        self.colour_kinds: tuple[frozenset[int], ...] = tuple(
            frozenset() if kind.special else frozenset(
                other.index for other in dice_set.kinds
                if not other.special and other.colour == kind.colour)
            for kind in dice_set.kinds)
        nkinds = self.nkinds
        self.breaks_follow: tuple[tuple[int, ...], ...] = tuple(
            tuple(sum(KIND_MASK << (KIND_BITS * k) for k in self.colour_kinds[follow])
                  if self.shows_void(kind, follow) else 0 for kind in range(nkinds))
            for follow in range(-1, nkinds))
        self.follow_after: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.next_follow(follow, kind) for kind in range(nkinds))
            for follow in range(-1, nkinds))
        self.lead_follow: tuple[int, ...] = tuple(
            self.next_follow(-1, kind, leads=True) for kind in range(nkinds))
        self.legal: dict[int, tuple[Roll, ...]] = {}
        self.legal_kinds: dict[int, tuple[int, ...]] = {}
        for held_mask in range(1 << nkinds):
            held = [k for k in range(nkinds) if held_mask >> k & 1]
            hand_key = sum(1 << (KIND_BITS * k) for k in held)
            for follow in range(-1, nkinds):
                kinds = self.rollable(held, follow)
                key = legal_key(hand_key, follow)
                self.legal[key] = tuple(self.rolls[k] for k in kinds)
                self.legal_kinds[key] = kinds

    def rollable(self, held: Sequence[int], follow: int) -> tuple[int, ...]:
        """R8 and R9: the kinds among ``held`` (kind indices, each held at least once) that
        may be rolled while ``follow``'s colour is to be followed (``-1``: none yet)."""
        if follow >= 0:
            colour = self.colour_kinds[follow]
            if any(k in colour for k in held):
                return tuple(k for k in held if self.special[k] or k in colour)
        return tuple(held)

    def next_follow(self, follow: int, kind: int, leads: bool = False) -> int:
        """R9: the colour to follow (a kind index, ``-1``: none) once a die of ``kind`` is
        rolled (``leads``: as the trick's first) — the first number die of the trick sets
        it; a special die sets none. With ``special_lead`` ``no-colour`` only the lead can
        set it: a trick a special die led keeps no colour."""
        if follow >= 0 or self.special[kind]:
            return follow
        return kind if leads or self.special_lead is SpecialLead.FIRST_NUMBER else -1

    def shows_void(self, kind: int, follow: int) -> bool:
        """Whether a legal roll of ``kind``, with ``follow``'s colour to follow, shows that
        the roller held no die of that colour (R9 would have forbidden it otherwise)."""
        return follow >= 0 and kind not in self.rollable((kind, follow), follow)

    def legal_rolls(self, hand_key: int, follow: int) -> tuple[Roll, ...]:
        """The rolls allowed for the hand with engine key ``hand_key``."""
        return self.legal[legal_key(hand_key, follow)]

    def kinds_for(self, hand_key: int, follow: int) -> tuple[int, ...]:
        """The kind indices allowed for the hand with engine key ``hand_key``."""
        return self.legal_kinds[legal_key(hand_key, follow)]

    def may_roll(self, hand_key: int, follow: int, kind: int) -> bool:
        """Whether the hand with engine key ``hand_key`` may roll a die of kind ``kind``
        (``GameState.apply`` inlines this expression on its hot path)."""
        return bool(hand_key >> (KIND_BITS * kind) & KIND_MASK
                    and not hand_key & self.breaks_follow[follow + 1][kind])


def tables_for(dice_set: DiceSet,
               special_lead: SpecialLead = SpecialLead.FIRST_NUMBER) -> Tables:
    """The tables of ``dice_set`` under R9's ``special_lead`` option, built on first use
    and kept on the set."""
    kept = dice_set.engine_tables
    if kept is None:
        kept = dice_set.engine_tables = {}
    assert isinstance(kept, dict)
    tables = kept.get(special_lead)
    if tables is None:
        tables = kept[special_lead] = Tables(dice_set, special_lead)
    assert isinstance(tables, Tables)
    return tables
