"""Screenshots of the table as golden files (pytest-textual-snapshot).

Regenerate after a deliberate change of the screen with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at the new SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

from minodice.play.table import new_table
from minodice.tui.app import TableApp

from .driver import settle

SnapCompare = Callable[..., bool]


def table(lang: str, people: tuple[str, ...] = ("Ana",), seed: int = 7,
          edition: str = "mino") -> TableApp:
    return TableApp(new_table(4, list(people), ["easy"], edition, "standard", seed), lang,
                    None, delay=0)


def settled(app: TableApp, *keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot, app)
        for key in keys:
            await pilot.press(key)
            await settle(pilot, app)

    return run_before


def test_bidding_in_english(snap_compare: SnapCompare) -> None:
    app = table("en")
    assert snap_compare(app, terminal_size=(80, 24), run_before=settled(app))


def test_choosing_a_die_in_german(snap_compare: SnapCompare) -> None:
    app = table("de", seed=3)
    keys = ("1", "enter", "enter", "enter", "enter", "1", "enter", "f")
    assert snap_compare(app, terminal_size=(80, 24), run_before=settled(app, *keys))


def test_pass_screen_in_dutch(snap_compare: SnapCompare) -> None:
    app = table("nl", people=("Ana", "Ben"))
    assert snap_compare(app, terminal_size=(80, 24), run_before=settled(app))


def test_round_summary_in_portuguese(snap_compare: SnapCompare) -> None:
    app = table("pt", seed=5)
    assert snap_compare(app, terminal_size=(80, 24),
                        run_before=settled(app, "1", "enter", "enter", "enter"))


def test_skull_king_in_spanish(snap_compare: SnapCompare) -> None:
    app = table("es", edition="skull-king", seed=9)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settled(app, "r"))
