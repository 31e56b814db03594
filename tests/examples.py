"""RECORD.md's example document and its expected ``replay --json`` object, shared by tests."""

from __future__ import annotations

from typing import Any

Record = dict[str, Any]


def example_record() -> Record:
    """The example document of RECORD.md, verbatim."""
    return {
        "format": "minodice-record",
        "version": 1,
        "dice_set": "mino",
        "variant": "standard",
        "players": ["Ana", "Ben", "Cleo"],
        "first_starter": 0,
        "rounds": [
            {
                "hands": [["red"], ["griffin"], ["gray"]],
                "bids": [1, 0, 0],
                "tricks": [
                    [
                        {"player": 0, "die": "red", "face": 6},
                        {"player": 1, "die": "griffin", "face": "griffin"},
                        {"player": 2, "die": "gray", "face": "flag"},
                    ]
                ],
            }
        ],
    }


# The `replay --json` object RECORD.md gives for its example document.
EXAMPLE_SUMMARY = {
    "players": ["Ana", "Ben", "Cleo"],
    "complete": False,
    "rounds": [
        {"round": 1, "starter": 0, "bids": [1, 0, 0], "trick_winners": [1],
         "tricks_won": [0, 1, 0], "bonus": [0, 0, 0], "points": [-10, -10, 10],
         "totals": [-10, -10, 10]}
    ],
    "totals": [-10, -10, 10],
    "winners": [],
}
