"""The value objects' ``repr()`` rebuilds them (STYLE 3): ``eval(repr(x)) == x`` with the
names :mod:`minodice.core` exports — for every action, die kind and face of both shipped
dice sets, for hands, and for a user's own dice set."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minodice.core
from minodice.core.actions import BIDS, Roll, parse_action
from minodice.core.dice import BUILTIN_DICE_SETS, DiceSet, Face, Hand, load_dice_set
from minodice.core.rules import RuleOptions, SpecialLead, StartRule, Variant, resolve_trick
from minodice.core.state import GameConfig, Phase

NAMES = {name: getattr(minodice.core, name) for name in minodice.core.__all__}


def rebuilt(value: object) -> Any:
    return eval(repr(value), dict(NAMES))


def faces_of(ds: DiceSet) -> list[Face]:
    return [ds.face("flag"), *(ds.face(s) for s in ds.symbols),
            *(ds.face(n) for n in range(1, 100))]


def values_of(ds: DiceSet) -> list[object]:
    """Every action, kind and face of ``ds``, and the set itself."""
    return [ds, *BIDS, *(Roll(k) for k in ds.kinds), *ds.kinds, *faces_of(ds)]


@pytest.mark.parametrize("name", BUILTIN_DICE_SETS)
def test_repr_rebuilds_every_action_kind_and_face(name: str) -> None:
    ds = load_dice_set(name)
    for value in values_of(ds):
        assert rebuilt(value) == value, repr(value)
        assert type(rebuilt(value)) is type(value)
    assert rebuilt(ds) is ds
    for kind in ds.kinds:
        assert rebuilt(kind) is kind
        assert rebuilt(Roll(kind)).kind is kind
        assert rebuilt(parse_action(ds, f"roll {kind.name}")) == Roll(kind)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(BUILTIN_DICE_SETS), st.randoms(use_true_random=False),
       st.integers(min_value=0, max_value=8))
def test_repr_rebuilds_hands(name: str, rng: random.Random, size: int) -> None:
    ds = load_dice_set(name)
    bag = [k.index for k in ds.kinds for _ in range(k.count)]
    counts = [0] * len(ds.kinds)
    for k in rng.sample(bag, size):
        counts[k] += 1
    hand = ds.hand_of_counts(counts)
    assert rebuilt(hand) == hand
    assert rebuilt(hand).counts == hand.counts


def test_repr_rebuilds_configs_and_enums() -> None:
    for variant in Variant:
        assert rebuilt(variant) is variant
        config = GameConfig(5, load_dice_set("skull-king"), variant, 3)
        assert rebuilt(config) == config
        for options in (RuleOptions(), RuleOptions(StartRule.FIXED, SpecialLead.NO_COLOUR)):
            config = GameConfig(4, load_dice_set("mino"), variant, 1, options)
            assert rebuilt(config) == config
            assert rebuilt(options) == options == RuleOptions.parse(str(options))
    for phase in Phase:
        assert rebuilt(phase) is phase
    for tricks in ([(0, 6), (1, 7), (2, 2), (3, 0)], [(0, 101), (1, 100), (2, 102)]):
        result = resolve_trick(tricks)
        assert rebuilt(result) == result
        assert rebuilt(result.reason) is result.reason


def test_repr_rebuilds_a_users_dice_set_and_its_values() -> None:
    data = {"name": "mino", "symbols": ["a", "b", "c"], "kinds": [  # not the shipped mino
        {"name": "x", "count": 9, "special": True, "faces": ["a", "a", "b", "b", "c", 3]},
        {"name": "y", "count": 30, "colour": "teal", "faces": [1, 2, 3, 4, 5, "flag"]},
    ]}
    ds = DiceSet(data)
    copy = rebuilt(ds)
    assert isinstance(copy, DiceSet)
    assert copy is not load_dice_set("mino")
    assert [(k.name, k.colour, k.count, k.faces) for k in copy.kinds] == [
        (k.name, k.colour, k.count, k.faces) for k in ds.kinds]
    for value in values_of(ds)[1:]:
        assert rebuilt(value) == value, repr(value)
    hand = Hand.from_str(ds, "x,y,y")
    assert rebuilt(hand).counts == hand.counts
    assert str(rebuilt(hand)) == str(hand)


@pytest.mark.parametrize("text", ["bid ²", "bid ١", "１", "bid 1" + "0" * 5000, "bid -1",
                                  "bid 1.5"])
def test_a_bid_is_digits_0_to_9_and_other_numbers_are_refused_in_words(text: str) -> None:
    """``str.isdigit`` took "²" (then ``int`` failed with Python's own words) and "١"
    (read as 1): a client's action is read as a record writes it, or refused clearly."""
    with pytest.raises(ValueError, match=r"a bid is|no die kind") as refused:
        parse_action(load_dice_set("mino"), text)
    assert "int()" not in str(refused.value)
    assert len(str(refused.value)) < 200
