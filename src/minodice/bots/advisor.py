"""The advisors: what to bid with the dice behind your screen, and which die to roll.

It answers with the ``hard`` bot's own model of play (:func:`.search.evaluate_bids`): the
other hands are sampled from the dice you cannot see, the others bid by the heuristic,
and the round is played out with every player aiming at their bid — you included, for
each bid you might make. So the odds are those of a round actually played for that bid,
not of dice compared in a fixed order.

>>> from minodice.core.dice import load_dice_set
>>> advice = advise(4, 3, 0, "red,griffin,gray", samples=20, seed=1)
>>> advice.best_bid in advice.expected_score
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from minodice.bots.search import HardBot, evaluate_bids
from minodice.bots.strength import ExpectedScorePolicy, strength_of
from minodice.core.actions import Roll
from minodice.core.dice import BUILTIN_DICE_SETS, Hand, load_dice_set
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, StartRule, Variant, rounds_for
from minodice.core.state import GameConfig, GameState
from minodice.core.view import SeatView, view

ADVICE_BUDGET = 20_000  # simulated dice per answer, shared by the candidate bids


class AdviceError(ValueError):
    """A question the advisor cannot answer (wrong round, seat or hand)."""


@dataclass
class Advice:
    players: int
    round_no: int
    seat: int
    hand: str
    samples: int
    best_bid: int
    expected_score: dict[int, float]
    make_chance: dict[int, float]
    tricks_for_best: list[float]     # P(0 tricks), P(1), ... when playing for the best bid
    expected_tricks: float           # mean of that distribution
    heuristic_tricks: float          # the simple model: the sum of the dice's chances
    samples_per_bid: dict[int, int]  # simulated rounds behind each bid's figures

    @property
    def first_look(self) -> int:
        """The rounds every bid got; the most promising (:attr:`contenders`) got more."""
        return min(self.samples_per_bid.values())

    @property
    def contenders(self) -> list[int]:
        """The bids that got a second look (all bids, when there are three or fewer)."""
        most = max(self.samples_per_bid.values())
        return [b for b in sorted(self.samples_per_bid) if self.samples_per_bid[b] == most]

    def to_json(self) -> dict[str, object]:
        return {
            "players": self.players, "round": self.round_no, "seat": self.seat,
            "hand": self.hand.split(","), "samples": self.samples, "best_bid": self.best_bid,
            "bids": [
                {"bid": b, "expected_score": round(self.expected_score[b], 2),
                 "make_chance": round(self.make_chance[b], 4), "samples": self.samples_per_bid[b]}
                for b in sorted(self.expected_score)
            ],
            "tricks_distribution": [round(p, 4) for p in self.tricks_for_best],
            "expected_tricks": round(self.expected_tricks, 3),
            "heuristic_tricks": round(self.heuristic_tricks, 3),
        }


def _dice(count: int) -> str:
    return f"{count} {'die' if count == 1 else 'dice'}"


def advise(
    players: int,
    round_no: int,
    seat: int,
    hand: str | Hand,
    dice_set: str = "mino",
    variant: str = "standard",
    samples: int | None = None,
    seed: int | None = None,
    announced: Sequence[int | None] | None = None,
    budget: int = ADVICE_BUDGET,
    max_samples: int = 1000,
    options: RuleOptions = DEFAULT_RULE_OPTIONS,
) -> Advice:
    """Advice for ``hand`` in ``round_no``, at ``seat`` places after the start player.

    ``samples`` (simulated rounds per bid) defaults to what about 20,000 simulated dice
    allow: many for small rounds, where play-outs are short, at least 60 for round 8 —
    so that every answer takes about the same, short time. ``announced``: bids already
    announced, by seat after the start player (``None`` where not known); those players
    then play for them. ``options``: the game's rule options (R5, R9; R9's changes the
    play-outs). ``budget`` and ``max_samples`` bound the default sample count
    (a web page asks for a quicker answer than the command line).
    """
    ds = load_dice_set(dice_set)
    try:
        rounds = rounds_for(players)
    except ValueError as exc:
        raise AdviceError(str(exc)) from None
    if not 1 <= round_no <= rounds:
        raise AdviceError(f"round {round_no}: a {players}-player game has rounds 1 to {rounds}")
    if not 0 <= seat < players:
        raise AdviceError(f"seat {seat}: seats are 0 (the start player) to {players - 1}")
    if isinstance(hand, str):
        names = [p.strip().lower() for p in hand.split(",") if p.strip()]
        if not names:
            raise AdviceError("give your dice with --hand, e.g. red,red,griffin,gray,purple")
        unknown = [n for n in names if not ds.has_kind(n)]
        if unknown:
            kinds = ", ".join(k.name for k in ds.kinds)
            # "pirate" is a die of the other edition: say which, not only that it is none
            other = next((name for name in BUILTIN_DICE_SETS
                          if name != ds.name and load_dice_set(name).has_kind(unknown[0])), None)
            hint = f"; it is a die of the {other} edition" if other else ""
            raise AdviceError(f"no die kind {unknown[0]!r} in the {ds.name} set ({kinds}){hint}")
        if len(names) != round_no:
            raise AdviceError(f"round {round_no} needs a hand of {_dice(round_no)}, "
                              f"not {len(names)}")
        for kind in ds.kinds:
            if names.count(kind.name) > kind.count:
                raise AdviceError(f"the {ds.name} set has only {kind.count} {kind.name} "
                                  f"{'die' if kind.count == 1 else 'dice'}")
        own = Hand.from_kinds(ds, names)
    else:
        own = hand
    if own.size != round_no:
        raise AdviceError(f"round {round_no} needs a hand of {_dice(round_no)}, "
                          f"not {own.size}")
    for kind, count in zip(ds.kinds, own.counts, strict=True):
        if count > kind.count:
            raise AdviceError(f"the {ds.name} set has only {kind.count} {kind.name} "
                              f"{'die' if kind.count == 1 else 'dice'}")
    if announced is not None:
        if len(announced) != players:
            raise AdviceError(f"announced bids: one entry per player ({players})")
        for bid in announced:
            if bid is not None and not 0 <= bid <= round_no:
                raise AdviceError(f"a bid is 0 to {round_no} in round {round_no} (R6)")
        announced = [None if s == seat else b for s, b in enumerate(announced)]
    if samples is None:
        samples = max(60, min(max_samples, budget // ((round_no + 1) * players * round_no)))
    rng = random.Random(seed) if seed is not None else random.Random()
    # A state in which the start player is seat 0 and we sit at ``seat``; the other
    # hands drawn here are placeholders that the view hides and the search resamples.
    starter = 0 if options.start is StartRule.FIXED else (1 - round_no) % players
    config = GameConfig(players, ds, Variant(variant), starter, options)
    state = GameState.at_round(config, round_no)
    bag = [k for k, c in enumerate(ds.kinds) for _ in range(c.count - own.counts[k])]
    rng.shuffle(bag)
    for s in range(players):
        if s == seat:
            state.apply_chance(own)
        else:
            counts = [0] * len(ds.kinds)
            for _ in range(round_no):
                counts[bag.pop()] += 1
            state.apply_chance(ds.hand_of_counts(counts))
    policy = ExpectedScorePolicy(strength_of(ds), players, Variant(variant))
    seat_view = view(state, seat)
    smart = frozenset({seat})
    # Racing: every bid gets a first look; the three best get three times as many rounds,
    # so that the answer does not hang on the luck of a few simulated rounds.
    first = evaluate_bids(seat_view, rng, max(10, samples // 2), policy=policy,
                          smart_seats=smart, announced=announced)
    contenders = sorted(first.bids, key=lambda b: -first.mean_value[b])[:3]
    second = evaluate_bids(seat_view, rng, samples, contenders, policy=policy,
                           smart_seats=smart, announced=announced)
    per_bid = {b: first.samples + (second.samples if b in contenders else 0) for b in first.bids}
    points: dict[int, float] = {}
    tricks: dict[int, list[int]] = {}
    for b in first.bids:
        total_points = first.mean_points[b] * first.samples
        hist = list(first.tricks[b])
        if b in contenders:
            total_points += second.mean_points[b] * second.samples
            hist = [x + y for x, y in zip(hist, second.tricks[b], strict=True)]
        points[b] = total_points / per_bid[b]
        tricks[b] = hist
    best = max(contenders, key=lambda b: (points[b], -b))
    dist = tricks[best]
    total = sum(dist)
    return Advice(
        players, round_no, seat, str(own), per_bid[best], best, points,
        {b: tricks[b][b] / per_bid[b] for b in first.bids},
        [c / total for c in dist],
        sum(k * c for k, c in enumerate(dist)) / total,
        strength_of(ds).expected_tricks(own.counts, players),
        per_bid,
    )


PLAY_ADVICE_BUDGET = 12_000  # simulated dice per answer, shared by the legal dice


@dataclass
class PlayAdvice:
    """During play: for each die you may roll, how often it took this trick and your mean
    round score when you roll it, from the same simulated worlds for every die."""

    seat: int
    samples: int                      # simulated rounds, the same ones for every die
    dice: list[str]                   # the die kinds you may roll (R9), in hand order
    take_chance: dict[str, float]     # per die: the share of rounds in which it took the trick
    expected_score: dict[str, float]  # per die: your mean round score after rolling it
    best: str                         # the die with the best expected score

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat, "samples": self.samples, "best": self.best,
            "dice": [{"die": d, "take_chance": round(self.take_chance[d], 4),
                      "expected_score": round(self.expected_score[d], 2)} for d in self.dice],
        }


def advise_play(view: SeatView, samples: int | None = None, seed: int | None = None,
                budget: int = PLAY_ADVICE_BUDGET) -> PlayAdvice:
    """Advice for the die to roll now, from ``view`` (a seat whose turn it is to roll).

    It is the ``hard`` bot's own look at the choice (:meth:`.SearchBot.evaluate_plays`):
    the hidden dice are sampled consistently with everything rolled so far and the bids,
    and the round is played out from each die, you by the expected-score policy and the
    others by the plain heuristic towards their bids. ``samples`` defaults to what
    ``budget`` simulated dice allow (between 40 and 400 rounds).
    """
    seat = view.own_seat
    legal = [a for a in view.legal_actions if isinstance(a, Roll)]
    if not legal:
        raise AdviceError("it is not this seat's turn to roll a die")
    if samples is None:
        work = len(legal) * max(1, sum(view.hand_sizes))
        samples = max(40, min(400, budget // work))
    rng = random.Random(seed) if seed is not None else random.Random()
    evaluation = HardBot().evaluate_plays(view, legal, rng, samples)
    dice = [a.kind.name for a in legal]
    points = dict(zip(dice, evaluation.mean_points, strict=True))
    return PlayAdvice(
        seat, samples, dice, dict(zip(dice, evaluation.take_chance, strict=True)), points,
        max(dice, key=lambda d: points[d]),
    )
