"""The real terminal app end to end (Textual Pilot): a whole game, bids on screen, resizing,
the help pages, editions and NO_COLOR. The flow of a game (modes, refused keys, hot seat,
resuming) is tested without a terminal in tests/test_tui_controller.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from minodice.core.record import parse_record
from minodice.play.table import new_table
from minodice.tui.app import TableApp
from minodice.tui.screens import PageScreen

from .driver import play_through, screen_text, settle


def make_app(tmp_path: Path, lang: str = "en", people: tuple[str, ...] = ("Ana",),
             players: int = 4, seed: int = 7, edition: str = "mino") -> TableApp:
    table = new_table(players, list(people), ["easy"], edition, "standard", seed)
    return TableApp(table, lang, tmp_path / "game.json", delay=0)


# One whole game end to end (English words are on screen in every other test here; the
# controller's tests play whole games, resumed, hot seat and all, without a terminal).
@pytest.mark.parametrize(("lang", "words"), [
    ("de", ("Runde", "Stich", "Deine Würfel", "Endstand")),
])
async def test_a_whole_game_against_three_bots(tmp_path: Path, lang: str,
                                               words: tuple[str, ...]) -> None:
    app = make_app(tmp_path, lang)
    texts: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        seen = await play_through(pilot, app, choose_bid=lambda a: 1,
                                  on_screen=lambda _a, text: texts.append(text))
        final = screen_text(app)
    assert app.table.is_over()
    assert seen.count("bid") == 8                 # one bid per round, 8 rounds with 4 players
    assert seen.count("play") == sum(range(1, 9))  # one die per trick: 36
    everything = "\n".join(texts)
    for word in words[:3]:
        assert word in everything, word
    assert words[3] in final
    # The game record was saved, finished, and is valid.
    loaded = parse_record((tmp_path / "game.json").read_text("utf-8"))
    assert loaded.state.is_terminal()
    assert tuple(loaded.state.totals) == app.table.view(None).totals
    assert [log.bids[0] for log in loaded.state.rounds if log.bids] == [1] * 8


async def test_bots_bids_appear_only_after_yours(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert app.mode == "bid"
        players = screen_text(app)
        # Before your bid: every bid is a question mark on the table.
        assert players.count("?") >= 4
        assert "Bids revealed" not in players
        await pilot.press("1", "enter")
        await settle(pilot, app)
        after = screen_text(app)
        assert "Bids revealed" in after


@pytest.mark.parametrize("size", [(60, 20), (120, 40), (80, 24)])
async def test_resizing_keeps_the_table_whole(tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.resize_terminal(*size)
        await pilot.pause()
        text = screen_text(app)
        assert "Your bid" in text
        assert "Ana" in text
        await pilot.press("2", "enter")
        await settle(pilot, app)
        assert app.mode in ("play", "ack", "wait") or isinstance(app.screen, PageScreen)


async def test_a_resized_terminal_draws_the_table_for_its_new_size(tmp_path: Path) -> None:
    """Each panel is fitted to its width; after a resize it kept the old width until the
    next move (the rolled dice one kind a line in a wide panel, the headings cut short)."""
    app = make_app(tmp_path)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot, app)
        narrow = screen_text(app)
        assert not any("minotaur 0/1" in line and "griffin 0/3" in line
                       for line in narrow.splitlines())
        await pilot.resize_terminal(140, 40)
        await pilot.pause()
        await pilot.pause()
        wide = screen_text(app)
        assert any("minotaur 0/1" in line and "griffin 0/3" in line
                   for line in wide.splitlines()), wide
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.pause()
        assert screen_text(app) == narrow


async def test_help_pages_rules_faces_and_advisor(tmp_path: Path) -> None:
    app = make_app(tmp_path, lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, PageScreen)
        rules = screen_text(app)
        assert "Reglas" in rules
        await pilot.press("escape")
        await pilot.press("a")
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, PageScreen):
                break
        assert isinstance(app.screen, PageScreen)
        advice = screen_text(app)
        assert "%" in advice
        await pilot.press("enter")
        await pilot.press("f")
        await pilot.pause()
        assert app.show_faces


async def test_skull_king_edition_names_on_screen(tmp_path: Path) -> None:
    app = make_app(tmp_path, edition="skull-king", seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert "Skull King" in screen_text(app)


async def test_no_color_still_names_every_die(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(tmp_path, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.no_color
        await settle(pilot, app)
        await pilot.press("1", "enter")
        await settle(pilot, app)
        text = screen_text(app)
        hand = app.table.view(0).hand
        for name in hand.names():
            assert name in text  # the die's name is on screen, not only its colour
