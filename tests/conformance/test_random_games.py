"""Random games for every player count, dice set and variant, checked at every step
(OpenSpiel ``random_sim_test``), and scored again from their records alone."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from minodice.core import (
    RuleOptions,
    SpecialLead,
    StartRule,
    export_record,
    load_record,
    summarize,
)

from .driver import (
    DICE_SETS,
    OTHER_OPTIONS,
    PLAYER_COUNTS,
    VARIANTS,
    Checker,
    names,
    play_out,
    seeded_game,
)
from .oracle import SPECS, legal_kinds, rounds_in_game, score_record, trick_result

SEEDS = (0, 1, 2)
MATRIX = [(p, d, v, seed) for p in PLAYER_COUNTS for d in DICE_SETS for v in VARIANTS
          for seed in SEEDS]


@pytest.mark.parametrize(("players", "dice_set", "variant", "seed"), MATRIX)
def test_random_game_keeps_every_invariant(
    players: int, dice_set: str, variant: str, seed: int
) -> None:
    state, rng = seeded_game(players, dice_set, variant, seed)
    checker = Checker(state, random.Random(seed))
    checker.run(rng)

    assert state.is_terminal()
    rounds = rounds_in_game(players)
    assert checker.counts["rounds"] == rounds
    assert checker.counts["tricks"] == rounds * (rounds + 1) // 2
    # The probes really ran: refusals, bad outcomes, view comparisons, the follow rule.
    for probe in ("refusals", "bad outcomes", "hand swaps", "bid swaps", "follow checks",
                  "draw checks"):
        assert checker.counts[probe] > 0, probe


@pytest.mark.parametrize(("players", "dice_set", "variant", "seed"), MATRIX)
def test_scores_recomputed_from_the_record_json(
    players: int, dice_set: str, variant: str, seed: int
) -> None:
    state, rng = seeded_game(players, dice_set, variant, seed)
    play_out(state, rng)
    record = json.loads(json.dumps(export_record(state, names(players))))
    score = score_record(record)  # R1–R9 checked and R10–R16 applied, from the JSON alone

    assert score.complete
    assert len(score.rounds) == len(state.rounds)
    for ours, log in zip(score.rounds, state.rounds, strict=True):
        assert ours.trick_winners == log.winners, f"round {ours.round_no} trick winners"
        assert ours.bonus == log.bonus, f"round {ours.round_no} bonus"
        assert ours.points == log.points, f"round {ours.round_no} points"
        assert ours.totals == log.totals, f"round {ours.round_no} totals"
    assert score.totals == state.totals
    assert score.winners == state.winners()

    summary = summarize(state, names(players))
    assert summary["complete"] is True
    assert summary["totals"] == score.totals
    assert summary["winners"] == score.winners
    for row, ours in zip(summary["rounds"], score.rounds, strict=True):
        assert (row["round"], row["starter"], row["bids"]) == (
            ours.round_no, ours.starter, ours.bids)
        assert (row["trick_winners"], row["tricks_won"]) == (ours.trick_winners, ours.tricks_won)
        assert (row["bonus"], row["points"], row["totals"]) == (
            ours.bonus, ours.points, ours.totals)


def test_random_games_reach_the_rare_cases() -> None:
    """The random games above are worth something only if they reach every case of R10,
    R13 and R14; count the cases over a batch of games, from their records."""
    seen: Counter[str] = Counter()
    roles = ("minotaur", "griffin", "mermaid")
    for seed in range(100):
        players, dice_set = PLAYER_COUNTS[seed % 4], DICE_SETS[seed % 2]
        state = play_out(*seeded_game(players, dice_set, "standard", 100 + seed))
        record = export_record(state, names(players))
        spec = SPECS[dice_set]
        for rnd in record["rounds"]:
            won = [0] * players
            for trick in rnd["tricks"]:
                faces = [roll["face"] for roll in trick]
                showing = sorted({roles[spec.symbols.index(f)] for f in faces
                                  if f in spec.symbols})
                numbers = [f for f in faces if isinstance(f, int)]
                if len(showing) >= 2:
                    seen["+".join(showing)] += 1
                elif showing and len([f for f in faces if f in spec.symbols]) > 1:
                    seen["one symbol, several times"] += 1
                elif not showing and numbers and numbers.count(max(numbers)) > 1:
                    seen["tied highest number"] += 1
                elif not showing and not numbers:
                    seen["only flags"] += 1
                if trick[0]["die"] in spec.special:
                    seen["special die leads"] += 1
                index, bonus = trick_result(spec, faces)
                won[trick[index]["player"]] += 1
                if bonus:
                    kind = "minotaur" if faces[index] == spec.symbols[0] else "mermaid"
                    seen[f"{kind} bonus trick"] += 1
            for bid, k in zip(rnd["bids"], won, strict=True):
                seen[f"bid {'0' if bid == 0 else 'n'} {'made' if bid == k else 'missed'}"] += 1
    for case in ("griffin+minotaur", "griffin+mermaid", "mermaid+minotaur",
                 "griffin+mermaid+minotaur", "one symbol, several times", "tied highest number",
                 "only flags", "special die leads", "bid 0 made", "bid 0 missed", "bid n made",
                 "bid n missed", "minotaur bonus trick", "mermaid bonus trick"):
        assert seen[case] > 0, f"no {case} in 100 random games: {dict(seen)}"


@pytest.mark.parametrize("dice_set", DICE_SETS)
def test_bonuses_when_every_bid_is_made(dice_set: str) -> None:
    """R14 pays only on a made bid, which random bids rarely are: give the recorded games
    perfect bids (bids do not change what may be rolled) and score them again."""
    earned: Counter[str] = Counter()
    for seed in range(60):
        players = PLAYER_COUNTS[seed % 4]
        state = play_out(*seeded_game(players, dice_set, "standard", 500 + seed))
        record = export_record(state, names(players))
        for rnd, log in zip(record["rounds"], state.rounds, strict=True):
            rnd["bids"] = [log.winners.count(s) for s in range(players)]
        perfect = load_record(json.loads(json.dumps(record))).state
        score = score_record(record)
        for ours, log in zip(score.rounds, perfect.rounds, strict=True):
            assert (ours.points, ours.bonus, ours.totals) == (log.points, log.bonus, log.totals)
            assert log.points is not None
            assert log.bonus is not None
            assert all(p >= 0 for p in log.points)  # every bid made
            earned.update("mermaid" if b % 30 else "minotaur" for b in log.bonus if b)
        assert perfect.totals == score.totals
        assert perfect.winners() == score.winners
    assert earned["minotaur"] > 0
    assert earned["mermaid"] > 0


def choices_freed(record: dict[str, Any]) -> int:
    """The rolls of a record at which R9's ``no-colour`` allowed more dice than the default
    would have (a trick a special die led, and a colour held that a number die set)."""
    spec = SPECS[record["dice_set"]]
    freed = 0
    for rnd in record["rounds"]:
        hands = [Counter(hand) for hand in rnd["hands"]]
        for trick in rnd["tricks"]:
            kinds: list[str] = []
            for roll in trick:
                hand = hands[roll["player"]]
                freed += legal_kinds(spec, hand, kinds, "no-colour") != legal_kinds(
                    spec, hand, kinds)
                hand[roll["die"]] -= 1
                kinds.append(roll["die"])
    return freed


@pytest.mark.parametrize("options", OTHER_OPTIONS, ids=str)
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_open_rules_played_otherwise(players: int, options: RuleOptions) -> None:
    """RULES.md keeps its open points configurable: R5 (``start=fixed``: round 1's start
    player starts every round) and R9 (``special-lead=no-colour``: a trick a special die
    leads has no colour to follow). Every invariant holds under them, the oracle (which
    reads them from the record alone) scores the games alike, and they change play."""
    for seed in range(2):
        dice_set = DICE_SETS[seed % len(DICE_SETS)]
        state, rng = seeded_game(players, dice_set, "standard", seed, options)
        checker = Checker(state, random.Random(seed))
        checker.run(rng)
        assert state.is_terminal()
        record = json.loads(json.dumps(export_record(state, names(players))))
        assert record["rule_options"] == options.as_json()
        score = score_record(record)
        assert [s.starter for s in score.rounds] == [
            row["starter"] for row in summarize(state, names(players))["rounds"]]
        starters = {s.starter for s in score.rounds}
        assert (len(starters) == 1) is (options.start is StartRule.FIXED)
        assert score.totals == state.totals
        assert [s.trick_winners for s in score.rounds] == [g.winners for g in state.rounds]
        again = load_record(record).state
        assert again.config.options == options
        assert again.totals == state.totals
    if options.special_lead is SpecialLead.NO_COLOUR:  # ten more games, unchecked
        freed = 0
        for seed in range(2, 12):
            state, rng = seeded_game(players, "mino", "standard", seed, options)
            freed += choices_freed(export_record(play_out(state, rng), names(players)))
        assert freed > 0, "no trick a special die led ever freed a choice"
