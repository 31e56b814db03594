"""Leaving the table from wherever one is (Textual Pilot): q, Ctrl+C and Ctrl+Q save and
quit from every page over the table as from the table itself — the pass screen included,
without showing anyone's dice — Esc closes a page that can be closed (never the pass
screen), and the keys line always shows q. Signals: tests/tui/test_hang_up.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from minodice.cli.play import resume_table
from minodice.core.record import dumps_record, parse_record
from minodice.core.state import Phase
from minodice.i18n import LANGUAGES, translator
from minodice.play.saves import GameFile
from minodice.play.table import new_table
from minodice.tui.app import TableApp
from minodice.tui.screens import FolderScreen, PageScreen, PassScreen

from .driver import screen_text, settle

KEYS = "f faces · a advice · t tricks · r rules · s scores · q save & quit"


def table_app(tmp_path: Path, people: tuple[str, ...] = ("Ana",), seed: int = 7,
              lang: str = "en") -> TableApp:
    table = new_table(4, list(people), ["easy"], "mino", "standard", seed)
    game = GameFile.create(tmp_path / "games", dumps_record(table.snapshot()))
    return TableApp(table, lang, game, delay=0)


def saved(app: TableApp) -> dict[str, object]:
    assert app.game is not None
    data = json.loads(app.game.path.read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def break_folder(folder: Path) -> None:
    """Every save in ``folder`` fails from now on (a real failure, even for root)."""
    shutil.rmtree(folder)
    folder.write_text("not a folder any more", "utf-8")


@pytest.mark.parametrize("key", ["q", "ctrl+c", "ctrl+q"])
async def test_quitting_from_the_pass_screen_saves_and_shows_no_dice(
        tmp_path: Path, key: str) -> None:
    app = table_app(tmp_path, people=("Ana", "Ben"), seed=77)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, PassScreen)
        await pilot.press("enter")        # Ana sits down and bids
        await settle(pilot, app)
        await pilot.press("1", "enter")
        await settle(pilot, app)
        assert isinstance(app.screen, PassScreen)  # to Ben
        await pilot.press("escape")       # not "I am ready": nobody's dice show
        await pilot.pause()
        assert isinstance(app.screen, PassScreen)
        assert app.viewer is None
        await pilot.press(key)
        await pilot.pause()
        assert app.viewer is None          # Ben's dice never showed
    assert app.return_code in (None, 0)
    assert not app.unsaved
    assert "Continue it with" in app.exit_note
    assert saved(app)["session"]["bids"] == [1, None, None, None]  # type: ignore[index]


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_quitting_from_the_end_of_a_round_saves(tmp_path: Path, key: str) -> None:
    app = table_app(tmp_path, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")
        while not isinstance(app.screen, PageScreen):
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
        assert "End of round 1" in screen_text(app)
        await pilot.press(key)
        await pilot.pause()
    assert app.return_code in (None, 0)
    assert "Continue it with" in app.exit_note
    assert app.game is not None
    record = parse_record(app.game.path.read_text("utf-8"))
    assert record.state.rounds[0].bids is not None
    assert record.state.rounds[0].bids[0] == 1


async def test_esc_closes_the_rules_and_q_quits_from_them(tmp_path: Path) -> None:
    app = table_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, PageScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, PageScreen)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, PageScreen)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (None, 0)
    assert "Continue it with" in app.exit_note


async def test_ctrl_q_on_the_table_saves_as_q_does(tmp_path: Path) -> None:
    """Textual's own Ctrl+Q would leave at once, the bid made since the last save lost."""
    app = table_app(tmp_path, people=("Ana", "Ben"), seed=77)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("enter", "1", "enter")
        await settle(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert "Continue it with" in app.exit_note
    assert saved(app)["session"]["bids"] == [1, None, None, None]  # type: ignore[index]


async def test_a_failed_save_on_a_page_is_said_there_and_o_works(tmp_path: Path) -> None:
    app = table_app(tmp_path)
    other = tmp_path / "elsewhere"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        break_folder(tmp_path / "games")
        await pilot.press("s")  # the score pad
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert app.is_running
        assert isinstance(app.screen, PageScreen)  # still open, and saying why
        text = "".join(screen_text(app).replace("█", " ").split())  # wrapped in the box
        assert "Couldnotsavethegame" in text
        assert "qagaintoquitwithoutsaving" in text
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, FolderScreen)
        app.screen.query_one("#folder-input").value = str(other)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PageScreen)  # back on the page, its problem gone
        assert "Could not save" not in screen_text(app)
        await pilot.press("q")
        await pilot.pause()
    assert not app.unsaved
    assert app.game is not None
    assert app.game.path.parent == other


async def test_a_bid_is_saved_as_it_is_made(tmp_path: Path) -> None:
    """The bids revealed, however the game ends now (a crash, kill -9), nobody bids again:
    the file holds the person's bid, and the bots, asked again, bid as they did."""
    app = table_app(tmp_path, seed=41)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")
        await settle(pilot, app)
        assert "Bids revealed" in screen_text(app)
        revealed = app.table.view(None).bids
        assert app.game is not None
        table = resume_table(app.game.path)  # what a crash now would leave
    assert 0 not in table.to_act()
    while table.view(None).phase is Phase.BID:
        seat = table.to_act()[0]
        table.act(seat, table.bot_decision(seat))
    assert table.view(None).bids == revealed


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_the_keys_line_shows_q_when_a_save_failed(tmp_path: Path, lang: str) -> None:
    app = table_app(tmp_path, lang=lang)
    q_key = translator(lang).gettext(KEYS).split(" · ")[-1]
    assert q_key.startswith("q ")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        break_folder(tmp_path / "games")
        assert not app.controller.save()  # a save after a trick, say, failed
        app.refresh_table()
        await pilot.pause()
        keys_line = screen_text(app).splitlines()[-1]
    assert keys_line.strip().startswith(translator(lang).gettext("o save in another folder"))
    assert q_key in keys_line, keys_line
