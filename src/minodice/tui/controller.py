"""The table in the terminal, without the terminal: what the person at the keyboard may do
now, what a key does, and the flow of the game, in plain Python.

:class:`TableController` holds the state of the screen (the :class:`Mode` the keyboard is
in, whose turn and whose dice, the choice under the cursor, the messages, the trick as far
as shown) and answers keys (:meth:`TableController.handle_key`). It plays the game through
the one game driver (:class:`~minodice.play.driver.Driver`): a person's decision goes in
through :meth:`Driver.act <minodice.play.driver.Driver.act>`, the bots are asked by the
driver's runner with its one guard, and everything that happened comes back as the driver's
events, which are shown one at a time. The bots wait for the screen (the driver's ``pace``):
each bot decides only once the last move has been shown, the roll animated and the trick
acknowledged, and people decide before the bots — so a seed plays the same game it always
did, and a resumed game goes on exactly.

What it cannot do itself it asks of a :class:`Screen`: draw the table again, animate a roll,
open a page, pass the keyboard, ask for a folder, exit. :class:`~minodice.tui.app.TableApp`
is that screen in Textual; the tests give it a fake one and play without a terminal.

The modes (what the keyboard does now):

- ``bid``  — a person chooses a bid (digits or ↑↓, Enter confirms; bids stay secret);
- ``play`` — a person chooses a die (digits or ↑↓, Enter rolls it);
- ``ack``  — a trick was won: Enter continues;
- ``wait`` — bots are thinking or dice are rolling;
- ``over`` — the game is over (or a bot's failure or a bug stopped it).

A bot's own failure (an outside bot raising, or choosing an illegal action: the driver
stops the game with a ``BotError`` naming it) is said and ends the game; anything else is a
bug in minodice: its traceback goes to a log file, and the screen and the exit note say
where.
"""

from __future__ import annotations

import asyncio
import shlex
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path
from typing import Any, Protocol

from rich.cells import cell_len

from minodice.bots.advisor import Advice, PlayAdvice, advise, advise_play
from minodice.bots.protocol import BUILTIN_BOTS, BotError
from minodice.core.actions import Action, Bid, Roll
from minodice.core.errors import MinodiceError
from minodice.core.record import dumps_record
from minodice.core.rules import winners
from minodice.core.state import Phase
from minodice.core.view import PublicRoll, SeatView
from minodice.i18n import translator
from minodice.i18n.words import Words
from minodice.play.driver import (
    STOP,
    BotFailed,
    Clocks,
    Crashed,
    Driver,
    DriverEvent,
    Scheduler,
    SeatKind,
)
from minodice.play.runners import BotRunner, InProcessRunner
from minodice.play.saves import GameFile, SaveError
from minodice.play.table import (
    BidMade,
    BidsRevealed,
    Dealt,
    GameOver,
    Rolled,
    RoundScored,
    RoundStarted,
    Table,
    TrickWon,
)
from minodice.text.safe import printable
from minodice.tui.failures import write_crash_log

Shown = tuple[int, int, int]  # a die on screen: (seat, kind index, face code)

#: The events the screen shows, in the order they came; the rest are secret (a deal, a bid
#: before all are in) or not for the screen (the driver's decisions and clocks).
TABLE_EVENTS = (Dealt, BidMade, Rolled, TrickWon, BidsRevealed, RoundScored, RoundStarted,
                GameOver)
SHOWN_EVENTS = (Rolled, TrickWon, BidsRevealed, RoundScored, RoundStarted, GameOver,
                BotFailed, Crashed)
ShownEvent = (Rolled | TrickWon | BidsRevealed | RoundScored | RoundStarted | GameOver
              | BotFailed | Crashed)


class Mode(StrEnum):
    """What the keyboard does now (a string too: ``mode == "bid"`` reads as it says)."""

    BID = "bid"
    PLAY = "play"
    ACK = "ack"
    WAIT = "wait"
    OVER = "over"


class Tone(Enum):
    """How a message stands out; the screen chooses the style (colour is never all)."""

    PLAIN = "plain"
    STRONG = "strong"    # bids revealed
    GOOD = "good"        # a trick won, the winner
    PROBLEM = "problem"  # a refused key, a failure


@dataclass(frozen=True)
class Note:
    """A line of the table's message log."""

    text: str
    tone: Tone = Tone.PLAIN


# -- pages over the table ----------------------------------------------------------------------


@dataclass(frozen=True)
class RulesPage:
    pass


@dataclass(frozen=True)
class ScorePadPage:
    pass


@dataclass(frozen=True)
class RoundTricksPage:
    """The round's tricks as shown so far, each with its winner."""

    tricks: tuple[tuple[tuple[Shown, ...], int], ...]


@dataclass(frozen=True)
class BidAdvicePage:
    advice: Advice


@dataclass(frozen=True)
class PlayAdvicePage:
    advice: PlayAdvice


@dataclass(frozen=True)
class RoundSummaryPage:
    round_no: int  # 1-based


@dataclass(frozen=True)
class GameOverPage:
    verdict: str
    hint: str


Page = (RulesPage | ScorePadPage | RoundTricksPage | BidAdvicePage | PlayAdvicePage
        | RoundSummaryPage | GameOverPage)


class Screen(Protocol):
    """What the controller asks of the screen it runs on."""

    def redraw(self) -> None:
        """Draw the table again from the controller's state."""
        ...

    def later(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the key or event being handled is done."""
        ...

    def after(self, seconds: float, callback: Callable[[], None]) -> None:
        """Call ``callback`` in ``seconds`` (a pause the person can follow)."""
        ...

    def show_roll(self, roll: Shown, then: Callable[[], None]) -> None:
        """Roll ``roll``'s die on screen (animated or not), then call ``then``."""
        ...

    def show_page(self, page: Page, then: Callable[[], None] | None = None,
                  keys: Mapping[str, Callable[[], None]] | None = None) -> None:
        """Cover the table with ``page`` until it is closed (then ``then``); ``keys``:
        further keys that close it and do something."""
        ...

    def pass_keyboard(self, seat: int, then: Callable[[], None]) -> None:
        """Hide the table until ``seat``'s person says they are at the keyboard."""
        ...

    def choose_folder(self) -> None:
        """Ask for another folder to save the game in (:meth:`save_elsewhere`)."""
        ...

    def close_app(self, code: int) -> None:
        """Leave the table; ``code`` is the exit status of ``minodice play``."""
        ...


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


class TableController:
    """One game at one terminal (see the module docstring)."""

    def __init__(
        self,
        table: Table,
        screen: Screen,
        lang: str = "en",
        game: GameFile | None = None,
        delay: float = 0.5,
        command: str = "minodice",
        *,
        runner: BotRunner | None = None,
        scheduler: Scheduler | None = None,
    ) -> None:
        """``game``: the game's file (``None``: not saved); ``delay``: seconds of a roll's
        animation (a bot waits half of it before it decides); ``command``: how the person
        runs minodice again, for the note after play; ``runner``: how bots are asked (in
        this process by default)."""
        self.table = table
        self.screen = screen
        self.names = [printable(n) for n in table.names]  # what people typed, shown as typed
        self.lang = lang
        self.words = Words(translator(lang), table.config.dice_set)
        self._ = self.words._
        self.game = game
        self.command = command
        self.delay = delay
        self.unsaved = False      # the last save failed: the game on screen is in no file
        self.save_error: SaveError | None = None  # where and why the last save failed
        self.quitting = False     # q after a failed save: a second q leaves unsaved
        self.hung_up = False      # the terminal went away: saved (if it could be) and left
        self.saved_message = ""
        self.exit_note = ""
        self.crash_log: Path | None = None
        self.spare_games: list[GameFile] = []  # files left for another folder: closed at exit
        self.again = False        # the person asked for a new game at the end
        self.mode = Mode.WAIT
        self.stopped = False      # a bot's failure or a bug ended the game early
        self.active: int | None = None      # the seat whose decision is awaited
        self.viewer: int | None = None      # whose dice the screen shows
        self.bid_choice = 0
        self.cursor = 0
        self.show_faces = False
        self.log: deque[Note] = deque(maxlen=4)
        self.shown_trick: list[Shown] = []  # the trick in play, as far as shown
        # The round's finished tricks as shown, each with its winner: the previous trick,
        # the dice rolled this round and the tricks page come from here (not from the
        # table, which may be a roll ahead of the screen).
        self.round_log: list[tuple[list[Shown], int]] = []
        self.frozen_round: int | None = None  # a finished round still on screen (0-based)
        self.queue: deque[ShownEvent] = deque()
        self.hot_seat = len(table.humans) > 1
        if not self.hot_seat and table.humans:
            self.viewer = table.humans[0]
        self._passing = False        # the keyboard is being passed to the next person
        self._showing = False        # an event is on its way to the screen (roll, ack, page)
        self._pump_due = False       # a pump is scheduled: events came in
        self._bots_may_act = asyncio.Event()  # opened for one bot decision at a time
        self._tasks: set[asyncio.Task[None]] = set()
        self.runner = runner or InProcessRunner()
        self.driver = Driver(
            table, self.runner, scheduler=scheduler,
            clocks=Clocks(bot_delay=delay / 2), on_bot_error=STOP,
            listeners=[self._heard], pace=self._pace)

    # -- what the screen shows -------------------------------------------------------------

    @property
    def save_path(self) -> Path | None:
        return self.game.path if self.game is not None else None

    def seat_view(self) -> SeatView:
        """What the screen may show: the view of the person at it (no hand for nobody)."""
        return self.table.view(self.viewer)

    def hand_kinds(self, seat: int) -> list[str]:
        """The kinds of die behind ``seat``'s screen, in the dice panel's order."""
        view = self.table.view(seat)
        return [k.name for k in view.dice_set.kinds if view.hand.counts[k.index]]

    def round_message(self, round_no: int) -> str:
        return self.words.ngettext("Round {n}: everyone draws {n} die.",
                                   "Round {n}: everyone draws {n} dice.", round_no).format(
                                       n=round_no)

    def say(self, text: str, tone: Tone = Tone.PLAIN) -> None:
        self.log.append(Note(text, tone))

    def keys_hint(self, width: int = 0) -> str:
        """The keys the person may press now, for the bottom line; in ``width`` cells (0:
        any), the least needed keys left out (rules, then scores…), never ``o`` nor ``q``."""
        _ = self._
        keys = _("f faces · a advice · t tricks · r rules · s scores · q save & quit")
        if not self.unsaved:
            hint = keys
        elif self.quitting:
            hint = _("o save in another folder · q quit without saving")
        else:
            hint = _("o save in another folder") + " · " + keys
        parts = hint.split(" · ")
        while width and cell_len(" · ".join(parts)) > width:
            spare = [p for p in parts if not p.startswith(("o ", "q "))]
            if not spare:
                break
            parts.remove(spare[-1])
        return " · ".join(parts)

    def over_hint(self) -> str:
        if self.stopped and not self.table.is_over():  # a bot's failure, not the last trick
            return self._("The game stopped before its end. Press n for a new game, Enter or "
                          "q to leave.")
        return self._("The game is over. Press n for a new game, Enter or q to leave.")

    # -- the flow of the game --------------------------------------------------------------

    def begin(self) -> None:
        """Set the screen up for the table as it is (a resumed game may be in the middle
        of a round); :meth:`next_decision` follows once the screen is drawn."""
        view = self.table.view(None)
        if view.phase in (Phase.PLAY, Phase.ROLL):
            ds = view.dice_set

            def shown(rolls: tuple[PublicRoll, ...]) -> list[Shown]:
                return [(r.seat, ds.kind(r.kind).index, r.face.code) for r in rolls]

            self.round_log = [(shown(rolls), winner) for rolls, winner in
                              zip(view.round_tricks, view.round_trick_winners, strict=False)]
            self.shown_trick = shown(view.trick)
        if self.table.started:
            self.say(self.round_message(view.round_no))  # a new table says it when dealt

    def next_decision(self) -> None:
        """Ask the next person, or let the next bot decide."""
        if self.stopped or self.mode is not Mode.WAIT or self._passing:
            return  # over, or a person is asked already
        if self.queue:
            self.pump()
            return
        table = self.table
        if not table.started:
            self._spawn(self.driver.start())  # the deal comes back as events
            return
        if table.is_over():
            self.finish()
            return
        waiting = self.driver.waiting_for()
        if not waiting:
            return
        # People first (bids are simultaneous): the bots' generators, drawn per decision,
        # then see the same game as ever.
        people = [s for s in waiting if self.driver.kind(s) is SeatKind.PERSON]
        if people:
            seat = people[0]
            if self.hot_seat and self.viewer != seat:
                self.viewer = None
                self.active = None
                self.mode = Mode.WAIT
                self.screen.redraw()
                self._passing = True
                self.screen.pass_keyboard(seat, lambda: self.passed(seat))
                return
            self.ask(seat)
            return
        self.mode = Mode.WAIT
        self.active = waiting[0]
        self.screen.redraw()
        self._bots_may_act.set()
        self.driver.kick()

    def passed(self, seat: int) -> None:
        """``seat``'s person is at the keyboard (hot seat)."""
        self._passing = False
        self.ask(seat)

    def ask(self, seat: int) -> None:
        """``seat``'s person decides now."""
        self.viewer = seat
        self.active = seat
        view = self.table.view(seat)
        if view.phase is Phase.BID:
            self.mode = Mode.BID
            self.bid_choice = 0
        else:
            self.mode = Mode.PLAY
            kinds = self.hand_kinds(seat)
            legal = {a.kind.name for a in view.legal_actions if isinstance(a, Roll)}
            self.cursor = next((i for i, k in enumerate(kinds) if k in legal), 0)
        self.screen.redraw()

    async def _pace(self) -> None:
        """The driver's bots wait here until the screen lets one decide (one at a time)."""
        await self._bots_may_act.wait()
        self._bots_may_act.clear()

    def _heard(self, event: DriverEvent) -> None:
        """The driver's events: the public ones are shown in order, once the event being
        handled is done (a move's events come together)."""
        if isinstance(event, TABLE_EVENTS):
            self.active = None  # a move was made: nobody is thinking while it is shown
        elif not isinstance(event, BotFailed | Crashed):
            return  # the driver's own bookkeeping
        if isinstance(event, SHOWN_EVENTS):  # not a deal nor a bid still secret
            self.queue.append(event)
        if not self._pump_due:
            self._pump_due = True
            self.screen.later(self._pump_later)

    def _pump_later(self) -> None:
        self._pump_due = False
        self.pump()

    def decide(self, seat: int, action: Action) -> None:
        """``seat``'s person decided: the driver applies it (the events come back)."""
        if self.hot_seat:
            self.viewer = None  # hide this person's dice before anyone else sits down
        self.active = None
        self.mode = Mode.WAIT
        self._spawn(self._act(seat, action))

    async def _act(self, seat: int, action: Action) -> None:
        try:
            await self.driver.act(seat, action)
        except MinodiceError as exc:  # refused: nothing changed, the person decides again
            self.say(printable(str(exc)), Tone.PROBLEM)
            self.ask(seat)
            return
        if isinstance(action, Bid):
            # A person's bid goes to the file at once (the bots' bids follow from the game
            # as saved): however the game ends before the next trick — a crash, kill -9 —
            # nobody bids again after the bids were revealed (R6).
            self.save()

    def pump(self) -> None:
        """Show queued events one by one; then go on with the next decision."""
        if self._showing:
            return  # an event is being shown; it pumps again when it is done
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
                self.say(self._("Bids revealed: {bids}").format(bids=bids), Tone.STRONG)
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
            elif isinstance(event, BotFailed):
                self.bot_failed(event)
                return
            else:
                self.bug(event.error)
                return
        self.screen.redraw()
        self.next_decision()

    def _shown(self) -> None:
        self._showing = False
        self.pump()

    def show_roll(self, event: Rolled) -> None:
        ds = self.table.config.dice_set
        kind = ds.kind(event.kind)
        if len(self.shown_trick) >= self.table.players:
            self.shown_trick = []
        final = (event.seat, kind.index, ds.face(event.face).code)
        scored = next((e for e in self.queue if isinstance(e, RoundScored)), None)
        if scored is not None:
            # the table has played past this round: its header, dice and scores stay on
            # screen while its last dice roll (the next round's showed for a moment)
            self.frozen_round = scored.round_no - 1
        self._showing = True
        self.screen.show_roll(final, lambda: self._landed(final))

    def _landed(self, final: Shown) -> None:
        self.shown_trick.append(final)
        self.screen.redraw()
        if self.delay:
            self.screen.after(self.delay / 2, self._shown)
        else:
            self._shown()

    def show_trick(self, event: TrickWon) -> None:
        code = event.rolls[event.result.winning_roll][2]
        reason = self.words.reason(event.result, code)
        self.shown_trick = list(event.rolls)
        self.round_log.append((list(event.rolls), event.result.winner))
        scored = next((e for e in self.queue if isinstance(e, RoundScored)), None)
        if scored is not None:  # the round's last trick: keep its numbers on screen
            self.frozen_round = scored.round_no - 1
        self.say(self._("You win the trick: {reason}").format(reason=reason)
                 if self.is_you(event.result.winner) else
                 self._("{name} wins the trick: {reason}").format(
                     name=self.names[event.result.winner], reason=reason), Tone.GOOD)
        self.save()
        self._showing = True  # until Enter
        self.mode = Mode.ACK
        self.screen.redraw()

    def is_you(self, seat: int) -> bool:
        """Whether ``seat`` is the one person at the table, called "You" (in their
        language): spoken to in the second person ("You win", not "You wins")."""
        return self.names[seat] == self._("You")

    def show_round(self, event: RoundScored) -> None:
        self.save()
        self.mode = Mode.WAIT
        self.screen.redraw()
        self._showing = True

        def closed() -> None:
            self.frozen_round = None
            self.shown_trick = []
            self._shown()

        self.screen.show_page(RoundSummaryPage(event.round_no), closed)

    def finish(self) -> None:
        view = self.table.view(None)
        names = self.names
        _ = self._
        self.mode = Mode.OVER
        self.active = None
        self.save()
        totals = view.totals
        best = winners(totals)
        if len(best) == 1 and self.is_you(best[0]):
            verdict = _("You win with {total} points!").format(total=totals[best[0]])
        elif len(best) == 1:
            verdict = _("{name} wins with {total} points!").format(
                name=names[best[0]], total=totals[best[0]])
        else:
            verdict = _("Shared victory: {names} with {total} points!").format(
                names=", ".join(names[w] for w in best), total=totals[best[0]])
        self.say(verdict, Tone.GOOD)
        self.screen.redraw()
        hint = (self.save_problem() + " " + _("Press o to save it in another folder.")
                if self.unsaved else _("Press n for a new game or q to leave; Enter shows the "
                                       "table."))
        self.screen.show_page(GameOverPage(verdict, hint), keys={"n": self.new_game,
                                                                 "q": self.leave})

    def bot_failed(self, event: BotFailed) -> None:
        """A bot's own failure stopped the game (the driver's one guard named it); one of
        our own bots failing is a bug of ours."""
        spec = self.table.seats[event.seat].bot
        error = self.driver.failure
        if spec in BUILTIN_BOTS:
            self.bug(error if error is not None else BotError(event.error))
            return
        # A bot's file path can be long: name it by file and class, so the line fits.
        where, _colon, cls = (spec or "").rpartition(":")
        short = f"{Path(where).name}:{cls}" if where.endswith(".py") else (spec or "")
        message = event.error.replace(spec, short) if spec else event.error
        self.say(self._("The bot {name} failed: {error}").format(
            name=self.names[event.seat], error=printable(message)), Tone.PROBLEM)
        self.save()
        self.stop()

    def bug(self, exc: BaseException) -> None:
        """A bug in minodice stopped the game: keep the traceback in a log, say where."""
        _ = self._
        self.crash_log = write_crash_log(exc, self.save_path, self.table)
        where = str(self.crash_log) if self.crash_log else _("(no log could be written)")
        message = _("A bug in minodice stopped the game ({error}). The details are in "
                    "{path}; please report it.").format(
                        error=printable(f"{type(exc).__name__}: {exc}")[:200], path=where)
        self.say(message, Tone.PROBLEM)
        saved = self.save()
        self.exit_note = message
        if saved and not self.table.is_over():
            self.exit_note += "\n" + self.continue_note()
        self.active = None
        self.stop()

    def stop(self) -> None:
        """The game ends here, unfinished: the keys that remain are saving and leaving."""
        self.stopped = True
        self.mode = Mode.OVER
        self.queue.clear()
        self.driver.close()
        self.screen.redraw()

    # -- keys ------------------------------------------------------------------------------

    def handle_key(self, key: str) -> bool:
        """Do what ``key`` does now; ``False`` if it does nothing here (it may mean
        something to the screen)."""
        if key in ("q", "ctrl+q", "ctrl+c"):
            self.quit_and_save()
            return True
        if key == "f":
            self.show_faces = not self.show_faces
            self.screen.redraw()
            return True
        if key == "r":
            self.screen.show_page(RulesPage())
            return True
        if key == "a":
            self.show_advice()
            return True
        if key == "s":
            self.screen.show_page(ScorePadPage())
            return True
        if key == "t":
            self.show_round_tricks()
            return True
        if key == "o" and self.unsaved:
            if self.game is not None:
                self.screen.choose_folder()
            return True
        if self.mode is Mode.BID:
            return self.bid_key(key)
        if self.mode is Mode.PLAY:
            return self.play_key(key)
        if self.mode is Mode.OVER and key == "n":
            self.new_game()
            return True
        if self.mode is Mode.ACK and key in ("enter", "space"):
            self.mode = Mode.WAIT
            self.shown_trick = []  # the next trick starts empty, led by its winner
            self._showing = False
            self.screen.later(self.pump)  # after this key is done: a screen may open next
            return True
        if self.mode is Mode.OVER and key in ("enter", "escape"):
            self.leave()
            return True
        return False

    def bid_key(self, key: str) -> bool:
        r = self.table.round_no
        if key.isdigit():
            if int(key) > r:  # R6: at most one trick per die
                self.say(self._("You can bid 0 to {n} in round {n} (R6).").format(n=r),
                         Tone.PROBLEM)
            else:
                self.bid_choice = int(key)
        elif key in ("up", "right", "plus"):
            self.bid_choice = min(r, self.bid_choice + 1)
        elif key in ("down", "left", "minus"):
            self.bid_choice = max(0, self.bid_choice - 1)
        elif key == "enter" and self.active is not None:
            seat = self.active
            name = self.names[seat]
            self.say(self._("You have bid.") if self.is_you(seat) else
                     self._("{name} has bid.").format(name=name))
            self.decide(seat, Bid(self.bid_choice))
            return True
        else:
            return False
        self.screen.redraw()
        return True

    def play_key(self, key: str) -> bool:
        seat = self.active
        if seat is None:
            return False
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
                    self.say(self._("You must follow {colour} or roll a special die "
                                    "(R9).").format(colour=self.words.kind(follow)),
                             Tone.PROBLEM)
                self.screen.redraw()
                return True
            self.decide(seat, action)
            return True
        else:
            return False
        self.screen.redraw()
        return True

    def show_round_tricks(self) -> None:
        if not self.round_log:
            self.say(self._("No trick has been won in this round yet."))
            self.screen.redraw()
            return
        self.screen.show_page(RoundTricksPage(tuple(
            (tuple(rolls), winner) for rolls, winner in self.round_log)))

    def show_advice(self) -> None:
        view = self.seat_view()
        seat = view.seat
        if self.mode is Mode.PLAY and seat is not None and seat == self.active:
            hint = advise_play(view, seed=0)  # the same question, the same answer
            self.screen.show_page(PlayAdvicePage(hint))
            return
        if seat is None or view.phase is not Phase.BID or self.mode is not Mode.BID:
            self.say(self._("The advisor helps on your turn: press a while bidding or "
                            "choosing a die."))
            self.screen.redraw()
            return
        position = (seat - view.starter) % view.players
        advice = advise(view.players, view.round_no, position, view.hand,
                        view.dice_set.name, view.variant.value, seed=0, options=view.options)
        self.screen.show_page(BidAdvicePage(advice))

    # -- saving and leaving ----------------------------------------------------------------

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
        self.screen.redraw()
        return None

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
        if any(seat.bot is not None and seat.bot not in BUILTIN_BOTS
               for seat in self.table.seats):
            # an outside bot is code, loaded again only when asked: this person chose it
            command += " --trust-bots"
        return self._("Game saved. Continue it with: {command}").format(command=command)

    def quit_and_save(self) -> None:
        retry = self.game is not None and not (self.quitting and self.unsaved)
        if retry and self.save() and not self.table.is_over() and self.crash_log is None:
            self.exit_note = self.continue_note()
        self.leave()

    def hang_up(self) -> None:
        """The terminal is going away (closed, or the process told to end): save and leave
        at once, as q does, without asking twice when the save fails (nobody is there to
        answer); ``minodice play`` then says so and ends with status 1."""
        if self.hung_up:
            return
        self.hung_up = True
        if self.game is not None and self.save() and not self.table.is_over() \
                and self.crash_log is None:
            self.exit_note = self.continue_note()
        if self.unsaved:
            self.exit_note = self._("The game was not saved.") + " " + self.save_problem()
            self.screen.close_app(1)
            return
        self.screen.close_app(1 if self.crash_log is not None else 0)

    async def settle(self, seconds: float = 1.0) -> None:
        """Let a decision on its way to the table (a bid just confirmed) get there first,
        for at most ``seconds``: it is then in the game that is saved."""
        pending = [task for task in self._tasks if not task.done()]
        if pending:
            await asyncio.wait(pending, timeout=seconds)

    def leave(self) -> None:
        """Leave the table; without a saved game only when asked twice."""
        _ = self._
        if self.unsaved and not self.quitting:
            self.quitting = True
            self.say(_("The game is not saved. Press o to save it in another folder, or q "
                       "again to quit without saving."), Tone.PROBLEM)
            self.screen.redraw()
            return
        if self.unsaved:
            self.exit_note = _("The game was not saved.") + " " + self.save_problem()
            self.screen.close_app(1)
            return
        self.screen.close_app(1 if self.crash_log is not None else 0)

    def new_game(self) -> None:
        """Leave this (finished, saved) game for a new one at the same seats: the command
        that started the app deals it (see ``minodice play``)."""
        if self.unsaved:
            self.leave()
            return
        self.again = True
        self.screen.close_app(0)

    # -- tasks -----------------------------------------------------------------------------

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            self.bug(error)  # not the person's doing: a bug of ours

    def close(self) -> None:
        """Stop the driver and the bots (the screen is going away)."""
        self.driver.close()
        for task in list(self._tasks):
            task.cancel()
        self.runner.close()
