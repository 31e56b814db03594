"""Saving in the terminal app, and what a failing bot or a bug in the engine does to the
table (Textual Pilot); the same and more, without a terminal, in tests/test_tui_controller.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from minodice.core.record import parse_record
from minodice.core.view import SeatView
from minodice.play.saves import GameFile
from minodice.play.table import Table, new_table
from minodice.tui.app import TableApp
from minodice.tui.screens import FolderScreen

from .driver import screen_text, settle


def started(tmp_path: Path, seed: int = 7, bots: tuple[str, ...] = ("easy",)) -> TableApp:
    table = new_table(4, ["Ana"], list(bots), "mino", "standard", seed)
    folder = tmp_path / "games"
    game = GameFile.create(folder, "{}")
    return TableApp(table, "en", game, delay=0)


def squeezed(text: str) -> str:
    return "".join(text.split())


def break_folder(folder: Path) -> None:
    """Every save in ``folder`` fails from now on (a real failure, even for root)."""
    shutil.rmtree(folder)
    folder.write_text("not a folder any more", "utf-8")


async def test_a_failed_save_is_said_and_another_folder_saves_it(tmp_path: Path) -> None:
    app = started(tmp_path)
    other = tmp_path / "elsewhere"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")
        await settle(pilot, app)
        break_folder(tmp_path / "games")
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running                     # the game stays open
        assert app.game is not None
        text = squeezed(screen_text(app))  # long paths wrap: compare without spaces
        assert squeezed(f"Could not save the game to {app.game.path}: Not a directory.") in text
        assert "o save in another folder" in app.keys_text()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, FolderScreen)
        app.screen.query_one(Input).value = str(other)
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, FolderScreen)
        assert app.game is not None
        assert app.game.path.parent == other
        assert "Saved to" in screen_text(app)
        first = app.game.path
        await pilot.press("q")
    assert not app.unsaved
    assert app.game.path == first
    assert str(app.game.path) in app.exit_note
    saved = parse_record(app.game.path.read_text("utf-8"))
    assert saved.state.rounds[0].bids is not None


async def test_a_folder_that_fails_too_is_said_in_the_folder_page(tmp_path: Path) -> None:
    app = started(tmp_path)
    blocked = tmp_path / "blocked"
    blocked.write_text("a file", "utf-8")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        break_folder(tmp_path / "games")
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, FolderScreen)
        app.screen.query_one(Input).value = str(blocked)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, FolderScreen)  # still asking, and saying why not
        error = str(app.screen.query_one("#folder-error", Static).content)
        assert error == f"Could not save the game to {blocked}: Not a directory."
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")  # the second q leaves without a saved game
    assert app.unsaved
    assert app.return_code == 1


async def test_quit_saves_to_the_game_file_and_exits_zero(tmp_path: Path) -> None:
    app = started(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("q")
    assert not app.unsaved
    assert app.return_code in (None, 0)
    assert app.game is not None
    assert parse_record(app.game.path.read_text("utf-8"))


# -- a failing bot, and a bug in the engine ------------------------------------------------------


BROKEN_BOT = """
class Broken:
    def act(self, view, legal, rng):
        raise RuntimeError("my strategy fell over")
"""


def bot_table(tmp_path: Path) -> Table:
    plugin = tmp_path / "broken_bot.py"
    plugin.write_text(BROKEN_BOT, "utf-8")
    return new_table(4, ["Ana"], [f"{plugin}:Broken"], "mino", "standard", 7)


async def test_a_bot_that_raises_is_named_and_the_game_saved(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    app = TableApp(bot_table(tmp_path), "en", GameFile.create(folder, "{}"), delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")  # the bots bid after Ana
        for _ in range(50):
            await pilot.pause(0.02)
            if app.mode == "over":
                break
        text = screen_text(app)
    assert app.mode == "over"
    assert "failed" in text
    assert "my strategy fell over" in text
    assert not list(folder.glob("*.log"))  # a bot's own failure is no bug of ours


async def test_a_bug_in_the_engine_is_written_to_a_log_with_its_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "games"
    table = new_table(4, ["Ana"], ["easy"], "mino", "standard", 7)
    app = TableApp(table, "en", GameFile.create(folder, "{}"), delay=0)
    real_view = Table.view

    def view(self: Table, seat: int | None) -> SeatView:
        # what a bot is asked is its seat's view: the engine breaks building it
        if seat is not None and self.seats[seat].bot is not None:
            raise ZeroDivisionError("a bug in the engine")
        return real_view(self, seat)

    monkeypatch.setattr(Table, "view", view)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")
        for _ in range(50):
            await pilot.pause(0.02)
            if app.mode == "over":
                break
        text = screen_text(app)
    logs = list(folder.glob("*.log"))
    assert len(logs) == 1
    log = logs[0].read_text("utf-8")
    assert "Traceback" in log
    assert "ZeroDivisionError: a bug in the engine" in log
    assert app.mode == "over"
    assert "The bot" not in text  # not blamed on the bot
    assert "bug" in text
    assert str(logs[0]) in app.exit_note  # where the traceback is, said after the game
