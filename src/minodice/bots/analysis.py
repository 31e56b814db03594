"""Game analysis: every decision of a game, weighed from the deciding seat's own view.

For each bid and each die chosen when there was a choice (a forced roll teaches nothing),
the analysis asks what each legal choice was worth *to that player at that moment*: it
builds the seat's :class:`~minodice.core.view.SeatView` (its own dice, what was rolled,
the bids once revealed — never another screen) and plays the rest of the round out from
every choice in sampled worlds, as the ``hard`` bot's search does (:mod:`.search`): the
hidden dice are drawn consistently with the view (weighted by the bids and the rolls so far
once the bids are in), the others play the plain heuristic towards their bids, the seat
plays the expected-score policy. The same worlds and the same dice luck serve every choice
(common random numbers), so that the differences between choices are measured much more
precisely than the values themselves.

What it reports per decision: each choice's expected round score and chance of making the
bid, the best choice, and the expected points lost by the choice made. Per player: the
biggest mistakes, the expected points lost per round, and the bids that were higher or
lower than the best bid by a mistake's margin.

Why a second look. The choice that scores best in a decision's sampled worlds is the best
*plus the luck of those worlds*: picked as the largest of several noisy means, it looks
better than it is, most of all with few worlds (the web's) and many near-equal choices. So
when the screening ranks another choice above the one made, the two are measured again
on fresh worlds (:func:`compare_choices`: more of them, until the difference is clear or
:data:`COMPARE_BATCHES` batches are spent), and the loss is that fresh, paired difference
with its standard error. A loss is a *mistake* only when it is larger than
:data:`NOISE_POINTS` and than :data:`SIGNIFICANCE` standard errors; if the fresh worlds
find the choice made as good, it is the best. Measured on 6 games of ``hard``, ``medium``
and ``easy`` at 60 worlds a choice (``benchmarks/analysis.py``): of the 139 mistakes the
screening alone called, 56 reversed at 1,000 worlds; of the 56 this analysis calls, 2.

Each decision's sampling generator is seeded from the analysis seed and the decision's
public place (round, trick, roll, seat) only, so the same record and seed give the same
analysis, and nothing hidden from the seat — not even through a seed — can change it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from minodice.bots.search import SearchBot, evaluate_bids
from minodice.core.actions import Action, Bid, Roll
from minodice.core.state import GameState
from minodice.core.view import SeatView, view

#: Simulated dice per decision, shared by its choices (the sample count follows).
ANALYSIS_BUDGET = 40_000
#: Simulated rounds per choice: at least, at most.
MIN_SAMPLES, MAX_SAMPLES = 60, 600
#: A choice counts as a mistake (a bid as too high or too low) only when it loses more
#: expected points than this, so that sampling noise between near-equal choices is not
#: reported as an error.
NOISE_POINTS = 2.0
#: ... and more than this many standard errors of the paired difference (one-sided, about
#: 2% of equal choices would pass by luck).
SIGNIFICANCE = 2.0
#: The second look at the choice made and the screening's best: batches of fresh worlds
#: (each as many as the screening's), at most this many.
COMPARE_BATCHES = 4
#: ... each of at least this many worlds, whatever the screening's count.
MIN_COMPARED = 10


@dataclass(frozen=True)
class ChoiceValue:
    """One legal choice of a decision: a bid ("2") or a die ("red")."""

    choice: str
    expected_score: float
    make_chance: float

    def to_json(self) -> dict[str, object]:
        return {"choice": self.choice, "expected_score": round(self.expected_score, 2),
                "make_chance": round(self.make_chance, 4)}


@dataclass(frozen=True)
class Decision:
    """One decision of one seat, its choices' values, and what the choice made lost."""

    round_no: int
    trick: int | None  # None for the bid; tricks count from 1
    seat: int
    player: str
    kind: str          # "bid" or "roll"
    chosen: str
    best: str
    samples: int
    options: tuple[ChoiceValue, ...]  # the screening: every choice in the same worlds
    #: The second look (module docstring): the choice made and the screening's best on
    #: fresh worlds, in that order; None when the screening found the choice made best.
    compared: tuple[ChoiceValue, ChoiceValue] | None = None
    compared_samples: int = 0
    loss_se: float = 0.0  # the standard error of :attr:`loss`

    def value(self, choice: str) -> ChoiceValue:
        """A choice's value: from the second look for the choice made and the best (the
        measure their difference is read from), else from the screening."""
        if self.compared is not None:
            for option in self.compared:
                if option.choice == choice:
                    return option
        return next(o for o in self.options if o.choice == choice)

    @property
    def loss(self) -> float:
        """Expected round points the choice made gave up against the best choice."""
        return self.value(self.best).expected_score - self.value(self.chosen).expected_score

    @property
    def mistake(self) -> bool:
        """A loss beyond the noise: more than :data:`NOISE_POINTS` and significant."""
        return self.loss > NOISE_POINTS and self.loss > SIGNIFICANCE * self.loss_se

    @property
    def where(self) -> str:
        if self.trick is None:
            return f"round {self.round_no}, bid"
        return f"round {self.round_no}, trick {self.trick}"

    def to_json(self) -> dict[str, object]:
        chosen, best = self.value(self.chosen), self.value(self.best)
        return {
            "round": self.round_no, "trick": self.trick, "seat": self.seat,
            "player": self.player, "kind": self.kind, "chosen": self.chosen,
            "best": self.best, "samples": self.samples,
            "expected_score_chosen": round(chosen.expected_score, 2),
            "expected_score_best": round(best.expected_score, 2),
            "make_chance_chosen": round(chosen.make_chance, 4),
            "make_chance_best": round(best.make_chance, 4),
            "loss": round(self.loss, 2), "loss_se": round(self.loss_se, 2),
            "compared_samples": self.compared_samples, "mistake": self.mistake,
            "options": [o.to_json() for o in self.options],
        }


@dataclass
class PlayerSummary:
    """What one player's decisions cost, by the analysis's measure."""

    seat: int
    player: str
    rounds: int
    decisions: int = 0
    points_lost: float = 0.0
    bid_points_lost: float = 0.0
    roll_points_lost: float = 0.0
    bids_too_high: int = 0
    bids_too_low: int = 0
    mistakes: list[Decision] = field(default_factory=list)  # the biggest, largest first

    @property
    def lost_per_round(self) -> float:
        return self.points_lost / self.rounds if self.rounds else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat, "player": self.player, "rounds": self.rounds,
            "decisions": self.decisions, "points_lost": round(self.points_lost, 2),
            "points_lost_per_round": round(self.lost_per_round, 2),
            "bid_points_lost": round(self.bid_points_lost, 2),
            "roll_points_lost": round(self.roll_points_lost, 2),
            "bids_too_high": self.bids_too_high, "bids_too_low": self.bids_too_low,
            "biggest_mistakes": [m.to_json() for m in self.mistakes],
        }


@dataclass
class Analysis:
    players: list[str]
    seed: int
    decisions: list[Decision]
    summaries: list[PlayerSummary]
    #: Whether the record reaches the game's end (a stopped game is analysed as far as
    #: it goes; its rounds are those bid).
    finished: bool = True

    def to_json(self) -> dict[str, object]:
        return {
            "seed": self.seed, "players": self.players, "finished": self.finished,
            "noise_points": NOISE_POINTS, "significance": SIGNIFICANCE,
            "summary": [s.to_json() for s in self.summaries],
            "decisions": [d.to_json() for d in self.decisions],
        }


def decision_rng(seed: int, round_no: int, trick: int | None, roll: int, seat: int
                 ) -> random.Random:
    """The sampling generator of one decision: from public places only (module docstring)."""
    return random.Random(f"minodice-analysis:{seed}:{round_no}:{trick}:{roll}:{seat}")


def _samples(work: int, samples: int | None) -> int:
    if samples is not None:
        return samples
    return max(MIN_SAMPLES, min(MAX_SAMPLES, ANALYSIS_BUDGET // max(1, work)))


#: One batch of the second look: ``(rng, worlds, rows)`` measures [choice made, best] in
#: ``worlds`` fresh worlds, appends each world's points of the two to ``rows`` and returns
#: their mean points and chances of making the bid.
Batch = Callable[[random.Random, int, list[list[int]]], tuple[list[float], list[float]]]


def compare_choices(chosen: str, best: str, batch: Batch, rng: random.Random, worlds: int
                    ) -> tuple[tuple[ChoiceValue, ChoiceValue], int, float]:
    """The choice made against the screening's best on fresh worlds (module docstring):
    batches of ``worlds`` until the paired difference is clearly above or below
    :data:`NOISE_POINTS` (:data:`SIGNIFICANCE` standard errors away) or
    :data:`COMPARE_BATCHES` are spent. Returns the two values, the worlds used and the
    standard error of the difference."""
    rows: list[list[int]] = []
    points = [0.0, 0.0]
    made = [0.0, 0.0]
    se = 0.0
    for _ in range(COMPARE_BATCHES):
        batch_points, batch_made = batch(rng, worlds, rows)
        for j in (0, 1):
            points[j] += batch_points[j] * worlds
            made[j] += batch_made[j] * worlds
        diffs = [row[1] - row[0] for row in rows]
        mean = sum(diffs) / len(diffs)
        spread = sum((d - mean) ** 2 for d in diffs) / max(1, len(diffs) - 1)
        se = math.sqrt(spread / len(diffs))
        if abs(mean - NOISE_POINTS) > SIGNIFICANCE * se:
            break
    n = len(rows)
    values = (ChoiceValue(chosen, points[0] / n, made[0] / n),
              ChoiceValue(best, points[1] / n, made[1] / n))
    return values, n, se


def _second_look(decision: Decision, batch: Batch, rng: random.Random) -> Decision:
    """``decision`` with its loss measured again (:func:`compare_choices`) when the
    screening ranked another choice above the one made; the choice made becomes the best
    again if the fresh worlds find it as good."""
    if decision.best == decision.chosen:
        return decision
    # ten worlds a batch at least: one world has no spread, and a loss measured on a few
    # would pass for a sure one (--samples 1)
    compared, n, se = compare_choices(decision.chosen, decision.best, batch,
                                      random.Random(rng.random()),
                                      max(MIN_COMPARED, decision.samples))
    best = decision.best if compared[1].expected_score > compared[0].expected_score \
        else decision.chosen
    return replace(decision, best=best, compared=compared, compared_samples=n, loss_se=se)


def analyse_bid(seat_view: SeatView, chosen: int, rng: random.Random,
                samples: int | None = None, player: str = "") -> Decision:
    """Every bid's expected round score and chance of being made, from ``seat_view``
    (a seat's view in the bidding, its bid not yet counted as known to anyone)."""
    seat = seat_view.own_seat
    r = seat_view.round_no
    n = _samples((r + 1) * seat_view.players * r, samples)
    search = SearchBot()
    policy, _ = search.policy_for(seat_view)
    evaluation = evaluate_bids(seat_view, rng, n, range(r + 1), 0.0, policy,
                               frozenset({seat}))
    options = tuple(
        ChoiceValue(str(b), evaluation.mean_points[b], evaluation.tricks[b][b] / n)
        for b in evaluation.bids)
    best = max(evaluation.bids, key=lambda b: (evaluation.mean_points[b], -abs(b - chosen)))

    def batch(fresh: random.Random, worlds: int, rows: list[list[int]]
              ) -> tuple[list[float], list[float]]:
        again = evaluate_bids(seat_view, fresh, worlds, [chosen, best], 0.0, policy,
                              frozenset({seat}), per_world=rows)
        return ([again.mean_points[chosen], again.mean_points[best]],
                [again.tricks[b][b] / worlds for b in (chosen, best)])

    return _second_look(Decision(r, None, seat, player, "bid", str(chosen), str(best), n,
                                 options), batch, rng)


def analyse_roll(seat_view: SeatView, chosen: str, rng: random.Random,
                 samples: int | None = None, player: str = "", weighted: bool = True
                 ) -> Decision:
    """Every legal die's expected round score and chance of making the bid, from
    ``seat_view`` (the seat's turn to choose a die).

    ``weighted``: weigh the sampled worlds by the bids and the rolls so far, as the
    ``hard`` bot does; without it every deal of the unseen dice that agrees with the view
    is equally likely (what an exhaustive count over those deals computes).
    """
    legal = [a for a in seat_view.legal_actions if isinstance(a, Roll)]
    if not legal:
        raise ValueError("it is not this seat's turn to roll a die")
    n = _samples(len(legal) * max(1, sum(seat_view.hand_sizes)), samples)
    evaluation = SearchBot().evaluate_plays(seat_view, legal, rng, n, weighted)
    names = [a.kind.name for a in legal]
    options = tuple(ChoiceValue(name, p, m) for name, p, m in zip(
        names, evaluation.mean_points, evaluation.make_chance, strict=True))
    best = max(range(len(legal)), key=lambda j: (evaluation.mean_points[j], names[j] == chosen))
    pair = [legal[names.index(chosen)], legal[best]]

    def batch(fresh: random.Random, worlds: int, rows: list[list[int]]
              ) -> tuple[list[float], list[float]]:
        again = SearchBot().evaluate_plays(seat_view, pair, fresh, worlds, weighted,
                                           per_world=rows)
        return again.mean_points, again.make_chance

    return _second_look(Decision(seat_view.round_no, len(seat_view.round_trick_winners) + 1,
                                 seat_view.own_seat, player, "roll", chosen, names[best], n,
                                 options), batch, rng)


Selector = Callable[[int, int | None, int, int], bool]


def analyse_game(
    final: GameState,
    players: Sequence[str],
    seed: int = 0,
    samples: int | None = None,
    only: Selector | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Analyse every decision of the game that ended (or stopped) in ``final``.

    The game is replayed from its rounds' logs; at each decision of a seat that had a
    choice, the analysis sees that seat's view and nothing else. ``only(round, trick,
    roll, seat)`` (trick None for bids; trick and roll count from 1) limits it to some
    decisions; ``on_progress(done, total)`` is called after each.
    """
    ds = final.dice_set
    state = GameState(final.config)
    places: list[tuple[int, int | None, int, int]] = []
    for r, log in enumerate(final.rounds, start=1):
        if log.bids is None:
            break
        places.extend((r, None, 0, s) for s in range(final.n))
        for t, trick in enumerate(log.tricks, start=1):
            places.extend((r, t, i, entry[0]) for i, entry in enumerate(trick, start=1))
    wanted = [p for p in places if only is None or only(*p)]
    total, done = len(wanted), 0
    decisions: list[Decision] = []

    def note() -> None:
        nonlocal done
        done += 1
        if on_progress is not None:
            on_progress(done, total)

    for r, log in enumerate(final.rounds, start=1):
        if log.bids is None:
            break  # the record stops in this round's bidding: nothing more to replay
        for key in log.hands:
            state.apply_chance(ds.hand_of_key(key))
        for seat in range(final.n):
            if only is None or only(r, None, 0, seat):
                decisions.append(analyse_bid(view(state, seat), log.bids[seat],
                                             decision_rng(seed, r, None, 0, seat), samples,
                                             players[seat]))
                note()
        for seat, bid in enumerate(log.bids):
            state.apply(Bid(bid), seat=seat)
        for t, trick in enumerate(log.tricks, start=1):
            for i, (seat, kind, code) in enumerate(trick, start=1):
                action: Action = Roll(ds.kinds[kind])
                selected = only is None or only(r, t, i, seat)
                if selected:
                    if len(state.legal_actions(seat)) > 1:
                        decisions.append(analyse_roll(
                            view(state, seat), ds.kinds[kind].name,
                            decision_rng(seed, r, t, i, seat), samples, players[seat]))
                    note()
                state.apply(action, seat=seat)
                state.apply_chance(ds.face_of_code(code))
    return Analysis(list(players), seed, decisions,
                    summarize(decisions, players, _rounds_bid(final)), final.is_terminal())


def _rounds_bid(state: GameState) -> int:
    return sum(1 for log in state.rounds if log.bids is not None)


def summarize(decisions: Sequence[Decision], players: Sequence[str], rounds: int,
              mistakes: int = 3) -> list[PlayerSummary]:
    """Per player: points lost (bids and dice apart), bids too high or too low, and the
    ``mistakes`` biggest losses above the noise."""
    out = [PlayerSummary(s, name, rounds) for s, name in enumerate(players)]
    for d in decisions:
        summary = out[d.seat]
        summary.decisions += 1
        loss = d.loss
        summary.points_lost += loss
        if d.kind == "bid":
            summary.bid_points_lost += loss
            if d.mistake:
                if int(d.chosen) > int(d.best):
                    summary.bids_too_high += 1
                else:
                    summary.bids_too_low += 1
        else:
            summary.roll_points_lost += loss
    for summary in out:
        own = [d for d in decisions if d.seat == summary.seat and d.mistake]
        summary.mistakes = sorted(own, key=lambda d: -d.loss)[:mistakes]
    return out
