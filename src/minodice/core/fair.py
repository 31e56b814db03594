"""Provably fair dice, ``minodice-fair-1`` (PROTOCOL.md): the stream, deals, rolls, checks.

A server commits to ``sha256(server_seed)`` before anyone joins; the players add seeds of
their own; every deal and every roll of the game is then read from one HMAC-SHA256 stream
keyed by both, in the order the game needs them. After the game the server reveals its
seed and anyone can recompute every hand and every face — which :func:`verify_record`
does. Everything here is pure: no I/O, no clock, no randomness of its own (the server's
seed comes from the caller, who draws it from the operating system).

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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from minodice.core.dice import DiceSet, Face, Hand

SCHEME = "minodice-fair-1"
_WORD = 8
_LIMIT = 2**64


def commitment(server_seed: bytes) -> str:
    """The published commitment: ``sha256(server_seed)`` in hex."""
    return hashlib.sha256(server_seed).hexdigest()


def game_key(server_seed: bytes, client_seeds: Sequence[str]) -> bytes:
    """``sha256(server_seed + b"|" + "|".join(client_seeds).encode())`` (step 3)."""
    return hashlib.sha256(server_seed + b"|" + "|".join(client_seeds).encode()).digest()


class FairStream:
    """The blocks ``HMAC-SHA256(key, "minodice-fair-1:i")`` read as 64-bit big-endian words.

    ``position`` is the number of words taken so far, so a stream can be stopped and
    picked up again at the same place.
    """

    __slots__ = ("_block", "_key", "position")

    def __init__(self, key: bytes, position: int = 0) -> None:
        self._key = key
        self.position = position
        self._block: tuple[int, bytes] = (-1, b"")

    @property
    def key(self) -> bytes:
        return self._key

    def _word(self) -> int:
        index, offset = divmod(self.position * _WORD, 32)
        if self._block[0] != index:
            digest = hmac.new(self._key, f"{SCHEME}:{index}".encode(), hashlib.sha256).digest()
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
    """The record's ``"fairness"`` key, read and checked for shape."""

    commit: str
    server_seed: bytes
    client_seeds: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"scheme": SCHEME, "commit": self.commit, "server_seed": self.server_seed.hex(),
                "client_seeds": list(self.client_seeds)}

    @classmethod
    def from_json(cls, data: Any, players: int) -> Fairness:
        """``ValueError`` with a sentence for a key that is missing or malformed."""
        if not isinstance(data, dict):
            raise ValueError('the record has no "fairness" object, so its dice cannot be checked')
        if data.get("scheme") != SCHEME:
            raise ValueError(f'unknown fairness scheme {str(data.get("scheme"))[:40]!r}; '
                             f'this program checks "{SCHEME}"')
        commit, seed, seeds = data.get("commit"), data.get("server_seed"), data.get(
            "client_seeds")
        if not isinstance(commit, str) or not _is_hex(commit, 64):
            raise ValueError('"commit" must be 64 hex digits')
        if not isinstance(seed, str) or not _is_hex(seed, 64):
            raise ValueError('"server_seed" must be 64 hex digits (32 bytes)')
        if (not isinstance(seeds, list) or len(seeds) != players
                or not all(isinstance(s, str) for s in seeds)):
            raise ValueError(f'"client_seeds" must be a list of {players} strings, one per seat')
        return cls(commit.lower(), bytes.fromhex(seed), tuple(seeds))


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and all(c in "0123456789abcdefABCDEF" for c in text)


class FairnessError(ValueError):
    """A record whose dice do not follow from its revealed seeds; the message says where."""


def verify_record(record: dict[str, Any]) -> int:
    """Check every hand and face of a (valid) record against its ``fairness`` key.

    Returns the number of dice rolls checked; raises :class:`FairnessError` at the first
    mismatch, naming its place as the record errors do (round, trick, roll from 1).
    """
    from minodice.core.dice import load_dice_set

    players = record["players"]
    dice_set = load_dice_set(record.get("dice_set", "mino"))
    try:
        fair = Fairness.from_json(record.get("fairness"), len(players))
    except ValueError as exc:
        raise FairnessError(str(exc)) from None
    if commitment(fair.server_seed) != fair.commit:
        raise FairnessError("the server seed does not match the commitment "
                            "(sha256(server_seed) != commit)")
    stream = FairStream(game_key(fair.server_seed, fair.client_seeds))
    checked = 0
    for r, rnd in enumerate(record["rounds"], start=1):
        dealt = deal(stream, dice_set, len(players), r)
        for seat, (hand, want) in enumerate(zip(rnd["hands"], dealt, strict=True)):
            if Counter(hand) != Counter(want.names()):
                raise FairnessError(
                    f"round {r}: {players[seat]}'s hand {','.join(sorted(hand))} does not "
                    f"follow from the seeds (they deal {want})")
        for t, trick in enumerate(rnd.get("tricks", []), start=1):
            for q, entry in enumerate(trick, start=1):
                face = roll(stream, dice_set, entry["die"])
                if str(entry["face"]) != face.name:
                    raise FairnessError(
                        f"round {r}, trick {t}, roll {q}: {players[entry['player']]}'s "
                        f"{entry['die']} die shows {entry['face']}, but the seeds roll "
                        f"{face.name}")
                checked += 1
    return checked
