"""Mino Dice as an OpenSpiel game: ``pyspiel.load_game("python_minodice")``.

Importing this module registers the game with ``pyspiel`` (as OpenSpiel's own Python
games do). Parameters: ``players`` (3–6, default 4), ``dice_set`` (``mino`` or
``skull-king``) and ``variant`` (``standard`` or ``simplified``):

>>> import pyspiel
>>> game = pyspiel.load_game("python_minodice", {"players": 3})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())   # round 1: a die from the bag
(True, 7)
>>> game.num_distinct_actions(), game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
(16, True)

**Type.** Sequential, ``EXPLICIT_STOCHASTIC`` chance, ``IMPERFECT_INFORMATION``,
general-sum; rewards are points: a round's (R12–R15) at the first decision after the roll
that ended it (or at the end), so ``returns()`` are the totals so far, the final scores
once the game is over (rewards summed at every decision node, whoever's, as OpenSpiel's
``random_sim_test`` sums them: see :meth:`MinoDiceState.rewards`). The game is the
engine's (:mod:`minodice.core.state`), wrapped: every rule, draw and roll is the
engine's own.

**Chance** has the engine's exact probabilities: drawing one seat's hand is one chance
node (R4: ``r`` dice from the bag without replacement, multivariate hypergeometric), its
outcomes numbered by :meth:`MinoDiceGame.hand_of` (every hand the set allows, by size);
rolling the chosen die is another (R8: each face 1/6), its outcomes numbered by face
(:meth:`MinoDiceGame.face_of`).

**Actions** are :mod:`minodice.envs.encoding`'s: ``0..8`` bid, ``9 + k`` roll a die of
kind ``k``. **Bids** are secret and simultaneous in the game (R6); here the seats bid one
after another from the start player, and no information state or observation shows a
bid until all are in (a bidder only learns that the earlier ones have bid).

**Information states and observations** are read from the seat's view
(:mod:`minodice.core.view`), never from the state. The information state (perfect
recall) is the whole view: every finished round, this round's own dice as drawn, the
bids as far as known, every roll in order. Its tensor lays out, per round, the own hand
as drawn (K), who has bid (P), the bids once known (P, as value / 8) and the own bid
(1), and every roll slot of the round (``r × P`` slots of ``1 + K + 5``: rolled, kind,
flag, number / 10, minotaur, griffin, mermaid), after the observer's seat (P, one-hot).
The observation (no recall) is :func:`minodice.envs.encoding.observation_vector`.

**Resampling** (:meth:`MinoDiceState.resample_from_infostate`, what determinized search
such as ISMCTS needs): the other seats' hidden dice are drawn by our own hand sampler
(:func:`minodice.bots.sampling.sample_hands`: the unseen dice, each seat's voids shown by
R9 respected exactly), and bids not yet revealed to the player are drawn uniformly from
the legal ones; the state is rebuilt by replaying the history with those chance
outcomes and bids, so it has the same information state for the player.
"""

from __future__ import annotations

import itertools
import random
from functools import cache
from typing import Any

from minodice.envs import missing_extra

try:
    import numpy as np
    import numpy.typing as npt
    import pyspiel
except ModuleNotFoundError as missing:
    raise missing_extra(__name__, missing) from None

from minodice.bots.sampling import sample_hands
from minodice.core.dice import FLAG, SYMBOL_BASE, DiceSet, Face, Hand, load_dice_set
from minodice.core.rules import MAX_PLAYERS, MIN_PLAYERS, RuleOptions, Variant, rounds_for
from minodice.core.state import CHANCE, GameConfig, GameState, Outcome, Phase
from minodice.core.view import SeatView, view
from minodice.core.world import initial_hands
from minodice.envs.encoding import (
    action_of,
    action_size,
    index_of,
    observation_vector,
    vector_size,
)

__all__ = ["MinoDiceGame", "MinoDiceState"]

SHORT_NAME = "python_minodice"
MAX_HAND = 8
_ROLL_FEATURES = 6  # besides the kind's one-hot: rolled, flag, number, three roles

#: The game's parameters and their defaults. ``first_starter``: round 1's start player (R5:
#: "at random unless given"; given here, so that a game is a function of its chance
#: outcomes); ``start`` and ``special_lead``: RULES.md's open points (docs/RULES.md).
_PARAMETERS: dict[str, Any] = {"players": 4, "dice_set": "mino", "variant": "standard",
                               "first_starter": 0, "start": "rotate",
                               "special_lead": "first-number"}

_GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Mino Dice (minodice)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


def _all_hands(dice_set: DiceSet) -> list[Hand]:
    """Every hand of 1 to 8 dice the set can give, by size, then by counts."""
    ranges = [range(min(kind.count, MAX_HAND) + 1) for kind in dice_set.kinds]
    found = [counts for counts in itertools.product(*ranges) if 1 <= sum(counts) <= MAX_HAND]
    found.sort(key=lambda c: (sum(c), c))
    return [dice_set.hand_of_counts(c) for c in found]


class ChanceTables:
    """The numbering of one dice set's chance outcomes: hands drawn, faces shown."""

    def __init__(self, dice_set: DiceSet) -> None:
        self.hands = _all_hands(dice_set)
        self.hand_index = {hand.key: i for i, hand in enumerate(self.hands)}
        self.faces: list[Face] = sorted(
            {face for kind in dice_set.kinds for face in kind.faces}, key=lambda f: f.code)
        self.face_index = {face.code: i for i, face in enumerate(self.faces)}

    def index_of(self, outcome: Outcome) -> int:
        """The number of a chance outcome: a hand drawn or a face shown."""
        if isinstance(outcome, Face):
            return self.face_index[outcome.code]
        return self.hand_index[outcome.key]


@cache
def chance_tables(dice_set: str) -> ChanceTables:
    """The tables of a shipped dice set, built once (states keep only the engine's state,
    which is what a serialised state holds)."""
    return ChanceTables(load_dice_set(dice_set))


class MinoDiceGame(pyspiel.Game):
    """The game's parameters, tables of chance outcomes, and observers."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_PARAMETERS, **(params or {})}
        players = int(params["players"])
        self.dice_set = load_dice_set(str(params["dice_set"]))
        self.variant = Variant(str(params["variant"]))
        options = RuleOptions.from_json({"start": params["start"],
                                         "special_lead": params["special_lead"]})
        self.config = GameConfig(players, self.dice_set, self.variant,
                                 int(params["first_starter"]), options)
        GameState(self.config)  # refuses a player count outside 3-6 (R1)
        self.tables = chance_tables(self.dice_set.name)
        rounds = rounds_for(players)
        tricks = sum(range(1, rounds + 1))
        # Bounds of a total: every bid of 0 lost (-10 r each round) to every bid made
        # with the round's largest bonus (R14: the minotaur taking all the griffins, 90).
        info = pyspiel.GameInfo(
            num_distinct_actions=action_size(self.dice_set),
            max_chance_outcomes=max(len(self.tables.hands), len(self.tables.faces)),
            num_players=players,
            min_utility=-10.0 * tricks,
            max_utility=20.0 * tricks + 90.0 * rounds,
            utility_sum=None,
            # decisions only (OpenSpiel: "outcomes of chance nodes are not included"):
            # each round a bid and r rolls a seat
            max_game_length=players * (rounds + tricks),
        )
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self) -> MinoDiceState:
        return MinoDiceState(self)

    def hand_of(self, outcome: int) -> Hand:
        """The hand drawn by chance outcome ``outcome`` (at a draw)."""
        return self.tables.hands[outcome]

    def hand_index_of(self, hand: Hand) -> int:
        """The chance outcome that draws ``hand``."""
        return self.tables.hand_index[hand.key]

    def face_of(self, outcome: int) -> Face:
        """The face shown by chance outcome ``outcome`` (at a roll)."""
        return self.tables.faces[outcome]

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> MinoDiceObserver:
        if params:
            raise ValueError(f"the minodice observer takes no parameters, not {params}")
        recall = bool(iig_obs_type.perfect_recall) if iig_obs_type is not None else False
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("the minodice observer shows a seat what it knows: public "
                             "information and its own dice (SINGLE_PLAYER)")
        return MinoDiceObserver(self, recall)


# What a pickled engine leaves out: rebuilt by its constructor from the configuration.
_REBUILT = frozenset({"_t", "config", "dice_set"})


def _restore_engine(config: GameConfig, fields: dict[str, Any]) -> EngineBox:
    state = GameState(config)
    for name, value in fields.items():
        setattr(state, name, value)
    return EngineBox(state)


class EngineBox:
    """The engine's state as a state's attribute: OpenSpiel clones a Python state by
    deep-copying its attributes and serialises it by pickling them; this copies with
    the engine's own :meth:`~GameState.clone` and pickles the game's fields, not the
    dice set's tables (about 100 times faster and smaller than the default)."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> EngineBox:
        return EngineBox(self.state.clone())

    def __reduce__(self) -> tuple[Any, tuple[GameConfig, dict[str, Any]]]:
        state = self.state
        fields = {name: getattr(state, name) for name in GameState.__slots__
                  if name not in _REBUILT}
        return _restore_engine, (state.config, fields)


class MinoDiceState(pyspiel.State):
    """A game in progress: the engine's state, with OpenSpiel's numbering of moves."""

    def __init__(self, game: MinoDiceGame) -> None:
        super().__init__(game)
        self.box = EngineBox(GameState(game.config))
        self.totals_at_decision = [0] * game.config.players

    @property
    def engine(self) -> GameState:
        """The engine's state (all of it, hidden dice too: for tools, never for a seat)."""
        return self.box.state

    def current_player(self) -> int:
        # The engine's numbers are OpenSpiel's: CHANCE -1, TERMINAL -4.
        return int(self.engine.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(index_of(a) for a in self.engine.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        tables = chance_tables(self.engine.dice_set.name)
        return sorted((tables.index_of(outcome), float(p))
                      for outcome, p in self.engine.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        if engine.current_player == CHANCE:
            tables = chance_tables(engine.dice_set.name)
            if engine.phase is Phase.ROLL:
                engine.apply_chance(tables.faces[action])
            else:
                engine.apply_chance(tables.hands[action])
        else:
            self.totals_at_decision = engine.totals[:]
            engine.apply(action_of(engine.dice_set, action), seat=engine.current_player)

    def rewards(self) -> list[float]:
        """The points scored since the last decision, whoever made it: a round's points,
        at the first decision (or the end) after the roll that ended it; else 0.

        OpenSpiel says both "rewards obtained since the last time the player acted" (its
        API reference) and, in the test every game must pass (``random_sim_test``),
        that the rewards summed over *every* decision node equal the returns at each of
        them: this follows the test. A learner that reads a seat's reward only at that
        seat's own steps (OpenSpiel's tabular Q-learner, say) must add up the rewards of
        the steps between, as ``returns()`` differences do; README's research section
        says so."""
        return [float(a - b) for a, b in zip(self.engine.totals, self.totals_at_decision,
                                             strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        tables = chance_tables(self.engine.dice_set.name)
        if player == CHANCE:
            if self.engine.phase is Phase.ROLL:
                return f"shows {tables.faces[action]}"
            return f"draws {tables.hands[action]}"
        return str(action_of(self.engine.dice_set, action))

    def is_terminal(self) -> bool:
        return self.engine.is_terminal()

    def returns(self) -> list[float]:
        return [float(t) for t in self.engine.totals]

    def __str__(self) -> str:
        engine = self.engine
        hands = " | ".join(str(engine.hand(s)) for s in range(engine.n))
        return (f"round {engine.round_no} {engine.phase.name.lower()} hands [{hands}] "
                f"bids {engine.bids} tricks {engine.tricks_won} totals {engine.totals} "
                f"trick {engine.trick}")

    def resample_from_infostate(self, player_id: int, probability_sampler: Any
                                ) -> MinoDiceState:
        """A state with the same information state for ``player_id``: the other seats'
        dice drawn by our hand sampler, their hidden bids drawn uniformly."""
        rng = random.Random(int(probability_sampler() * 2**53))
        seat_view = view(self.engine, player_id)
        drawn = initial_hands(seat_view, sample_hands(seat_view, rng))
        engine = self.engine
        hidden_bids = engine.phase is Phase.BID
        tables = chance_tables(engine.dice_set.name)
        out = MinoDiceState(self.get_game())
        for step in self.full_history():
            player, action = step.player, step.action
            target = out.engine
            if target.round_no == engine.round_no and player != player_id:
                if player == CHANCE and target.phase is Phase.DRAW:
                    action = tables.hand_index[drawn[target.drawing_seat].key]
                elif player >= 0 and target.phase is Phase.BID and hidden_bids:
                    action = rng.randrange(target.round_no + 1)
            out.apply_action(action)
        return out


class MinoDiceObserver:
    """OpenSpiel's observer for one kind of observation: with or without recall."""

    def __init__(self, game: MinoDiceGame, recall: bool) -> None:
        self._game = game
        self._recall = recall
        players, kinds = game.num_players(), len(game.dice_set.kinds)
        self._rounds = rounds_for(players)
        size = (_recall_size(players, kinds, self._rounds) if recall
                else vector_size(players, kinds))
        self.tensor: npt.NDArray[np.float32] = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MinoDiceState, player: int) -> None:
        seat_view = view(state.engine, player)
        if self._recall:
            self.tensor[:] = _recall_vector(seat_view, self._rounds)
        else:
            self.tensor[:] = observation_vector(seat_view)

    def string_from(self, state: MinoDiceState, player: int) -> str:
        seat_view = view(state.engine, player)
        return _view_string(seat_view, self._recall)


def _recall_size(players: int, kinds: int, rounds: int) -> int:
    per_round = kinds + 2 * players + 1
    slots = sum(range(1, rounds + 1)) * players
    return players + rounds * per_round + slots * (1 + kinds + _ROLL_FEATURES - 1)


def _recall_vector(seat_view: SeatView, rounds: int) -> npt.NDArray[np.float32]:
    """The information-state tensor laid out in the module's docstring."""
    me, n = seat_view.own_seat, seat_view.players
    ds = seat_view.dice_set
    k = len(ds.kinds)
    out = np.zeros(_recall_size(n, k, rounds), np.float32)
    out[me] = 1.0
    at = n
    per_round = k + 2 * n + 1
    slot = 1 + k + _ROLL_FEATURES - 1
    slots_at = n + rounds * per_round
    for round_no in range(1, rounds + 1):
        base = at + (round_no - 1) * per_round
        first_slot = slots_at + sum(range(1, round_no)) * n * slot
        if round_no <= len(seat_view.history):
            past = seat_view.history[round_no - 1]
            hand, has_bid = past.hands[me].counts, [True] * n
            bids: tuple[int | None, ...] = past.bids
            tricks = past.tricks
        elif round_no == seat_view.round_no and seat_view.phase is not Phase.OVER:
            hand = initial_hands(seat_view, [seat_view.hand] * n)[me].counts
            has_bid, bids = list(seat_view.has_bid), seat_view.bids
            tricks = seat_view.round_tricks
        else:
            continue
        out[base:base + k] = hand
        out[base + k:base + k + n] = has_bid
        for seat, bid in enumerate(bids):
            if bid is not None:
                out[base + k + n + seat] = bid / 8
        own = bids[me]
        out[base + k + 2 * n] = (own + 1) / 9 if own is not None else 0.0
        position = first_slot
        for trick in tricks:
            for roll in trick:
                code = roll.face.code
                out[position] = 1.0
                out[position + 1 + ds.kind(roll.kind).index] = 1.0
                if code == FLAG:
                    out[position + 1 + k] = 1.0
                elif code < SYMBOL_BASE:
                    out[position + 2 + k] = code / 10
                else:
                    out[position + 3 + k + code - SYMBOL_BASE] = 1.0
                position += slot
    return out


def _tricks_text(tricks: Any, winners: Any) -> str:
    parts = []
    for i, trick in enumerate(tricks):
        rolls = " ".join(f"p{r.seat}:{r.kind}>{r.face}" for r in trick)
        won = f" =p{winners[i]}" if i < len(winners) else ""
        parts.append(f"[{rolls}{won}]")
    return "".join(parts)


def _bids_text(bids: tuple[int | None, ...], has_bid: tuple[bool, ...] | list[bool]) -> str:
    return ",".join("?" if b is None and done else "-" if b is None else str(b)
                    for b, done in zip(bids, has_bid, strict=True))


def _view_string(seat_view: SeatView, recall: bool) -> str:
    """The view as text: with recall, every finished round too (and the dice as drawn)."""
    me = seat_view.own_seat
    lines = [f"p{me} round {seat_view.round_no}/{seat_view.rounds} "
             f"{seat_view.phase.name.lower()} to act p{seat_view.current_player}"]
    if recall:
        for past in seat_view.history:
            lines.append(f"r{past.round_no} mine {past.hands[me]} bids "
                         f"{','.join(map(str, past.bids))} "
                         f"{_tricks_text(past.tricks, past.trick_winners)}")
        if seat_view.phase is not Phase.OVER:
            drawn = initial_hands(seat_view, [seat_view.hand] * seat_view.players)[me]
            lines.append(f"r{seat_view.round_no} drew {drawn}")
    lines.append(f"hand {seat_view.hand} sizes {','.join(map(str, seat_view.hand_sizes))} "
                 f"bids {_bids_text(seat_view.bids, seat_view.has_bid)} "
                 f"won {','.join(map(str, seat_view.tricks_won))} "
                 f"totals {','.join(map(str, seat_view.totals))}")
    tricks = seat_view.round_tricks if recall else seat_view.round_tricks[-1:]
    if tricks:
        lines.append(_tricks_text(tricks, seat_view.round_trick_winners[
            len(seat_view.round_tricks) - len(tricks):]))
    return "\n".join(lines)


pyspiel.register_game(_GAME_TYPE, MinoDiceGame)
