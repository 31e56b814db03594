"""Same seed, same game, whatever is done to the engine: a pinned digest of seeded games.

Every step of seeded random games through the public API is written as a line of text —
the legal actions offered, the action taken, the chance outcome drawn and, at the end, the
scores of every round — and the lines are hashed. Four ways of driving cover the whole
API: ``sample_chance`` (the fast path); every chance step listed by ``chance_outcomes()``
(each outcome and its exact probability in the trace) and chosen by weight; bids in a
random order of seats (R6) with a :meth:`GameState.clone` taken each round and played on;
and search's ``legal_kinds``/``roll_kind``. Every player count, both dice sets and both
variants.

The digests are pinned below: a change to the engine that changes a legal action, an
outcome, the order of listed outcomes, a probability or a score changes them, so a
faster engine must leave them alone. The compiled core (``make compiled``) must give the
same digests (``tests/test_compiled.py`` runs this file as a script there).

    python tests/test_trace.py [GAMES]     # prints the digest of GAMES games per set-up
"""

from __future__ import annotations

import hashlib
import random
import sys
from collections.abc import Iterator

import pytest

from minodice.core import (
    CHANCE,
    TERMINAL,
    GameConfig,
    GameState,
    Phase,
    RuleOptions,
    Variant,
    load_dice_set,
)
from minodice.core.rules import DEFAULT_RULE_OPTIONS
from minodice.core.state import Outcome, RoundLog

SETUPS = [(p, d, v, DEFAULT_RULE_OPTIONS) for p in (3, 4, 5, 6)
          for d in ("mino", "skull-king") for v in ("standard", "simplified")]
#: RULES.md's open points played otherwise (R5 fixed, R9 no colour after a special lead).
OPTION_SETUPS = [(p, d, "standard", RuleOptions.parse(o)) for p, d in ((3, "mino"),
                 (6, "skull-king")) for o in ("start=fixed", "special-lead=no-colour",
                                              "start=fixed special-lead=no-colour")]
MODES = ("sample", "listed", "bidders-clone", "roll-kind")

# sha256 of the traces of GAMES_PINNED games for each set-up (modes in turn).
GAMES_PINNED = 8
PINNED = "4e8022459263bdf94f2ed8443c19631f13606cc26176e1aff175f40de1906ef0"
PINNED_OPTIONS = "688186df9a6eb86c3b5c7a221378f0e18831a9e249bfb7dac4092f1d58b6fd78"


def trace_game(players: int, dice_set: str, variant: str, seed: int,
               options: RuleOptions = DEFAULT_RULE_OPTIONS) -> Iterator[str]:
    """The lines of one seeded game, driven in mode ``MODES[seed % 4]``."""
    mode = MODES[seed % len(MODES)]
    named = "" if options.is_default else f":{options}"
    rng = random.Random(f"trace:{players}:{dice_set}:{variant}:{seed}{named}")
    rand = rng.random
    config = GameConfig(players, load_dice_set(dice_set), Variant(variant),
                        rng.randrange(players), options)
    state = GameState(config)
    round_no = 0
    while True:
        player = state.current_player
        if player == TERMINAL:
            break
        if mode == "bidders-clone" and state.round_no != round_no:
            round_no = state.round_no
            state = state.clone()
        if player == CHANCE:
            outcome: Outcome
            if mode == "listed":
                listed = state.chance_outcomes()
                yield " ".join(f"{o}={p}" for o, p in listed)
                outcomes, probs = zip(*listed, strict=True)
                outcome = rng.choices(outcomes, weights=probs)[0]
            else:
                outcome = state.sample_chance(rng)
            yield f"chance {outcome}"
            state.apply_chance(outcome)
        elif mode == "bidders-clone" and state.phase is Phase.BID:
            bidders = state.bidders()
            seat = bidders[int(rand() * len(bidders))]
            actions = state.legal_actions(seat)
            action = actions[int(rand() * len(actions))]
            yield f"seat {seat} of {bidders}: {action} of {len(actions)}"
            state.apply(action, seat=seat)
        elif mode == "roll-kind" and state.phase is Phase.PLAY:
            kinds = state.legal_kinds()
            kind = kinds[int(rand() * len(kinds))]
            yield f"seat {player}: kind {kind} of {kinds}"
            state.roll_kind(kind, rand())
            yield f"rolled {state.trick[-1] if state.trick else 'trick over'}"
        else:
            actions = state.legal_actions()
            action = actions[int(rand() * len(actions))]
            yield f"seat {player}: {action} of {', '.join(map(str, actions))}"
            state.apply(action)
    for log in state.rounds:
        yield f"round {log.hands} {log.bids} {log.tricks} {log.winners} {log.points} " \
              f"{log.bonus} {log.totals}"
    yield f"totals {state.totals} winners {state.winners()}"


def digest(games: int, setups: list[tuple[int, str, str, RuleOptions]] = SETUPS) -> str:
    """The sha256 of ``games`` traced games of every set-up."""
    h = hashlib.sha256()
    for players, dice_set, variant, options in setups:
        for seed in range(games):
            for line in trace_game(players, dice_set, variant, seed, options):
                h.update(line.encode())
                h.update(b"\n")
    return h.hexdigest()


def test_seeded_games_are_the_pinned_games() -> None:
    assert digest(GAMES_PINNED) == PINNED
    assert digest(GAMES_PINNED, OPTION_SETUPS) == PINNED_OPTIONS


def _facts(value: object) -> object:
    """A value comparable across copies: a round's log by its contents."""
    if isinstance(value, list) and value and isinstance(value[0], RoundLog):
        return [(g.hands, g.bids, g.tricks, g.winners, g.points, g.bonus, g.totals)
                for g in value]
    return value


# The attributes of a state: its __slots__, or in a compiled build (make compiled) the list
# mypyc keeps of them.
ATTRIBUTES: tuple[str, ...] = getattr(GameState, "__mypyc_attrs__", None) or GameState.__slots__


def test_a_clone_copies_every_attribute() -> None:
    # clone() copies the attributes one by one: none may be missed, no list may be shared.
    rng = random.Random("clone")
    state = GameState.new(5, "skull-king")
    while not state.is_terminal():
        copy = state.clone()
        for name in ATTRIBUTES:
            mine, theirs = getattr(state, name), getattr(copy, name)
            assert _facts(theirs) == _facts(mine), name
            assert not isinstance(mine, list) or theirs is not mine, name
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))


def test_a_clone_shares_the_finished_rounds_logs_and_never_changes_them() -> None:
    # A finished round's log is never written again, so a clone shares it (a server forks
    # its table at every move); the round in play is copied. Playing a clone to its end
    # leaves the original's logs as they were.
    rng = random.Random("shared logs")
    state = GameState.new(4)
    while not state.is_terminal():
        copy = state.clone()
        for mine, theirs in zip(state.rounds, copy.rounds, strict=True):
            assert (theirs is mine) == (mine.points is not None)
        before = repr(_facts(state.rounds))
        while not copy.is_terminal():
            if copy.current_player == CHANCE:
                copy.apply_chance(copy.sample_chance(rng))
            else:
                copy.apply(rng.choice(copy.legal_actions()))
        assert repr(_facts(state.rounds)) == before
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_plays_whole_games(mode: str) -> None:
    seed = MODES.index(mode)
    lines = list(trace_game(4, "mino", "standard", seed))
    assert lines[-1].startswith("totals ")
    assert sum(line.startswith("round ") for line in lines) == 8


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else GAMES_PINNED
    print(digest(count))
    print(digest(count, OPTION_SETUPS))
