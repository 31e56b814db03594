"""The bid advisor: speed, and whether its advice holds up when the round is played out.

1. Speed: ``advise()`` for random round-8 hands with 4 players (median target <= 100 ms).
   For comparison, Mino-Dice-Prob-Calc-Web publishes 6.2 ms per 4-player hand for its
   exact model and 31–48 ms for 10,000-sample Monte Carlo — under a model that fixes the
   play order and treats opponents as random draws.
2. Quality: random deals (4 players, a random round and seat). For each, three bids are
   played out on the same dice (duplicate): the advisor's best bid, the rounded sum of the
   dice's win chances (the simple model's expected tricks), and the rounded mean of the
   advisor's own trick distribution. The round is then really played: our seat by the
   ``hard`` bot holding that bid, the others by ``easy`` bots with their own bids. The
   realised scores are compared pairwise, with 95% intervals.

Run: ``python benchmarks/advise.py [--hands 60] [--deals 300]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from minodice.bots.advisor import advise
from minodice.bots.heuristic import EasyBot
from minodice.bots.search import HardBot
from minodice.core.actions import Bid
from minodice.core.dice import Hand, load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, GameConfig, GameState
from minodice.core.view import view
from minodice.play.tournament import mean_ci95

PLAYERS = 4


def random_hands(rng: random.Random, round_no: int) -> list[Hand]:
    ds = load_dice_set("mino")
    bag = [k.index for k in ds.kinds for _ in range(k.count)]
    rng.shuffle(bag)
    hands = []
    for seat in range(PLAYERS):
        counts = [0] * len(ds.kinds)
        for k in bag[seat * round_no:(seat + 1) * round_no]:
            counts[k] += 1
        hands.append(ds.hand_of_counts(counts))
    return hands


def play_round(hands: list[Hand], round_no: int, seat: int, bid: int, seed: int) -> int:
    """Really play the round: ``seat`` is the hard bot bidding ``bid``; returns its points."""
    ds = load_dice_set("mino")
    config = GameConfig(PLAYERS, ds, Variant.STANDARD, (1 - round_no) % PLAYERS)
    state = GameState.at_round(config, round_no)
    for hand in hands:
        state.apply_chance(hand)
    easy, hard = EasyBot(), HardBot()
    bot_rng = random.Random(seed)
    for s in range(PLAYERS):
        if s == seat:
            state.apply(Bid(bid), seat=s)
        else:
            state.apply(easy.act(view(state, s), state.legal_actions(s), bot_rng), seat=s)
    dice_rng = random.Random(seed * 7919 + 1)
    log = state.rounds[-1]
    while log.points is None:
        player = state.current_player
        if player == CHANCE:
            state.apply_chance(state.sample_chance(dice_rng))
            continue
        bot = hard if player == seat else easy
        state.apply(bot.act(view(state, player), state.legal_actions(player), bot_rng),
                    seat=player)
    return log.points[seat]


def main() -> None:
    parser = argparse.ArgumentParser(description="bid advisor benchmark")
    parser.add_argument("--hands", type=int, default=60, help="round-8 hands to time")
    parser.add_argument("--deals", type=int, default=300, help="deals to play out")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    times = []
    for _ in range(args.hands):
        hand = random_hands(rng, 8)[0]
        start = time.perf_counter()
        advise(PLAYERS, 8, rng.randrange(PLAYERS), hand, seed=rng.randrange(10**9))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"advise, round 8, {PLAYERS} players, {args.hands} hands: median "
          f"{statistics.median(times):.1f} ms, p90 {times[int(0.9 * len(times))]:.1f} ms "
          f"(target: median <= 100 ms)")

    rows: dict[str, list[int]] = {"advised": [], "simple": [], "mean": []}
    start = time.perf_counter()
    for deal in range(args.deals):
        round_no = rng.randint(2, 8)
        seat = rng.randrange(PLAYERS)
        hands = random_hands(rng, round_no)
        advice = advise(PLAYERS, round_no, seat, hands[seat], seed=deal)
        bids = {
            "advised": advice.best_bid,
            "simple": min(round_no, int(advice.heuristic_tricks + 0.5)),
            "mean": min(round_no, int(advice.expected_tricks + 0.5)),
        }
        played: dict[int, int] = {}
        for label, bid in bids.items():
            if bid not in played:
                played[bid] = play_round(hands, round_no, seat, bid, seed=deal)
            rows[label].append(played[bid])
    print(f"played out {args.deals} deals (rounds 2-8, hard bot holding the bid, 3 easy "
          f"opponents) in {time.perf_counter() - start:.0f} s")
    for label, scores in rows.items():
        mean, low, high = mean_ci95(scores)
        print(f"  bid = {label:<8} mean realised score {mean:7.2f}  95% [{low:.2f}, {high:.2f}]")
    for other in ("simple", "mean"):
        diff = [a - b for a, b in zip(rows["advised"], rows[other], strict=True)]
        mean, low, high = mean_ci95(diff)
        print(f"  advised minus {other:<6}: {mean:+.2f} per round, 95% [{low:+.2f}, {high:+.2f}]")


if __name__ == "__main__":
    main()
