"""The pure core: dice sets, rules, the game state, views and records. No I/O, no clock,
no global randomness — everything else in minodice stands on this package."""

from minodice.core.actions import Action, Bid, Roll, parse_action
from minodice.core.dice import DiceSet, DieKind, Face, Hand, load_dice_set
from minodice.core.errors import IllegalActionError, InvalidRecordError, MinodiceError
from minodice.core.record import (
    LoadedRecord,
    dumps_record,
    export_record,
    load_record,
    parse_record,
    summarize,
)
from minodice.core.rules import (
    Reason,
    RuleOptions,
    SpecialLead,
    StartRule,
    TrickResult,
    Variant,
    resolve_trick,
    rounds_for,
)
from minodice.core.state import CHANCE, TERMINAL, GameConfig, GameState, Phase
from minodice.core.view import SeatView, view

__all__ = [
    "CHANCE", "TERMINAL", "Action", "Bid", "DiceSet", "DieKind", "Face", "GameConfig",
    "GameState", "Hand", "IllegalActionError", "InvalidRecordError", "LoadedRecord",
    "MinodiceError", "Phase", "Reason", "Roll", "RuleOptions", "SeatView", "SpecialLead",
    "StartRule", "TrickResult", "Variant",
    "dumps_record", "export_record", "load_dice_set", "load_record", "parse_action",
    "parse_record", "resolve_trick", "rounds_for", "summarize", "view",
]
