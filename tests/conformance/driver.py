"""Random games driven through the engine's public API, with invariants checked at every step.

:func:`random_step` is the random player (OpenSpiel's ``random_sim_test``): chance through
``sample_chance``, decisions drawn from ``legal_actions``; bids come from a random seat still
to bid, since bidding is simultaneous (R6). :class:`Checker` plays the same game step for step
(it draws from the game's generator exactly as :func:`random_step` does) and, before and after
every step, checks the state against :mod:`.oracle` and against what it must refuse. Its own
sampling (which steps to probe) uses a second generator, so checking never changes the game.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass
from fractions import Fraction
from functools import partial
from math import comb, prod
from typing import Any

import pytest

from minodice.core import (
    CHANCE,
    TERMINAL,
    Action,
    Bid,
    Face,
    GameConfig,
    GameState,
    Hand,
    IllegalActionError,
    Phase,
    Roll,
    RuleOptions,
    SeatView,
    StartRule,
    Variant,
    export_record,
    load_dice_set,
    view,
)
from minodice.core.rules import DEFAULT_RULE_OPTIONS
from minodice.core.state import RoundLog

from .oracle import (
    SPECS,
    TOTAL_DICE,
    SetSpec,
    follow_kind,
    legal_kinds,
    round_score,
    rounds_in_game,
    trick_result,
)

DICE_SETS = ("mino", "skull-king")
VARIANTS = ("standard", "simplified")
PLAYER_COUNTS = (3, 4, 5, 6)
#: RULES.md's open points (R5, R9) played otherwise than by default: each alone and both.
OTHER_OPTIONS = (RuleOptions.parse("start=fixed"), RuleOptions.parse("special-lead=no-colour"),
                 RuleOptions.parse("start=fixed special-lead=no-colour"))


def names(players: int) -> list[str]:
    return [f"P{seat}" for seat in range(players)]


def new_game(players: int, dice_set: str, variant: str, first_starter: int = 0,
             options: RuleOptions = DEFAULT_RULE_OPTIONS) -> GameState:
    return GameState(GameConfig(players, load_dice_set(dice_set), Variant(variant), first_starter,
                                options))


def seeded_game(players: int, dice_set: str, variant: str, seed: int,
                options: RuleOptions = DEFAULT_RULE_OPTIONS) -> tuple[GameState, random.Random]:
    """A new game and its generator; the generator also picks the round-1 start player."""
    extra = "" if options.is_default else f":{options}"
    rng = random.Random(f"conformance:{players}:{dice_set}:{variant}:{seed}{extra}")
    return new_game(players, dice_set, variant, rng.randrange(players), options), rng


def record_text(state: GameState) -> str:
    return json.dumps(export_record(state, names(state.n)))


# -- the random player -------------------------------------------------------------------


def choose_decision(state: GameState, rng: random.Random) -> tuple[Action, int | None]:
    """A uniformly random legal decision and the seat argument to pass with it."""
    seat: int | None = None
    if state.phase is Phase.BID:
        bidders = state.bidders()
        chosen = bidders[rng.randrange(len(bidders))]
        seat = None if chosen == state.current_player else chosen
        actions = state.legal_actions(chosen)
    else:
        actions = state.legal_actions()
    return actions[rng.randrange(len(actions))], seat


def random_step(state: GameState, rng: random.Random) -> None:
    if state.current_player == CHANCE:
        state.apply_chance(state.sample_chance(rng))
    else:
        action, seat = choose_decision(state, rng)
        state.apply(action, seat=seat)


def play_out(state: GameState, rng: random.Random) -> GameState:
    while not state.is_terminal():
        random_step(state, rng)
    return state


def steps(state: GameState, rng: random.Random) -> Iterator[GameState]:
    """Play ``state`` to the end, yielding it before every step (and once at the end)."""
    while not state.is_terminal():
        yield state
        random_step(state, rng)
    yield state


def copy_rng(rng: random.Random) -> random.Random:
    other = random.Random()
    other.setstate(rng.getstate())
    return other


# -- snapshots ---------------------------------------------------------------------------


def _log_facts(log: RoundLog) -> tuple[object, ...]:
    return (tuple(log.hands), log.bids, tuple(tuple(t) for t in log.tricks), tuple(log.winners),
            log.points, log.bonus, log.totals)


def snapshot(state: GameState) -> tuple[object, ...]:
    """Everything the public API tells about a state (hidden parts included)."""
    seats = range(state.n)
    return (
        state.phase, state.current_player, state.round_no, state.starter, state.leader,
        state.follow, tuple(state.bag), tuple(state.hands), tuple(state.bids),
        tuple(state.tricks_won), tuple(state.totals), state.drawing_seat, state.pending_roll,
        tuple(state.bidders()), state.trick_number(), tuple(state.winners()),
        tuple(state.legal_actions(s) for s in seats), tuple(_log_facts(g) for g in state.rounds),
        tuple(state.chance_outcomes()) if state.phase is Phase.ROLL else (),
    )


# -- conversions to record values --------------------------------------------------------


def public_trick(state: GameState, trick: list[tuple[int, int, int]]) -> list[tuple[int, str,
                                                                                   int | str]]:
    ds = state.dice_set
    return [(seat, ds.kinds[kind].name, ds.face_of_code(code).record_value)
            for seat, kind, code in trick]


def hand_counter(hand: Hand) -> Counter[str]:
    return Counter({k.name: c for k, c in zip(hand.dice_set.kinds, hand.counts, strict=True)
                    if c})


def hands_in(value: object) -> Iterator[Hand]:
    """Every :class:`Hand` reachable through tuples, lists and dataclasses in ``value``."""
    if isinstance(value, Hand):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from hands_in(item)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from hands_in(getattr(value, f.name))


def expect_refused(state: GameState, attempt: Callable[[], object], what: str,
                   before: tuple[object, ...] | None = None) -> None:
    """``attempt`` must raise IllegalActionError and leave the state exactly as it was."""
    before = snapshot(state) if before is None else before
    with pytest.raises(IllegalActionError):
        attempt()
    assert snapshot(state) == before, f"refused {what} changed the state"


# -- the checker -------------------------------------------------------------------------


class Checker:
    """Plays a game with the random player and checks the engine at every step.

    ``probe_rate`` is the share of steps at which illegal actions are tried and views are
    compared across states that differ only in hidden dice or secret bids; the first step
    of every phase of every round is always probed.
    """

    def __init__(self, state: GameState, sampler: random.Random, probe_rate: float = 0.06
                 ) -> None:
        self.state = state
        self.spec: SetSpec = SPECS[state.dice_set.name]
        self.special_lead = str(state.config.options.special_lead)  # R9's open point
        self.fixed_start = state.config.options.start is StartRule.FIXED  # R5's
        self.sampler = sampler
        self.probe_rate = probe_rate
        self.finished_tricks = 0
        self.counts: Counter[str] = Counter()
        self.probed: set[tuple[int, Phase]] = set()  # each phase of each round is probed

    # -- driving -----------------------------------------------------------------------

    def run(self, rng: random.Random) -> GameState:
        state = self.state
        while True:
            self.check_state()
            if state.is_terminal():
                self.probe_refusals()
                return state
            moment = (state.round_no, state.phase)
            if self.sampler.random() < self.probe_rate or moment not in self.probed:
                self.probed.add(moment)
                self.probe_refusals()
                self.probe_hidden_information()
            log = state.rounds[-1]
            if state.current_player == CHANCE:
                listed = self.check_chance_outcomes()
                outcome = state.sample_chance(rng)
                assert outcome in listed, f"sampled {outcome!r} is not a listed outcome"
                self.check_outcome_shape(outcome)
                state.apply_chance(outcome)
            else:
                action, seat = choose_decision(state, rng)
                acting = state.current_player if seat is None else seat
                assert action in state.legal_actions(acting)
                state.apply(action, seat=seat)
                self.counts["decisions"] += 1
            self.after_step(log)

    # -- invariants at every step --------------------------------------------------------

    def check_state(self) -> None:
        self.check_dice()
        self.check_turn()
        self.check_views()

    def check_dice(self) -> None:
        """R3/R4: the 36 dice are in the bag, behind screens, or rolled this round."""
        state, spec = self.state, self.spec
        kinds = [k.name for k in state.dice_set.kinds]
        assert kinds == list(spec.kinds)
        rolled = Counter(kinds[kind] for trick in state.rounds[-1].tricks for _, kind, _ in trick)
        held = sum((hand_counter(state.hand(s)) for s in range(state.n)), Counter[str]())
        for i, kind in enumerate(kinds):
            assert state.bag[i] >= 0
            assert state.bag[i] + held[kind] + rolled[kind] == spec.counts[kind], (
                f"{kind}: bag {state.bag[i]} + hands {held[kind]} + rolled {rolled[kind]} "
                f"!= {spec.counts[kind]}")
        assert sum(spec.counts.values()) == TOTAL_DICE
        r = state.round_no
        sizes = [len(state.hand(s)) for s in range(state.n)]
        if state.phase is Phase.DRAW:
            drawn = state.drawing_seat
            assert sizes == [r] * drawn + [0] * (state.n - drawn)
            assert sum(state.bag) == TOTAL_DICE - r * drawn
        elif state.phase is Phase.BID:
            assert sizes == [r] * state.n
        elif state.phase in (Phase.PLAY, Phase.ROLL):
            t = state.trick_number()
            in_trick = {seat for seat, _, _ in state.rounds[-1].tricks[-1]}
            assert 1 <= t <= r
            assert sizes == [r - t + (0 if s in in_trick else 1) for s in range(state.n)], (
                f"hand sizes {sizes} in trick {t} of round {r}")
        else:
            assert sizes == [0] * state.n

    def check_turn(self) -> None:
        """R2, R5, R6, R7, R8: whose turn it is, and the round's bookkeeping."""
        state = self.state
        n, r, log = state.n, state.round_no, state.rounds[-1]
        assert 1 <= r <= state.n_rounds == rounds_in_game(n)
        assert len(state.rounds) == r
        first = state.config.first_starter
        assert state.starter == (first if self.fixed_start else (first + r - 1) % n)  # R5
        finished = [g for g in state.rounds if g.points is not None]
        assert len(finished) == (r if state.is_terminal() else r - 1)
        assert state.totals == [sum(g.points[s] for g in finished if g.points) for s in range(n)]
        phase = state.phase
        if phase in (Phase.DRAW, Phase.BID):
            assert log.bids is None
            assert not log.tricks
        if phase is Phase.DRAW:
            assert state.current_player == CHANCE
            assert 0 <= state.drawing_seat < n
        elif phase is Phase.BID:
            assert state.bidders() == [s for s in range(n) if state.bids[s] < 0]
            assert state.current_player in state.bidders()
            for s in range(n):
                expected = tuple(Bid(b) for b in range(r + 1)) if s in state.bidders() else ()
                assert state.legal_actions(s) == expected
        elif phase in (Phase.PLAY, Phase.ROLL):
            assert log.bids is not None
            assert state.bids == log.bids
            trick = log.tricks[-1]
            assert len(trick) < n
            assert len(log.winners) == len(log.tricks) - 1
            lead = state.starter if len(log.tricks) == 1 else log.winners[-1]  # R7
            assert state.leader == lead
            assert [seat for seat, _, _ in trick] == [(lead + i) % n for i in range(len(trick))]
            assert sum(state.tricks_won) == len(log.winners)
            assert state.tricks_won == [log.winners.count(s) for s in range(n)]
            roller = (lead + len(trick)) % n
            if phase is Phase.PLAY:
                assert state.current_player == roller
                assert state.legal_actions(), "the player to roll has no legal action"
                for s in range(n):
                    assert s == roller or state.legal_actions(s) == ()
            else:
                assert state.current_player == CHANCE
                pending = state.pending_roll
                assert pending is not None
                assert state.hand(roller).count(pending.kind) > 0
        else:
            assert state.current_player == TERMINAL
            assert r == state.n_rounds
            best = max(state.totals)
            assert state.winners() == [s for s in range(n) if state.totals[s] == best]
        if phase is not Phase.OVER:
            assert state.winners() == []
        if state.current_player != CHANCE:
            with pytest.raises(IllegalActionError):
                state.sample_chance(random.Random(0))
            assert state.chance_outcomes() == []

    def check_views(self) -> None:
        """STYLE 4 / R4 / R6 / R9: what each seat's view shows, and what it must not."""
        state, spec = self.state, self.spec
        n = state.n
        log = state.rounds[-1]
        live = state.phase in (Phase.PLAY, Phase.ROLL)
        trick = public_trick(state, log.tricks[-1]) if live else []
        for s in range(n):
            v = view(state, s)
            assert v.seat == s
            assert v.players == n
            assert v.round_no == state.round_no
            assert v.hand == state.hand(s)
            assert v.hand_sizes == tuple(len(state.hand(o)) for o in range(n))
            assert [p.round_no for p in v.history] == [
                i + 1 for i, g in enumerate(state.rounds) if g.points is not None]
            for p in v.history:  # finished rounds: every die was rolled in the open
                past = state.rounds[p.round_no - 1]
                assert p.hands == tuple(state.dice_set.hand_of_key(k) for k in past.hands)
                assert p.bids == tuple(past.bids or ())
            if log.bids is None:  # R6: no bid is revealed until all are in
                own = state.bids[s] if state.phase is Phase.BID and state.bids[s] >= 0 else None
                assert v.bids == tuple(own if o == s else None for o in range(n))
                assert not v.all_bids_in
            else:
                assert v.bids == tuple(log.bids)
            assert [(p.seat, p.kind, p.face.record_value) for p in v.trick] == trick
            expected_follow = follow_kind(spec, [kind for _, kind, _ in trick],
                                          self.special_lead) if live else None
            assert v.follow == expected_follow, f"view: follow {v.follow}; R9: {expected_follow}"
            assert v.legal_actions == state.legal_actions(s)
            assert v.totals == tuple(state.totals)
            if state.phase is Phase.PLAY and s == state.current_player:
                self.check_follow_rule(v)

    def check_follow_rule(self, v: SeatView) -> None:
        """R8/R9 re-derived from the seat's view alone."""
        allowed = legal_kinds(self.spec, hand_counter(v.hand), [p.kind for p in v.trick],
                              self.special_lead)
        offered = [a for a in v.legal_actions if isinstance(a, Roll)]
        assert len(offered) == len(v.legal_actions) == len(set(offered))
        assert {a.kind.name for a in offered} == allowed, (
            f"hand {v.hand} after {[p.kind for p in v.trick]}: engine offers "
            f"{sorted(a.kind.name for a in offered)}, R9 allows {sorted(allowed)}")
        self.counts["follow checks"] += 1
        if v.follow is not None and hand_counter(v.hand)[v.follow]:
            self.counts["forced follows"] += 1

    # -- chance -------------------------------------------------------------------------

    def check_chance_outcomes(self) -> list[Hand | Face]:
        """Exact probabilities (R4 hypergeometric draws, R8 fair dice) summing to 1."""
        state, spec = self.state, self.spec
        outcomes = state.chance_outcomes()
        assert outcomes, "a chance node without outcomes"
        assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
        assert sum(p for _, p in outcomes) == 1
        listed = [o for o, _ in outcomes]
        assert len(set(listed)) == len(listed), "an outcome is listed twice"
        if state.phase is Phase.ROLL:
            pending = state.pending_roll
            assert pending is not None
            faces = spec.faces[pending.kind.name]
            for face, p in outcomes:
                assert isinstance(face, Face)
                assert p == Fraction(faces.count(face.record_value), 6)
            assert {f.record_value for f in listed if isinstance(f, Face)} == set(faces)
        else:
            r = state.round_no
            bag = dict(zip(spec.kinds, state.bag, strict=True))
            total = sum(bag.values())
            for hand, p in outcomes:
                assert isinstance(hand, Hand)
                drawn = hand_counter(hand)
                assert sum(drawn.values()) == r
                assert p == Fraction(prod(comb(bag[k], c) for k, c in drawn.items()),
                                     comb(total, r)), f"P({hand}) = {p}"
            self.counts["draw checks"] += 1
        return listed

    def check_outcome_shape(self, outcome: Hand | Face) -> None:
        state = self.state
        if state.phase is Phase.ROLL:
            pending = state.pending_roll
            assert isinstance(outcome, Face)
            assert pending is not None
            assert outcome.record_value in self.spec.faces[pending.kind.name]
        else:
            assert isinstance(outcome, Hand)
            assert len(outcome) == state.round_no
            bag = dict(zip(self.spec.kinds, state.bag, strict=True))
            assert all(c <= bag[k] for k, c in hand_counter(outcome).items())

    # -- after a step: tricks and rounds -------------------------------------------------

    def after_step(self, log: RoundLog) -> None:
        state = self.state
        finished = sum(len(g.winners) for g in state.rounds)
        assert finished - self.finished_tricks in (0, 1)
        if finished == self.finished_tricks:
            return
        self.finished_tricks = finished
        trick = public_trick(state, log.tricks[len(log.winners) - 1])
        assert len(trick) == state.n, "a trick ended before everyone rolled (R8)"
        index, _ = trick_result(self.spec, [face for _, _, face in trick])
        assert log.winners[-1] == trick[index][0], (
            f"trick {trick}: engine says seat {log.winners[-1]}, R10 says {trick[index][0]}")
        self.counts["tricks"] += 1
        if log.points is None:
            assert state.leader == state.current_player == log.winners[-1]  # R7
            return
        self.check_round_score(log)

    def check_round_score(self, log: RoundLog) -> None:
        state = self.state
        r = state.rounds.index(log) + 1
        assert len(log.tricks) == len(log.winners) == r
        assert log.bids is not None
        pot = [0] * state.n
        for trick, winner in zip(log.tricks, log.winners, strict=True):
            _, bonus = trick_result(self.spec, [f for _, _, f in public_trick(state, trick)])
            pot[winner] += bonus
        won = [log.winners.count(s) for s in range(state.n)]
        expected = [round_score(log.bids[s], won[s], r, pot[s], state.variant.value)
                    for s in range(state.n)]
        assert log.points == [p for p, _ in expected], f"round {r} points"
        assert log.bonus == [b for _, b in expected], f"round {r} bonus"
        self.counts["rounds"] += 1
        if state.variant is Variant.STANDARD and any(log.bonus):
            self.counts["bonus rounds"] += 1

    # -- probes: illegal actions ---------------------------------------------------------

    def probe_refusals(self) -> None:
        """Try actions and outcomes the state does not allow: each must be refused."""
        state = self.state
        n, r = state.n, state.round_no
        ds = state.dice_set
        every_roll = [Roll(k) for k in ds.kinds]
        attempts: list[tuple[str, Callable[[], object], Any, int | None]] = []

        def act(action: Any, seat: int | None = None) -> None:
            attempts.append((f"{action!r} seat={seat}", lambda: state.apply(action, seat=seat),
                             action, seat))

        for bid in (-1, r + 1, 9, 100):
            act(Bid(bid))
            act(Bid(bid), self.sampler.randrange(n))
        act("bid 1")
        act(None)
        act(Bid(0), n)
        act(Bid(0), -1)
        if state.phase is Phase.BID:
            for s in range(n):
                if s not in state.bidders():
                    act(Bid(self.sampler.randrange(r + 1)), s)
            for roll in every_roll:
                act(roll)
                act(roll, state.current_player)
        elif state.phase is Phase.PLAY:
            cur = state.current_player
            legal = state.legal_actions()
            for roll in every_roll:
                if roll not in legal:
                    act(roll)
                    act(roll, cur)
            for s in range(n):
                act(Bid(0), s)
                if s != cur:
                    act(legal[self.sampler.randrange(len(legal))], s)
            act(Roll(ds.kinds[0]), n)
        else:
            for roll in every_roll:
                act(roll)
            for s in range(n):
                act(Bid(0), s)
                act(every_roll[self.sampler.randrange(len(every_roll))], s)
        before, record = snapshot(state), record_text(state)
        for what, attempt, action, seat in attempts:
            acting = state.current_player if seat is None else seat
            if 0 <= acting < n:
                assert action not in state.legal_actions(acting)
            expect_refused(state, attempt, what, before)
            self.counts["refusals"] += 1
        self.probe_bad_chance(before)
        assert record_text(state) == record, "a refused action or outcome changed the record"

    def probe_bad_chance(self, before: tuple[object, ...]) -> None:
        """Outcomes the pending chance event cannot have must be refused (R3, R4, R8)."""
        state, spec = self.state, self.spec
        ds = state.dice_set
        r = state.round_no
        faces = {ds.face(v) for kind in spec.kinds for v in spec.faces[kind]}
        bad: list[Hand | Face] = []
        if state.phase is Phase.ROLL:
            pending = state.pending_roll
            assert pending is not None
            bad += [f for f in faces if f.record_value not in spec.faces[pending.kind.name]]
            bad.append(ds.hand_of_counts([0] * len(ds.kinds)))
        elif state.phase is Phase.DRAW:
            bad += sorted(faces, key=str)[:3]
            bag = dict(zip(spec.kinds, state.bag, strict=True))
            for size in (r - 1, r + 1):
                if size >= 0:
                    bad.append(Hand.from_kinds(ds, [spec.kinds[-1]] * size))
            short = [k for k in spec.kinds if bag[k] < r]
            if short:  # R3: more of a kind than the bag still holds
                bad.append(Hand.from_kinds(ds, [short[0]] * r))
            other = load_dice_set("skull-king" if ds.name == "mino" else "mino")
            bad.append(Hand.from_kinds(other, [other.kinds[-1].name] * r))
        else:
            bad += [sorted(faces, key=str)[0], ds.hand_of_counts([0] * len(ds.kinds))]
            if r >= 1:
                bad.append(Hand.from_kinds(ds, [spec.kinds[-1]] * r))
        for outcome in bad:
            expect_refused(state, partial(state.apply_chance, outcome), f"outcome {outcome!r}",
                           before)
            self.counts["bad outcomes"] += 1

    # -- probes: hidden information ------------------------------------------------------

    def probe_hidden_information(self) -> None:
        """Views are equal across states that differ only in what a seat may not know."""
        state = self.state
        n = state.n
        for s in range(n):
            v = view(state, s)
            for hand in hands_in([getattr(v, f.name) for f in fields(SeatView)
                                  if f.name not in ("hand", "history")]):
                raise AssertionError(f"seat {s}'s view shows a hand {hand} besides its own")
            others = [o for o in range(n) if o != s]
            pairs = [(j, k) for j in others for k in others
                     if j < k and len(state.hand(j)) == len(state.hand(k)) > 0
                     and state.hands[j] != state.hands[k]]
            if not pairs:
                continue
            j, k = pairs[self.sampler.randrange(len(pairs))]
            twin = state.clone()
            twin.hands[j], twin.hands[k] = twin.hands[k], twin.hands[j]
            drawn = twin.rounds[-1].hands
            drawn[j], drawn[k] = drawn[k], drawn[j]
            assert view(twin, j).hand != view(state, j).hand  # the twin really differs
            assert view(twin, s) == v, (
                f"seat {s}'s view changes when seats {j} and {k} swap their hidden dice")
            self.counts["hand swaps"] += 1
        if state.phase is Phase.BID and len(state.bidders()) >= 2:
            j = state.bidders()[self.sampler.randrange(len(state.bidders()))]
            low, high = state.clone(), state.clone()
            low.apply(Bid(0), seat=j)
            high.apply(Bid(state.round_no), seat=j)
            assert view(low, j) != view(high, j)
            for s in range(n):
                if s != j:
                    assert view(low, s) == view(high, s), (
                        f"seat {s}'s view shows seat {j}'s secret bid (R6)")
            self.counts["bid swaps"] += 1
