"""Game records (``minodice-record`` version 1, RECORD.md): export, load with checks, summary.

A record is a game's parameters plus its events (STYLE 6). Loading *replays* the record
through the engine, so every rule the engine enforces is checked in reading order, and the
first breach is reported with its place (round, trick, roll, counted from 1) and rule id.

>>> import random
>>> from minodice.core.state import GameState, CHANCE
>>> state = GameState.new(players=3)
>>> rng = random.Random(3)
>>> for _ in range(12):
...     if state.current_player == CHANCE:
...         state.apply_chance(state.sample_chance(rng))
...     else:
...         state.apply(state.legal_actions()[0])
>>> record = export_record(state, ["Ana", "Ben", "Cleo"])
>>> loaded = load_record(record)
>>> export_record(loaded.state, loaded.players) == record
True
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from minodice.core.actions import Bid, Roll
from minodice.core.dice import BUILTIN_DICE_SETS, Hand, load_dice_set
from minodice.core.errors import IllegalActionError, InvalidRecordError
from minodice.core.jsontext import loads_strict
from minodice.core.roundlog import RoundLog
from minodice.core.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    RuleOptions,
    Variant,
    rounds_for,
    starter_of_round,
)
from minodice.core.state import GameConfig, GameState, Phase

FORMAT = "minodice-record"
VERSION = 1
_ROUND_KEYS = frozenset({"hands", "bids", "tricks"})
_ROLL_KEYS = frozenset({"player", "die", "face"})
#: Where a record's other keys were: ``(round,)`` or ``(round, trick, roll)``, from 1.
RecordNotes = dict[tuple[int, ...], dict[str, Any]]
_KNOWN_KEYS = ("format", "version", "dice_set", "variant", "players", "first_starter",
               "rule_options", "rounds")
#: This project's one key beyond RECORD.md's (docs/RECORD.md): the rules RULES.md keeps
#: configurable (R5, R9), written only when a game plays them otherwise than by default,
#: so that every record of a default game is exactly RECORD.md's.
RULE_OPTIONS_KEY = "rule_options"


@dataclass
class LoadedRecord:
    """A record read back: the engine state to continue from, the names, unknown keys."""

    state: GameState
    players: list[str]
    extra: dict[str, Any] = field(default_factory=dict)
    #: The unknown keys of its rounds (place ``(round,)``) and rolls (``(round, trick,
    #: roll)``), counted from 1: RECORD.md lets a program keep its notes there, and a game
    #: resumed and saved again gives them back where they were (:func:`export_record`).
    notes: RecordNotes = field(default_factory=dict)


# -- export -------------------------------------------------------------------------------


def _round_to_json(state: GameState, log: RoundLog, r: int,
                   notes: RecordNotes) -> dict[str, Any]:
    ds = state.dice_set
    out: dict[str, Any] = {**notes.get((r,), {}),
                           "hands": [ds.hand_of_key(k).names() for k in log.hands]}
    if log.bids is not None:
        out["bids"] = list(log.bids)
        out["tricks"] = [
            [
                {**notes.get((r, t, q), {}), "player": seat, "die": ds.kinds[kind].name,
                 "face": ds.face_of_code(code).record_value}
                for q, (seat, kind, code) in enumerate(trick, 1)
            ]
            for t, trick in enumerate(log.tricks, 1)
            if trick
        ]
    return out


def export_record(
    state: GameState, players: Sequence[str], extra: dict[str, Any] | None = None,
    notes: RecordNotes | None = None,
) -> dict[str, Any]:
    """The record of ``state`` as a JSON-ready dict, with the other keys ``extra`` at the
    top and ``notes`` in its rounds and rolls (:attr:`LoadedRecord.notes`).

    A round still being drawn is left out (its draws are chance, not decisions), as are
    bids not yet all in (they are secret, R6) and a die chosen but not yet rolled.
    """
    if len(players) != state.n:
        raise ValueError(f"{state.n} names needed, got {len(players)}")
    if state.is_partial:
        raise ValueError("a state made for analysis of one round has no record")
    record: dict[str, Any] = dict(extra or {})
    record.update({
        "format": FORMAT,
        "version": VERSION,
        "dice_set": state.dice_set.name,
        "variant": state.variant.value,
        "players": list(players),
        "first_starter": state.config.first_starter,
    })
    if not state.config.options.is_default:
        record[RULE_OPTIONS_KEY] = state.config.options.as_json()
    logs = state.rounds
    if state.phase is Phase.DRAW:
        logs = logs[:-1]
    record["rounds"] = [_round_to_json(state, log, r, notes or {})
                        for r, log in enumerate(logs, 1)]
    return record


def dumps_record(record: dict[str, Any]) -> str:
    """A record as text: one roll per line, so that records diff well and read well."""
    lines = ["{"]
    items = list(record.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key != "rounds" or not value:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
            continue
        lines.append('  "rounds": [')
        for j, rnd in enumerate(value):
            lines.append("    {")
            parts = []
            for k, v in rnd.items():
                if k == "tricks":
                    tricks = [
                        "        [\n" + ",\n".join(
                            "          " + json.dumps(roll, ensure_ascii=False) for roll in t
                        ) + "\n        ]"
                        for t in v
                    ]
                    body = ",\n".join(tricks)
                    parts.append('      "tricks": [\n' + body + "\n      ]" if v else
                                 '      "tricks": []')
                else:
                    parts.append(f"      {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}")
            lines.append(",\n".join(parts))
            lines.append("    }" + ("," if j < len(value) - 1 else ""))
        lines.append("  ]" + comma)
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- load ---------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _needs(key: str, what: str, roll: dict[str, Any]) -> str:
    """A roll's key missing, or there with a value of the wrong kind (a face of ``5.0``
    was said to be missing)."""
    if key not in roll:
        return f'a roll needs "{key}", {what}'
    shown = json.dumps(roll[key], ensure_ascii=False)
    if len(shown) > 40:
        shown = shown[:39] + "…"
    return f'a roll\'s "{key}" is {what}, not {shown}'


def _type_error(message: str, round_no: int | None = None, trick: int | None = None,
                roll: int | None = None) -> InvalidRecordError:
    return InvalidRecordError(message, None, round_no, trick, roll)


def _with_rule(message: str, rule: str | None) -> str:
    if rule is None or f"({rule})" in message:
        return message
    return f"{message} ({rule})"


def parse_record(text: str) -> LoadedRecord:
    """Read a record from JSON text; every problem is an :class:`InvalidRecordError`."""
    return load_record(record_json(text))


class LongInt(int):
    """An integer of the record's text too long for Python to read (more than
    ``sys.get_int_max_str_digits()`` digits, 4300 by default): a stand-in of its sign,
    far outside every range a record allows, that shows as the digits written. So the
    record's check says where it is and what rule it breaks (a bid of 5000 digits is out
    of range, R6), as it does for a bid of 31 digits, instead of calling valid JSON "not
    JSON". Nothing is written back from it: :func:`load_record` refuses one kept in a key
    of its own, whose value a later save would change."""

    text: str

    def __new__(cls, text: str) -> LongInt:
        number = super().__new__(cls, -(10**30) if text.startswith("-") else 10**30)
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return self.text


def _read_int(text: str) -> int:
    """An integer of the record's text; :class:`LongInt` past what this interpreter reads
    (its limit, 0 for none, can be changed: ``PYTHONINTMAXSTRDIGITS``)."""
    limit = sys.get_int_max_str_digits()
    return int(text) if not limit or len(text.lstrip("-")) <= limit else LongInt(text)


def record_json(text: str) -> Any:
    """The JSON of a record's text, not yet checked as a record; a text that is no JSON is
    an :class:`InvalidRecordError` (the same words for every command that reads records)."""
    # A byte-order mark, as some Windows editors save UTF-8, is not part of the JSON
    # (RFC 8259 lets a reader ignore it).
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise _type_error("the record is empty")
    try:
        return loads_strict(text, parse_int=_read_int)
    except RecursionError:  # json's own nesting limit: a record is six levels deep
        raise _type_error("nested too deeply to be a record") from None
    except ValueError as exc:  # JSONDecodeError, NaN, a key twice
        raise _type_error(f"not JSON: {exc}") from None


def _unkeepable(value: Any) -> str | None:
    """What in a value of a key of its own a save could not write back as it was read: text
    that is no Unicode (a lone surrogate, which JSON's ``\\ud800`` can spell) or an
    integer too long to read (:class:`LongInt`); ``None`` if nothing."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, LongInt):
            return f"a number of {len(item.text.lstrip('-'))} digits"
        if isinstance(item, str):
            if not _is_text(item):
                return "text that is not Unicode (a lone surrogate)"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _is_text(value: str) -> bool:
    """Whether ``value`` is Unicode text (UTF-8 can write it): no lone surrogate."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _count(number: int, one: str, many: str) -> str:
    """``1 die``, ``2 dice``: a message about one thing reads as English."""
    return f"{number} {one if number == 1 else many}"


def _json_shown(value: Any) -> str:
    """A value of the record as JSON writes it (``null``, not Python's ``None``), so that
    the error quotes what the person sees in the file."""
    if isinstance(value, LongInt):  # json would write its stand-in
        return value.text
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def load_record(data: Any) -> LoadedRecord:
    """Check a record against RECORD.md and the rules, and rebuild its engine state."""
    if not isinstance(data, dict):
        raise _type_error("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise _type_error(f'"format" must be "{FORMAT}"')
    if not _is_int(data.get("version")) or data["version"] != VERSION:
        raise _type_error(f'"version" must be {VERSION}')
    set_name = data.get("dice_set", "mino")
    if not isinstance(set_name, str) or set_name not in BUILTIN_DICE_SETS:
        raise _type_error(f"unknown dice set {_json_shown(set_name)}; known: "
                          f"{', '.join(BUILTIN_DICE_SETS)}")
    variant = data.get("variant", "standard")
    if not isinstance(variant, str) or variant not in {v.value for v in Variant}:
        raise _type_error(f"unknown variant {_json_shown(variant)}; known: standard, simplified")
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise _type_error('"players" must be a list of names')
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidRecordError(
            f"{len(players)} players: Mino Dice is for 3 to 6 players (R1)", "R1")
    if any(not p for p in players) or len(set(players)) != len(players):
        raise InvalidRecordError("player names must be distinct and non-empty (R1)", "R1")
    if not all(_is_text(p) for p in players):
        raise _type_error("a player's name is not Unicode text (a lone surrogate)")
    first = data.get("first_starter", 0)
    if not _is_int(first):
        raise _type_error('"first_starter" must be an integer')
    if not 0 <= first < len(players):
        raise InvalidRecordError(f"first_starter {first} is not a player index (R5)", "R5")
    try:
        options = RuleOptions.from_json(data.get(RULE_OPTIONS_KEY, {}))
    except ValueError as exc:
        raise _type_error(f'"{RULE_OPTIONS_KEY}": {exc}') from None
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise _type_error('"rounds" must be a list')
    dice_set = load_dice_set(set_name)
    state = GameState(GameConfig(len(players), dice_set, Variant(variant), first, options))
    reader = _Reader(state, players)
    for index, rnd in enumerate(rounds):
        reader.read_round(index + 1, rnd, is_last=index == len(rounds) - 1)
    extra = {k: v for k, v in data.items() if k not in _KNOWN_KEYS}
    _check_keepable(extra)
    for place, kept in reader.notes.items():
        _check_keepable(kept, *place)
    return LoadedRecord(state, list(players), extra, reader.notes)


def _check_keepable(keys: dict[str, Any], *place: int) -> None:
    for key, value in keys.items():
        problem = _unkeepable(key) or _unkeepable(value)
        if problem is not None:
            raise _type_error(f"the key {_json_shown(key)} holds {problem}, which this "
                              "program cannot keep as it is", *place)


class _Reader:
    """Replays a record's rounds into a state, turning engine errors into record errors."""

    def __init__(self, state: GameState, players: list[str]) -> None:
        self.state = state
        self.players = players
        self.n = len(players)
        self.notes: RecordNotes = {}

    def keep_notes(self, part: dict[str, Any], known: frozenset[str], *place: int) -> None:
        kept = {k: v for k, v in part.items() if k not in known}
        if kept:
            self.notes[place] = kept

    def fail(self, exc: IllegalActionError, round_no: int, trick: int | None = None,
             roll: int | None = None, rule: str | None = None) -> InvalidRecordError:
        rule = rule or exc.rule
        return InvalidRecordError(_with_rule(exc.describe(self.players), rule), rule,
                                  round_no, trick, roll)

    def read_round(self, r: int, rnd: Any, is_last: bool) -> None:
        state = self.state
        n_rounds = rounds_for(self.n)
        if r > n_rounds:
            raise InvalidRecordError(
                f"the game has only {n_rounds} rounds with {self.n} players (R2)", "R2", r)
        if not isinstance(rnd, dict):
            raise _type_error("a round is a JSON object", r)
        self.keep_notes(rnd, _ROUND_KEYS, r)
        hands = rnd.get("hands")
        if not isinstance(hands, list):
            raise _type_error('a round needs "hands", a list of hands', r)
        if len(hands) != self.n:
            raise InvalidRecordError(
                f"{len(hands)} hands for {self.n} players: one hand per player (R4)", "R4", r)
        ds = state.dice_set
        for seat, hand in enumerate(hands):
            if not isinstance(hand, list) or not all(isinstance(k, str) for k in hand):
                raise _type_error(f"{self.players[seat]}'s hand must be a list of die kinds", r)
            unknown = [k for k in hand if not ds.has_kind(k)]
            if unknown:
                raise InvalidRecordError(
                    f"{self.players[seat]}'s hand has {unknown[0]!r}, not a die kind of the "
                    f"{ds.name} set (R4)", "R4", r)
            if len(hand) != r:
                raise InvalidRecordError(
                    f"{self.players[seat]} must draw {_count(r, 'die', 'dice')} in round {r}, "
                    f"not {len(hand)} (R4)",
                    "R4", r)
            try:
                state.apply_chance(Hand.from_kinds(ds, hand))
            except IllegalActionError as exc:
                raise self.fail(exc, r) from None
        if "bids" not in rnd:
            tricks = rnd.get("tricks", [])
            if not isinstance(tricks, list):
                raise _type_error('"tricks" must be a list of tricks', r)
            if tricks:
                raise InvalidRecordError(
                    "tricks without bids: every player bids before the first trick (R6)",
                    "R6", r)
            if not is_last:
                raise InvalidRecordError(
                    "no bids, yet the game goes on after this round (R6)", "R6", r)
            return
        bids = rnd["bids"]
        if not isinstance(bids, list) or not all(_is_int(b) for b in bids):
            raise _type_error('"bids" must be a list of integers', r)
        if len(bids) != self.n:
            raise InvalidRecordError(
                f"{len(bids)} bids for {self.n} players: one bid per player (R6)", "R6", r)
        for seat, bid in enumerate(bids):
            try:
                state.apply(Bid(bid), seat=seat)
            except IllegalActionError as exc:
                raise self.fail(exc, r) from None
        tricks = rnd.get("tricks", [])
        if not isinstance(tricks, list):
            raise _type_error('"tricks" must be a list of tricks', r)
        for t_index, trick in enumerate(tricks):
            self.read_trick(r, t_index + 1, trick, is_last and t_index == len(tricks) - 1)
        if not is_last and len(tricks) < r:
            raise InvalidRecordError(
                f"round {r} has {len(tricks)} of its {r} tricks, yet another round follows (R2)",
                "R2", r)

    def read_trick(self, r: int, t: int, trick: Any, is_last: bool) -> None:
        state = self.state
        if t > r:
            raise InvalidRecordError(f"round {r} has only {r} trick{'' if r == 1 else 's'} (R2)",
                                     "R2", r, t)
        if not isinstance(trick, list):
            raise _type_error("a trick is a list of rolls", r, t)
        ds = state.dice_set
        for q_index, roll in enumerate(trick):
            q = q_index + 1
            if q > self.n:
                raise InvalidRecordError(
                    f"a trick has one roll per player, {self.n} in all (R8)", "R8", r, t, q)
            if not isinstance(roll, dict):
                raise _type_error("a roll is a JSON object", r, t, q)
            self.keep_notes(roll, _ROLL_KEYS, r, t, q)
            player: Any = roll.get("player")
            die: Any = roll.get("die")
            face: Any = roll.get("face")
            if not _is_int(player):
                raise _type_error(_needs("player", "a player index", roll), r, t, q)
            if not isinstance(die, str):
                raise _type_error(_needs("die", "a die kind", roll), r, t, q)
            if not (_is_int(face) or isinstance(face, str)):
                raise _type_error(_needs("face", "a whole number or a name", roll), r, t, q)
            expected = state.current_player
            if player != expected:
                who = self.players[expected]
                named = (f"player {player}" if not 0 <= player < self.n
                         else self.players[player])
                if q == 1:
                    raise InvalidRecordError(
                        f"{who} leads this trick, not {named} (R7)", "R7", r, t, q)
                raise InvalidRecordError(
                    f"{who} rolls next, not {named} (R8)", "R8", r, t, q)
            if not ds.has_kind(die):
                raise InvalidRecordError(
                    f"{self.players[player]} holds no {die} die (R8)", "R8", r, t, q)
            try:
                state.apply(Roll(ds.kind(die)), seat=player)
            except IllegalActionError as exc:
                raise self.fail(exc, r, t, q) from None
            try:
                face_obj = ds.face(face)
                if isinstance(face, str) and not (face_obj.is_flag or face_obj.is_symbol):
                    raise ValueError(face)
                if face_obj.code not in ds.face_codes[ds.kind(die).index]:
                    raise ValueError(face)
            except ValueError:
                raise InvalidRecordError(
                    f"a {die} die has no face {_json_shown(face)} (R8)", "R8", r, t, q) from None
            state.apply_chance(face_obj)
        if len(trick) < self.n and not is_last:
            raise InvalidRecordError(
                f"this trick has {_count(len(trick), 'roll', 'rolls')} for {self.n} players and "
                "is not the last of the record (R8)", "R8", r, t)


# -- summary ------------------------------------------------------------------------------


def summarize(state: GameState, players: Sequence[str]) -> dict[str, Any]:
    """The ``minodice replay --json`` object of RECORD.md, from a loaded state."""
    rounds = []
    config = state.config
    for i, log in enumerate(state.rounds):
        if log is state.rounds[-1] and state.phase is Phase.DRAW:
            break
        won = [0] * state.n
        for w in log.winners:
            won[w] += 1
        rounds.append({
            "round": i + 1,
            "starter": starter_of_round(config.first_starter, i + 1, state.n,
                                        config.options.start),
            "bids": None if log.bids is None else list(log.bids),
            "trick_winners": list(log.winners),
            "tricks_won": won,
            "bonus": log.bonus,
            "points": log.points,
            "totals": log.totals,
        })
    finished = [log for log in state.rounds if log.totals is not None]
    return {
        "players": list(players),
        "complete": state.is_terminal(),
        "rounds": rounds,
        "totals": list(finished[-1].totals) if finished and finished[-1].totals else
        [0] * state.n,
        "winners": state.winners(),
    }
