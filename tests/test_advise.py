"""The bid advisor: ``minodice advise`` (text and --json) and :func:`advise` — its answer
is complete and consistent, reproducible with a seed, sensible, and bad input is refused
with a clear message and no traceback."""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from command import as_program, as_text, in_process
from minodice.bots.advisor import Advice, AdviceError, advise
from minodice.bots.odds import OddsError, trick_odds
from minodice.core.dice import load_dice_set
from minodice.core.rules import RuleOptions, SpecialLead, StartRule

EXAMPLE = ("--players", "4", "--round", "5", "--seat", "2", "--hand",
           "red,red,griffin,gray,purple")
ROW = re.compile(r"^\s*(\d+)\s+(\d+)%\s+([+-]?\d+\.\d)(\s+<- best)?\s*$")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``minodice advise ARGS``, in this process (tests/command.py; the program itself is
    checked by test_the_program_prints_what_the_command_prints_in_process)."""
    return as_text(in_process("advise", *args, env={"COLUMNS": "200"}))


def advise_json(*args: str) -> dict[str, Any]:
    done = cli(*args, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


def test_text_shows_the_best_bid_and_every_bids_expected_score() -> None:
    done = cli(*EXAMPLE, "--seed", "7")
    assert done.returncode == 0, done.stderr
    text = done.stdout
    best = re.search(r"^Best bid: (\d+)$", text, re.MULTILINE)
    assert best is not None
    rows = {int(m[1]): (int(m[2]), float(m[3]), bool(m[4]))
            for m in (ROW.match(line) for line in text.splitlines()) if m}
    assert sorted(rows) == [0, 1, 2, 3, 4, 5]  # every bid of round 5
    assert [bid for bid, row in rows.items() if row[2]] == [int(best[1])]
    assert "griffin" in text
    assert "Tricks won" in text
    # The text and the JSON of the same seed tell the same.
    data = advise_json(*EXAMPLE, "--seed", "7")
    assert data["best_bid"] == int(best[1])
    for entry in data["bids"]:
        assert rows[entry["bid"]][1] == pytest.approx(entry["expected_score"], abs=0.051)


def test_json_holds_a_consistent_answer() -> None:
    data = advise_json(*EXAMPLE, "--seed", "3")
    assert data["players"] == 4
    assert data["round"] == 5
    assert data["seat"] == 2
    assert sorted(data["hand"]) == sorted(["red", "red", "griffin", "gray", "purple"])
    bids = data["bids"]
    assert [b["bid"] for b in bids] == [0, 1, 2, 3, 4, 5]
    scores = {b["bid"]: b["expected_score"] for b in bids}
    assert data["best_bid"] in scores
    assert scores[data["best_bid"]] == max(scores.values())  # best = highest expectation
    for b in bids:
        assert 0 <= b["make_chance"] <= 1
        # R12/R13 bound what a bid can score in round 5 (plus bonuses).
        assert -50 <= b["expected_score"] <= 20 * 5 + 200
    dist = data["tricks_distribution"]
    assert len(dist) == 6
    assert sum(dist) == pytest.approx(1, abs=1e-3)
    assert data["expected_tricks"] == pytest.approx(
        sum(k * p for k, p in enumerate(dist)), abs=0.01)
    # The distribution is that of playing for the best bid: making it is its share.
    best = data["best_bid"]
    assert dist[best] == pytest.approx(bids[best]["make_chance"], abs=1e-3)


def test_same_seed_same_answer() -> None:
    first = cli(*EXAMPLE, "--seed", "11", "--json")
    second = cli(*EXAMPLE, "--seed", "11", "--json")
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    a = advise(4, 6, 1, "red,yellow,griffin,gray,purple,mermaid", samples=30, seed=5)
    b = advise(4, 6, 1, "red,yellow,griffin,gray,purple,mermaid", samples=30, seed=5)
    assert a.to_json() == b.to_json()


def test_strong_dice_advise_a_higher_bid_than_weak_ones() -> None:
    strong = advise(4, 8, 1, "minotaur,griffin,griffin,griffin,mermaid,mermaid,red,red",
                    samples=40, seed=1)
    weak = advise(4, 8, 1, "gray,gray,gray,gray,purple,purple,purple,purple",
                  samples=40, seed=1)
    assert strong.best_bid > weak.best_bid
    assert strong.best_bid >= 4
    assert weak.best_bid <= 1
    assert strong.expected_tricks > weak.expected_tricks + 2
    assert strong.heuristic_tricks > weak.heuristic_tricks


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_seat_and_player_count_gets_advice(players: int) -> None:
    round_no = 3
    for seat in range(players):
        advice = advise(players, round_no, seat, "red,mermaid,yellow", samples=8, seed=seat)
        assert isinstance(advice, Advice)
        assert sorted(advice.expected_score) == [0, 1, 2, 3]
        assert 0 <= advice.best_bid <= round_no
        assert advice.seat == seat


def test_a_fixed_start_player_changes_nothing_within_a_round() -> None:
    """R5's open point only says who starts the *next* rounds: the advice for a seat, so
    many places after the start player, is the same under either (same seed), which
    holds only if the advisor seats the start player where it says."""
    fixed = RuleOptions(start=StartRule.FIXED)
    for seat in range(4):
        alike = [advise(4, 3, seat, "red,mermaid,yellow", samples=12, seed=7, options=options)
                 for options in (RuleOptions(), fixed)]
        assert alike[0].to_json() == alike[1].to_json()
    other = advise(4, 3, 1, "red,mermaid,yellow", samples=12, seed=7,
                   options=RuleOptions(special_lead=SpecialLead.NO_COLOUR))
    assert sorted(other.expected_score) == [0, 1, 2, 3]


def test_skull_king_edition_and_simplified_variant() -> None:
    data = advise_json("--players", "3", "--round", "2", "--hand", "skull-king,black",
                       "--edition", "skull-king", "--variant", "simplified", "--seed", "2")
    assert [b["bid"] for b in data["bids"]] == [0, 1, 2]
    # R15: a missed bid scores 0, so no expectation is negative.
    assert all(b["expected_score"] >= 0 for b in data["bids"])


# -- bad input ----------------------------------------------------------------------------

SIXTEEN_REDS = ",".join(["red"] * 16)


@pytest.mark.parametrize(("args", "phrase"), [
    (("--players", "4", "--round", "4", "--hand", "red,red,gray"), "4 dice"),
    (("--players", "4", "--round", "3", "--hand", "red,blue,gray"), "'blue'"),
    (("--players", "4", "--round", "3", "--hand", "minotaur,minotaur,gray"), "minotaur"),
    (("--players", "4", "--round", "3", "--hand", "mermaid,mermaid,mermaid"), "mermaid"),
    (("--players", "4", "--round", "3", "--seat", "4", "--hand", "red,red,gray"), "seat 4"),
    (("--players", "4", "--round", "3", "--seat", "-1", "--hand", "red,red,gray"), "seat -1"),
    (("--players", "4", "--round", "9", "--hand", ",".join(["red"] * 9)), "round 9"),
    (("--players", "6", "--round", "7", "--hand", ",".join(["red"] * 7)), "round 7"),
    (("--players", "4", "--round", "-1", "--hand", "red"), "round -1"),
    (("--players", "7", "--round", "3", "--hand", "red,red,gray"), "not 7"),
    (("--players", "2", "--round", "3", "--hand", "red,red,gray"), "not 2"),
    (("--players", "4", "--round", "2", "--hand", "red,gray", "--edition", "skull-king"),
     "'gray'"),
    # a die of the other edition: which one to name (a tabletop tester had no hint)
    (("--players", "4", "--round", "1", "--hand", "pirate"),
     "'pirate' in the mino set (minotaur, griffin, mermaid, red, yellow, purple, gray); it is "
     "a die of the skull-king edition"),
    (("--players", "4", "--round", "3", "--hand", "red,red,gray", "--samples", "0"),
     "--samples"),
    # 16 of a kind overflows a 4-bit count: any clear refusal will do (message free).
    pytest.param(("--players", "4", "--round", "1", "--hand", SIXTEEN_REDS), "",
                 id="sixteen-reds"),
])
def test_bad_input_is_refused_clearly(args: tuple[str, ...], phrase: str) -> None:
    done = cli(*args)
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert done.stderr.strip()
    assert phrase in done.stderr


@pytest.mark.parametrize(("players", "round_no", "seat", "hand", "phrase"), [
    (4, 3, 0, "red,red", "3 dice"),
    (4, 2, 0, "red,dragon", "dragon"),
    (4, 4, 0, "griffin,griffin,griffin,griffin", "griffin"),
    (4, 2, 5, "red,red", "seat 5"),
    (5, 8, 0, ",".join(["red"] * 8), "round 8"),
    (7, 1, 0, "red", "not 7"),
    pytest.param(4, 1, 0, SIXTEEN_REDS, "", id="sixteen-reds"),
])
def test_advise_function_raises_advice_error(players: int, round_no: int, seat: int,
                                              hand: str, phrase: str) -> None:
    with pytest.raises(AdviceError) as info:
        advise(players, round_no, seat, hand, samples=4, seed=0)
    assert phrase in str(info.value)


@pytest.mark.slow  # real programs, ~1 s each: the cases above run the command in-process
def test_the_program_prints_what_the_command_prints_in_process() -> None:
    """``python -m minodice.cli advise``: the entry point, its exit status and the bytes of
    its standard streams are those of the in-process runs the other tests make."""
    for args in ((*EXAMPLE, "--seed", "7"), (*EXAMPLE, "--seed", "7", "--json"),
                 ("--players", "4", "--round", "3", "--hand", "red,blue,gray")):
        program = as_program("advise", *args, env={"COLUMNS": "200"}, module="minodice.cli")
        inside = in_process("advise", *args, env={"COLUMNS": "200"})
        assert (program.returncode, program.stdout, program.stderr) == (
            inside.returncode, inside.stdout, inside.stderr), args
    assert program.returncode == 2
    assert b"'blue'" in program.stderr
    # A usage error (Click's) names the program as it was called, so only its gist compares.
    program = as_program("advise", "--hand", "red", "--samples", "0", module="minodice.cli")
    assert program.returncode == 2
    assert b"--samples" in program.stderr
    assert b"Traceback" not in program.stderr
    assert program.stdout == b""


@pytest.mark.parametrize(("hand", "rolled", "phrase"), [
    (["minotaur", "minotaur"], [], "the mino set has only 1 minotaur die"),
    (["red"], [("red", 3)] * 2 + [("red", 4)] * 3, "a trick of 4 players is over"),
    (["griffin", "griffin"], [("griffin", "griffin"), ("griffin", "griffin")],
     "the mino set has only 3 griffin dice"),
    (["red"], [("red", "griffin")], "a red die has no face 'griffin'"),
])
def test_trick_odds_refuses_what_cannot_be_in_sight(
        hand: list[str], rolled: list[tuple[str, int | str]], phrase: str) -> None:
    """The trick odds (``/odds``' second mode) name the impossible input, in good English."""
    with pytest.raises(OddsError) as info:
        trick_odds(load_dice_set("mino"), 4, hand, rolled, samples=10, seed=0)
    assert phrase in str(info.value)


def test_trick_odds_by_the_special_lead_option() -> None:
    """R9's open point: with ``no-colour`` the red rolled after a griffin lead sets no
    colour, so the yellow die may be rolled too; where a number die leads, both readings
    are one rule and give the very same odds."""
    mino = load_dice_set("mino")
    after_griffin: list[tuple[str, int | str]] = [("griffin", "griffin"), ("red", 5)]
    plain = trick_odds(mino, 4, ["red", "yellow"], after_griffin, samples=50, seed=3)
    free = trick_odds(mino, 4, ["red", "yellow"], after_griffin, samples=50, seed=3,
                      special_lead=SpecialLead.NO_COLOUR)
    assert (plain.follow, plain.legal) == ("red", ("red",))
    assert free.follow is None
    assert sorted(free.legal) == ["red", "yellow"]
    led_by_red: list[tuple[str, int | str]] = [("red", 5), ("griffin", "flag")]
    assert trick_odds(mino, 4, ["red", "yellow"], led_by_red, samples=50, seed=3).to_json() \
        == trick_odds(mino, 4, ["red", "yellow"], led_by_red, samples=50, seed=3,
                      special_lead=SpecialLead.NO_COLOUR).to_json()
