"""How strong a die is: exact probabilities under a simple model, shared by the bots.

The model: every die rolled after ours is a random die from the full set showing a random
face (the follow rule and the players' choices are ignored). Under it we compute exactly

- ``p_win(table, kind, later)``: the chance that rolling ``kind`` now takes the trick and
  keeps it against ``later`` dice still to come, given the trick so far (symbols showing,
  the best number, whether the table is empty);
- ``power(kind)``: the chance that a die of ``kind`` wins a trick, averaged over the seats
  of an ``n``-player trick — the heuristic bid is the sum of a hand's powers.

These drive the ``easy`` bot and the fast play-out policy of the ``hard`` bot.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from minodice.core.dice import FLAG, KIND_BITS, KIND_MASK, SYMBOL_BASE, DiceSet
from minodice.core.rules import WINNING_ROLE, Variant, round_points

#: How much more (less) often than a random die a player who still needs tricks (who has
#: them, or bid none) takes a trick from a given hold, in :meth:`Strength.p_win_row_given`.
#: Chosen on the medium bot's play (300 duplicate deals, seed 11: 1.5/0.5 and 1.3/0.7 both
#: about +2.7 points a game against the whole set's odds, 2.0/0.3 +1.6, none significant).
NEEDING_FACTOR = 1.5
DUCKING_FACTOR = 0.5

# A "hold" is what the die currently winning the trick shows:
#   ("sym", mask, role) a symbol of ``role`` with ``mask`` the symbols showing,
#   ("num", best)       the best number, no symbol showing,
#   ("flag",)           only flags so far: the leader holds.
Hold = tuple[str, int, int]


def _take_over_from(hold: Hold, mix: dict[int, float]) -> float:
    """Chance that one later die, showing face ``code`` with chance ``mix[code]``, takes the
    trick from ``hold`` (R10)."""
    p = 0.0
    for code, q in mix.items():
        if code >= SYMBOL_BASE:
            role = code - SYMBOL_BASE
            if hold[0] != "sym" or WINNING_ROLE[hold[1] | (1 << role)] == role:
                p += q
        elif code > FLAG and hold[0] != "sym" and (hold[0] == "flag" or code >= hold[1]):
            p += q
    return p


class Strength:
    """Probability tables for one dice set (memoised; pure)."""

    def __init__(self, dice_set: DiceSet) -> None:
        self.dice_set = dice_set
        total = dice_set.size
        self.face_mix: dict[int, float] = {}
        for kind in dice_set.kinds:
            for face in kind.faces:
                self.face_mix[face.code] = (
                    self.face_mix.get(face.code, 0.0) + kind.count / total / 6)
        self._take: dict[Hold, float] = {}
        self._p_win: dict[int, float] = {}
        self._power: dict[int, tuple[float, ...]] = {}
        self._rows: dict[int, tuple[float, ...]] = {}
        #: The special kinds' bits of a hand key: which symbol dice a player has not seen
        #: is the part of the unseen dice that changes who can take a trick the most.
        self.special_mask = 0
        for kind in dice_set.kinds:
            if any(code >= SYMBOL_BASE for code in dice_set.face_codes[kind.index]):
                self.special_mask |= KIND_MASK << (KIND_BITS * kind.index)
        self._given_rows: dict[tuple[int, int, int], tuple[float, ...]] = {}
        self._unseen_take: dict[tuple[Hold, int], float] = {}
        self._unseen_mix: dict[int, dict[int, float]] = {}

    # -- the model ------------------------------------------------------------------------

    def take_over(self, hold: Hold) -> float:
        """Chance that one random later die takes the trick from ``hold``."""
        found = self._take.get(hold)
        if found is not None:
            return found
        p = self._take[hold] = _take_over_from(hold, self.face_mix)
        return p

    @staticmethod
    def hold_after(mask: int, best: int, empty: bool, code: int) -> Hold | None:
        """What we hold after showing ``code`` on the trick so far, or None if not winning."""
        if code >= SYMBOL_BASE:
            role = code - SYMBOL_BASE
            new_mask = mask | (1 << role)
            return ("sym", new_mask, role) if WINNING_ROLE[new_mask] == role else None
        if mask:
            return None
        if code > FLAG:
            return ("num", code, 0) if empty or code >= best else None
        return ("flag", 0, 0) if empty else None

    def p_win(self, mask: int, best: int, empty: bool, kind: int, later: int) -> float:
        """Chance that ``kind`` rolled now wins the trick (see the module docstring)."""
        key = ((((mask << 7) | best) << 1 | empty) << 4 | kind) << 3 | later
        found = self._p_win.get(key)
        if found is not None:
            return found
        p = 0.0
        for code in self.dice_set.face_codes[kind]:
            hold = self.hold_after(mask, best, empty, code)
            if hold is not None:
                p += (1.0 - self.take_over(hold)) ** later / 6
        self._p_win[key] = p
        return p

    def p_win_row(self, mask: int, best: int, empty: bool, later: int) -> tuple[float, ...]:
        """:meth:`p_win` for every kind at once (one lookup in play-outs)."""
        key = (((mask << 7) | best) << 1 | empty) << 3 | later
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = tuple(
                self.p_win(mask, best, empty, k, later) for k in range(len(self.dice_set.kinds)))
        return row

    # -- the model, knowing which symbol dice are still unseen ----------------------------

    def unseen_mix(self, specials: int) -> dict[int, float]:
        """The face mix of a random unseen die when the unseen special dice are
        ``specials`` (a hand key holding only special kinds) and the number dice are the
        whole set's (they are many, and each colour shares faces with the next: their
        depletion moves a trick's odds far less than a minotaur's absence)."""
        mix = self._unseen_mix.get(specials)
        if mix is not None:
            return mix
        counts = [(specials >> (KIND_BITS * k.index)) & KIND_MASK
                  if (self.special_mask >> (KIND_BITS * k.index)) & KIND_MASK else k.count
                  for k in self.dice_set.kinds]
        total = sum(counts)
        mix = {}
        for kind, count in zip(self.dice_set.kinds, counts, strict=True):
            for face in kind.faces:
                mix[face.code] = mix.get(face.code, 0.0) + count / total / 6
        self._unseen_mix[specials] = mix
        return mix

    def unseen_take_over(self, hold: Hold, specials: int) -> float:
        """:meth:`take_over` by a die drawn from :meth:`unseen_mix`."""
        key = (hold, specials)
        found = self._unseen_take.get(key)
        if found is not None:
            return found
        p = self._unseen_take[key] = _take_over_from(hold, self.unseen_mix(specials))
        return p

    def p_win_row_given(self, mask: int, best: int, empty: bool, later: int,
                        specials: int | None, needing: int | None) -> tuple[float, ...]:
        """:meth:`p_win_row` knowing more than the whole set's odds.

        ``specials`` (a hand key of special kinds only): the special dice the roller has
        not seen (neither in its hand nor rolled), the later dice drawn from those and the
        whole set's number dice (:meth:`unseen_mix`) — a griffin is safe once the minotaur
        is rolled or in one's own hand; ``None``: the whole set. ``needing``: bit ``i`` set
        if the ``i``-th player after the roller still needs tricks; one who does takes the
        trick from a hold ``NEEDING_FACTOR`` times as often as a random die would, one who
        has its tricks (or bid none) ``DUCKING_FACTOR`` times; ``None``: as a random die.
        """
        key = ((((mask << 7) | best) << 1 | empty) << 3 | later,
               -1 if specials is None else specials, -1 if needing is None else needing)
        row = self._given_rows.get(key)
        if row is not None:
            return row
        factors = [1.0 if needing is None else
                   NEEDING_FACTOR if needing >> i & 1 else DUCKING_FACTOR
                   for i in range(later)]
        values = []
        for kind in range(len(self.dice_set.kinds)):
            p = 0.0
            for code in self.dice_set.face_codes[kind]:
                hold = self.hold_after(mask, best, empty, code)
                if hold is not None:
                    t = (self.take_over(hold) if specials is None
                         else self.unseen_take_over(hold, specials))
                    keep = 1.0
                    for f in factors:
                        keep *= 1.0 - min(1.0, f * t)
                    p += keep / 6
            values.append(p)
        row = self._given_rows[key] = tuple(values)
        return row

    def power(self, players: int) -> tuple[float, ...]:
        """Per kind: the chance to win a trick of ``players`` dice, averaged over seats."""
        found = self._power.get(players)
        if found is not None:
            return found
        # Distribution of (mask, best, empty) before each seat, by exact dynamic programming.
        states: dict[tuple[int, int, bool], float] = {(0, 0, True): 1.0}
        totals = [0.0] * len(self.dice_set.kinds)
        for position in range(players):
            later = players - 1 - position
            for (mask, best, empty), weight in states.items():
                for kind in range(len(totals)):
                    totals[kind] += weight * self.p_win(mask, best, empty, kind, later)
            nxt: dict[tuple[int, int, bool], float] = {}
            for (mask, best, _), weight in states.items():
                for code, q in self.face_mix.items():
                    if code >= SYMBOL_BASE:
                        key = (mask | (1 << (code - SYMBOL_BASE)), best, False)
                    else:
                        key = (mask, max(best, code), False)
                    nxt[key] = nxt.get(key, 0.0) + weight * q
            states = nxt
        result = tuple(t / players for t in totals)
        self._power[players] = result
        return result

    def expected_tricks(self, counts: tuple[int, ...] | list[int], players: int) -> float:
        """The heuristic estimate of tricks a hand wins: the sum of its dice's powers."""
        power = self.power(players)
        return sum(c * power[k] for k, c in enumerate(counts))


@cache
def strength_of(dice_set: DiceSet) -> Strength:
    """The (shared, memoised) tables of ``dice_set``."""
    return Strength(dice_set)


def choose_kind(
    strength: Strength,
    kinds: Sequence[int],
    mask: int,
    best: int,
    empty: bool,
    later: int,
    need: int,
    power: tuple[float, ...],
) -> int:
    """The heuristic choice of a die: take the trick when tricks are needed, else duck.

    ``need`` is the bid minus the tricks won. With tricks to win it plays the die most
    likely to win, unless none is likely (then it keeps its strength and sheds its weakest
    die); with enough tricks it plays the die least likely to win, shedding the most
    dangerous (highest power) among equals.
    """
    if len(kinds) == 1:
        return kinds[0]
    row = strength.p_win_row(mask, best, empty, later)
    if need > 0:
        best_kind, best_p = kinds[0], -1.0
        for k in kinds:
            p = row[k] - 0.01 * power[k]
            if p > best_p:
                best_kind, best_p = k, p
        if best_p >= 0.25:
            return best_kind
        weakest, low = kinds[0], 2.0
        for k in kinds:
            if power[k] < low:
                weakest, low = k, power[k]
        return weakest
    chosen, low = kinds[0], 2.0
    for k in kinds:
        p = row[k] - 0.01 * power[k]
        if p < low:
            chosen, low = k, p
    return chosen


class ExpectedScorePolicy:
    """A stronger play heuristic: the die whose roll maximises the round's expected score.

    For each legal die it takes the chance ``p`` that the die wins this trick (as in
    :func:`choose_kind`) and, for the dice that stay behind the screen, the distribution
    of the tricks they win (independent dice, each winning with its power: a
    Poisson-binomial distribution), and scores every outcome as the game's variant does
    (:func:`~minodice.core.rules.round_points`, without the R14 bonus). It knows what a
    miss costs, so it ducks, takes or sheds a die as the bid requires.

    Its caches are keyed by the dice a player holds, so each bot keeps its own instance
    (never shared through a module, where another bot could read them).
    """

    def __init__(self, strength: Strength, players: int,
                 variant: Variant = Variant.STANDARD) -> None:
        self.strength = strength
        self.variant = variant
        self.power = strength.power(players)
        self.nkinds = len(strength.dice_set.kinds)
        self._dist: dict[int, tuple[float, ...]] = {}
        self._points: dict[tuple[int, int], tuple[int, ...]] = {}

    def rest_distribution(self, hand_key: int) -> tuple[float, ...]:
        """P(the dice of ``hand_key`` win 0, 1, 2, ... tricks) under the independent model."""
        found = self._dist.get(hand_key)
        if found is not None:
            return found
        dist = [1.0]
        key = hand_key
        for kind in range(self.nkinds):
            count = key & 15
            key >>= 4
            p = self.power[kind]
            for _ in range(count):
                nxt = [0.0] * (len(dist) + 1)
                for k, v in enumerate(dist):
                    nxt[k] += v * (1 - p)
                    nxt[k + 1] += v * p
                dist = nxt
        result = tuple(dist)
        self._dist[hand_key] = result
        return result

    def points(self, bid: int, round_no: int) -> tuple[int, ...]:
        """The round's points (no bonus) for every number of tricks won, 0..round."""
        key = (bid, round_no)
        found = self._points.get(key)
        if found is None:
            found = self._points[key] = tuple(
                round_points(bid, won, round_no, 0, self.variant)[0]
                for won in range(round_no + 1))
        return found

    def kind_value(self, k: int, hand_key: int, p: float, pts: tuple[int, ...],
                   won: int) -> float:
        """The expected round score of rolling ``k`` (taking the trick with chance ``p``)
        from ``hand_key``, ``won`` tricks in, with ``pts`` the points of each final count."""
        top = len(pts) - 1
        dist = self.rest_distribution(hand_key - (1 << (4 * k)))
        value = 0.0
        for extra, q in enumerate(dist):
            lose = won + extra
            win = lose + 1
            value += q * (p * pts[win if win <= top else top] + (1 - p) * pts[
                lose if lose <= top else top])
        return value

    def choose(self, kinds: Sequence[int], hand_key: int, row: tuple[float, ...],
               bid: int, won: int, round_no: int) -> int:
        """The legal kind with the best expected round score (ties: keep power if needed)."""
        if len(kinds) == 1:
            return kinds[0]
        pts = self.points(bid, round_no)
        need = bid - won
        best_kind, best_value = kinds[0], -1e9
        for k in kinds:
            value = self.kind_value(k, hand_key, row[k], pts, won)
            # Among equals: shed power once the bid is made, keep it while tricks are needed.
            value += 0.01 * self.power[k] * (1 if need <= 0 else -1)
            if value > best_value:
                best_kind, best_value = k, value
        return best_kind


class PolicyCache:
    """One :class:`ExpectedScorePolicy` per (dice set, player count, variant), owned by one
    bot."""

    def __init__(self) -> None:
        self._policies: dict[tuple[DiceSet, int, Variant], ExpectedScorePolicy] = {}

    def get(self, dice_set: DiceSet, players: int,
            variant: Variant = Variant.STANDARD) -> ExpectedScorePolicy:
        key = (dice_set, players, variant)
        policy = self._policies.get(key)
        if policy is None:
            policy = self._policies[key] = self.make(dice_set, players, variant)
        return policy

    def make(self, dice_set: DiceSet, players: int, variant: Variant) -> ExpectedScorePolicy:
        """A new policy for that table (a subclass's cache makes another kind)."""
        return ExpectedScorePolicy(strength_of(dice_set), players, variant)
