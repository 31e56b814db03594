"""Whole games through the real terminal app (Textual Pilot), in several languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from minodice.cli.play import resume_table
from minodice.core.actions import Roll
from minodice.core.record import parse_record
from minodice.core.state import Phase
from minodice.play.table import new_table
from minodice.tui.app import TableApp
from minodice.tui.screens import PageScreen, PassScreen

from .driver import play_through, screen_text, settle


def make_app(tmp_path: Path, lang: str = "en", people: tuple[str, ...] = ("Ana",),
             players: int = 4, seed: int = 7, edition: str = "mino") -> TableApp:
    table = new_table(players, list(people), ["easy"], edition, "standard", seed)
    return TableApp(table, lang, tmp_path / "game.json", delay=0)


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ("Round", "Trick", "Your dice", "Final ranking")),
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


async def test_an_illegal_die_is_refused_with_the_reason(tmp_path: Path) -> None:
    """Find a turn where a die is disabled by R9, try to roll it, and read the reason."""
    app = make_app(tmp_path, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(400):
            await settle(pilot, app)
            if isinstance(app.screen, PageScreen | PassScreen) or app.mode in ("ack",):
                await pilot.press("enter")
                continue
            if app.mode == "bid":
                await pilot.press("0", "enter")
                continue
            assert app.mode == "play"
            seat = app.active
            assert seat is not None
            table = app.table
            legal = {a.kind.name for a in table.legal(seat) if isinstance(a, Roll)}
            kinds = app.hand_kinds(seat)
            blocked = [i for i, k in enumerate(kinds) if k not in legal]
            if not blocked:
                await pilot.press("enter")
                continue
            before = len(table.view(None).trick)
            text = screen_text(app)
            assert "✗" in text
            assert "(R9)" in text
            await pilot.press(str(blocked[0] + 1), "enter")
            await pilot.pause()
            assert app.mode == "play"  # still this person's turn
            assert len(table.view(None).trick) == before
            assert "You must follow" in screen_text(app)
            return
    raise AssertionError("no turn with a disabled die came up")


async def test_hot_seat_passes_the_screen_and_hides_the_dice(tmp_path: Path) -> None:
    app = make_app(tmp_path, people=("Ana", "Ben"), seed=11)
    passes: list[str] = []

    def check(app: TableApp, text: str) -> None:
        if isinstance(app.screen, PassScreen):
            passes.append(text)
            # Nobody's dice are on the table while the keyboard changes hands.
            assert app.viewer is None
            assert "Your dice are hidden" in text or "Pass to" in text

    async with app.run_test(size=(80, 24)) as pilot:
        seen = await play_through(pilot, app, on_screen=check)
    assert app.table.is_over()
    assert seen.count("pass") >= 8 * 2  # at least once per person per round
    assert any("Pass to Ana" in t for t in passes)
    assert any("Pass to Ben" in t for t in passes)


async def test_quit_saves_and_resume_continues_exactly(tmp_path: Path) -> None:
    # A reference game played without interruption...
    reference = make_app(tmp_path / "ref", seed=21)
    async with reference.run_test(size=(80, 24)) as pilot:
        await play_through(pilot, reference, choose_bid=lambda a: 1)
    # ...and the same game, quit in round 3 and resumed from its file.
    app = make_app(tmp_path, seed=21)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(200):
            await settle(pilot, app)
            if app.table.round_no == 3 and app.mode == "play":
                break
            if isinstance(app.screen, PageScreen | PassScreen) or app.mode == "ack":
                await pilot.press("enter")
            elif app.mode == "bid":
                await pilot.press("1", "enter")
            else:
                await pilot.press("enter")
        assert app.table.round_no == 3
        await pilot.press("q")
    saved = tmp_path / "game.json"
    assert "minodice play --resume" in app.exit_note
    table = resume_table(saved)
    assert table.round_no == 3
    assert table.view(None).phase is Phase.PLAY
    resumed = TableApp(table, "en", saved, delay=0)
    async with resumed.run_test(size=(80, 24)) as pilot:
        await play_through(pilot, resumed, choose_bid=lambda a: 1)
    assert resumed.table.view(None).totals == reference.table.view(None).totals
    ref_record = reference.table.record()
    new_record = resumed.table.record()
    assert ref_record["rounds"] == new_record["rounds"]


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
