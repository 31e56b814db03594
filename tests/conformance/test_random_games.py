"""Random games for every player count, dice set and variant, checked at every step
(OpenSpiel ``random_sim_test``), and scored again from their records alone."""

from __future__ import annotations

import json
import random

import pytest

from minodice.core import export_record, summarize

from .driver import DICE_SETS, PLAYER_COUNTS, VARIANTS, Checker, names, seeded_game
from .oracle import score_record

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
    rounds = {3: 8, 4: 8, 5: 7, 6: 6}[players]
    assert checker.counts["rounds"] == rounds
    assert checker.counts["tricks"] == rounds * (rounds + 1) // 2
    # The probes really ran: refusals, bad outcomes, view comparisons, the follow rule.
    for probe in ("refusals", "bad outcomes", "hand swaps", "follow checks", "full draw checks"):
        assert checker.counts[probe] > 0, probe


@pytest.mark.parametrize(("players", "dice_set", "variant", "seed"), MATRIX)
def test_scores_recomputed_from_the_record_json(
    players: int, dice_set: str, variant: str, seed: int
) -> None:
    state, rng = seeded_game(players, dice_set, variant, seed)
    from .driver import play_out

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
    assert summary["totals"] == score.totals and summary["winners"] == score.winners
    for row, ours in zip(summary["rounds"], score.rounds, strict=True):
        assert (row["round"], row["starter"], row["bids"]) == (
            ours.round_no, ours.starter, ours.bids)
        assert (row["trick_winners"], row["tricks_won"]) == (ours.trick_winners, ours.tricks_won)
        assert (row["bonus"], row["points"], row["totals"]) == (
            ours.bonus, ours.points, ours.totals)
