"""What people typed is shown literally on the table: Rich markup in a name is text, a
control character is an escape, and the default name is no column header."""

from __future__ import annotations

from pathlib import Path

import pytest

from minodice.cli.play import default_player_name, resume_table
from minodice.i18n import LANGUAGES, translator
from minodice.play.table import new_table
from minodice.tui.app import TableApp, save_table
from minodice.tui.render import COLUMN_HEADERS
from minodice.tui.screens import PageScreen, PassScreen

from .driver import advance, play_through, screen_text, settle

ODD_NAMES = ("[/]", "Bob [guest]", "[bold red]Eve", "Zoë\x1b[2J")


async def test_names_with_markup_on_every_screen_of_a_hot_seat_game(tmp_path: Path) -> None:
    """The last round through the terminal, to the end: every screen a round shows (the
    keyboard passed, bids, dice, tricks won, the round's summary), then the final ranking
    and the score pad of the whole game; the rounds before are played without a screen."""
    table = new_table(4, list(ODD_NAMES), ["easy"], "mino", "standard", 5)
    advance(table, table.view(None).rounds - 1)
    assert not table.is_over()
    app = TableApp(table, "en", tmp_path / "game.json", delay=0)
    texts: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await play_through(pilot, app, choose_bid=lambda a: 1,
                           on_screen=lambda _a, text: texts.append(text))
        await pilot.press("enter")  # the final ranking closes
        await pilot.press("s")      # the score pad: the names are its columns
        await pilot.pause()
        texts.append(screen_text(app))
    assert app.table.is_over()
    everything = "\n".join(texts)
    assert "Pass to [/]" in everything
    assert "Pass to Bob [guest]" in everything
    assert "[bold red]Eve" in everything
    assert "Zoë\\x1b[2J" in everything     # the escape sequence shown, not obeyed
    assert "\x1b" not in everything


async def test_a_saved_game_with_such_names_resumes(tmp_path: Path) -> None:
    table = new_table(4, ["[/]", "Bob [guest]"], ["easy"], "mino", "standard", 6)
    path = tmp_path / "game.json"
    save_table(table, path)
    app = TableApp(resume_table(path), "en", path, delay=0)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        if isinstance(app.screen, PassScreen):
            await pilot.press("enter")
            await settle(pilot, app)
        text = screen_text(app)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, PageScreen)
        pad = screen_text(app)
    assert "[/]" in text
    assert "Bob [guest]" in text
    assert "Bob [gues" in pad  # a column of the score pad (names shortened to 10)


def test_the_default_name_is_no_column_header_in_any_language() -> None:
    headers = {translator(lang).gettext(h).casefold() for lang in LANGUAGES
               for h in COLUMN_HEADERS}
    assert "player" in headers
    users: list[str | None] = [None, "", "root", "player", "PLAYER", "ana", "bid", "total",
                               "spieler", "jogador", "\x1b[2J", "x" * 80]
    users += sorted(headers)
    for lang in LANGUAGES:
        for user in users:
            name = default_player_name(lang, user)
            assert name.strip()
            assert name.casefold() not in headers, (lang, user, name)
            assert name.isprintable()
            assert len(name) <= 20
    assert default_player_name("en", "ana") == "Ana"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_a_user_name_the_default_is_translated(lang: str) -> None:
    assert default_player_name(lang, None) == translator(lang).gettext("You")
