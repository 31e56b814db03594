"""Bots: they only ever act legally, they cannot reach hidden dice, and the hard bot's
sampled worlds agree with everything its view shows.

Hidden information is checked three ways: by the fields of a :class:`SeatView`; by walking
the whole object graph reachable from what a bot is handed (view, legal actions, rng) for
another seat's hand; and by behaviour — two games that differ only in hidden dice must
look the same to a seat, so every bot must decide the same in both.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import json
import random
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path

import pytest

from minodice.bots.loading import load_bot_factory, make_bot
from minodice.bots.protocol import BUILTIN_BOTS, Bot, BotError
from minodice.bots.random_bot import RandomBot
from minodice.bots.sampling import (
    Unseen,
    policy_likelihood,
    sample_hands,
    unseen_counts,
    void_kinds,
)
from minodice.bots.search import SearchBot
from minodice.bots.strength import strength_of
from minodice.core.actions import Action, Bid, Roll
from minodice.core.dice import DiceSet, Hand, load_dice_set
from minodice.core.record import dumps_record, export_record, parse_record
from minodice.core.rules import (
    DEFAULT_RULE_OPTIONS,
    RuleOptions,
    SpecialLead,
    Variant,
    rounds_for,
)
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState, Phase, RoundLog
from minodice.core.view import SeatView, view
from minodice.core.world import world_from_view
from minodice.play.match import play_bot_game

ROOT = Path(__file__).resolve().parent.parent
PLAYER_COUNTS = (3, 4, 5, 6)
EDITIONS = ("mino", "skull-king")
VARIANTS = ("standard", "simplified")


def tiny_search_bot() -> SearchBot:
    """The hard bot's search with tiny budgets, so that many games stay quick."""
    return SearchBot(play_budget=60, bid_budget=120, min_samples=2, max_samples=3)


# -- legality -----------------------------------------------------------------------------


class LegalityLog:
    """Shared by the checking wrappers of one game: every decision and every problem."""

    def __init__(self) -> None:
        self.decisions = 0
        self.bids = 0
        self.rolls = 0
        self.problems: list[str] = []


class Checked:
    """Wraps a bot; records (rather than raises) anything wrong with what it is given or
    returns, so that the test, not the runner's own checks, judges legality."""

    def __init__(self, inner: Bot, name: str, log: LegalityLog) -> None:
        self.inner = inner
        self.name = name
        self.log = log

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        log = self.log
        log.decisions += 1
        if not isinstance(view, SeatView):
            log.problems.append(f"{self.name}: view is {type(view).__name__}")
        if not legal:
            log.problems.append(f"{self.name}: asked to act with no legal action")
        if tuple(legal) != view.legal_actions:
            log.problems.append(f"{self.name}: legal {legal} differs from the view's")
        if view.current_player != view.seat and view.phase is not Phase.BID:
            log.problems.append(f"{self.name}: asked to act out of turn")
        action = self.inner.act(view, legal, rng)
        if not isinstance(action, Bid | Roll):
            log.problems.append(f"{self.name}: returned non-action {action!r}")
        elif action not in legal:
            log.problems.append(f"{self.name}: returned illegal {action} (legal: {legal})")
        elif isinstance(action, Bid):
            log.bids += 1
            if not 0 <= action.tricks <= view.round_no:
                log.problems.append(f"{self.name}: bid {action.tricks} in round {view.round_no}")
        else:
            log.rolls += 1
            if view.hand.count(view.dice_set.kind(action.kind.name)) == 0:
                log.problems.append(f"{self.name}: rolled {action} without holding it")
        return action


def play_checked(players: int, edition: str, variant: str, lineup: Sequence[str],
                 factories: Sequence[Callable[[], Bot]], seed: int) -> tuple[GameState,
                                                                            LegalityLog]:
    log = LegalityLog()
    bots = [Checked(f(), name, log) for f, name in zip(factories, lineup, strict=True)]
    config = GameConfig(players, load_dice_set(edition), Variant(variant), seed % players)
    state, times = play_bot_game(config, bots, list(lineup), seed, 0, f"t{seed}")
    assert state.current_player == TERMINAL
    assert sum(map(len, times)) == log.decisions
    return state, log


def assert_record_replays(state: GameState, players: int) -> None:
    """An independent check of every action: the record reader re-applies them all."""
    names = [f"P{i}" for i in range(players)]
    loaded = parse_record(dumps_record(export_record(state, names)))
    assert loaded.state.totals == state.totals
    assert loaded.state.is_terminal()


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_and_easy_bots_only_act_legally(players: int, edition: str,
                                               variant: str) -> None:
    games = 6
    rounds = rounds_for(players)
    for game in range(games):
        lineup = [("random", "easy")[(seat + game) % 2] for seat in range(players)]
        factories = [load_bot_factory(name) for name in lineup]
        state, log = play_checked(players, edition, variant, lineup, factories,
                                  seed=1000 * players + game)
        assert log.problems == []
        # Every seat bids once a round and rolls once a trick.
        assert log.bids == players * rounds
        assert log.rolls == players * sum(range(1, rounds + 1))
        assert_record_replays(state, players)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_search_bots_by_name_only_act_legally(players: int) -> None:
    """One whole game each with the real ``hard`` and ``medium`` bots (kept few: slow)."""
    edition = EDITIONS[players % 2]
    variant = VARIANTS[(players // 2) % 2]
    lineup = (["hard", "medium"] + ["easy", "random"] * 2)[:players]
    factories = [load_bot_factory(name) for name in lineup]
    state, log = play_checked(players, edition, variant, lineup, factories, seed=players)
    assert log.problems == []
    assert log.decisions > 0
    assert_record_replays(state, players)


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_tiny_search_bot_only_acts_legally_everywhere(edition: str, variant: str) -> None:
    for players in PLAYER_COUNTS:
        lineup = ["search"] * players
        state, log = play_checked(players, edition, variant, lineup,
                                  [tiny_search_bot] * players, seed=77 + players)
        assert log.problems == []
        assert log.rolls == players * sum(range(1, state.n_rounds + 1))
        assert_record_replays(state, players)


def test_make_bot_knows_every_builtin_and_names_unknown_ones() -> None:
    assert set(BUILTIN_BOTS) == {"random", "easy", "medium", "hard", "expert"}
    for name in BUILTIN_BOTS:
        bot = make_bot(name)
        assert callable(bot.act)
        assert getattr(bot, "name", None) == name
    with pytest.raises(BotError, match="grandmaster") as info:
        make_bot("grandmaster")
    for name in BUILTIN_BOTS:
        assert name in str(info.value)


# -- hidden information: fields ---------------------------------------------------------


def play_randomly_until(state: GameState, rng: random.Random,
                        stop: Callable[[GameState], bool]) -> None:
    while not stop(state):
        assert state.current_player != TERMINAL
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            legal = state.legal_actions()
            state.apply(legal[int(rng.random() * len(legal))])


def test_view_shows_only_sizes_of_other_hands_and_no_early_bids() -> None:
    for players in PLAYER_COUNTS:
        rng = random.Random(players)
        state = GameState.new(players, "mino", first_starter=0)
        play_randomly_until(state, rng, lambda s: s.phase is Phase.BID and s.round_no == 3)
        order = state.bidders()
        secret = {seat: (seat + 1) % 4 for seat in order}
        for done, seat in enumerate(order[:-1]):
            state.apply(Bid(secret[seat]), seat=seat)
            for viewer in range(players):
                v = view(state, viewer)
                assert v.hand == state.hand(viewer)
                assert v.hand_sizes == (3,) * players
                assert v.has_bid == tuple(s in order[: done + 1] for s in range(players))
                for other in range(players):
                    if other == viewer and v.has_bid[viewer]:
                        assert v.bids[other] == secret[other]
                    else:
                        assert v.bids[other] is None
                assert not v.all_bids_in
        state.apply(Bid(secret[order[-1]]), seat=order[-1])
        for viewer in range(players):
            v = view(state, viewer)
            assert v.bids == tuple(secret[s] for s in range(players))
            # Field by field, a view holds no Hand but its own and finished rounds'.
            hands = [h for f in dataclasses.fields(v) for h in _hands_in(getattr(v, f.name))]
            known = {v.hand.key} | {h.key for past in v.history for h in past.hands}
            assert {h.key for h in hands} <= known


def _hands_in(value: object) -> Iterable[Hand]:
    if isinstance(value, Hand):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _hands_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _hands_in(getattr(value, f.name))


# -- hidden information: the object graph -----------------------------------------------

# Classes, modules and functions are not followed: from any class one reaches its module
# and so the whole interpreter (the test's own state included). What matters is the data
# a bot is handed, and everything that data holds: the dice set, its engine tables and
# caches, hands, actions, the generator.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, types.CodeType, types.FrameType)


def reachable(*roots: object) -> list[object]:
    seen: dict[int, object] = {}
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _OPAQUE):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
    return list(seen.values())


def ints_in(objects: Iterable[object]) -> set[int]:
    return {o for o in objects if type(o) is int}


@functools.cache
def pristine_ints(edition: str) -> frozenset[int]:
    """The ints a dice set and its engine tables hold by construction: from a fresh copy
    of the set that has never seen a game's hands (the shared one may have, if it leaks)."""
    text = resources.files("minodice.core").joinpath("data", f"{edition}.json").read_text()
    fresh = DiceSet(json.loads(text))
    GameState.new(4, fresh)  # builds its engine tables
    assert fresh.engine_tables is not None
    return frozenset(ints_in(reachable(fresh)))


MINE = "minotaur,griffin,griffin,griffin,mermaid,mermaid,red,red"
THEIRS = ("yellow,yellow,yellow,purple,purple,purple,gray,gray",
          "red,red,red,red,red,yellow,yellow,yellow",
          "purple,purple,purple,purple,purple,gray,gray,gray")


def distinctive_game() -> GameState:
    """A 4-player game played at random to round 8, where the hands are then dealt by hand:
    each hidden hand's key is a large int (counts of 2 to 5) found nowhere else."""
    ds = load_dice_set("mino")
    state = GameState.new(4, ds, first_starter=1)
    play_randomly_until(state, random.Random(8),
                        lambda s: s.round_no == 8 and s.phase is Phase.DRAW)
    for text in (MINE, *THEIRS):
        state.apply_chance(Hand.from_str(ds, text))
    return state


def leaks(state: GameState, viewer: int, rng: random.Random) -> list[str]:
    """What of the other seats' hidden dice is reachable from what ``viewer``'s bot gets."""
    v = view(state, viewer)
    objects = reachable(v, v.legal_actions, rng)
    ints = ints_in(objects)
    known = {state.hands[viewer], state.rounds[-1].hands[viewer]}
    known |= {h.key for past in v.history for h in past.hands}
    static = pristine_ints(v.dice_set.name)
    found: list[str] = []
    for other in range(state.n):
        if other == viewer:
            continue
        for what, key in (("current", state.hands[other]),
                          ("drawn", state.rounds[-1].hands[other])):
            if key in known:
                continue  # the viewer may hold, or have seen, the very same dice
            if key > 1 << 16 and key not in static and key in ints:
                found.append(f"seat {other}'s {what} hand key {key}")
            found.extend(f"seat {other}'s {what} hand {h}" for h in objects
                         if isinstance(h, Hand) and h.key == key)
    found.extend(type(o).__name__ for o in objects if isinstance(o, GameState | RoundLog))
    return found


def test_object_graph_of_a_view_holds_no_other_hand() -> None:
    state = distinctive_game()
    ds = state.dice_set
    hidden = [Hand.from_str(ds, t).key for t in THEIRS]
    mine = Hand.from_str(ds, MINE).key
    # The keys are distinctive: large, and no table of the dice set holds them.
    static = pristine_ints("mino")
    assert all(k > 1 << 16 and k not in static for k in hidden)
    # The walk would see a leak: from the state the hidden keys are reachable, and from
    # the view one's own key is.
    assert set(hidden) <= ints_in(reachable(state))
    assert mine in ints_in(reachable(view(state, 0)))
    rng = random.Random(3)
    checked = 0
    while state.round_no == 8 and not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
            continue
        for viewer in range(4):
            assert leaks(state, viewer, rng) == [], (state.phase, viewer)
            checked += 1
        # Bids one by one (so views see some bids in, some not), then random dice.
        legal = state.legal_actions()
        state.apply(legal[int(rng.random() * len(legal))])
    assert state.is_terminal()
    assert checked > 8 * 4
    for viewer in range(4):  # after the last round every hand is public: no false alarm
        assert leaks(state, viewer, rng) == []


class Spy:
    """Plays at random, and at every decision walks everything it was handed — and every
    data global of the minodice modules — for hands it must not see."""

    name = "spy"

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.decisions = 0
        self.arg_types: set[tuple[str, ...]] = set()
        self.rngs: set[int] = set()

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        self.decisions += 1
        self.arg_types.add((type(view).__name__, type(legal).__name__, type(rng).__name__))
        self.rngs.add(id(rng))
        known = {view.hand.key} | {h.key for past in view.history for h in past.hands}
        for obj in reachable(view, legal, rng):
            if isinstance(obj, GameState | RoundLog):
                self.problems.append(f"reached a {type(obj).__name__}")
            elif isinstance(obj, Hand) and obj.key not in known:
                self.problems.append(f"reached someone's hand {obj}")
        modules = [vars(m) for name, m in list(sys.modules.items())
                   if name.startswith("minodice") and m is not None]
        for obj in reachable(*modules):
            if isinstance(obj, GameState | RoundLog | Hand):
                self.problems.append(f"a module global holds a {type(obj).__name__}")
        if not view.all_bids_in:
            for seat, bid in enumerate(view.bids):
                if seat != view.seat and bid is not None:
                    self.problems.append(f"saw seat {seat}'s bid early")
        rolled = sum(len(trick) for trick in view.round_tricks)
        if (view.hand_sizes[view.own_seat] != view.hand.size
                or sum(view.hand_sizes) != view.players * view.round_no - rolled):
            self.problems.append("hand sizes disagree with the dice rolled")
        return legal[int(rng.random() * len(legal))]


@pytest.mark.parametrize("players", [3, 6])
def test_a_bot_in_a_real_game_reaches_nothing_hidden(players: int) -> None:
    """Through the match runner, with the search bots (and their caches) at the table."""
    spy = Spy()
    others: list[Bot] = [make_bot(n) for n in ("hard", "medium", "easy", "random", "easy")]
    bots: list[Bot] = [spy, *others[: players - 1]]
    names = ["spy", "hard", "medium", "easy", "random", "easy2"][:players]
    config = GameConfig(players, load_dice_set("mino"), Variant.STANDARD, 1)
    state, _ = play_bot_game(config, bots, names, 5, 0, "spy")
    assert state.is_terminal()
    assert spy.decisions == sum(range(1, state.n_rounds + 1)) + state.n_rounds
    assert spy.problems == []
    # A bot is handed exactly a view, a tuple of legal actions and a generator of its own.
    assert spy.arg_types == {("SeatView", "tuple", "Random")}
    assert len(spy.rngs) == 1


# -- hidden information: behaviour ------------------------------------------------------

TWIN_MINE = "minotaur,red,yellow"
TWIN_A = ("griffin,red,red", "griffin,purple,gray", "mermaid,yellow,yellow")
TWIN_B = ("griffin,gray,gray", "griffin,red,red", "mermaid,purple,purple")


def twin_states() -> tuple[GameState, GameState]:
    """Two 4-player round-3 states alike in all that seat 0 can know, with other hidden
    dice; seat 0 starts the round."""
    ds = load_dice_set("mino")
    config = GameConfig(4, ds, Variant.STANDARD, (1 - 3) % 4)
    twins = []
    for others in (TWIN_A, TWIN_B):
        state = GameState.at_round(config, 3, [40, -10, 20, 0])
        for text in (TWIN_MINE, *others):
            state.apply_chance(Hand.from_str(ds, text))
        twins.append(state)
    assert twins[0].starter == 0
    return twins[0], twins[1]


def twin_steps(a: GameState, b: GameState) -> Iterable[None]:
    """Walk both states in lock step, yielding at each decision of seat 0."""
    ds = a.dice_set
    yield  # seat 0 bids first
    for seat, bid in ((1, 1), (2, 0), (3, 2)):
        for s in (a, b):
            s.apply(Bid(bid), seat=seat)
    yield  # seat 0 bids last, the others have bid
    for s in (a, b):
        s.apply(Bid(1), seat=0)
    yield  # seat 0 leads trick 1
    script = ((0, "minotaur", "minotaur"), (1, "griffin", "griffin"),
              (2, "griffin", "griffin"), (3, "mermaid", "flag"))
    for seat, kind, face in script:
        for s in (a, b):
            s.apply(Roll(ds.kind(kind)), seat=seat)
            s.apply_chance(ds.face(face))
    assert a.current_player == b.current_player == 0  # the minotaur took the trick
    yield  # seat 0 leads trick 2


@pytest.mark.parametrize("name", ["random", "easy", "medium", "hard", "expert", "tiny-search"])
def test_bots_decide_alike_when_only_hidden_dice_differ(name: str) -> None:
    a, b = twin_states()
    assert a.hand(1) != b.hand(1)
    assert a.hand(2) != b.hand(2)
    decisions = []
    for _ in twin_steps(a, b):
        va, vb = view(a, 0), view(b, 0)
        assert va == vb
        actions = []
        for v in (va, vb):
            bot = tiny_search_bot() if name == "tiny-search" else make_bot(name)
            actions.append(bot.act(v, v.legal_actions, random.Random(11)))
        assert actions[0] == actions[1]
        assert actions[0] in va.legal_actions
        decisions.append(actions[0])
        # The sampler draws the same worlds from either view.
        assert sample_hands(va, random.Random(4)) == sample_hands(vb, random.Random(4))
    assert len(decisions) == 4


# -- the hard bot's sampled worlds --------------------------------------------------------


def shown_voids(v: SeatView) -> list[set[str]]:
    """Per seat, the colours it showed it lacks this round (R9), worked out from scratch."""
    ds = v.dice_set
    voids: list[set[str]] = [set() for _ in range(v.players)]
    for trick in v.round_tricks:
        colour: str | None = None
        if (v.options.special_lead is SpecialLead.NO_COLOUR and trick
                and ds.kind(trick[0].kind).special):
            continue  # R9's open point: a special lead leaves the trick without colour
        for roll in trick:
            kind = ds.kind(roll.kind)
            if kind.special:
                continue
            if colour is None:
                colour = kind.colour
            elif kind.colour != colour:
                voids[roll.seat].add(colour)
    return voids


def decision_points(players: int, edition: str, seed: int,
                    options: RuleOptions = DEFAULT_RULE_OPTIONS
                    ) -> Iterable[tuple[GameState, int]]:
    """Every decision of a random game (the state is live: use it before the next)."""
    rng = random.Random(seed)
    state = GameState.new(players, edition, first_starter=seed % players, options=options)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
            continue
        seat = state.bidders()[0] if state.phase is Phase.BID else state.current_player
        yield state, seat
        legal = state.legal_actions(seat)
        state.apply(legal[int(rng.random() * len(legal))], seat=seat)


def check_sample(state: GameState, v: SeatView, hands: Sequence[Hand]) -> None:
    ds = v.dice_set
    assert len(hands) == v.players
    assert hands[v.own_seat] == v.hand
    assert [h.size for h in hands] == list(v.hand_sizes)
    voids = shown_voids(v)
    for seat, hand in enumerate(hands):
        for kind in hand.kinds():
            assert kind.special or kind.colour not in voids[seat], (seat, kind, voids[seat])
    # The bag: what is held plus what was rolled never exceeds the set.
    in_play = [sum(h.counts[k] for h in hands) for k in range(len(ds.kinds))]
    for trick in v.round_tricks:
        for roll in trick:
            in_play[ds.kind(roll.kind).index] += 1
    for kind in ds.kinds:
        assert in_play[kind.index] <= kind.count, kind
    if v.players * v.round_no == ds.size:  # every die is out: the sample must use them all
        assert in_play == [k.count for k in ds.kinds]
    # The helpers agree with the truth, too.
    truth = [state.hand(s) for s in range(v.players)]
    for seat, hand in enumerate(truth):
        assert all(k.special or k.colour not in voids[seat] for k in hand.kinds())
    assert [
        {ds.kinds[k].colour for k in kinds} for kinds in void_kinds(v)] == voids
    unseen = unseen_counts(v)
    assert all(c >= 0 for c in unseen)
    assert sum(unseen) >= sum(v.hand_sizes) - v.hand.size


@pytest.mark.parametrize("special_lead", list(SpecialLead))
@pytest.mark.parametrize("edition", EDITIONS)
def test_sampled_hands_respect_voids_sizes_and_the_bag(edition: str,
                                                       special_lead: SpecialLead) -> None:
    """Under either reading of R9's open point: with ``no-colour``, a roll after a special
    lead shows no void, and a sample that took it for one would miss the true hands."""
    strength = strength_of(load_dice_set(edition))
    samples = full_bag = voids_seen = 0
    options = RuleOptions(special_lead=special_lead)
    for players in PLAYER_COUNTS:
        for game in range(2):
            for state, seat in decision_points(players, edition, 31 * players + game,
                                               options):
                v = view(state, seat)
                if state.phase is not Phase.PLAY:
                    continue
                rng = random.Random(samples)
                for hands in (sample_hands(v, rng),
                              sample_hands(v, rng, strength, candidates=4)):
                    check_sample(state, v, hands)
                    samples += 1
                full_bag += players * v.round_no == 36
                voids_seen += any(shown_voids(v))
    assert samples > 500
    assert full_bag > 0  # 6 players, round 6: every die is out
    assert voids_seen > 50


def test_one_reading_of_the_view_serves_every_world() -> None:
    # A search reads the view once (Unseen) and draws hundreds of worlds from it: each
    # draw must start afresh (nothing of the last world's dice left over), so the worlds
    # and their weights are those of reading the view anew every time.
    checked = 0
    for players in (3, 4, 6):
        strength = strength_of(load_dice_set("mino"))
        for state, seat in decision_points(players, "mino", 5 * players):
            v = view(state, seat)
            if state.phase is not Phase.PLAY:
                continue
            unseen = Unseen(v)
            shared, fresh = random.Random(checked), random.Random(checked)
            for _ in range(3):
                hands = unseen.sample(shared, strength, candidates=4, bid_fit=0.5)
                assert hands == sample_hands(v, fresh, strength, candidates=4, bid_fit=0.5)
                check_sample(state, v, hands)
                assert unseen.policy_likelihood(hands, strength, 0.1) == (
                    policy_likelihood(v, hands, strength, 0.1))
            checked += 1
    assert checked > 50


def test_sampled_worlds_reproduce_the_view() -> None:
    compared = 0
    for players in PLAYER_COUNTS:
        edition = EDITIONS[players % 2]
        for state, seat in decision_points(players, edition, 7 + players):
            v = view(state, seat)
            bidding_fresh = state.phase is Phase.BID and not any(v.has_bid)
            if state.phase is not Phase.PLAY and not bidding_fresh:
                continue
            hands = sample_hands(v, random.Random(compared))
            world = world_from_view(v, hands)
            w = view(world, seat)
            for f in dataclasses.fields(SeatView):
                if f.name == "history":  # a world is one round: earlier ones are dropped
                    continue
                if f.name == "leader" and bidding_fresh:
                    # Before the first trick a game's view still shows the leader of the
                    # previous round's last trick (stale, meaningless); a world has none.
                    continue
                assert getattr(w, f.name) == getattr(v, f.name), f.name
            assert [world.hand(s) for s in range(players)] == list(hands)
            assert world.bag == [k.count - sum(h.counts[k.index] for h in
                                               _drawn(world)) for k in world.dice_set.kinds]
            if bidding_fresh:  # with bids assumed, the world moves on to the play
                bids = [min(1, v.round_no)] * players
                played = world_from_view(v, hands, bids)
                assert played.phase is Phase.PLAY
                assert list(played.bids) == bids
            compared += 1
    assert compared > 300


def _drawn(state: GameState) -> list[Hand]:
    return [state.dice_set.hand_of_key(k) for k in state.rounds[-1].hands]


def test_sampled_worlds_vary_and_are_not_the_truth() -> None:
    state = distinctive_game()
    state.apply(Bid(5), seat=0)
    v = view(state, 0)
    rng = random.Random(9)
    seen = {tuple(h.key for h in sample_hands(v, rng)) for _ in range(40)}
    truth = tuple(state.hands)
    assert len(seen) > 30
    assert truth not in seen


# -- randomness: duplicate deals -------------------------------------------------------


class RngBurner(RandomBot):
    """Draws a lot from its own generator: must not change anyone's dice."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        for _ in range(17):
            rng.random()
        return super().act(view, legal, rng)


def test_the_dice_of_a_deal_do_not_depend_on_the_bots() -> None:
    config = GameConfig(4, load_dice_set("mino"), Variant.STANDARD, 2)
    lineups: list[list[Bot]] = [[RandomBot() for _ in range(4)],
                                [make_bot("easy") for _ in range(4)],
                                [RngBurner(), make_bot("easy"), RandomBot(), RngBurner()]]
    draws = []
    for bots in lineups:
        state, _ = play_bot_game(config, bots, ["a", "b", "c", "d"], 12, 3, "x")
        draws.append([log.hands for log in state.rounds])
    assert draws[0] == draws[1] == draws[2]
    other, _ = play_bot_game(config, lineups[0], ["a", "b", "c", "d"], 12, 4, "x")
    assert [log.hands for log in other.rounds] != draws[0]
