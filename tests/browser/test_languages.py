"""Every language of the page, everywhere: the lobby, a table waiting for players, a table
in the middle of a game (bidding with the advisor, the faces and the score pad open,
rolling, the end of a round), a finished table and the about page.

For a language other than English, no text a person can see or hear (visible text,
labels, tooltips, options) may be an English message of the catalogue whose translation
is different, or that has no translation: that is a string the page left untranslated.
The English messages are every message marked in the screen code (the catalogue's
template); the translations are what the server serves the page (``/api/i18n/LANG``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from live_server import LiveServer
from minodice.i18n import LANGUAGES
from minodice.i18n.catalogue import extract_catalog

from .conftest import Pages
from .pages import BID, decide, visible_texts, wait_for_decision

if TYPE_CHECKING:
    from playwright.async_api import Page

pytestmark = pytest.mark.asyncio(loop_scope="session")

PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
#: Where one text holds several messages: "rot → 7", "Ana (leichter Bot, du)", "✗ …".
SEPARATORS = re.compile(r"\s*(?:→|·|:|,|\(|\)|✗|✓|◆|×\d+)\s*")


def pattern(text: str) -> re.Pattern[str]:
    """A message as a pattern: its placeholders match any text."""
    return re.compile("(?:.+?)".join(re.escape(p) for p in PLACEHOLDER.split(text.strip())),
                      re.DOTALL)


@dataclass(frozen=True)
class English:
    msgid: str
    pattern: re.Pattern[str]
    inside: bool  # long enough (4 words) to be looked for inside a longer text


def english_messages() -> list[English]:
    out = []
    for message in extract_catalog():
        ids = message.id if isinstance(message.id, tuple | list) else (message.id,)
        for msgid in ids:
            literal = PLACEHOLDER.sub("", str(msgid or ""))
            if sum(c.isalpha() for c in literal) < 2:
                continue  # "{name}: {text}" and the like say nothing by themselves
            out.append(English(str(msgid), pattern(str(msgid)), len(literal.split()) >= 4))
    return out


def translations_of(served: dict[str, Any]) -> dict[str, list[str]]:
    """``msgid → its translations`` (plural messages: both English forms, all forms)."""
    plural = {m.id[0]: m.id for m in extract_catalog() if isinstance(m.id, tuple | list)}
    out: dict[str, list[str]] = {}
    for msgid, value in served.items():
        forms = [value] if isinstance(value, str) else [str(v) for v in value]
        for english in plural.get(msgid, (msgid,)):
            out[str(english)] = forms
    return out


def untranslated(texts: Iterable[str], served: dict[str, Any]) -> Iterator[str]:
    """The English messages (untranslated, or translated differently) among ``texts``."""
    messages = english_messages()
    translations = translations_of(served)
    own = [pattern(t) for forms in translations.values() for t in forms
           if sum(c.isalpha() for c in PLACEHOLDER.sub("", t)) >= 2]

    def is_translation(text: str) -> bool:
        return any(p.fullmatch(text) for p in own)

    def left_english(message: English) -> bool:
        forms = translations.get(message.msgid)
        return forms is None or message.msgid.strip() not in [f.strip() for f in forms]

    for text in dict.fromkeys(texts):
        if is_translation(text):
            continue
        pieces = [p for p in SEPARATORS.split(text) if p and p != text]
        for message in messages:
            hit = message.pattern.fullmatch(text) or (
                message.inside and message.pattern.search(text)) or any(
                message.pattern.fullmatch(p) and not is_translation(p) for p in pieces)
            if hit and left_english(message):
                why = "no translation" if message.msgid not in translations else \
                    f"translated {translations[message.msgid][0]!r}"
                yield f"{message.msgid!r} ({why}) in {text!r}"


def tr(served: dict[str, Any], msgid: str) -> str:
    """The page's own translation of ``msgid`` (English when there is none)."""
    value = served.get(msgid)
    return value if isinstance(value, str) and value else msgid


@pytest.fixture(scope="module")
def finished_table(server: LiveServer) -> str:
    """A game of four bots, played to its end."""
    return server.finished_bot_game(4)


async def lobby(page: Page, server: LiveServer, lang: str, served: dict[str, Any]) -> None:
    """The lobby, its language chosen in the language menu (and kept on this device)."""
    await page.goto(server.base + "/")
    button = await page.locator("#play-now").element_handle()
    assert button is not None
    if lang != "en":
        await page.select_option("#lang", lang)
        await button.wait_for_element_state("hidden")  # the lobby is drawn again
    await page.wait_for_function(
        "(loading) => { const list = document.querySelector('.public-list');"
        " return list && !list.textContent.includes(loading); }", arg=tr(served, "Loading…"))
    assert await page.evaluate("document.documentElement.lang") == lang
    stored = await page.evaluate("localStorage.getItem('minodice.lang')")
    assert stored == (None if lang == "en" else lang)
    assert await page.locator("#play-now").inner_text() == tr(served, "Play now against 3 bots")


async def waiting_table(page: Page, server: LiveServer) -> None:
    """A table with two seats free, seen by its host before taking a seat."""
    created = server.post("/api/tables", {"players": 3, "bots": [None, None, "easy"]})
    await page.evaluate("([key, token]) => localStorage.setItem(key, JSON.stringify(token))",
                        [f"minodice.host.{created['table']}", created["host_token"]])
    await page.goto(server.base + created["url"])
    await page.locator("#invite-link").wait_for()
    await page.locator("#join-name").wait_for()
    await page.locator("#fill-level").wait_for()


async def run(page: Page, server: LiveServer, lang: str, served: dict[str, Any],
              finished: str) -> dict[str, list[str]]:
    """Visit every page and state; return what each showed."""
    import random

    rng = random.Random(lang)
    seen: dict[str, list[str]] = {}
    await lobby(page, server, lang, served)
    seen["lobby"] = await visible_texts(page)

    await waiting_table(page, server)
    seen["table waiting for players"] = await visible_texts(page)

    await page.goto(server.base + "/")
    await page.fill("#quick-name", "Zé")
    await page.locator("#play-now").click()
    await page.locator(BID).first.wait_for()
    toggles = page.locator(".toolbar button[aria-pressed]")
    await toggles.nth(0).click()
    await page.locator(".faces").first.wait_for()
    await toggles.nth(1).click()
    await page.locator(".pad").wait_for()
    await page.locator(".toolbar button", has_text=tr(served, "Bid advice")).click()
    await page.locator(".advice").wait_for()
    seen["table: bidding"] = await visible_texts(page)
    assert await decide(page, rng) == "bid"
    assert await wait_for_decision(page) == "roll"
    seen["table: rolling"] = await visible_texts(page)
    assert await decide(page, rng) == "roll"
    await page.locator(".summary").wait_for()
    await page.locator(BID).first.wait_for()
    seen["table: end of round 1"] = await visible_texts(page)

    await page.goto(f"{server.base}/t/{finished}")
    await page.locator("#fairness.ok").wait_for()
    seen["finished table"] = await visible_texts(page)

    await page.locator('nav a[href="/about"]').click()
    await page.locator("#rules ~ p").first.wait_for()
    seen["about"] = await visible_texts(page)
    return seen


@pytest.mark.parametrize("lang", LANGUAGES)
async def test_every_page_is_translated(lang: str, server: LiveServer, pages: Pages,
                                        finished_table: str) -> None:
    served: dict[str, Any] = {} if lang == "en" else \
        server.get(f"/api/i18n/{lang}")["messages"]
    page = await pages.new(locale="en-US")
    seen = await run(page, server, lang, served, finished_table)

    found: dict[str, list[str]] = {}  # problem → where
    for where, texts in seen.items():
        for text in texts:
            if PLACEHOLDER.search(text):
                found.setdefault(f"unfilled placeholder in {text!r}", []).append(where)
        if lang != "en":
            for problem in untranslated(texts, served):
                found.setdefault(problem, []).append(where)
    if lang == "en":
        assert "Create a table" in seen["lobby"]
        assert "How to play" in seen["about"]
    problems = [f"{problem} — {', '.join(dict.fromkeys(where))}"
                for problem, where in found.items()]
    assert not problems, f"{lang}: {len(problems)} untranslated:\n" + "\n".join(problems)
