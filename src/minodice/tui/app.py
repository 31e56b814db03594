"""The table in the terminal: a Textual app over a :class:`~minodice.play.table.Table`.

The screen never reads the engine state: every panel is drawn from a
:class:`~minodice.core.view.SeatView` of the person at the keyboard (or a spectator's
view with no hand while the keyboard changes hands) and the table's public facts.

The app is a small state machine. ``mode`` is what the keyboard does now:

- ``bid``  — a person chooses a bid (digits or ↑↓, Enter confirms; bids stay secret);
- ``play`` — a person chooses a die (digits or ↑↓, Enter rolls it);
- ``ack``  — a trick was won: Enter continues;
- ``wait`` — bots are thinking or dice are rolling;
- ``over`` — the game is over.

Events from the table (rolls, tricks, bids revealed, rounds scored) are queued and shown
one at a time, with a short roll animation unless ``delay`` is 0. With several people at
one screen (hot seat) the dice panel is hidden after each person's decision, and a
"pass to NAME" screen comes before the next person's turn.

The game is saved (:class:`~minodice.play.saves.GameFile`) after every trick and round and
on ``q``. A save that fails is said on screen, where and why; the game stays open, ``o``
saves it in another folder, and quitting without a saved game needs a second ``q`` and
ends with ``unsaved`` set (``minodice play`` then exits non-zero).

A bot's own failure (an outside bot raising, or choosing an illegal action) is said and
ends the game; anything else is a bug in minodice: its traceback goes to a log file, and
the screen and the exit note say where.
"""

from __future__ import annotations

import asyncio
import random
import shlex
from collections import deque
from collections.abc import Callable
from pathlib import Path

from rich.console import Group
from rich.padding import Padding
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from minodice.bots.advisor import advise, advise_play
from minodice.bots.protocol import BUILTIN_BOTS, BotError
from minodice.core.actions import Action, Bid, Roll
from minodice.core.record import dumps_record
from minodice.core.rules import winners
from minodice.core.state import Phase
from minodice.core.view import PublicRoll, SeatView
from minodice.i18n import translator
from minodice.i18n.rules import rules_paragraphs
from minodice.i18n.words import Words
from minodice.play.saves import GameFile, SaveError, save_table
from minodice.play.table import (
    BidMade,
    BidsRevealed,
    Dealt,
    Event,
    GameOver,
    Rolled,
    RoundScored,
    RoundStarted,
    Table,
    TrickWon,
)
from minodice.text.safe import printable
from minodice.tui import render
from minodice.tui.failures import write_crash_log
from minodice.tui.screens import FolderScreen, PageScreen, PassScreen

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
#folder-box { height: auto; padding: 1 2; }
#folder-title { text-style: bold; margin-bottom: 1; }
#folder-error { height: auto; }
#folder-hint { color: $text-muted; }
"""

LOG_ROWS = 4  # the height of #log

__all__ = ["TableApp", "save_table"]


def short_path(path: Path, limit: int = 50) -> str:
    """``path`` short enough for the prompt line: the home folder as ``~``, and a long
    path as its last folder and file name (the note after play gives it whole)."""
    shown = str(path)
    try:
        home = Path.home()
    except RuntimeError:  # no home folder known: the path as it is
        home = None
    if home is not None and path.is_relative_to(home):
        shown = str(Path("~") / path.relative_to(home))
    if len(shown) > limit:
        shown = str(Path("…") / path.parent.name / path.name)
    if len(shown) > limit:
        shown = str(Path("…") / path.name)
    return printable(shown)


class TableApp(App[None]):
    """Mino Dice at one terminal."""

    CSS = CSS
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        table: Table,
        lang: str = "en",
        save_to: GameFile | Path | None = None,
        delay: float = 0.5,
        command: str = "minodice",
    ) -> None:
        """``save_to``: the game's file (a path is saved to without a lock); ``command``:
        how the person runs minodice again, for the note after play."""
        super().__init__()
        self.table = table
        self.names = [printable(n) for n in table.names]  # what people typed, shown as typed
        self.lang = lang
        self.words = Words(translator(lang), table.config.dice_set)
        self._ = self.words._
        self.game = GameFile(save_to) if isinstance(save_to, Path) else save_to
        self.command = command
        self.unsaved = False      # the last save failed: the game on screen is in no file
        self.save_error: SaveError | None = None  # where and why the last save failed
        self.quitting = False     # q after a failed save: a second q leaves unsaved
        self.crash_log: Path | None = None
        self.delay = delay
        self.mode = "wait"
        self.active: int | None = None      # the person whose decision is asked for
        self.viewer: int | None = None      # whose dice the screen shows
        self.bid_choice = 0
        self.cursor = 0
        self.show_faces = False
        self.log_lines: deque[Text] = deque(maxlen=4)
        self.shown_trick: list[render.Shown] = []   # the trick in play, as far as shown
        # The round's finished tricks as shown, each with its winner: the previous trick,
        # the dice rolled this round and the tricks page come from here (not from the
        # table, which may be a roll ahead of the screen).
        self.round_log: list[tuple[list[render.Shown], int]] = []
        self.again = False  # the person asked for a new game at the end
        self.rolling: tuple[int, int, str] | None = None
        self.queue: deque[Event] = deque()
        self.hot_seat = len(table.humans) > 1
        self.saved_message = ""
        self.exit_note = ""
        self.spare_games: list[GameFile] = []  # files left for another folder: closed at exit
        self.frozen_round: int | None = None  # a finished round still on screen (0-based)
        if not self.hot_seat and table.humans:
            self.viewer = table.humans[0]

    # -- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with Horizontal(id="table"):
            yield Static(id="dice")
            yield Static(id="trick")
            yield Static(id="players")
        yield Static(id="log")
        yield Static(id="prompt")
        yield Static(id="keys")

    def on_mount(self) -> None:
        self.title = self.words.title()
        view = self.table.view(None)
        if view.phase in (Phase.PLAY, Phase.ROLL):  # a resumed game, in the middle of a round
            ds = view.dice_set

            def shown(rolls: tuple[PublicRoll, ...]) -> list[render.Shown]:
                return [(r.seat, ds.kind(r.kind).index, r.face.code) for r in rolls]

            self.round_log = [(shown(rolls), winner) for rolls, winner in
                              zip(view.round_tricks, view.round_trick_winners, strict=False)]
            self.shown_trick = shown(view.trick)
        self.say(self.round_message(view.round_no))
        self.refresh_table()
        self.call_after_refresh(self.next_decision)

    @property
    def save_path(self) -> Path | None:
        return self.game.path if self.game is not None else None

    def seat_view(self) -> SeatView:
        """What the screen may show: the view of the person at it (no hand for nobody)."""
        return self.table.view(self.viewer)

    def refresh_table(self) -> None:
        view = self.seat_view()
        _ = self._
        names = self.names
        trick_no = 0
        if view.phase in (Phase.PLAY, Phase.ROLL):  # the trick shown: one just won, or in play
            trick_no = len(self.round_log) + (0 if self.mode == "ack" else 1)
        round_no = view.round_no
        starter = view.starter
        if self.frozen_round is not None:
            round_no = trick_no = self.frozen_round + 1
            starter = render.round_starter(view, self.frozen_round)
        header = Text()
        header.append(self.words.title(), style="bold")
        header.append(" · " + _("Round {n}/{total}").format(n=round_no, total=view.rounds))
        if trick_no:
            header.append(" · " + _("Trick {n}/{total}").format(n=trick_no, total=round_no))
        header.append(" · " + _("Start player: {name}").format(name=names[starter]))
        self.query_one("#header", Static).update(header)
        choosing = self.mode == "play" and self.active == self.viewer
        if self.frozen_round is not None:  # the next round's dice wait for its summary
            dice = Text(_("Round over."), style="italic")
        else:
            dice = render.dice_panel(self.words, view, self.cursor, self.show_faces, choosing)
        self.query_one("#dice", Static).update(dice)
        won = self.mode == "ack" and bool(self.round_log)
        previous = self.round_log[-2 if won else -1] if len(self.round_log) > won else None
        trick_box = self.query_one("#trick", Static)
        trick_box.update(render.trick_panel(
            self.words, view.dice_set, self.shown_trick, names, self.rolling,
            self.round_log[-1][1] if won else None, previous, trick_box.content_size.height,
            trick_box.content_size.width))
        players_box = self.query_one("#players", Static)
        rolled = [r for rolls, _w in self.round_log for r in rolls]
        if not won:
            rolled += self.shown_trick
        width = players_box.content_size.width or 28
        players_box.update(Group(
            render.players_panel(self.words, view, names, self.active, self.frozen_round),
            Text(),
            Padding(render.rolled_this_round(self.words, view.dice_set, rolled, width - 2),
                    (0, 1))))
        self.query_one("#log", Static).update(self.newest_log_lines())
        prompt = self.query_one("#prompt", Static)
        prompt.set_class(self.unsaved, "problem")
        prompt.update(self.prompt_text())
        self.query_one("#keys", Static).update(Text(self.keys_text(), style="dim"))

    def newest_log_lines(self) -> Group:
        """The newest messages that fit the log's 4 rows, wrapped as they will be shown:
        a long message (a path, a bot's error) never hides the ones after it."""
        width = self.query_one("#log", Static).content_size.width or max(10, self.size.width - 2)
        shown: list[Text] = []
        rows = 0
        for line in reversed(self.log_lines):
            rows += len(line.wrap(self.console, width))
            if rows > LOG_ROWS and shown:
                break
            shown.append(line)
        return Group(*reversed(shown))

    def prompt_text(self) -> Text:
        _ = self._
        text = Text()
        if self.mode == "bid" and self.active is not None:
            text.append(_("Your bid, {name}: ").format(name=self.names[self.active]))
            text.append(f" {self.bid_choice} ", style="reverse bold")
            text.append("  " + _("0 to {n}: ↑↓ or digits, Enter confirms. Secret until all "
                                  "have bid.").format(n=self.table.round_no))
        elif self.mode == "play" and self.active is not None:
            text.append(_("Choose a die to roll, {name}: digits or ↑↓, Enter rolls it.").format(
                name=self.names[self.active]))
        elif self.mode == "ack":
            text.append(_("Press Enter to continue."), style="bold")
        elif self.mode == "over":
            text.append(self.over_hint(), style="bold")
        else:
            text.append(_("Waiting…"), style="dim")
        if self.unsaved:
            text.append("\n" + self.save_problem() + " " + _(
                "Press o to save it in another folder."), style="bold red")
        elif self.saved_message:
            text.append("\n" + self.saved_message, style="dim")
        return text

    def keys_text(self) -> str:
        _ = self._
        keys = _("f faces · a advice · t tricks · r rules · s scores · q save & quit")
        if not self.unsaved:
            return keys
        if self.quitting:
            return _("o save in another folder · q quit without saving")
        return _("o save in another folder") + " · " + keys

    def round_message(self, round_no: int) -> str:
        return self.words.ngettext("Round {n}: everyone draws {n} die.",
                                   "Round {n}: everyone draws {n} dice.", round_no).format(
                                       n=round_no)

    def say(self, message: str | Text) -> None:
        self.log_lines.append(message if isinstance(message, Text) else Text(message))

    # -- the flow of the game ------------------------------------------------------------

    def next_decision(self) -> None:
        """Ask the next person, or let the next bot decide."""
        table = self.table
        if self.queue:
            self.pump()
            return
        if table.is_over():
            self.finish()
            return
        waiting = table.to_act()
        if not waiting:
            return
        people = [s for s in waiting if table.seats[s].is_human]
        if people:
            seat = people[0]
            if self.hot_seat and self.viewer != seat:
                self.viewer = None
                self.active = None
                self.mode = "wait"
                self.refresh_table()
                name = self.names[seat]
                self.push_screen(
                    PassScreen(self._("Pass to {name}").format(name=name),
                               self._("Nobody else should look at the screen now. Press Enter "
                                      "when {name} is ready.").format(name=name)),
                    lambda _result: self.ask(seat))
                return
            self.ask(seat)
            return
        self.mode = "wait"
        self.active = waiting[0]
        self.refresh_table()
        self.run_worker(self.bot_turn(waiting[0]), exclusive=True)

    def ask(self, seat: int) -> None:
        self.viewer = seat
        self.active = seat
        view = self.table.view(seat)
        if view.phase is Phase.BID:
            self.mode = "bid"
            self.bid_choice = 0
        else:
            self.mode = "play"
            kinds = self.hand_kinds(seat)
            legal = {a.kind.name for a in view.legal_actions if isinstance(a, Roll)}
            self.cursor = next((i for i, k in enumerate(kinds) if k in legal), 0)
        self.refresh_table()

    def bot_decision(self, seat: int) -> Action:
        """The decision of ``seat``'s bot (in a worker thread), through the runners' one
        guard: any failure of the bot is a :class:`BotError` naming it; a built-in bot's
        failure is then a bug of ours (:meth:`bot_turn`)."""
        return self.table.bot_decision(seat)

    async def bot_turn(self, seat: int) -> None:
        if self.delay:
            await asyncio.sleep(self.delay / 2)
        spec = self.table.seats[seat].bot
        try:
            action = await asyncio.to_thread(self.bot_decision, seat)
        except BotError as exc:
            if spec in BUILTIN_BOTS:
                self.bug(exc)
                return
            # A bot's file path can be long: name it by file and class, so the line fits.
            where, _colon, cls = (spec or "").rpartition(":")
            short = f"{Path(where).name}:{cls}" if where.endswith(".py") else (spec or "")
            error = str(exc).replace(spec or "", short) if spec else str(exc)
            self.say(Text(self._("The bot {name} failed: {error}").format(
                name=self.names[seat], error=printable(error)), style="bold red"))
            self.save()
            self.mode = "over"
            self.refresh_table()
            return
        except Exception as exc:  # not the bot's: a bug in minodice
            self.bug(exc)
            return
        self.apply(seat, action)

    def bug(self, exc: BaseException) -> None:
        """A bug in minodice stopped the game: keep the traceback in a log, say where."""
        _ = self._
        self.crash_log = write_crash_log(exc, self.save_path, self.table)
        where = str(self.crash_log) if self.crash_log else _("(no log could be written)")
        message = _("A bug in minodice stopped the game ({error}). The details are in "
                    "{path}; please report it.").format(
                        error=printable(f"{type(exc).__name__}: {exc}")[:200], path=where)
        self.say(Text(message, style="bold red"))
        saved = self.save()
        self.exit_note = message
        if saved and not self.table.is_over():
            self.exit_note += "\n" + self.continue_note()
        self.mode = "over"
        self.active = None
        self.refresh_table()

    def apply(self, seat: int, action: Bid | Roll) -> None:
        # Hands and bids still secret are the table's own log: the screen shows neither.
        events = [e for e in self.table.act(seat, action) if not isinstance(e, Dealt | BidMade)]
        if self.hot_seat and self.table.seats[seat].is_human:
            self.viewer = None  # hide this person's dice before anyone else sits down
        self.active = None
        self.queue.extend(events)
        self.pump()

    def pump(self) -> None:
        """Show queued events one by one; then go on with the next decision."""
        while self.queue:
            event = self.queue.popleft()
            if isinstance(event, Rolled):
                self.show_roll(event)
                return
            if isinstance(event, TrickWon):
                self.show_trick(event)
                return
            if isinstance(event, BidsRevealed):
                names = self.names
                bids = ", ".join(f"{names[s]} {b}" for s, b in enumerate(event.bids))
                self.say(Text(self._("Bids revealed: {bids}").format(bids=bids), style="bold"))
                self.shown_trick = []
            elif isinstance(event, RoundScored):
                self.show_round(event)
                return
            elif isinstance(event, RoundStarted):
                self.shown_trick = []
                self.round_log = []
                self.say(self.round_message(event.round_no))
            elif isinstance(event, GameOver):
                self.queue.clear()
                self.finish()
                return
        self.refresh_table()
        self.next_decision()

    def show_roll(self, event: Rolled) -> None:
        ds = self.table.config.dice_set
        kind = ds.kind(event.kind)
        if len(self.shown_trick) >= self.table.players:
            self.shown_trick = []
        final = (event.seat, kind.index, ds.face(event.face).code)
        if not self.delay:
            self.shown_trick.append(final)
            self.refresh_table()
            self.pump()
            return
        faces = [f.name for f in kind.faces]
        frames = [random.choice(faces) for _ in range(4)]

        def frame(i: int) -> Callable[[], None]:
            def show() -> None:
                if i < len(frames):
                    self.rolling = (event.seat, kind.index, frames[i])
                    self.refresh_table()
                    self.set_timer(self.delay / 6, frame(i + 1))
                else:
                    self.rolling = None
                    self.shown_trick.append(final)
                    self.refresh_table()
                    self.set_timer(self.delay / 2, self.pump)
            return show

        frame(0)()

    def show_trick(self, event: TrickWon) -> None:
        names = self.names
        code = event.rolls[event.result.winning_roll][2]
        reason = self.words.reason(event.result, code)
        self.shown_trick = list(event.rolls)
        self.round_log.append((list(event.rolls), event.result.winner))
        scored = next((e for e in self.queue if isinstance(e, RoundScored)), None)
        if scored is not None:  # the round's last trick: keep its numbers on screen
            self.frozen_round = scored.round_no - 1
        self.say(Text(self._("{name} wins the trick: {reason}").format(
            name=names[event.result.winner], reason=reason), style="bold green"))
        self.save()
        self.mode = "ack"
        self.refresh_table()

    def show_round(self, event: RoundScored) -> None:
        _ = self._
        summary = render.round_table(self.words, self.table.view(None), self.names,
                                     event.round_no - 1)
        self.save()
        self.mode = "wait"
        self.refresh_table()
        def closed(_result: None) -> None:
            self.frozen_round = None
            self.shown_trick = []
            self.pump()

        self.push_screen(
            PageScreen(_("End of round {n}").format(n=event.round_no), summary,
                       _("Press Enter to continue.")), closed)

    def finish(self) -> None:
        view = self.table.view(None)
        names = self.names
        _ = self._
        self.mode = "over"
        self.active = None
        self.save()
        totals = view.totals
        best = winners(totals)
        if len(best) == 1:
            verdict = _("{name} wins with {total} points!").format(
                name=names[best[0]], total=totals[best[0]])
        else:
            verdict = _("Shared victory: {names} with {total} points!").format(
                names=", ".join(names[w] for w in best), total=totals[best[0]])
        self.say(Text(verdict, style="bold green"))
        self.refresh_table()
        content = Group(Text(verdict, style="bold"), Text(),
                        render.ranking(self.words, view, names), Text(),
                        render.score_pad(self.words, view, names))
        hint = (self.save_problem() + " " + _("Press o to save it in another folder.")
                if self.unsaved else _("Press n for a new game or q to leave; Enter shows the "
                                       "table."))
        self.push_screen(PageScreen(_("Game over"), content, hint,
                                    {"n": self.new_game, "q": self.leave}))

    def over_hint(self) -> str:
        return self._("The game is over. Press n for a new game, Enter or q to leave.")

    def new_game(self) -> None:
        """Leave this (finished, saved) game for a new one at the same seats: the command
        that started the app deals it (see ``minodice play``)."""
        if self.unsaved:
            self.leave()
            return
        self.again = True
        self.exit(return_code=0)

    def save(self) -> bool:
        """Save the game; ``False`` (and where and why on screen) if that failed."""
        if self.game is None:
            return False
        try:
            self.game.save(dumps_record(self.table.snapshot()))
        except SaveError as exc:
            self.unsaved = True
            self.save_error = exc
            return False
        self.unsaved = False
        self.quitting = False
        self.saved_message = self._("Saved to {path}").format(path=short_path(self.game.path))
        return True

    def save_elsewhere(self, folder: Path) -> str | None:
        """Move the game to a new file in ``folder``; why not, or ``None`` once saved."""
        try:
            moved = GameFile.create(folder, dumps_record(self.table.snapshot()))
        except SaveError as exc:
            return self.save_problem(exc)
        if self.game is not None:
            self.spare_games.append(self.game)
        self.game = moved
        self.unsaved = False
        self.quitting = False
        self.saved_message = self._("Saved to {path}").format(path=short_path(moved.path))
        self.refresh_table()
        return None

    def choose_folder(self) -> None:
        _ = self._
        if self.game is None:
            return
        suggestion = Path.home() / "minodice-games"
        self.push_screen(FolderScreen(
            _("Save the game in another folder"), self.save_problem(),
            _("Enter saves the game there · Esc goes back to the table"), suggestion,
            self.save_elsewhere), lambda _folder: self.refresh_table())

    def save_problem(self, error: SaveError | None = None) -> str:
        """Where and why the last save (or ``error``) failed, as a sentence."""
        error = error or self.save_error
        if error is None:
            return ""
        return self._("Could not save the game to {path}: {error}.").format(
            path=printable(str(error.where)), error=printable(error.why))

    def close_games(self) -> None:
        """Let every game file of this session go (another session may open them)."""
        for game in [*self.spare_games, *([self.game] if self.game else [])]:
            game.close()

    def continue_note(self) -> str:
        assert self.save_path is not None
        command = f"{self.command} play --resume {shlex.quote(str(self.save_path))}"
        return self._("Game saved. Continue it with: {command}").format(command=command)

    # -- keys ----------------------------------------------------------------------------

    def hand_kinds(self, seat: int) -> list[str]:
        """The kinds of die behind ``seat``'s screen, in the dice panel's order."""
        view = self.table.view(seat)
        return [k.name for k in view.dice_set.kinds if view.hand.counts[k.index]]

    def on_key(self, event: object) -> None:
        key = getattr(event, "key", "")
        if len(self.screen_stack) > 1:
            return  # a modal screen has the keyboard
        handled = self.handle_key(key)
        if handled and hasattr(event, "stop"):
            event.stop()

    def handle_key(self, key: str) -> bool:
        if key in ("q", "ctrl+q", "ctrl+c"):
            self.quit_and_save()
            return True
        if key == "f":
            self.show_faces = not self.show_faces
            self.refresh_table()
            return True
        if key == "r":
            self.show_rules()
            return True
        if key == "a":
            self.show_advice()
            return True
        if key == "s":
            self.show_score_pad()
            return True
        if key == "t":
            self.show_round_tricks()
            return True
        if key == "o" and self.unsaved:
            self.choose_folder()
            return True
        if self.mode == "bid":
            return self.bid_key(key)
        if self.mode == "play":
            return self.play_key(key)
        if self.mode == "over" and key == "n":
            self.new_game()
            return True
        if self.mode == "ack" and key in ("enter", "space"):
            self.mode = "wait"
            self.shown_trick = []  # the next trick starts empty, led by its winner
            self.call_later(self.pump)  # after this key is done: a screen may open next
            return True
        if self.mode == "over" and key in ("enter", "escape"):
            self.leave()
            return True
        return False

    def bid_key(self, key: str) -> bool:
        r = self.table.round_no
        if key.isdigit():
            if int(key) > r:  # R6: at most one trick per die
                self.say(Text(self._("You can bid 0 to {n} in round {n} (R6).").format(n=r),
                              style="bold red"))
            else:
                self.bid_choice = int(key)
        elif key in ("up", "right", "plus"):
            self.bid_choice = min(r, self.bid_choice + 1)
        elif key in ("down", "left", "minus"):
            self.bid_choice = max(0, self.bid_choice - 1)
        elif key == "enter" and self.active is not None:
            seat = self.active
            self.say(self._("{name} has bid.").format(name=self.names[seat]))
            self.mode = "wait"
            self.call_later(self.apply, seat, Bid(self.bid_choice))
            return True
        else:
            return False
        self.refresh_table()
        return True

    def play_key(self, key: str) -> bool:
        assert self.active is not None
        seat = self.active
        kinds = self.hand_kinds(seat)
        if key.isdigit() and 1 <= int(key) <= len(kinds):
            self.cursor = int(key) - 1
        elif key in ("up", "left"):
            self.cursor = (self.cursor - 1) % len(kinds)
        elif key in ("down", "right"):
            self.cursor = (self.cursor + 1) % len(kinds)
        elif key == "enter":
            chosen = kinds[self.cursor]
            view = self.table.view(seat)
            legal = [a for a in view.legal_actions if isinstance(a, Roll)]
            action = next((a for a in legal if a.kind.name == chosen), None)
            if action is None:
                if view.follow is not None:
                    follow = view.dice_set.kind(view.follow).colour
                    self.say(Text(self._("You must follow {colour} or roll a special die "
                                         "(R9).").format(colour=self.words.kind(follow)),
                                  style="bold red"))
                self.refresh_table()
                return True
            self.mode = "wait"
            self.call_later(self.apply, seat, action)
            return True
        else:
            return False
        self.refresh_table()
        return True

    # -- help pages ----------------------------------------------------------------------

    def show_rules(self) -> None:
        _ = self._
        text = Text("\n\n".join(rules_paragraphs(self.words)))
        self.push_screen(PageScreen(_("Rules"), text, _("Enter or Esc closes this page.")))

    def show_score_pad(self) -> None:
        _ = self._
        pad = render.score_pad(self.words, self.table.view(None), self.names, title=False)
        self.push_screen(PageScreen(_("Score pad"), pad, _("Enter or Esc closes this page.")))

    def show_round_tricks(self) -> None:
        _ = self._
        if not self.round_log:
            self.say(_("No trick has been won in this round yet."))
            self.refresh_table()
            return
        table = render.round_tricks_table(self.words, self.table.config.dice_set,
                                          self.round_log, self.names)
        self.push_screen(PageScreen(_("Tricks this round"), table,
                                    _("Enter or Esc closes this page.")))

    def show_advice(self) -> None:
        _ = self._
        view = self.seat_view()
        seat = view.seat
        if self.mode == "play" and seat is not None and seat == self.active:
            hint = advise_play(view, seed=0)  # the same question, the same answer
            self.push_screen(PageScreen(
                _("Play advisor"), render.play_advice_page(self.words, view.dice_set, hint),
                _("Enter or Esc closes this page.")))
            return
        if seat is None or view.phase is not Phase.BID or self.mode != "bid":
            self.say(_("The advisor helps on your turn: press a while bidding or choosing "
                       "a die."))
            self.refresh_table()
            return
        position = (seat - view.starter) % view.players
        advice = advise(view.players, view.round_no, position, view.hand,
                        view.dice_set.name, view.variant.value, seed=0)
        body = render.advice_page(self.words, advice)
        self.push_screen(PageScreen(_("Bid advisor"), body, _("Enter or Esc closes this page.")))

    def quit_and_save(self) -> None:
        retry = self.game is not None and not (self.quitting and self.unsaved)
        if retry and self.save() and not self.table.is_over() and self.crash_log is None:
            self.exit_note = self.continue_note()
        self.leave()

    def leave(self) -> None:
        """Leave the table; without a saved game only when asked twice."""
        _ = self._
        if self.unsaved and not self.quitting:
            self.quitting = True
            self.say(Text(_("The game is not saved. Press o to save it in another folder, or "
                            "q again to quit without saving."), style="bold red"))
            self.refresh_table()
            return
        if self.unsaved:
            self.exit_note = _("The game was not saved.") + " " + self.save_problem()
            self.exit(return_code=1)
            return
        self.exit(return_code=1 if self.crash_log is not None else 0)
