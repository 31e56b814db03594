"""Modal screens: pass the keyboard, round summary, final ranking, text pages, and the
folder to save a game in when its own folder failed.

Titles and texts are shown as :class:`~rich.text.Text`, never as markup: they may hold a
name or a path someone typed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.align import Align
from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Input, Static


def literal(text: RenderableType) -> RenderableType:
    """``text`` as itself: a plain string is never read as markup."""
    return Text(text) if isinstance(text, str) else text


class OverTable(ModalScreen[None]):
    """A screen over the table (the pass screen, a page) with a line for a save that failed
    (the table's prompt is hidden under it), shown only while there is one."""

    hint = ""  # what the screen says of its keys

    def __init__(self, problem: str = "") -> None:
        super().__init__()
        self.problem = problem

    def problem_line(self) -> Static:
        line = Static(Text(self.problem, style="bold red"), classes="problem-line")
        line.display = bool(self.problem)
        return line

    def show_problem(self, problem: str) -> None:
        self.problem = problem
        if self.is_mounted:
            line = self.query_one(".problem-line", Static)
            line.update(Text(problem, style="bold red"))
            line.display = bool(problem)


class PassScreen(OverTable):
    """Hot seat: hides the table until the next person says they are at the keyboard.
    Esc does not close it: closing it is saying "I am ready", and shows that person's dice
    (q saves and quits from it, and it stays)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", show=False),
        Binding("space", "ready", show=False),
    ]

    def __init__(self, title: str, body: str, problem: str = "") -> None:
        super().__init__(problem)
        self.title_text = title
        self.body = body
        self.hint = body

    def compose(self) -> ComposeResult:
        with Vertical(id="pass-box", classes="box"):
            yield Static(literal(self.title_text), id="pass-title")
            yield Static(literal(self.body), id="pass-body")
            yield self.problem_line()

    def action_ready(self) -> None:
        self.dismiss(None)


def centred(content: RenderableType) -> RenderableType:
    """Tables centred under the page's centred title, each part of a group on its own;
    a page of text fills the page."""
    if isinstance(content, Text):
        return content
    if isinstance(content, Group):  # a short line is centred too; a paragraph fills
        return Group(*(part if isinstance(part, Text) and not part.plain else
                       Align.center(part) for part in content.renderables))
    return Align.center(content)


class PageScreen(OverTable):
    """A page of text or tables (summary, rules, advice), closed with Enter or Escape;
    ``keys`` maps further keys to what they do once the page is closed (``n``: new game)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", show=False),
        Binding("escape", "close", show=False),
        Binding("space", "close", show=False),
    ]

    def __init__(self, title: str, content: RenderableType, hint: str,
                 keys: dict[str, Callable[[], None]] | None = None,
                 problem: str = "") -> None:
        super().__init__(problem)
        self.title_text = title
        self.content = content
        self.hint = hint
        self.keys = keys or {}

    def compose(self) -> ComposeResult:
        with Vertical(id="page-box", classes="box"):
            yield Static(literal(self.title_text), id="page-title")
            with VerticalScroll(id="page-scroll"):
                # Tables are centred under the centred title; text fills the page.
                yield Static(centred(literal(self.content)), id="page-content")
            yield self.problem_line()
            yield Static(literal(self.hint), id="page-hint")

    def on_key(self, event: Key) -> None:
        then = self.keys.get(event.key)
        if then is not None:
            event.stop()
            self.dismiss(None)
            then()

    def action_close(self) -> None:
        self.dismiss(None)


class FolderScreen(ModalScreen[Path | None]):
    """Asks for another folder to save the game in; ``save_in`` tries one and returns why
    it failed (``None``: saved). Closes with the folder once saved, or ``None`` on Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, title: str, problem: str, hint: str, suggestion: Path,
                 save_in: Callable[[Path], str | None]) -> None:
        super().__init__()
        self.title_text = title
        self.problem = problem
        self.hint = hint
        self.suggestion = suggestion
        self.save_in = save_in

    def compose(self) -> ComposeResult:
        with Vertical(id="folder-box", classes="box"):
            yield Static(literal(self.title_text), id="folder-title")
            yield Static(Text(self.problem, style="bold red"), id="folder-problem")
            yield Input(value=str(self.suggestion), id="folder-input")
            yield Static("", id="folder-error")
            yield Static(literal(self.hint), id="folder-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if not typed:
            return
        folder = Path(typed).expanduser()
        error = self.save_in(folder)
        if error is None:
            self.dismiss(folder)
        else:
            self.query_one("#folder-error", Static).update(Text(error, style="bold red"))

    def action_cancel(self) -> None:
        self.dismiss(None)


def group(*parts: RenderableType) -> Group:
    return Group(*parts)
