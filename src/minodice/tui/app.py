"""The table in the terminal: a Textual app over a :class:`~minodice.play.table.Table`.

The app draws and animates; what the keys do and how the game goes on is the
:class:`~minodice.tui.controller.TableController`'s (plain Python, played through the one
game driver, tested without a terminal). The app is the controller's
:class:`~minodice.tui.controller.Screen`: it draws the table from the controller's state,
rolls a die with a short animation unless ``delay`` is 0, opens the pages (round summary,
final ranking, rules, score pad, advisor, the round's tricks), the "pass to NAME" screen
between people at one screen (hot seat) and the folder page when a save failed, and hands
every key to the controller.

The screen never reads the engine state: every panel is drawn from a
:class:`~minodice.core.view.SeatView` of the person at the keyboard (or a spectator's
view with no hand while the keyboard changes hands) and the table's public facts.

The game is saved (:class:`~minodice.play.saves.GameFile`) after every person's bid, every
trick and round, and on ``q`` (Ctrl+C and Ctrl+Q too, on the table or any page over it,
the "pass to NAME" screen included). SIGHUP (the terminal closed), SIGTERM and SIGINT save
and quit as ``q`` does, and Textual gives the terminal back. A save that fails is said on
screen (on a page too), where and why; the game stays open, ``o`` saves it in another
folder, and quitting without a saved game needs a second ``q`` and ends with ``unsaved``
set (``minodice play`` then exits non-zero); after a signal nobody is asked twice.
"""

from __future__ import annotations

import asyncio
import random
import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static

from minodice.core.state import Phase
from minodice.i18n.rules import house_rules_paragraph, rules_paragraphs
from minodice.play.runners import BotRunner
from minodice.play.saves import GameFile, save_table
from minodice.play.table import Table
from minodice.tui import render
from minodice.tui.controller import (
    BidAdvicePage,
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
    short_path,
)
from minodice.tui.screens import FolderScreen, OverTable, PageScreen, PassScreen

CSS = """
Screen { layout: vertical; }
#header { height: 1; background: $primary-darken-2; color: $text; padding: 0 1; }
#table { height: 1fr; }
#table > Static { height: 1fr; }
#dice { width: 3fr; border: round $primary; padding: 0 1; }
#trick { width: 3fr; border: round $secondary; padding: 0 1; }
#players { width: 4fr; border: round $accent; padding: 0 0; }
#log { height: 4; padding: 0 1; }  /* LOG_ROWS */
#prompt { height: 2; padding: 0 1; background: $boost; }
#prompt.problem { height: auto; min-height: 2; max-height: 6; }  /* where and why, whole */
#keys { height: 1; padding: 0 1; color: $text-muted; }
.box { width: 90%; max-width: 100; height: 90%; border: thick $accent;
       background: $panel; padding: 0 1; }
#pass-box { height: auto; padding: 1 2; }
PassScreen, PageScreen, FolderScreen { align: center middle; background: $background; }
#pass-title, #page-title { text-style: bold; margin-bottom: 1; width: 100%;
                           text-align: center; }
#page-scroll { height: 1fr; }
#page-hint { height: 1; color: $text-muted; }
.problem-line { height: auto; }
#folder-box { height: auto; padding: 1 2; }
#folder-title { text-style: bold; margin-bottom: 1; }
#folder-error { height: auto; }
#folder-hint { color: $text-muted; }
"""

LOG_ROWS = 4  # the height of #log
PROMPT_NAME = 24  # the cells of a name in the prompt (a new game's names are no longer)

#: The signals that end a game as q does (saved, the terminal restored): the terminal
#: closed (SIGHUP), ``kill PID`` (SIGTERM), ``kill -INT PID``.
HANG_UPS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM", "SIGINT")
                 if hasattr(signal, name))

#: The keys that save and quit, on the table and on every page over it.
QUIT_KEYS = ("q", "ctrl+q", "ctrl+c")

#: How each tone of message is drawn.
TONE_STYLES = {Tone.PLAIN: "", Tone.STRONG: "bold", Tone.GOOD: "bold green",
               Tone.PROBLEM: "bold red"}

__all__ = ["TableApp", "save_table", "short_path"]


class Panel(Static):
    """A part of the table, drawn to its size: drawn again when its size changes."""

    def on_resize(self) -> None:
        if isinstance(self.app, TableApp):
            self.app.panel_resized()


class TableApp(App[None]):
    """Mino Dice at one terminal: the controller's screen."""

    CSS = CSS
    ENABLE_COMMAND_PALETTE = False
    # Ctrl+Q and Ctrl+C save and quit as q does, whatever is open (Textual's own Ctrl+Q
    # would leave without saving; its Ctrl+C only says to press Ctrl+Q).
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "save_and_quit", show=False, priority=True),
        Binding("ctrl+c", "save_and_quit", show=False, priority=True),
    ]

    def __init__(
        self,
        table: Table,
        lang: str = "en",
        save_to: GameFile | Path | None = None,
        delay: float = 0.5,
        command: str = "minodice",
        runner: BotRunner | None = None,
    ) -> None:
        """``save_to``: the game's file (a path is saved to without a lock); ``command``:
        how the person runs minodice again, for the note after play; ``runner``: how the
        bots are asked (in this process by default)."""
        super().__init__()
        game = GameFile(save_to) if isinstance(save_to, Path) else save_to
        self.controller = TableController(table, self, lang, game, delay, command,
                                          runner=runner)
        self.delay = delay
        self.rolling: tuple[int, int, str] | None = None  # a die in the air: a face shown
        self._signals: list[int] = []  # the signals this app answers (see HANG_UPS)
        self.table_drawn = False  # the table drawn once: a resize draws it again
        self.redraw_pending = False
        self._hanging_up: asyncio.Task[None] | None = None

    # -- the controller's state, as the app's (for the command and the tests) -------------

    @property
    def table(self) -> Table:
        return self.controller.table

    @property
    def names(self) -> list[str]:
        return self.controller.names

    @property
    def mode(self) -> Mode:
        return self.controller.mode

    @property
    def active(self) -> int | None:
        return self.controller.active

    @property
    def viewer(self) -> int | None:
        return self.controller.viewer

    @property
    def bid_choice(self) -> int:
        return self.controller.bid_choice

    @property
    def show_faces(self) -> bool:
        return self.controller.show_faces

    @property
    def round_log(self) -> list[tuple[list[Shown], int]]:
        return self.controller.round_log

    @property
    def game(self) -> GameFile | None:
        return self.controller.game

    @property
    def save_path(self) -> Path | None:
        return self.controller.save_path

    @property
    def unsaved(self) -> bool:
        return self.controller.unsaved

    @property
    def exit_note(self) -> str:
        return self.controller.exit_note

    @property
    def again(self) -> bool:
        return self.controller.again

    @property
    def hung_up(self) -> bool:
        """The game ended on a signal (the terminal closed, ``kill``), not a key."""
        return self.controller.hung_up

    def hand_kinds(self, seat: int) -> list[str]:
        return self.controller.hand_kinds(seat)

    def keys_text(self) -> str:
        """The keys line, as it fits the screen (``q`` always on it)."""
        width = self.query_one("#keys", Static).content_size.width or self.size.width - 2
        return self.controller.keys_hint(max(width, 0))

    def close_games(self) -> None:
        self.controller.close_games()

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Panel(id="header")
        with Horizontal(id="table"):
            yield Panel(id="dice")
            yield Panel(id="trick")
            yield Panel(id="players")
        yield Panel(id="log")
        yield Panel(id="prompt")
        yield Panel(id="keys")

    def on_mount(self) -> None:
        self.title = self.controller.words.title()
        if not self.is_headless:  # a test's app leaves the test runner's signals alone
            self.catch_hang_ups()
        self.controller.begin()
        self.refresh_table()
        self.table_drawn = True
        self.call_after_refresh(self.controller.next_decision)

    def panel_resized(self) -> None:
        """A panel has a new size (the terminal's changed): draw the table again, once for
        all the panels resized together. Each is fitted to its width (names, headings, the
        dice rolled, the keys) and was otherwise kept at the old one until the next move."""
        if self.table_drawn and not self.redraw_pending:
            self.redraw_pending = True
            self.call_later(self.redraw_for_size)

    def redraw_for_size(self) -> None:
        self.redraw_pending = False
        self.refresh_table()

    def on_unmount(self) -> None:
        self.release_hang_ups()
        self.controller.close()

    # -- the terminal going away -----------------------------------------------------------

    def catch_hang_ups(self) -> None:
        """Answer SIGHUP, SIGTERM and SIGINT as q: the game saved, the terminal restored."""
        loop = asyncio.get_running_loop()
        for signum in HANG_UPS:
            try:
                loop.add_signal_handler(signum, self.hang_up)
            except (ValueError, RuntimeError, NotImplementedError):  # not the main thread
                continue
            self._signals.append(signum)

    def release_hang_ups(self) -> None:
        """Give the signals back; after a hang-up, ignore them while the program ends (a
        closed terminal may send SIGHUP twice: from the kernel and from the shell)."""
        loop = asyncio.get_running_loop()
        while self._signals:
            signum = self._signals.pop()
            loop.remove_signal_handler(signum)
            if self.hung_up:
                signal.signal(signum, signal.SIG_IGN)

    def hang_up(self) -> None:
        """The terminal closed, or the process was told to end: save (a decision on its
        way first) and leave; a second signal changes nothing."""
        if self._hanging_up is None:
            self._hanging_up = asyncio.ensure_future(self._hang_up())

    async def _hang_up(self) -> None:
        await self.controller.settle()
        self.controller.hang_up()

    def action_save_and_quit(self) -> None:
        self.controller.quit_and_save()

    def refresh_table(self) -> None:
        c = self.controller
        view = c.seat_view()
        _ = c._
        words = c.words
        names = c.names
        trick_no = 0
        if view.phase in (Phase.PLAY, Phase.ROLL):  # the trick shown: one just won, or in play
            trick_no = len(c.round_log) + (0 if c.mode is Mode.ACK else 1)
        round_no = view.round_no
        starter = view.starter
        if c.frozen_round is not None:
            round_no = trick_no = c.frozen_round + 1
            starter = render.round_starter(view, c.frozen_round)
        where = " · " + _("Round {n}/{total}").format(n=round_no, total=view.rounds)
        if trick_no:
            where += " · " + _("Trick {n}/{total}").format(n=trick_no, total=round_no)
        header_box = self.query_one("#header", Static)
        self.query_one("#header", Static).update(render.header(
            words.title(), where, _("Start player: {name}"), names, starter,
            header_box.content_size.width or max(10, self.size.width - 2)))
        choosing = c.mode is Mode.PLAY and c.active == c.viewer
        if c.frozen_round is not None:  # the next round's dice wait for its summary
            dice = Text(_("Round over."), style="italic")
        else:
            dice = render.dice_panel(words, view, c.cursor, c.show_faces, choosing)
        self.query_one("#dice", Static).update(dice)
        won = c.mode is Mode.ACK and bool(c.round_log)
        previous = c.round_log[-2 if won else -1] if len(c.round_log) > won else None
        trick_box = self.query_one("#trick", Static)
        trick_box.update(render.trick_panel(
            words, view.dice_set, c.shown_trick, names, self.rolling,
            c.round_log[-1][1] if won else None, previous, trick_box.content_size.height,
            trick_box.content_size.width))
        players_box = self.query_one("#players", Static)
        rolled = [r for rolls, _w in c.round_log for r in rolls]
        if not won:
            rolled += c.shown_trick
        width = players_box.content_size.width or 28
        players_box.update(Group(
            render.players_panel(words, view, names, c.active, c.frozen_round, width),
            Text(),
            Padding(render.rolled_this_round(words, view.dice_set, rolled, width - 2),
                    (0, 1))))
        self.query_one("#log", Static).update(self.newest_log_lines())
        prompt = self.query_one("#prompt", Static)
        prompt.set_class(c.unsaved, "problem")
        prompt.update(self.prompt_text())
        self.query_one("#keys", Static).update(Text(self.keys_text(), style="dim"))

    def newest_log_lines(self) -> Group:
        """The newest messages that fit the log's 4 rows, wrapped as they will be shown:
        a long message (a path, a bot's error) never hides the ones after it."""
        width = self.query_one("#log", Static).content_size.width or max(10, self.size.width - 2)
        shown: list[Text] = []
        rows = 0
        for note in reversed(self.controller.log):
            line = note_text(note)
            rows += len(line.wrap(self.console, width))
            if rows > LOG_ROWS and shown:
                break
            shown.append(line)
        return Group(*reversed(shown))

    def prompt_text(self) -> Text:
        c = self.controller
        _ = c._
        text = Text()
        # A name of a resumed record may be longer than a new game's (24): cut, the prompt
        # keeps its two lines.
        names = render.fit_names(c.names, PROMPT_NAME)
        if c.mode is Mode.BID and c.active is not None:
            text.append(_("Your bid, {name}: ").format(name=names[c.active]))
            text.append(f" {c.bid_choice} ", style="reverse bold")
            text.append("  " + _("0 to {n}: ↑↓ or digits, Enter confirms. Secret until all "
                                  "have bid.").format(n=c.table.round_no))
        elif c.mode is Mode.PLAY and c.active is not None:
            text.append(_("Choose a die to roll, {name}: digits or ↑↓, Enter rolls it.").format(
                name=names[c.active]))
        elif c.mode is Mode.ACK:
            text.append(_("Press Enter to continue."), style="bold")
        elif c.mode is Mode.OVER:
            text.append(c.over_hint(), style="bold")
        else:
            text.append(_("Waiting…"), style="dim")
        if c.unsaved:
            text.append("\n" + c.save_problem() + " " + _(
                "Press o to save it in another folder."), style="bold red")
        elif c.saved_message:
            text.append("\n" + c.saved_message, style="dim")
        return text

    # -- the controller's screen -----------------------------------------------------------

    def redraw(self) -> None:
        self.refresh_table()
        top = self.screen
        if isinstance(top, OverTable):
            top.show_problem(self.page_problem(top.hint))

    def page_problem(self, hint: str = "") -> str:
        """What a page over the table says of a failed save (the table's prompt is hidden
        under it): where and why, and what o and q do now; nothing the ``hint`` says."""
        c = self.controller
        _ = c._
        if not c.unsaved:
            return ""
        problem = c.save_problem() + " " + (
            _("The game is not saved. Press o to save it in another folder, or q again to "
              "quit without saving.") if c.quitting else
            _("Press o to save it in another folder."))
        return "" if problem in hint else problem

    def later(self, callback: Callable[[], None]) -> None:
        self.call_later(callback)

    def after(self, seconds: float, callback: Callable[[], None]) -> None:
        self.set_timer(seconds, callback)

    def show_roll(self, roll: Shown, then: Callable[[], None]) -> None:
        """A few random faces of the die, then ``then`` (the controller lands it)."""
        if not self.delay:
            then()
            return
        seat, kind_index, _code = roll
        kind = self.table.config.dice_set.kinds[kind_index]
        faces = [f.name for f in kind.faces]
        frames = [random.choice(faces) for _ in range(4)]

        def frame(i: int) -> Callable[[], None]:
            def show() -> None:
                if i < len(frames):
                    self.rolling = (seat, kind_index, frames[i])
                    self.refresh_table()
                    self.set_timer(self.delay / 6, frame(i + 1))
                else:
                    self.rolling = None
                    then()
            return show

        frame(0)()

    def show_page(self, page: Page, then: Callable[[], None] | None = None,
                  keys: Mapping[str, Callable[[], None]] | None = None) -> None:
        c = self.controller
        _ = c._
        close = _("Enter or Esc closes this page.")
        title, content, hint = self.page_content(page, close)
        self.push_screen(PageScreen(title, content, hint, dict(keys or {}),
                                    self.page_problem(hint)),
                         None if then is None else lambda _result: then())

    def page_content(self, page: Page, close: str) -> tuple[str, RenderableType, str]:
        """A page's title, content and hint."""
        c = self.controller
        _ = c._
        words, names = c.words, c.names
        if isinstance(page, RulesPage):
            house = house_rules_paragraph(words, c.table.config.options)
            paragraphs = ([house] if house else []) + rules_paragraphs(words)
            return _("Rules"), Text("\n\n".join(paragraphs)), close
        if isinstance(page, ScorePadPage):
            return (_("Score pad"),
                    render.score_pad(words, c.table.view(None), names, title=False), close)
        if isinstance(page, RoundTricksPage):
            return (_("Tricks this round"),
                    render.round_tricks_table(words, c.table.config.dice_set, page.tricks,
                                              names), close)
        if isinstance(page, BidAdvicePage):
            return _("Bid advisor"), render.advice_page(words, page.advice), close
        if isinstance(page, PlayAdvicePage):
            return (_("Play advisor"),
                    render.play_advice_page(words, c.table.config.dice_set, page.advice),
                    close)
        if isinstance(page, RoundSummaryPage):
            return (_("End of round {n}").format(n=page.round_no),
                    render.round_table(words, c.table.view(None), names, page.round_no - 1),
                    _("Press Enter to continue."))
        view = c.table.view(None)
        content = Group(Text(page.verdict, style="bold"), Text(),
                        render.ranking(words, view, names), Text(),
                        render.score_pad(words, view, names))
        return _("Game over"), content, page.hint

    def pass_keyboard(self, seat: int, then: Callable[[], None]) -> None:
        _ = self.controller._
        name = self.names[seat]
        self.push_screen(
            PassScreen(_("Pass to {name}").format(name=name),
                       _("Nobody else should look at the screen now. Press Enter when {name} "
                         "is ready.").format(name=name), self.page_problem()),
            lambda _result: then())

    def choose_folder(self) -> None:
        c = self.controller
        _ = c._
        suggestion = Path.home() / "minodice-games"
        self.push_screen(FolderScreen(
            _("Save the game in another folder"), c.save_problem(),
            _("Enter saves the game there · Esc goes back to the table"), suggestion,
            c.save_elsewhere), lambda _folder: self.redraw())

    def close_app(self, code: int) -> None:
        self.exit(return_code=code)

    # -- keys ------------------------------------------------------------------------------

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if len(self.screen_stack) > 1:
            # A page or the pass screen has the keyboard (Enter, Esc…), but q saves and
            # quits from any of them (the pass screen stays: nobody's dice show), and o
            # saves in another folder once a save failed. The folder page is typed in.
            if isinstance(self.screen, OverTable):
                if key in QUIT_KEYS:
                    self.controller.quit_and_save()
                elif key == "o" and self.controller.unsaved and self.game is not None:
                    self.choose_folder()
                else:
                    return
                if hasattr(event, "stop"):
                    event.stop()
            return
        handled = self.controller.handle_key(key)
        if handled and hasattr(event, "stop"):
            event.stop()


def note_text(note: Note) -> Text:
    """A message of the log as it is drawn."""
    return Text(note.text, style=TONE_STYLES[note.tone])
