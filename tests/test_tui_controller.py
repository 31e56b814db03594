"""The terminal table's controller without a terminal: modes, legal and refused keys, the
flow of a game through the driver, a failing bot, a bug, saving and resuming.

The screen is a fake that records what it was asked (pages, the keyboard passed, exits)
and calls back at once: a whole game takes a fraction of a second, where the same game
through Textual (``tests/tui``) takes many.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from minodice.bots.heuristic import EasyBot
from minodice.cli.play import resume_table
from minodice.core.actions import Action, Bid, Roll
from minodice.core.record import parse_record
from minodice.core.rules import RuleOptions, StartRule
from minodice.core.state import Phase
from minodice.core.view import SeatView
from minodice.play.saves import GameFile
from minodice.play.table import RoundScored, Table, new_table
from minodice.tui import controller, render
from minodice.tui.controller import (
    BidAdvicePage,
    GameOverPage,
    Mode,
    Note,
    Page,
    PlayAdvicePage,
    RoundSummaryPage,
    RoundTricksPage,
    RulesPage,
    ScorePadPage,
    Shown,
    TableController,
    Tone,
)


@dataclass
class Modal:
    """A page or the pass screen, open over the table."""

    what: Page | int  # a page, or the seat the keyboard is passed to
    then: Callable[[], None] | None
    keys: Mapping[str, Callable[[], None]] = field(default_factory=dict)


class FakeScreen:
    """The controller's screen, recording; a roll lands and a pause ends at once."""

    def __init__(self) -> None:
        self.modals: list[Modal] = []
        self.pages: list[Page] = []
        self.passes: list[int] = []
        self.rolls: list[Shown] = []
        self.folders_asked = 0
        self.exit_code: int | None = None
        self.redraws = 0

    @property
    def top(self) -> Modal | None:
        return self.modals[-1] if self.modals else None

    def redraw(self) -> None:
        self.redraws += 1

    def later(self, callback: Callable[[], None]) -> None:
        asyncio.get_running_loop().call_soon(callback)

    def after(self, seconds: float, callback: Callable[[], None]) -> None:
        asyncio.get_running_loop().call_soon(callback)

    def show_roll(self, roll: Shown, then: Callable[[], None]) -> None:
        self.rolls.append(roll)
        then()

    def show_page(self, page: Page, then: Callable[[], None] | None = None,
                  keys: Mapping[str, Callable[[], None]] | None = None) -> None:
        self.pages.append(page)
        self.modals.append(Modal(page, then, dict(keys or {})))

    def pass_keyboard(self, seat: int, then: Callable[[], None]) -> None:
        self.passes.append(seat)
        self.modals.append(Modal(seat, then))

    def choose_folder(self) -> None:
        self.folders_asked += 1

    def close_app(self, code: int) -> None:
        self.exit_code = code


class Game:
    """A controller on a fake screen, and a person's hands on its keys."""

    def __init__(self, table: Table, game: GameFile | None = None, lang: str = "en") -> None:
        self.screen = FakeScreen()
        self.c = TableController(table, self.screen, lang, game, delay=0)
        self.table = table

    async def begin(self) -> None:
        self.c.begin()
        self.c.next_decision()
        await self.settle()

    async def settle(self) -> None:
        """Until the game waits for a person (a key, a page) or is over; bots decide on
        threads, so real time passes, a few milliseconds a decision."""
        for spin in range(20000):
            await asyncio.sleep(0)
            if self.screen.exit_code is not None or self.screen.top is not None:
                return
            if self.c.mode is not Mode.WAIT:
                return
            if spin % 50 == 49:  # a bot thinking on its thread: let it have the processor
                await asyncio.sleep(0.001)
        raise AssertionError(f"the controller kept waiting ({self.c.mode})")

    async def press(self, *keys: str) -> list[bool]:
        """Keys as a person presses them: a modal screen takes Enter (or one of its own
        keys); the table takes the rest."""
        handled = []
        for key in keys:
            top = self.screen.top
            if top is not None:
                then = top.keys.get(key) if key in top.keys else (
                    top.then if key in ("enter", "escape", "space") else None)
                if key in top.keys or key in ("enter", "escape", "space"):
                    self.screen.modals.pop()
                    if then is not None:
                        then()
                handled.append(True)
            else:
                handled.append(self.c.handle_key(key))
            await self.settle()
        return handled

    def mode(self) -> Mode:
        return self.c.mode

    def notes(self) -> str:
        return "\n".join(n.text for n in self.c.log)

    async def play_to_the_end(self, bid: int = 1, stop: Callable[[], bool] = lambda: False,
                              limit: int = 2000) -> list[str]:
        """Play on as a person would (every person bids ``bid`` or less, rolls the first
        legal die); what was asked, in order. Stops when ``stop()`` says so."""
        seen: list[str] = []
        for _ in range(limit):
            if stop():
                return seen
            top = self.screen.top
            if top is not None:
                if isinstance(top.what, GameOverPage):
                    return seen
                seen.append("pass" if isinstance(top.what, int) else "page")
                await self.press("enter")
            elif self.c.mode is Mode.BID:
                seen.append("bid")
                await self.press(str(min(bid, self.table.round_no)), "enter")
            elif self.c.mode is Mode.PLAY:
                seen.append("play")
                await self.press("enter")
            elif self.c.mode is Mode.ACK:
                seen.append("ack")
                await self.press("enter")
            elif self.c.mode is Mode.OVER:
                return seen
            else:
                await self.settle()
        raise AssertionError("the game did not end")


def table(people: tuple[str, ...] = ("Ana",), players: int = 4, seed: int = 7,
          bots: tuple[str, ...] = ("easy",)) -> Table:
    return new_table(players, list(people), list(bots), "mino", "standard", seed)


def reference_game(seed: int, people: int = 1, players: int = 4, bid: int = 1) -> Table:
    """The game as the terminal has always played it, straight on the table: people first
    (each bids ``bid``, rolls the first legal die), then the bots in the order the game
    waits for them, each asked as the table asks a bot."""
    game = table(tuple(f"P{i}" for i in range(people)), players, seed)
    while not game.is_over():
        waiting = game.to_act()
        seat = next((s for s in waiting if game.seats[s].is_human), waiting[0])
        if game.seats[seat].is_human:
            action: Action = (Bid(min(bid, game.round_no)) if game.view(seat).phase is Phase.BID
                              else first_legal_roll(game, seat))
        else:
            action = game.bot_decision(seat)
        game.act(seat, action)
    return game


def first_legal_roll(game: Table, seat: int) -> Roll:
    """The die the cursor starts on: the first legal one in the dice panel's order."""
    view = game.view(seat)
    legal = {a.kind.name: a for a in view.legal_actions if isinstance(a, Roll)}
    kind = next(k.name for k in view.dice_set.kinds if view.hand.counts[k.index]
                and k.name in legal)
    return legal[kind]


# -- a whole game ------------------------------------------------------------------------------


async def test_a_whole_game_asks_each_decision_once_and_saves_it(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    game = Game(table(), GameFile(path))
    await game.begin()
    assert game.mode() is Mode.BID  # the person is asked first, at once
    seen = await game.play_to_the_end()
    assert game.table.is_over()
    assert game.mode() is Mode.OVER
    assert seen.count("bid") == 8                  # one bid per round, 8 rounds with 4 players
    assert seen.count("play") == sum(range(1, 9))  # one die per trick: 36
    assert seen.count("ack") == sum(range(1, 9))   # every trick acknowledged
    summaries = [p for p in game.screen.pages if isinstance(p, RoundSummaryPage)]
    assert [p.round_no for p in summaries] == list(range(1, 9))
    assert len(game.screen.rolls) == 4 * sum(range(1, 9))  # every die shown rolling
    over = game.screen.top
    assert over is not None
    assert isinstance(over.what, GameOverPage)
    assert "wins with" in over.what.verdict or "Shared victory" in over.what.verdict
    loaded = parse_record(path.read_text("utf-8"))
    assert loaded.state.is_terminal()
    assert tuple(loaded.state.totals) == game.table.view(None).totals


@pytest.mark.parametrize(("seed", "people"), [(7, 1), (11, 2), (21, 1)])
async def test_a_seed_plays_the_game_it_always_did(seed: int, people: int) -> None:
    """People decide first and the bots one by one after them, each bot once the screen
    has shown the move before: the same decisions, rolls and scores as the terminal's own
    loop made for the same seed (the bots' generators depend on the order)."""
    game = Game(table(tuple(f"P{i}" for i in range(people)), seed=seed))
    await game.begin()
    await game.play_to_the_end(bid=1)
    assert game.table.record()["rounds"] == reference_game(seed, people).record()["rounds"]


async def test_bids_stay_secret_until_all_are_in_and_people_bid_first() -> None:
    game = Game(table())
    await game.begin()
    assert game.mode() is Mode.BID
    assert game.c.active == game.c.viewer == 0
    state = game.table.game_state()
    assert all(b < 0 for b in state.bids)  # no bot has bid before the person
    assert "Bids revealed" not in game.notes()
    await game.press("1", "enter")
    assert "Ana has bid." in game.notes()
    assert "Bids revealed: Ana 1" in game.notes()
    assert game.table.view(None).phase is not Phase.BID  # the bots bid after the person


def spoken(say: Callable[[str, Tone], None], said: list[str]) -> Callable[[str, Tone], None]:
    """``say`` that also keeps each line in ``said`` (the screen's log keeps four)."""
    def keep(text: str, tone: Tone = Tone.PLAIN) -> None:
        said.append(text)
        say(text, tone)
    return keep


async def test_the_person_called_you_is_told_you_have_bid() -> None:
    game = Game(table(("You",)))
    await game.begin()
    await game.press("1", "enter")
    assert "You have bid." in game.notes()
    assert "You has bid." not in game.notes()
    # to the end: every trick the person takes, and the verdict, in the second person
    for seed in (1, 2, 3):
        game = Game(table(("You",), seed=seed))
        said: list[str] = []
        game.c.say = spoken(game.c.say, said)  # type: ignore[method-assign, assignment]
        await game.begin()
        await game.play_to_the_end()
        assert any(text.startswith("You win the trick: ") for text in said)
        assert not any("You wins" in text for text in said)
        over = game.screen.top
        assert over is not None
        assert isinstance(over.what, GameOverPage)
        assert "You wins" not in over.what.verdict
        if game.table.view(None).totals[0] > max(game.table.view(None).totals[1:]):
            assert over.what.verdict.startswith("You win with ")


async def test_a_trick_waits_for_enter_and_other_keys_do_nothing_then() -> None:
    game = Game(table(seed=3))
    await game.begin()
    await game.play_to_the_end(stop=lambda: game.mode() is Mode.ACK)
    assert game.mode() is Mode.ACK
    assert game.c.log[-1].tone is Tone.GOOD
    assert "wins the trick" in game.c.log[-1].text
    decisions = game.table.decisions
    assert await game.press("1", "x", "up") == [False, False, False]
    assert game.mode() is Mode.ACK
    assert game.table.decisions == decisions  # nobody moved while the trick was shown
    await game.press("enter")
    top = game.screen.top  # round 1 had its one trick: its summary follows
    assert top is not None
    assert top.what == RoundSummaryPage(1)


async def test_the_round_summary_covers_the_table_until_enter() -> None:
    game = Game(table(seed=5))
    await game.begin()
    await game.press("1", "enter")
    await game.play_to_the_end(stop=lambda: game.screen.top is not None)
    top = game.screen.top
    assert top is not None
    assert top.what == RoundSummaryPage(1)
    assert game.c.frozen_round == 0  # the finished round's numbers stay on screen
    assert game.table.round_no == 2  # ... though the table has dealt the next
    await game.press("enter")
    assert game.c.frozen_round is None
    assert game.mode() is Mode.BID
    assert game.table.round_no == 2
    assert "Round 2: everyone draws 2 dice." in game.notes()


# -- bad input ---------------------------------------------------------------------------------


async def test_a_bid_larger_than_the_round_is_refused_with_the_reason() -> None:
    game = Game(table())
    await game.begin()
    await game.play_to_the_end(stop=lambda: game.mode() is Mode.BID
                               and game.table.round_no == 3, bid=0)
    assert await game.press("2", "7") == [True, True]
    assert game.c.bid_choice == 2  # not clamped to 3, not changed
    assert game.c.log[-1] == Note("You can bid 0 to 3 in round 3 (R6).", Tone.PROBLEM)
    await game.press("enter")
    assert game.table.view(0).bids[0] == 2


async def test_arrows_stay_within_the_bids_and_the_hand() -> None:
    game = Game(table())
    await game.begin()
    await game.press("down", "minus")
    assert game.c.bid_choice == 0
    await game.press("up", "up", "plus", "right")
    assert game.c.bid_choice == 1  # round 1: at most 1
    assert await game.press("x") == [False]  # a key that means nothing here


async def test_an_illegal_die_is_refused_with_the_reason_and_nothing_changes() -> None:
    game = Game(table(seed=3))
    await game.begin()
    for _ in range(400):
        await game.play_to_the_end(stop=lambda: game.mode() is Mode.PLAY, bid=0)
        seat = game.c.active
        assert seat is not None
        legal = {a.kind.name for a in game.table.legal(seat) if isinstance(a, Roll)}
        blocked = [i for i, k in enumerate(game.c.hand_kinds(seat)) if k not in legal]
        if not blocked:
            await game.press("enter")
            continue
        # The dice panel drawn from this state marks the die and says why.
        panel = render.dice_panel(game.c.words, game.c.seat_view(), game.c.cursor,
                                  game.c.show_faces, choosing=True).plain
        assert "✗" in panel
        assert "(R9)" in panel
        decisions = game.table.decisions
        await game.press(str(blocked[0] + 1), "enter")
        assert game.mode() is Mode.PLAY
        assert game.c.active == seat
        assert game.table.decisions == decisions
        assert game.c.log[-1].tone is Tone.PROBLEM
        assert "You must follow" in game.c.log[-1].text
        assert "(R9)" in game.c.log[-1].text
        return
    raise AssertionError("no turn with a disabled die came up")


async def test_a_decision_the_game_does_not_take_is_said_and_asked_again() -> None:
    """Should the controller ever send what the rules refuse, the driver says no, the table
    is as it was, and the person decides again: no traceback, nothing lost."""
    game = Game(table())
    await game.begin()
    decisions = game.table.decisions
    game.c.decide(0, Bid(5))  # more than round 1 allows
    await game.settle()
    assert game.table.decisions == decisions
    assert game.mode() is Mode.BID
    assert game.c.active == 0
    assert game.c.log[-1].tone is Tone.PROBLEM
    assert not game.c.stopped


async def test_help_keys_open_their_pages_and_say_when_there_is_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The advisor itself is tested on its own (and on screen in tests/tui): here it answers
    at once, and says what it was asked."""
    asked: list[tuple[object, ...]] = []

    def bid_advice(*args: object, **options: object) -> object:
        asked.append(("bid", *args, options))
        return "bid advice"

    def play_advice(view: SeatView, **options: object) -> object:
        asked.append(("play", view.seat, view.hand, options))
        return "play advice"

    monkeypatch.setattr(controller, "advise", bid_advice)
    monkeypatch.setattr(controller, "advise_play", play_advice)
    game = Game(table(seed=3))
    await game.begin()
    await game.press("t")
    assert "No trick has been won in this round yet." in game.notes()
    assert game.screen.top is None
    await game.press("f")
    assert game.c.show_faces
    await game.press("f")
    assert not game.c.show_faces
    for key, kind in (("r", RulesPage), ("s", ScorePadPage), ("a", BidAdvicePage)):
        await game.press(key)
        top = game.screen.top
        assert top is not None, key
        assert isinstance(top.what, kind), key
        await game.press("escape")
    assert game.mode() is Mode.BID  # nothing else changed
    view = game.table.view(0)
    position = (0 - view.starter) % 4
    assert asked == [("bid", 4, 1, position, view.hand, "mino", "standard",
                      {"seed": 0, "options": view.options})]  # the table's rule options
    assert game.screen.pages[-1] == BidAdvicePage("bid advice")
    await game.press("1", "enter")
    await game.play_to_the_end(stop=lambda: game.mode() is Mode.PLAY
                               and bool(game.c.round_log))
    await game.press("a")
    top = game.screen.top
    assert top is not None
    assert top.what == PlayAdvicePage("play advice")
    assert asked[-1] == ("play", 0, game.table.view(0).hand, {"seed": 0})
    await game.press("escape", "t")
    top = game.screen.top
    assert top is not None
    assert isinstance(top.what, RoundTricksPage)
    assert [list(t) for t, _w in top.what.tricks] == [t for t, _w in game.c.round_log]


async def test_advice_off_your_turn_is_refused_with_a_hint() -> None:
    game = Game(table(seed=3))
    await game.begin()
    await game.play_to_the_end(stop=lambda: game.mode() is Mode.ACK)
    await game.press("a")
    assert game.screen.top is None
    assert "The advisor helps on your turn" in game.notes()


# -- several people at one screen --------------------------------------------------------------


async def test_hot_seat_passes_the_keyboard_and_hides_the_dice_meanwhile() -> None:
    game = Game(table(("Ana", "Ben"), seed=11))
    await game.begin()
    viewers: list[int | None] = []
    while game.screen.top is None or not isinstance(game.screen.top.what, GameOverPage):
        top = game.screen.top
        if top is not None and isinstance(top.what, int):
            viewers.append(game.c.viewer)
            await game.press("enter")
            assert game.c.viewer == game.c.active == top.what  # the person passed to
        else:
            await game.play_to_the_end(stop=lambda: game.screen.top is not None
                                       and isinstance(game.screen.top.what, int))
    assert set(viewers) == {None}  # nobody's dice while the keyboard changes hands
    assert game.screen.passes.count(0) >= 8
    assert game.screen.passes.count(1) >= 8
    assert game.table.is_over()


# -- saving, quitting, resuming ----------------------------------------------------------------


async def test_quit_saves_and_resume_continues_exactly(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    game = Game(table(seed=21), GameFile(path))
    await game.begin()
    await game.play_to_the_end(stop=lambda: game.table.round_no == 3
                               and game.mode() is Mode.PLAY)
    await game.press("q")
    assert game.screen.exit_code == 0
    assert "minodice play --resume" in game.c.exit_note
    game.c.close()
    resumed = Game(resume_table(path), GameFile(path))
    assert resumed.table.view(None).phase is Phase.PLAY
    await resumed.begin()
    # The round so far is on screen again: its tricks, and the trick in play.
    view = resumed.table.view(None)
    assert [w for _t, w in resumed.c.round_log] == list(view.round_trick_winners)
    assert len(resumed.c.shown_trick) == len(view.trick)
    await resumed.play_to_the_end()
    assert resumed.table.record()["rounds"] == reference_game(21).record()["rounds"]


async def test_quit_in_the_middle_of_bidding_keeps_the_bids_made(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    game = Game(table(("Ana", "Ben"), seed=4), GameFile(path))
    await game.begin()
    await game.press("enter", "1", "enter")  # Ana bids; the keyboard goes to Ben
    assert game.screen.top is not None
    assert game.screen.top.what == 1
    await game.press("enter", "q")
    resumed = Game(resume_table(path))
    await resumed.begin()
    assert resumed.screen.passes == [1]  # Ben's turn, Ana's bid kept
    await resumed.press("enter", "0", "enter")
    assert resumed.table.view(None).phase is not Phase.BID
    assert resumed.table.view(None).bids[:2] == (1, 0)


async def test_quit_saves_to_the_game_file_and_exits_zero(tmp_path: Path) -> None:
    game = Game(table(), GameFile.create(tmp_path / "games", "{}"))
    await game.begin()
    await game.press("q")
    assert game.screen.exit_code == 0
    assert not game.c.unsaved
    assert game.c.game is not None
    assert parse_record(game.c.game.path.read_text("utf-8"))
    game.c.close_games()


def break_folder(folder: Path) -> None:
    """Every save in ``folder`` fails from now on (a real failure, even for root)."""
    shutil.rmtree(folder)
    folder.write_text("not a folder any more", "utf-8")


async def test_a_failed_save_keeps_the_game_open_until_saved_elsewhere_or_a_second_q(
        tmp_path: Path) -> None:
    folder = tmp_path / "games"
    game = Game(table(), GameFile.create(folder, "{}"))
    await game.begin()
    break_folder(folder)
    await game.press("q")
    assert game.screen.exit_code is None  # the game stays open
    assert game.c.unsaved
    assert game.c.save_problem().startswith("Could not save the game to ")
    assert game.c.save_problem().endswith(": Not a directory.")
    assert game.c.keys_hint().startswith("o save in another folder")
    await game.press("o")
    assert game.screen.folders_asked == 1
    blocked = tmp_path / "blocked"
    blocked.write_text("a file", "utf-8")
    assert game.c.save_elsewhere(blocked) == (
        f"Could not save the game to {blocked}: Not a directory.")
    assert game.c.unsaved
    await game.press("q")  # the second q leaves without a saved game
    assert game.screen.exit_code == 1
    assert "The game was not saved." in game.c.exit_note
    game.c.close_games()


async def test_another_folder_saves_the_game_and_quit_then_names_it(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    game = Game(table(), GameFile.create(folder, "{}"))
    await game.begin()
    await game.press("1", "enter")
    break_folder(folder)
    await game.press("q")
    assert game.c.save_elsewhere(tmp_path / "elsewhere") is None
    assert not game.c.unsaved
    assert game.c.game is not None
    assert game.c.game.path.parent == tmp_path / "elsewhere"
    assert game.c.saved_message.startswith("Saved to ")
    await game.press("q")
    assert game.screen.exit_code == 0
    assert str(game.c.game.path) in game.c.exit_note
    saved = parse_record(game.c.game.path.read_text("utf-8"))
    assert saved.state.rounds[0].bids is not None
    game.c.close_games()


async def test_the_end_offers_a_new_game_or_leaving() -> None:
    game = Game(table(players=3))
    await game.begin()
    await game.play_to_the_end()
    top = game.screen.top
    assert top is not None
    assert isinstance(top.what, GameOverPage)
    assert "Press n for a new game" in top.what.hint
    await game.press("n")
    assert game.c.again
    assert game.screen.exit_code == 0

    other = Game(table(players=3))
    await other.begin()
    await other.play_to_the_end()
    await other.press("enter")  # the ranking closes: the table, over
    assert other.mode() is Mode.OVER
    assert other.screen.exit_code is None
    await other.press("q")
    assert other.screen.exit_code == 0
    assert not other.c.again


# -- a failing bot, a bug ----------------------------------------------------------------------


BROKEN_BOT = """
class Broken:
    def act(self, view, legal, rng):
        raise RuntimeError("my strategy fell over")
"""


async def test_an_outside_bot_that_raises_is_named_and_the_game_saved(tmp_path: Path) -> None:
    plugin = tmp_path / ("very-long-folder-name-" * 4) / "broken_bot.py"
    plugin.parent.mkdir()
    plugin.write_text(BROKEN_BOT, "utf-8")
    folder = tmp_path / "games"
    game = Game(table(bots=(f"{plugin}:Broken",)), GameFile.create(folder, "{}"))
    await game.begin()
    await game.press("1", "enter")  # the bots bid after Ana
    assert game.mode() is Mode.OVER
    assert game.c.stopped
    last = game.c.log[-1]
    assert last.tone is Tone.PROBLEM
    assert last.text.startswith("The bot Ariadne failed: ")
    assert "my strategy fell over" in last.text
    assert "broken_bot.py:Broken" in last.text
    assert str(plugin) not in last.text
    assert not list(folder.glob("*.log"))  # a bot's own failure is no bug of ours
    assert game.c.game is not None
    saved = parse_record(game.c.game.path.read_text("utf-8"))
    assert saved.extra["session"]["bids"][0] == 1  # saved as it stopped, Ana's bid in
    assert game.c.over_hint().startswith("The game stopped before its end.")  # not "over"
    assert await game.press("1", "up") == [False, False]  # nobody plays on
    await game.press("enter")  # Enter leaves, as at the end of a game
    assert game.screen.exit_code == 0
    game.c.close_games()


async def test_a_built_in_bot_that_fails_is_a_bug_of_ours(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: EasyBot, *args: object) -> Action:
        raise KeyError("a bug in a built-in bot")

    monkeypatch.setattr(EasyBot, "act", broken)
    folder = tmp_path / "games"
    game = Game(table(), GameFile.create(folder, "{}"))
    await game.begin()
    await game.press("1", "enter")
    assert game.mode() is Mode.OVER
    (log,) = folder.glob("*.log")
    text = log.read_text("utf-8")
    assert "Traceback" in text
    assert "KeyError: 'a bug in a built-in bot'" in text
    assert "The bot" not in game.notes()
    assert str(log) in game.c.exit_note
    assert "--resume" in game.c.exit_note  # saved, unfinished: it can go on
    await game.press("q")
    assert game.screen.exit_code == 1  # a bug: minodice play exits non-zero
    game.c.close_games()


async def test_a_bug_in_the_engine_is_written_to_a_log_with_its_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "games"
    game = Game(table(), GameFile.create(folder, "{}"))
    real_view = Table.view

    def view(self: Table, seat: int | None) -> SeatView:
        # what a bot is asked is its seat's view: the engine breaks building it
        if seat is not None and self.seats[seat].bot is not None:
            raise ZeroDivisionError("a bug in the engine")
        return real_view(self, seat)

    monkeypatch.setattr(Table, "view", view)
    await game.begin()
    await game.press("1", "enter")
    assert game.mode() is Mode.OVER
    (log,) = folder.glob("*.log")
    text = log.read_text("utf-8")
    assert "Traceback" in text
    assert "ZeroDivisionError: a bug in the engine" in text
    assert "The bot" not in game.notes()  # not blamed on the bot
    assert "A bug in minodice stopped the game" in game.notes()
    assert str(log) in game.c.exit_note
    game.c.close_games()


@pytest.mark.parametrize("start", list(StartRule))
def test_a_past_round_shows_the_start_player_it_had(start: StartRule) -> None:
    """The round summary's start mark: under either reading of R5 (the next seat each round,
    or round 1's starter every round), every finished round names the seat that started it."""
    table = new_table(5, (), ("easy",), seed=11, first_starter=3,
                      options=RuleOptions(start=start))
    started: list[int] = []
    while not table.is_over():
        view = table.view(None)
        if view.round_no > len(started):
            started.append(view.starter)
        for index in range(len(view.history)):
            assert render.round_starter(view, index) == started[index], (start, index)
        table.act(table.to_act()[0], table.bot_decision(table.to_act()[0]))
    assert started == [3 if start is StartRule.FIXED else (3 + i) % 5 for i in range(7)]


async def test_a_rounds_last_dice_roll_on_its_own_screen() -> None:
    """While the round's last dice rolled, the screen showed the next round for a moment
    (its header, the new dice, bids to come, the round's scores already counted), as the
    table had played on: the round stays frozen from its last trick's first roll shown."""
    game = Game(table(seed=11))
    seen: list[tuple[int | None, int | None]] = []  # (round frozen, round being shown)
    roll = game.screen.show_roll

    def rolling(shown: Shown, then: Callable[[], None]) -> None:
        scored = [e.round_no for e in game.c.queue if isinstance(e, RoundScored)]
        seen.append((game.c.frozen_round, scored[0] - 1 if scored else None))
        roll(shown, then)

    game.screen.show_roll = rolling  # type: ignore[method-assign, assignment]
    await game.begin()
    await game.play_to_the_end()
    behind = [(frozen, shown) for frozen, shown in seen if shown is not None]
    assert len(behind) >= 8  # every round's last dice, at least
    assert all(frozen == shown for frozen, shown in behind), behind
