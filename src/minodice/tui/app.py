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
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable
from pathlib import Path

from rich.console import Group
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from minodice.bots.advisor import advise
from minodice.core.actions import Bid, Roll
from minodice.core.record import dumps_record
from minodice.core.rules import winners
from minodice.core.state import Phase
from minodice.core.view import SeatView
from minodice.i18n import translator
from minodice.i18n.rules import rules_paragraphs
from minodice.i18n.words import Words
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
from minodice.tui import render
from minodice.tui.screens import PageScreen, PassScreen

CSS = """
Screen { layout: vertical; }
#header { height: 1; background: $primary-darken-2; color: $text; padding: 0 1; }
#table { height: 1fr; }
#table > Static { height: 1fr; }
#dice { width: 3fr; border: round $primary; padding: 0 1; }
#trick { width: 3fr; border: round $secondary; padding: 0 1; }
#players { width: 4fr; border: round $accent; padding: 0 0; }
#log { height: 4; padding: 0 1; }
#prompt { height: 2; padding: 0 1; background: $boost; }
#keys { height: 1; padding: 0 1; color: $text-muted; }
.box { width: 90%; max-width: 100; height: 90%; border: thick $accent;
       background: $panel; padding: 0 1; }
#pass-box { height: auto; padding: 1 2; }
PassScreen, PageScreen { align: center middle; }
#pass-title, #page-title { text-style: bold; margin-bottom: 1; }
#page-scroll { height: 1fr; }
#page-hint { height: 1; color: $text-muted; }
"""


def save_table(table: Table, path: Path) -> None:
    """Write ``table``'s snapshot to ``path`` (a record that resumes exactly), atomically:
    to a temporary file first, which then replaces ``path``.

    The snapshot holds the bids already made in a round still being bid: the file is for
    the people at this screen only.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(dumps_record(table.snapshot()), encoding="utf-8")
    tmp.replace(path)


class TableApp(App[None]):
    """Mino Dice at one terminal."""

    CSS = CSS
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        table: Table,
        lang: str = "en",
        save_path: Path | None = None,
        delay: float = 0.5,
    ) -> None:
        super().__init__()
        self.table = table
        self.lang = lang
        self.words = Words(translator(lang), table.config.dice_set)
        self._ = self.words._
        self.save_path = save_path
        self.delay = delay
        self.mode = "wait"
        self.active: int | None = None      # the person whose decision is asked for
        self.viewer: int | None = None      # whose dice the screen shows
        self.bid_choice = 0
        self.cursor = 0
        self.show_faces = False
        self.log_lines: deque[Text] = deque(maxlen=4)
        self.shown_trick: list[tuple[int, int, int]] = []
        self.rolling: tuple[int, int, str] | None = None
        self.queue: deque[Event] = deque()
        self.hot_seat = len(table.humans) > 1
        self.saved_message = ""
        self.exit_note = ""
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
        if view.phase is Phase.PLAY and view.trick:  # a resumed game, in the middle of a trick
            ds = view.dice_set
            self.shown_trick = [(r.seat, ds.kind(r.kind).index, r.face.code)
                                for r in view.trick]
        self.say(self.round_message(view.round_no))
        self.refresh_table()
        self.call_after_refresh(self.next_decision)

    def seat_view(self) -> SeatView:
        """What the screen may show: the view of the person at it (no hand for nobody)."""
        return self.table.view(self.viewer)

    def refresh_table(self) -> None:
        view = self.seat_view()
        _ = self._
        names = self.table.names
        trick_no = max(1, view.trick_number) if view.phase in (Phase.PLAY, Phase.ROLL) else 0
        if self.mode == "ack" and self.frozen_round is None:
            trick_no = len(view.round_trick_winners)  # the trick just won is still shown
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
        self.query_one("#trick", Static).update(render.trick_panel(
            self.words, view.dice_set, self.shown_trick, names, self.rolling))
        self.query_one("#players", Static).update(render.players_panel(
            self.words, view, names, self.active, self.frozen_round))
        self.query_one("#log", Static).update(Group(*self.log_lines))
        self.query_one("#prompt", Static).update(self.prompt_text())
        self.query_one("#keys", Static).update(Text(self.keys_text(), style="dim"))

    def prompt_text(self) -> Text:
        _ = self._
        text = Text()
        if self.mode == "bid" and self.active is not None:
            text.append(_("Your bid, {name}: ").format(name=self.table.names[self.active]))
            text.append(f" {self.bid_choice} ", style="reverse bold")
            text.append("  " + _("0 to {n}: ↑↓ or digits, Enter confirms. Secret until all "
                                  "have bid.").format(n=self.table.round_no))
        elif self.mode == "play" and self.active is not None:
            text.append(_("Choose a die to roll, {name}: digits or ↑↓, Enter rolls it.").format(
                name=self.table.names[self.active]))
        elif self.mode == "ack":
            text.append(_("Press Enter to continue."), style="bold")
        elif self.mode == "over":
            text.append(_("The game is over. Press Enter or q to leave."), style="bold")
        else:
            text.append(_("Waiting…"), style="dim")
        if self.saved_message:
            text.append("\n" + self.saved_message, style="dim")
        return text

    def keys_text(self) -> str:
        return self._("Enter OK · ↑↓/0–9 · f faces · a advice · r rules · s scores · q save & quit")

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
                name = table.names[seat]
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

    async def bot_turn(self, seat: int) -> None:
        if self.delay:
            await asyncio.sleep(self.delay / 2)
        try:
            action = await asyncio.to_thread(self.table.bot_decision, seat)
        except Exception as exc:
            self.say(Text(self._("The bot {name} failed: {error}").format(
                name=self.table.names[seat], error=exc), style="bold red"))
            self.save()
            self.mode = "over"
            self.refresh_table()
            return
        self.apply(seat, action)

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
                names = self.table.names
                bids = ", ".join(f"{names[s]} {b}" for s, b in enumerate(event.bids))
                self.say(Text(self._("Bids revealed: {bids}").format(bids=bids), style="bold"))
                self.shown_trick = []
            elif isinstance(event, RoundScored):
                self.show_round(event)
                return
            elif isinstance(event, RoundStarted):
                self.shown_trick = []
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
        names = self.table.names
        code = event.rolls[event.result.winning_roll][2]
        reason = self.words.reason(event.result, code)
        self.shown_trick = list(event.rolls)
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
        summary = render.round_table(self.words, self.table.view(None), self.table.names,
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
        names = self.table.names
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
        self.push_screen(PageScreen(_("Game over"), content, self.saved_message))

    def save(self) -> bool:
        """Save the game; ``False`` (and a message on screen) if that failed."""
        if self.save_path is None:
            return False
        try:
            save_table(self.table, self.save_path)
        except OSError as exc:
            self.saved_message = self._("Could not save the game: {error}").format(
                error=exc.strerror or exc)
            return False
        self.saved_message = self._("Saved to {path}").format(path=self.save_path)
        return True

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
        if self.mode == "bid":
            return self.bid_key(key)
        if self.mode == "play":
            return self.play_key(key)
        if self.mode == "ack" and key in ("enter", "space"):
            self.mode = "wait"
            self.call_later(self.pump)  # after this key is done: a screen may open next
            return True
        if self.mode == "over" and key in ("enter", "escape"):
            self.exit()
            return True
        return False

    def bid_key(self, key: str) -> bool:
        r = self.table.round_no
        if key.isdigit():
            self.bid_choice = min(int(key), r)
        elif key in ("up", "right", "plus"):
            self.bid_choice = min(r, self.bid_choice + 1)
        elif key in ("down", "left", "minus"):
            self.bid_choice = max(0, self.bid_choice - 1)
        elif key == "enter" and self.active is not None:
            seat = self.active
            self.say(self._("{name} has bid.").format(name=self.table.names[seat]))
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
        pad = render.score_pad(self.words, self.table.view(None), self.table.names,
                               title=False)
        self.push_screen(PageScreen(_("Score pad"), pad, _("Enter or Esc closes this page.")))

    def show_advice(self) -> None:
        _ = self._
        view = self.seat_view()
        seat = view.seat
        if seat is None or view.phase is not Phase.BID:
            self.say(_("The advisor helps with your bid: press a while bidding."))
            self.refresh_table()
            return
        position = (seat - view.starter) % view.players
        advice = advise(view.players, view.round_no, position, view.hand,
                        view.dice_set.name, view.variant.value, seed=0)
        body = render.advice_page(self.words, advice)
        self.push_screen(PageScreen(_("Bid advisor"), body, _("Enter or Esc closes this page.")))

    def quit_and_save(self) -> None:
        saved = self.save()
        if self.save_path is not None and not self.table.is_over():
            self.exit_note = self._("Game saved. Continue it with: minodice play --resume "
                                    "{path}").format(path=self.save_path) if saved else (
                self.saved_message)
        self.exit()
