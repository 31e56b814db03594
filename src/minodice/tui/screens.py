"""Modal screens: pass the keyboard, round summary, final ranking, text pages."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class PassScreen(ModalScreen[None]):
    """Hot seat: hides the table until the next person says they are at the keyboard."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", show=False),
        Binding("space", "ready", show=False),
    ]

    def __init__(self, title: str, body: str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="pass-box", classes="box"):
            yield Static(self.title_text, id="pass-title")
            yield Static(self.body, id="pass-body")

    def action_ready(self) -> None:
        self.dismiss(None)


class PageScreen(ModalScreen[None]):
    """A page of text or tables (summary, rules, advice), closed with Enter or Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", show=False),
        Binding("escape", "close", show=False),
        Binding("space", "close", show=False),
    ]

    def __init__(self, title: str, content: RenderableType, hint: str) -> None:
        super().__init__()
        self.title_text = title
        self.content = content
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id="page-box", classes="box"):
            yield Static(self.title_text, id="page-title")
            with VerticalScroll(id="page-scroll"):
                yield Static(self.content, id="page-content")
            yield Static(self.hint, id="page-hint")

    def action_close(self) -> None:
        self.dismiss(None)


def group(*parts: RenderableType) -> Group:
    return Group(*parts)
