"""During a trick: the chance that each of your dice takes it, for the physical game.

The model, in one sentence: the players still to roll in this trick hold as many dice as
you do, drawn at random from the dice not in sight (not behind your screen, not rolled in
this trick), and each rolls one of the dice the follow rule (R9) lets them roll, chosen at
random. Your die's faces are counted exactly; the others' hands, choices and faces are
simulated, the same simulated worlds for each of your dice (so that the answers compare).

>>> from minodice.core.dice import load_dice_set
>>> odds = trick_odds(load_dice_set("mino"), 4, ["red", "gray"], [("purple", 2)], samples=200,
...                   seed=1)
>>> odds.follow, sorted(odds.chances)
('purple', ['gray', 'red'])
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from minodice.core.dice import DiceSet
from minodice.core.rules import SpecialLead, resolve_trick
from minodice.core.tables import tables_for


class OddsError(ValueError):
    """A trick that cannot be: too many dice, a face a die does not have, ..."""


@dataclass(frozen=True)
class TrickOdds:
    follow: str | None                 # the colour to follow (the first number die's kind)
    legal: tuple[str, ...]             # your dice that R9 lets you roll
    chances: dict[str, float]          # per die kind you hold: chance to take the trick
    later: int                         # players still to roll after you
    samples: int

    def to_json(self) -> dict[str, object]:
        return {"follow": self.follow, "legal": list(self.legal), "later": self.later,
                "samples": self.samples,
                "dice": [{"die": k, "chance": round(p, 4), "legal": k in self.legal}
                         for k, p in sorted(self.chances.items(), key=lambda kv: -kv[1])]}


def pick_die(dice_set: DiceSet, held: Sequence[str], follow: str | None, u: float) -> str:
    """The die a simulated player rolls, for ``u`` uniform in [0, 1): one of the dice the
    follow rule lets it roll, each as likely (two reds make red twice as likely as a lone
    gray), as the model says.

    >>> from minodice.core.dice import load_dice_set
    >>> ds = load_dice_set("mino")
    >>> [pick_die(ds, ["red", "red", "gray"], None, u) for u in (0.0, 0.5, 0.9)]
    ['red', 'red', 'gray']
    """
    rollable = set(_legal(dice_set, held, follow))
    options = [k for k in held if k in rollable]
    return options[int(u * len(options))]


def _legal(dice_set: DiceSet, held: Sequence[str], follow: str | None) -> list[str]:
    """R9 for a hand (kinds, with repeats) and the colour to follow, as the engine says."""
    kinds = sorted({dice_set.kind(k).index for k in held})
    index = dice_set.kind(follow).index if follow is not None else -1
    return [dice_set.kinds[k].name for k in tables_for(dice_set).rollable(kinds, index)]


def trick_odds(dice_set: DiceSet, players: int, hand: Sequence[str],
               rolled: Sequence[tuple[str, int | str]], samples: int = 1000,
               seed: int | None = None,
               special_lead: SpecialLead = SpecialLead.FIRST_NUMBER) -> TrickOdds:
    """The chance that each kind in ``hand`` takes the trick (see the module docstring).

    ``rolled`` is the trick so far in rolling order: ``(kind, face)`` pairs.
    ``special_lead``: R9's open point as the table plays it (with ``no-colour`` a trick a
    special die led has no colour, whatever is rolled after it).
    """
    if not 3 <= players <= 6:
        raise OddsError(f"Mino Dice is for 3 to 6 players, not {players} (R1)")
    if not hand:
        raise OddsError("give the dice behind your screen")
    if len(rolled) >= players:
        raise OddsError(f"{len(rolled)} dice rolled already: a trick of {players} players is "
                        "over")
    for kind in hand:
        if not dice_set.has_kind(kind):
            raise OddsError(f"{kind!r} is not a die of the {dice_set.name} set")
    codes: list[int] = []
    for kind, face in rolled:
        if not dice_set.has_kind(kind):
            raise OddsError(f"{kind!r} is not a die of the {dice_set.name} set")
        try:
            code = dice_set.face(face).code
        except ValueError:
            raise OddsError(f"a {kind} die has no face {face!r}") from None
        if code not in dice_set.face_codes[dice_set.kind(kind).index]:
            raise OddsError(f"a {kind} die has no face {face!r} (R8)")
        codes.append(code)
    in_sight = Counter(hand) + Counter(k for k, _ in rolled)
    for kind, count in in_sight.items():
        if count > dice_set.kind(kind).count:
            have = dice_set.kind(kind).count
            raise OddsError(f"the {dice_set.name} set has only {have} {kind} "
                            f"{'die' if have == 1 else 'dice'}")
    later = players - len(rolled) - 1
    if later * len(hand) > dice_set.size - sum(in_sight.values()):
        raise OddsError("not enough dice left in the bag for the others' hands")
    # R9: no colour ever in a trick a special die led, if the table plays it so
    colourless = (special_lead is SpecialLead.NO_COLOUR and bool(rolled)
                  and dice_set.kind(rolled[0][0]).special)
    follow = None if colourless else next(
        (k for k, _ in rolled if not dice_set.kind(k).special), None)
    legal = tuple(_legal(dice_set, hand, follow))
    pool = [k.name for k in dice_set.kinds
            for _ in range(k.count - in_sight.get(k.name, 0))]
    rng = random.Random(seed)
    me = len(rolled)
    wins = dict.fromkeys(set(hand), 0.0)
    faces = {k: [f.code for f in dice_set.kind(k).faces] for k in set(hand)}
    for _ in range(samples):
        drawn = rng.sample(pool, later * len(hand))
        hands = [drawn[i * len(hand):(i + 1) * len(hand)] for i in range(later)]
        choice_u = [rng.random() for _ in range(later)]
        face_u = [int(rng.random() * 6) for _ in range(later)]
        for kind in wins:
            special = dice_set.kind(kind).special
            colour = follow if follow is not None or colourless or special else kind
            # ... nor after my special die, if it leads
            locked = colourless or (special and not rolled
                                    and special_lead is SpecialLead.NO_COLOUR)
            others: list[int] = []
            current = colour
            for i, held in enumerate(hands):
                pick = pick_die(dice_set, held, current, choice_u[i])
                if current is None and not locked and not dice_set.kind(pick).special:
                    current = pick
                others.append(dice_set.kind(pick).faces[face_u[i]].code)
            for code in faces[kind]:
                order = [*codes, code, *others]
                if resolve_trick(list(enumerate(order))).winner == me:
                    wins[kind] += 1 / 6
    return TrickOdds(follow, legal, {k: w / samples for k, w in wins.items()}, later, samples)
