"""What a family found in the page's words and name fields: a name field took more than
the server's 24 characters and said so only after a click, the lobby asked for the name
twice, the table cited a rule number ("(R9)") the rules never show, the seats read "Σ" for
the total and "✓" for a secret bid, and the replay named dice by two letters ("ro" is red
in German, purple in Portuguese)."""

from __future__ import annotations

import asyncio
import random
import re
from typing import TYPE_CHECKING, Any

import pytest
from playwright.async_api import expect

from live_server import LiveServer
from minodice.core.dice import load_dice_set
from minodice.core.names import NAME_MAX

from .conftest import Pages
from .pages import BID, DIE, FINAL, GAME_TIMEOUT, overflowing, step, wait_for_decision

if TYPE_CHECKING:
    from playwright.async_api import Locator, Page, ViewportSize

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONE: ViewportSize = {"width": 360, "height": 640}
DESKTOP: ViewportSize = {"width": 1366, "height": 768}
#: A legal name of exactly NAME_MAX code points, two of them emoji (26 UTF-16 units: an
#: input's maxlength of 24 would refuse its end).
EMOJI_NAME = "🎲 Ana Beatriz Gonçalves🎲"
assert len(EMOJI_NAME) == NAME_MAX
assert len(EMOJI_NAME.encode("utf-16-le")) // 2 > NAME_MAX


def translated(server: LiveServer, lang: str) -> dict[str, Any]:
    return {} if lang == "en" else server.get(f"/api/i18n/{lang}")["messages"]


def tr(served: dict[str, Any], msgid: str) -> str:
    value = served.get(msgid)
    return value if isinstance(value, str) and value else msgid


async def in_language(page: Page, server: LiveServer, path: str, lang: str) -> None:
    await page.goto(server.base + "/about")
    await page.evaluate("(lang) => localStorage.setItem('minodice.lang', lang)", lang)
    await page.goto(server.base + path)


async def check_name_field(page: Page, field: Locator) -> None:
    """The field lets nobody type more than NAME_MAX characters (and says so at once),
    and takes a whole legal name with emoji."""
    maxlength = await field.get_attribute("maxlength")
    assert maxlength is not None, "the name field has no maxlength"
    # maxlength counts UTF-16 units, the server code points: never less than a legal
    # name of astral characters takes
    assert int(maxlength) >= 2 * NAME_MAX, maxlength
    await field.fill("")
    await field.press_sequentially("A" * (NAME_MAX + 6))
    assert await field.input_value() == "A" * NAME_MAX
    pasted = "B" * 40
    await field.fill(pasted)
    assert await field.input_value() == "B" * NAME_MAX
    await field.fill("")
    await field.press_sequentially(EMOJI_NAME)
    assert await field.input_value() == EMOJI_NAME


@pytest.mark.parametrize(("lang", "path", "field"), [("de", "/", "#quick-name"),
                                                     ("nl", "/t/", "#join-name")])
async def test_spaces_around_a_name_do_not_count_and_a_cut_name_says_so(
        lang: str, path: str, field: str, server: LiveServer, pages: Pages) -> None:
    """The server trims the spaces around a name, but they counted toward its 24
    characters while typing (three spaces left room for 21 letters); a name pasted too
    long was cut without a word. Now the spaces do not count, and the field says it cut
    (in the reader's language), until the name is edited within the limit."""
    served = translated(server, lang)
    said = tr(served, "Cut to {n} characters, the most a name may have.").format(n=NAME_MAX)
    assert said != "Cut to 24 characters, the most a name may have."
    if path == "/t/":
        path += server.post("/api/tables", {"players": 3, "bots": [None, "easy", "easy"]})["table"]
    page = await pages.new(viewport=PHONE)
    await in_language(page, server, path, lang)
    name = page.locator(field)
    note = page.locator(".name-cut")
    await name.fill("")
    await name.press_sequentially("   " + "A" * NAME_MAX)
    assert (await name.input_value()).strip() == "A" * NAME_MAX
    await expect(note).to_be_hidden()
    await name.fill("")
    await name.press_sequentially("Ana Maria ")  # a space typed at the end stays: a
    assert await name.input_value() == "Ana Maria "  # second name may follow
    await name.fill("  " + "B" * 30 + " ")  # pasted
    assert await name.input_value() == "B" * NAME_MAX
    await expect(note).to_be_visible()
    await expect(note).to_have_text(said)
    assert await name.get_attribute("aria-describedby") == await note.get_attribute("id")
    await name.press("End")
    await name.press("Backspace")
    await expect(note).to_be_hidden()
    assert await name.get_attribute("aria-describedby") is None
    assert await overflowing(page) == []


async def test_the_lobby_asks_for_the_name_once_and_takes_a_whole_name(
        server: LiveServer, pages: Pages) -> None:
    """One name field serves "Play now" and "Create a table"; it stops at 24 characters
    and takes 24 with emoji, which the server seats as they are."""
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    names = page.locator("main input[name='name']")
    assert await names.count() == 1, "the lobby asks for the name more than once"
    await check_name_field(page, names)
    # the create form takes the one name field's name
    await page.select_option("#c-players", "3")
    await page.select_option("#c-seat-1", "easy")
    await page.select_option("#c-seat-2", "easy")
    await page.locator(".create button[type=submit]").click()
    await page.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
    table = page.url.rsplit("/", 1)[1]
    assert server.get(f"/api/tables/{table}")["players"][0]["name"] == EMOJI_NAME
    assert await page.locator(".toast-item").count() == 0


async def test_create_without_a_name_points_to_the_name_field(server: LiveServer,
                                                              pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    await page.locator(".create button[type=submit]").click()
    field = page.locator("main input[name='name']")
    await expect(field).to_be_focused()
    await expect(page.locator(".toast-item")).to_have_count(1)
    assert page.url.rstrip("/") == server.base


#: Names on both sides of the server's rule: blanks, format and control characters, lone
#: surrogates, joined emoji, a flag's tags, scripts other than Latin, punctuation alone.
NAMES = ["Ana", " ", "\u200b\u200b", "\u2800", "\u3164Bo", "A\u202eB", "a\u0007b",
         "x\u2028y", "\ud800ab", "👩\u200d💻", "🏳️\u200d🌈", "🏴\U000e0067\U000e0062\U000e0073"
         "\U000e0063\U000e0074\U000e007f", "ميلاد", "زن\u200cها", "!!", "😀", "\ufeffAna",
         "Ana\u00ad", "\u180e", "ℕ", "A" * NAME_MAX, "🎲" * NAME_MAX, "A" * (NAME_MAX + 1)]


async def test_the_page_refuses_the_names_the_server_refuses(server: LiveServer,
                                                             pages: Pages) -> None:
    """The page checked only a name's length, so a table was made for a name the server
    then refused (zero-width spaces): it stayed, empty, in the lobby's list. The page's
    rule is now the server's, name by name."""
    from minodice.core.names import name_problem

    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    verdicts = await page.evaluate("""async (names) => {
        const { nameProblem } = await import('/static/api.js');
        return names.map((n) => nameProblem(n) === null); }""", NAMES)
    for name, taken in zip(NAMES, verdicts, strict=True):
        assert taken == (name_problem(name) is None), (ascii(name), taken)


async def test_a_long_paste_is_cut_between_characters_as_people_see_them(
        server: LiveServer, pages: Pages) -> None:
    """Four family emoji (7 code points each) and a name, pasted: cut at 24 code points,
    the third family lost its children ("👨‍👩"). A whole family goes now."""
    family = "👨\u200d👩\u200d👧\u200d👦"
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    field = page.locator("main input[name='name']")
    await field.fill(family * 4 + " Ana")
    assert await field.input_value() == family * 3
    await field.fill("Ana ")
    await field.press("End")
    await page.keyboard.insert_text(family * 3)  # typed after a name: the last family goes
    assert await field.input_value() == "Ana " + family * 2


async def test_a_refused_name_makes_no_table(server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    before = len(server.get("/api/tables"))
    await page.fill("main input[name='name']", "\u200b\u200b\u200b")
    await page.check("#c-public")
    for _ in range(2):
        await page.locator(".create button[type=submit]").click()
    await page.locator("#play-now").click()
    await expect(page.locator(".toast-item").last).to_contain_text("cannot be used")
    assert page.url.rstrip("/") == server.base
    assert len(server.get("/api/tables")) == before


async def test_a_table_made_from_the_lobby_s_lower_form_opens_at_its_top(
        server: LiveServer, pages: Pages) -> None:
    """The page kept the lobby's scroll: on a phone the new table opened past its seats,
    its round and its prompt."""
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    await page.fill("main input[name='name']", "Ana")
    submit = page.locator(".create button[type=submit]")
    await submit.scroll_into_view_if_needed()
    assert await page.evaluate("window.scrollY") > 100
    await page.select_option("#c-players", "6")  # a table page taller than the screen
    for seat in range(1, 6):
        await page.select_option(f"#c-seat-{seat}", "easy")
    await submit.scroll_into_view_if_needed()
    await submit.click()
    await page.wait_for_url(re.compile(r"/t/[A-Za-z0-9]+$"))
    await page.locator(BID).first.wait_for()
    assert await page.evaluate("window.scrollY") == 0
    await expect(page.locator(".players .seat").first).to_be_in_viewport()


async def test_the_join_form_takes_a_whole_name(server: LiveServer, pages: Pages) -> None:
    table = server.post("/api/tables", {"players": 3, "bots": [None, "easy", "easy"]})["table"]
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/t/{table}")
    field = page.locator("#join-name")
    await check_name_field(page, field)
    await page.locator(".join button[type=submit]").click()
    await page.locator(BID).first.wait_for()
    assert server.get(f"/api/tables/{table}")["players"][0]["name"] == EMOJI_NAME
    assert await page.locator(".toast-item").count() == 0


async def sit(page: Page, server: LiveServer, players: int, lang: str) -> str:
    table: str = server.post("/api/tables", {"players": players,
                                             "bots": [None] + ["easy"] * (players - 1)})["table"]
    await in_language(page, server, f"/t/{table}", lang)
    await page.fill("#join-name", "Ana")
    await page.locator(".join button[type=submit]").click()
    await page.locator(BID).first.wait_for()
    return table


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_follow_message_cites_no_rule_number(server: LiveServer, pages: Pages,
                                                       lang: str) -> None:
    """A die the follow rule blocks says why in words, without "(R9)"."""
    served = translated(server, lang)
    page = await pages.new(viewport=PHONE)
    await sit(page, server, 3, lang)
    rng = random.Random(9)
    why = page.locator(".hand .why")
    async with asyncio.timeout(GAME_TIMEOUT):
        while True:
            kind = await wait_for_decision(page)
            assert kind != "final", "the game ended before a die was blocked"
            if kind == "roll" and await why.count():
                break
            await step(page, rng)
    text = await why.inner_text()
    blocked = await page.locator(".die-button.blocked").first.get_attribute("aria-label")
    for said in (text, blocked or ""):
        assert "(R" not in said, said
        message = tr(served, "You must follow {colour} or roll a special die.")
        assert re.search(re.escape(message).replace(re.escape("{colour}"), ".+"), said), said


async def test_the_seats_say_total_and_a_secret_bid_in_words(server: LiveServer,
                                                              pages: Pages) -> None:
    """The seats' total reads "Summe", not "Σ"; a bid made in secret reads as a lock that
    says so in words, not "✓/0"; on a phone with six seats, where the word does not fit,
    it is still read out and nothing sticks out."""
    served = translated(server, "de")
    page = await pages.new(viewport=DESKTOP)
    await sit(page, server, 6, "de")
    secret = page.locator(".players .seat .won .secret").first
    await secret.wait_for()  # the bots have bid, this seat not yet
    said = tr(served, "Bid made, secret until everyone has bid")
    assert said != "Bid made, secret until everyone has bid"
    assert await secret.get_attribute("title") == said
    won = page.locator(".players .seat .won").first
    assert "✓" not in await won.inner_text()
    assert said in (await won.text_content() or "")
    word = tr(served, "Total")
    for total in await page.locator(".players .seat .total").all():
        visible = (await total.inner_text()).strip()
        assert "Σ" not in visible
        assert re.fullmatch(rf"{re.escape(word)} -?\d+", visible), visible
    await page.set_viewport_size(PHONE)
    await expect(page.locator(".players .seat .total").first).not_to_contain_text("Σ")
    for total in await page.locator(".players .seat .total").all():
        assert re.fullmatch(rf"{re.escape(word)} -?\d+", (await total.text_content() or "").strip())
    # every seat the same: "Summe 10" beside "-10" read as two kinds of figure
    assert len(await totals_shown(page)) == 1
    assert await overflowing(page) == []
    # the bids shown: bid/won, never the lock
    await page.locator(BID).first.click()
    await expect(page.locator(".players .seat .won .secret")).to_have_count(0)
    await page.locator(f"{DIE}, {FINAL}").first.wait_for()
    assert await overflowing(page) == []


async def totals_shown(page: Page) -> set[bool]:
    """Whether each seat shows the word of its total ("Summe 10") or the number alone."""
    shown: list[bool] = await page.locator(".players .seat .total-word").evaluate_all(
        "(words) => words.map((w) => !w.classList.contains('sr-only'))")
    return set(shown)


@pytest.mark.parametrize("lang", ["de", "pt", "en"])
async def test_the_replay_names_the_dice_in_words(server: LiveServer, pages: Pages,
                                                  lang: str) -> None:
    """The dice each seat holds in the replay are named by their whole word in the reader's
    language ("Rot", "Roxo"), never by two letters."""
    served = translated(server, lang)
    table = server.finished_bot_game(3)
    record = server.get(f"/api/tables/{table}/record")
    kinds = {k.name for k in load_dice_set(record.get("dice_set", "mino")).kinds}
    words = {tr(served, k) for k in kinds}
    page = await pages.new(viewport=PHONE)
    await in_language(page, server, f"/replay/{table}#r3", lang)
    seat = page.locator(".replay-seats .seat-dice").first
    await seat.locator("svg").first.wait_for()
    # no die shows letters of its own: the words beside them name them
    assert await page.locator(".replay-seats .seat-dice svg text").count() == 0
    shown = await seat.inner_text()
    named = [w for w in words if w in shown]
    assert named, (shown, words)
    for item in await page.locator(".replay-seats .seat-dice > *").all():
        text = (await item.inner_text()).strip()
        found = re.fullmatch(r"(.+?)(?: ×\d+)?", text)
        assert found, text
        assert found.group(1) in words, text
    assert await overflowing(page) == []
