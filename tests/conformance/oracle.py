"""RULES.md written out a second time, for the conformance suite.

Nothing here imports the engine: the dice sets are typed in again from the table in RULES.md,
and the follow rule (R9), the trick winner (R10) and the scoring (R12–R15) are written again
from the text. Everything works on record JSON values (die kinds by name, faces as ``1``–``7``,
``"flag"`` or a symbol's name), so a game can be checked and scored from its record alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FaceValue = int | str

TOTAL_DICE = 36
MINOTAUR, GRIFFIN, MERMAID = 0, 1, 2  # symbol roles, in the order a set names its symbols


@dataclass(frozen=True)
class SetSpec:
    """A dice set as RULES.md describes it."""

    name: str
    symbols: tuple[str, str, str]
    counts: Mapping[str, int]
    faces: Mapping[str, tuple[FaceValue, ...]]
    special: frozenset[str]

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.counts)


def _spec(name: str, symbols: tuple[str, str, str],
          rows: Sequence[tuple[str, int, tuple[FaceValue, ...]]]) -> SetSpec:
    special = frozenset(kind for kind, _, _ in rows[:3])
    return SetSpec(name, symbols, {kind: count for kind, count, _ in rows},
                   {kind: faces for kind, _, faces in rows}, special)


def _symbol_die(symbol: str) -> tuple[FaceValue, ...]:
    return (symbol,) * 4 + ("flag",) * 2


STRONG: tuple[FaceValue, ...] = (5, 5, 6, 6, 7, 7)
MIDDLE: tuple[FaceValue, ...] = (3, 3, 4, 4, 5, 5)
LOW: tuple[FaceValue, ...] = (1, 1, 2, 2, 3, 3)
WEAK: tuple[FaceValue, ...] = ("flag", "flag", "flag", 1, 1, 7)

SPECS: dict[str, SetSpec] = {
    "mino": _spec("mino", ("minotaur", "griffin", "mermaid"), [
        ("minotaur", 1, _symbol_die("minotaur")),
        ("griffin", 3, _symbol_die("griffin")),
        ("mermaid", 2, _symbol_die("mermaid")),
        ("red", 7, STRONG),
        ("yellow", 7, MIDDLE),
        ("purple", 8, LOW),
        ("gray", 8, WEAK),
    ]),
    "skull-king": _spec("skull-king", ("skull-king", "pirate", "mermaid"), [
        ("skull-king", 1, _symbol_die("skull-king")),
        ("pirate", 3, _symbol_die("pirate")),
        ("mermaid", 2, _symbol_die("mermaid")),
        ("black", 7, STRONG),
        ("blue", 7, MIDDLE),
        ("red", 8, LOW),
        ("yellow", 8, WEAK),
    ]),
}


def rounds_in_game(players: int) -> int:
    """R2, typed again from RULES.md: the conformance suite's one statement of it, which the
    engine's :func:`~minodice.core.rules.rounds_for` is checked against."""
    return {3: 8, 4: 8, 5: 7, 6: 6}[players]


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


# -- R9 ----------------------------------------------------------------------------------


def follow_kind(spec: SetSpec, trick_kinds: Sequence[str],
                special_lead: str = "first-number") -> str | None:
    """R9: the kind of the first number die rolled in the trick, if any; with R9's
    open point played as ``no-colour``, none at all in a trick a special die led."""
    if special_lead == "no-colour" and trick_kinds and trick_kinds[0] in spec.special:
        return None
    return next((kind for kind in trick_kinds if kind not in spec.special), None)


def legal_kinds(spec: SetSpec, hand: Mapping[str, int], trick_kinds: Sequence[str],
                special_lead: str = "first-number") -> set[str]:
    """R8/R9: the kinds a player holding ``hand`` may roll next in this trick."""
    held = {kind for kind, count in hand.items() if count > 0}
    follow = follow_kind(spec, trick_kinds, special_lead)
    if follow is not None and follow in held:
        return {kind for kind in held if kind == follow or kind in spec.special}
    return held


# -- R10 and R14 -------------------------------------------------------------------------


def trick_result(spec: SetSpec, faces: Sequence[FaceValue]) -> tuple[int, int]:
    """R10 and R14: ``(index of the winning roll, bonus it earns if the bid is right)``."""
    check(len(faces) > 0, "an empty trick has no winner")
    roles = [spec.symbols.index(f) if isinstance(f, str) and f in spec.symbols else None
             for f in faces]
    showing = {role for role in roles if role is not None}
    if showing:
        if len(showing) == 3:
            win = MERMAID
        elif showing == {MINOTAUR, GRIFFIN}:
            win = MINOTAUR
        elif showing == {GRIFFIN, MERMAID}:
            win = GRIFFIN
        elif showing == {MINOTAUR, MERMAID}:
            win = MERMAID
        else:
            (win,) = showing
        index = max(i for i, role in enumerate(roles) if role == win)
        bonus = 0
        if win == MINOTAUR:
            bonus = 30 * roles.count(GRIFFIN)
        elif win == MERMAID and MINOTAUR in showing:
            bonus = 50
        return index, bonus
    numbers = [f if isinstance(f, int) else 0 for f in faces]
    best = max(numbers)
    if best == 0:
        return 0, 0  # only flags: the leader
    return max(i for i, value in enumerate(numbers) if value == best), 0


# -- R12–R15 -----------------------------------------------------------------------------


def round_score(bid: int, won: int, round_no: int, bonus: int, variant: str) -> tuple[int, int]:
    """R12–R15: ``(points, bonus part of them)``."""
    if bid == won:
        made = 10 * round_no if bid == 0 else 20 * bid
        extra = bonus if variant == "standard" else 0
        return made + extra, extra
    if variant == "simplified":
        return 0, 0
    if bid == 0:
        return -10 * round_no, 0
    return -10 * abs(bid - won), 0


def best_players(totals: Sequence[int]) -> list[int]:
    """R16."""
    return [seat for seat, total in enumerate(totals) if total == max(totals)]


# -- a whole record ----------------------------------------------------------------------


@dataclass
class RoundScore:
    round_no: int
    starter: int
    bids: list[int] | None
    trick_winners: list[int] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)
    bonus: list[int] | None = None
    points: list[int] | None = None
    totals: list[int] | None = None


@dataclass
class GameScore:
    rounds: list[RoundScore]
    totals: list[int]
    complete: bool
    winners: list[int]


def score_record(record: Mapping[str, Any]) -> GameScore:
    """Check a record against R1–R9 and score it (R10–R16), from its JSON alone."""
    check(record["format"] == "minodice-record" and record["version"] == 1, "format")
    spec = SPECS[record.get("dice_set", "mino")]
    variant = record.get("variant", "standard")
    check(variant in ("standard", "simplified"), f"variant {variant!r}")
    n = len(record["players"])
    check(3 <= n <= 6, "R1")
    n_rounds = rounds_in_game(n)
    rounds = record["rounds"]
    check(len(rounds) <= n_rounds, "R2: too many rounds")
    first = record.get("first_starter", 0)
    options = record.get("rule_options", {})
    fixed_start = options.get("start", "rotate") == "fixed"
    special_lead = options.get("special_lead", "first-number")
    totals = [0] * n
    scored: list[RoundScore] = []
    complete = False
    for index, rnd in enumerate(rounds):
        r = index + 1
        where = f"round {r}"
        starter = first if fixed_start else (first + index) % n  # R5
        hands = [Counter(hand) for hand in rnd["hands"]]
        check(len(hands) == n, f"{where}: R4 one hand per player")
        check(all(sum(h.values()) == r for h in hands), f"{where}: R4 hand sizes")
        drawn = sum(hands, Counter[str]())
        check(all(kind in spec.counts for kind in drawn), f"{where}: R4 unknown kind")
        check(all(drawn[k] <= spec.counts[k] for k in drawn), f"{where}: R3 too many dice")
        bids: list[int] | None = rnd.get("bids")
        score = RoundScore(r, starter, None if bids is None else list(bids))
        scored.append(score)
        if bids is None:
            check(index == len(rounds) - 1 and not rnd.get("tricks"), f"{where}: R6 no bids")
            continue
        check(len(bids) == n and all(0 <= b <= r for b in bids), f"{where}: R6 bids")
        won = [0] * n
        pot = [0] * n
        leader = starter
        tricks = rnd["tricks"]
        check(len(tricks) <= r, f"{where}: R2 too many tricks")
        for t_index, trick in enumerate(tricks):
            at = f"{where}, trick {t_index + 1}"
            check(0 < len(trick) <= n, f"{at}: R8 roll count")
            kinds: list[str] = []
            for q, roll in enumerate(trick):
                seat, kind, face = roll["player"], roll["die"], roll["face"]
                check(seat == (leader + q) % n, f"{at}, roll {q + 1}: R7/R8 order")
                check(kind in legal_kinds(spec, hands[seat], kinds, special_lead),
                      f"{at}, roll {q + 1}: R8/R9 {kind} not allowed for hand "
                      f"{dict(hands[seat])} after {kinds}")
                check(face in spec.faces[kind], f"{at}, roll {q + 1}: R8 face {face!r}")
                hands[seat][kind] -= 1
                kinds.append(kind)
            if len(trick) < n:
                check(index == len(rounds) - 1 and t_index == len(tricks) - 1,
                      f"{at}: R8 unfinished trick before the end")
                break
            win_index, bonus = trick_result(spec, [roll["face"] for roll in trick])
            leader = trick[win_index]["player"]
            score.trick_winners.append(leader)
            won[leader] += 1
            pot[leader] += bonus
        score.tricks_won = won
        if len(score.trick_winners) < r:
            check(index == len(rounds) - 1, f"{where}: R2 unfinished round before the end")
            continue
        results = [round_score(bids[s], won[s], r, pot[s], variant) for s in range(n)]
        score.points = [p for p, _ in results]
        score.bonus = [b for _, b in results]
        totals = [t + p for t, p in zip(totals, score.points, strict=True)]
        score.totals = totals[:]
        complete = r == n_rounds
    return GameScore(scored, totals, complete, best_players(totals) if complete else [])
