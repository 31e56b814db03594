"""The rules of RULES.md (R1–R16 and every worked example), tested through the real engine.

Most tests drive a :class:`GameState` exactly as a player and the table would: hands are
dealt with ``apply_chance(Hand)``, bids and die choices with ``apply``, and the face each die
shows with ``apply_chance(Face)``. Where a rule is a pure function (R2, R10, R12–R16) it is
also checked through :mod:`minodice.core.rules`, and hypothesis checks that the engine's
incremental trick resolution agrees with :func:`rules.resolve_trick` on arbitrary tricks.
"""

from __future__ import annotations

import gc
import itertools
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from importlib import resources
from math import comb
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minodice.core import rules
from minodice.core.actions import Bid, Roll
from minodice.core.dice import DiceSet, DieKind, Face, Hand, load_dice_set
from minodice.core.errors import IllegalActionError
from minodice.core.rules import (
    Reason,
    RuleOptions,
    SpecialLead,
    StartRule,
    Variant,
    resolve_trick,
    round_points,
    rounds_for,
)
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState, Phase
from minodice.core.view import view

MINO = load_dice_set("mino")
SKULL = load_dice_set("skull-king")

# Face codes as the engine uses them (dice.py): flag 0, numbers 1..7, symbols 100 + role.
FLAG, MINOTAUR, GRIFFIN, MERMAID = 0, 100, 101, 102

# The skull-king edition's name for each mino name (RULES.md, Components).
TO_SKULL = {
    "minotaur": "skull-king",
    "griffin": "pirate",
    "mermaid": "mermaid",
    "red": "black",
    "yellow": "blue",
    "purple": "red",
    "gray": "yellow",
}

Play = tuple[str, int | str]  # (die kind, face) as rolled


# -- helpers ------------------------------------------------------------------------------


def new_game(
    players: int = 4,
    dice_set: str = "mino",
    variant: Variant = Variant.STANDARD,
    first_starter: int = 0,
) -> GameState:
    config = GameConfig(players=players, dice_set=load_dice_set(dice_set), variant=variant,
                        first_starter=first_starter)
    return GameState(config)


def random_step(state: GameState, rng: random.Random) -> None:
    if state.current_player == CHANCE:
        state.apply_chance(state.sample_chance(rng))
    else:
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])


def skip_to_round(state: GameState, round_no: int, seed: int = 0) -> None:
    """Play random rounds until ``round_no`` begins (its draw not yet made)."""
    rng = random.Random(seed)
    while state.round_no < round_no:
        random_step(state, rng)
    assert state.round_no == round_no
    assert state.phase is Phase.DRAW


def play_random_game(state: GameState, seed: int) -> None:
    rng = random.Random(seed)
    while not state.is_terminal():
        random_step(state, rng)


def deal(state: GameState, hands: Sequence[Sequence[str]]) -> None:
    """Each seat in turn draws the given dice (R4)."""
    for kinds in hands:
        state.apply_chance(Hand.from_kinds(state.dice_set, list(kinds)))


def bid_all(state: GameState, bids: Sequence[int]) -> None:
    for seat, tricks in enumerate(bids):
        state.apply(Bid(tricks), seat=seat)


def roll(state: GameState, kind: str, face: int | str) -> int:
    """The current player rolls a die of ``kind`` and it shows ``face``; returns the seat."""
    seat = state.current_player
    assert seat >= 0
    ds = state.dice_set
    state.apply(Roll(ds.kind(kind)))
    assert state.current_player == CHANCE
    state.apply_chance(ds.face(face))
    return seat


def play_trick(state: GameState, plays: Sequence[Play]) -> int:
    """Roll a whole trick in clockwise order from the leader; returns the trick's winner."""
    log = state.rounds[-1]
    done = len(log.winners)
    leader = state.leader
    for i, (kind, face) in enumerate(plays):
        seat = roll(state, kind, face)
        assert seat == (leader + i) % state.n
    round_log = log if len(log.winners) > done else None
    assert round_log is not None, "the trick did not finish"
    return round_log.winners[done]


def one_trick_round(
    plays: Sequence[Play],
    bids: Sequence[int] | None = None,
    variant: Variant = Variant.STANDARD,
    dice_set: str = "mino",
    first_starter: int = 0,
) -> GameState:
    """A round-1 game in which seat ``first_starter + i`` holds and rolls ``plays[i]``."""
    n = len(plays)
    state = new_game(n, dice_set, variant, first_starter)
    hands: list[list[str]] = [[] for _ in range(n)]
    for i, (kind, _) in enumerate(plays):
        hands[(first_starter + i) % n] = [kind]
    deal(state, hands)
    bid_all(state, bids if bids is not None else [0] * n)
    play_trick(state, plays)
    return state


def codes(ds: DiceSet, rolls: Sequence[tuple[int, int | str]]) -> list[tuple[int, int]]:
    return [(seat, ds.face(face).code) for seat, face in rolls]


def phase_of(state: GameState) -> Phase:
    """The phase, read through a call so that mypy does not narrow it across actions."""
    return state.phase


def kind_rolls(state: GameState) -> set[str]:
    return {a.kind.name for a in state.legal_actions() if isinstance(a, Roll)}


# -- R1 Players ---------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_r1_three_to_six_players(players: int) -> None:
    state = new_game(players)
    assert state.n == players
    assert len(state.totals) == players


@pytest.mark.parametrize("players", [0, 1, 2, 7, 8])
def test_r1_other_player_counts_refused(players: int) -> None:
    with pytest.raises(IllegalActionError) as info:
        new_game(players)
    assert info.value.rule == "R1"
    with pytest.raises(ValueError, match="3 to 6"):
        rounds_for(players)


# -- R2 Rounds ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "expected"), [(3, 8), (4, 8), (5, 7), (6, 6)])
def test_r2_round_count(players: int, expected: int) -> None:
    assert rounds_for(players) == expected
    state = new_game(players)
    assert state.n_rounds == expected
    play_random_game(state, seed=players)
    assert state.current_player == TERMINAL
    assert state.round_no == expected
    assert len(state.rounds) == expected
    for r, log in enumerate(state.rounds, start=1):
        # round r: every player plays r dice, so r tricks of one die per player
        assert [state.dice_set.hand_of_key(k).size for k in log.hands] == [r] * players
        assert len(log.tricks) == r
        assert len(log.winners) == r
        assert all(len(trick) == players for trick in log.tricks)


# -- R3 Bag -------------------------------------------------------------------------------


def test_r3_all_36_dice_in_bag_at_start() -> None:
    state = new_game(4)
    assert sum(state.bag) == 36
    assert state.bag == [1, 3, 2, 7, 7, 8, 8]
    assert [k.count for k in MINO.kinds] == [1, 3, 2, 7, 7, 8, 8]
    assert MINO.size == SKULL.size == 36


def test_r3_bag_refilled_every_round() -> None:
    state = new_game(3)
    # round 1: the only minotaur is drawn
    deal(state, [["minotaur"], ["red"], ["red"]])
    assert state.bag[MINO.kind("minotaur").index] == 0
    assert sum(state.bag) == 33
    bid_all(state, [1, 0, 0])
    play_trick(state, [("minotaur", "minotaur"), ("red", 5), ("red", 6)])
    # round 2 begins with every die back in the bag: the minotaur may be drawn again
    assert state.round_no == 2
    assert state.phase is Phase.DRAW
    assert state.bag == [k.count for k in MINO.kinds]
    deal(state, [["minotaur", "red"], ["griffin", "griffin"], ["griffin", "mermaid"]])
    assert state.hand(0) == Hand.from_kinds(MINO, ["minotaur", "red"])
    assert sum(state.bag) == 30


def test_r3_bag_refilled_through_whole_game() -> None:
    state = new_game(4)
    rng = random.Random(11)
    while not state.is_terminal():
        if state.phase is Phase.DRAW and state.drawing_seat == 0:
            assert state.bag == [k.count for k in MINO.kinds]
        random_step(state, rng)
    # round 8 with 4 players draws 32 of the 36 dice
    assert sum(MINO.hand_of_key(k).size for k in state.rounds[-1].hands) == 32


def test_r3_draw_cannot_exceed_set_counts_across_seats() -> None:
    state = new_game(3)
    skip_to_round(state, 2)
    state.apply_chance(Hand.from_kinds(MINO, ["minotaur", "red"]))
    with pytest.raises(IllegalActionError) as info:
        state.apply_chance(Hand.from_kinds(MINO, ["minotaur", "yellow"]))
    assert info.value.rule == "R3"
    assert "minotaur" in str(info.value)
    # the refused draw changed nothing: seat 1 still draws
    assert state.drawing_seat == 1
    state.apply_chance(Hand.from_kinds(MINO, ["griffin", "yellow"]))
    assert state.drawing_seat == 2


def test_r3_one_hand_cannot_exceed_set_counts() -> None:
    state = new_game(3)
    skip_to_round(state, 4)
    with pytest.raises(IllegalActionError) as info:
        state.apply_chance(Hand.from_kinds(MINO, ["griffin"] * 4))
    assert info.value.rule == "R3"
    assert "griffin" in str(info.value)
    assert state.bag == [k.count for k in MINO.kinds]


def test_r3_mermaids_run_out() -> None:
    state = new_game(3)
    skip_to_round(state, 2)
    deal(state, [["mermaid", "red"], ["mermaid", "red"]])
    with pytest.raises(IllegalActionError) as info:
        state.apply_chance(Hand.from_kinds(MINO, ["mermaid", "red"]))
    assert info.value.rule == "R3"


# -- R4 Draw ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 6])
def test_r4_hand_size_is_round_number(players: int) -> None:
    state = new_game(players)
    rng = random.Random(4)
    seen_rounds = 0
    while not state.is_terminal():
        if state.phase is Phase.BID and not any(b >= 0 for b in state.bids):
            seen_rounds += 1
            assert [state.hand(s).size for s in range(players)] == [state.round_no] * players
        random_step(state, rng)
    assert seen_rounds == rounds_for(players)


@pytest.mark.parametrize("size", [0, 1, 3, 4])
def test_r4_wrong_hand_size_refused(size: int) -> None:
    state = new_game(4)
    skip_to_round(state, 2)
    with pytest.raises(IllegalActionError) as info:
        state.apply_chance(Hand.from_kinds(MINO, ["purple"] * size))
    assert info.value.rule == "R4"
    assert state.drawing_seat == 0


def test_r4_hand_of_other_dice_set_refused() -> None:
    state = new_game(3)
    with pytest.raises(IllegalActionError) as info:
        state.apply_chance(Hand.from_kinds(SKULL, ["black"]))
    assert info.value.rule == "R4"


def test_r4_hands_hidden_from_other_players() -> None:
    state = new_game(3)
    skip_to_round(state, 3)
    deal(state, [["red", "red", "gray"], ["minotaur", "griffin", "mermaid"],
                 ["purple", "purple", "yellow"]])
    for seat in range(3):
        v = view(state, seat)
        assert v.hand == state.hand(seat)
        assert v.hand_sizes == (3, 3, 3)
    assert view(state, 0).hand != view(state, 1).hand
    # a seat's view mentions no die of another seat's hand
    assert "minotaur" not in str(view(state, 0).hand)


def test_r4_draw_is_chance() -> None:
    state = new_game(4)
    for seat in range(4):
        assert state.current_player == CHANCE
        assert state.phase is Phase.DRAW
        assert state.drawing_seat == seat
        state.apply_chance(Hand.from_kinds(MINO, ["gray"]))
    assert state.phase is Phase.BID
    assert state.current_player >= 0


# -- R5 Start player ----------------------------------------------------------------------


def round_starts(state: GameState, seed: int,
                 at_each_round: Callable[[GameState], None] | None = None
                 ) -> tuple[list[int], list[int]]:
    """A random game played out: each round's start player and its first trick's leader
    (``at_each_round`` sees the state as each round's draw begins)."""
    rng = random.Random(seed)
    starters: list[int] = []
    leaders: list[int] = []
    while not state.is_terminal():
        if state.phase is Phase.DRAW and state.drawing_seat == 0:
            starters.append(state.starter)
            if at_each_round is not None:
                at_each_round(state)
        if state.phase is Phase.PLAY and state.trick_number() == 1 and not state.trick:
            leaders.append(state.leader)
        random_step(state, rng)
    return starters, leaders


@pytest.mark.parametrize(("players", "first"), [(3, 0), (3, 2), (4, 1), (5, 4), (6, 3)])
def test_r5_start_player_rotates_clockwise(players: int, first: int) -> None:
    starters, leaders = round_starts(new_game(players, first_starter=first), first)
    expected = [(first + r) % players for r in range(rounds_for(players))]
    assert starters == expected
    assert leaders == expected  # R7: the start player leads the first trick


@pytest.mark.parametrize(("players", "first"), [(3, 2), (4, 1), (6, 5)])
def test_r5_open_point_a_fixed_start_player(players: int, first: int) -> None:
    """R5 [default] kept configurable: with ``start=fixed`` round 1's start player starts,
    and leads, every round; the view and a state made for one round agree."""
    options = RuleOptions(start=StartRule.FIXED)
    config = GameConfig(players, MINO, Variant.STANDARD, first, options)

    def same_in_views(state: GameState) -> None:
        assert view(state, 0).starter == first
        assert GameState.at_round(config, state.round_no).starter == first

    starters, leaders = round_starts(GameState(config), first, same_in_views)
    assert starters == leaders == [first] * rounds_for(players)


@pytest.mark.parametrize("first", [-1, 4, 9])
def test_r5_first_starter_must_be_a_player(first: int) -> None:
    with pytest.raises(IllegalActionError) as info:
        new_game(4, first_starter=first)
    assert info.value.rule == "R5"


def test_r5_view_shows_starter() -> None:
    state = new_game(5, first_starter=3)
    assert all(view(state, s).starter == 3 for s in range(5))
    skip_to_round(state, 2)
    assert view(state, 0).starter == 4
    skip_to_round(state, 3)
    assert view(state, 0).starter == 0


# -- R6 Bidding ---------------------------------------------------------------------------


def test_r6_bids_range_zero_to_round() -> None:
    state = new_game(3)
    skip_to_round(state, 5)
    deal(state, [["gray"] * 5, ["purple"] * 5, ["red"] * 5])
    assert state.phase is Phase.BID
    for seat in range(3):
        assert state.legal_actions(seat) == tuple(Bid(n) for n in range(6))
    for bad in (6, 7, -1):
        with pytest.raises(IllegalActionError) as info:
            state.apply(Bid(bad), seat=1)
        assert info.value.rule == "R6"
    assert state.bids == [-1, -1, -1]
    state.apply(Bid(5), seat=1)
    state.apply(Bid(0), seat=0)
    state.apply(Bid(3), seat=2)
    assert state.rounds[-1].bids == [0, 5, 3]


def test_r6_round_one_bids_zero_or_one() -> None:
    state = new_game(4)
    deal(state, [["red"]] * 4)
    assert state.legal_actions() == (Bid(0), Bid(1))
    with pytest.raises(IllegalActionError) as info:
        state.apply(Bid(2))
    assert info.value.rule == "R6"


def test_r6_double_bid_refused() -> None:
    state = new_game(3)
    deal(state, [["red"], ["yellow"], ["purple"]])
    state.apply(Bid(1), seat=2)
    assert state.legal_actions(2) == ()
    with pytest.raises(IllegalActionError) as info:
        state.apply(Bid(0), seat=2)
    assert info.value.rule == "R6"
    assert state.bids[2] == 1
    assert state.bidders() == [0, 1]


@pytest.mark.parametrize("order", list(itertools.permutations(range(3))))
def test_r6_any_seat_may_bid_first(order: tuple[int, int, int]) -> None:
    state = new_game(3, first_starter=1)
    deal(state, [["red"], ["yellow"], ["purple"]])
    bids = [1, 0, 1]
    for i, seat in enumerate(order):
        assert state.phase is Phase.BID
        assert seat in state.bidders()
        state.apply(Bid(bids[seat]), seat=seat)
        if i < 2:
            assert len(state.bidders()) == 2 - i
            assert view(state, seat).bids[seat] == bids[seat]
    assert state.phase is Phase.PLAY
    assert state.rounds[-1].bids == bids
    assert state.current_player == 1  # R7: the start player leads whatever the bid order


def test_r6_current_player_names_next_unbid_seat() -> None:
    state = new_game(4, first_starter=2)
    deal(state, [["red"]] * 4)
    assert state.current_player == 2
    state.apply(Bid(0), seat=3)      # out of turn: allowed (simultaneous bidding)
    assert state.current_player == 2
    state.apply(Bid(0))              # seat 2
    assert state.bids[2] == 0
    assert state.current_player == 0  # seat 3 already bid
    state.apply(Bid(1))
    assert state.current_player == 1


def test_r6_bids_secret_until_all_in() -> None:
    state = new_game(4)
    deal(state, [["red"], ["yellow"], ["purple"], ["gray"]])
    secret = [1, 0, 1, 0]
    for seat in (2, 0, 3):
        state.apply(Bid(secret[seat]), seat=seat)
        for viewer in range(4):
            v = view(state, viewer)
            # a player sees their own bid, nobody else's
            for other in range(4):
                if other == viewer and state.bids[viewer] >= 0:
                    assert v.bids[other] == secret[other]
                else:
                    assert v.bids[other] is None
            assert not v.all_bids_in
            # who has bid is public, what is not
            assert v.has_bid == tuple(state.bids[s] >= 0 for s in range(4))
    state.apply(Bid(secret[1]), seat=1)
    for viewer in range(4):
        v = view(state, viewer)
        assert v.bids == tuple(secret)   # revealed together
        assert v.all_bids_in


def test_r6_no_bid_before_draw_or_during_play() -> None:
    state = new_game(3)
    with pytest.raises(IllegalActionError) as info:
        state.apply(Bid(0), seat=0)
    assert info.value.rule == "R6"
    deal(state, [["red"], ["yellow"], ["purple"]])
    bid_all(state, [0, 0, 1])
    with pytest.raises(IllegalActionError) as info:
        state.apply(Bid(0), seat=0)
    assert info.value.rule == "R6"


def test_r6_no_roll_during_bidding() -> None:
    state = new_game(3)
    deal(state, [["red"], ["yellow"], ["purple"]])
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")))
    assert info.value.rule in ("R6", "R8")
    assert state.phase is Phase.BID


# -- R7 Leading ---------------------------------------------------------------------------


def test_r7_start_player_leads_then_winner_leads() -> None:
    state = new_game(4, first_starter=2)
    skip_to_round(state, 3)
    assert state.starter == 0
    deal(state, [["red", "red", "red"], ["yellow", "yellow", "yellow"],
                 ["purple", "purple", "purple"], ["gray", "gray", "gray"]])
    bid_all(state, [1, 1, 0, 1])
    assert state.leader == 0
    assert state.current_player == 0
    # trick 1: D's gray 7 wins, so D leads trick 2
    assert play_trick(state, [("red", 5), ("yellow", 3), ("purple", 1), ("gray", 7)]) == 3
    assert state.leader == 3
    assert state.current_player == 3
    # trick 2 from D: A's red 7 wins (highest), so A leads trick 3
    assert play_trick(state, [("gray", 1), ("red", 7), ("yellow", 5), ("purple", 3)]) == 0
    assert state.leader == 0
    assert state.current_player == 0
    # trick 3 from A: B's yellow 5 beats a red 5 rolled earlier (tie: later wins)
    assert play_trick(state, [("red", 5), ("yellow", 5), ("purple", 3), ("gray", "flag")]) == 1
    assert state.rounds[2].winners == [3, 0, 1]


def test_r7_only_leader_may_roll_first() -> None:
    state = new_game(3, first_starter=1)
    deal(state, [["red"], ["yellow"], ["purple"]])
    bid_all(state, [0, 0, 0])
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")), seat=0)
    assert info.value.rule == "R7"
    assert state.legal_actions(0) == ()
    assert state.legal_actions(1) == (Roll(MINO.kind("yellow")),)


# -- R8 Playing ---------------------------------------------------------------------------


def test_r8_one_die_each_clockwise_from_leader() -> None:
    state = new_game(5, first_starter=3)
    deal(state, [["red"], ["yellow"], ["purple"], ["gray"], ["mermaid"]])
    bid_all(state, [0] * 5)
    order: list[int] = []
    for _ in range(5):
        seat = state.current_player
        order.append(seat)
        kind = state.hand(seat).names()[0]
        state.apply(Roll(MINO.kind(kind)))
        state.apply_chance(MINO.kind(kind).faces[0])
        assert state.hand(seat).size == 0  # the die left the screen
    assert order == [3, 4, 0, 1, 2]
    assert [seat for seat, _, _ in state.rounds[0].tricks[0]] == order


def test_r8_out_of_turn_roll_refused() -> None:
    state = new_game(4)
    deal(state, [["red"]] * 4)
    bid_all(state, [0] * 4)
    roll(state, "red", 5)
    assert state.current_player == 1
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")), seat=2)
    assert info.value.rule == "R8"
    assert state.legal_actions(2) == ()
    assert state.current_player == 1


def test_r8_roll_only_a_held_die() -> None:
    state = new_game(3, first_starter=2)
    skip_to_round(state, 2)
    assert state.starter == 0
    deal(state, [["red", "gray"], ["yellow", "yellow"], ["purple", "purple"]])
    bid_all(state, [0, 0, 0])
    assert kind_rolls(state) == {"red", "gray"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("griffin")))
    assert info.value.rule == "R8"
    assert "griffin" in str(info.value)


def test_r8_each_die_rolled_once() -> None:
    state = new_game(3, first_starter=2)
    skip_to_round(state, 2)
    assert state.starter == 0
    deal(state, [["red", "gray"], ["yellow", "yellow"], ["purple", "purple"]])
    bid_all(state, [0, 0, 0])
    assert play_trick(state, [("red", 7), ("yellow", 3), ("purple", 1)]) == 0
    # the red die was rolled in trick 1: only the gray die is left
    assert kind_rolls(state) == {"gray"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")))
    assert info.value.rule == "R8"


@pytest.mark.parametrize(("kind", "bad"), [
    ("red", 4), ("red", "flag"), ("purple", "flag"), ("purple", 4), ("yellow", 6),
    ("gray", 2), ("gray", 5), ("minotaur", "griffin"), ("griffin", "mermaid"),
    ("mermaid", 7), ("minotaur", 1),
])
def test_r8_face_must_be_one_of_the_die(kind: str, bad: int | str) -> None:
    state = new_game(3)
    deal(state, [[kind], ["red"], ["red"]])
    bid_all(state, [0, 0, 0])
    state.apply(Roll(MINO.kind(kind)))
    with pytest.raises(IllegalActionError) as info:
        state.apply_chance(MINO.face(bad))
    assert info.value.rule == "R8"
    assert state.current_player == CHANCE  # still waiting for a real face
    state.apply_chance(MINO.kind(kind).faces[0])
    assert state.current_player == 1


def test_r8_roll_probabilities_gray() -> None:
    state = new_game(3)
    deal(state, [["gray"], ["red"], ["red"]])
    bid_all(state, [0, 0, 0])
    state.apply(Roll(MINO.kind("gray")))
    outcomes = dict(state.chance_outcomes())
    assert outcomes == {
        MINO.face("flag"): Fraction(1, 2),
        MINO.face(1): Fraction(1, 3),
        MINO.face(7): Fraction(1, 6),
    }
    assert sum(outcomes.values()) == 1


@pytest.mark.parametrize(("kind", "expected"), [
    ("minotaur", {"minotaur": Fraction(2, 3), "flag": Fraction(1, 3)}),
    ("griffin", {"griffin": Fraction(2, 3), "flag": Fraction(1, 3)}),
    ("mermaid", {"mermaid": Fraction(2, 3), "flag": Fraction(1, 3)}),
    ("red", {"5": Fraction(1, 3), "6": Fraction(1, 3), "7": Fraction(1, 3)}),
    ("yellow", {"3": Fraction(1, 3), "4": Fraction(1, 3), "5": Fraction(1, 3)}),
    ("purple", {"1": Fraction(1, 3), "2": Fraction(1, 3), "3": Fraction(1, 3)}),
    ("gray", {"flag": Fraction(1, 2), "1": Fraction(1, 3), "7": Fraction(1, 6)}),
])
def test_r8_roll_probabilities_every_kind(kind: str, expected: dict[str, Fraction]) -> None:
    state = new_game(3)
    deal(state, [[kind], ["red"], ["red"]])
    bid_all(state, [0, 0, 0])
    state.apply(Roll(MINO.kind(kind)))
    assert state.pending_roll == Roll(MINO.kind(kind))
    outcomes = state.chance_outcomes()
    assert {str(face): p for face, p in outcomes} == expected
    assert sum(p for _, p in outcomes) == 1
    assert all(isinstance(face, Face) for face, _ in outcomes)


def test_r8_dice_faces_match_rules_table() -> None:
    table = {
        "minotaur": ["minotaur"] * 4 + ["flag"] * 2,
        "griffin": ["griffin"] * 4 + ["flag"] * 2,
        "mermaid": ["mermaid"] * 4 + ["flag"] * 2,
        "red": ["5", "5", "6", "6", "7", "7"],
        "yellow": ["3", "3", "4", "4", "5", "5"],
        "purple": ["1", "1", "2", "2", "3", "3"],
        "gray": ["flag", "flag", "flag", "1", "1", "7"],
    }
    for name, faces in table.items():
        assert sorted(str(f) for f in MINO.kind(name).faces) == sorted(faces)
    assert {k.name for k in MINO.kinds if k.special} == {"minotaur", "griffin", "mermaid"}


def test_r8_draw_probabilities_round_one() -> None:
    state = new_game(4)
    outcomes = {str(h): p for h, p in state.chance_outcomes()}
    assert outcomes == {
        "minotaur": Fraction(1, 36), "griffin": Fraction(3, 36), "mermaid": Fraction(2, 36),
        "red": Fraction(7, 36), "yellow": Fraction(7, 36), "purple": Fraction(8, 36),
        "gray": Fraction(8, 36),
    }
    assert sum(outcomes.values()) == Fraction(1)


def _brute_force_draws(bag: Sequence[int], r: int) -> dict[tuple[int, ...], Fraction]:
    """Every r-subset of the physical dice in the bag, counted by the hand it makes."""
    dice = [kind for kind, count in enumerate(bag) for _ in range(count)]
    counter: Counter[tuple[int, ...]] = Counter()
    for combo in itertools.combinations(range(len(dice)), r):
        counts = [0] * len(bag)
        for i in combo:
            counts[dice[i]] += 1
        counter[tuple(counts)] += 1
    total = comb(len(dice), r)
    return {hand: Fraction(ways, total) for hand, ways in counter.items()}


def test_r8_draw_probabilities_hypergeometric() -> None:
    state = new_game(4)
    skip_to_round(state, 2)
    outcomes = state.chance_outcomes()
    assert sum(p for _, p in outcomes) == Fraction(1)
    probs = {h: p for h, p in outcomes if isinstance(h, Hand)}
    # by hand: two red dice out of 36 = C(7,2)/C(36,2) = 21/630 = 1/30
    assert probs[Hand.from_kinds(MINO, ["red", "red"])] == Fraction(1, 30)
    # the minotaur and a griffin: 1*3/630
    assert probs[Hand.from_kinds(MINO, ["minotaur", "griffin"])] == Fraction(1, 210)
    # two minotaurs are impossible (only one in the set): 27 distinct hands in all
    assert len(probs) == 27
    assert Hand.from_kinds(MINO, ["minotaur", "minotaur"]) not in probs
    # seat 0 takes two red dice; for seat 1 there are C(5,2)/C(34,2) = 10/561 ways to do so
    state.apply_chance(Hand.from_kinds(MINO, ["red", "red"]))
    probs1 = {h: p for h, p in state.chance_outcomes() if isinstance(h, Hand)}
    assert probs1[Hand.from_kinds(MINO, ["red", "red"])] == Fraction(10, 561)
    assert sum(probs1.values()) == Fraction(1)


@pytest.mark.parametrize(("round_no", "taken"), [(2, []), (3, [["griffin", "red", "red"]])])
def test_r8_draw_probabilities_match_brute_force(round_no: int, taken: list[list[str]]) -> None:
    state = new_game(3)
    skip_to_round(state, round_no)
    deal(state, taken)
    expected = _brute_force_draws(state.bag, round_no)
    got = {h.counts: p for h, p in state.chance_outcomes() if isinstance(h, Hand)}
    assert got == expected
    assert sum(got.values()) == Fraction(1)


def test_r8_no_chance_outcomes_at_decisions() -> None:
    state = new_game(3)
    deal(state, [["red"], ["yellow"], ["purple"]])
    assert state.chance_outcomes() == []
    with pytest.raises(IllegalActionError):
        state.sample_chance(random.Random(0))


def test_r8_sampled_roll_frequencies_follow_faces() -> None:
    state = new_game(3)
    deal(state, [["gray"], ["red"], ["red"]])
    bid_all(state, [0, 0, 0])
    state.apply(Roll(MINO.kind("gray")))
    rng = random.Random(2024)
    counts = Counter(str(state.sample_chance(rng)) for _ in range(6000))
    assert set(counts) == {"flag", "1", "7"}
    assert abs(counts["flag"] / 6000 - 1 / 2) < 0.03
    assert abs(counts["1"] / 6000 - 1 / 3) < 0.03
    assert abs(counts["7"] / 6000 - 1 / 6) < 0.03


# -- R9 Following colour ------------------------------------------------------------------


def r9_state(hands: Sequence[Sequence[str]], first_starter: int = 0) -> GameState:
    """A game in round len(hands[0]) with the given hands, bids made, ready to play."""
    n = len(hands)
    r = len(hands[0])
    state = new_game(n, first_starter=(first_starter - (r - 1)) % n)
    skip_to_round(state, r)
    assert state.starter == first_starter
    deal(state, hands)
    bid_all(state, [0] * n)
    return state


def test_r9_must_follow_first_number_colour() -> None:
    state = r9_state([["red", "gray"], ["red", "yellow"], ["purple", "gray"]])
    roll(state, "red", 6)
    assert state.follow == MINO.kind("red").index
    assert view(state, 1).follow == "red"
    assert kind_rolls(state) == {"red"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("yellow")))
    assert info.value.rule == "R9"
    assert "red" in str(info.value)
    assert info.value.seat == 1
    roll(state, "red", 5)
    # C holds no red: any die
    assert kind_rolls(state) == {"purple", "gray"}
    roll(state, "gray", 7)
    assert state.rounds[-1].winners == [2]


def test_r9_special_die_always_allowed() -> None:
    state = r9_state([["yellow", "red", "gray"], ["yellow", "yellow", "griffin"],
                      ["minotaur", "mermaid", "yellow"]])
    roll(state, "yellow", 4)
    assert kind_rolls(state) == {"yellow", "griffin"}
    roll(state, "griffin", "griffin")   # allowed although B holds yellow
    assert kind_rolls(state) == {"yellow", "minotaur", "mermaid"}
    roll(state, "mermaid", "mermaid")   # allowed although C holds yellow
    assert state.rounds[-1].winners == [1]  # griffin beats mermaid


def test_r9_special_leading_sets_no_colour() -> None:
    state = r9_state([["griffin", "red"], ["red", "purple"], ["purple", "red"]])
    roll(state, "griffin", "griffin")
    assert state.follow == -1
    assert view(state, 1).follow is None
    assert kind_rolls(state) == {"red", "purple"}  # nothing to follow yet
    roll(state, "purple", 2)   # the first number die sets the colour: purple
    assert view(state, 2).follow == "purple"
    assert kind_rolls(state) == {"purple"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")))
    assert info.value.rule == "R9"
    assert "purple" in str(info.value)


def test_r9_open_point_a_special_lead_leaves_the_trick_without_colour() -> None:
    """R9 [default] kept configurable: with ``special-lead=no-colour`` the number die
    rolled after a special lead sets no colour (the default's trick above, C free to
    roll red), while a number die that leads still does."""
    options = RuleOptions(special_lead=SpecialLead.NO_COLOUR)
    hands = [["griffin", "red", "gray"], ["red", "purple", "yellow"],
             ["purple", "red", "yellow"]]
    state = GameState(GameConfig(3, MINO, Variant.STANDARD, 1, options))
    skip_to_round(state, 3)
    assert state.starter == 0
    deal(state, hands)
    bid_all(state, [0, 0, 0])
    roll(state, "griffin", "griffin")
    roll(state, "purple", 2)
    assert state.follow == -1
    assert view(state, 2).follow is None
    assert kind_rolls(state) == {"purple", "red", "yellow"}
    roll(state, "red", 7)  # would break the default's R9 (C holds purple)
    assert state.rounds[-1].winners == [0]  # the griffin
    roll(state, "red", 5)  # seat 0 leads a number die: red is to be followed
    assert view(state, 1).follow == "red"
    assert kind_rolls(state) == {"red"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("yellow")))
    assert info.value.rule == "R9"


def test_r9_special_showing_flag_sets_no_colour() -> None:
    state = r9_state([["mermaid", "red"], ["minotaur", "red"], ["yellow", "red"],
                      ["yellow", "gray"]])
    roll(state, "mermaid", "flag")
    roll(state, "minotaur", "flag")
    assert state.follow == -1
    assert kind_rolls(state) == {"yellow", "red"}
    roll(state, "yellow", 3)
    assert kind_rolls(state) == {"yellow"}


def test_r9_colour_is_the_die_not_its_face() -> None:
    # a gray die showing a flag is still a gray number die: gray is to be followed
    state = r9_state([["gray", "red"], ["gray", "red"], ["red", "red"]])
    roll(state, "gray", "flag")
    assert view(state, 1).follow == "gray"
    assert kind_rolls(state) == {"gray"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")))
    assert info.value.rule == "R9"
    assert "gray" in str(info.value)


def test_r9_later_number_die_does_not_change_colour() -> None:
    state = r9_state([["red", "red"], ["yellow", "purple"], ["yellow", "red"]])
    roll(state, "red", 5)
    roll(state, "yellow", 5)   # B holds no red: may roll yellow, colour stays red
    assert view(state, 2).follow == "red"
    assert kind_rolls(state) == {"red"}


def test_r9_no_die_of_colour_anything_goes() -> None:
    state = r9_state([["red", "red", "red"], ["gray", "griffin", "purple"],
                      ["yellow", "yellow", "mermaid"]])
    roll(state, "red", 7)
    assert kind_rolls(state) == {"gray", "griffin", "purple"}
    roll(state, "purple", 3)
    assert kind_rolls(state) == {"yellow", "mermaid"}
    roll(state, "yellow", 5)
    assert state.rounds[-1].winners == [0]


def test_r9_colour_resets_each_trick() -> None:
    state = r9_state([["red", "yellow"], ["red", "yellow"], ["red", "yellow"]])
    assert play_trick(state, [("red", 5), ("red", 6), ("red", 7)]) == 2
    assert state.follow == -1
    assert kind_rolls(state) == {"yellow"}  # C has only yellow left
    roll(state, "yellow", 3)
    assert kind_rolls(state) == {"yellow"}


def test_r9_held_colour_with_legal_actions_consistent() -> None:
    # every die the engine lists as legal can be rolled, every other one is refused
    state = r9_state([["purple", "red", "gray", "minotaur"],
                      ["purple", "purple", "griffin", "yellow"],
                      ["red", "yellow", "gray", "mermaid"]])
    roll(state, "purple", 1)
    legal = kind_rolls(state)
    assert legal == {"purple", "griffin"}
    for name in ("yellow", "red", "gray"):
        with pytest.raises(IllegalActionError) as info:
            state.apply(Roll(MINO.kind(name)))
        assert info.value.rule == ("R9" if name == "yellow" else "R8")
    for name in sorted(legal):
        copy = state.clone()
        copy.apply(Roll(MINO.kind(name)))
        assert copy.current_player == CHANCE


# -- R10 Winning a trick ------------------------------------------------------------------


R10_CASES: list[tuple[str, list[tuple[int, int]], int, Reason]] = [
    ("minotaur alone beats numbers", [(0, 7), (1, MINOTAUR), (2, 7)], 1, Reason.ONLY_SYMBOL),
    ("griffin alone beats numbers", [(0, GRIFFIN), (1, 7), (2, 6)], 0, Reason.ONLY_SYMBOL),
    ("mermaid alone beats flags", [(0, FLAG), (1, FLAG), (2, MERMAID)], 2, Reason.ONLY_SYMBOL),
    ("minotaur beats griffin", [(0, GRIFFIN), (1, MINOTAUR), (2, 7)], 1, Reason.BEATS),
    ("minotaur beats griffin (other order)", [(0, MINOTAUR), (1, GRIFFIN)], 0, Reason.BEATS),
    ("griffin beats mermaid", [(0, MERMAID), (1, GRIFFIN), (2, 3)], 1, Reason.BEATS),
    ("griffin beats mermaid (other order)", [(0, GRIFFIN), (1, MERMAID)], 0, Reason.BEATS),
    ("mermaid beats minotaur", [(0, MINOTAUR), (1, MERMAID), (2, 1)], 1, Reason.BEATS),
    ("mermaid beats minotaur (other order)", [(0, MERMAID), (1, MINOTAUR)], 0, Reason.BEATS),
    ("all three: mermaid", [(0, MERMAID), (1, MINOTAUR), (2, GRIFFIN)], 0, Reason.ALL_THREE),
    ("all three, mermaid last", [(0, GRIFFIN), (1, MINOTAUR), (2, MERMAID)], 2,
     Reason.ALL_THREE),
    ("two griffins: the last", [(0, GRIFFIN), (1, 7), (2, GRIFFIN), (3, 5)], 2,
     Reason.SAME_SYMBOL),
    ("three griffins: the last", [(3, GRIFFIN), (0, GRIFFIN), (1, GRIFFIN), (2, 7)], 1,
     Reason.SAME_SYMBOL),
    ("two mermaids: the last", [(0, MERMAID), (1, MERMAID), (2, FLAG)], 1, Reason.SAME_SYMBOL),
    ("minotaur beats two griffins", [(0, GRIFFIN), (1, MINOTAUR), (2, GRIFFIN)], 1,
     Reason.BEATS),
    ("two griffins beat a mermaid: last griffin", [(0, GRIFFIN), (1, MERMAID), (2, GRIFFIN)],
     2, Reason.BEATS),
    ("two mermaids beat the minotaur: last mermaid",
     [(0, MERMAID), (1, MINOTAUR), (2, MERMAID), (3, 7)], 2, Reason.BEATS),
    ("all three with two mermaids: last mermaid",
     [(0, MERMAID), (1, GRIFFIN), (2, MERMAID), (3, MINOTAUR)], 2, Reason.ALL_THREE),
    ("highest number whatever colour", [(0, 6), (1, 7), (2, 2), (3, FLAG)], 1, Reason.HIGHEST),
    ("number beats flags", [(0, FLAG), (1, 1), (2, FLAG)], 1, Reason.HIGHEST),
    ("tie: later roll wins", [(0, 5), (1, 5), (2, 3)], 1, Reason.TIE),
    ("three-way tie: the last", [(2, 7), (0, 7), (1, 7)], 1, Reason.TIE),
    ("tie below a higher number", [(0, 3), (1, 3), (2, 4)], 2, Reason.HIGHEST),
    ("only flags: leader", [(0, FLAG), (1, FLAG), (2, FLAG)], 0, Reason.ONLY_FLAGS),
    ("only flags: leader not seat 0", [(2, FLAG), (0, FLAG), (1, FLAG), (3, FLAG)], 2,
     Reason.ONLY_FLAGS),
]


@pytest.mark.parametrize(("rolls", "winner", "reason"),
                         [c[1:] for c in R10_CASES], ids=[c[0] for c in R10_CASES])
def test_r10_resolve_trick(rolls: list[tuple[int, int]], winner: int, reason: Reason) -> None:
    result = resolve_trick(rolls)
    assert result.winner == winner
    assert result.reason is reason
    assert rolls[result.winning_roll][0] == winner


def test_r10_empty_trick_refused() -> None:
    with pytest.raises(ValueError, match="at least one roll"):
        resolve_trick([])


SYMBOL_DIE = {"minotaur": "minotaur", "griffin": "griffin", "mermaid": "mermaid"}


@pytest.mark.parametrize("order", list(itertools.permutations(["minotaur", "griffin", "mermaid"])))
def test_r10_all_three_symbols_mermaid_wins_engine(order: tuple[str, str, str]) -> None:
    state = one_trick_round([(s, s) for s in order])
    assert state.rounds[0].winners == [order.index("mermaid")]


@pytest.mark.parametrize(("first", "second", "winner_symbol"), [
    ("minotaur", "griffin", "minotaur"), ("griffin", "minotaur", "minotaur"),
    ("griffin", "mermaid", "griffin"), ("mermaid", "griffin", "griffin"),
    ("mermaid", "minotaur", "mermaid"), ("minotaur", "mermaid", "mermaid"),
])
def test_r10_two_symbols_engine(first: str, second: str, winner_symbol: str) -> None:
    # a number die rolled between and after the symbols never matters
    state = one_trick_round([(first, first), ("red", 7), (second, second), ("gray", 7)])
    expected = 0 if winner_symbol == first else 2
    assert state.rounds[0].winners == [expected]


@pytest.mark.parametrize("symbol", ["minotaur", "griffin", "mermaid"])
def test_r10_single_symbol_beats_numbers_engine(symbol: str) -> None:
    state = one_trick_round([("red", 7), ("gray", 7), (symbol, symbol), ("red", 7)])
    assert state.rounds[0].winners == [2]


def test_r10_several_griffins_last_rolled_wins_engine() -> None:
    state = one_trick_round([("griffin", "griffin"), ("griffin", "griffin"), ("red", 7),
                             ("griffin", "griffin"), ("gray", 7)])
    assert state.rounds[0].winners == [3]


def test_r10_several_griffins_one_shows_flag_engine() -> None:
    state = one_trick_round([("griffin", "griffin"), ("griffin", "griffin"),
                             ("griffin", "flag")])
    assert state.rounds[0].winners == [1]


def test_r10_highest_number_tie_later_wins_engine() -> None:
    # leader is seat 2; the later of two 7s (seat 0, rolled third) wins
    state = one_trick_round([("gray", 7), ("purple", 3), ("red", 7), ("yellow", 5)],
                            first_starter=2)
    assert state.rounds[0].winners == [0]


def test_r10_only_flags_leader_wins_engine() -> None:
    state = one_trick_round([("gray", "flag"), ("griffin", "flag"), ("minotaur", "flag"),
                             ("gray", "flag")], first_starter=1)
    assert state.rounds[0].winners == [1]


def test_r10_flag_on_special_is_not_a_symbol_engine() -> None:
    # the minotaur shows a flag; the griffin is the only symbol
    state = one_trick_round([("minotaur", "flag"), ("griffin", "griffin"), ("red", 7)])
    assert state.rounds[0].winners == [1]
    # specials showing flags and numbers: the highest number wins
    state = one_trick_round([("minotaur", "flag"), ("red", 6), ("mermaid", "flag")])
    assert state.rounds[0].winners == [1]


# -- R11 Collecting -----------------------------------------------------------------------


def test_r11_winner_collects_and_round_ends_when_all_rolled() -> None:
    state = new_game(3)
    skip_to_round(state, 2)
    starter = state.starter
    assert starter == 1
    hands: list[list[str]] = [["red", "red"], ["yellow", "yellow"], ["purple", "purple"]]
    deal(state, hands)
    bid_all(state, [2, 0, 0])
    assert state.tricks_won == [0, 0, 0]
    # B leads: B yellow 3, C purple 1, A red 5 → A
    assert play_trick(state, [("yellow", 3), ("purple", 1), ("red", 5)]) == 0
    assert state.tricks_won == [1, 0, 0]
    assert state.round_no == 2
    assert state.phase is Phase.PLAY
    assert state.leader == 0
    assert [state.hand(s).size for s in range(3)] == [1, 1, 1]
    assert view(state, 2).tricks_won == (1, 0, 0)
    # A leads the last trick; once every die is rolled the round ends and is scored
    assert play_trick(state, [("red", 6), ("yellow", 4), ("purple", 2)]) == 0
    log = state.rounds[1]
    assert log.winners == [0, 0]
    assert [len(t) for t in log.tricks] == [3, 3]
    assert log.points == [40, 20, 20]
    assert state.round_no == 3
    assert phase_of(state) is Phase.DRAW


def test_r11_one_trick_won_per_trick() -> None:
    state = new_game(5)
    play_random_game(state, seed=5)
    for r, log in enumerate(state.rounds, start=1):
        assert len(log.winners) == r
        for trick, winner in zip(log.tricks, log.winners, strict=True):
            assert winner in {seat for seat, _, _ in trick}


# -- R12–R14 Scoring ----------------------------------------------------------------------


@pytest.mark.parametrize(("bid", "won", "round_no", "points"), [
    (1, 1, 1, 20), (2, 2, 5, 40), (3, 3, 3, 60), (8, 8, 8, 160),
    (3, 1, 5, -20), (1, 3, 5, -20), (2, 0, 2, -20), (1, 0, 4, -10), (5, 0, 7, -50),
])
def test_r12_bid_one_or_more(bid: int, won: int, round_no: int, points: int) -> None:
    assert round_points(bid, won, round_no, 0, Variant.STANDARD) == (points, 0)


@pytest.mark.parametrize(("won", "round_no", "points"), [
    (0, 1, 10), (0, 5, 50), (0, 8, 80), (1, 5, -50), (3, 5, -50), (1, 1, -10), (8, 8, -80),
])
def test_r13_bid_zero(won: int, round_no: int, points: int) -> None:
    assert round_points(0, won, round_no, 0, Variant.STANDARD) == (points, 0)


@pytest.mark.parametrize(("bid", "won", "bonus", "expected"), [
    (1, 1, 30, (50, 30)), (2, 2, 60, (100, 60)), (1, 1, 50, (70, 50)),
    (2, 1, 30, (-10, 0)), (1, 2, 80, (-10, 0)),
])
def test_r14_bonus_only_with_exact_bid(
    bid: int, won: int, bonus: int, expected: tuple[int, int]
) -> None:
    assert round_points(bid, won, 3, bonus, Variant.STANDARD) == expected


@pytest.mark.parametrize(("rolls", "bonus"), [
    ([(0, MINOTAUR), (1, GRIFFIN)], 30),
    ([(0, GRIFFIN), (1, MINOTAUR), (2, GRIFFIN), (3, GRIFFIN)], 90),
    ([(0, MINOTAUR), (1, GRIFFIN), (2, FLAG)], 30),      # a griffin die showing a flag
    ([(0, MINOTAUR), (1, 7), (2, 7)], 0),                 # minotaur beats numbers: nothing
    ([(0, MERMAID), (1, MINOTAUR)], 50),
    ([(0, MINOTAUR), (1, MERMAID), (2, GRIFFIN)], 50),    # all three: mermaid +50
    ([(0, GRIFFIN), (1, GRIFFIN), (2, MINOTAUR), (3, MERMAID)], 50),  # griffins: no extra
    ([(0, MERMAID), (1, FLAG), (2, 3)], 0),               # minotaur die showed a flag
    ([(0, GRIFFIN), (1, MERMAID)], 0),                    # griffin beats mermaid: nothing
    ([(0, MERMAID), (1, 7)], 0),
    ([(0, 7), (1, 5)], 0),
    ([(0, FLAG), (1, FLAG)], 0),
])
def test_r14_trick_bonus(rolls: list[tuple[int, int]], bonus: int) -> None:
    assert resolve_trick(rolls).bonus == bonus


def test_r14_minotaur_bonus_counts_only_griffin_symbols_engine() -> None:
    # A minotaur, B griffin→flag (not beaten), C griffin→griffin, D griffin→griffin
    state = one_trick_round([("minotaur", "minotaur"), ("griffin", "flag"),
                             ("griffin", "griffin"), ("griffin", "griffin")],
                            bids=[1, 0, 0, 0])
    log = state.rounds[0]
    assert log.winners == [0]
    assert log.bonus == [60, 0, 0, 0]
    assert log.points == [80, 10, 10, 10]
    assert state.totals == [80, 10, 10, 10]


def test_r14_no_bonus_for_griffins_captured_by_mermaid_engine() -> None:
    state = one_trick_round([("griffin", "griffin"), ("griffin", "griffin"),
                             ("minotaur", "minotaur"), ("mermaid", "mermaid")],
                            bids=[0, 0, 0, 1])
    log = state.rounds[0]
    assert log.winners == [3]
    assert log.bonus == [0, 0, 0, 50]   # +50 for the minotaur only, nothing for griffins
    assert log.points == [10, 10, 10, 70]


def test_r14_no_bonus_with_wrong_bid_engine() -> None:
    state = one_trick_round([("minotaur", "minotaur"), ("griffin", "griffin"), ("red", 7)],
                            bids=[0, 1, 1])
    log = state.rounds[0]
    assert log.winners == [0]
    assert log.bonus == [0, 0, 0]
    assert log.points == [-10, -10, -10]


def test_r14_mermaid_needs_minotaur_symbol_engine() -> None:
    state = one_trick_round([("mermaid", "mermaid"), ("minotaur", "flag"),
                             ("griffin", "flag")], bids=[1, 0, 0])
    log = state.rounds[0]
    assert log.winners == [0]
    assert log.bonus == [0, 0, 0]
    assert log.points == [20, 10, 10]


def test_r14_bonus_adds_up_over_tricks_of_a_round() -> None:
    state = new_game(3, first_starter=2)
    skip_to_round(state, 2)
    assert state.starter == 0
    deal(state, [["minotaur", "mermaid"], ["griffin", "red"], ["griffin", "gray"]])
    bid_all(state, [2, 0, 0])
    # trick 1: A minotaur, B griffin, C griffin → A, +60
    assert play_trick(state, [("minotaur", "minotaur"), ("griffin", "griffin"),
                              ("griffin", "griffin")]) == 0
    # trick 2: A mermaid, B red 7, C gray 7 → A (mermaid), no minotaur: +0
    assert play_trick(state, [("mermaid", "mermaid"), ("red", 7), ("gray", 7)]) == 0
    log = state.rounds[1]
    assert log.bonus == [60, 0, 0]
    assert log.points == [100, 20, 20]


def test_r14_bonus_of_loser_of_the_round_not_counted() -> None:
    # B wins a bonus trick but misses the bid: no bonus, just the penalty
    state = new_game(3, first_starter=2)
    skip_to_round(state, 2)
    deal(state, [["red", "red"], ["minotaur", "yellow"], ["griffin", "purple"]])
    bid_all(state, [1, 2, 0])
    assert play_trick(state, [("red", 5), ("minotaur", "minotaur"), ("griffin", "griffin")]) == 1
    assert play_trick(state, [("yellow", 3), ("purple", 1), ("red", 6)]) == 0
    log = state.rounds[1]
    assert log.winners == [1, 0]
    assert log.bonus == [0, 0, 0]
    assert log.points == [20, -10, 20]


# -- R15 Simplified variant ---------------------------------------------------------------


@pytest.mark.parametrize(("bid", "won", "round_no", "bonus", "expected"), [
    (2, 2, 5, 60, (40, 0)),
    (0, 0, 5, 0, (50, 0)),
    (3, 1, 5, 0, (0, 0)),
    (0, 1, 5, 0, (0, 0)),
    (1, 1, 1, 50, (20, 0)),
])
def test_r15_simplified_round_points(
    bid: int, won: int, round_no: int, bonus: int, expected: tuple[int, int]
) -> None:
    assert round_points(bid, won, round_no, bonus, Variant.SIMPLIFIED) == expected


def test_r15_simplified_engine() -> None:
    plays: list[Play] = [("minotaur", "minotaur"), ("griffin", "griffin"), ("red", 7),
                         ("gray", 7)]
    state = one_trick_round(plays, bids=[1, 1, 0, 0], variant=Variant.SIMPLIFIED)
    log = state.rounds[0]
    assert state.variant is Variant.SIMPLIFIED
    assert log.winners == [0]
    assert log.bonus == [0, 0, 0, 0]          # no bonus in the simplified variant
    assert log.points == [20, 0, 10, 10]      # missed bid: 0, not -10
    standard = one_trick_round(plays, bids=[1, 1, 0, 0])
    assert standard.rounds[0].points == [50, -10, 10, 10]  # +30: one griffin


def test_r15_simplified_never_negative() -> None:
    state = new_game(4, variant=Variant.SIMPLIFIED)
    play_random_game(state, seed=15)
    for log in state.rounds:
        assert log.points is not None
        assert log.bonus == [0, 0, 0, 0]
        assert all(p >= 0 for p in log.points)


# -- R16 End ------------------------------------------------------------------------------


@pytest.mark.parametrize(("totals", "expected"), [
    ([10, 40, 30], [1]),
    ([40, 40, 30, 0], [0, 1]),
    ([-10, -10, -10], [0, 1, 2]),
    ([0, -20, 0, 5, 5], [3, 4]),
])
def test_r16_winners(totals: list[int], expected: list[int]) -> None:
    assert rules.winners(totals) == expected


def test_r16_engine_winners_at_end_only() -> None:
    state = new_game(6)
    assert state.winners() == []
    play_random_game(state, seed=16)
    assert state.is_terminal()
    top = max(state.totals)
    assert state.winners() == [s for s in range(6) if state.totals[s] == top]
    assert state.winners()
    # the totals are the sums of the round points
    for seat in range(6):
        assert state.totals[seat] == sum((log.points or [])[seat] for log in state.rounds)


def test_r16_shared_victory_engine() -> None:
    # 3 players, every round: A and B bid 0 and win nothing, C bids 0 and wins every trick.
    # A and B end level on top and share the victory.
    state = new_game(3)
    for r in range(1, 9):
        assert state.round_no == r
        c_hand = ["red"] * min(r, 7) + ["minotaur"] * (r - min(r, 7))
        deal(state, [["purple"] * r, ["gray"] * r, c_hand])
        bid_all(state, [0, 0, 0])
        while state.phase is Phase.PLAY:
            seat = state.current_player
            if seat == 0:
                roll(state, "purple", 3)
            elif seat == 1:
                roll(state, "gray", 1)
            elif "red" in kind_rolls(state):
                roll(state, "red", 5)
            else:
                roll(state, "minotaur", "minotaur")
        assert state.rounds[r - 1].winners == [2] * r
        assert state.rounds[r - 1].points == [10 * r, 10 * r, -10 * r]
    assert state.is_terminal()
    assert state.totals == [360, 360, -360]
    assert state.winners() == [0, 1]


# -- Worked examples ----------------------------------------------------------------------


def test_example_1_highest_number_wins_whatever_colour() -> None:
    # 4 players, round 3: A red→6, B gray→7 (no red), C purple→2 (no red), D griffin→flag
    state = new_game(4, first_starter=2)
    skip_to_round(state, 3)
    assert state.starter == 0
    deal(state, [["red", "red", "yellow"], ["gray", "gray", "gray"],
                 ["purple", "purple", "purple"], ["griffin", "gray", "gray"]])
    bid_all(state, [1, 1, 0, 2])
    roll(state, "red", 6)
    assert kind_rolls(state) == {"gray"}   # B holds no red: anything (here only gray)
    roll(state, "gray", 7)
    roll(state, "purple", 2)
    roll(state, "griffin", "flag")
    log = state.rounds[2]
    assert log.winners == [1]                       # B wins
    assert state.leader == 1
    assert resolve_trick(codes(MINO, [(0, 6), (1, 7), (2, 2), (3, "flag")])).winner == 1
    # the rest of the round: B leads gray, D must follow gray, A may roll anything
    roll(state, "gray", 1)
    roll(state, "purple", 3)
    assert kind_rolls(state) == {"gray"}
    roll(state, "gray", "flag")
    assert kind_rolls(state) == {"red", "yellow"}
    roll(state, "yellow", 4)
    assert log.winners == [1, 0]
    assert play_trick(state, [("red", 5), ("gray", "flag"), ("purple", 1), ("gray", 7)]) == 3
    assert log.winners == [1, 0, 3]
    assert log.points == [20, 20, 30, -10]
    assert log.bonus == [0, 0, 0, 0]


def test_example_2_tie_later_roll_wins() -> None:
    state = one_trick_round([("yellow", 5), ("red", 5), ("purple", 3)])
    assert state.rounds[0].winners == [1]
    result = resolve_trick([(0, 5), (1, 5), (2, 3)])
    assert result.winner == 1
    assert result.reason is Reason.TIE
    # a red die can never show 4, nor a purple die a flag
    for kind, bad in (("red", 4), ("purple", "flag")):
        state = new_game(3)
        deal(state, [[kind], ["red"], ["red"]])
        bid_all(state, [0, 0, 0])
        state.apply(Roll(MINO.kind(kind)))
        assert MINO.face(bad) not in dict(state.chance_outcomes())
        with pytest.raises(IllegalActionError) as info:
            state.apply_chance(MINO.face(bad))
        assert info.value.rule == "R8"


def test_example_3_all_three_symbols_mermaid_with_bonus() -> None:
    plays: list[Play] = [("griffin", "griffin"), ("minotaur", "minotaur"),
                         ("mermaid", "mermaid")]
    state = one_trick_round(plays, bids=[0, 0, 1])
    log = state.rounds[0]
    assert log.winners == [2]
    assert log.bonus == [0, 0, 50]
    assert log.points == [10, 10, 70]
    # C's bid wrong: no bonus
    wrong = one_trick_round(plays, bids=[0, 0, 0])
    assert wrong.rounds[0].bonus == [0, 0, 0]
    assert wrong.rounds[0].points == [10, 10, -10]
    result = resolve_trick([(0, GRIFFIN), (1, MINOTAUR), (2, MERMAID)])
    assert (result.winner, result.reason, result.bonus) == (2, Reason.ALL_THREE, 50)


def test_example_4_minotaur_two_griffins_bonus_60() -> None:
    state = one_trick_round([("minotaur", "minotaur"), ("griffin", "griffin"),
                             ("griffin", "griffin"), ("red", 7)], bids=[1, 0, 0, 0])
    log = state.rounds[0]
    assert log.winners == [0]
    assert log.bonus == [60, 0, 0, 0]
    assert log.points == [80, 10, 10, 10]
    result = resolve_trick([(0, MINOTAUR), (1, GRIFFIN), (2, GRIFFIN), (3, 7)])
    assert (result.winner, result.bonus) == (0, 60)


def test_example_5_minotaur_flag_no_bonus() -> None:
    state = one_trick_round([("mermaid", "mermaid"), ("minotaur", "flag"), ("purple", 3)],
                            bids=[1, 0, 0])
    log = state.rounds[0]
    assert log.winners == [0]
    assert log.bonus == [0, 0, 0]
    assert log.points == [20, 10, 10]
    result = resolve_trick([(0, MERMAID), (1, FLAG), (2, 3)])
    assert (result.winner, result.reason, result.bonus) == (0, Reason.ONLY_SYMBOL, 0)


def test_example_6_only_flags_leader_wins() -> None:
    state = one_trick_round([("gray", "flag"), ("mermaid", "flag"), ("griffin", "flag")],
                            bids=[1, 0, 0])
    log = state.rounds[0]
    assert log.winners == [0]
    assert log.points == [20, 10, 10]
    assert resolve_trick([(0, FLAG), (1, FLAG), (2, FLAG)]).winner == 0
    # the same with B as the leader: B wins
    state = one_trick_round([("gray", "flag"), ("mermaid", "flag"), ("griffin", "flag")],
                            first_starter=1)
    assert state.rounds[0].winners == [1]


def test_example_7_follow_after_special_lead() -> None:
    state = r9_state([["griffin", "red"], ["purple", "yellow"], ["purple", "red"]])
    roll(state, "griffin", "griffin")
    assert view(state, 1).follow is None       # no colour yet
    assert kind_rolls(state) == {"purple", "yellow"}
    roll(state, "purple", 1)
    assert view(state, 2).follow == "purple"   # the colour is now purple
    assert state.legal_actions() == (Roll(MINO.kind("purple")),)
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(MINO.kind("red")))
    assert info.value.rule == "R9"
    assert "purple" in str(info.value)
    roll(state, "purple", 3)
    assert state.rounds[-1].winners == [0]


def test_example_7_follow_or_special() -> None:
    state = r9_state([["griffin", "red", "red"], ["purple", "yellow", "yellow"],
                      ["purple", "red", "mermaid"]])
    roll(state, "griffin", "griffin")
    roll(state, "purple", 2)
    assert kind_rolls(state) == {"purple", "mermaid"}   # purple or a special die


@pytest.mark.parametrize(("bid", "won", "points"), [(0, 1, -50), (0, 0, 50), (3, 1, -20),
                                                    (2, 2, 40)])
def test_example_8_scoring(bid: int, won: int, points: int) -> None:
    assert round_points(bid, won, 5, 0, Variant.STANDARD) == (points, 0)


def test_example_8_scoring_engine() -> None:
    # 5 players, round 5, each holding one colour (E holds specials only), so every roll
    # below is legal. Outcome: A bid 0 won 1, B bid 3 won 1, C bid 0 won 0, D bid 2 won 2,
    # E bid 1 won 1.
    state = new_game(5, first_starter=1)
    skip_to_round(state, 5)
    assert state.starter == 0
    deal(state, [["red"] * 5, ["yellow"] * 5, ["purple"] * 5, ["gray"] * 5,
                 ["griffin"] * 3 + ["mermaid"] * 2])
    bid_all(state, [0, 3, 0, 2, 1])
    totals_before = state.totals[:]
    assert play_trick(state, [("red", 7), ("yellow", 5), ("purple", 3), ("gray", 7),
                              ("griffin", "flag")]) == 3
    assert play_trick(state, [("gray", 7), ("mermaid", "flag"), ("red", 6), ("yellow", 5),
                              ("purple", 3)]) == 3
    assert play_trick(state, [("gray", "flag"), ("griffin", "griffin"), ("red", 5),
                              ("yellow", 3), ("purple", 1)]) == 4
    assert play_trick(state, [("mermaid", "flag"), ("red", 5), ("yellow", 5), ("purple", 2),
                              ("gray", 1)]) == 1
    assert play_trick(state, [("yellow", 3), ("purple", 1), ("gray", "flag"),
                              ("griffin", "flag"), ("red", 6)]) == 0
    log = state.rounds[4]
    assert log.winners == [3, 3, 4, 1, 0]
    assert log.points == [-50, -20, 50, 40, 20]
    assert log.bonus == [0] * 5
    assert state.totals == [t + p for t, p in zip(totals_before, log.points, strict=True)]


# -- both editions ------------------------------------------------------------------------


def test_skull_king_set_is_mino_renamed() -> None:
    assert SKULL.symbols == ("skull-king", "pirate", "mermaid")
    for mino_kind, sk_kind in zip(MINO.kinds, SKULL.kinds, strict=True):
        assert TO_SKULL[mino_kind.name] == sk_kind.name
        assert mino_kind.count == sk_kind.count
        assert mino_kind.special == sk_kind.special
        assert [f.code for f in mino_kind.faces] == [f.code for f in sk_kind.faces]
    assert [k.name for k in SKULL.kinds if not k.special] == ["black", "blue", "red", "yellow"]
    assert SKULL.face("skull-king").code == MINOTAUR
    assert SKULL.face("pirate").code == GRIFFIN
    assert SKULL.face("mermaid").code == MERMAID


def _sk(plays: Sequence[Play]) -> list[Play]:
    return [(TO_SKULL[k], TO_SKULL.get(str(f), f)) for k, f in plays]


@pytest.mark.parametrize("plays", [
    [("griffin", "griffin"), ("minotaur", "minotaur"), ("mermaid", "mermaid")],
    [("minotaur", "minotaur"), ("griffin", "griffin"), ("griffin", "griffin"), ("red", 7)],
    [("mermaid", "mermaid"), ("minotaur", "flag"), ("purple", 3)],
    [("gray", "flag"), ("mermaid", "flag"), ("griffin", "flag")],
    [("yellow", 5), ("red", 5), ("purple", 3)],
    [("red", 6), ("gray", 7), ("purple", 2), ("griffin", "flag")],
])
def test_skull_king_edition_scores_identically(plays: list[Play]) -> None:
    bids = [1] + [0] * (len(plays) - 1)
    mino = one_trick_round(plays, bids=bids)
    skull = one_trick_round(_sk(plays), bids=bids, dice_set="skull-king")
    assert skull.rounds[0].winners == mino.rounds[0].winners
    assert skull.rounds[0].points == mino.rounds[0].points
    assert skull.rounds[0].bonus == mino.rounds[0].bonus


def test_skull_king_example_4_names() -> None:
    state = one_trick_round([("skull-king", "skull-king"), ("pirate", "pirate"),
                             ("pirate", "pirate"), ("black", 7)], bids=[1, 0, 0, 0],
                            dice_set="skull-king")
    assert state.rounds[0].winners == [0]
    assert state.rounds[0].bonus == [60, 0, 0, 0]


def test_skull_king_follow_rule_names_colour() -> None:
    state = new_game(3, dice_set="skull-king", first_starter=2)
    skip_to_round(state, 2)
    deal(state, [["pirate", "black"], ["red", "blue"], ["red", "black"]])
    bid_all(state, [0, 0, 0])
    roll(state, "pirate", "pirate")
    assert view(state, 1).follow is None
    roll(state, "red", 2)
    assert view(state, 2).follow == "red"
    assert kind_rolls(state) == {"red"}
    with pytest.raises(IllegalActionError) as info:
        state.apply(Roll(SKULL.kind("black")))
    assert info.value.rule == "R9"
    assert "red" in str(info.value)


def test_skull_king_blue_number_die_is_not_special() -> None:
    # the mermaid and the blue number die share a colour word in the data; blue must be
    # followed, and the mermaid may always be rolled
    state = new_game(3, dice_set="skull-king", first_starter=2)
    skip_to_round(state, 2)
    deal(state, [["blue", "black"], ["blue", "mermaid"], ["blue", "yellow"]])
    bid_all(state, [0, 0, 0])
    roll(state, "blue", 3)
    assert kind_rolls(state) == {"blue", "mermaid"}
    roll(state, "mermaid", "mermaid")
    assert kind_rolls(state) == {"blue"}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("players", [3, 5])
def test_skull_king_same_game_same_result(seed: int, players: int) -> None:
    mino = new_game(players)
    skull = new_game(players, dice_set="skull-king")
    play_random_game(mino, seed)
    play_random_game(skull, seed)
    assert skull.totals == mino.totals
    for a, b in zip(mino.rounds, skull.rounds, strict=True):
        assert a.hands == b.hands
        assert a.bids == b.bids
        assert a.tricks == b.tricks
        assert a.winners == b.winners
        assert a.bonus == b.bonus


def _mino_data(minotaur_special: bool) -> dict[str, Any]:
    raw = resources.files("minodice.core").joinpath("data", "mino.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    data["kinds"][0]["special"] = minotaur_special
    return data


def test_r9_custom_dice_set_specials_respected_one_after_another() -> None:
    # A dice set is data (RULES.md, Components). Alternate between the mino set and a
    # user's variant in which the minotaur die is an ordinary number kind, each game with
    # a fresh DiceSet that is dropped afterwards. After a red lead, seat 1 holding red and
    # minotaur may roll the minotaur only if the minotaur is special in *its* set (R9).
    for i in range(40):
        special = i % 2 == 0
        ds = DiceSet(_mino_data(special))
        state = GameState(GameConfig(players=3, dice_set=ds, first_starter=2))
        skip_to_round(state, 2)
        assert state.starter == 0
        deal(state, [["red", "red"], ["red", "minotaur"], ["yellow", "yellow"]])
        bid_all(state, [0, 0, 0])
        roll(state, "red", 5)
        expected = {"red", "minotaur"} if special else {"red"}
        assert kind_rolls(state) == expected, f"game {i}: minotaur special={special}"
        del state, ds
        gc.collect()


# -- properties (hypothesis) --------------------------------------------------------------


FACE_CODES = st.sampled_from([FLAG, 1, 2, 3, 4, 5, 6, 7, MINOTAUR, GRIFFIN, MERMAID])


@st.composite
def tricks(draw: st.DrawFn) -> list[tuple[int, int]]:
    n = draw(st.integers(min_value=3, max_value=6))
    leader = draw(st.integers(min_value=0, max_value=n - 1))
    faces = draw(st.lists(FACE_CODES, min_size=n, max_size=n))
    return [((leader + i) % n, face) for i, face in enumerate(faces)]


@settings(deadline=None)  # behaviour only: no per-example time limit
@given(tricks())
def test_prop_resolve_trick_winner_is_in_trick(rolls: list[tuple[int, int]]) -> None:
    result = resolve_trick(rolls)
    assert result.winner in {seat for seat, _ in rolls}
    assert rolls[result.winning_roll][0] == result.winner
    face = rolls[result.winning_roll][1]
    faces = [code for _, code in rolls]
    if any(c >= MINOTAUR for c in faces):
        assert face >= MINOTAUR
        # the last rolled die showing the winning symbol
        assert face not in faces[result.winning_roll + 1:]
    elif any(c > FLAG for c in faces):
        assert face == max(faces)
        assert face not in faces[result.winning_roll + 1:]
    else:
        assert result.winning_roll == 0
    assert result.bonus >= 0


@settings(deadline=None)  # behaviour only: no per-example time limit
@given(tricks(), st.randoms(use_true_random=False))
def test_prop_trick_winner_depends_only_on_order_of_faces(
    rolls: list[tuple[int, int]], rnd: random.Random
) -> None:
    # relabelling seats never changes which roll wins
    seats = [seat for seat, _ in rolls]
    shuffled = seats[:]
    rnd.shuffle(shuffled)
    relabelled = [(new, code) for new, (_, code) in zip(shuffled, rolls, strict=True)]
    a, b = resolve_trick(rolls), resolve_trick(relabelled)
    assert a.winning_roll == b.winning_roll
    assert (a.reason, a.bonus) == (b.reason, b.bonus)


@st.composite
def round_one_tricks(draw: st.DrawFn) -> tuple[int, list[tuple[str, str]]]:
    """A first-round trick: a start player and each player's die and face, in rolling order."""
    n = draw(st.integers(min_value=3, max_value=6))
    first = draw(st.integers(min_value=0, max_value=n - 1))
    left = {k.name: k.count for k in MINO.kinds}
    plays: list[tuple[str, str]] = []
    for _ in range(n):
        kind = draw(st.sampled_from(sorted(k for k, c in left.items() if c > 0)))
        left[kind] -= 1
        face = draw(st.sampled_from(MINO.kind(kind).faces))
        plays.append((kind, str(face)))
    return first, plays


@settings(deadline=None)  # behaviour only: no per-example time limit
@given(round_one_tricks(), st.lists(st.integers(min_value=0, max_value=1), min_size=6,
                                    max_size=6))
def test_prop_engine_trick_equals_resolve_trick(
    case: tuple[int, list[tuple[str, str]]], bids: list[int]
) -> None:
    first, plays = case
    n = len(plays)
    state = one_trick_round(list(plays), bids=bids[:n], first_starter=first)
    log = state.rounds[0]
    rolls = [(seat, code) for seat, _, code in log.tricks[0]]
    assert [seat for seat, _ in rolls] == [(first + i) % n for i in range(n)]
    expected = resolve_trick(rolls)
    assert log.winners == [expected.winner]
    bonus = [expected.bonus if s == expected.winner else 0 for s in range(n)]
    assert log.points == [
        round_points(bids[s], int(s == expected.winner), 1, bonus[s], Variant.STANDARD)[0]
        for s in range(n)
    ]


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=3, max_value=6),
       st.sampled_from(list(Variant)))
def test_prop_full_game_matches_rules(seed: int, players: int, variant: Variant) -> None:
    state = new_game(players, variant=variant, first_starter=seed % players)
    play_random_game(state, seed)
    totals = [0] * players
    for r, log in enumerate(state.rounds, start=1):
        assert log.bids is not None
        assert log.points is not None
        assert log.bonus is not None
        bonus = [0] * players
        won = [0] * players
        leader = (seed % players + r - 1) % players
        for trick, winner in zip(log.tricks, log.winners, strict=True):
            # R8: clockwise from the leader; R7: the winner leads the next trick
            assert [seat for seat, _, _ in trick] == [(leader + i) % players
                                                      for i in range(players)]
            # R8: every face is one of its die's faces
            assert all(code in MINO.face_codes[kind] for _, kind, code in trick)
            result = resolve_trick([(seat, code) for seat, _, code in trick])
            assert winner == result.winner
            won[winner] += 1
            bonus[winner] += result.bonus
            leader = winner
        for seat in range(players):
            expected = round_points(log.bids[seat], won[seat], r, bonus[seat], variant)
            assert (log.points[seat], log.bonus[seat]) == expected
            totals[seat] += expected[0]
        assert log.totals == totals
    assert state.totals == totals
    assert state.winners() == rules.winners(totals)


@settings(deadline=None)  # behaviour only: no per-example time limit
@given(st.integers(min_value=0, max_value=2**32), st.sampled_from(MINO.kinds))
def test_prop_sampled_face_is_a_face_of_the_die(seed: int, kind: DieKind) -> None:
    state = new_game(3)
    deal(state, [[kind.name], ["red"], ["red"]])
    bid_all(state, [0, 0, 0])
    state.apply(Roll(kind))
    rng = random.Random(seed)
    for _ in range(20):
        face = state.sample_chance(rng)
        assert isinstance(face, Face)
        assert face in kind.faces
        assert face in dict(state.chance_outcomes())


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32), st.integers(min_value=1, max_value=8))
def test_prop_sampled_draw_fits_bag(seed: int, round_no: int) -> None:
    state = new_game(4)
    skip_to_round(state, round_no, seed=seed)
    rng = random.Random(seed)
    for _ in range(4):
        bag = state.bag[:]
        hand = state.sample_chance(rng)
        assert isinstance(hand, Hand)
        assert hand.size == round_no
        assert all(c <= b for c, b in zip(hand.counts, bag, strict=True))
        state.apply_chance(hand)
        assert sum(state.bag) == sum(bag) - round_no
    assert sum(state.bag) == 36 - 4 * round_no
