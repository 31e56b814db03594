"""The ``hard`` bot: determinized Monte Carlo search over the round.

How it thinks. It never sees the other screens; it samples them (:mod:`.sampling`):
worlds in which the unseen dice are spread over the other players consistently with all
that is public — the dice already rolled, the bag's contents, every failure to follow a
colour. Once bids are revealed, it weighs the worlds twice: each player's sampled hand
should fit their bid (its expected tricks near the bid), and the dice each player has
rolled should be what a sensible player would have rolled from that hand (a world in which
they would have played differently counts for a tenth). Measured against perfect
knowledge of the hands, this inference is where most of the remaining strength lies.

*Playing*: for each legal die it plays out the rest of the round in many sampled worlds,
with the same worlds and the same dice luck for every choice (common random numbers), the
others following the plain heuristic of :mod:`.strength` towards their bids and itself
following the stronger expected-score policy, and rolls the die with the best mean result.

*Bidding*: for each plausible bid it plays the round out in sampled worlds (the others
bidding by the heuristic), itself playing to make that bid, and bids what maximises its
expected score — so that zero bids (10 × round), bonuses and its seat in the order all
count, as R12–R14 do.

The result of a play-out is the bot's round score minus a quarter of the others' mean, so
that it also likes to make others miss. Sample counts are fixed by the work a decision
needs, not by the clock, so that a seed reproduces a game exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from minodice.bots.learned import LearnedPlayPolicy, LearnedPolicyCache, table_context
from minodice.bots.sampling import Unseen
from minodice.bots.strength import (
    ExpectedScorePolicy,
    PolicyCache,
    Strength,
    choose_kind,
    strength_of,
)
from minodice.core.actions import Action, Bid
from minodice.core.dice import KIND_BITS, Hand
from minodice.core.state import CHANCE, GameState
from minodice.core.view import SeatView
from minodice.core.world import world_from_view


def playout(state: GameState, rng: random.Random, strength: Strength,
            power: tuple[float, ...], policy: ExpectedScorePolicy | None = None,
            smart_seats: frozenset[int] = frozenset(), unseen_specials: bool = False,
            intent: bool = False) -> None:
    """Play the round in ``state`` (bids all in) to its end.

    Seats in ``smart_seats`` play by the expected-score ``policy``, the others by the
    plain heuristic of :func:`choose_kind`. With ``unseen_specials`` the policy's chance
    of taking the trick counts only the special dice its player has not seen (neither in
    its hand nor rolled: the others' hands and the bag, :meth:`Strength.p_win_row_given`)
    instead of the whole set's; with ``intent`` it takes the players after it to play
    towards their bids (:meth:`Strength.p_win_row_given`). A
    :class:`~minodice.bots.learned.LearnedPlayPolicy` also sees who still needs tricks.
    """
    log = state.rounds[-1]
    rand = rng.random
    legal_kinds = state.legal_kinds
    roll_kind = state.roll_kind
    n = state.n
    bids = state.bids
    hands = state.hands
    round_no = state.round_no
    special_mask = strength.special_mask
    bag_specials = (sum(c << (KIND_BITS * k) for k, c in enumerate(state.bag)) & special_mask
                    if unseen_specials else 0)
    learned = policy if isinstance(policy, LearnedPlayPolicy) else None
    while log.points is None:
        if state.current_player == CHANCE:  # a die chosen before the play-out: roll it
            state.apply_chance(state.sample_chance(rng))
            continue
        kinds = legal_kinds()
        if len(kinds) == 1:
            roll_kind(kinds[0], rand())
            continue
        player = state.current_player
        rolled = state.rolled
        if policy is not None and player in smart_seats:
            later = n - 1 - rolled
            if intent or unseen_specials:
                needing: int | None = None
                if intent:
                    needing = 0
                    for i in range(later):
                        other = (player + 1 + i) % n
                        if bids[other] > state.tricks_won[other]:
                            needing |= 1 << i
                out: int | None = None
                if unseen_specials:
                    out = bag_specials - (hands[player] & special_mask)
                    for h in hands:
                        out += h & special_mask
                row = strength.p_win_row_given(state.symbol_mask, state.best_number,
                                               rolled == 0, later, out, needing)
            else:
                row = strength.p_win_row(state.symbol_mask, state.best_number, rolled == 0,
                                         later)
            if learned is not None:
                later_needing, table_need = table_context(
                    bids, state.tricks_won, player, n, rolled, round_no - len(log.winners))
                kind = learned.choose_in_context(kinds, hands[player], row, bids[player],
                                                 state.tricks_won[player], round_no,
                                                 later_needing, table_need, rolled == 0)
            else:
                kind = policy.choose(kinds, hands[player], row, bids[player],
                                     state.tricks_won[player], round_no)
        else:
            kind = choose_kind(strength, kinds, state.symbol_mask, state.best_number,
                               rolled == 0, n - 1 - rolled,
                               bids[player] - state.tricks_won[player], power)
        roll_kind(kind, rand())


def round_value(log_points: Sequence[int], seat: int, spite: float) -> float:
    """The play-out's worth to ``seat``: its points less ``spite`` × the others' mean."""
    others = (sum(log_points) - log_points[seat]) / (len(log_points) - 1)
    return log_points[seat] - spite * others


#: What a finished play-out is worth to the deciding seat, from the round's points of every
#: seat (bonus included); the default is :func:`round_value`.
OutcomeValue = Callable[[Sequence[int]], float]


@dataclass
class BidEvaluation:
    """What simulating the round says of each candidate bid."""

    bids: list[int]
    samples: int
    mean_value: dict[int, float]
    mean_points: dict[int, float]
    tricks: dict[int, list[int]]  # per bid: how often 0, 1, ... r tricks were won

    def best(self) -> int:
        return max(self.bids, key=lambda b: (self.mean_value[b], -abs(b - self.bids[0])))


@dataclass
class PlayEvaluation:
    """What playing the round out from each legal die says of it (same worlds for all)."""

    actions: list[Action]
    samples: int
    value_sums: list[float]    # the bot's measure (points less spite × others' mean), summed
    mean_points: list[float]   # the seat's round score
    take_chance: list[float]   # how often the seat took the trick this die goes to
    make_chance: list[float]   # how often the seat ended the round with its bid made


def heuristic_bids(strength: Strength, hands: Sequence[Hand], players: int,
                   round_no: int, offset: float = 0.0) -> list[int]:
    """Each hand's expected tricks (plus ``offset``), rounded to a legal bid."""
    return [max(0, min(round_no, int(strength.expected_tricks(h.counts, players) + offset
                                     + 0.5)))
            for h in hands]


def evaluate_bids(
    view: SeatView,
    rng: random.Random,
    samples: int,
    candidates: Sequence[int] | None = None,
    spite: float = 0.0,
    policy: ExpectedScorePolicy | None = None,
    smart_seats: frozenset[int] = frozenset(),
    announced: Sequence[int | None] | None = None,
    value_of: OutcomeValue | None = None,
    others_offset: float = 0.0,
    draw_hands: Callable[[Unseen, random.Random], list[Hand]] | None = None,
    unseen_specials: bool = False,
    intent: bool = False,
    per_world: list[list[int]] | None = None,
) -> BidEvaluation:
    """Simulate the round ``samples`` times for each candidate bid of ``view.seat``.

    ``policy`` and ``smart_seats`` choose who plays by the expected-score policy in the
    play-outs (see :func:`playout`). ``announced`` gives bids already known (at a table
    that announces them in turn): those seats play for them instead of a heuristic bid.
    ``value_of`` scores a play-out (default: :func:`round_value` with ``spite``).
    ``others_offset``: the others bid their hand's expected tricks plus this, rounded.
    ``draw_hands`` draws each world's hands (default: :meth:`Unseen.sample`, every deal of
    the unseen dice that fits the view equally likely). ``per_world``, if given, gets one
    row per sampled world: the seat's points for each candidate bid (what a paired
    comparison's standard error needs, :mod:`.analysis`).
    """
    strength = strength_of(view.dice_set)
    power = strength.power(view.players)
    r = view.round_no
    bids = list(candidates) if candidates is not None else list(range(r + 1))
    value = dict.fromkeys(bids, 0.0)
    points = dict.fromkeys(bids, 0.0)
    tricks = {b: [0] * (r + 1) for b in bids}
    seat = view.own_seat
    if value_of is None:
        def value_of(points: Sequence[int]) -> float:
            return round_value(points, seat, spite)
    unseen = Unseen(view)
    for _ in range(samples):
        hands = unseen.sample(rng) if draw_hands is None else draw_hands(unseen, rng)
        world = world_from_view(view, hands)
        others = heuristic_bids(strength, hands, view.players, r, others_offset)
        if announced is not None:
            others = [o if a is None else a for o, a in zip(others, announced, strict=True)]
        seed = rng.random()
        row: list[int] = []
        for b in bids:
            state = world.clone()
            for s in range(view.players):
                if state.bids[s] < 0:
                    state.apply(Bid(b if s == seat else others[s]), seat=s)
            playout(state, random.Random(seed), strength, power, policy, smart_seats,
                    unseen_specials, intent)
            log = state.rounds[0]
            assert log.points is not None
            value[b] += value_of(log.points)
            points[b] += log.points[seat]
            tricks[b][log.winners.count(seat)] += 1
            row.append(log.points[seat])
        if per_world is not None:
            per_world.append(row)
    return BidEvaluation(
        bids, samples,
        {b: v / samples for b, v in value.items()},
        {b: p / samples for b, p in points.items()},
        tricks,
    )


class SearchBot:
    """Determinized Monte Carlo over the round (see the module docstring).

    ``play_budget`` and ``bid_budget`` are in play-out dice (die choices simulated); the
    sample count of a decision is the budget divided by its work, within bounds.
    """

    name = "search"

    def __init__(
        self,
        play_budget: int = 4000,
        bid_budget: int = 14000,
        min_samples: int = 8,
        max_samples: int = 200,
        bid_candidates: int = 6,
        spite: float = 0.25,
        world_candidates: int = 8,
        bid_fit: float = 0.5,
        smart_self: bool = True,
        smart_others: bool = False,
        world_tries: int = 4,
        policy_fit: float = 0.1,
        bid_max_samples: int | None = None,
        unseen_specials: bool = False,
        intent: bool = False,
        learned_play: bool = False,
    ) -> None:
        self.play_budget = play_budget
        #: Its play-outs' sensible players play the policy learned from the search's own
        #: choices (:mod:`.learned`) instead of the expected-score policy.
        self.learned_play = learned_play
        #: In its play-outs, the expected-score players take those after them in a trick
        #: to play towards their bids (:func:`playout`).
        self.intent = intent
        #: In its play-outs, the expected-score players count only the special dice they
        #: have not seen (:func:`playout`).
        self.unseen_specials = unseen_specials
        self.bid_budget = bid_budget
        self.min_samples = min_samples
        self.max_samples = max_samples
        #: The cap on a bid's worlds (default ``max_samples``): a bid is 8 decisions of
        #: about 44 a game, so it can weigh more worlds at little cost to the median.
        self.bid_max_samples = max_samples if bid_max_samples is None else bid_max_samples
        self.bid_candidates = bid_candidates
        self.spite = spite
        self.world_candidates = world_candidates
        self.bid_fit = bid_fit
        self.smart_self = smart_self
        self.smart_others = smart_others
        self.world_tries = world_tries
        self.policy_fit = policy_fit
        self._policies = PolicyCache()
        self._learned_policies = LearnedPolicyCache()
        #: The chance its own play-outs gave of making the bid it last chose (None before
        #: its first bid): beside the bids really made, it shows whether the forecast it
        #: bids by is too hopeful, at no extra cost (``benchmarks/expert_variants.py``).
        self.last_bid_forecast: float | None = None
        #: The chance those play-outs gave of winning *fewer* tricks than that bid: beside
        #: the bids really missed that way, it says on which side the forecast errs.
        self.last_bid_short: float | None = None

    def policy_for(self, view: SeatView) -> tuple[ExpectedScorePolicy, frozenset[int]]:
        """This bot's own expected-score policy (and its caches) and the seats that use it."""
        cache = self._learned_policies if self.learned_play else self._policies
        policy = cache.get(view.dice_set, view.players, view.variant)
        seats = {s for s in range(view.players)
                 if (s == view.seat and self.smart_self) or (s != view.seat and self.smart_others)}
        return policy, frozenset(seats)

    def outcome_value(self, view: SeatView) -> OutcomeValue:
        """How this bot scores a play-out from ``view``: its round points less ``spite`` ×
        the others' mean (a subclass may weigh the standings instead)."""
        seat, spite = view.own_seat, self.spite
        return lambda points: round_value(points, seat, spite)

    def _samples(self, budget: int, work: int, cap: int | None = None) -> int:
        top = self.max_samples if cap is None else cap
        return max(self.min_samples, min(top, budget // max(1, work)))

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        if isinstance(legal[0], Bid):
            return self._bid(view, legal, rng)
        return self._play(view, legal, rng)

    def _bid(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        strength = strength_of(view.dice_set)
        expected = strength.expected_tricks(view.hand.counts, view.players)
        r = view.round_no
        ordered = sorted(range(r + 1), key=lambda b: (abs(b - expected), b))
        candidates = sorted(ordered[: self.bid_candidates])
        work = len(candidates) * view.players * r
        samples = self._samples(self.bid_budget, work, self.bid_max_samples)
        policy, smart = self.policy_for(view)
        evaluation = evaluate_bids(view, rng, samples, candidates, self.spite, policy, smart,
                                   value_of=self.outcome_value(view),
                                   others_offset=self.others_bid_offset(view),
                                   draw_hands=self.bid_world(view),
                                   unseen_specials=self.unseen_specials,
                                   intent=self.intent)
        bid = evaluation.best()
        self.last_bid_forecast = evaluation.tricks[bid][bid] / evaluation.samples
        self.last_bid_short = sum(evaluation.tricks[bid][:bid]) / evaluation.samples
        return next(a for a in legal if isinstance(a, Bid) and a.tricks == bid)

    def make_chance(self, view: SeatView, bid: int, rng: random.Random,
                    samples: int | None = None) -> float:
        """The chance this bot's own model gives of making ``bid`` from ``view`` (its turn
        to bid): the share of its bidding play-outs in which it wins exactly ``bid`` tricks.

        Set beside the bids it really makes, it says whether the play-outs it bids by are
        too hopeful (its play in them, or the opponents it models, differ from the game's).
        """
        if samples is None:
            samples = self._samples(self.bid_budget, view.players * view.round_no,
                                    self.bid_max_samples)
        policy, smart = self.policy_for(view)
        evaluation = evaluate_bids(view, rng, samples, [bid], self.spite, policy, smart,
                                   value_of=self.outcome_value(view),
                                   others_offset=self.others_bid_offset(view),
                                   unseen_specials=self.unseen_specials,
                                   intent=self.intent)
        return evaluation.tricks[bid][bid] / samples

    def _sample_world(self, view: SeatView, rng: random.Random, strength: Strength,
                      unseen: Unseen | None = None) -> list[Hand]:
        """One world's hands: the best-fitting of ``world_tries`` samples, drawn by weight.

        ``unseen`` is what the view says of the hidden dice, read once per decision."""
        if unseen is None:
            unseen = Unseen(view)
        tries = self.world_tries if view.round_tricks else 1
        options = [self.draw_world(view, rng, strength, unseen) for _ in range(tries)]
        if tries == 1:
            return options[0]
        weights = [self.world_weight(view, unseen, o, strength) for o in options]
        pick = rng.random() * sum(weights)
        for option, weight in zip(options, weights, strict=True):
            pick -= weight
            if pick <= 0:
                return option
        return options[-1]

    def draw_world(self, view: SeatView, rng: random.Random, strength: Strength,
                   unseen: Unseen) -> list[Hand]:
        """One candidate world, its hands fitted to the revealed bids (``bid_fit``)."""
        return unseen.sample(rng, strength, self.world_candidates, self.bid_fit)

    def world_weight(self, view: SeatView, unseen: Unseen, hands: list[Hand],
                     strength: Strength) -> float:
        """How well a candidate world explains the rolls so far: the others taken to play
        the plain heuristic, a roll it would not have made counting ``policy_fit``."""
        return unseen.policy_likelihood(hands, strength, self.policy_fit)

    def bid_world(self, view: SeatView) -> Callable[[Unseen, random.Random], list[Hand]] | None:
        """How its bidding play-outs draw the hidden hands (None: :meth:`Unseen.sample`); a
        benchmark's bot that sees every hand, the bound of what inference can buy, returns
        the true ones."""
        return None

    def others_bid_offset(self, view: SeatView) -> float:
        """How far above their hand's expected tricks this bot takes the others to bid in
        its bidding play-outs (``hard``: not at all)."""
        return 0.0

    def evaluate_plays(self, view: SeatView, legal: Sequence[Action], rng: random.Random,
                       samples: int | None = None, weighted: bool = True,
                       per_world: list[list[int]] | None = None) -> PlayEvaluation:
        """Play the round out from each legal die in the same sampled worlds, with the same
        dice luck (common random numbers); ``samples`` defaults to the play budget's.

        ``weighted``: weigh the sampled worlds by the bids and the rolls so far
        (:meth:`_sample_world`); without it every deal of the unseen dice that agrees with
        the view is equally likely (what an exhaustive count over those deals computes, so
        the game analysis can be checked against one). ``per_world``, if given, gets one
        row per sampled world: the seat's points for each legal die.
        """
        strength = strength_of(view.dice_set)
        power = strength.power(view.players)
        if samples is None:
            samples = self._samples(self.play_budget, len(legal) * max(1, sum(view.hand_sizes)))
        value = [0.0] * len(legal)
        points = [0.0] * len(legal)
        takes = [0] * len(legal)
        made = [0] * len(legal)
        seat = view.own_seat
        bid = view.bids[seat]
        trick = len(view.round_trick_winners)  # the trick this die goes to
        policy, smart = self.policy_for(view)
        value_of = self.outcome_value(view)
        unseen = Unseen(view)
        for _ in range(samples):
            if weighted:
                hands = self._sample_world(view, rng, strength, unseen)
            else:
                hands = unseen.sample(rng)
            world = world_from_view(view, hands)
            seed = rng.random()
            row: list[int] = []
            for j, action in enumerate(legal):
                state = world.clone()
                state.apply(action, seat=seat)
                playout(state, random.Random(seed), strength, power, policy, smart,
                        self.unseen_specials, self.intent)
                log = state.rounds[0]
                assert log.points is not None
                value[j] += value_of(log.points)
                points[j] += log.points[seat]
                takes[j] += log.winners[trick] == seat
                made[j] += log.winners.count(seat) == bid
                row.append(log.points[seat])
            if per_world is not None:
                per_world.append(row)
        return PlayEvaluation(list(legal), samples, value,
                              [p / samples for p in points], [t / samples for t in takes],
                              [m / samples for m in made])

    def _play(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        evaluation = self.evaluate_plays(view, legal, rng)
        best = max(range(len(legal)), key=lambda j: evaluation.value_sums[j])
        return legal[best]


class HardBot(SearchBot):
    """The expert: determinized Monte Carlo with bid-aware sampling and full budgets."""

    name = "hard"
