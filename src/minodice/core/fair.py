"""Provably fair dice (PROTOCOL.md): the stream, deals, rolls, and the whole record's check.

A server commits to ``sha256(server_seed)`` before anyone joins; the players add seeds of
their own; every deal and every roll of the game is then read from one HMAC-SHA256 stream
keyed by both, in the order the game needs them. After the game the server reveals its
seed and anyone can recompute every hand and every face — which :func:`verify_record`
does. Everything here is pure: no I/O, no clock, no randomness of its own (the server's
seed comes from the caller, who draws it from the operating system).

Two schemes are read. ``minodice-fair-1``: the key is ``sha256(server_seed | seeds)``; a
client sends its seed when it joins, so whoever joins last and learns the others' seeds
from a colluding server can try seeds until the dice suit them. ``minodice-fair-2`` (new
tables): every seat *commits* to its seed with a hash first and reveals it only once every
seat has committed, so no seed can be chosen after another is known; the key also binds the
scheme, the table, the dice set, the variant and the names, so one table's record cannot
pass for another's, and the start player follows from the server seed alone.

>>> server_seed = bytes(32)
>>> commitment(server_seed)[:16]
'66687aadf862bd77'
>>> stream = FairStream(game_key(server_seed, ["", "a1"]))
>>> [stream.draw(6) for _ in range(5)]
[5, 2, 0, 2, 0]
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from minodice.core.dice import DiceSet, Face, Hand
from minodice.core.names import control

SCHEME_1 = "minodice-fair-1"
SCHEME_2 = "minodice-fair-2"
SCHEMES = (SCHEME_1, SCHEME_2)
SCHEME = SCHEME_2          # what new tables use
SEED_MAX = 64              # characters of a client seed
NAME_MAX = 32              # characters of a name in a record from a server (24 + " 6")
_WORD = 8
_LIMIT = 2**64


def commitment(server_seed: bytes) -> str:
    """The published commitment: ``sha256(server_seed)`` in hex."""
    return hashlib.sha256(server_seed).hexdigest()


def seed_hash(client_seed: str) -> str:
    """A client's commitment to its seed (fair-2): ``sha256(utf-8 of the seed)`` in hex."""
    return hashlib.sha256(client_seed.encode()).hexdigest()


def game_key(server_seed: bytes, client_seeds: Sequence[str]) -> bytes:
    """fair-1: ``sha256(server_seed + b"|" + "|".join(client_seeds).encode())`` (step 3)."""
    return hashlib.sha256(server_seed + b"|" + "|".join(client_seeds).encode()).digest()


@dataclass(frozen=True)
class Binding:
    """What a fair-2 key binds besides the seeds: which game these dice belong to."""

    table: str
    dice_set: str
    variant: str
    players: tuple[str, ...]


def binding_text(binding: Binding, client_seeds: Sequence[str]) -> bytes:
    """The message a fair-2 key is the HMAC of: a JSON array without spaces (what a
    browser's ``JSON.stringify`` writes for the same strings)."""
    items = [SCHEME_2, binding.table, binding.dice_set, binding.variant,
             list(binding.players), list(client_seeds)]
    return json.dumps(items, ensure_ascii=False, separators=(",", ":")).encode()


def game_key_2(server_seed: bytes, client_seeds: Sequence[str], binding: Binding) -> bytes:
    """fair-2: ``HMAC-SHA256(server_seed, binding_text)``: the scheme, the table, the set,
    the variant, the names and the seeds all change every die."""
    return hmac.new(server_seed, binding_text(binding, client_seeds), hashlib.sha256).digest()


def _derived(server_seed: bytes, label: str) -> bytes:
    return hmac.new(server_seed, f"{SCHEME_2}:{label}".encode(), hashlib.sha256).digest()


def first_starter(server_seed: bytes, players: int) -> int:
    """fair-2's start player of round 1: fixed by the committed seed, so the server cannot
    pick it once it knows the seeds."""
    return FairStream(_derived(server_seed, "first-starter"), SCHEME_2).draw(players)


def replacement_seed(server_seed: bytes, seat: int) -> str:
    """fair-2: the seed of a seat whose person did not reveal theirs in time. Fixed by the
    committed seed, so the server cannot choose it after seeing the others' seeds."""
    return _derived(server_seed, f"replace:{seat}").hex()[:32]


class FairStream:
    """The blocks ``HMAC-SHA256(key, "SCHEME:i")`` read as 64-bit big-endian words.

    ``position`` is the number of words taken so far, so a stream can be stopped and
    picked up again at the same place.
    """

    __slots__ = ("_block", "_key", "_label", "position")

    def __init__(self, key: bytes, scheme: str = SCHEME_1, position: int = 0) -> None:
        self._key = key
        self._label = scheme
        self.position = position
        self._block: tuple[int, bytes] = (-1, b"")

    @property
    def key(self) -> bytes:
        return self._key

    def _word(self) -> int:
        index, offset = divmod(self.position * _WORD, 32)
        if self._block[0] != index:
            digest = hmac.new(self._key, f"{self._label}:{index}".encode(),
                              hashlib.sha256).digest()
            self._block = (index, digest)
        self.position += 1
        return int.from_bytes(self._block[1][offset:offset + _WORD], "big")

    def draw(self, m: int) -> int:
        """A uniform integer in ``0..m-1``, by rejection (step 4)."""
        if m < 1:
            raise ValueError("draw(m) needs m >= 1")
        bound = (_LIMIT // m) * m
        while True:
            x = self._word()
            if x < bound:
                return x % m


def bag_order(dice_set: DiceSet) -> list[str]:
    """The bag before shuffling: the kinds in the set's order, each repeated by its count."""
    return [kind.name for kind in dice_set.kinds for _ in range(kind.count)]


def deal(stream: FairStream, dice_set: DiceSet, players: int, round_no: int) -> list[Hand]:
    """Round ``round_no``'s hands: Fisher–Yates over the whole bag, ``r`` dice per seat."""
    bag = bag_order(dice_set)
    for i in range(len(bag) - 1, 0, -1):
        j = stream.draw(i + 1)
        bag[i], bag[j] = bag[j], bag[i]
    return [Hand.from_kinds(dice_set, bag[p * round_no:(p + 1) * round_no])
            for p in range(players)]


def roll(stream: FairStream, dice_set: DiceSet, kind: str) -> Face:
    """The face a die of ``kind`` shows: ``faces[draw(6)]`` in the set's face order."""
    return dice_set.kind(kind).faces[stream.draw(6)]


@dataclass(frozen=True)
class Fairness:
    """The record's ``"fairness"`` key, read and checked for shape.

    fair-2 adds ``table`` (bound into the key), ``seed_hashes`` (every seat's commitment,
    published before any seed was revealed) and ``replaced`` (the seats that did not reveal
    in time and got :func:`replacement_seed`).
    """

    commit: str
    server_seed: bytes
    client_seeds: tuple[str, ...]
    scheme: str = SCHEME_1
    table: str = ""
    seed_hashes: tuple[str, ...] = ()
    replaced: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scheme": self.scheme, "commit": self.commit,
                               "server_seed": self.server_seed.hex(),
                               "client_seeds": list(self.client_seeds)}
        if self.scheme == SCHEME_2:
            out.update(table=self.table, client_seed_hashes=list(self.seed_hashes),
                       replaced=list(self.replaced))
        return out

    def key(self, binding: Binding) -> bytes:
        if self.scheme == SCHEME_1:
            return game_key(self.server_seed, self.client_seeds)
        return game_key_2(self.server_seed, self.client_seeds, binding)

    @classmethod
    def from_json(cls, data: Any, players: int) -> Fairness:
        """``ValueError`` with a sentence for a key that is missing or malformed."""
        if not isinstance(data, dict):
            raise ValueError('the record has no "fairness" object, so its dice cannot be checked')
        scheme = data.get("scheme")
        if scheme not in SCHEMES:
            raise ValueError(f'unknown fairness scheme {str(scheme)[:40]!r}; '
                             f'this program checks {" and ".join(SCHEMES)}')
        commit, seed, seeds = data.get("commit"), data.get("server_seed"), data.get(
            "client_seeds")
        if not isinstance(commit, str) or not _is_hex(commit, 64):
            raise ValueError('"commit" must be 64 hex digits')
        if not isinstance(seed, str) or not _is_hex(seed, 64):
            raise ValueError('"server_seed" must be 64 hex digits (32 bytes)')
        if (not isinstance(seeds, list) or len(seeds) != players
                or not all(isinstance(s, str) and len(s) <= SEED_MAX and _utf8(s)
                           for s in seeds)):
            raise ValueError(f'"client_seeds" must be a list of {players} strings of at most '
                             f"{SEED_MAX} characters, one per seat")
        fair = cls(commit.lower(), bytes.fromhex(seed), tuple(seeds), str(scheme))
        if scheme == SCHEME_1:
            return fair
        table, hashes, replaced = (data.get("table"), data.get("client_seed_hashes"),
                                   data.get("replaced"))
        if not isinstance(table, str) or not 1 <= len(table) <= 32 or not table.isalnum():
            raise ValueError('"table" must be the table\'s ID (1 to 32 letters and digits)')
        if (not isinstance(hashes, list) or len(hashes) != players
                or not all(isinstance(h, str) and _is_hex(h, 64) for h in hashes)):
            raise ValueError(f'"client_seed_hashes" must be a list of {players} hashes '
                             "(64 hex digits), one per seat")
        if (not isinstance(replaced, list) or len(set(map(str, replaced))) != len(replaced)
                or not all(type(s) is int and 0 <= s < players for s in replaced)):
            raise ValueError('"replaced" must be a list of distinct seat indices')
        return cls(fair.commit, fair.server_seed, fair.client_seeds, SCHEME_2, table,
                   tuple(h.lower() for h in hashes), tuple(sorted(replaced)))


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and all(c in "0123456789abcdefABCDEF" for c in text)


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no text, and no hash of it
        return False
    return True


class FairnessError(ValueError):
    """A record whose dice do not follow from its revealed seeds, or whose play does not
    follow the rules and its own scores; the message says where."""


class DiceMismatchError(FairnessError):
    """A hand or a face that the seeds do not give, at ``place``: (round, trick, roll),
    trick and roll 0 for a hand."""

    def __init__(self, message: str, place: tuple[int, int, int]) -> None:
        super().__init__(message)
        self.place = place


class UnfinishedRecordError(FairnessError):
    """A record whose dice so far follow from its seeds, but that stops before the game's
    end: a cut record proves nothing about the dice it leaves out (our server reveals its
    seed only at a game's end), so it is not vouched for, though nothing in it is wrong."""


@dataclass(frozen=True)
class Verified:
    """What :func:`verify_record` checked: deals, rolls, the final totals, the winners."""

    scheme: str
    deals: int
    rolls: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]


def check_names(players: Any) -> list[str]:
    """A server game's names: what a server can seat, nothing a terminal would misshow."""
    if not isinstance(players, list) or not 3 <= len(players) <= 6:
        raise FairnessError('"players" must be a list of 3 to 6 names')
    for i, name in enumerate(players, start=1):
        if not isinstance(name, str) or not 1 <= len(name) <= NAME_MAX:
            raise FairnessError(f"player {i}'s name must be 1 to {NAME_MAX} characters "
                                "(a server seats no other)")
        if not _utf8(name) or any(map(control, name)):  # as a server seats them
            raise FairnessError(f"player {i}'s name holds control characters or no text")
    return list(players)


def verify_record(record: Any) -> Verified:
    """Check a server game's whole record: its rules, its completeness, its scores, and
    every hand and face against its ``fairness`` key.

    The record is replayed through the engine (:func:`~minodice.core.record.load_record`:
    every rule, every die rolled held by its player), must be a finished game, and its
    ``totals`` (what the server scored; required by fair-2) must be those the rules give.
    Raises :class:`FairnessError` at the first problem, naming its place as the record
    errors do (round, trick, roll from 1).
    """
    from minodice.core.errors import InvalidRecordError
    from minodice.core.record import load_record

    if not isinstance(record, dict):
        raise FairnessError("a record is a JSON object")
    players = check_names(record.get("players"))
    try:
        loaded = load_record(record)
    except InvalidRecordError as exc:
        # A face changed can break the rules only later (the trick goes to another player,
        # who then leads out of turn): name the face that the seeds do not roll, if any.
        broken = (exc.round or 0, exc.trick or 0, exc.roll or 0)
        try:
            _check_dice(record, players)
        except DiceMismatchError as changed:
            if changed.place < broken:
                raise changed from None
        except (KeyError, TypeError, ValueError, IndexError):
            pass  # too broken to read its dice, or wrong elsewhere: the rules say where
        raise FairnessError(f"against the rules: {exc}") from None
    state = loaded.state
    scheme, checked = _check_dice(record, players)
    if not state.is_terminal():
        raise UnfinishedRecordError(
            f"the {len(record['rounds'])} deals and {checked} rolls it has follow from the "
            f"revealed seeds, but the game is not finished ({len(record['rounds'])} rounds of "
            f"{state.config.rounds}, the last one whole or not): a cut record proves nothing "
            "about the dice it leaves out")
    totals = tuple(state.rounds[-1].totals or ())
    # Last: a face changed is told as that face, though it changes the scores too.
    claimed = record.get("totals")
    if claimed is None and scheme == SCHEME_2:
        raise FairnessError('a minodice-fair-2 record states its "totals"; this one does not')
    if claimed is not None and claimed != list(totals):
        raise FairnessError(f"the record's totals {_shown_totals(claimed)} are not what its bids "
                            f"and tricks score ({list(totals)})")
    return Verified(scheme, len(record["rounds"]), checked, totals,
                    tuple(state.winners()))


def _check_dice(record: dict[str, Any], players: list[str]) -> tuple[str, int]:
    """The commitment, the seeds, the first start player and every deal and roll of
    ``record`` against its revealed seeds; returns the scheme and the rolls checked. Raises
    :class:`FairnessError` at the first that does not follow."""
    from minodice.core.dice import load_dice_set

    try:
        fair = Fairness.from_json(record.get("fairness"), len(players))
    except ValueError as exc:
        raise FairnessError(str(exc)) from None
    if commitment(fair.server_seed) != fair.commit:
        raise FairnessError("the server seed does not match the commitment "
                            "(sha256(server_seed) != commit)")
    dice_set = load_dice_set(record.get("dice_set", "mino"))
    binding = Binding(fair.table, dice_set.name, str(record.get("variant", "standard")),
                      tuple(players))
    if fair.scheme == SCHEME_2:
        _check_seeds(fair, players)
        want = first_starter(fair.server_seed, len(players))
        if record.get("first_starter", 0) != want:
            raise FairnessError(f"the first start player is {players[want]} by the server "
                                "seed, not the record's")
    stream = FairStream(fair.key(binding), fair.scheme)
    checked = 0
    for r, rnd in enumerate(record["rounds"], start=1):
        dealt = deal(stream, dice_set, len(players), r)
        for seat, (hand, want_hand) in enumerate(zip(rnd["hands"], dealt, strict=True)):
            if Counter(hand) != Counter(want_hand.names()):
                raise DiceMismatchError(
                    f"round {r}: {players[seat]}'s hand {','.join(sorted(hand))} does not "
                    f"follow from the seeds (they deal {want_hand})", (r, 0, 0))
        for t, trick in enumerate(rnd.get("tricks", []), start=1):
            for q, entry in enumerate(trick, start=1):
                face = roll(stream, dice_set, entry["die"])
                if str(entry["face"]) != face.name:
                    raise DiceMismatchError(
                        f"round {r}, trick {t}, roll {q}: {players[entry['player']]}'s "
                        f"{entry['die']} die shows {entry['face']}, but the seeds roll "
                        f"{face.name}", (r, t, q))
                checked += 1
    return fair.scheme, checked


def _shown_totals(claimed: Any) -> str:
    """A record's claimed totals for a message: a list shown whole (its brackets too),
    a huge number by its length."""
    if isinstance(claimed, list) and all(isinstance(t, int) for t in claimed[:8]):
        items = [str(t) if len(str(t)) <= 12 else f"a number of {len(str(t))} digits"
                 for t in claimed[:8]]
        return "[" + ", ".join(items) + (", …" if len(claimed) > 8 else "") + "]"
    return json.dumps(claimed)[:60]


def _check_seeds(fair: Fairness, players: list[str]) -> None:
    for seat, (seed, committed) in enumerate(zip(fair.client_seeds, fair.seed_hashes,
                                                 strict=True)):
        if seat in fair.replaced:
            if seed != replacement_seed(fair.server_seed, seat):
                raise FairnessError(f"{players[seat]}'s seed was replaced, but not by the one "
                                    "the server seed fixes")
        elif seed_hash(seed) != committed:
            raise FairnessError(f"{players[seat]}'s revealed seed does not match the hash "
                                "committed before any seed was revealed")
