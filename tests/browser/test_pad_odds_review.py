"""The score pad (/pad) and the odds page (/odds) as a tester found them, by keyboard, on a
phone with long names and large text, and with a screen reader's names:

1. every change drew the page anew and dropped the keyboard's focus (a second Space on
   "Bid of Cleo: one more" did nothing), and the new value was not said;
2. one long name without a space widened every player's card past the screen;
3. the odds page at 200% text put "+" off the screen, cut the seat's words and let the
   answer's table stick out of its card;
4. the sheet's Correct buttons, kept at the right, left the players' columns some 50 px;
5. the odds page offered a minotaur rolled while you held the only one, and the server's
   refusal was said in English in every language;
6. controls that did not say whose or which they were;
7. "+" past a limit did nothing, without saying why;
8. dates, a shared victory's names, and the note for the last to roll.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from playwright.async_api import expect

from live_server import LiveServer

from .conftest import Pages
from .pages import SELECTED_TEXT_AND_ROOM
from .test_odds import tap_hand
from .test_pad import open_stored, stored_pad
from .test_text_zoom import LOCALES, PHONE, ZOOM, cut, wider_than_the_screen

if TYPE_CHECKING:
    from playwright.async_api import Page

pytestmark = pytest.mark.asyncio(loop_scope="session")

Json = dict[str, Any]

#: What has the keyboard's focus: its data-key or id, and its accessible label.
FOCUSED = """() => { const a = document.activeElement;
  return a ? (a.getAttribute('aria-label') || a.dataset.key || a.id || a.tagName) : null; }"""


async def focused(page: Page) -> str | None:
    found: str | None = await page.evaluate(FOCUSED)
    return found


async def tab_to(page: Page, wanted: str, presses: int = 80) -> None:
    """Press Tab until the control labelled (or with the id) ``wanted`` has the focus."""
    for _ in range(presses):
        await page.keyboard.press("Tab")
        if await focused(page) == wanted or await page.evaluate(
                "(w) => document.activeElement && document.activeElement.id === w", wanted):
            return
    raise AssertionError(f"{wanted!r} never had the focus (last: {await focused(page)!r})")


def at_tricks(game: Json, bids: list[int]) -> Json:
    """``game`` with its round being entered at the tricks, the bids done."""
    game["rounds"][-1]["bids"] = bids
    game["rounds"][-1]["step"] = "tricks"
    return game


# -- 1. the keyboard stays where it was -------------------------------------------------------


async def test_the_pads_controls_keep_the_keyboard_and_say_the_new_value(
        server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await open_stored(page, server, stored_pad(["Ana", "Ben", "Cleo"], 2))
    await tab_to(page, "Bid of Cleo: one more")
    await page.keyboard.press("Space")
    assert await page.locator("#bid-2").inner_text() == "1"
    assert await focused(page) == "Bid of Cleo: one more"
    await page.keyboard.press("Space")  # the second press works as the first did
    assert await page.locator("#bid-2").inner_text() == "2"
    assert await focused(page) == "Bid of Cleo: one more"
    await expect(page.locator("#say")).to_have_text("Bid of Cleo: 2")

    page = await pages.new(viewport=PHONE)
    await open_stored(page, server, at_tricks(stored_pad(["Ana", "Ben", "Cleo"], 2, "b2"),
                                              [1, 1, 1]))
    await tab_to(page, "Tricks won by Ana: one more")
    await page.keyboard.press("Enter")
    await page.keyboard.press("Enter")
    assert await page.locator("#won-0").inner_text() == "2"
    assert await focused(page) == "Tricks won by Ana: one more"
    await tab_to(page, "griffins-0")
    await page.keyboard.press("ArrowDown")
    await expect(page.locator("#griffins-0")).to_have_value("1")
    assert await page.evaluate("document.activeElement.id") == "griffins-0"
    await page.keyboard.press("ArrowDown")
    await expect(page.locator("#griffins-0")).to_have_value("2")
    await page.keyboard.press("Tab")
    assert await page.evaluate("document.activeElement.id") == "mermaid-0"
    await page.keyboard.press("Space")
    await expect(page.locator("#mermaid-0")).to_be_checked()
    assert await page.evaluate("document.activeElement.id") == "mermaid-0"
    await page.keyboard.press("Space")
    await expect(page.locator("#mermaid-0")).not_to_be_checked()
    stored = json.loads(await page.evaluate("localStorage.getItem('minodice.pad.games')"))
    assert stored["b2"]["rounds"][-1]["griffins"][0] == 2


async def test_the_odds_pages_dice_keep_the_keyboard(server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/odds")
    await page.locator("#odds-go").wait_for()
    await tab_to(page, "red: one more")
    for _ in range(2):
        await page.keyboard.press("Space")
    assert await page.locator('.odds-dice output[aria-label="red"]').inner_text() == "2"
    assert await focused(page) == "red: one more"
    await expect(page.locator("#say")).to_have_text("red: 2")
    await page.keyboard.press("Shift+Tab")
    assert await focused(page) == "red: one less"
    await page.keyboard.press("Enter")
    assert await page.locator('.odds-dice output[aria-label="red"]').inner_text() == "1"
    assert await focused(page) == "red: one less"
    await tab_to(page, "odds-tab-trick")
    await page.keyboard.press("Enter")
    await page.locator("#odds-rolled-kind").wait_for()
    assert await page.evaluate("document.activeElement.id") == "odds-tab-trick"


# -- 2. a long name breaks --------------------------------------------------------------------


@pytest.mark.parametrize(("name", "lang", "zoom"), [("W" * 24, "en", False),
                                                    ("W" * 24, "en", True),
                                                    ("Konstantinopolitanischer", "de", True)])
async def test_a_long_name_leaves_every_button_on_a_phones_screen(
        name: str, lang: str, zoom: bool, server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE, locale=LOCALES[lang])
    await open_stored(page, server, at_tricks(stored_pad([name, "Ben", "Cleo"], 2), [1, 1, 1]),
                      lang=lang)
    if zoom:
        await page.evaluate(ZOOM)
    assert await page.locator(".pad-editor .stepper button").count() == 12
    assert await cut(page, ".pad-editor button") + await cut(page, ".pad-editor select") \
        + await cut(page, ".pad-player h3") + await wider_than_the_screen(page) == []


# -- 3. the odds page at 200% -----------------------------------------------------------------

#: The cells of the answer's table that reach past its card's padding.
PAST_THE_CARD = """(card) => {
  const style = getComputedStyle(card);
  const inside = card.getBoundingClientRect().right - parseFloat(style.borderRightWidth)
    - parseFloat(style.paddingRight);
  return [...card.querySelectorAll("th, td")]
    .filter((c) => c.getBoundingClientRect().right > inside + 0.5)
    .map((c) => `${c.textContent}: ${c.getBoundingClientRect().right} > ${inside}`);
}"""


@pytest.mark.parametrize("lang", ["de", "nl"])
async def test_the_odds_page_at_200_percent_on_a_phone(lang: str, server: LiveServer,
                                                       pages: Pages) -> None:
    page = await pages.new(viewport=PHONE, locale=LOCALES[lang])
    await page.goto(server.base + "/odds")
    await page.locator("#odds-go").wait_for()
    await page.evaluate(ZOOM)
    await page.locator(".odds-dice li:nth-child(4) button").nth(1).click()  # a red die
    await page.locator(".odds-dice li:nth-child(5) button").nth(1).click()  # a yellow one
    assert await page.locator(".odds-dice button").count() == 14
    assert await cut(page, ".odds-dice button") + await cut(page, ".odds-dice .label") \
        + await cut(page, "#odds-position label") + await wider_than_the_screen(page) == []
    seat = page.locator("#odds-position")
    if await seat.evaluate("(el) => el.tagName") == "SELECT":  # a menu cuts without "…"
        text, room = await seat.evaluate(SELECTED_TEXT_AND_ROOM)
        assert text + 16 <= room, (text, room)
    await page.locator("#odds-go").click()
    answer = page.locator("#odds-answer")
    await answer.locator("tbody tr").first.wait_for()
    assert await answer.evaluate(PAST_THE_CARD) == []
    assert await wider_than_the_screen(page) == []


# -- 4. every column of the sheet can be read -------------------------------------------------

#: The sheet's cells of a row that cannot be seen whole, however the sheet is scrolled:
#: each is scrolled to, just right of the round's number, and must then show both its edges
#: (nothing kept in view over it).
HIDDEN_COLUMNS = """(scroll) => {
  const out = [];
  const round = scroll.querySelector("tbody th").getBoundingClientRect().width;
  for (const cell of scroll.querySelectorAll("tbody tr:first-child td:has(.bw)")) {
    scroll.scrollLeft = cell.offsetLeft - round;
    const r = cell.getBoundingClientRect();
    const y = r.top + r.height / 2;
    for (const x of [r.left + 2, r.right - 2]) {
      const seen = document.elementFromPoint(x, y);
      if (!seen || !cell.contains(seen)) {
        const what = seen ? `${seen.tagName}.${seen.className} ${seen.textContent.slice(0, 12)}`
          : "off the screen";
        out.push(`${cell.textContent} at x=${Math.round(x)}: ${what}`);
        break;
      }
    }
  }
  scroll.scrollLeft = 0;
  return out;
}"""


@pytest.mark.parametrize(("lang", "zoom"), [("de", True), ("en", False)])
async def test_every_column_of_a_six_player_sheet_can_be_read(
        lang: str, zoom: bool, server: LiveServer, pages: Pages) -> None:
    names = ["Anna-Katharina", "Bartholomäus", "Christoph", "Dörte", "Emanuel", "Friederike"]
    page = await pages.new(viewport=PHONE, locale=LOCALES[lang])
    await open_stored(page, server, stored_pad(names, 4), lang=lang)
    if zoom:
        await page.evaluate(ZOOM)
    scroll = page.locator(".pad-grid .scroll")
    await scroll.scroll_into_view_if_needed()
    assert await scroll.evaluate(HIDDEN_COLUMNS) == []
    # each round's Correct button can still be reached, and says which round it corrects
    button = page.get_by_role("button", name="Runde 3 korrigieren" if lang == "de"
                              else "Correct round 3", exact=True)
    await button.scroll_into_view_if_needed()
    box = await button.bounding_box()
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= PHONE["width"], box
    assert await wider_than_the_screen(page) == []


# -- 5. no die that cannot exist; a refusal in the reader's words -----------------------------


async def test_a_trick_offers_no_die_that_cannot_exist(server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE, locale="de-DE")
    await page.goto(server.base + "/odds")
    await page.evaluate("localStorage.setItem('minodice.lang', 'de')")
    await page.reload()
    await page.get_by_role("tab", name="Während eines Stichs").click()
    await page.get_by_role("button", name="Minotaurus: eins mehr", exact=True).click()
    minotaur = page.locator('#odds-rolled-kind option[value="minotaur"]')
    assert await minotaur.is_disabled()
    assert await page.locator("#odds-rolled-kind").input_value() != "minotaur"
    # a griffin rolled twice, and one held: the set's three are in sight
    for _ in range(2):
        await page.select_option("#odds-rolled-kind", "griffin")
        await page.locator("#odds-add").click()
    await page.get_by_role("button", name="Greif: eins mehr", exact=True).click()
    assert await page.locator('#odds-rolled-kind option[value="griffin"]').is_disabled()
    more = page.get_by_role("button", name="Greif: eins mehr", exact=True)
    assert await more.get_attribute("aria-disabled") == "true"
    assert "3" in (await more.get_attribute("title") or "")


async def test_a_servers_refusal_is_said_in_the_pages_language(server: LiveServer,
                                                               pages: Pages) -> None:
    page = await pages.new(viewport=PHONE, locale="de-DE")
    await page.route("**/api/odds/trick", lambda route: route.fulfill(
        status=400, content_type="application/json",
        body=json.dumps({"error": {"code": "bad_request",
                                   "message": "the mino set has only 1 minotaur die"}})))
    await page.goto(server.base + "/odds")
    await page.evaluate("localStorage.setItem('minodice.lang', 'de')")
    await page.reload()
    await page.get_by_role("tab", name="Während eines Stichs").click()
    await page.get_by_role("button", name="Minotaurus: eins mehr", exact=True).click()
    await page.locator("#odds-go").click()
    toast = page.locator(".toast-item")
    await toast.wait_for()
    said = await toast.inner_text()
    assert "only" not in said, said
    assert "die" not in said.split(), said
    assert "Minotaurus" in said, said


# -- 6. whose and which -----------------------------------------------------------------------


async def test_each_control_says_whose_or_which_it_is(server: LiveServer,
                                                      pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    game = at_tricks(stored_pad(["Ana", "Ben", "Cleo"], 3), [1, 1, 2])
    await open_stored(page, server, game)
    for name in ("Ana", "Ben", "Cleo"):
        griffins = page.get_by_role("combobox", name=f"Griffins taken by the minotaur, {name}",
                                    exact=True)
        mermaid = page.get_by_role("checkbox", name=f"Minotaur taken by a mermaid, {name}",
                                   exact=True)
        await expect(griffins).to_have_count(1)
        await expect(mermaid).to_have_count(1)
    for r in (1, 2, 3):
        await expect(page.get_by_role("button", name=f"Correct round {r}", exact=True)) \
            .to_have_count(1)
    last = page.locator(".pad-grid thead th").last
    assert (await last.text_content() or "").strip()
    await page.goto(server.base + "/pad")
    delete = page.locator(".pad-list button")
    await expect(delete).to_have_count(1)
    label = await delete.get_attribute("aria-label") or ""
    assert label.startswith("Delete"), label
    assert "Ana, Ben, Cleo" in label, label


# -- 7. a limit reached says so ---------------------------------------------------------------


async def test_the_odds_pages_limits_say_why(server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/odds")
    await tap_hand(page, ["minotaur"])
    minotaur = page.get_by_role("button", name="minotaur: one more", exact=True)
    assert await minotaur.get_attribute("aria-disabled") == "true"
    assert "only one minotaur" in (await minotaur.get_attribute("title") or "")
    red = page.get_by_role("button", name="red: one more", exact=True)
    assert await red.get_attribute("aria-disabled") is None
    await tap_hand(page, ["red"] * 7)
    for kind in ("red", "gray", "purple"):
        more = page.get_by_role("button", name=f"{kind}: one more", exact=True)
        assert await more.get_attribute("aria-disabled") == "true", kind
        assert "8" in (await more.get_attribute("title") or ""), kind
    # the keyboard on a "+" whose limit its press reached stays there
    await page.get_by_role("button", name="red: one less", exact=True).click()
    await red.focus()
    await page.keyboard.press("Enter")
    assert await focused(page) == "red: one more"
    await page.keyboard.press("Enter")  # does nothing, and says why
    assert await page.locator('.odds-dice output[aria-label="red"]').inner_text() == "7"

    await page.get_by_role("tab", name="During a trick").click()
    await page.select_option("#odds-players", "3")
    add = page.locator("#odds-add")
    for _ in range(2):
        assert await add.get_attribute("aria-disabled") is None
        await page.select_option("#odds-rolled-kind", "yellow")
        await add.click()
    await expect(page.locator(".rolls .roll")).to_have_count(2)
    assert await add.get_attribute("aria-disabled") == "true"
    assert "3 players" in (await add.get_attribute("title") or "")


# -- 8. dates, names, the last to roll, the checkbox ------------------------------------------


def tied_game() -> Json:
    """Three players' finished game: Ana and Ben tie for first."""
    rounds = [{"bids": [0, 0, 0], "won": [0, 0, r], "griffins": [0, 0, 0],
               "mermaid": [False] * 3, "done": True} for r in range(1, 9)]
    return {"format": "minodice-pad", "version": 1, "id": "tied", "created": 1764000000000,
            "players": ["Ana", "Ben", "Cleo"], "edition": "mino", "variant": "standard",
            "rounds": rounds, "rev": 1}


async def test_dates_and_a_shared_victory_read_as_the_reader_writes(
        server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE, locale="en-GB")
    await page.goto(server.base + "/pad")
    await page.evaluate("(g) => localStorage.setItem('minodice.pad.games', g)",
                        json.dumps({"tied": tied_game()}))
    await page.goto(server.base + "/pad?game=tied")
    verdict = page.locator(".final .verdict")
    await verdict.wait_for()
    text = (await verdict.inner_text()).replace("\u2068", "").replace("\u2069", "")
    assert text == "Shared victory: Ana and Ben with 360 points!", text
    await page.goto(server.base + "/pad")
    date = await page.locator(".pad-list small").inner_text()
    assert date in ("24 Nov 2025", "24/11/2025"), date  # British, not 11/24/2025


async def test_the_last_to_roll_is_told_what_is_left_to_chance(server: LiveServer,
                                                                pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/odds")
    await page.get_by_role("tab", name="During a trick").click()
    await tap_hand(page, ["red", "yellow"])
    await page.select_option("#odds-players", "3")
    for kind in ("gray", "purple"):
        await page.select_option("#odds-rolled-kind", kind)
        await page.get_by_role("button", name="Add", exact=True).click()
    await page.locator("#odds-go").click()
    note = page.locator("#odds-answer .model")
    await note.wait_for()
    assert "0 players" not in await note.inner_text()


async def test_the_mermaid_box_grows_with_the_text(server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await open_stored(page, server, at_tricks(stored_pad(["Ana", "Ben", "Cleo"], 1), [0, 1, 0]))
    small = await page.locator("#mermaid-0").bounding_box()
    await page.evaluate(ZOOM)
    large = await page.locator("#mermaid-0").bounding_box()
    assert small is not None
    assert large is not None
    assert large["width"] >= 1.8 * small["width"], (small, large)
