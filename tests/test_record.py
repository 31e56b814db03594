"""Game records (RECORD.md): every rejection with its rule and place, reading order, round
trips through export and load, and the ``replay --json`` summary.

Broken records are made by mutating valid ones: the example document of RECORD.md, a
hand-written three-round game (``three_rounds``) and seeded random games.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from examples import EXAMPLE_SUMMARY, example_record
from minodice.core.actions import Bid
from minodice.core.dice import load_dice_set
from minodice.core.errors import InvalidRecordError
from minodice.core.record import (
    dumps_record,
    export_record,
    load_record,
    parse_record,
    summarize,
)
from minodice.core.rules import RuleOptions, SpecialLead, Variant, rounds_for
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState, Phase
from minodice.play.simulate import play_random_game
from minodice.text.safe import one_line

Record = dict[str, Any]
Place = tuple[int | None, int | None, int | None]
NAMES = ["Ana", "Ben", "Cleo", "Dara", "Emil", "Fay"]
GOLDEN = Path(__file__).parent / "golden"
NOWHERE: Place = (None, None, None)

# -- records to start from -----------------------------------------------------------------


def roll(text: str) -> Record:
    """``"1 red 6"`` → ``{"player": 1, "die": "red", "face": 6}``."""
    player, die, face = text.split()
    return {"player": int(player), "die": die, "face": int(face) if face.isdigit() else face}


def rnd(hands: str, bids: list[int] | None, *tricks: str) -> Record:
    """A round in short notation: ``"red gray | griffin | ..."``, tricks ``"0 red 6, 1 ..."``."""
    out: Record = {"hands": [hand.split() for hand in hands.split("|")]}
    if bids is not None:
        out["bids"] = bids
        out["tricks"] = [[roll(r) for r in trick.split(",")] for trick in tricks]
    return out


def record(rounds: list[Record], players: int = 3, **keys: Any) -> Record:
    return {"format": "minodice-record", "version": 1, "players": NAMES[:players],
            **keys, "rounds": rounds}


def three_rounds() -> Record:
    """A valid hand-written game of 3 players, 3 rounds played (totals [60, 80, 70]).

    Round 3 is started by Cleo (R5), who wins trick 1 with red 7 and so leads trick 2 (R7),
    in which purple is the colour to follow and Ben, holding purple, follows it (R9).
    """
    return record([
        rnd("red | yellow | purple", [1, 0, 0], "0 red 5, 1 yellow 3, 2 purple 1"),
        rnd("gray gray | yellow yellow | purple purple", [0, 2, 0],
            "1 yellow 5, 2 purple 3, 0 gray 1",
            "1 yellow 4, 2 purple 2, 0 gray flag"),
        rnd("purple purple gray | purple red red | red purple yellow", [1, 0, 2],
            "2 red 7, 0 purple 1, 1 red 5",
            "2 purple 3, 0 purple 2, 1 purple 1",
            "2 yellow 4, 0 gray 7, 1 red 6"),
    ])


def random_state(players: int, seed: object, dice_set: str = "mino",
                 variant: str = "standard") -> GameState:
    rng = random.Random(f"test_record:{seed}")
    config = GameConfig(players, load_dice_set(dice_set), Variant(variant),
                        rng.randrange(players))
    return play_random_game(config, rng)


def random_record(players: int, seed: object, dice_set: str = "mino",
                  variant: str = "standard") -> Record:
    """A finished seeded random game's record."""
    return export_record(random_state(players, seed, dice_set, variant), NAMES[:players])


def reject(data: Any) -> InvalidRecordError:
    with pytest.raises(InvalidRecordError) as info:
        load_record(data)
    return info.value


def place(err: InvalidRecordError) -> Place:
    return err.round, err.trick, err.roll


def test_the_bases_are_valid() -> None:
    # Every rejection below comes from a mutation of one of these, so they must load.
    for data in (example_record(), random_record(4, 1), random_record(6, 2)):
        loaded = load_record(copy.deepcopy(data))
        assert export_record(loaded.state, loaded.players) == data
    summary = summarize(load_record(three_rounds()).state, NAMES[:3])
    assert summary["totals"] == [60, 80, 70]
    assert [r["trick_winners"] for r in summary["rounds"]] == [[0], [1, 1], [2, 2, 0]]


# -- rejections: one per line of RECORD.md's table ---------------------------------------------

Mutation = Callable[[Record], object]


def setitem(path: tuple[Any, ...], value: Any) -> Mutation:
    """A mutation that sets ``data[path...] = value``."""
    def mutate(data: Record) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def delitem(path: tuple[Any, ...]) -> Mutation:
    def mutate(data: Record) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


R1T1 = ("rounds", 0, "tricks", 0)  # round 1, trick 1 of the example
R3 = ("rounds", 2)                  # round 3 of three_rounds()

# (id, base, mutation, rule, place)
CASES: list[tuple[str, Callable[[], Record], Mutation, str | None, Place]] = [
    # format, version, dice set, variant, wrong types: rule null
    ("format-wrong", example_record, setitem(("format",), "minodice"), None, NOWHERE),
    ("format-missing", example_record, delitem(("format",)), None, NOWHERE),
    ("version-2", example_record, setitem(("version",), 2), None, NOWHERE),
    ("version-string", example_record, setitem(("version",), "1"), None, NOWHERE),
    ("version-bool", example_record, setitem(("version",), True), None, NOWHERE),
    ("version-float", example_record, setitem(("version",), 1.0), None, NOWHERE),
    # this project's rule_options (docs/RECORD.md): an object of the two open points
    ("rule-options-text", example_record, setitem(("rule_options",), "fixed"), None, NOWHERE),
    ("rule-options-value", example_record, setitem(("rule_options",), {"start": "left"}),
     None, NOWHERE),
    ("rule-options-key", example_record, setitem(("rule_options",), {"colour": "none"}),
     None, NOWHERE),
    ("R7-under-a-fixed-start", three_rounds, setitem(("rule_options",), {"start": "fixed"}),
     "R7", (2, 1, 1)),
    ("version-missing", example_record, delitem(("version",)), None, NOWHERE),
    ("dice-set-unknown", example_record, setitem(("dice_set",), "pirates"), None, NOWHERE),
    ("dice-set-not-string", example_record, setitem(("dice_set",), 1), None, NOWHERE),
    ("variant-unknown", example_record, setitem(("variant",), "expert"), None, NOWHERE),
    ("variant-null", example_record, setitem(("variant",), None), None, NOWHERE),
    ("players-missing", example_record, delitem(("players",)), None, NOWHERE),
    ("players-string", example_record, setitem(("players",), "Ana,Ben,Cleo"), None, NOWHERE),
    ("players-not-strings", example_record, setitem(("players",), [1, 2, 3]), None, NOWHERE),
    ("first-starter-string", example_record, setitem(("first_starter",), "0"), None, NOWHERE),
    ("first-starter-bool", example_record, setitem(("first_starter",), False), None, NOWHERE),
    ("rounds-missing", example_record, delitem(("rounds",)), None, NOWHERE),
    ("rounds-object", example_record, setitem(("rounds",), {}), None, NOWHERE),
    ("round-not-object", example_record, setitem(("rounds", 0), [["red"]]), None,
     (1, None, None)),
    ("hands-missing", example_record, delitem(("rounds", 0, "hands")), None, (1, None, None)),
    ("hand-string", example_record, setitem(("rounds", 0, "hands", 0), "red"), None,
     (1, None, None)),
    ("hand-not-strings", example_record, setitem(("rounds", 0, "hands", 1), [3]), None,
     (1, None, None)),
    ("bids-string", example_record, setitem(("rounds", 0, "bids"), "1 0 0"), None,
     (1, None, None)),
    ("bids-strings-for-ints", example_record, setitem(("rounds", 0, "bids"), ["1", "0", "0"]),
     None, (1, None, None)),
    ("bids-booleans", example_record, setitem(("rounds", 0, "bids"), [True, False, False]),
     None, (1, None, None)),
    ("bids-floats", example_record, setitem(("rounds", 0, "bids"), [1.0, 0, 0]), None,
     (1, None, None)),
    ("tricks-not-list", example_record, setitem(("rounds", 0, "tricks"), {"1": []}), None,
     (1, None, None)),
    ("trick-not-list", example_record, setitem(R1T1, {"player": 0}), None, (1, 1, None)),
    ("roll-not-object", example_record, setitem((*R1T1, 0), "0 red 6"), None, (1, 1, 1)),
    ("roll-player-string", example_record, setitem((*R1T1, 1, "player"), "1"), None,
     (1, 1, 2)),
    ("roll-player-bool", example_record, setitem((*R1T1, 1, "player"), True), None,
     (1, 1, 2)),
    ("roll-player-missing", example_record, delitem((*R1T1, 2, "player")), None, (1, 1, 3)),
    ("roll-die-missing", example_record, delitem((*R1T1, 0, "die")), None, (1, 1, 1)),
    ("roll-die-int", example_record, setitem((*R1T1, 0, "die"), 3), None, (1, 1, 1)),
    ("roll-face-missing", example_record, delitem((*R1T1, 0, "face")), None, (1, 1, 1)),
    ("roll-face-float", example_record, setitem((*R1T1, 0, "face"), 6.0), None, (1, 1, 1)),
    ("roll-face-bool", example_record, setitem((*R1T1, 0, "face"), True), None, (1, 1, 1)),
    ("roll-face-null", example_record, setitem((*R1T1, 2, "face"), None), None, (1, 1, 3)),
    # R1: 3 to 6 distinct, non-empty names
    ("R1-two-players", example_record, setitem(("players",), ["Ana", "Ben"]), "R1", NOWHERE),
    ("R1-no-players", example_record, setitem(("players",), []), "R1", NOWHERE),
    ("R1-seven-players", example_record, setitem(("players",), [*NAMES, "Gus"]), "R1",
     NOWHERE),
    ("R1-same-names", example_record, setitem(("players",), ["Ana", "Ben", "Ana"]), "R1",
     NOWHERE),
    ("R1-empty-name", example_record, setitem(("players",), ["Ana", "", "Cleo"]), "R1",
     NOWHERE),
    # R2: more rounds than the game has; more than r tricks; a short non-last round
    ("R2-too-many-rounds-3p", lambda: random_record(3, 3),
     lambda d: d["rounds"].append(copy.deepcopy(d["rounds"][-1])), "R2", (9, None, None)),
    ("R2-too-many-rounds-5p", lambda: random_record(5, 4),
     lambda d: d["rounds"].append({"hands": []}), "R2", (8, None, None)),
    ("R2-too-many-rounds-6p", lambda: random_record(6, 5),
     lambda d: d["rounds"].append("not even a round"), "R2", (7, None, None)),
    ("R2-too-many-tricks", example_record,
     lambda d: d["rounds"][0]["tricks"].append([roll("1 griffin griffin")]), "R2",
     (1, 2, None)),
    ("R2-too-many-tricks-round-3", three_rounds,
     lambda d: d["rounds"][2]["tricks"].append([roll("0 gray 7")]), "R2", (3, 4, None)),
    ("R2-short-round-not-last", three_rounds, lambda d: d["rounds"][1]["tricks"].pop(), "R2",
     (2, None, None)),
    ("R2-round-without-tricks-not-last", three_rounds, delitem(("rounds", 1, "tricks")), "R2",
     (2, None, None)),
    # R3: more dice of a kind in a round than the set holds
    ("R3-two-minotaurs", example_record,
     setitem(("rounds", 0, "hands"), [["minotaur"], ["minotaur"], ["gray"]]), "R3",
     (1, None, None)),
    ("R3-four-griffins", three_rounds,
     setitem(("rounds", 1, "hands"), [["griffin", "griffin"], ["griffin", "griffin"],
                                      ["red", "red"]]), "R3", (2, None, None)),
    # R4: one hand per player, r dice each, kinds of the set
    ("R4-two-hands", example_record, setitem(("rounds", 0, "hands"), [["red"], ["griffin"]]),
     "R4", (1, None, None)),
    ("R4-four-hands", example_record,
     setitem(("rounds", 0, "hands"), [["red"], ["griffin"], ["gray"], ["gray"]]), "R4",
     (1, None, None)),
    ("R4-hand-too-big", example_record, setitem(("rounds", 0, "hands", 0), ["red", "red"]),
     "R4", (1, None, None)),
    ("R4-hand-empty", example_record, setitem(("rounds", 0, "hands", 2), []), "R4",
     (1, None, None)),
    ("R4-hand-too-small-round-3", three_rounds,
     setitem(("rounds", 2, "hands", 1), ["purple", "red"]), "R4", (3, None, None)),
    ("R4-unknown-kind", example_record, setitem(("rounds", 0, "hands", 0), ["blue"]), "R4",
     (1, None, None)),
    ("R4-kind-of-other-set", example_record, setitem(("dice_set",), "skull-king"), "R4",
     (1, None, None)),
    # R5: first_starter a player index
    ("R5-first-starter-3", example_record, setitem(("first_starter",), 3), "R5", NOWHERE),
    ("R5-first-starter-negative", example_record, setitem(("first_starter",), -1), "R5",
     NOWHERE),
    # R6: bids where tricks follow; one per player; 0..r
    ("R6-bids-missing-tricks-follow", example_record, delitem(("rounds", 0, "bids")), "R6",
     (1, None, None)),
    ("R6-bids-missing-round-follows", three_rounds,
     lambda d: d["rounds"].__setitem__(0, {"hands": d["rounds"][0]["hands"]}), "R6",
     (1, None, None)),
    ("R6-two-bids", example_record, setitem(("rounds", 0, "bids"), [1, 0]), "R6",
     (1, None, None)),
    ("R6-four-bids", example_record, setitem(("rounds", 0, "bids"), [1, 0, 0, 0]), "R6",
     (1, None, None)),
    ("R6-no-bids", example_record, setitem(("rounds", 0, "bids"), []), "R6", (1, None, None)),
    ("R6-bid-above-r", example_record, setitem(("rounds", 0, "bids"), [1, 2, 0]), "R6",
     (1, None, None)),
    ("R6-bid-negative", example_record, setitem(("rounds", 0, "bids"), [1, 0, -1]), "R6",
     (1, None, None)),
    ("R6-bid-above-r-round-3", three_rounds, setitem(("rounds", 2, "bids"), [1, 4, 2]), "R6",
     (3, None, None)),
    # R7: the first roll of a trick by the leader R7 names
    ("R7-round-1-not-starter", example_record,
     setitem(R1T1, [roll("1 griffin griffin"), roll("2 gray flag"), roll("0 red 6")]), "R7",
     (1, 1, 1)),
    ("R7-first-starter-moved", example_record, setitem(("first_starter",), 1), "R7",
     (1, 1, 1)),
    ("R7-round-2-start-player-rotates", three_rounds,
     setitem(("rounds", 1, "tricks", 0),
             [roll("0 gray 1"), roll("1 yellow 5"), roll("2 purple 3")]), "R7", (2, 1, 1)),
    ("R7-trick-winner-leads", three_rounds,
     setitem((*R3, "tricks", 1), [roll("0 purple 2"), roll("1 purple 1"), roll("2 purple 3")]),
     "R7", (3, 2, 1)),
    ("R7-no-such-player", example_record, setitem((*R1T1, 0, "player"), 7), "R7", (1, 1, 1)),
    # R8: clockwise order; a die still held; a face the die has; short trick only last
    ("R8-out-of-order", example_record,
     setitem(R1T1, [roll("0 red 6"), roll("2 gray flag"), roll("1 griffin griffin")]), "R8",
     (1, 1, 2)),
    ("R8-same-player-twice", three_rounds,
     setitem((*R3, "tricks", 0, 2, "player"), 0), "R8", (3, 1, 3)),
    ("R8-die-not-held", example_record, setitem((*R1T1, 1, "die"), "red"), "R8", (1, 1, 2)),
    ("R8-die-of-no-kind", example_record, setitem((*R1T1, 1, "die"), "blue"), "R8", (1, 1, 2)),
    ("R8-die-already-rolled", three_rounds, setitem((*R3, "tricks", 2, 0, "die"), "red"),
     "R8", (3, 3, 1)),
    ("R8-red-shows-4", example_record, setitem((*R1T1, 0, "face"), 4), "R8", (1, 1, 1)),
    ("R8-red-shows-flag", example_record, setitem((*R1T1, 0, "face"), "flag"), "R8",
     (1, 1, 1)),
    ("R8-purple-shows-flag", three_rounds, setitem((*R3, "tricks", 1, 0, "face"), "flag"),
     "R8", (3, 2, 1)),
    ("R8-gray-shows-2", example_record, setitem((*R1T1, 2, "face"), 2), "R8", (1, 1, 3)),
    ("R8-griffin-shows-mermaid", example_record, setitem((*R1T1, 1, "face"), "mermaid"),
     "R8", (1, 1, 2)),
    ("R8-face-0", example_record, setitem((*R1T1, 0, "face"), 0), "R8", (1, 1, 1)),
    ("R8-face-8", example_record, setitem((*R1T1, 0, "face"), 8), "R8", (1, 1, 1)),
    ("R8-face-unknown-name", example_record, setitem((*R1T1, 1, "face"), "dragon"), "R8",
     (1, 1, 2)),
    ("R8-skull-king-face-in-mino", example_record, setitem((*R1T1, 1, "face"), "pirate"), "R8",
     (1, 1, 2)),
    ("R8-short-trick-round-follows", three_rounds, lambda d: d["rounds"][0]["tricks"][0].pop(),
     "R8", (1, 1, None)),
    ("R8-short-trick-trick-follows", three_rounds,
     lambda d: d["rounds"][2]["tricks"][0].pop(), "R8", (3, 1, None)),
    ("R8-empty-trick-not-last", three_rounds, setitem(("rounds", 1, "tricks", 0), []), "R8",
     (2, 1, None)),
    ("R8-fourth-roll", example_record, lambda d: d["rounds"][0]["tricks"][0].append(
        roll("0 red 6")), "R8", (1, 1, 4)),
    # R9: the follow rule
    ("R9-ben-must-follow-purple", three_rounds, setitem((*R3, "tricks", 1, 2), roll("1 red 6")),
     "R9", (3, 2, 3)),
    ("R9-ben-must-follow-red", three_rounds, setitem((*R3, "tricks", 0, 2, "die"), "purple"),
     "R9", (3, 1, 3)),
]


@pytest.mark.parametrize(("base", "mutate", "rule", "where"),
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rejection(base: Callable[[], Record], mutate: Mutation, rule: str | None,
                   where: Place) -> None:
    data = base()
    load_record(copy.deepcopy(data))  # the base is valid: the mutation is the breach
    mutate(data)
    err = reject(data)
    assert (err.rule, place(err)) == (rule, where), str(err)
    assert err.message
    if rule is not None:
        assert f"({rule})" in err.message  # RECORD.md: the error names the rule
    # The same error through the JSON text reader.
    again = reject_text(json.dumps(data))
    assert (again.rule, place(again), again.message) == (rule, where, err.message)


def test_rule_options_are_kept_only_where_a_game_plays_otherwise() -> None:
    """A record of a default game is exactly RECORD.md's (no ``rule_options``); one played
    under RULES.md's open points says so, and is read back under them: a breach of the
    default's R9 is that game's legal roll."""
    assert "rule_options" not in export_record(load_record(three_rounds()).state,
                                               ["Ana", "Ben", "Cleo"])
    played = record([
        rnd("griffin | red | purple", [0, 0, 0], "0 griffin griffin, 1 red 5, 2 purple 3"),
        rnd("purple red | griffin purple | purple yellow", [0, 0, 0],
            "1 griffin griffin, 2 purple 3, 0 red 5",
            "1 purple 2, 2 yellow 4, 0 purple 1"),
    ])
    err = reject(copy.deepcopy(played))  # Ana holds purple: the default's R9 refuses red
    assert (err.rule, place(err)) == ("R9", (2, 1, 3))
    played["rule_options"] = {"special_lead": "no-colour"}
    loaded = load_record(played)
    assert loaded.state.config.options == RuleOptions(special_lead=SpecialLead.NO_COLOUR)
    assert export_record(loaded.state, loaded.players)["rule_options"] == {
        "start": "rotate", "special_lead": "no-colour"}


def reject_text(text: str) -> InvalidRecordError:
    with pytest.raises(InvalidRecordError) as info:
        parse_record(text)
    return info.value


def test_r3_is_checked_across_a_round_not_a_hand() -> None:
    # Eight gray dice in a 3-player round 3 (8 in the set) are fine, nine are not.
    base = record([
        rnd("gray | gray | gray", [0, 0, 0], "0 gray 1, 1 gray 1, 2 gray 1"),
        rnd("gray gray | gray gray | gray gray", [0, 0, 0],
            "1 gray 1, 2 gray 1, 0 gray 1", "0 gray 1, 1 gray 1, 2 gray 1"),
        {"hands": [["gray"] * 3, ["gray"] * 3, ["gray", "gray", "red"]]},
    ])
    load_record(copy.deepcopy(base))
    base["rounds"][2]["hands"][2] = ["gray"] * 3
    err = reject(base)
    assert (err.rule, place(err)) == ("R3", (3, None, None))
    assert "gray" in err.message


@pytest.mark.parametrize("text", [
    "", "{", "not json", '{"format": "minodice-record",}', "[1, 2", "{'format': 1}",
    "\x00", "[" * 100_000 + "]" * 100_000,
])
def test_not_json(text: str) -> None:
    err = reject_text(text)
    assert (err.rule, place(err)) == (None, NOWHERE)
    assert str(err) == err.message


def test_numbers_too_long_for_python_are_refused_where_they_are() -> None:
    """Python reads integers of at most 4300 digits from text; a longer one is still JSON,
    and the record's check says where it is and which rule it breaks, as for a bid of 31
    digits. Kept in a key of its own (which a save writes back), it is refused by name."""
    long = "7" * 5000
    text = json.dumps(example_record()).replace('"face": 6', f'"face": {long}')
    err = reject_text(text)
    assert (err.rule, place(err)) == ("R8", (1, 1, 1))
    assert "777777… (a number of 5000 digits)" in one_line(err.message)
    text = json.dumps(example_record()).replace('"bids": [1, 0, 0]', f'"bids": [-{long}, 0, 0]')
    err = reject_text(text)
    assert (err.rule, place(err)) == ("R6", (1, None, None))
    assert "-777777… (a number of 5000 digits)" in one_line(err.message)
    text = json.dumps({**example_record(), "seed": 1}).replace('"seed": 1', f'"seed": {long}')
    err = reject_text(text)
    assert (err.rule, place(err)) == (None, NOWHERE)
    assert '"seed"' in err.message
    assert "5000 digits" in err.message


@pytest.mark.parametrize(("change", "words"), [
    (lambda t: t.replace('"first_starter": 0', '"first_starter": NaN'), "NaN is no JSON number"),
    (lambda t: t[:-1] + ', "notes": -Infinity}', "-Infinity is no JSON number"),
    (lambda t: '{"version": 2, ' + t[1:], 'the key "version" twice'),
    (lambda t: t.replace('"player": 1', '"player": 1, "player": 2', 1), 'the key "player" twice'),
])
def test_what_json_does_not_allow_is_not_json(change: Callable[[str], str], words: str) -> None:
    """NaN and Infinity are no JSON (Python's reader takes them, and a save would write
    them back); a key twice in one object is read as either value by different readers,
    so two programs would read two games from one record."""
    err = reject_text(change(json.dumps(example_record())))
    assert (err.rule, place(err)) == (None, NOWHERE)
    assert err.message.startswith("not JSON")
    assert words in err.message


def test_text_that_is_not_unicode_is_refused() -> None:
    """JSON can spell a lone surrogate (``"\\ud800"``), which is no Unicode text: as a
    name, or in a key a save keeps, it could not be written back (UTF-8 has no form for
    it), so the record is refused when it is read, not when it is saved."""
    text = json.dumps(example_record())
    err = reject_text(text.replace('"Ana"', '"A\\ud800"'))
    assert (err.rule, place(err)) == (None, NOWHERE)
    assert "name" in err.message
    err = reject_text(text[:-1] + ', "notes": {"by": ["\\udc00"]}}')
    assert '"notes"' in err.message
    assert "not Unicode" in err.message


@pytest.mark.parametrize("tricks", [5, "none yet", {"1": []}, None])
def test_tricks_of_the_wrong_type_in_a_round_being_bid(tricks: Any) -> None:
    # RECORD.md: wrong types are rejected. A round still being bid has no "bids" key;
    # a "tricks" value there that is not a list is still of the wrong type.
    data = example_record()
    del data["rounds"][0]["bids"]
    data["rounds"][0]["tricks"] = []
    load_record(copy.deepcopy(data))  # an empty list of tricks is fine
    data["rounds"][0]["tricks"] = tricks
    err = reject(data)
    assert err.rule in (None, "R6")
    assert place(err) == (1, None, None)


@pytest.mark.parametrize("data", [[], None, 3, "record", [example_record()]])
def test_a_record_is_an_object(data: Any) -> None:
    err = reject(data)
    assert (err.rule, place(err)) == (None, NOWHERE)
    err = reject_text(json.dumps(data))
    assert (err.rule, place(err)) == (None, NOWHERE)


def test_r9_error_as_documented() -> None:
    data = three_rounds()
    data["rounds"][2]["tricks"][1][2] = roll("1 red 6")
    err = reject(data)
    assert err.message == "Ben must follow purple (R9): holds purple, rolled red"
    assert str(err) == ("round 3, trick 2, roll 3: "
                        "Ben must follow purple (R9): holds purple, rolled red")
    assert err.to_json() == {"error": {
        "round": 3, "trick": 2, "roll": 3, "rule": "R9",
        "message": "Ben must follow purple (R9): holds purple, rolled red"}}


def test_error_without_place_has_nulls() -> None:
    data = example_record()
    data["players"] = ["Ana", "Ana", "Cleo"]
    err = reject(data)
    assert err.to_json() == {"error": {"round": None, "trick": None, "roll": None,
                                       "rule": "R1", "message": err.message}}
    assert str(err) == err.message


def colour_after_special() -> Record:
    """RULES.md: A leads griffin (no colour yet), B rolls purple, C holds purple and red."""
    return record([
        rnd("red | yellow | purple", [1, 0, 0], "2 purple 3, 0 red 5, 1 yellow 4"),
        rnd("griffin red | purple gray | purple red", [1, 0, 0],
            "0 griffin griffin, 1 purple 2, 2 purple 1"),
    ], first_starter=2)


def test_r9_colour_set_by_first_number_die_after_a_special_lead() -> None:
    load_record(colour_after_special())
    data = colour_after_special()
    data["rounds"][1]["tricks"][0][2] = roll("2 red 6")
    err = reject(data)
    assert (err.rule, place(err)) == ("R9", (2, 1, 3))
    assert err.message == "Cleo must follow purple (R9): holds purple, rolled red"


@pytest.mark.parametrize("trick", [
    "0 griffin griffin, 1 gray 1, 2 red 6",      # colour gray: Cleo holds none, any die
    "0 red 5, 1 gray flag, 2 red 6",             # Ben holds no red: any die
])
def test_r9_allowed_rolls(trick: str) -> None:
    data = colour_after_special()
    data["rounds"][1]["tricks"][0] = [roll(r) for r in trick.split(",")]
    load_record(data)


def test_r9_the_die_sets_the_colour_not_its_face() -> None:
    # Ana leads red; Ben, holding no red, rolls gray showing a flag; Cleo holds red.
    data = colour_after_special()
    data["rounds"][1]["tricks"][0] = [roll("0 red 5"), roll("1 gray flag"), roll("2 purple 1")]
    err = reject(data)
    assert (err.rule, place(err)) == ("R9", (2, 1, 3))
    assert err.message == "Cleo must follow red (R9): holds red, rolled purple"
    # A gray die showing a flag makes gray the colour to follow.
    data = colour_after_special()
    data["rounds"][1]["hands"] = [["griffin", "red"], ["gray", "purple"], ["gray", "red"]]
    data["rounds"][1]["tricks"][0] = [roll("0 griffin griffin"), roll("1 gray flag"),
                                      roll("2 red 6")]
    err = reject(data)
    assert (err.rule, place(err)) == ("R9", (2, 1, 3))
    assert err.message == "Cleo must follow gray (R9): holds gray, rolled red"


def test_r9_a_special_die_may_always_be_rolled() -> None:
    data = colour_after_special()
    data["rounds"][1]["hands"][2] = ["purple", "mermaid"]
    data["rounds"][1]["tricks"][0][2] = roll("2 mermaid flag")
    load_record(data)


# -- the first breach in reading order ------------------------------------------------------

def two_breaches(first: Mutation, second: Mutation) -> InvalidRecordError:
    data = three_rounds()
    second(data)
    only_second = reject(copy.deepcopy(data))
    first(data)
    err = reject(data)
    assert place(err) != place(only_second) or err.rule != only_second.rule
    return err


R9_BREACH = setitem((*R3, "tricks", 1, 2), roll("1 red 6"))  # round 3, trick 2, roll 3


@pytest.mark.parametrize(("first", "second", "rule", "where"), [
    # an earlier round before a later one
    (setitem(("rounds", 1, "bids"), [0, 3, 0]), R9_BREACH, "R6", (2, None, None)),
    (setitem(("rounds", 0, "hands", 0), ["blue"]), R9_BREACH, "R4", (1, None, None)),
    # a short non-last round (R2) before a breach in the next round
    (lambda d: d["rounds"][1]["tricks"].pop(), R9_BREACH, "R2", (2, None, None)),
    # hands before bids in one round
    (setitem(("rounds", 2, "hands", 2), ["red", "yellow"]),
     setitem(("rounds", 2, "bids"), [1, 0, 9]), "R4", (3, None, None)),
    # bids before tricks in one round
    (setitem(("rounds", 2, "bids"), [1, 0, 9]), R9_BREACH, "R6", (3, None, None)),
    # an earlier trick before a later one
    (setitem((*R3, "tricks", 0, 1, "face"), 4), R9_BREACH, "R8", (3, 1, 2)),
    # an earlier roll before a later one in the same trick
    (setitem((*R3, "tricks", 1, 1, "face"), "flag"), R9_BREACH, "R8", (3, 2, 2)),
    # the top-level keys before any round
    (setitem(("players",), ["Ana", "Ben", "Ben"]), R9_BREACH, "R1", NOWHERE),
    (setitem(("first_starter",), 5), R9_BREACH, "R5", NOWHERE),
    (setitem(("variant",), "nope"), R9_BREACH, None, NOWHERE),
    # a wrong type in round 1 before a rule breach in round 3
    (setitem(("rounds", 0, "bids"), ["1", 0, 0]), R9_BREACH, None, (1, None, None)),
])
def test_first_breach_in_reading_order(first: Mutation, second: Mutation, rule: str | None,
                                       where: Place) -> None:
    err = two_breaches(first, second)
    assert (err.rule, place(err)) == (rule, where), str(err)


def test_first_breach_before_too_many_rounds() -> None:
    data = random_record(5, 7)
    data["rounds"].append(copy.deepcopy(data["rounds"][0]))
    err = reject(copy.deepcopy(data))
    assert (err.rule, place(err)) == ("R2", (8, None, None))
    data["rounds"][0]["tricks"][0][0]["face"] = 99
    err = reject(data)
    assert (err.rule, place(err)) == ("R8", (1, 1, 1))


def test_first_breach_among_hands_is_the_earlier_seat() -> None:
    data = example_record()
    data["rounds"][0]["hands"] = [["red", "red"], ["griffin"], ["blue"]]
    err = reject(data)
    assert (err.rule, place(err)) == ("R4", (1, None, None))
    assert "Ana" in err.message
    assert "blue" not in err.message


# -- round trips --------------------------------------------------------------------------

CONFIGS = [(players, dice_set, variant) for players in (3, 4, 5, 6)
           for dice_set in ("mino", "skull-king") for variant in ("standard", "simplified")]


def step(state: GameState, rng: random.Random) -> None:
    if state.current_player == CHANCE:
        state.apply_chance(state.sample_chance(rng))
    else:
        actions = state.legal_actions()
        state.apply(actions[int(rng.random() * len(actions))])


def play_out(state: GameState, rng: random.Random) -> GameState:
    while state.current_player != TERMINAL:
        step(state, rng)
    return state


def phase_of(state: GameState) -> Phase:
    return state.phase


def lossless(state: GameState) -> bool:
    """Whether the record of ``state`` holds all of it (no secret partial bids, no die
    chosen but unrolled, no hand drawn in a round not yet bid on)."""
    if state.phase is Phase.DRAW:
        return state.drawing_seat == 0
    if state.phase is Phase.BID:
        return state.bidders() == list(range(state.n))
    return state.phase in (Phase.PLAY, Phase.OVER)


#: The round trip's configurations make check plays (every player count, edition and
#: variant is among them); make test plays all sixteen.
QUICK_CONFIGS = {(3, "mino", "standard"), (4, "skull-king", "simplified"),
                 (5, "skull-king", "standard"), (6, "mino", "simplified")}


@pytest.mark.parametrize(("players", "dice_set", "variant"), [
    config if config in QUICK_CONFIGS else pytest.param(*config, marks=pytest.mark.slow)
    for config in CONFIGS])
def test_round_trip_at_every_point_of_a_game(players: int, dice_set: str,
                                             variant: str) -> None:
    rng = random.Random(f"round-trip:{players}:{dice_set}:{variant}")
    names = NAMES[:players]
    state = GameState(GameConfig(players, load_dice_set(dice_set), Variant(variant),
                                 rng.randrange(players)))
    seen: set[Phase] = set()
    index = 0
    while True:
        if index % 5 == 0 or state.phase in (Phase.BID, Phase.OVER) or len(state.trick) == 1:
            seen.add(state.phase)
            data = export_record(state, names)
            loaded = parse_record(dumps_record(data))
            assert export_record(loaded.state, loaded.players) == data
            assert loaded.players == names
            assert loaded.state.totals == state.totals
            assert loaded.state.round_no == state.round_no or state.phase is Phase.DRAW
            if index % 15 == 0:
                # The game goes on from the loaded state to its end, and that record loads.
                end = play_out(loaded.state.clone(), random.Random(index))
                final = export_record(end, names)
                assert len(final["rounds"]) == rounds_for(players)
                done = max(len(data["rounds"]) - 1, 0)  # rounds before the last are over
                assert final["rounds"][:done] == data["rounds"][:done]
                assert summarize(load_record(final).state, names)["complete"] is True
            if lossless(state):
                # Nothing was left out: both continue identically.
                a = play_out(state.clone(), random.Random(index))
                b = play_out(loaded.state, random.Random(index))
                assert export_record(a, names) == export_record(b, names)
        if state.current_player == TERMINAL:
            break
        step(state, rng)
        index += 1
    assert seen == set(Phase)


def test_round_trip_mid_bidding_leaves_secret_bids_out() -> None:
    rng = random.Random(11)
    state = GameState(GameConfig(4, load_dice_set("mino"), Variant.STANDARD, 2))
    while state.phase is not Phase.BID:
        step(state, rng)
    state.apply(Bid(1), seat=3)  # a secret bid, out of turn (R6: simultaneous)
    state.apply(Bid(0), seat=0)
    data = export_record(state, NAMES[:4])
    assert "bids" not in data["rounds"][-1]
    loaded = load_record(data)
    assert loaded.state.phase is Phase.BID
    assert loaded.state.bidders() == [0, 1, 2, 3]
    assert export_record(loaded.state, NAMES[:4]) == data
    for seat in (2, 0, 3, 1):
        loaded.state.apply(Bid(0), seat=seat)
    assert phase_of(loaded.state) is Phase.PLAY
    assert loaded.state.current_player == 2  # R7: the start player leads


def test_round_trip_with_a_die_chosen_but_not_rolled() -> None:
    rng = random.Random(12)
    state = GameState.new(players=3)
    while not (state.phase is Phase.PLAY and len(state.trick) == 1 and state.round_no == 3):
        step(state, rng)
    chooser = state.current_player
    state.apply(state.legal_actions()[0])
    assert phase_of(state) is Phase.ROLL
    data = export_record(state, NAMES[:3])
    assert len(data["rounds"][-1]["tricks"][-1]) == 1
    loaded = load_record(data)
    assert loaded.state.phase is Phase.PLAY
    assert loaded.state.current_player == chooser
    assert export_record(loaded.state, NAMES[:3]) == data


def test_new_game_round_trips() -> None:
    state = GameState(GameConfig(5, load_dice_set("skull-king"), Variant.SIMPLIFIED, 4))
    data = export_record(state, NAMES[:5])
    assert data["rounds"] == []
    loaded = load_record(data)
    assert loaded.state.config.first_starter == 4
    assert loaded.state.dice_set.name == "skull-king"
    assert loaded.state.variant is Variant.SIMPLIFIED
    assert loaded.state.phase is Phase.DRAW
    assert loaded.state.round_no == 1
    assert export_record(play_out(loaded.state, random.Random(1)), NAMES[:5])["rounds"]


def test_optional_keys_default() -> None:
    data = example_record()
    for key in ("dice_set", "variant", "first_starter"):
        del data[key]
    loaded = load_record(data)
    assert loaded.state.dice_set.name == "mino"
    assert loaded.state.variant is Variant.STANDARD
    assert loaded.state.config.first_starter == 0
    assert export_record(loaded.state, loaded.players) == example_record()
    assert summarize(loaded.state, loaded.players) == EXAMPLE_SUMMARY


def test_default_dice_set_is_mino_not_any() -> None:
    data = random_record(3, 8, dice_set="skull-king")
    load_record(copy.deepcopy(data))
    del data["dice_set"]
    err = reject(data)  # skull-king kinds and faces are not those of the mino set
    assert err.rule is not None


def test_default_variant_is_standard() -> None:
    data = random_record(4, 9, variant="simplified")
    simplified = summarize(load_record(copy.deepcopy(data)).state, NAMES[:4])
    del data["variant"]
    standard = summarize(load_record(data).state, NAMES[:4])
    assert standard == summarize(load_record({**data, "variant": "standard"}).state, NAMES[:4])
    assert any(min(r["points"]) < 0 for r in standard["rounds"])
    assert all(min(r["points"]) >= 0 for r in simplified["rounds"])


def test_unknown_keys_are_accepted_and_kept() -> None:
    data = random_record(4, 10)
    plain = summarize(load_record(copy.deepcopy(data)).state, NAMES[:4])
    extra = {"seed": 10, "started_at": "2024-05-01T20:00:00Z",
             "notes": {"table": "kitchen", "list": [1, 2]}}
    data.update(extra)
    data["rounds"][0]["comment"] = "first round"
    data["rounds"][1]["tricks"][0][0]["thinking_ms"] = 1200
    loaded = load_record(data)
    assert loaded.extra == extra
    assert summarize(loaded.state, loaded.players) == plain
    again = export_record(loaded.state, loaded.players, loaded.extra)
    assert {k: again[k] for k in extra} == extra
    assert load_record(again).extra == extra


@pytest.mark.parametrize("names", [
    ["Zoë", "Øyvind", "李雷"], ['A "quoted" name', "back\\slash", "tab\there"],
    ["1", "2", "3", "4", "5", "6"],
])
def test_dumps_record_is_json_of_the_record(names: list[str]) -> None:
    state = play_out(GameState.new(players=len(names)), random.Random(13))
    data = export_record(state, names, {"note": "ünïcode ✓"})
    text = dumps_record(data)
    assert json.loads(text) == data
    loaded = parse_record(text)
    assert loaded.players == names
    assert export_record(loaded.state, loaded.players, loaded.extra) == data


# -- summarize ------------------------------------------------------------------------------

def test_summary_of_the_documented_example() -> None:
    loaded = load_record(example_record())
    summary = summarize(loaded.state, loaded.players)
    assert summary == EXAMPLE_SUMMARY
    # Same keys in the same order as RECORD.md prints them.
    assert json.dumps(summary) == json.dumps(EXAMPLE_SUMMARY)


def test_summary_of_an_unfinished_round() -> None:
    data = three_rounds()
    data["rounds"][2]["tricks"] = data["rounds"][2]["tricks"][:2]
    data["rounds"][2]["tricks"][1].pop()  # round 3: trick 1 done, trick 2 mid-way
    summary = summarize(load_record(data).state, NAMES[:3])
    last = summary["rounds"][2]
    assert last["round"] == 3
    assert last["starter"] == 2
    assert last["bids"] == [1, 0, 2]
    assert last["trick_winners"] == [2]
    assert last["tricks_won"] == [0, 0, 1]
    assert (last["bonus"], last["points"], last["totals"]) == (None, None, None)
    assert summary["rounds"][1]["totals"] == [40, 50, 30]
    assert summary["totals"] == [40, 50, 30]  # after the last finished round
    assert summary["complete"] is False
    assert summary["winners"] == []


def test_summary_of_a_round_being_bid() -> None:
    data = three_rounds()
    del data["rounds"][2]["bids"], data["rounds"][2]["tricks"]
    summary = summarize(load_record(data).state, NAMES[:3])
    assert len(summary["rounds"]) == 3
    last = summary["rounds"][2]
    assert last["trick_winners"] == []
    assert last["tricks_won"] == [0, 0, 0]
    assert (last["bonus"], last["points"], last["totals"]) == (None, None, None)
    assert summary["totals"] == [40, 50, 30]


def test_summary_of_no_rounds() -> None:
    data = example_record()
    data["rounds"] = []
    assert summarize(load_record(data).state, NAMES[:3]) == {
        "players": NAMES[:3], "complete": False, "rounds": [], "totals": [0, 0, 0],
        "winners": []}


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_winners_empty_until_complete(players: int) -> None:
    full = random_record(players, f"winners:{players}")
    for kept in range(len(full["rounds"])):
        data = {**full, "rounds": full["rounds"][:kept]}
        summary = summarize(load_record(data).state, NAMES[:players])
        assert summary["complete"] is False
        assert summary["winners"] == []
    summary = summarize(load_record(full).state, NAMES[:players])
    assert summary["complete"] is True
    top = max(summary["totals"])
    assert summary["winners"] == [i for i, t in enumerate(summary["totals"]) if t == top]
    # A complete game whose last trick is cut is not complete.
    cut = copy.deepcopy(full)
    cut["rounds"][-1]["tricks"][-1].pop()
    assert summarize(load_record(cut).state, NAMES[:players])["winners"] == []


@pytest.mark.parametrize(("players", "variant"), [(3, "standard"), (4, "simplified"),
                                                  (6, "standard")])
def test_shared_winners(players: int, variant: str) -> None:
    for seed in range(1000):
        data = random_record(players, f"tie:{seed}", variant=variant)
        summary = summarize(load_record(data).state, NAMES[:players])
        if len(summary["winners"]) > 1:
            break
    else:
        pytest.fail("no tied game in 1000 seeds")
    top = max(summary["totals"])
    assert summary["winners"] == [i for i, t in enumerate(summary["totals"]) if t == top]
    assert all(summary["totals"][i] == top for i in summary["winners"])


def test_summary_of_the_bonus_record() -> None:
    # Worked by hand from RULES.md (R10, R12–R14); see tests/golden/regenerate.py.
    data = json.loads((GOLDEN / "bonuses-3p-mino.json").read_text(encoding="utf-8"))
    summary = summarize(load_record(data).state, data["players"])
    rounds = summary["rounds"]
    assert [r["trick_winners"] for r in rounds] == [
        [0], [0, 0], [0, 1, 1], [0, 1, 2, 0], [0, 1, 0, 2, 0]]
    assert [r["bonus"] for r in rounds] == [
        [60, 0, 0],   # minotaur beats two griffins: 2 × 30
        [50, 0, 0],   # all three symbols: mermaid wins, minotaur showed
        [0, 0, 0],    # the minotaur beat two griffins, but Ana's bid was wrong
        [0, 0, 0],    # mermaid wins, the minotaur showed a flag: no bonus
        [50, 0, 0],   # mermaid beats minotaur
    ]
    assert [r["points"] for r in rounds] == [
        [80, 10, 10], [90, 20, 20], [-10, 40, 30], [40, 20, -40], [110, 20, -10]]
    assert [r["totals"] for r in rounds] == [
        [80, 10, 10], [170, 30, 30], [160, 70, 60], [200, 90, 20], [310, 110, 10]]
    assert [r["starter"] for r in rounds] == [0, 1, 2, 0, 1]
    assert summary["totals"] == [310, 110, 10]
    assert (summary["complete"], summary["winners"]) == (False, [])


def test_summary_of_the_bonus_record_simplified() -> None:
    # R15: missed bids score 0 and there are no bonuses.
    data = json.loads((GOLDEN / "bonuses-3p-mino.json").read_text(encoding="utf-8"))
    data["variant"] = "simplified"
    rounds = summarize(load_record(data).state, data["players"])["rounds"]
    assert [r["bonus"] for r in rounds] == [[0, 0, 0]] * 5
    assert [r["points"] for r in rounds] == [
        [20, 10, 10], [40, 20, 20], [0, 40, 30], [40, 20, 0], [60, 20, 0]]
    assert rounds[-1]["totals"] == [160, 110, 60]


# An independent scorer, straight from RULES.md, to check summarize() on many games.
SYMBOL_ROLE = {"minotaur": 0, "griffin": 1, "mermaid": 2,
               "skull-king": 0, "pirate": 1}


def reference_trick(rolls: list[Record]) -> tuple[int, int]:
    """R10 and R14: (winner, bonus the winner earns if their bid is right)."""
    roles = [SYMBOL_ROLE.get(r["face"]) if isinstance(r["face"], str) else None
             for r in rolls]
    showing = {role for role in roles if role is not None}
    if showing:
        if showing == {0, 1, 2}:
            role = 2
        elif len(showing) == 2:
            role = {frozenset({0, 1}): 0, frozenset({1, 2}): 1,
                    frozenset({0, 2}): 2}[frozenset(showing)]
        else:
            role = showing.pop()
        index = max(i for i, r in enumerate(roles) if r == role)
        bonus = 30 * roles.count(1) if role == 0 else 50 if role == 2 and 0 in roles else 0
        return rolls[index]["player"], bonus
    numbers = [r["face"] if isinstance(r["face"], int) else 0 for r in rolls]
    if max(numbers) == 0:
        return rolls[0]["player"], 0
    index = max(i for i, v in enumerate(numbers) if v == max(numbers))
    return rolls[index]["player"], 0


def reference_summary(data: Record) -> Record:
    n = len(data["players"])
    simplified = data.get("variant") == "simplified"
    totals = [0] * n
    rounds = []
    for r, rnd_ in enumerate(data["rounds"], start=1):
        won, pot = [0] * n, [0] * n
        winners: list[int] = []
        for trick in rnd_.get("tricks", []):
            if len(trick) < n:
                continue
            winner, bonus = reference_trick(trick)
            winners.append(winner)
            won[winner] += 1
            pot[winner] += bonus
        entry: Record = {"round": r, "starter": (data.get("first_starter", 0) + r - 1) % n,
                         "bids": rnd_.get("bids"), "trick_winners": winners,
                         "tricks_won": won, "bonus": None, "points": None, "totals": None}
        if len(winners) == r:
            bonus_part = [pot[i] if b == won[i] and not simplified else 0
                          for i, b in enumerate(rnd_["bids"])]
            points = []
            for i, b in enumerate(rnd_["bids"]):
                if b == won[i]:
                    points.append((10 * r if b == 0 else 20 * b) + bonus_part[i])
                elif simplified:
                    points.append(0)
                else:
                    points.append(-10 * r if b == 0 else -10 * abs(b - won[i]))
            totals = [t + p for t, p in zip(totals, points, strict=True)]
            entry.update(bonus=bonus_part, points=points, totals=totals)
        rounds.append(entry)
    complete = len(rounds) == rounds_for(n) and rounds[-1]["totals"] is not None
    top = max(totals)
    return {"players": data["players"], "complete": complete, "rounds": rounds,
            "totals": totals,
            "winners": [i for i, t in enumerate(totals) if t == top] if complete else []}


@pytest.mark.parametrize(("players", "dice_set", "variant"), CONFIGS)
def test_summary_agrees_with_an_independent_scorer(players: int, dice_set: str,
                                                   variant: str) -> None:
    for seed in range(6):
        data = random_record(players, f"ref:{seed}", dice_set, variant)
        assert summarize(load_record(data).state, NAMES[:players]) == reference_summary(data)
        # and cut in the middle of a round
        cut = copy.deepcopy(data)
        cut["rounds"] = cut["rounds"][: 2 + seed % (len(cut["rounds"]) - 2)]
        cut["rounds"][-1]["tricks"] = cut["rounds"][-1]["tricks"][:-1]
        cut["rounds"][-1]["tricks"][-1] = cut["rounds"][-1]["tricks"][-1][:-1]
        assert summarize(load_record(cut).state, NAMES[:players]) == reference_summary(cut)


def test_reference_scorer_matches_the_bonus_record() -> None:
    data = json.loads((GOLDEN / "bonuses-3p-mino.json").read_text(encoding="utf-8"))
    assert reference_summary(data) == summarize(load_record(data).state, data["players"])


def test_the_interpreters_own_digit_limit_is_the_one_read_by() -> None:
    """``PYTHONINTMAXSTRDIGITS`` may set a lower limit than 4300: a bid of 1000 digits is
    then still checked where it stands (R6), not called "not JSON"."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        text = json.dumps(example_record()).replace('"bids": [1, 0, 0]',
                                                    f'"bids": [{"1" * 1000}, 0, 0]')
        err = reject_text(text)
    finally:
        sys.set_int_max_str_digits(before)
    assert (err.rule, place(err)) == ("R6", (1, None, None))


@pytest.mark.parametrize(("face", "said"), [
    (5.0, 'a roll\'s "face" is a whole number or a name, not 5.0'),
    (None, 'a roll\'s "face" is a whole number or a name, not null'),
    ([5], 'a roll\'s "face" is a whole number or a name, not [5]'),
])
def test_a_face_of_the_wrong_kind_is_said_to_be_there(face: Any, said: str) -> None:
    """A face of ``5.0`` was said to be missing: 'a roll needs "face"'."""
    data = three_rounds()
    data["rounds"][0]["tricks"][0][0]["face"] = face
    err = reject(data)
    assert err.message == said
    assert place(err) == (1, 1, 1)
    del data["rounds"][0]["tricks"][0][0]["face"]
    assert reject(data).message == 'a roll needs "face", a whole number or a name'


def test_a_round_without_bids_before_others_is_said_once() -> None:
    """'round 2: round 2 has no bids, yet ...': the place said twice."""
    data = three_rounds()
    del data["rounds"][1]["bids"]
    data["rounds"][1]["tricks"] = []
    err = reject(data)
    assert str(err).startswith("round 2: no bids, yet the game goes on after this round (R6)")


def test_tricks_without_bids_are_said_to_lack_the_bids() -> None:
    """The last round's tricks without its bids were said to be a game that 'goes on after
    this round', which it did not."""
    data = three_rounds()
    last = data["rounds"][-1]
    del last["bids"]
    assert last["tricks"]
    err = reject(data)
    assert err.rule == "R6"
    assert "tricks without bids" in err.message
    assert "goes on" not in err.message


def test_one_die_and_one_roll_are_said_in_the_singular() -> None:
    """'must draw 1 dice', 'this trick has 1 rolls'."""
    data = three_rounds()
    data["rounds"][0]["hands"][0] = []
    assert "must draw 1 die in round 1, not 0 (R4)" in reject(data).message
    data = three_rounds()
    data["rounds"][1]["tricks"][0] = data["rounds"][1]["tricks"][0][:1]
    assert "this trick has 1 roll for 3 players" in reject(data).message


def test_a_rounds_and_a_rolls_own_keys_are_given_back_where_they_were() -> None:
    """RECORD.md lets a program keep its notes in any object of a record; read and written
    again, a record lost those of its rounds and rolls (only the top level's were kept)."""
    data = three_rounds()
    data["seed"] = 12
    data["rounds"][0]["note"] = "close call"
    data["rounds"][2]["tricks"][1][2]["time"] = 1.5
    data["rounds"][2]["tricks"][1][2]["face"] = 1
    loaded = load_record(copy.deepcopy(data))
    assert loaded.notes == {(1,): {"note": "close call"}, (3, 2, 3): {"time": 1.5}}
    again = export_record(loaded.state, loaded.players, loaded.extra, loaded.notes)
    assert again["rounds"][0]["note"] == "close call"
    assert again["rounds"][2]["tricks"][1][2] == {"time": 1.5, "player": 1, "die": "purple",
                                                 "face": 1}
    assert again["seed"] == 12
    assert load_record(again).notes == loaded.notes
    # a note cannot override what the rules read
    data["rounds"][1]["tricks"][0][0]["extra"] = {"die": "red"}
    assert load_record(data).notes[(2, 1, 1)] == {"extra": {"die": "red"}}


def test_a_note_that_cannot_be_kept_is_refused_with_its_place() -> None:
    data = three_rounds()
    data["rounds"][1]["tricks"][0][1]["name"] = "\ud800"
    err = reject(data)
    assert err.rule is None
    assert place(err) == (2, 1, 2)
