"""Fit the expert's model of a ``hard`` opponent from ``hard``'s self-play (issue 19).

    python scripts/fit_hard_model.py [--games 12] [--seed 1] [--players 4]

Plays ``--games`` games of ``hard`` bots against each other (every deal and every bot's
random numbers from ``--seed``: the same seed writes the same file) and, knowing every
hand, measures two things the expert's sampling of hidden dice needs
(:mod:`minodice.bots.expert`):

- the bids: per round, the mean and the spread of ``hard``'s bid minus the heuristic's
  expected tricks of its hand (:meth:`~minodice.bots.strength.Strength.expected_tricks`),
  so that a revealed bid says how strong the hand behind it probably is;
- the dice: per number of legal dice, how often ``hard`` rolls the die that the
  expected-score policy (:class:`~minodice.bots.strength.ExpectedScorePolicy`) would roll
  from the same hand — from which a roll's likelihood under either world follows.

It writes ``src/minodice/bots/data/hard-model.json`` (``--out`` to write elsewhere), which
the package ships; nothing is downloaded or fitted at run time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path

from minodice.bots.loading import make_bot
from minodice.bots.strength import ExpectedScorePolicy, strength_of
from minodice.core.actions import Bid, Roll
from minodice.core.dice import load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import GameConfig, GameState, decision_seats
from minodice.core.view import view

OUT = Path(__file__).resolve().parent.parent / "src/minodice/bots/data/hard-model.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    ds = load_dice_set("mino")
    strength = strength_of(ds)
    policy = ExpectedScorePolicy(strength, args.players)
    bots = [make_bot("hard") for _ in range(args.players)]
    residuals: dict[int, list[float]] = {}
    agree: dict[int, list[int]] = {}  # legal dice -> [agreed, decisions]
    for game in range(args.games):
        rng = random.Random(f"{args.seed}:{game}")
        state = GameState(GameConfig(args.players, ds, Variant.STANDARD, game % args.players))
        for seat in decision_seats(state, rng):
            legal = state.legal_actions(seat)
            seat_view = view(state, seat)
            action = bots[seat].act(seat_view, legal, rng) if len(legal) > 1 else legal[0]
            if isinstance(action, Bid):
                expected = strength.expected_tricks(seat_view.hand.counts, args.players)
                residuals.setdefault(state.round_no, []).append(action.tricks - expected)
            elif isinstance(action, Roll) and len(legal) > 1:
                kinds = state.legal_kinds()
                rolled = state.rolled
                row = strength.p_win_row(state.symbol_mask, state.best_number, rolled == 0,
                                         args.players - 1 - rolled)
                model = policy.choose(kinds, state.hands[seat], row, state.bids[seat],
                                      state.tricks_won[seat], state.round_no)
                tally = agree.setdefault(len(kinds), [0, 0])
                tally[0] += model == action.kind.index
                tally[1] += 1
            state.apply(action, seat=seat)
        print(f"game {game + 1} of {args.games}", flush=True)
    rounds = sorted(residuals)
    data = {
        "about": f"hard's bids and dice in {args.games} self-play games of {args.players} "
                 f"players, seed {args.seed} (scripts/fit_hard_model.py)",
        "players": args.players,
        "bid_offset": [round(statistics.mean(residuals[r]), 3) for r in rounds],
        "bid_sd": [round(statistics.pstdev(residuals[r]), 3) for r in rounds],
        "bids_per_round": [len(residuals[r]) for r in rounds],
        "policy_agreement": {str(k): round(a / n, 3) for k, (a, n) in sorted(agree.items())},
        "rolls_per_choice_count": {str(k): n for k, (_, n) in sorted(agree.items())},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
