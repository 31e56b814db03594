"""The rules as small pure functions: game length, trick winner with its reason, scoring.

The engine in :mod:`minodice.core.state` resolves tricks incrementally for speed; the
functions here are the plain statement of R2, R10, R12–R16, used to explain a trick on
screen, to score a record independently, and by the tests to check the fast path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from minodice.core.dice import (
    FLAG,
    GRIFFIN_ROLE,
    MERMAID_ROLE,
    MINOTAUR_ROLE,
    SYMBOL_BASE,
)

MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 6
MINOTAUR_BONUS_PER_GRIFFIN: Final = 30
MERMAID_BONUS: Final = 50
#: R2: the rounds of a game by its number of players; the one statement of it, which the
#: server's request limits, its views and the page (``/api/meta``) read.
ROUNDS: Final[Mapping[int, int]] = MappingProxyType({3: 8, 4: 8, 5: 7, 6: 6})
MAX_ROUNDS: Final = max(ROUNDS.values())


class _Choice(StrEnum):
    """A choice among named readings: its text form is its value (``standard``), its
    ``repr()`` the member, which :mod:`minodice.core`'s names rebuild (STYLE 3)."""

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class Variant(_Choice):
    """Scoring variant: ``standard`` (R12–R14) or ``simplified`` (R15)."""

    STANDARD = "standard"
    SIMPLIFIED = "simplified"


class StartRule(_Choice):
    """R5 [default], who starts rounds 2 onwards: ``rotate``, the next player clockwise
    from the last round's start player (the default: the card game rotates so); ``fixed``,
    round 1's start player every round (the sources name "a start player" and no rotation)."""

    ROTATE = "rotate"
    FIXED = "fixed"


class SpecialLead(_Choice):
    """R9 [default], the colour of a trick a special die leads: ``first-number``, the
    first number die rolled in it sets the colour (the default: a review of the 2016
    edition says so); ``no-colour``, that trick has no colour to follow at all (only a
    number die *leading* sets a colour)."""

    FIRST_NUMBER = "first-number"
    NO_COLOUR = "no-colour"


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rules RULES.md leaves open and keeps configurable (its **[default]** points that
    change play: R5's rotation and R9's special lead), as one value with a text form.

    >>> str(RuleOptions())
    'start=rotate special-lead=first-number'
    >>> RuleOptions.parse("special-lead=no-colour")
    RuleOptions(start=StartRule.ROTATE, special_lead=SpecialLead.NO_COLOUR)
    >>> RuleOptions.parse("start=sideways")
    Traceback (most recent call last):
    ...
    ValueError: start is rotate or fixed (R5), not 'sideways'
    """

    start: StartRule = StartRule.ROTATE
    special_lead: SpecialLead = SpecialLead.FIRST_NUMBER

    @property
    def is_default(self) -> bool:
        return self == DEFAULT_RULE_OPTIONS

    def __str__(self) -> str:
        return f"start={self.start} special-lead={self.special_lead}"

    def as_json(self) -> dict[str, str]:
        """The options as a record or a message keeps them (keys with underscores)."""
        return {"start": str(self.start), "special_lead": str(self.special_lead)}

    @classmethod
    def from_json(cls, data: object) -> RuleOptions:
        """Options from :meth:`as_json`'s form; a key left out keeps its default. Raises
        ``ValueError`` with a sentence for anything else."""
        if not isinstance(data, dict):
            raise ValueError('rule options are an object such as {"start": "fixed"}')
        unknown = sorted(str(k) for k in data if k not in ("start", "special_lead"))
        if unknown:
            raise ValueError(f"unknown rule option {unknown[0]!r}: the options are "
                             "start (R5) and special_lead (R9)")
        return cls._of(data.get("start", StartRule.ROTATE.value),
                       data.get("special_lead", SpecialLead.FIRST_NUMBER.value))

    @classmethod
    def parse(cls, text: str) -> RuleOptions:
        """Options from :meth:`__str__`'s form (``key=value`` separated by blanks or
        commas; ``special_lead`` may be written with an underscore)."""
        found: dict[str, str] = {}
        for item in text.replace(",", " ").split():
            key, sep, value = item.partition("=")
            key = key.strip().lower().replace("_", "-")
            if not sep or key not in ("start", "special-lead"):
                raise ValueError(f"a rule option is start=VALUE or special-lead=VALUE, "
                                 f"not {item!r}")
            found[key] = value.strip().lower()
        return cls._of(found.get("start", StartRule.ROTATE.value),
                       found.get("special-lead", SpecialLead.FIRST_NUMBER.value))

    @classmethod
    def _of(cls, start: object, special_lead: object) -> RuleOptions:
        if start not in {r.value for r in StartRule}:
            raise ValueError(f"start is rotate or fixed (R5), not {start!r}")
        if special_lead not in {r.value for r in SpecialLead}:
            raise ValueError(f"special-lead is first-number or no-colour (R9), not "
                             f"{special_lead!r}")
        return cls(StartRule(start), SpecialLead(special_lead))


DEFAULT_RULE_OPTIONS: Final = RuleOptions()


def starter_of_round(first_starter: int, round_no: int, players: int,
                     start: StartRule = StartRule.ROTATE) -> int:
    """R5: the start player of round ``round_no`` (from 1) when ``first_starter`` started
    round 1."""
    if start is StartRule.FIXED:
        return first_starter
    return (first_starter + round_no - 1) % players


def rounds_for(players: int) -> int:
    """R2: 8 rounds with 3 or 4 players, 7 with 5, 6 with 6."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"Mino Dice is for 3 to 6 players, not {players} (R1)")
    return ROUNDS[players]


# Winning symbol role by the set of symbol roles showing (bit 1 << role), R10.1:
# alone a symbol wins; minotaur > griffin > mermaid > minotaur; all three: mermaid.
WINNING_ROLE: Final[tuple[int, ...]] = (
    -1,             # no symbol
    MINOTAUR_ROLE,  # minotaur
    GRIFFIN_ROLE,   # griffin
    MINOTAUR_ROLE,  # minotaur + griffin
    MERMAID_ROLE,   # mermaid
    MERMAID_ROLE,   # minotaur + mermaid
    GRIFFIN_ROLE,   # griffin + mermaid
    MERMAID_ROLE,   # all three
)


class Reason(StrEnum):
    """Why a trick was won; :class:`minodice.i18n.words.Words` turns it into words."""

    ALL_THREE = "all-three"        # all three symbols: the mermaid wins
    BEATS = "beats"                # a symbol beats the other symbol showing
    ONLY_SYMBOL = "only-symbol"    # one kind of symbol, it beats numbers and flags
    SAME_SYMBOL = "same-symbol"    # several of one symbol: the last rolled wins
    HIGHEST = "highest"            # the highest number
    TIE = "tie"                    # highest number tied: the later roll wins
    ONLY_FLAGS = "only-flags"      # only flags: the leader wins

    def __repr__(self) -> str:
        return f"Reason.{self.name}"


@dataclass(frozen=True, slots=True)
class TrickResult:
    """The outcome of one finished trick."""

    winner: int          # the winning player's seat
    winning_roll: int    # index of the winning roll within the trick
    reason: Reason
    beaten_role: int     # for BEATS: the role beaten; else -1
    bonus: int           # R14 bonus the winner earns if their bid is right (standard variant)


def resolve_trick(rolls: Sequence[tuple[int, int]]) -> TrickResult:
    """R10 and R14 for a trick given as ``(seat, face code)`` pairs in rolling order.

    >>> resolve_trick([(0, 6), (1, 7), (2, 2), (3, 0)]).winner   # worked example 1
    1
    >>> r = resolve_trick([(0, 101), (1, 100), (2, 102)])        # all three symbols
    >>> r.winner, r.reason.value, r.bonus
    (2, 'all-three', 50)
    """
    if not rolls:
        raise ValueError("a trick needs at least one roll")
    mask = 0
    last_of_role = [-1, -1, -1]
    role_count = [0, 0, 0]
    for i, (_, code) in enumerate(rolls):
        if code >= SYMBOL_BASE:
            role = code - SYMBOL_BASE
            mask |= 1 << role
            last_of_role[role] = i
            role_count[role] += 1
    if mask:
        role = WINNING_ROLE[mask]
        index = last_of_role[role]
        kinds_showing = bin(mask).count("1")
        beaten = -1
        if kinds_showing == 3:
            reason = Reason.ALL_THREE
        elif kinds_showing == 2:
            reason = Reason.BEATS
            beaten = next(r for r in range(3) if mask & (1 << r) and r != role)
        elif role_count[role] > 1:
            reason = Reason.SAME_SYMBOL
        else:
            reason = Reason.ONLY_SYMBOL
        bonus = 0
        if role == MINOTAUR_ROLE:
            bonus = MINOTAUR_BONUS_PER_GRIFFIN * role_count[GRIFFIN_ROLE]
        elif role == MERMAID_ROLE and mask & (1 << MINOTAUR_ROLE):
            bonus = MERMAID_BONUS
        return TrickResult(rolls[index][0], index, reason, beaten, bonus)
    best, index = FLAG, -1
    for i, (_, code) in enumerate(rolls):
        if code > FLAG and code >= best:
            best, index = code, i
    if index < 0:
        return TrickResult(rolls[0][0], 0, Reason.ONLY_FLAGS, -1, 0)
    tied = sum(1 for _, code in rolls if code == best) > 1
    return TrickResult(rolls[index][0], index, Reason.TIE if tied else Reason.HIGHEST, -1, 0)


def round_points(
    bid: int, won: int, round_no: int, bonus: int, variant: Variant
) -> tuple[int, int]:
    """R12–R15: ``(points, bonus part)`` for one player's round.

    ``bonus`` is the R14 bonus collected in tricks that player won; it counts only
    when the bid is exactly right, and never in the simplified variant.

    >>> round_points(0, 1, 5, 0, Variant.STANDARD), round_points(0, 0, 5, 0, Variant.STANDARD)
    ((-50, 0), (50, 0))
    >>> round_points(3, 1, 5, 0, Variant.STANDARD), round_points(2, 2, 5, 60, Variant.STANDARD)
    ((-20, 0), (100, 60))
    >>> round_points(3, 1, 5, 0, Variant.SIMPLIFIED), round_points(2, 2, 5, 60, Variant.SIMPLIFIED)
    ((0, 0), (40, 0))
    """
    made = bid == won
    simplified = variant is Variant.SIMPLIFIED
    if made:
        base = 10 * round_no if bid == 0 else 20 * bid
        extra = 0 if simplified else bonus
        return base + extra, extra
    if simplified:
        return 0, 0
    return (-10 * round_no if bid == 0 else -10 * abs(bid - won)), 0


def winners(totals: Sequence[int]) -> list[int]:
    """R16: every player on the highest total (ties share the victory)."""
    top = max(totals)
    return [seat for seat, total in enumerate(totals) if total == top]
