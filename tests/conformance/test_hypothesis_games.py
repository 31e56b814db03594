"""Games whose every choice — chance outcomes included — is made by Hypothesis, so that
failures shrink to short, simple games (index 0 everywhere)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minodice.core import CHANCE, Phase, export_record, load_record

from .driver import DICE_SETS, VARIANTS, Checker, names, new_game, record_text, snapshot
from .oracle import score_record


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    players=st.integers(3, 6),
    dice_set=st.sampled_from(DICE_SETS),
    variant=st.sampled_from(VARIANTS),
    first=st.integers(0, 5),
)
def test_hypothesis_chosen_games(
    data: st.DataObject, players: int, dice_set: str, variant: str, first: int
) -> None:
    state = new_game(players, dice_set, variant, first % players)
    checker = Checker(state, sampler=random.Random(first), probe_rate=0.0)
    last_round = data.draw(st.integers(1, state.n_rounds), label="rounds to play")
    while not state.is_terminal() and state.round_no <= last_round:
        checker.check_dice()
        checker.check_turn()
        log = state.rounds[-1]
        if state.current_player == CHANCE:
            outcomes = state.chance_outcomes()
            outcome, _ = outcomes[data.draw(st.integers(0, len(outcomes) - 1))]
            checker.check_outcome_shape(outcome)
            state.apply_chance(outcome)
        else:
            seat = None
            if state.phase is Phase.BID:
                seat = data.draw(st.sampled_from(state.bidders()))
            actions = state.legal_actions(seat)
            assert actions
            state.apply(data.draw(st.sampled_from(actions)), seat=seat)
        checker.after_step(log)
    checker.check_views()

    text = record_text(state)
    reloaded = load_record(json.loads(text)).state
    assert record_text(reloaded) == text
    score = score_record(json.loads(json.dumps(export_record(state, names(players)))))
    finished = [log for log in state.rounds if log.points is not None]
    assert [r.points for r in score.rounds if r.points is not None] == [
        log.points for log in finished]
    assert score.totals == state.totals
    assert score.winners == state.winners()
    assert state.is_terminal() or (state.phase is Phase.DRAW and state.drawing_seat == 0)
    assert snapshot(reloaded) == snapshot(state)
