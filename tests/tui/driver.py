"""Drive the real terminal app through whole games with Textual's Pilot, as a player would.

The "player" reads the screen state (the app's mode and which screen is on top) and
presses keys: digits and Enter for bids, Enter (or a digit) for a die, Enter to go on.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from textual.pilot import Pilot

from minodice.core.actions import Action, Bid
from minodice.play.table import Table
from minodice.tui.app import TableApp
from minodice.tui.screens import PageScreen, PassScreen

CELL = 12.2  # the width of one terminal cell in Textual's screenshot (SVG units)


def screen_text(app: TableApp) -> str:
    """Everything visible on the terminal, as plain text with every character in its
    column (from Textual's own screenshot, whose text runs are placed by x)."""
    svg = app.export_screenshot()
    rows: dict[float, dict[int, str]] = {}
    for attrs, text in re.findall(r"<text([^>]*)>(.*?)</text>", svg, re.S):
        if "textLength" not in attrs:  # the window title, not a terminal cell
            continue
        x = float(re.search(r'\bx="([0-9.]+)"', attrs)[1])  # type: ignore[index]
        y = float(re.search(r'\by="([0-9.]+)"', attrs)[1])  # type: ignore[index]
        content = html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\xa0", " ")
        if content == "\n":
            continue
        cells = rows.setdefault(y, {})
        for offset, char in enumerate(content):
            cells[round(x / CELL) + offset] = char
    lines = []
    for _y, cells in sorted(rows.items()):
        width = max(cells) + 1 if cells else 0
        lines.append("".join(cells.get(i, " ") for i in range(width)).rstrip())
    return "\n".join(lines)


def advance(table: Table, rounds_done: int) -> Table:
    """Play ``table`` straight on, without a screen, until ``rounds_done`` rounds are over
    (all of them: the game is over): people bid 1 at most and roll their first legal die,
    bots decide as the table asks them. For tests of screens that a game shows in every
    round, so that they need not play every round through the terminal."""
    while not table.is_over() and len(table.history()) < rounds_done:
        seat = table.to_act()[0]
        if table.seats[seat].is_human:
            view = table.view(seat)
            bids = [a for a in view.legal_actions if isinstance(a, Bid)]
            action: Action = (bids[min(1, len(bids) - 1)] if bids else view.legal_actions[0])
        else:
            action = table.bot_decision(seat)
        table.act(seat, action)
    return table


async def settle(pilot: Pilot[None], app: TableApp, limit: int = 400) -> None:
    """Wait until the app waits for a person (not for a bot or an animation)."""
    for _ in range(limit):
        await pilot.pause()
        if app.mode != "wait" or len(app.screen_stack) > 1:
            return
        await pilot.pause(0.01)
    raise AssertionError(f"the app kept waiting (mode {app.mode})")


async def play_through(
    pilot: Pilot[None],
    app: TableApp,
    choose_bid: Callable[[TableApp], int] = lambda app: 0,
    on_screen: Callable[[TableApp, str], None] | None = None,
    max_steps: int = 3000,
) -> list[str]:
    """Play until the game is over; returns the kinds of screens met on the way."""
    seen: list[str] = []
    for _ in range(max_steps):
        await settle(pilot, app)
        top = app.screen
        if on_screen is not None:
            on_screen(app, screen_text(app))
        if isinstance(top, PassScreen):
            seen.append("pass")
            await pilot.press("enter")
        elif isinstance(top, PageScreen):
            seen.append("page")
            if app.mode == "over":
                return seen
            await pilot.press("enter")
        elif app.mode == "bid":
            seen.append("bid")
            await pilot.press(str(choose_bid(app)), "enter")
        elif app.mode == "play":
            seen.append("play")
            await pilot.press("enter")
        elif app.mode == "ack":
            seen.append("ack")
            await pilot.press("enter")
        elif app.mode == "over":
            return seen
    raise AssertionError("the game did not end")
