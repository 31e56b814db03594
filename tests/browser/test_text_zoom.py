"""The table on a phone with the reader's text at 200% (their browser's own setting, as
``document.documentElement.style.fontSize = '200%'`` sets it): before, the middle of the
table kept to what one screen left it, 64 px, so that a round's summary hid its Continue
button and a trick's dice were cut at the bottom; the seats kept one column each, so that
a name showed three letters ("Ari…"); and the final ranking's headings pushed its Total
past the card, and off a small phone's screen. Now the page grows and scrolls instead.

Later: a round summary's headings broke inside words ("Pun/kte", "Ap/ost/a"; now each
player's figures lie under their name, each after its heading); names and dice words ended
in "…" ("Thes…", "amar…"; now they wrap); the header's menu button and the replay's ▶ went
onto a row of their own (now they keep their rows).
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING

import pytest

from live_server import LiveServer

from .conftest import Pages
from .pages import (
    BID,
    FINAL,
    SELECTED_TEXT_AND_ROOM,
    decide,
    overflowing,
    play_until_mid_trick,
    views_renamed,
    wait_for_decision,
)

if TYPE_CHECKING:
    from playwright.async_api import Page, ViewportSize

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONE: ViewportSize = {"width": 360, "height": 640}
SMALL_PHONE: ViewportSize = {"width": 320, "height": 568}
LOCALES = {"en": "en-GB", "de": "de-DE", "nl": "nl-NL", "pt": "pt-BR", "es": "es-ES"}
ZOOM = "document.documentElement.style.fontSize = '200%'"
NAME = "Maximilian"
#: The longest names there may be (24 letters), with and without a space to break at.
LONG_NAMES = ["Konstantinopolitanischer", "W" * 24, "Maximiliane Josephine vo",
              "Ana", "Bea", "Bartholomew Christophers"]

#: What of ``selector``'s elements a person does not see whole: past the viewport's left or
#: right edge, cut by an ancestor that clips what overflows it (overflow other than
#: visible: its padding box; the page's html and body only sideways, the page scrolls
#: down), or its own text cut short by its own overflow.
CUT = """(selector) => {
  const W = window.innerWidth;
  const out = [];
  const px = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
  document.querySelectorAll(selector).forEach((el, i) => {
    const what = `${selector} #${i + 1} (${el.textContent.trim().slice(0, 20)})`;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) { out.push(`${what}: not shown`); return; }
    if (r.left < -0.5 || r.right > W + 0.5) out.push(`${what}: at ${px(r)}, the screen 0-${W}`);
    const own = getComputedStyle(el);
    if ((own.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1)
        || (own.overflowY !== "visible" && el.scrollHeight > el.clientHeight + 1)) {
      out.push(`${what}: its text cut (${el.scrollWidth}x${el.scrollHeight} in ` +
               `${el.clientWidth}x${el.clientHeight})`);
    }
    for (let a = el.parentElement; a; a = a.parentElement) {
      const style = getComputedStyle(a);
      const page = a === document.body || a === document.documentElement;
      const sideways = style.overflowX !== "visible", down = !page && style.overflowY !== "visible";
      if (!sideways && !down) continue;
      const box = a.getBoundingClientRect();
      const left = box.left + a.clientLeft, top = box.top + a.clientTop;
      const clip = { left, top, right: left + a.clientWidth, bottom: top + a.clientHeight };
      if ((sideways && (r.left < clip.left - 0.5 || r.right > clip.right + 0.5))
          || (down && (r.top < clip.top - 0.5 || r.bottom > clip.bottom + 0.5))) {
        out.push(`${what}: at ${px(r)}, cut by ${a.tagName.toLowerCase()}.${a.className} ` +
                 `(${px(clip)})`);
      }
    }
  });
  return out;
}"""

#: The seats' names cut to less than four letters' width (in the name's own ems).
SHORT_NAMES = """() => [...document.querySelectorAll(".players .seat .name")]
  .filter((n) => n.scrollWidth > n.clientWidth + 1
    && n.clientWidth / parseFloat(getComputedStyle(n).fontSize) < 4)
  .map((n) => `${n.title}: ${(n.clientWidth / parseFloat(getComputedStyle(n).fontSize))
    .toFixed(1)} em`)"""


#: The words of ``selector``'s shown text (not a box clipped to a pixel, as a heading kept
#: for screen readers) that are broken over two lines ("Pun" / "kte").
BROKEN_WORDS = """(selector) => {
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const box = el.getBoundingClientRect();
    if (box.width <= 2 || box.height <= 2 || !el.checkVisibility()) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const found of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, found.index);
        range.setEnd(node, found.index + found[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0)
          .map((r) => Math.round(r.top)));
        if (lines.size > 1) out.push(`${found[0]}: on ${lines.size} lines`);
      }
    }
  }
  return out;
}"""

#: The summary's figures that are not on one line each, or do not say what they are
#: (their column's heading shown neither above them nor before them).
UNLABELLED_FIGURES = """() => {
  const head = document.querySelector(".summary thead").getBoundingClientRect();
  const headShown = head.width > 2 && head.height > 2;
  return [...document.querySelectorAll(".summary tbody td")].filter((td) => td.textContent)
    .flatMap((td) => {
      const line = parseFloat(getComputedStyle(td).lineHeight);
      const label = getComputedStyle(td, "::before").content;
      const out = [];
      if (td.getBoundingClientRect().height > 1.6 * line) {
        out.push(`${td.textContent}: over two lines`);
      }
      if (!headShown && !label.includes(td.dataset.label || "\\u0000")) {
        out.push(`${td.textContent}: without its heading`);
      }
      return out;
    });
}"""


async def cut(page: Page, selector: str) -> list[str]:
    found: list[str] = await page.evaluate(CUT, selector)
    return found


async def wider_than_the_screen(page: Page) -> list[str]:
    """What makes the page wider than the screen (nothing, when all is well)."""
    width, inner = await page.evaluate(
        "[document.documentElement.scrollWidth, window.innerWidth]")
    return ([] if width <= inner else [f"the page is {width} px wide in {inner}"]) \
        + await overflowing(page)


async def sit_at_200_percent(pages: Pages, server: LiveServer, lang: str,
                             players: int) -> Page:
    """A phone with the text at 200%, at a new table of ``players`` (the others easy
    bots), its first seat taken, at its first bid."""
    table = server.post("/api/tables", {"players": players,
                                        "bots": [None] + ["easy"] * (players - 1)})["table"]
    page = await pages.new(viewport=PHONE, locale=LOCALES[lang])
    await page.goto(f"{server.base}/t/{table}")
    await page.evaluate(ZOOM)
    await page.fill("#join-name", NAME)
    await page.locator(".join button[type=submit]").click()
    await page.locator(BID).first.wait_for()
    return page


@pytest.mark.parametrize(("lang", "players"), [("en", 4), ("de", 6)])
async def test_a_rounds_summary_shows_whole_with_its_continue_button(
        lang: str, players: int, server: LiveServer, pages: Pages) -> None:
    page = await sit_at_200_percent(pages, server, lang, players)
    rng = random.Random(players)
    assert await decide(page, rng) == "bid"
    assert await decide(page, rng) == "roll"  # round 1: one die each
    await page.locator(".summary").wait_for()
    assert await wait_for_decision(page) == "bid"  # round 2's bidding, under the summary
    assert await page.locator(".summary button.primary").count() == 1
    assert await cut(page, ".summary button.primary") + await cut(page, ".summary td") \
        + await wider_than_the_screen(page) == []
    # the headings read whole, the names too, and each figure says what it is
    assert await page.evaluate(BROKEN_WORDS, ".summary th") \
        + await cut(page, ".summary tbody .name") + await page.evaluate(UNLABELLED_FIGURES) == []
    await page.locator(".summary button.primary").click()
    await page.locator(".summary").wait_for(state="detached")


@pytest.mark.parametrize(("lang", "players"), [("en", 4), ("nl", 6)])
async def test_a_tricks_dice_and_the_seats_names_show_whole(
        lang: str, players: int, server: LiveServer, pages: Pages) -> None:
    page = await sit_at_200_percent(pages, server, lang, players)
    rng = random.Random(players + 1)
    await play_until_mid_trick(page, rng, 2)
    assert await page.locator(".trick .roll").count() >= 1
    # where the dice come to lie (a die tumbles in from above its place)
    await page.wait_for_function("""() => document.querySelector(".trick")
      .getAnimations({ subtree: true }).every((a) => a.playState === "finished")""")
    assert await cut(page, ".trick .roll") + await cut(page, ".trick .roll svg") \
        + await page.evaluate(SHORT_NAMES) + await wider_than_the_screen(page) == []
    # every seat's total alike, your own too: "Totaal 10" beside the others' "10" read as
    # two kinds of figure
    shown = await page.locator(".players .seat .total-word").evaluate_all(
        "(words) => words.map((w) => !w.classList.contains('sr-only'))")
    assert len(shown) == players, shown
    assert len(set(shown)) == 1, shown


#: What shows a seat's name, its notes ("bot fácil"), a die's word: none may end in "…".
WORDS = [".players .seat .name", ".players .seat .notes", ".die-button .label",
         ".trick .roll .who", ".trick .roll .what"]


@pytest.mark.parametrize("lang", ["pt", "de"])
async def test_names_and_dice_words_wrap_rather_than_end_in_an_ellipsis(
        lang: str, server: LiveServer, pages: Pages) -> None:
    """Six players with the longest names, in languages with long dice words ("amarelo",
    "Meerjungfrau"): before, the seats read "Kons…" and the dice "amar…"."""
    table = server.post("/api/tables", {"players": 6, "bots": [None] + ["easy"] * 5})["table"]
    page = await pages.new(viewport=PHONE, locale=LOCALES[lang])
    await page.route_web_socket(re.compile(r"/ws/"), views_renamed(LONG_NAMES))
    await page.goto(f"{server.base}/t/{table}")
    await page.evaluate(ZOOM)
    await page.fill("#join-name", NAME)
    await page.locator(".join button[type=submit]").click()
    await page.locator(BID).first.wait_for()
    await page.locator(".die-button .label").first.wait_for()
    found: list[str] = []
    for selector in WORDS[:3]:
        found += await cut(page, selector)
    rng = random.Random(7)
    await play_until_mid_trick(page, rng, 2)
    await page.wait_for_function("""() => document.querySelector(".trick")
      .getAnimations({ subtree: true }).every((a) => a.playState === "finished")""")
    assert await page.locator(".die-button .label").count() >= 1
    assert await page.locator(".trick .roll .what").count() >= 1
    for selector in WORDS:
        found += await cut(page, selector)
    assert found + await wider_than_the_screen(page) == []


async def test_the_header_keeps_its_menu_button_on_its_row(server: LiveServer,
                                                           pages: Pages) -> None:
    """At a table the header holds the brand, Leave and the menu button ("Verlassen" in
    German): the menu button went onto a row of its own."""
    page = await sit_at_200_percent(pages, server, "de", 4)
    await page.locator("#leave").wait_for()
    boxes = await page.evaluate("""() => ["header a.brand", "#leave", "header button.menu"]
      .map((s) => document.querySelector(s).getBoundingClientRect())
      .map((r) => [r.top, r.bottom])""")
    (_, brand_bottom), (leave_top, _), (menu_top, _) = boxes
    # one row: each begins before the others end
    assert leave_top < brand_bottom, boxes
    assert menu_top < brand_bottom, boxes
    assert abs(leave_top - menu_top) < 2, boxes
    assert await wider_than_the_screen(page) == []


@pytest.mark.parametrize("lang", ["pt", "de"])
async def test_the_replays_step_buttons_keep_their_row(lang: str, server: LiveServer,
                                                       pages: Pages) -> None:
    """◀, the round ("Rodada 1/8") and ▶: ▶ went onto a row of its own."""
    table = server.finished_bot_game(4)
    page = await pages.new(viewport=PHONE, locale=LOCALES[lang])
    await page.goto(f"{server.base}/replay/{table}")
    await page.locator("#replay-next").wait_for()
    await page.evaluate(ZOOM)
    tops = await page.evaluate("""() => ["#replay-prev", "#replay-round", "#replay-next"]
      .map((s) => document.querySelector(s).getBoundingClientRect())
      .map((r) => [r.top, r.bottom])""")
    (_, prev_bottom), (round_top, _), (next_top, _) = tops
    assert next_top < prev_bottom, tops
    assert round_top < prev_bottom, tops
    # the round's words fit its menu (a select cuts them without an ellipsis)
    fits = await page.locator("#replay-round").evaluate(SELECTED_TEXT_AND_ROOM)
    # (a native select keeps some of its room for its arrow: about an em)
    assert fits[0] + 16 <= fits[1], fits
    assert await cut(page, ".replay-nav button") + await wider_than_the_screen(page) == []


@pytest.mark.parametrize(("lang", "viewport"), [("es", PHONE), ("de", SMALL_PHONE)])
async def test_the_final_rankings_totals_stay_on_the_card(
        lang: str, viewport: ViewportSize, server: LiveServer, pages: Pages) -> None:
    """Six players with the longest names (as the server might send them), in the
    languages with the longest headings."""
    table = server.finished_bot_game(6)

    page = await pages.new(viewport=viewport, locale=LOCALES[lang])
    await page.route_web_socket(re.compile(r"/ws/"), views_renamed(LONG_NAMES))
    await page.goto(f"{server.base}/t/{table}")
    await page.locator(FINAL).wait_for()
    await page.evaluate(ZOOM)
    totals = f"{FINAL} tbody td:last-child"
    assert await page.locator(totals).count() == 6
    assert await cut(page, totals) == []
    # within the card's padding, as at the default size (before, the table ran over it)
    inside = await page.locator(FINAL).evaluate("""(card) => {
      const style = getComputedStyle(card);
      return card.getBoundingClientRect().right - parseFloat(style.borderRightWidth)
        - parseFloat(style.paddingRight); }""")
    rights = await page.locator(totals).evaluate_all(
        "(cells) => cells.map((c) => c.getBoundingClientRect().right)")
    assert max(rights) <= inside + 0.5, (rights, inside)
    assert await wider_than_the_screen(page) == []
