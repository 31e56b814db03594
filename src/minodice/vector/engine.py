"""N games of Mino Dice in lockstep: one call takes one step of every game.

Every game of one player count has the same shape: round *r* is ``P`` hands drawn,
``P`` bids, then ``r`` tricks of ``P`` dice each chosen and rolled. Only *who* acts and
*what* happens differ between games, never what kind of step comes next, so N games can
share one step counter and keep everything else in arrays of N (who is to act, hands,
bids, the trick so far, scores). A step is a handful of NumPy operations on those
arrays, whatever N is; at large N the cost per game-step is a few nanoseconds.

The steps, as the scalar engine (:class:`~minodice.core.state.GameState`) takes them:

- ``DRAW``: one seat's hand for every game (:meth:`VectorGame.draw` with explicit
  counts, or :meth:`VectorGame.sample_draw`: dice drawn one by one from the bag, R4);
- ``BID``: the seat to bid in every game bids (:meth:`VectorGame.bid`); seats bid from the
  round's start player on, and a game's bids are its own arrays, so a player reading
  :attr:`VectorGame.bids` before all are in sees what the rules hide (R6), as
  :attr:`VectorGame.hands` holds every hidden die: give agents
  :meth:`VectorGame.observe` instead, a seat's observation from what it may know;
- ``PLAY``: the seat to roll chooses a die kind (:meth:`VectorGame.choose`, checked
  against :meth:`VectorGame.legal_kinds`: R8 and R9 from the engine's own tables);
- ``ROLL``: the chosen die shows a face (:meth:`VectorGame.roll` with face codes, or
  :meth:`VectorGame.sample_roll`: each face 1/6, R8); the last roll of a trick decides
  it (R10, R14) and the last trick of a round scores it (R12–R15).

>>> import numpy as np
>>> games = VectorGame(3, players=4)
>>> rng = np.random.default_rng(7)
>>> while not games.over:
...     games.random_step(rng)
>>> games.totals.shape, games.steps
((3, 4), 352)

Randomness is only ever the caller's generator (``numpy.random.Generator``). Actions
are numbered as in :mod:`minodice.envs.encoding` by :meth:`VectorGame.legal_actions`
and :meth:`VectorGame.act` (``0..8`` bid, ``9 + k`` roll kind ``k``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from minodice.core.dice import FLAG, SYMBOL_BASE, load_dice_set
from minodice.core.rules import (
    DEFAULT_RULE_OPTIONS,
    MERMAID_BONUS,
    MINOTAUR_BONUS_PER_GRIFFIN,
    WINNING_ROLE,
    RuleOptions,
    StartRule,
    Variant,
    rounds_for,
)
from minodice.core.state import GameConfig, GameState, Phase
from minodice.core.tables import tables_for
from minodice.envs.encoding import (
    ACTION_BIDS,
    MAX_ROUNDS,
    PHASES,
    ROLL_FEATURES,
    SEAT_FEATURES,
    vector_size,
)

__all__ = ["VectorGame"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def whole_numbers(values: npt.ArrayLike, what: str) -> IntArray:
    """``values`` as int64, refused unless each is a whole number: ``np.asarray(...,
    dtype=np.int64)`` took 0.7 for 0 and 3.5 for 3 without a word (a policy's
    probabilities passed for actions, say)."""
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "f" and np.isfinite(array).all() and (array == np.floor(array)).all():
        return array.astype(np.int64)
    raise ValueError(f"{what} are whole numbers (an integer array), not {array.dtype} "
                     f"values such as {array.flat[0]!r}" if array.size else
                     f"{what} are whole numbers (an integer array), not {array.dtype}")


class VectorGame:
    """``n`` games of one configuration, stepped together; see the module's docstring.

    ``first_starter`` is the start player of round 1 (R5), one for all games or one per
    game. Arrays (read them, change them only through the steps): ``hands`` (n, P, K)
    dice of each kind behind each screen, ``bag`` (n, K), ``bids`` (n, P; -1 until
    given), ``tricks_won`` (n, P), ``totals`` (n, P), ``round_points`` (n, P: the points
    of the round last scored), ``current`` (n: the seat to act, during BID, PLAY and
    ROLL), ``starter``, ``leader`` and ``follow`` (n: the kind whose colour is followed,
    -1 for none). Scalars: ``phase``, ``round_no``, ``steps`` (steps of each game so far).
    """

    def __init__(self, n: int, players: int = 4, dice_set: str = "mino",
                 variant: str | Variant = Variant.STANDARD,
                 first_starter: int | npt.ArrayLike = 0,
                 options: RuleOptions = DEFAULT_RULE_OPTIONS) -> None:
        if n < 1:
            raise ValueError(f"a batch holds at least one game, not {n}")
        ds = load_dice_set(dice_set)
        GameState(GameConfig(players, ds, Variant(variant)))  # refuses 2 or 7 players (R1)
        starters = np.broadcast_to(np.asarray(first_starter, dtype=np.int64), (n,)).copy()
        if ((starters < 0) | (starters >= players)).any():
            raise ValueError(f"a first starter is a seat from 0 to {players - 1} (R5)")
        tables = tables_for(ds, options.special_lead)
        self.options = options
        self._rotate = 1 if options.start is StartRule.ROTATE else 0  # R5
        k = len(ds.kinds)
        self.n, self.players, self.kinds = n, players, k
        self.dice_set = ds
        self.variant = Variant(variant)
        self.rounds = rounds_for(players)
        self._rows = np.arange(n)
        self._counts = np.array([kind.count for kind in ds.kinds], dtype=np.int64)
        self._faces = np.array(ds.face_codes, dtype=np.int64)  # (K, 6) face codes
        self._special = np.array(ds.special, dtype=np.bool_)
        # _colour[f + 1, k]: kind k is a number kind of the colour of kind f (f = -1: none)
        self._colour = np.zeros((k + 1, k), dtype=np.bool_)
        for f in range(k):
            for other in tables.colour_kinds[f]:
                self._colour[f + 1, other] = True
        # follow_after[(f + 1) * K + k]: the colour to follow once kind k is rolled (R9)
        self._follow_after = np.array(tables.follow_after, dtype=np.int64).ravel()
        self._lead_follow = np.array(tables.lead_follow, dtype=np.int64)  # ... once it leads
        self._face_flat = self._faces.ravel()
        # _legal[held * (K + 1) + f + 1]: the kinds (bits) a hand holding the kinds ``held``
        # (bits) may roll while f's colour is followed: the engine's own statement of R8
        # and R9 (Tables.rollable), tabulated for every set of kinds held.
        self._legal = np.zeros((1 << k) * (k + 1), dtype=np.int64)
        for held in range(1 << k):
            kinds = [i for i in range(k) if held >> i & 1]
            for f in range(-1, k):
                self._legal[held * (k + 1) + f + 1] = sum(1 << i for i in tables.rollable(
                    kinds, f))
        # _count[bits]: how many kinds; _nth[bits * K + j]: the j-th kind among them
        self._count = np.array([bin(b).count("1") for b in range(1 << k)], dtype=np.int64)
        self._nth = np.zeros((1 << k) * k, dtype=np.int64)
        for bits in range(1 << k):
            for j, i in enumerate(i for i in range(k) if bits >> i & 1):
                self._nth[bits * k + j] = i
        # _shows_void[f + 1, k]: rolling kind k while f's colour is followed shows that the
        # roller holds none of that colour (R9; tables.shows_void)
        self._shows_void = np.array([[tables.shows_void(kind, f) for kind in range(k)]
                                     for f in range(-1, k)], dtype=np.bool_).ravel()
        self._colour_bits = self._colour.astype(np.int64) @ (1 << np.arange(k, dtype=np.int64))
        self._bit = 1 << np.arange(k, dtype=np.int64)
        self._winning_role = np.array([max(r, 0) for r in WINNING_ROLE], dtype=np.int64)
        self.phase = Phase.DRAW
        self.round_no = 0
        self.steps = 0
        self.totals = np.zeros((n, players), dtype=np.int64)
        self.round_points = np.zeros((n, players), dtype=np.int64)
        self.starter = (starters - self._rotate) % players
        self._start_round()

    # -- set-up ---------------------------------------------------------------------

    def _start_round(self) -> None:
        n, p, k = self.n, self.players, self.kinds
        self.round_no += 1
        self.starter = (self.starter + self._rotate) % p
        self.bag = np.broadcast_to(self._counts, (n, k)).copy()
        self.hands = np.zeros((n, p, k), dtype=np.int64)
        self._flat_hands = self.hands.reshape(-1)  # a view: hands[g, s, k] at (g*P + s)*K + k
        self._held = np.zeros((n, p), dtype=np.int64)  # bit k: holds a die of kind k
        self._flat_held = self._held.reshape(-1)
        self.bids = np.full((n, p), -1, dtype=np.int64)
        self.tricks_won = np.zeros((n, p), dtype=np.int64)
        self._bonus = np.zeros((n, p), dtype=np.int64)
        # for observe: each seat's colours shown missing this round (R9), as kind bits
        self._voids = np.zeros((n, p), dtype=np.int64)
        self._flat_voids = self._voids.reshape(-1)
        self._drawn = 0
        self._bids_in = 0
        self._tricks = 0
        self.leader = self.starter.copy()
        self.current = self.starter.copy()
        self.phase = Phase.DRAW

    def _start_trick(self, leader: IntArray) -> None:
        n = self.n
        self.leader = leader
        self.current = leader.copy()
        self.follow = np.full(n, -1, dtype=np.int64)
        self._rolled = 0
        self._mask = np.zeros(n, dtype=np.int64)
        self._last_sym = np.zeros((n, 3), dtype=np.int64)
        self._griffins = np.zeros(n, dtype=np.int64)
        self._best = np.full(n, FLAG, dtype=np.int64)
        self._best_seat = leader.copy()
        self._pending = np.zeros(n, dtype=np.int64)
        # for observe: each seat's die in this trick (kind -1: none yet) and its face
        self._trick_kind = np.full((n, self.players), -1, dtype=np.int64)
        self._trick_face = np.zeros((n, self.players), dtype=np.int64)
        self._flat_trick_kind = self._trick_kind.reshape(-1)
        self._flat_trick_face = self._trick_face.reshape(-1)
        self.phase = Phase.PLAY

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def _expect(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise ValueError(f"cannot {what} now: the games are at {self.phase.name.lower()}")

    # -- chance ---------------------------------------------------------------------

    @property
    def drawing_seat(self) -> int:
        """During DRAW, the seat whose hand the next draw is (the same in every game)."""
        return self._drawn

    def sample_draw(self, rng: np.random.Generator) -> IntArray:
        """The next seat's hand in every game, drawn die by die from the bag (R4)."""
        self._expect(Phase.DRAW, "draw")
        k = self.kinds
        bag = self.bag.copy()
        hand = np.zeros_like(bag)
        flat_bag, flat_hand = bag.reshape(-1), hand.reshape(-1)
        base = self._rows * k
        for _ in range(self.round_no):
            cum = np.cumsum(bag, axis=1)
            pick = (rng.random(self.n) * cum[:, -1]).astype(np.int64)
            at = base + (cum <= pick[:, None]).sum(axis=1)  # the die's kind, flattened
            flat_bag[at] -= 1
            flat_hand[at] += 1
        return hand

    def draw(self, hands: npt.ArrayLike) -> None:
        """Give the drawing seat these dice (n, K counts) in every game."""
        self._expect(Phase.DRAW, "draw")
        counts = np.asarray(hands, dtype=np.int64)
        if counts.shape != (self.n, self.kinds):
            raise ValueError(f"a draw is {self.n} x {self.kinds} counts, not {counts.shape}")
        if (counts < 0).any() or (counts.sum(axis=1) != self.round_no).any():
            raise ValueError(f"R4: each hand is {self.round_no} dice in round {self.round_no}")
        if (counts > self.bag).any():
            raise ValueError("R3: more dice of a kind drawn than the bag holds")
        self._draw(counts)

    def _draw(self, counts: IntArray) -> None:
        """The draw, checked (or sampled from the bag) by the caller."""
        self.bag -= counts
        self.hands[:, self._drawn] = counts
        self._held[:, self._drawn] = (counts > 0) @ self._bit
        self._drawn += 1
        self.steps += 1
        if self._drawn == self.players:
            self.phase = Phase.BID
            self.current = self.starter.copy()

    def sample_roll(self, rng: np.random.Generator) -> IntArray:
        """The face code each game's chosen die shows (each face 1/6, R8)."""
        self._expect(Phase.ROLL, "roll")
        faces = (rng.random(self.n) * 6).astype(np.int64)
        codes: IntArray = self._face_flat[self._pending * 6 + faces]
        return codes

    def roll(self, codes: npt.ArrayLike) -> None:
        """Each game's chosen die shows face code ``codes[g]`` (one of the die's faces)."""
        self._expect(Phase.ROLL, "roll")
        code = whole_numbers(codes, "face codes")
        if code.shape != (self.n,):
            raise ValueError(f"a roll is {self.n} face codes, not {code.shape}")
        if not (self._faces[self._pending] == code[:, None]).any(axis=1).all():
            raise ValueError("R8: a die shows one of its own six faces")
        self._roll(code)

    def _roll(self, code: IntArray) -> None:
        """The roll, checked (or sampled from the die's faces) by the caller."""
        seat, kind = self.current, self._pending
        k = self.kinds
        at = (self._rows * self.players + seat) * k + kind
        left = self._flat_hands[at] - 1
        self._flat_hands[at] = left
        held_at = self._rows * self.players + seat
        self._flat_held[held_at] &= ~np.where(left == 0, self._bit[kind], 0)
        self._flat_voids[held_at] |= np.where(
            self._shows_void[(self.follow + 1) * k + kind], self._colour_bits[self.follow + 1], 0)
        self._flat_trick_kind[held_at] = kind
        self._flat_trick_face[held_at] = code
        self.follow = (self._follow_after[(self.follow + 1) * k + kind] if self._rolled
                       else self._lead_follow[kind])  # R9
        # R10, incrementally: the symbols seen, the last of each, the best number so far
        last_sym = self._last_sym
        for role in range(3):
            shows = code == SYMBOL_BASE + role
            self._mask |= shows << role
            last_sym[:, role] = np.where(shows, seat, last_sym[:, role])
        self._griffins += code == SYMBOL_BASE + 1
        better = (code > FLAG) & (code < SYMBOL_BASE) & (code >= self._best)
        self._best = np.where(better, code, self._best)
        self._best_seat = np.where(better, seat, self._best_seat)
        self._rolled += 1
        self.steps += 1
        if self._rolled < self.players:
            self.current = (seat + 1) % self.players
            self.phase = Phase.PLAY
        else:
            self._finish_trick()

    def sample_chance(self, rng: np.random.Generator) -> IntArray:
        """The pending chance event's outcome in every game (a draw or a roll)."""
        return self.sample_draw(rng) if self.phase is Phase.DRAW else self.sample_roll(rng)

    def apply_chance(self, outcome: npt.ArrayLike) -> None:
        """Apply a draw (n, K counts) or a roll (n face codes), whichever is pending."""
        if self.phase is Phase.DRAW:
            self.draw(outcome)
        else:
            self.roll(outcome)

    # -- decisions ------------------------------------------------------------------

    def bid(self, bids: npt.ArrayLike) -> None:
        """The seat to bid in every game (``current``) bids ``bids[g]`` tricks."""
        self._expect(Phase.BID, "bid")
        bid = whole_numbers(bids, "bids")
        if bid.shape != (self.n,):
            raise ValueError(f"a bid step is {self.n} bids, not {bid.shape}")
        if ((bid < 0) | (bid > self.round_no)).any():
            raise ValueError(f"R6: a bid is 0 to {self.round_no} in round {self.round_no}")
        self.bids[self._rows, self.current] = bid
        self._bids_in += 1
        self.steps += 1
        if self._bids_in == self.players:
            self._start_trick(self.starter.copy())  # R7: the start player leads
        else:
            self.current = (self.current + 1) % self.players

    def legal_bits(self) -> IntArray:
        """(n,): the kinds the seat to roll may roll in each game, as bits (R8, R9)."""
        self._expect(Phase.PLAY, "choose a die")
        held = self._flat_held[self._rows * self.players + self.current]
        legal: IntArray = self._legal[held * (self.kinds + 1) + self.follow + 1]
        return legal

    def legal_kinds(self) -> BoolArray:
        """(n, K): the kinds the seat to roll may roll in each game (R8, R9)."""
        return (self.legal_bits()[:, None] & self._bit[None, :]) > 0

    def choose(self, kinds: npt.ArrayLike) -> None:
        """The seat to roll in every game chooses a die of kind ``kinds[g]``."""
        kind = whole_numbers(kinds, "kinds")
        legal = self.legal_bits()
        if kind.shape != (self.n,):
            raise ValueError(f"a choice is {self.n} kinds, not {kind.shape}")
        allowed = (kind >= 0) & (kind < self.kinds) & (
            (legal >> np.clip(kind, 0, self.kinds - 1)) & 1 > 0)
        if not allowed.all():
            bad = int(np.flatnonzero(~allowed)[0])
            raise ValueError(f"game {bad}: kind {int(kind[bad])} may not be rolled (R8, R9)")
        self._pending = kind
        self.phase = Phase.ROLL
        self.steps += 1

    def legal_actions(self) -> BoolArray:
        """(n, 9 + K): the legal actions of the seat to act, numbered as the encoding's."""
        out = np.zeros((self.n, ACTION_BIDS + self.kinds), dtype=np.bool_)
        if self.phase is Phase.BID:
            out[:, :self.round_no + 1] = True
        elif self.phase is Phase.PLAY:
            out[:, ACTION_BIDS:] = self.legal_kinds()
        return out

    def act(self, actions: npt.ArrayLike) -> None:
        """A decision by number in every game: bids while bidding, dice while playing."""
        action = whole_numbers(actions, "actions")
        if self.phase is Phase.BID:
            self.bid(action)
        elif self.phase is Phase.PLAY:
            if action.shape == (self.n,) and (action < ACTION_BIDS).any():
                bad = int(np.flatnonzero(action < ACTION_BIDS)[0])
                raise ValueError(f"game {bad}: action {int(action[bad])} is a bid, and the "
                                 f"games are choosing dice (actions {ACTION_BIDS} and up)")
            self.choose(action - ACTION_BIDS)
        else:
            raise ValueError(f"no decision now: the games are at {self.phase.name.lower()}")

    # -- what a seat sees -------------------------------------------------------------

    def observe(self, seats: int | npt.ArrayLike) -> npt.NDArray[np.float32]:
        """(n, size): each game's observation of seat ``seats`` (one seat for all games, or
        one per game, such as :attr:`current`), laid out exactly as
        :func:`minodice.envs.encoding.observation_vector` lays out the seat's view (a
        test holds the two equal at every step): from what that seat may know alone,
        never another seat's dice or a bid before all are in, whatever the arrays hold.
        """
        n, p, k = self.n, self.players, self.kinds
        rows = self._rows
        me = np.broadcast_to(whole_numbers(seats, "seats"), (n,))
        if ((me < 0) | (me >= p)).any():
            raise ValueError(f"a seat is 0 to {p - 1}")
        phase = self.phase
        in_round = phase is not Phase.OVER  # a finished game shows no round in play
        in_trick = phase in (Phase.PLAY, Phase.ROLL)
        out = np.zeros((n, vector_size(p, k)), dtype=np.float32)
        out[:, self.round_no - 1] = 1.0
        out[:, MAX_ROUNDS + int(phase)] = 1.0
        at = MAX_ROUNDS + PHASES
        own = self.hands[rows, me]
        out[:, at:at + k] = own
        # not seen: the set less its own dice and the dice rolled (drawn, no longer held)
        rolled = (self._counts - self.bag - self.hands.sum(axis=1)) if in_round else 0
        out[:, at + k:at + 2 * k] = self._counts - own - rolled
        at += 2 * k
        all_in = (self.bids >= 0).all(axis=1)  # the round's bids are all in: all are seen
        acting = phase in (Phase.BID, Phase.PLAY)
        for j in range(p):
            seat = (me + j) % p
            bid = self.bids[rows, seat]
            seen = (bid >= 0) & (all_in | (j == 0))
            block = out[:, at:at + SEAT_FEATURES]
            block[:, 0] = self.hands[rows, seat].sum(axis=1)
            block[:, 1] = bid >= 0
            block[:, 2] = np.where(seen, bid, 0)
            block[:, 3] = seen
            block[:, 4] = self.tricks_won[rows, seat]
            block[:, 5] = self.totals[rows, seat] / 100
            block[:, 6] = acting & (self.current == seat)
            block[:, 7] = in_trick & (self.leader == seat)
            block[:, 8] = self.starter == seat
            at += SEAT_FEATURES
        follow = self.follow if in_trick else np.full(n, -1, dtype=np.int64)
        out[rows, at + follow + 1] = 1.0
        at += k + 1
        block_size = k + ROLL_FEATURES
        if in_trick:
            for s in range(p):
                kind, code = self._trick_kind[:, s], self._trick_face[:, s]
                shown = kind >= 0
                g = rows[shown]
                base = at + ((s - me[shown]) % p) * block_size
                out[g, base] = 1.0
                out[g, base + 1 + kind[shown]] = 1.0
                c = code[shown]
                flag, symbol = c == FLAG, c >= SYMBOL_BASE
                number = ~flag & ~symbol
                out[g[flag], base[flag] + 1 + k] = 1.0
                out[g[number], base[number] + 2 + k] = c[number] / 10
                out[g[symbol], base[symbol] + 3 + k + c[symbol] - SYMBOL_BASE] = 1.0
        at += block_size * p
        if in_round:
            for s in range(p):
                base = at + ((s - me) % p) * k
                columns = base[:, None] + np.arange(k)
                out[rows[:, None], columns] = (self._voids[:, s, None] & self._bit) > 0
        return out

    # -- random play ----------------------------------------------------------------

    def random_step(self, rng: np.random.Generator) -> None:
        """One step of every game: chance by its probabilities, decisions uniformly among
        the legal ones (what the benchmark and the distribution test play)."""
        phase = self.phase
        if phase is Phase.DRAW:  # dice from the bag: no need to check them
            self._draw(self.sample_draw(rng))
        elif phase is Phase.ROLL:  # a face of the chosen die: no need to check it
            self._roll(self.sample_roll(rng))
        elif phase is Phase.BID:
            self.bid((rng.random(self.n) * (self.round_no + 1)).astype(np.int64))
        elif phase is Phase.PLAY:  # one of the legal kinds: no need to check it either
            legal = self.legal_bits()
            pick = (rng.random(self.n) * self._count[legal]).astype(np.int64)
            self._pending = self._nth[legal * self.kinds + pick]
            self.phase = Phase.ROLL
            self.steps += 1
        else:
            raise ValueError("the games are over")

    # -- tricks and rounds ----------------------------------------------------------

    def _finish_trick(self) -> None:
        rows = self._rows
        mask = self._mask
        role = self._winning_role[mask]
        has_symbol = mask > 0
        winner = np.where(has_symbol, self._last_sym[rows, role], self._best_seat)  # R10
        bonus = np.where(has_symbol & (role == 0),
                         MINOTAUR_BONUS_PER_GRIFFIN * self._griffins, 0)  # R14
        bonus += np.where(has_symbol & (role == 2) & (mask & 1 > 0), MERMAID_BONUS, 0)
        self._bonus[rows, winner] += bonus
        self.tricks_won[rows, winner] += 1
        self._tricks += 1
        if self._tricks < self.round_no:
            self._start_trick(winner)  # R7: the winner leads the next trick
        else:
            self._score_round()

    def _score_round(self) -> None:
        r = self.round_no
        bids, won = self.bids, self.tricks_won
        made = bids == won
        base = np.where(bids == 0, 10 * r, 20 * bids)  # R12, R13
        if self.variant is Variant.SIMPLIFIED:  # R15: no bonus, nothing lost
            points = np.where(made, base, 0)
        else:
            missed = np.where(bids == 0, -10 * r, -10 * np.abs(bids - won))
            points = np.where(made, base + self._bonus, missed)  # R14: bonus if made
        self.round_points = points
        self.totals = self.totals + points
        if r == self.rounds:
            self.phase = Phase.OVER
        else:
            self._start_round()

    def __repr__(self) -> str:
        return (f"<VectorGame {self.n} games of {self.players} players, round "
                f"{self.round_no}/{self.rounds}, {self.phase.name.lower()}>")

    def snapshot(self) -> dict[str, Any]:
        """Copies of the public and hidden arrays, for tests and tools."""
        return {"hands": self.hands.copy(), "bids": self.bids.copy(),
                "tricks_won": self.tricks_won.copy(), "totals": self.totals.copy()}
