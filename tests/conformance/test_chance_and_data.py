"""The dice sets against RULES.md, the oracle against the worked examples, and the
generator-driven chance steps against their exact probabilities."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from math import sqrt

import pytest

from minodice.core import Face, Hand, Phase, load_dice_set

from .driver import DICE_SETS, hand_counter, new_game, random_step, seeded_game
from .oracle import (
    SPECS,
    TOTAL_DICE,
    FaceValue,
    follow_kind,
    legal_kinds,
    round_score,
    trick_result,
)


@pytest.mark.parametrize("name", DICE_SETS)
def test_dice_sets_are_the_rules_table(name: str) -> None:
    ds, spec = load_dice_set(name), SPECS[name]
    assert ds.symbols == spec.symbols
    assert [k.name for k in ds.kinds] == list(spec.kinds)
    assert ds.size == sum(k.count for k in ds.kinds) == TOTAL_DICE
    numbers = [k for k in ds.kinds if not k.special]
    # R9 follows colours; each number kind has a colour of its own, so following the kind
    # (as the suite's oracle does) is following the colour.
    assert len({k.colour for k in numbers}) == len(numbers)
    for kind in ds.kinds:
        assert kind.count == spec.counts[kind.name], kind.name
        assert kind.special == (kind.name in spec.special), kind.name
        assert sorted(map(str, (f.record_value for f in kind.faces))) == sorted(
            map(str, spec.faces[kind.name])), kind.name


# The worked examples of RULES.md, through the suite's own R10/R14 (so the oracle is right).
EXAMPLES: list[tuple[list[FaceValue], int, int]] = [
    ([6, 7, 2, "flag"], 1, 0),
    ([5, 5], 1, 0),
    (["griffin", "minotaur", "mermaid"], 2, 50),
    (["minotaur", "griffin", "griffin", 7], 0, 60),
    (["mermaid", "flag", 3], 0, 0),
    (["flag", "flag", "flag"], 0, 0),
    (["griffin", "mermaid", 7, "griffin"], 3, 0),
    (["mermaid", "minotaur", "flag"], 0, 50),
    (["minotaur", 7, "minotaur"], 2, 0),
]


@pytest.mark.parametrize(("faces", "winner", "bonus"), EXAMPLES)
def test_oracle_on_worked_examples(faces: list[FaceValue], winner: int, bonus: int) -> None:
    assert trick_result(SPECS["mino"], faces) == (winner, bonus)
    sk = [{"minotaur": "skull-king", "griffin": "pirate"}.get(f, f) if isinstance(f, str) else f
          for f in faces]
    assert trick_result(SPECS["skull-king"], sk) == (winner, bonus)


def test_oracle_scoring_and_follow_examples() -> None:
    assert round_score(0, 1, 5, 0, "standard") == (-50, 0)
    assert round_score(0, 0, 5, 0, "standard") == (50, 0)
    assert round_score(3, 1, 5, 0, "standard") == (-20, 0)
    assert round_score(2, 2, 5, 60, "standard") == (100, 60)
    assert round_score(3, 1, 5, 0, "simplified") == (0, 0)
    assert round_score(2, 2, 5, 60, "simplified") == (40, 0)
    mino = SPECS["mino"]
    assert follow_kind(mino, ["griffin", "purple", "red"]) == "purple"
    assert legal_kinds(mino, {"purple": 1, "red": 1}, ["griffin", "purple"]) == {"purple"}
    assert legal_kinds(mino, {"purple": 1, "mermaid": 1, "red": 2}, ["purple"]) == {
        "purple", "mermaid"}
    assert legal_kinds(mino, {"red": 1, "gray": 1}, ["mermaid", "griffin"]) == {"red", "gray"}


def within(count: int, draws: int, p: Fraction, what: str) -> None:
    """``count`` hits in ``draws`` tries is within five standard deviations of ``p``."""
    mean = draws * float(p)
    sigma = sqrt(draws * float(p) * (1 - float(p)))
    assert abs(count - mean) <= 5 * sigma + 1, f"{what}: {count} of {draws}, expected {mean:.0f}"


@pytest.mark.parametrize("name", DICE_SETS)
def test_sampled_draws_follow_the_listed_probabilities(name: str) -> None:
    state = new_game(4, name, "standard")
    rng = random.Random(11)
    while state.round_no < 3:  # into round 3's draw, where the bag is full again (R3)
        random_step(state, rng)
    assert state.phase is Phase.DRAW
    assert state.round_no == 3
    outcomes = dict(state.chance_outcomes())
    draws = 20000
    seen = Counter(state.sample_chance(rng) for _ in range(draws))
    assert set(seen) <= set(outcomes)
    for hand, p in outcomes.items():
        assert isinstance(hand, Hand)
        if p * draws >= 20:
            within(seen[hand], draws, p, f"hand {hand}")
    per_kind = Counter[str]()
    for hand, count in seen.items():
        assert isinstance(hand, Hand)
        for kind, c in hand_counter(hand).items():
            per_kind[kind] += c * count
    for kind, count in SPECS[name].counts.items():  # each die equally likely: 3 × count/36
        within(per_kind[kind], 3 * draws, Fraction(count, TOTAL_DICE), f"{kind} dice drawn")


@pytest.mark.parametrize("name", DICE_SETS)
def test_sampled_faces_follow_the_listed_probabilities(name: str) -> None:
    state, rng = seeded_game(3, name, "standard", 4)
    kinds_done: set[str] = set()
    while not state.is_terminal() and len(kinds_done) < len(SPECS[name].counts):
        pending = state.pending_roll
        if pending is not None and pending.kind.name not in kinds_done:
            kinds_done.add(pending.kind.name)
            outcomes = dict(state.chance_outcomes())
            draws = 6000
            seen = Counter(state.sample_chance(rng) for _ in range(draws))
            assert set(seen) == set(outcomes)
            for face, p in outcomes.items():
                assert isinstance(face, Face)
                assert p == Fraction(SPECS[name].faces[pending.kind.name].count(
                    face.record_value), 6)
                within(seen[face], draws, p, f"{pending.kind.name} shows {face}")
        random_step(state, rng)
    assert len(kinds_done) >= 5
