"""What a player needs on screen: the trick in play (never a stale one), the previous
trick, the dice rolled this round, the advisor during play, the round's tricks, a new game
at the end, and pages that cover the table whole with their heading centred."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Static

from minodice.core.actions import Roll
from minodice.core.state import Phase
from minodice.play.table import another_game, new_table
from minodice.tui.app import TableApp, short_path
from minodice.tui.screens import PageScreen

from .driver import advance, play_through, screen_text, settle


def make_app(tmp_path: Path, players: int = 4, seed: int = 11) -> TableApp:
    table = new_table(players, ["Ana"], ["easy"], "mino", "standard", seed)
    return TableApp(table, "en", tmp_path / "game.json", delay=0)


def panel(app: TableApp, selector: str) -> str:
    return str(app.query_one(selector, Static).content)


async def test_leading_shows_an_empty_trick_and_the_previous_one(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    checked: list[int] = []

    def look(app: TableApp, text: str) -> None:
        if app.mode != "play" or len(app.screen_stack) > 1 or app.active is None:
            return
        view = app.table.view(app.active)
        done = len(view.round_trick_winners)
        assert f"Trick {done + 1}/{view.round_no}" in text  # the trick being played
        if view.trick or not done:
            return
        # You lead: no die of the last trick is shown as this trick's, no colour to follow.
        trick = panel(app, "#trick")
        current, _sep, previous = trick.partition("Previous trick")
        assert "→" not in current, trick
        assert "No colour yet" in current
        assert "Follow" not in current
        # The previous trick: its four dice, the winner's marked.
        last = view.round_tricks[done - 1]
        lines = [line for line in previous.splitlines() if "→" in line]
        assert len(lines) == len(last) == view.players
        winner = view.round_trick_winners[done - 1]
        marked = [line for line in lines if line.endswith("◀")]
        assert len(marked) == 1
        assert app.names[winner].startswith(marked[0].split()[0].rstrip("…"))
        checked.append(done)

    async with app.run_test(size=(80, 24)) as pilot:
        await play_through(pilot, app, choose_bid=lambda a: 1, on_screen=look)
    assert len(checked) >= 5  # the person led several tricks after the first of a round


@pytest.mark.parametrize(("lang", "players", "people"), [
    ("en", 6, ("Ana",)), ("de", 4, ("Ana",)), ("en", 5, ("Anastasia-Marie",)),
])
async def test_the_trick_panel_fits_whole(tmp_path: Path, lang: str, players: int,
                                          people: tuple[str, ...]) -> None:
    """At 80×24 no line of the trick panel wraps (a long name gives way, never a die),
    and the previous trick, when shown, shows every die and its winner."""
    table = new_table(players, list(people), ["easy"], "mino", "standard", 3)
    app = TableApp(table, lang, tmp_path / "game.json", delay=0)
    shown = 0

    def look(app: TableApp, _text: str) -> None:
        nonlocal shown
        if len(app.screen_stack) > 1:
            return
        box = app.query_one("#trick", Static)
        lines = panel(app, "#trick").splitlines()
        width, height = box.content_size.width, box.content_size.height
        assert len(lines) <= height, lines
        for line in lines:
            assert cell_len(line) <= width, (line, width)
        heading = "Previous trick" if lang == "en" else "Voriger Stich"
        if heading in lines:
            previous = lines[lines.index(heading) + 1:]
            assert len(previous) == players, lines
            assert all("→" in line for line in previous)
            assert sum(line.endswith("◀") for line in previous) == 1
            shown += 1

    async with app.run_test(size=(80, 24)) as pilot:
        await play_through(pilot, app, on_screen=look)
    assert shown > 3


async def test_the_dice_rolled_this_round_are_counted(tmp_path: Path) -> None:
    app = make_app(tmp_path, players=5, seed=4)
    ds = app.table.config.dice_set
    checked = 0

    def look(app: TableApp, text: str) -> None:
        nonlocal checked
        if app.mode not in ("play", "bid") or len(app.screen_stack) > 1:
            return
        view = app.table.view(None)
        counts = dict.fromkeys((k.name for k in ds.kinds), 0)
        if view.phase in (Phase.PLAY, Phase.ROLL):
            for trick in view.round_tricks:
                for roll in trick:
                    counts[roll.kind] += 1
        for kind in ds.kinds:
            assert f"{kind.name} {counts[kind.name]}/{kind.count}" in text, (kind.name, text)
        checked += 1

    async with app.run_test(size=(80, 24)) as pilot:
        await play_through(pilot, app, on_screen=look)
    assert checked > 30


async def test_the_advisor_during_play_and_the_rounds_tricks(tmp_path: Path) -> None:
    app = make_app(tmp_path, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")
        while app.mode != "play" or app.table.round_no < 3 or not app.round_log:
            await settle(pilot, app)
            if isinstance(app.screen, PageScreen) or app.mode == "ack":
                await pilot.press("enter")
            elif app.mode == "bid":
                await pilot.press("1", "enter")
            elif app.mode == "play":
                await pilot.press("enter")
            await settle(pilot, app)
        assert app.active is not None
        legal = [a.kind.name for a in app.table.view(app.active).legal_actions
                 if isinstance(a, Roll)]
        await pilot.press("a")
        await settle(pilot, app)
        assert isinstance(app.screen, PageScreen)
        text = screen_text(app)
        assert "Play advisor" in text
        assert "Takes the trick" in text
        assert "Expected score" in text
        rows = [line for line in text.splitlines() if "%" in line]
        assert len(rows) == len(legal)
        for kind in legal:
            assert any(kind in row for row in rows), (kind, text)
        await pilot.press("escape")
        await settle(pilot, app)
        # The round's tricks so far, each with its dice.
        await pilot.press("t")
        await settle(pilot, app)
        assert isinstance(app.screen, PageScreen)
        text = screen_text(app)
        assert "Tricks this round" in text
        view = app.table.view(None)
        done = len(view.round_trick_winners)
        assert text.count("→") == view.players * done  # every die of every trick, whole
        assert text.count("◀") == done                  # one winner each
        for number, winner in enumerate(view.round_trick_winners, start=1):
            row = next(line for line in text.splitlines()
                       if re.match(rf"{number}\s", line.strip(" █")))
            assert app.names[winner] in row


async def test_a_new_game_at_the_end(tmp_path: Path) -> None:
    """A game that ends shows the final ranking, whose n asks for a new game (the game is
    played to its end without the screen: tests/test_tui_controller.py plays it through)."""
    first = advance(new_table(3, ["Ana"], ["easy"], "mino", "standard", 11), 99)
    assert first.is_over()
    app = TableApp(first, "en", tmp_path / "game.json", delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert isinstance(app.screen, PageScreen)
        text = screen_text(app)
        assert "Final ranking" in text
        assert "Press n for a new game" in text
        await pilot.press("n")
        await pilot.pause()
    assert app.again
    assert app.return_code == 0
    # The next game: the same seats, edition and variant, another deal.
    second = another_game(first, 12345)
    assert second.seats == first.seats
    assert second.config.dice_set is first.config.dice_set
    assert second.config.variant is first.config.variant
    assert not second.is_over()
    assert second.round_no == 1
    deals = {str(another_game(first, s).view(0).hand) for s in range(20)}
    assert len(deals) > 1


async def test_pages_cover_the_table_and_centre_their_heading(tmp_path: Path) -> None:
    app = make_app(tmp_path, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("1", "enter")
        while not isinstance(app.screen, PageScreen):
            await settle(pilot, app)
            await pilot.press("enter")
            await settle(pilot, app)
        text = screen_text(app)
    rows = text.splitlines()
    assert "End of round 1" in text
    top = next(i for i, row in enumerate(rows) if "▀" in row)
    bottom = next(i for i, row in enumerate(rows) if "▄" in row)
    left, right = rows[top].index("█"), rows[top].rindex("█")
    # Nothing of the table shows around the page: only blanks outside its frame.
    for i, row in enumerate(rows):
        outside = row if not top <= i <= bottom else row[:left] + row[right + 1:]
        assert not outside.strip(), (i, row)
    # The heading and the round's table share the page's middle.
    middle = (left + right) / 2
    heading = next(row for row in rows if "End of round 1" in row)
    start = heading.index("End of round 1")
    assert abs(start + len("End of round 1") / 2 - middle) <= 1.5
    rule = next(row for row in rows if "────" in row)
    assert abs((rule.index("─") + rule.rindex("─")) / 2 - middle) <= 1.5
    assert sum("Round 1" in row for row in rows) == 0  # named once, by the heading


def test_the_saved_line_fits_the_prompt(tmp_path: Path) -> None:
    home = Path.home()
    assert short_path(home / "games" / "a.json") == "~/games/a.json"
    deep = tmp_path / ("x" * 60) / "game-20261130-061732-y38j7hjd.json"
    shown = short_path(deep)
    assert len(shown) < 60
    assert shown.endswith("/game-20261130-061732-y38j7hjd.json")
