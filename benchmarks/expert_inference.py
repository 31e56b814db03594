"""Does the expert's model of ``hard`` guess the hidden dice better than ``hard`` does?

Positions: every roll (round 3 on, after the round's first trick) of ``--games`` games of
four ``hard`` bots, whose hands are known here. At each, worlds are drawn as each bot's
search draws them (``_sample_world``: candidates fitted to the bids, weighed by the rolls
so far) and compared with the true hands: the share of each other seat's dice the world
gets right (by kind) and the error of its expected tricks (the heuristic's). Uniform
worlds (every deal agreeing with the view equally likely) are the floor. It plays no
match: it measures the inference alone, on the same positions and random numbers for
every bot.

Run: ``nice -n 10 python benchmarks/expert_inference.py [--games 3] [--seed 11]``.
"""

from __future__ import annotations

import argparse
import random
import statistics

from minodice.bots.expert import ExpertBot
from minodice.bots.sampling import Unseen
from minodice.bots.search import HardBot, SearchBot
from minodice.bots.strength import Strength, strength_of
from minodice.core.actions import Roll
from minodice.core.dice import Hand, load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import GameConfig, GameState, decision_seats
from minodice.core.view import SeatView, view


def positions(games: int, seed: int) -> list[tuple[SeatView, list[Hand]]]:
    ds = load_dice_set("mino")
    found: list[tuple[SeatView, list[Hand]]] = []
    for game in range(games):
        bots = [HardBot() for _ in range(4)]
        rng = random.Random(f"infer:{seed}:{game}")
        state = GameState(GameConfig(4, ds, Variant.STANDARD, game % 4))
        for seat in decision_seats(state, rng):
            legal = state.legal_actions(seat)
            seat_view = view(state, seat)
            if isinstance(legal[0], Roll) and seat_view.round_tricks and state.round_no >= 3:
                found.append((seat_view, [state.hand(s) for s in range(4)]))
            action = bots[seat].act(seat_view, legal, rng) if len(legal) > 1 else legal[0]
            state.apply(action, seat=seat)
        print(f"game {game + 1} of {games}: {len(found)} positions", flush=True)
    return found


def score(bot: SearchBot | None, found: list[tuple[SeatView, list[Hand]]], strength: Strength,
          worlds: int) -> tuple[float, float, int]:
    """(share of true dice found, mean |expected tricks error|, hands) over the positions;
    ``bot`` None: uniform worlds."""
    right: list[float] = []
    error: list[float] = []
    for i, (seat_view, true) in enumerate(found):
        rng = random.Random(i)
        unseen = Unseen(seat_view)
        for _ in range(worlds):
            hands = (unseen.sample(rng) if bot is None
                     else bot._sample_world(seat_view, rng, strength, unseen))
            for s in range(4):
                size = seat_view.hand_sizes[s]
                if s == seat_view.seat or size == 0:
                    continue
                mine, theirs = hands[s].counts, true[s].counts
                right.append(sum(map(min, mine, theirs)) / size)
                error.append(abs(strength.expected_tricks(mine, 4)
                                 - strength.expected_tricks(theirs, 4)))
    return statistics.mean(right), statistics.mean(error), len(right)


def main() -> None:
    parser = argparse.ArgumentParser(description="the expert's inference of hidden dice")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--worlds", type=int, default=30)
    args = parser.parse_args()
    strength = strength_of(load_dice_set("mino"))
    found = positions(args.games, args.seed)
    bots: list[tuple[str, SearchBot | None]] = [
        ("hard", HardBot()), ("expert without its model", ExpertBot(opponent_model=False)),
        ("expert", ExpertBot()), ("uniform worlds", None)]
    print(f"{len(found)} positions, {args.worlds} worlds each (seed {args.seed})")
    for name, bot in bots:
        right, error, hands = score(bot, found, strength, args.worlds)
        print(f"{name}: true dice found {right:.4f}, |expected tricks error| {error:.4f} "
              f"over {hands} hands", flush=True)


if __name__ == "__main__":
    main()
