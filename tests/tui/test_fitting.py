"""Names on an 80×24 table in every language (Textual Pilot): the players' panel shows them
whole when the numbers leave room (their headings give way, "Apu."), a name too long is
shortened and never looks like another, and the header and the prompt keep the start
player's name and the bid's range."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from minodice.i18n import LANGUAGES, translator
from minodice.play.table import BOT_NAMES, new_table
from minodice.tui.app import TableApp
from minodice.tui.screens import PassScreen

from .driver import screen_text, settle

PANEL = slice(49, 79)  # the columns inside the players' panel's border, at 80 wide


def panel_rows(text: str) -> list[str]:
    """The players' rows of the players' panel (the lines under its heading, to the blank
    line before the dice rolled this round)."""
    lines = [line.ljust(80)[PANEL] for line in text.splitlines()[2:16]]
    return lines[1:lines.index(" " * 30)]


async def table_screen(lang: str, people: list[str], players: int,
                       first: int | None = None) -> str:
    table = new_table(players, people, ["easy"], "mino", "standard", 3, first_starter=first)
    app = TableApp(table, lang, None, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        if isinstance(app.screen, PassScreen):  # the first person sits down
            await pilot.press("enter")
            await settle(pilot, app)
        return screen_text(app)


@pytest.mark.parametrize("players", [4, 6])
@pytest.mark.parametrize("lang", LANGUAGES)
async def test_names_are_whole_in_the_players_panel(lang: str, players: int) -> None:
    people = ["Maria", "Mario"]
    text = await table_screen(lang, people, players)
    rows = panel_rows(text)
    assert len(rows) == players, text
    names = people + [n for n in BOT_NAMES if n not in people][:players - 2]
    for row, name in zip(rows, names, strict=True):
        at = row.find(name + " ")  # whole, after the turn's marker
        assert 0 <= at <= 2, (row, name)
    heading = text.splitlines()[2].ljust(80)[PANEL]
    assert translator(lang).gettext("Player") in heading, heading


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_long_names_are_cut_apart_and_the_lines_keep_their_parts(lang: str) -> None:
    """Two names of 24 letters, the same but for the last: each is shown different, the
    header names the start player, the prompt keeps the range of bids."""
    _ = translator(lang).gettext
    people = ["Maria Fernanda Rodriguez", "Maria Fernanda Rodriguex"]
    text = await table_screen(lang, people, 6, first=1)
    lines = text.splitlines()
    rows = panel_rows(text)
    shown = [row.strip(" ▶◆").split("  ")[0] for row in rows[:2]]
    assert shown[0] != shown[1], rows
    assert all(s.startswith("Maria") for s in shown), rows
    start = _("Start player: {name}").format(name="")
    header = lines[0].strip()
    assert start in header, header
    assert header.split(start)[1].startswith("Maria Fernanda"), header
    assert cell_len(lines[0]) <= 80
    prompt = " ".join(line.strip() for line in lines[17:])  # the log, the prompt
    bids = _("0 to {n}: ↑↓ or digits, Enter confirms. Secret until all have bid.")
    assert bids.format(n=1).split(":")[0] + ":" in prompt, prompt


def test_fit_names_keeps_names_apart() -> None:
    from minodice.tui.render import fit_names

    names = ["Anastasia-Marie", "Anastasia-Maria", "Ana", "漢字の名前です"]
    for width in range(4, 16):
        shown = fit_names(names, width)
        assert len(set(shown)) == len(names), (width, shown)
        assert all(cell_len(s) <= width for s in shown), (width, shown)
    assert fit_names(names, 15) == names
    assert fit_names(names, 10)[:3] == ["Anastasi…e", "Anastasi…a", "Ana"]
    assert fit_names(["Ana", "Ben"], 0) == ["", ""]


def test_headings_are_abbreviated_to_fit() -> None:
    from minodice.tui.render import abbreviated

    assert abbreviated("Apuesta", 7) == "Apuesta"
    assert abbreviated("Apuesta", 4) == "Apu."
    assert abbreviated("Ans.", 3) == "An."
    assert abbreviated("Total", 2) == "To"
