"""R9 follows a *colour*, not a die kind: a user's dice set may give two number kinds one
colour. The engine, the bots' sampling of hidden dice and their reading of other players'
rolls must all agree on that — through the one statement of R9 in the engine's tables.

The set below has two red kinds: ``red`` (5–7) and ``crimson`` (a sure 9).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

import pytest

from minodice.bots.heuristic import EasyBot, MediumBot
from minodice.bots.sampling import policy_likelihood, sample_hands, void_kinds
from minodice.bots.search import SearchBot
from minodice.bots.strength import strength_of
from minodice.core.actions import Bid, Roll
from minodice.core.dice import BUILTIN_DICE_SETS, DiceSet, Hand, load_dice_set
from minodice.core.errors import IllegalActionError
from minodice.core.rules import Variant
from minodice.core.state import GameConfig, GameState, Phase
from minodice.core.tables import tables_for
from minodice.core.view import SeatView, view
from minodice.play.match import play_bot_game

SYMBOLS = ["minotaur", "griffin", "mermaid"]
TWO_REDS: dict[str, Any] = {
    "name": "two-reds",
    "symbols": SYMBOLS,
    "kinds": [
        {"name": "minotaur", "count": 1, "colour": "brown", "special": True,
         "faces": ["minotaur"] * 4 + ["flag"] * 2},
        {"name": "griffin", "count": 3, "colour": "green", "special": True,
         "faces": ["griffin"] * 4 + ["flag"] * 2},
        {"name": "mermaid", "count": 2, "colour": "blue", "special": True,
         "faces": ["mermaid"] * 4 + ["flag"] * 2},
        {"name": "red", "count": 7, "colour": "red", "faces": [5, 5, 6, 6, 7, 7]},
        {"name": "crimson", "count": 7, "colour": "red", "faces": [9] * 6},
        {"name": "yellow", "count": 8, "colour": "yellow", "faces": [1] * 6},
        {"name": "gray", "count": 8, "colour": "gray", "faces": ["flag"] * 3 + [1, 1, 7]},
    ],
}
DS = DiceSet(TWO_REDS)
REDS = {DS.kind("red").index, DS.kind("crimson").index}


def round_two(hands: Sequence[str], bids: Sequence[int]) -> GameState:
    """Three players in round 2 with the given hands (seat 0 leads), bids made."""
    state = GameState.at_round(GameConfig(3, DS, Variant.STANDARD, 2), 2)
    assert state.starter == 0
    for hand in hands:
        state.apply_chance(Hand.from_str(DS, hand))
    for seat, bid in enumerate(bids):
        state.apply(Bid(bid), seat=seat)
    return state


def roll(state: GameState, kind: str, face: int | str) -> None:
    state.apply(Roll(DS.kind(kind)))
    state.apply_chance(DS.face(face))


def may_roll(state: GameState, kind: str) -> bool:
    """Whether ``apply`` accepts rolling ``kind`` now (tried on a copy)."""
    try:
        state.clone().apply(Roll(DS.kind(kind)))
    except IllegalActionError:
        return False
    return True


# -- the engine ---------------------------------------------------------------------------


def test_engine_follows_the_colour_of_either_red_kind() -> None:
    numbers = [k.name for k in DS.kinds if not k.special]
    checked = 0
    for lead in numbers:
        for pair in itertools.combinations_with_replacement([*numbers, "griffin"], 2):
            hand = ",".join(pair)
            state = round_two([f"{lead},gray", hand, "yellow,yellow"], [0, 0, 0])
            roll(state, lead, DS.kind(lead).faces[-1].record_value)
            colour = DS.kind(lead).colour
            holds_colour = any(DS.kind(k).colour == colour for k in pair)
            expected = {k for k in pair if not holds_colour or DS.kind(k).special
                        or DS.kind(k).colour == colour}
            legal = {a.kind.name for a in state.legal_actions() if isinstance(a, Roll)}
            assert legal == expected, (lead, hand)
            assert {DS.kinds[k].name for k in state.legal_kinds()} == expected
            for name in (k.name for k in DS.kinds):
                assert may_roll(state, name) == (name in expected), (lead, hand, name)
                if name not in expected:
                    with pytest.raises(IllegalActionError) as info:
                        state.clone().apply(Roll(DS.kind(name)))
                    assert info.value.rule == ("R8" if name not in pair else "R9")
            checked += 1
    assert checked > 50


def test_crimson_follows_red_and_yellow_shows_a_red_void() -> None:
    state = round_two(["red,gray", "crimson,yellow", "yellow,yellow"], [0, 0, 0])
    roll(state, "red", 7)
    assert {a.kind.name for a in state.legal_actions() if isinstance(a, Roll)} == {"crimson"}
    roll(state, "crimson", 9)
    roll(state, "yellow", 1)
    assert state.rounds[-1].winners == [1]


# -- the bots' reading of the table ------------------------------------------------------


def after_first_trick() -> tuple[GameState, SeatView]:
    """Red led, crimson followed (a red die: no void), yellow showed a void in *red*."""
    state = round_two(["red,gray", "crimson,yellow", "yellow,yellow"], [1, 0, 1])
    roll(state, "red", 7)
    roll(state, "crimson", 9)
    roll(state, "yellow", 1)
    return state, view(state, 0)


def test_voids_are_colours_not_kinds() -> None:
    _, seen = after_first_trick()
    voids = void_kinds(seen)
    assert voids[1] == set()   # crimson is red: seat 1 followed and may hold a red
    assert voids[2] == REDS    # seat 2 holds neither red nor crimson


def test_sampled_hands_keep_the_colour_void_and_allow_the_follower_red() -> None:
    state, seen = after_first_trick()
    rng = random.Random(5)
    strength = strength_of(DS)
    held_by_follower: set[int] = set()
    for i in range(300):
        hands = (sample_hands(seen, rng) if i % 2 else
                 sample_hands(seen, rng, strength, candidates=4))
        assert not {k for k, c in enumerate(hands[2].counts) if c} & REDS
        held_by_follower.update(k for k, c in enumerate(hands[1].counts) if c)
    assert held_by_follower & REDS, "seat 1 followed red with crimson: it may hold a red"
    assert state.phase is Phase.PLAY


def test_a_forced_follow_is_no_evidence_against_a_world() -> None:
    """Seat 1 held crimson and yellow when red was led: crimson was its only legal die, so
    the true world explains that roll perfectly whatever the heuristic would prefer."""
    state, seen = after_first_trick()
    truth = [state.hand(s) for s in range(3)]
    assert policy_likelihood(seen, truth, strength_of(DS), 0.0) == 1.0


@pytest.mark.parametrize("make", [EasyBot, MediumBot,
                                  lambda: SearchBot(play_budget=40, bid_budget=80,
                                                    min_samples=2, max_samples=3)])
def test_bots_play_legally_with_two_kinds_of_one_colour(make: Any) -> None:
    for players in (3, 5):
        config = GameConfig(players, DS, Variant.STANDARD, 0)
        names = [f"bot {seat}" for seat in range(players)]
        state, _ = play_bot_game(config, [make() for _ in range(players)], names, players, 0,
                                 "colours")
        assert state.is_terminal()


@pytest.mark.parametrize("dice_set", [DS, *(load_dice_set(n) for n in BUILTIN_DICE_SETS)],
                         ids=["two-reds", *BUILTIN_DICE_SETS])
def test_the_engines_single_roll_check_agrees_with_its_lists(dice_set: DiceSet) -> None:
    """``apply``'s check of one roll and ``legal_actions``' list read tables filled from the
    same statement of R8 and R9: they agree on every hand and colour to follow."""
    tables = tables_for(dice_set)
    nkinds = len(dice_set.kinds)
    for held_mask in range(1 << nkinds):
        hand_key = sum(1 << (4 * k) for k in range(nkinds) if held_mask >> k & 1)
        for follow in range(-1, nkinds):
            listed = tables.kinds_for(hand_key, follow)
            assert [a.kind.index for a in tables.legal_rolls(hand_key, follow)] == list(listed)
            assert {k for k in range(nkinds) if tables.may_roll(hand_key, follow, k)} == set(
                listed)


# -- a special die that shares a number kind's colour (the 2016 set) -------------------------


SK = load_dice_set("skull-king")  # the mermaid is blue, and so are the "blue" number dice


def sk_round_two(hands: Sequence[str]) -> GameState:
    """Three players in round 2 of the skull-king set (seat 0 leads), bids of 0 made."""
    state = GameState.at_round(GameConfig(3, SK, Variant.STANDARD, 2), 2)
    assert state.starter == 0
    for hand in hands:
        state.apply_chance(Hand.from_str(SK, hand))
    for seat in range(3):
        state.apply(Bid(0), seat=seat)
    return state


def sk_roll(state: GameState, kind: str, face: int | str) -> None:
    state.apply(Roll(SK.kind(kind)))
    state.apply_chance(SK.face(face))


def test_a_blue_special_die_is_no_blue_to_follow_and_shows_no_void() -> None:
    """Blue led: the mermaid (special, coloured blue) may always be rolled, does not oblige
    its holder to follow blue, and rolling it shows nothing about blue dice; rolling black
    shows a void in blue number dice only — the mermaid may still be held."""
    assert SK.kind("mermaid").colour == SK.kind("blue").colour
    state = sk_round_two(["blue,red", "mermaid,black", "black,yellow"])
    sk_roll(state, "blue", 5)
    assert {a.kind.name for a in state.legal_actions() if isinstance(a, Roll)} == {
        "mermaid", "black"}  # no blue number die: anything
    sk_roll(state, "mermaid", "mermaid")
    assert {a.kind.name for a in state.legal_actions() if isinstance(a, Roll)} == {
        "black", "yellow"}
    sk_roll(state, "black", 7)
    seen = view(state, 0)
    blue, mermaid = SK.kind("blue").index, SK.kind("mermaid").index
    assert void_kinds(seen) == [set(), set(), {blue}]
    tables = tables_for(SK)
    assert not tables.shows_void(mermaid, blue)
    assert tables.colour_kinds[blue] == {blue}  # the mermaid is never a die to follow
    rng = random.Random(11)
    strength = strength_of(SK)
    mermaids = 0
    for i in range(300):
        hands = (sample_hands(seen, rng) if i % 2 else
                 sample_hands(seen, rng, strength, candidates=4))
        assert hands[2].counts[blue] == 0
        mermaids += hands[2].counts[mermaid]
    assert mermaids, "seat 2 showed no blue number die: it may still hold the mermaid"


def test_holding_blue_and_the_mermaid_when_blue_is_led() -> None:
    state = sk_round_two(["blue,red", "mermaid,blue", "black,yellow"])
    sk_roll(state, "blue", 3)
    assert {a.kind.name for a in state.legal_actions() if isinstance(a, Roll)} == {
        "mermaid", "blue"}
    sk_roll(state, "blue", 4)  # followed: no void, though the mermaid was there too
    assert void_kinds(view(state, 0))[1] == set()
