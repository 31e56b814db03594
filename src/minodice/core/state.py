"""The game state: a fast, pure, mutable engine for one game of Mino Dice.

Design (after OpenSpiel): the state says who acts next through :attr:`GameState.current_player`
— a seat, :data:`CHANCE` or :data:`TERMINAL`. Drawing a hand and rolling a chosen die are
*chance* steps: :meth:`chance_outcomes` lists them with exact probabilities,
:meth:`sample_chance` draws one with a generator the caller supplies, and
:meth:`apply_chance` applies a given one (which is how a record is replayed). The engine
owns no randomness, reads no clock and does no I/O.

Bidding is simultaneous and secret (R6): any seat still to bid may bid, in any order, and
nothing about a bid is visible through :mod:`minodice.core.view` until all are in. For
sequential drivers, ``current_player`` names the next seat (from the round's start player)
that has not bid yet.

Speed: hands are integers (4 bits per die kind), legal die choices are read from tables
built once per dice set (:mod:`minodice.core.tables`, where R8 and R9 are stated), tricks
are resolved incrementally as the dice are rolled, and actions and outcomes are interned
objects, so a step allocates almost nothing. What a round's log holds is in
:mod:`minodice.core.roundlog`. The code is typed so that mypyc can compile it: ``make
compiled`` builds this module, the tables and the round log into ``build/compiled``, which
plays the same games about twice as fast (``benchmarks/engine.py``); the default install
stays pure Python.

>>> import random
>>> state = GameState.new(players=4, first_starter=0)
>>> rng = random.Random(7)
>>> while not state.is_terminal():
...     if state.current_player == CHANCE:
...         state.apply_chance(state.sample_chance(rng))
...     else:
...         actions = state.legal_actions()
...         state.apply(actions[int(rng.random() * len(actions))])
>>> len(state.totals), state.round_no
(4, 8)
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from enum import IntEnum
from fractions import Fraction
from math import comb
from typing import Final

from minodice.core.actions import BIDS, Action, Bid, Roll
from minodice.core.dice import (
    FLAG,
    KIND_BITS,
    KIND_MASK,
    SYMBOL_BASE,
    DiceSet,
    Face,
    Hand,
    load_dice_set,
)
from minodice.core.errors import PLAYER, IllegalActionError
from minodice.core.roundlog import RollEntry, RoundLog
from minodice.core.rules import (
    DEFAULT_RULE_OPTIONS,
    MAX_PLAYERS,
    MERMAID_BONUS,
    MIN_PLAYERS,
    MINOTAUR_BONUS_PER_GRIFFIN,
    WINNING_ROLE,
    RuleOptions,
    StartRule,
    Variant,
    round_points,
    rounds_for,
    winners,
)
from minodice.core.tables import PRESENT_BITS, tables_for

CHANCE: Final = -1
TERMINAL: Final = -4

Outcome = Hand | Face

__all__ = ["CHANCE", "TERMINAL", "GameConfig", "GameState", "Outcome", "Phase", "RollEntry",
           "RoundLog", "decision_seats"]


class Phase(IntEnum):
    """Where the game stands; DRAW and ROLL are chance steps."""

    DRAW = 0
    BID = 1
    PLAY = 2
    ROLL = 3
    OVER = 4

    def __repr__(self) -> str:
        return f"Phase.{self.name}"


# Final: a compiled build (``make compiled``) reads these as constants, not globals.
_DRAW: Final = Phase.DRAW
_BID: Final = Phase.BID
_PLAY: Final = Phase.PLAY
_ROLL: Final = Phase.ROLL
_OVER: Final = Phase.OVER

# The bids allowed in round r (R6): 0 to r, one tuple per round, shared.
_BID_CHOICES: Final = tuple(BIDS[: r + 1] for r in range(len(BIDS)))


@dataclass(frozen=True, slots=True)
class GameConfig:
    """The parameters of a game: with the event list, everything a game is (STYLE 6)."""

    players: int
    dice_set: DiceSet
    variant: Variant = Variant.STANDARD
    first_starter: int = 0
    options: RuleOptions = DEFAULT_RULE_OPTIONS

    @property
    def rounds(self) -> int:
        return rounds_for(self.players)

    def __reduce__(self) -> tuple[type[GameConfig],
                                  tuple[int, DiceSet, Variant, int, RuleOptions]]:
        """Pickled and copied through the constructor, which a compiled build needs."""
        return GameConfig, (self.players, self.dice_set, self.variant, self.first_starter,
                            self.options)


class GameState:
    """One game in progress. Mutable; :meth:`clone` gives an independent copy for search.

    Read-only attributes for callers: ``current_player``, ``phase``, ``round_no``,
    ``starter``, ``leader``, ``follow`` (kind index of the colour to follow, -1 for none),
    ``rolled`` (rolls in the trick so far), ``symbol_mask`` and ``best_number`` (what the
    trick shows so far), ``bids`` (-1 until given), ``tricks_won``, ``totals`` and
    ``rounds`` (the :class:`RoundLog` of every round). Change the game only through
    :meth:`apply`, :meth:`apply_chance` and :meth:`roll_kind`, which check the rules.
    """

    __slots__ = (
        "_best_seat",
        "_bids_in",
        "_bonus_pot",
        "_drawn",
        "_griffins",
        "_last_sym",
        "_pending",
        "_rotate",
        "_simplified",
        "_t",
        "_trick",
        "bag",
        "best_number",
        "bids",
        "config",
        "current_player",
        "dice_set",
        "follow",
        "hands",
        "leader",
        "n",
        "n_rounds",
        "phase",
        "rolled",
        "round_no",
        "rounds",
        "starter",
        "symbol_mask",
        "totals",
        "tricks_won",
    )

    def __init__(self, config: GameConfig) -> None:
        if not MIN_PLAYERS <= config.players <= MAX_PLAYERS:
            raise IllegalActionError("R1", f"Mino Dice is for 3 to 6 players, not {config.players}")
        if not 0 <= config.first_starter < config.players:
            raise IllegalActionError("R5", f"first starter {config.first_starter} is not a player")
        self.config = config
        self.dice_set = config.dice_set
        self.n = config.players
        self.n_rounds = config.rounds
        self._t = tables_for(config.dice_set, config.options.special_lead)
        self._simplified = config.variant is Variant.SIMPLIFIED
        self._rotate = 1 if config.options.start is StartRule.ROTATE else 0  # R5
        self.totals: list[int] = [0] * self.n
        self.rounds: list[RoundLog] = []
        self.round_no = 0
        self.starter = (config.first_starter - self._rotate) % self.n
        self.phase = _DRAW
        self.current_player = CHANCE
        self.bag: list[int] = []
        self.hands: list[int] = []
        self.bids: list[int] = []
        self.tricks_won: list[int] = []
        self._bonus_pot: list[int] = []
        self._trick: list[RollEntry] = []
        self._bids_in = self._drawn = 0
        self.leader = self.follow = self._pending = self.rolled = 0
        self.symbol_mask = self._griffins = self.best_number = self._best_seat = 0
        self._last_sym = [-1, -1, -1]
        self._start_round()

    @classmethod
    def new(
        cls,
        players: int = 4,
        dice_set: str | DiceSet = "mino",
        variant: str | Variant = Variant.STANDARD,
        first_starter: int = 0,
        options: RuleOptions = DEFAULT_RULE_OPTIONS,
    ) -> GameState:
        """A new game; ``first_starter`` is the start player of round 1 (R5)."""
        ds = load_dice_set(dice_set) if isinstance(dice_set, str) else dice_set
        return cls(GameConfig(players, ds, Variant(variant), first_starter, options))

    @classmethod
    def at_round(
        cls, config: GameConfig, round_no: int, totals: list[int] | None = None
    ) -> GameState:
        """A state at the start of ``round_no`` (its draw pending) with the given totals.

        For search and analysis, which look at one round: the earlier rounds are not
        logged, so such a state cannot be exported as a record.
        """
        state = cls(config)
        if not 1 <= round_no <= state.n_rounds:
            raise ValueError(f"round {round_no} is not a round of a {state.n}-player game (R2)")
        state.round_no = round_no - 1
        state.starter = (config.first_starter + (round_no - 2) * state._rotate) % state.n
        state.rounds = []
        state._start_round()
        state.totals = list(totals) if totals is not None else [0] * state.n
        return state

    @property
    def is_partial(self) -> bool:
        """True for a state made by :meth:`at_round` after round 1 (no full history)."""
        return len(self.rounds) != self.round_no

    # -- round and trick set-up ----------------------------------------------------------

    def _start_round(self) -> None:
        self.round_no += 1
        self.starter = (self.starter + self._rotate) % self.n  # R5
        self.bag = [k.count for k in self.dice_set.kinds]  # R3: all dice back in the bag
        self.hands = [0] * self.n
        self.bids = [-1] * self.n
        self.tricks_won = [0] * self.n
        self._bonus_pot = [0] * self.n
        self._bids_in = 0
        self._drawn = 0
        self.leader = self.starter  # R7: the start player will lead the first trick
        self.rounds.append(RoundLog(self.n))
        self.phase = _DRAW
        self.current_player = CHANCE

    def _start_trick(self, leader: int) -> None:
        self.leader = leader
        self.current_player = leader
        self.follow = -1
        self.rolled = 0
        self.symbol_mask = 0
        self._last_sym = [-1, -1, -1]
        self._griffins = 0
        self.best_number = FLAG
        self._best_seat = leader
        self._trick = []
        self.rounds[-1].tricks.append(self._trick)
        self.phase = _PLAY

    # -- queries -------------------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.phase is _OVER

    def is_chance(self) -> bool:
        return self.current_player == CHANCE

    @property
    def variant(self) -> Variant:
        return self.config.variant

    @property
    def drawing_seat(self) -> int:
        """During DRAW, the seat whose hand the next chance outcome is."""
        return self._drawn

    @property
    def pending_roll(self) -> Roll | None:
        """During ROLL, the die chosen and about to be rolled."""
        return self._t.rolls[self._pending] if self.phase is _ROLL else None

    @property
    def trick(self) -> list[RollEntry]:
        """The rolls of the trick in progress (or the last finished trick between rounds)."""
        return self._trick

    def hand(self, seat: int) -> Hand:
        """The dice behind ``seat``'s screen. Hidden information: only views may expose it."""
        return self.dice_set.hand_of_key(self.hands[seat])

    def bidders(self) -> list[int]:
        """Seats that still have to bid (only during BID)."""
        if self.phase is not _BID:
            return []
        return [s for s in range(self.n) if self.bids[s] < 0]

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """The legal actions of ``seat`` (default: the current player); empty if none."""
        phase = self.phase
        if phase is _PLAY:
            cur = self.current_player
            if seat is not None and seat != cur:
                return ()
            hand = self.hands[cur]
            return self._t.legal[
                ((hand | hand >> 1 | hand >> 2 | hand >> 3) & PRESENT_BITS) << 4
                | (self.follow + 1)]
        if phase is _BID:
            who = self.current_player if seat is None else seat
            if 0 <= who < self.n and self.bids[who] < 0:
                return _BID_CHOICES[self.round_no]
        return ()

    def legal_kinds(self) -> tuple[int, ...]:
        """During PLAY, the kind indices the current player may roll; else empty.

        With :meth:`roll_kind`, the fast path for search play-outs.
        """
        if self.phase is not _PLAY:
            return ()
        return self._t.kinds_for(self.hands[self.current_player], self.follow)

    def roll_kind(self, kind: int, u: float) -> None:
        """The current player rolls a die of kind index ``kind``, showing face ``int(u * 6)``.

        ``u`` is uniform in [0, 1) from the caller's generator. The same rules and checks
        as ``apply(Roll(...))`` then ``apply_chance(face)``, in one call, for search.
        """
        if self.phase is not _PLAY or kind not in self._t.kinds_for(
                self.hands[self.current_player], self.follow):
            self.apply(self._t.rolls[kind] if 0 <= kind < self._t.nkinds else
                       Roll(self.dice_set.kinds[0]))  # raises the rule's error
            raise IllegalActionError("R8", f"kind {kind} cannot be rolled now")
        self._pending = kind
        self._apply_face(self._t.face_codes[kind][int(u * 6)])

    # -- decisions -----------------------------------------------------------------------

    def apply(self, action: Action, seat: int | None = None) -> None:
        """Apply ``seat``'s decision (default: the current player's). Raises on illegality."""
        if type(action) is Roll:
            # The hot path of every game, inlined: a die of this set, rolled in turn, held
            # (R8) and not refused by the colour to follow (R9, as the tables state it).
            kind = action.kind.index
            cur = self.current_player
            t = self._t
            if (self.phase is _PLAY and (seat is None or seat == cur)
                    and kind < t.nkinds and t.kinds[kind] is action.kind):
                hand = self.hands[cur]
                if (hand >> (KIND_BITS * kind) & KIND_MASK
                        and not hand & t.breaks_follow[self.follow + 1][kind]):
                    self._pending = kind
                    self.phase = _ROLL
                    self.current_player = CHANCE
                    return
            self._apply_roll_choice(action, seat)  # the careful path: it finds the error
        elif type(action) is Bid:
            self._apply_bid(action.tricks, self.current_player if seat is None else seat)
        else:
            raise IllegalActionError(None, f"not an action: {action!r}")

    def _apply_bid(self, tricks: int, seat: int) -> None:
        if self.phase is not _BID:
            raise IllegalActionError("R6", self._not_now("bid"), seat if seat >= 0 else None)
        if not 0 <= seat < self.n:
            raise IllegalActionError("R1", f"there is no seat {seat}")
        if self.bids[seat] >= 0:
            raise IllegalActionError("R6", f"{PLAYER} has already bid this round", seat)
        if type(tricks) is not int or not 0 <= tricks <= self.round_no:
            raise IllegalActionError(
                "R6", f"{PLAYER} bid {tricks}: a bid is 0 to {self.round_no} in round "
                f"{self.round_no}", seat)
        self.bids[seat] = tricks
        self._bids_in += 1
        if self._bids_in == self.n:
            self.rounds[-1].bids = self.bids[:]
            self._start_trick(self.starter)  # R7: the start player leads the first trick
        elif seat == self.current_player:
            n, s = self.n, seat
            while self.bids[s] >= 0:
                s = (s + 1) % n
            self.current_player = s

    def _apply_roll_choice(self, action: Roll, seat: int | None) -> None:
        cur = self.current_player
        if self.phase is not _PLAY:
            raise IllegalActionError(
                "R8", self._not_now("roll a die"), seat if seat is not None and seat >= 0 else None)
        if seat is not None and seat != cur:
            rule = "R7" if self.rolled == 0 else "R8"
            raise IllegalActionError(
                rule, f"it is not {PLAYER}'s turn: player {cur} rolls next", seat)
        # A Roll built on another copy of the dice set is matched by the kind's name.
        if not self.dice_set.has_kind(action.kind.name):
            raise IllegalActionError("R8", f"{PLAYER} holds no {action.kind.name} die", cur)
        kind = self.dice_set.kind(action.kind.name).index
        if not self._t.may_roll(self.hands[cur], self.follow, kind):
            raise self._illegal_roll(cur, kind)
        self._pending = kind
        self.phase = _ROLL
        self.current_player = CHANCE

    def _illegal_roll(self, seat: int, kind: int) -> IllegalActionError:
        """Which rule a roll the tables refuse breaks: R8 if not held, else R9."""
        name = self.dice_set.kinds[kind].name
        if not self.hand(seat).counts[kind]:
            return IllegalActionError("R8", f"{PLAYER} holds no {name} die", seat)
        follow = self.dice_set.kinds[self.follow].colour
        return IllegalActionError(
            "R9", f"{PLAYER} must follow {follow} (R9): holds {follow}, rolled {name}", seat)

    def _not_now(self, what: str) -> str:
        return f"{PLAYER} cannot {what} now: the game is at {self.phase.name.lower()}"

    # -- chance --------------------------------------------------------------------------

    def chance_outcomes(self) -> list[tuple[Outcome, Fraction]]:
        """Every outcome of the pending chance event with its exact probability.

        During DRAW: the possible hands of :attr:`drawing_seat` (R4: ``r`` dice from the
        bag, without replacement); during ROLL: the faces of the chosen die (R8).
        """
        if self.phase is _ROLL:
            return list(self._t.roll_outcomes[self._pending])
        if self.phase is not _DRAW:
            return []
        bag = self.bag
        nkinds = len(bag)
        r = self.round_no
        denominator = comb(sum(bag), r)
        dice_set = self.dice_set
        shift = self._t.shift
        # room[k]: the dice of kinds k and up still in the bag (a branch that cannot
        # reach r dice is not explored)
        room = [sum(bag[k:]) for k in range(nkinds + 1)]
        out: list[tuple[Outcome, Fraction]] = []

        def extend(kind: int, left: int, counts: list[int], key: int, ways: int) -> None:
            """Every hand with ``counts`` of the kinds before ``kind`` and ``left`` more
            dice, in order (fewest of the first kind first); ``ways`` to draw so far."""
            if left > room[kind]:
                return
            if kind == nkinds:
                out.append((Hand(dice_set, key, tuple(counts)), Fraction(ways, denominator)))
                return
            for c in range(min(left, bag[kind]) + 1):
                counts.append(c)
                extend(kind + 1, left - c, counts, key + c * shift[kind],
                       ways * comb(bag[kind], c))
                counts.pop()

        extend(0, r, [], 0, 1)
        return out

    def sample_chance(self, rng: random.Random) -> Outcome:
        """Draw the pending chance outcome with ``rng`` (the caller's generator)."""
        if self.phase is _ROLL:
            return self._t.face_objs[self._pending][int(rng.random() * 6)]
        if self.phase is not _DRAW:
            raise IllegalActionError(None, "no chance event is pending")
        # The dice in the bag one by one, in kind order; each draw takes a uniformly
        # random one and moves the last into its place.
        bag: list[int] = []
        for kind, count in enumerate(self.bag):
            bag += [kind] * count
        m = len(bag)
        counts = [0] * len(self.bag)
        key = 0
        shift = self._t.shift
        rand = rng.random
        for _ in range(self.round_no):
            j = int(rand() * m)
            m -= 1
            kind = bag[j]
            bag[j] = bag[m]
            counts[kind] += 1
            key += shift[kind]
        return Hand(self.dice_set, key, tuple(counts))  # as dice_set.hand_of_key(key)

    def apply_chance(self, outcome: Outcome) -> None:
        """Apply a chance outcome: a drawn hand (DRAW) or the face the die shows (ROLL)."""
        phase = self.phase
        if phase is _ROLL:
            # The hot path: one of the chosen die's own faces (R8), as sample_chance gives
            # them; anything else is checked on the careful path.
            if type(outcome) is Face:
                code = outcome.code
                if self._t.face_by_code[self._pending].get(code) is outcome:
                    self._apply_face(code)
                    return
            self._apply_other_face(outcome)
        elif phase is _DRAW and type(outcome) is Hand:
            self._apply_draw(outcome)
        elif phase is _DRAW:
            raise IllegalActionError(None, f"a draw needs a hand, not {outcome!r}")
        else:
            raise IllegalActionError(None, "no chance event is pending")

    def _apply_other_face(self, outcome: Outcome) -> None:
        """The careful path of a roll: a face of another copy of the dice set is accepted
        if this set names it the same and the die has it (R8); anything else is refused."""
        if type(outcome) is not Face:
            raise IllegalActionError(None, f"a die roll needs a face, not {outcome!r}")
        if self.dice_set.face_of_code(outcome.code) is not outcome:
            self._check_foreign_face(outcome)
        kind = self._pending
        if outcome.code not in self._t.face_codes[kind]:
            name = self.dice_set.kinds[kind].name
            face = self.dice_set.face_of_code(outcome.code).name
            raise IllegalActionError("R8", f"a {name} die has no face {face}",
                                     (self.leader + self.rolled) % self.n)
        self._apply_face(outcome.code)

    def _check_foreign_face(self, face: Face) -> None:
        """A face object not of this set is accepted only if this set names it the same."""
        try:
            own = self.dice_set.face_of_code(face.code)
        except KeyError:
            own = None
        if own is None or own.name != face.name:
            kind = self.dice_set.kinds[self._pending].name
            raise IllegalActionError("R8", f"a {kind} die has no face {face.name}",
                                     (self.leader + self.rolled) % self.n)

    def _apply_draw(self, hand: Hand) -> None:
        seat = self._drawn
        if hand.dice_set is not self.dice_set:
            raise IllegalActionError("R4", f"{PLAYER}'s hand is of another dice set", seat)
        if hand.size != self.round_no:
            raise IllegalActionError(
                "R4", f"{PLAYER} must draw {self.round_no} dice in round {self.round_no}, "
                f"not {hand.size}", seat)
        bag = self.bag
        counts = hand.counts
        for kind in range(len(bag)):
            if counts[kind] > bag[kind]:
                name = self.dice_set.kinds[kind].name
                have = self.dice_set.kinds[kind].count
                raise IllegalActionError(
                    "R3", f"more {name} dice drawn this round than the set's {have}", seat)
        for kind in range(len(bag)):
            bag[kind] -= counts[kind]
        self.hands[seat] = hand.key
        self.rounds[-1].hands[seat] = hand.key
        self._drawn = seat + 1
        if self._drawn == self.n:
            self.phase = _BID
            self.current_player = self.starter

    def _apply_face(self, code: int) -> None:
        """The pending die shows ``code``, one of its faces (the callers have checked)."""
        kind = self._pending
        seat = self.leader + self.rolled
        if seat >= self.n:
            seat -= self.n
        self.hands[seat] -= self._t.shift[kind]
        self._trick.append((seat, kind, code))
        # R9: the colour to follow (the lead's row says what a die leading sets)
        self.follow = (self._t.follow_after[self.follow + 1] if self.rolled
                       else self._t.lead_follow)[kind]
        # R10, incrementally: remember the symbols seen and the best number so far.
        if code >= SYMBOL_BASE:
            role = code - SYMBOL_BASE
            self.symbol_mask |= 1 << role
            self._last_sym[role] = seat
            if role == 1:
                self._griffins += 1
        elif code > FLAG and code >= self.best_number:
            self.best_number = code
            self._best_seat = seat
        self.rolled += 1
        if self.rolled < self.n:
            nxt = seat + 1
            self.current_player = nxt if nxt < self.n else 0
            self.phase = _PLAY
            return
        self._finish_trick()

    def _finish_trick(self) -> None:
        mask = self.symbol_mask
        if mask:
            role = WINNING_ROLE[mask]
            winner = self._last_sym[role]
            if role == 0:
                self._bonus_pot[winner] += MINOTAUR_BONUS_PER_GRIFFIN * self._griffins
            elif role == 2 and mask & 1:
                self._bonus_pot[winner] += MERMAID_BONUS
        else:
            winner = self._best_seat  # the leader if only flags showed (R10.3)
        self.tricks_won[winner] += 1
        log = self.rounds[-1]
        log.winners.append(winner)
        if len(log.winners) < self.round_no:
            self._start_trick(winner)  # R7: the winner leads the next trick
        else:
            self._score_round(log)

    def _score_round(self, log: RoundLog) -> None:
        r = self.round_no
        variant = self.config.variant
        points: list[int] = []
        bonus: list[int] = []
        for seat in range(self.n):
            p, b = round_points(self.bids[seat], self.tricks_won[seat], r,
                                self._bonus_pot[seat], variant)
            points.append(p)
            bonus.append(b)
            self.totals[seat] += p
        log.points, log.bonus, log.totals = points, bonus, self.totals[:]
        if r == self.n_rounds:
            self.phase = _OVER
            self.current_player = TERMINAL
        else:
            self._start_round()

    # -- results -------------------------------------------------------------------------

    def winners(self) -> list[int]:
        """R16: the seats sharing the highest total once the game is over, else ``[]``."""
        return winners(self.totals) if self.phase is _OVER else []

    def trick_number(self) -> int:
        """1-based number of the trick in play (0 before the first trick of the round)."""
        return len(self.rounds[-1].tricks)

    def clone(self) -> GameState:
        """An independent copy (for search): shares only what never changes again — the
        immutable tables, and the logs of finished rounds (scored, a round's log is never
        written again; copying them all made a server's fork of a late game several times
        dearer than the move it checks).

        Every attribute is copied by name, since a compiled build (``make compiled``) has
        no instance without ``__init__``; ``tests/test_trace.py`` checks that none is missed.
        """
        other = GameState(self.config)  # config, dice_set, n, n_rounds, _t, _simplified
        other.round_no = self.round_no
        other.starter = self.starter
        other.phase = self.phase
        other.current_player = self.current_player
        other.leader = self.leader
        other.follow = self.follow
        other.rolled = self.rolled
        other.symbol_mask = self.symbol_mask
        other.best_number = self.best_number
        other._best_seat = self._best_seat
        other._griffins = self._griffins
        other._pending = self._pending
        other._bids_in = self._bids_in
        other._drawn = self._drawn
        other.bag = self.bag[:]
        other.hands = self.hands[:]
        other.bids = self.bids[:]
        other.tricks_won = self.tricks_won[:]
        other._bonus_pot = self._bonus_pot[:]
        other.totals = self.totals[:]
        other._last_sym = self._last_sym[:]
        other.rounds = [log if log.points is not None else log.copy() for log in self.rounds]
        other._trick = self._trick[:]
        # The trick in play is a list inside the round's log: point at the copy of that same
        # list. (The last trick of a finished round is never written again: a copy of its
        # own will do until the next round's first trick replaces it.)
        if self.rounds:
            log, copy = self.rounds[-1], other.rounds[-1]
            if copy is not log and log.tricks and log.tricks[-1] is self._trick:
                other._trick = copy.tricks[-1]
        return other

    def __repr__(self) -> str:
        return (f"<GameState {self.n} players, round {self.round_no}/{self.n_rounds}, "
                f"{self.phase.name.lower()}, totals {self.totals}>")


def decision_seats(state: GameState, rng: random.Random) -> Iterator[int]:
    """The seat to act at each decision until the game ends, the chance steps between
    drawn from ``rng``; the caller applies one action per seat yielded (and may stop).

    For loops that play a whole game on the state itself and look at it at every decision
    (fitting a model to self-play, property tests), which a driver's views would hide.

    >>> state = GameState.new(players=3, first_starter=0)
    >>> rng = random.Random(2)
    >>> for seat in decision_seats(state, rng):
    ...     actions = state.legal_actions(seat)
    ...     state.apply(actions[int(rng.random() * len(actions))], seat=seat)
    >>> state.is_terminal(), len(state.rounds)
    (True, 8)
    """
    while state.current_player != TERMINAL:
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            yield state.current_player
