"""Does the expected-score policy play better when its chance of taking a trick knows more?

The search's play-outs are played by :class:`~minodice.bots.strength.ExpectedScorePolicy`,
whose chance that a die takes the trick assumes the later dice are random dice of the whole
set. :meth:`~minodice.bots.strength.Strength.p_win_row_given` can instead take the players
after it to play towards their bids (``--knows intent``, with ``--factors NEEDING DUCKING``)
or draw the later dice from the special dice the player has not seen (``--knows unseen``).
This plays one ``medium`` bot whose rolls use that row against three plain ``medium`` bots on
duplicate deals (each deal played four times, the seats rotated) and prints its mean score
minus the others' per game, with a 95% interval over deals, and its win share. Bids are
``medium``'s own in both, so only the play differs. A policy's own strength is a proxy: the
variants' effect inside the search is measured by ``benchmarks/expert_variants.py``.

Run: ``python benchmarks/policy_odds.py --knows intent --deals 300 --seed 11``.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections.abc import Sequence

import minodice.bots.strength as strength_module
from minodice.bots.heuristic import MediumBot, trick_summary
from minodice.bots.protocol import Bot
from minodice.bots.sampling import unseen_counts
from minodice.core.actions import Action, Roll
from minodice.core.dice import KIND_BITS, load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import GameConfig
from minodice.core.view import SeatView
from minodice.play.match import deal_rng, play_bot_game

PLAYERS = 4


class KnowingMedium(MediumBot):
    """``medium`` whose rolls weigh the trick with :meth:`Strength.p_win_row_given`."""

    name = "knowing"

    def __init__(self, knows: str) -> None:
        super().__init__()
        self.knows = knows

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if not isinstance(legal[0], Roll):
            return super().act(view, legal, rng)
        policy = self._policies.get(view.dice_set, view.players, view.variant)
        strength = policy.strength
        later = view.players - 1 - len(view.trick)
        needing: int | None = None
        specials: int | None = None
        if self.knows == "intent":
            needing = 0
            for i in range(later):
                seat = (view.own_seat + 1 + i) % view.players
                if (view.bids[seat] or 0) > view.tricks_won[seat]:
                    needing |= 1 << i
        else:  # what it has not seen: the set less its hand and the round's rolls
            specials = sum(c << (KIND_BITS * i) for i, c in enumerate(unseen_counts(view)))
            specials &= strength.special_mask
        mask, best, empty = trick_summary(view)
        row = strength.p_win_row_given(mask, best, empty, later, specials, needing)
        rolls = [a for a in legal if isinstance(a, Roll)]
        bid = view.bids[view.own_seat]
        kind = policy.choose([a.kind.index for a in rolls], view.hand.key, row,
                             bid if bid is not None else 0, view.tricks_won[view.own_seat],
                             view.round_no)
        return next(a for a in rolls if a.kind.index == kind)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knows", choices=("intent", "unseen"), default="intent")
    parser.add_argument("--factors", type=float, nargs=2, metavar=("NEEDING", "DUCKING"),
                        default=None, help="with --knows intent (default: the module's)")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    if args.factors is not None:
        strength_module.NEEDING_FACTOR, strength_module.DUCKING_FACTOR = args.factors
    ds = load_dice_set("mino")
    diffs: list[float] = []
    wins: list[float] = []
    for deal in range(args.deals):
        diff = win = 0.0
        for seat in range(PLAYERS):
            bots: list[Bot] = [MediumBot() for _ in range(PLAYERS)]
            bots[seat] = KnowingMedium(args.knows)
            starter = deal_rng(args.seed, deal, "starter", 0).randrange(PLAYERS)
            config = GameConfig(PLAYERS, ds, Variant.STANDARD, starter)
            state, _ = play_bot_game(config, bots, ["a", "b", "c", "d"], args.seed, deal,
                                     f"{args.seed}:{deal}:{seat}")
            totals = state.totals
            diff += totals[seat] - (sum(totals) - totals[seat]) / (PLAYERS - 1)
            winners = state.winners()
            win += 1 / len(winners) if seat in winners else 0.0
        diffs.append(diff / PLAYERS)
        wins.append(win / PLAYERS)
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5
    factors = (f", factors {strength_module.NEEDING_FACTOR}/{strength_module.DUCKING_FACTOR}"
               if args.knows == "intent" else "")
    print(f"knows {args.knows}{factors}, seed {args.seed}, {args.deals} deals: its score minus "
          f"the three medium's mean {mean:+.2f} a game, 95% [{mean - half:+.2f}, "
          f"{mean + half:+.2f}]; win share {statistics.mean(wins):.3f} (parity 0.250)")


if __name__ == "__main__":
    main()
