"""Actions built on other dice-set objects: a ``Roll`` compares by kind name, so one equal to
a legal action must be taken as that action, and one naming a kind the set lacks refused."""

from __future__ import annotations

import json
from functools import partial
from importlib import resources

import pytest

from minodice.core import Action, DiceSet, GameState, Phase, Roll, load_dice_set

from .driver import DICE_SETS, expect_refused, random_step, seeded_game, snapshot


def shipped_data(name: str) -> dict[str, object]:
    text = resources.files("minodice.core").joinpath("data", f"{name}.json").read_text("utf-8")
    data: dict[str, object] = json.loads(text)
    return data


def variants_of(name: str) -> list[DiceSet]:
    """Other dice-set objects: an equal copy, a reordered copy, one with an extra kind."""
    data = shipped_data(name)
    kinds = data["kinds"]
    assert isinstance(kinds, list)
    extra = {"name": "white", "count": 1, "faces": [1, 1, 1, 1, 1, 1]}
    return [
        DiceSet(data),
        DiceSet({**data, "kinds": kinds[::-1]}),
        DiceSet({**data, "kinds": [*kinds, extra]}),
    ]


def play_states(name: str) -> list[GameState]:
    state, rng = seeded_game(4, name, "standard", 9)
    found: list[GameState] = []
    while not state.is_terminal():
        if state.phase is Phase.PLAY:
            found.append(state.clone())
        random_step(state, rng)
    return found


@pytest.mark.parametrize("name", DICE_SETS)
def test_rolls_of_other_dice_set_objects(name: str) -> None:
    others = [*variants_of(name), load_dice_set("mino" if name == "skull-king" else "skull-king")]
    accepted = refused = 0
    for state in play_states(name):
        legal = state.legal_actions()
        for other in others:
            for kind in other.kinds:
                action: Action = Roll(kind)
                if action in legal:  # equal by name to a legal action: the same decision
                    native = next(a for a in legal if a == action)
                    mine, theirs = state.clone(), state.clone()
                    mine.apply(native)
                    theirs.apply(action)
                    assert snapshot(theirs) == snapshot(mine), f"{action!r} from {other.name}"
                    accepted += 1
                else:
                    expect_refused(state, partial(state.apply, action), f"{action!r}")
                    refused += 1
    assert accepted > 0
    assert refused > 0
