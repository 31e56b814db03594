"""The game analysis: it finds the best choice where an exhaustive count knows it, it uses
nothing the deciding seat could not see, and ``minodice analyse`` reads records safely."""

from __future__ import annotations

import json
import random
from itertools import product
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from benchmark_scripts import load_benchmark
from minodice.bots.analysis import (
    MIN_COMPARED,
    NOISE_POINTS,
    SIGNIFICANCE,
    Decision,
    analyse_bid,
    analyse_game,
    analyse_roll,
    decision_rng,
)
from minodice.bots.sampling import sample_hands, unseen_counts
from minodice.bots.search import SearchBot
from minodice.cli import app
from minodice.core.actions import Bid, Roll
from minodice.core.dice import Hand, load_dice_set
from minodice.core.record import dumps_record, export_record
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState, decision_seats
from minodice.core.view import SeatView, view
from minodice.core.world import initial_hands, world_from_view

DS = load_dice_set("mino")


def hand(*names: str) -> Hand:
    return Hand.from_kinds(DS, list(names))


def kind_draws(counts: list[int], seats: int) -> list[tuple[float, tuple[int, ...]]]:
    """Every way of giving one unseen die to each of ``seats`` seats, by kind, with its
    probability (drawn without replacement)."""
    out: list[tuple[float, tuple[int, ...]]] = []
    total = sum(counts)
    for kinds in product(range(len(counts)), repeat=seats):
        left = counts[:]
        p = 1.0
        for i, k in enumerate(kinds):
            p *= left[k] / (total - i)
            left[k] -= 1
        if p > 0:
            out.append((p, kinds))
    return out


def faces(kind: int) -> list[tuple[float, int]]:
    """The distinct faces of a kind (codes) with their probabilities."""
    codes = DS.face_codes[kind]
    return [(codes.count(c) / 6, c) for c in sorted(set(codes))]


# -- a bid whose value an exhaustive count knows -------------------------------------------


def round_one(own: str, seat: int) -> GameState:
    """Three players, round 1, seat 0 starts; ``seat`` holds ``own``, the others any die
    (the analysis never sees them)."""
    state = GameState.at_round(GameConfig(3, DS, Variant.STANDARD, 0), 1)
    for s in range(3):
        state.apply_chance(hand(own if s == seat else "purple"))
    return state


def exact_bid_scores(state: GameState, seat: int) -> dict[int, float]:
    """Each bid's expected round score, over every deal of the unseen dice to the others
    and every face: in round 1 every die is forced, so this is the whole game tree."""
    seat_view = view(state, seat)
    others = [s for s in range(3) if s != seat]
    expected = {0: 0.0, 1: 0.0}
    for p_deal, kinds in kind_draws(unseen_counts(seat_view), 2):
        held = {seat: seat_view.hand}
        for s, k in zip(others, kinds, strict=True):
            held[s] = DS.hand_of_counts([int(i == k) for i in range(len(DS.kinds))])
        for bid in (0, 1):
            base = GameState.at_round(GameConfig(3, DS, Variant.STANDARD, 0), 1)
            for s in range(3):
                base.apply_chance(held[s])
            for s in range(3):
                base.apply(Bid(bid if s == seat else 0), seat=s)
            kinds_in_order = [held[s].kinds()[0] for s in range(3)]
            for combo in product(*(faces(k.index) for k in kinds_in_order)):
                game = base.clone()
                p = p_deal
                for s, (q, code) in enumerate(combo):
                    game.apply(Roll(kinds_in_order[s]), seat=s)
                    game.apply_chance(DS.face_of_code(code))
                    p *= q
                points = game.rounds[0].points
                assert points is not None
                expected[bid] += p * points[seat]
    return expected


@pytest.mark.parametrize(("die", "seat"), [("minotaur", 0), ("gray", 2), ("yellow", 1)])
def test_bid_analysis_finds_the_best_bid_of_an_exhaustive_count(die: str, seat: int) -> None:
    state = round_one(die, seat)
    exact = exact_bid_scores(state, seat)
    best = max(exact, key=lambda b: exact[b])
    assert abs(exact[0] - exact[1]) > 3  # a clear best choice, so sampling must find it
    decision = analyse_bid(view(state, seat), 1 - best, random.Random(5), samples=800)
    assert decision.best == str(best)
    assert decision.chosen == str(1 - best)
    for b in (0, 1):
        assert decision.value(str(b)).expected_score == pytest.approx(exact[b], abs=3.0)
    assert decision.loss == pytest.approx(abs(exact[0] - exact[1]), abs=3.0)


# -- a die whose value an exhaustive count knows ------------------------------------------


def round_two_position() -> GameState:
    """Three players, round 2, seat 0 starts and leads a griffin (a flag shows), seat 1
    rolls a purple 3; seat 2, last to roll, holds a minotaur and a yellow die (no purple:
    both may be rolled) and bid 1. After this trick every die is forced."""
    config = GameConfig(3, DS, Variant.STANDARD, 2)  # round 2 is started by seat 0
    state = GameState.at_round(config, 2)
    for h in (hand("griffin", "red"), hand("purple", "gray"), hand("minotaur", "yellow")):
        state.apply_chance(h)
    for s, b in enumerate((1, 0, 1)):
        state.apply(Bid(b), seat=s)
    state.apply(Roll(DS.kind("griffin")), seat=0)
    state.apply_chance(DS.face("flag"))
    state.apply(Roll(DS.kind("purple")), seat=1)
    state.apply_chance(DS.face(3))
    assert state.current_player == 2
    return state


def exact_roll_scores(seat_view: SeatView, made: bool = False) -> dict[str, float]:
    """Each legal die's expected round score for seat 2, every deal of the unseen dice to
    seats 0 and 1 (one die each, no colour shown missing) equally likely, every face;
    with ``made``, its chance of making the bid instead."""
    seat = seat_view.own_seat
    expected: dict[str, float] = {}
    for action in seat_view.legal_actions:
        assert isinstance(action, Roll)
        total = 0.0
        for p_deal, kinds in kind_draws(unseen_counts(seat_view), 2):
            hands = [DS.hand_of_counts([int(i == k) for i in range(len(DS.kinds))])
                     for k in kinds] + [seat_view.hand]
            world = world_from_view(seat_view, hands)
            world.apply(action, seat=seat)
            for q1, code in faces(action.kind.index):
                first = world.clone()
                first.apply_chance(DS.face_of_code(code))
                order = [(first.leader + i) % 3 for i in range(3)]
                rolled = [first.hand(s).kinds()[0] for s in order]
                for combo in product(*(faces(k.index) for k in rolled)):
                    game = first.clone()
                    p = p_deal * q1
                    for s, kind, (q, c) in zip(order, rolled, combo, strict=True):
                        game.apply(Roll(kind), seat=s)
                        game.apply_chance(DS.face_of_code(c))
                        p *= q
                    log = game.rounds[0]
                    assert log.points is not None
                    if made:
                        total += p * (log.winners.count(seat) == seat_view.bids[seat])
                    else:
                        total += p * log.points[seat]
        expected[action.kind.name] = total
    return expected


def test_roll_analysis_finds_the_best_die_of_an_exhaustive_count() -> None:
    state = round_two_position()
    seat_view = view(state, 2)
    exact = exact_roll_scores(seat_view)
    assert set(exact) == {"minotaur", "yellow"}
    best = max(exact, key=lambda d: exact[d])
    worse = min(exact, key=lambda d: exact[d])
    assert exact[best] - exact[worse] > 3
    plain = analyse_roll(seat_view, worse, random.Random(2), samples=800, weighted=False)
    assert plain.best == best
    for die in exact:
        assert plain.value(die).expected_score == pytest.approx(exact[die], abs=3.0)
    # Weighing the worlds by the bids and the rolls changes the values, not the answer.
    weighted = analyse_roll(seat_view, worse, random.Random(2), samples=400)
    assert weighted.best == best
    assert weighted.loss > 0


def test_the_search_gives_each_die_its_chance_of_making_the_bid() -> None:
    """The search's own look at a choice (what the analysis and the advisor read) counts
    the play-outs in which the bid is made, and they agree with an exhaustive count."""
    seat_view = view(round_two_position(), 2)
    exact = exact_roll_scores(seat_view, made=True)
    legal = list(seat_view.legal_actions)
    evaluation = SearchBot().evaluate_plays(seat_view, legal, random.Random(4), samples=800,
                                            weighted=False)
    for action, chance in zip(legal, evaluation.make_chance, strict=True):
        assert isinstance(action, Roll)
        assert chance == pytest.approx(exact[action.kind.name], abs=0.05)
    # The analysis's screening reads the very same play-outs (its second look at the choice
    # made and the best, fresh worlds).
    decision = analyse_roll(seat_view, "yellow", random.Random(4), samples=800, weighted=False)
    screening = {o.choice: o for o in decision.options}
    for action, chance, points in zip(legal, evaluation.make_chance, evaluation.mean_points,
                                      strict=True):
        assert isinstance(action, Roll)
        assert screening[action.kind.name].make_chance == chance
        assert screening[action.kind.name].expected_score == points


# -- only the seat's own information ------------------------------------------------------


def play_randomly(state: GameState, rng: random.Random, stop_after: int | None = None) -> int:
    """Random legal play (and chance) until the game ends or ``stop_after`` decisions were
    made; the number of decisions made."""
    made = 0
    for seat in decision_seats(state, rng):
        if stop_after is not None and made >= stop_after:
            break
        state.apply(rng.choice(state.legal_actions(seat)), seat=seat)
        made += 1
    return made


def place_of(state: GameState) -> tuple[int, int | None, int, int]:
    """The analysis's name of the decision the current player faces now."""
    log = state.rounds[-1]
    seat = state.current_player
    if log.bids is None:
        return state.round_no, None, 0, seat
    trick = len(log.tricks) if log.tricks and len(log.tricks[-1]) < state.n else (
        len(log.tricks) + 1)
    rolled = len(log.tricks[-1]) if log.tricks and len(log.tricks[-1]) < state.n else 0
    return state.round_no, trick, rolled + 1, seat


def same_past_other_hands(state: GameState, drawn: list[Hand]) -> GameState:
    """``state`` replayed event by event, except that this round's hands are ``drawn``."""
    ds = state.dice_set
    twin = GameState(state.config)
    for log in state.rounds:
        current = log is state.rounds[-1]
        for s, key in enumerate(log.hands):
            twin.apply_chance(drawn[s] if current else ds.hand_of_key(key))
        bids = log.bids if log.bids is not None else state.bids
        for s, bid in enumerate(bids):
            if bid >= 0:
                twin.apply(Bid(bid), seat=s)
        for trick in log.tricks:
            for seat, kind, code in trick:
                twin.apply(Roll(ds.kinds[kind]), seat=seat)
                twin.apply_chance(ds.face_of_code(code))
    return twin


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 14), other=st.integers(0, 10**6))
def test_analysis_of_a_decision_ignores_the_dice_the_seat_cannot_see(
        seed: int, steps: int, other: int) -> None:
    rng = random.Random(seed)
    state = GameState(GameConfig(3, DS, Variant.STANDARD, seed % 3))
    play_randomly(state, rng, stop_after=steps)
    if state.round_no > 3 or state.current_player in (TERMINAL, CHANCE):
        return
    seat = state.current_player
    seat_view = view(state, seat)
    # Another game, identical for this seat, with other dice behind the other screens.
    hands = sample_hands(seat_view, random.Random(other))
    twin = same_past_other_hands(state, initial_hands(seat_view, hands))
    assert view(twin, seat) == seat_view
    place = place_of(state)
    action = rng.choice(state.legal_actions())
    finals = []
    for game, fork in ((state, random.Random(1)), (twin, random.Random(2))):
        game.apply(action, seat=seat)
        play_randomly(game, fork)  # the games differ from here on: later dice, later play
        finals.append(game)
    analyses = [analyse_game(f, ["A", "B", "C"], seed=3, samples=12,
                             only=lambda *p: p == place) for f in finals]
    assert analyses[0].decisions == analyses[1].decisions


def test_the_decision_seed_names_public_places_only() -> None:
    a = decision_rng(1, 2, 1, 3, 0).random()
    assert a == decision_rng(1, 2, 1, 3, 0).random()
    assert a != decision_rng(1, 2, 1, 3, 1).random()


# -- the whole game and the command line --------------------------------------------------


def short_game(seed: int = 4) -> GameState:
    """A random three-player game stopped in round 3."""
    state = GameState(GameConfig(3, DS, Variant.STANDARD, 1))
    rng = random.Random(seed)
    while state.round_no < 3 or state.rounds[-1].bids is None:
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()), seat=state.current_player)
    return state


def test_a_game_is_analysed_decision_by_decision_with_a_summary() -> None:
    state = short_game()
    analysis = analyse_game(state, ["Ana", "Ben", "Cleo"], seed=1, samples=10)
    bids = [d for d in analysis.decisions if d.kind == "bid"]
    assert len(bids) == 9  # three rounds bid by three players
    for d in analysis.decisions:
        assert d.loss >= 0
        assert d.chosen in {o.choice for o in d.options}
        assert len(d.options) >= 2
    for s in analysis.summaries:
        mine = [d for d in analysis.decisions if d.seat == s.seat]
        assert s.points_lost == pytest.approx(sum(d.loss for d in mine))
        assert s.bids_too_high + s.bids_too_low <= 3
        assert all(m.seat == s.seat for m in s.mistakes)
    again = analyse_game(state, ["Ana", "Ben", "Cleo"], seed=1, samples=10)
    assert again.decisions == analysis.decisions


def test_a_loss_is_measured_again_on_fresh_worlds() -> None:
    """Where the screening ranked another choice above the one made, the loss is the
    paired difference of the two on fresh worlds, with its standard error; a mistake is a
    loss beyond the noise and two of those errors; a choice made as good as the
    screening's best on the fresh worlds is the best, with no loss."""
    analysis = analyse_game(short_game(), ["Ana", "Ben", "Cleo"], seed=2, samples=20)
    second_looks = [d for d in analysis.decisions if d.compared is not None]
    assert second_looks
    for d in analysis.decisions:
        if d.compared is None:
            assert d.best == d.chosen
            assert d.loss == 0
            assert not d.mistake
            continue
        made, best = d.compared
        assert made.choice == d.chosen
        assert d.compared_samples >= 20
        assert d.compared_samples % 20 == 0
        assert d.loss_se > 0
        if d.best == d.chosen:  # the fresh worlds found the choice made as good
            assert best.expected_score <= made.expected_score
            assert d.loss == 0
        else:
            assert d.loss == pytest.approx(best.expected_score - made.expected_score)
            assert d.loss > 0
        assert d.mistake == (d.loss > NOISE_POINTS and d.loss > SIGNIFICANCE * d.loss_se)
        shown = d.to_json()
        assert shown["mistake"] == d.mistake
        assert shown["loss"] == round(d.loss, 2)


def test_few_worlds_report_no_mistake_that_many_worlds_reverse() -> None:
    """The screening's best among several noisy means looks better than it is; with the
    second look, each mistake found with 20 worlds a choice still loses points against
    the same alternative when measured with 1,000 (seeded: the same check each run)."""
    state = short_game(seed=9)
    players = ["Ana", "Ben", "Cleo"]
    quick = analyse_game(state, players, seed=4, samples=20)
    mistakes = [d for d in quick.decisions if d.mistake]
    assert mistakes
    for d in mistakes:
        def this_one(r: int, t: int | None, _i: int, seat: int, d: Decision = d) -> bool:
            return (r, t, seat) == (d.round_no, d.trick, d.seat)

        careful = analyse_game(state, players, seed=5, samples=1000, only=this_one)
        (again,) = careful.decisions
        options = {o.choice: o.expected_score for o in again.options}
        assert options[d.best] > options[d.chosen], (d.where, d.player, options)


def write_record(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    path.write_text(dumps_record(export_record(short_game(), ["Ana", "Ben", "Cleo"])),
                    encoding="utf-8")
    return path


def test_analyse_command_prints_a_summary_and_json(tmp_path: Path) -> None:
    path = write_record(tmp_path)
    runner = CliRunner()
    text = runner.invoke(app, ["analyse", str(path), "--samples", "8", "--show-hands"])
    assert text.exit_code == 0, text.output
    assert "Ana: biggest mistakes" in text.output
    # the record stops in round 3's play: said, and the rounds counted are those bid
    assert "The record stops before the game's end: 3 rounds analysed." in text.output
    out = runner.invoke(app, ["analyse", str(path), "--samples", "8", "--json",
                              "--show-hands"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert [s["player"] for s in data["summary"]] == ["Ana", "Ben", "Cleo"]
    assert all(d["loss"] >= 0 for d in data["decisions"])
    assert data["finished"] is False
    assert all(s["rounds"] == 3 for s in data["summary"])
    # the table's columns line up under their heads, whatever the names' lengths
    lines = text.output.splitlines()
    head = next(line for line in lines if line.startswith("player"))
    for name in ("Ana", "Ben", "Cleo"):
        row = next(line for line in lines if line.startswith(name + " "))
        assert len(row) == len(head), (head, row)


def test_analyse_leaves_out_the_round_in_play_unless_asked(tmp_path: Path) -> None:
    """A hot-seat save analysed between two turns named each player's dice still in hand
    (a roll's options) and told of their hands' strength (a bid's expected scores); the
    round in play is left out now, said so, and --show-hands analyses it."""
    path = write_record(tmp_path)  # round 3 bid, none of its dice rolled
    runner = CliRunner()
    text = runner.invoke(app, ["analyse", str(path), "--samples", "8"])
    assert text.exit_code == 0, text.output
    assert "2 rounds analysed" in text.output
    assert text.output.rstrip().endswith(
        "Round 3 is still being played: it is left out, its choices naming dice that are "
        "still secret (--show-hands analyses it too).")
    hidden = json.loads(runner.invoke(app, ["analyse", str(path), "--samples", "8",
                                            "--json"]).output)
    shown = json.loads(runner.invoke(app, ["analyse", str(path), "--samples", "8", "--json",
                                           "--show-hands"]).output)
    assert {d["round"] for d in hidden["decisions"]} == {1, 2}
    assert {d["round"] for d in shown["decisions"]} == {1, 2, 3}
    # the rounds left are analysed as they were: the same seeds, the same figures
    assert hidden["decisions"] == [d for d in shown["decisions"] if d["round"] < 3]
    # a record stopped in round 1's play has nothing left: said, with the way to it
    first = tmp_path / "first.json"
    data = json.loads(path.read_text("utf-8"))
    data["rounds"] = data["rounds"][:1]
    data["rounds"][0]["tricks"] = []
    first.write_text(json.dumps(data), encoding="utf-8")
    none = runner.invoke(app, ["analyse", str(first)])
    assert none.exit_code == 1
    assert "round 1 is still being played and left out: --show-hands analyses it" in \
        none.output


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "invalid record"),
    ("", "the record is empty"),
    ("\ufeff \n", "the record is empty"),
    ('{"format": "minodice-record", "version": 1, "players": ["A", "B", "C"], '
     '"rounds": [{"hands": [["red"], ["red"], ["red"]], "bids": [0, 0, 5]}]}', "R6"),
    ('{"format": "minodice-record", "version": 1, "players": ["A", "B", "C"], '
     '"rounds": []}', "no decision"),
])
def test_analyse_refuses_bad_records_in_one_line(tmp_path: Path, content: str,
                                                 message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(app, ["analyse", str(path)])
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    # With --json a script reading standard output gets the error there too (as replay).
    as_json = CliRunner().invoke(app, ["analyse", "--json", str(path)])
    assert as_json.exit_code == 1
    error = json.loads(as_json.stdout)["error"]
    assert error["message"] in as_json.stderr
    assert message in as_json.stderr


def test_analyse_names_a_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["analyse", str(tmp_path / "none.json")])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_mistakes_benchmark_counts_each_mistake_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/analysis.py`` (README's figures of mistakes that hold): every mistake a
    rule calls is counted as holding, between 0 and 2 points, or reversed."""
    bench = load_benchmark("analysis")
    monkeypatch.setattr("sys.argv", ["analysis.py", "--games", "1", "--samples", "6",
                                     "--reference", "30", "--lineup", "medium,random,easy"])
    bench.main()
    rows = [line.split() for line in capsys.readouterr().out.splitlines()
            if line.startswith(("screening", "with the"))]
    assert len(rows) == 2
    for row in rows:
        called, hold, between, reverse = map(int, row[-4:])
        assert called == hold + between + reverse
    assert int(rows[0][-4]) > 0  # a random player's game has mistakes


def test_one_world_a_choice_calls_no_loss_sure() -> None:
    """With one world a choice (``--samples 1``) the second look still weighs ten worlds a
    batch, so that a loss has a spread and one lucky world is no sure mistake."""
    analysis = analyse_game(short_game(), ["Ana", "Ben", "Cleo"], seed=2, samples=1)
    looked = [d for d in analysis.decisions if d.compared is not None]
    assert looked
    for d in looked:
        assert d.compared_samples >= MIN_COMPARED
        assert d.compared_samples % MIN_COMPARED == 0
