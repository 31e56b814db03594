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
biggest mistakes, the expected points lost per round, and the bids that were too high or
too low (a bid other than the best by more than :data:`NOISE_POINTS`).

Each decision's sampling generator is seeded from the analysis seed and the decision's
public place (round, trick, roll, seat) only, so the same record and seed give the same
analysis, and nothing hidden from the seat — not even through a seed — can change it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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
    options: tuple[ChoiceValue, ...]

    def value(self, choice: str) -> ChoiceValue:
        return next(o for o in self.options if o.choice == choice)

    @property
    def loss(self) -> float:
        """Expected round points the choice made gave up against the best choice."""
        return self.value(self.best).expected_score - self.value(self.chosen).expected_score

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
            "loss": round(self.loss, 2),
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

    def to_json(self) -> dict[str, object]:
        return {
            "seed": self.seed, "players": self.players,
            "noise_points": NOISE_POINTS,
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
    return Decision(r, None, seat, player, "bid", str(chosen), str(best), n, options)


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
    return Decision(seat_view.round_no, len(seat_view.round_trick_winners) + 1,
                    seat_view.own_seat, player, "roll", chosen, names[best], n, options)


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
                    summarize(decisions, players, _rounds_bid(final)))


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
            if loss > NOISE_POINTS:
                if int(d.chosen) > int(d.best):
                    summary.bids_too_high += 1
                else:
                    summary.bids_too_low += 1
        else:
            summary.roll_points_lost += loss
    for summary in out:
        own = [d for d in decisions if d.seat == summary.seat and d.loss > NOISE_POINTS]
        summary.mistakes = sorted(own, key=lambda d: -d.loss)[:mistakes]
    return out
