"""The replay viewer (/replay, /replay/TABLE#r3t2): a finished game stepped through with the
keyboard and by swipes shows what its record says, trick by trick (every trick's winner)
and round by round (the score pad), on a phone; a shared link opens at its trick; a record
file opens the same way, and a file that is no record is refused in one line."""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from playwright.async_api import expect

from live_server import LiveServer, servers
from minodice.core.dice import load_dice_set
from minodice.core.record import export_record, parse_record, summarize
from minodice.core.rules import RuleOptions, SpecialLead, StartRule, Variant, rounds_for
from minodice.core.state import GameConfig
from minodice.play.simulate import play_random_game

from .conftest import Pages
from .pages import BID, DIE, GAME_TIMEOUT, overflowing

if TYPE_CHECKING:
    from playwright.async_api import Page

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONE = {"width": 360, "height": 640}

#: What the viewer shows at its current step: the place, the trick's winner once every die
#: is rolled, and the score pad's rows.
SHOWN = """() => {
  const trick = document.querySelector(".replay-trick");
  return {
    round: Number(trick.dataset.round), trick: Number(trick.dataset.trick),
    winner: trick.dataset.winner === undefined ? null : Number(trick.dataset.winner),
    caption: trick.querySelector(".caption").textContent,
    pad: [...document.querySelectorAll(".pad-now tbody tr")]
      .map((tr) => tr.dataset.totals.split(",").map(Number)),
    hash: location.hash,
  };
}"""


async def shown(page: Page) -> dict[str, Any]:
    found: dict[str, Any] = await page.evaluate(SHOWN)
    return found


def expected(record: dict[str, Any]) -> dict[str, Any]:
    """``minodice replay --json`` of the record: the engine's replay."""
    loaded = parse_record(json.dumps(record))
    return summarize(loaded.state, loaded.players)


async def step_through(page: Page, summary: dict[str, Any]
                       ) -> tuple[list[list[int]], list[list[int]]]:
    """Press → from the first step to the last; the winners of each round's tricks and the
    score pad's totals as the viewer showed them."""
    winners: list[list[int]] = [[] for _ in summary["rounds"]]
    pads: list[list[int]] = []
    n = len(summary["players"])
    steps = sum(1 + len(r["trick_winners"]) * n for r in summary["rounds"])
    before = await shown(page)
    assert (before["round"], before["trick"]) == (1, 0)
    for _ in range(steps - 1):
        await page.keyboard.press("ArrowRight")
        now = await shown(page)
        assert now != before, "→ did not move the replay on"
        if now["winner"] is not None:
            winners[now["round"] - 1].append(now["winner"])
        if len(now["pad"]) > len(pads):
            pads = now["pad"]
        before = now
    await page.keyboard.press("ArrowRight")  # the last step: nothing further
    assert await shown(page) == before
    return winners, pads


async def test_the_replay_of_a_finished_game_matches_its_record(server: LiveServer,
                                                                pages: Pages) -> None:
    table = server.finished_bot_game(3)
    record = server.get(f"/api/tables/{table}/record")
    summary = expected(record)
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/replay/{table}")
    await page.locator(".replay-trick").wait_for()
    winners, pads = await step_through(page, summary)
    assert winners == [r["trick_winners"] for r in summary["rounds"]]
    assert pads == [r["totals"] for r in summary["rounds"]]
    assert await overflowing(page) == []
    last = await shown(page)
    assert last["hash"] == f"#r{len(summary['rounds'])}t{len(summary['rounds'])}"

    # ← and a swipe to the right go back; a swipe to the left goes on
    await page.keyboard.press("ArrowLeft")
    back = await shown(page)
    assert back["winner"] is None
    assert back["hash"].endswith("d2")
    box = await page.locator(".replay-content").bounding_box()
    assert box is not None
    y = box["y"] + 40
    for start, end in ((box["x"] + 300, box["x"] + 40), (box["x"] + 40, box["x"] + 300)):
        await page.mouse.move(start, y)
        await page.mouse.down()
        await page.mouse.move(end, y, steps=4)
        await page.mouse.up()
        if start > end:
            assert await shown(page) == last
    assert await shown(page) == back

    # a shared link opens at its trick, with the score pad as it stood then
    r, t = 5, 3
    other = await pages.new(viewport=PHONE)
    await other.goto(f"{server.base}/replay/{table}#r{r}t{t}")
    await other.locator(".replay-trick[data-trick='3']").wait_for()
    at = await shown(other)
    assert (at["round"], at["trick"]) == (r, t)
    assert at["winner"] == summary["rounds"][r - 1]["trick_winners"][t - 1]
    assert at["caption"].startswith(f"\u2068{summary['players'][at['winner']]}\u2069")
    assert at["pad"] == [x["totals"] for x in summary["rounds"][: r - 1]]


async def open_record_file(pages: Pages, server: LiveServer, path: Path,
                           record: dict[str, Any]) -> Page:
    """A phone's replay page with ``record`` opened from the file ``path``."""
    path.write_text(json.dumps(record))
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/replay")
    await page.set_input_files("#replay-file", str(path))
    await page.locator(".replay-trick").wait_for()
    return page


async def test_a_record_file_opens_and_a_wrong_file_is_refused_in_one_line(
        server: LiveServer, pages: Pages, tmp_path: Path) -> None:
    table = server.finished_bot_game(4)
    record = server.get(f"/api/tables/{table}/record")
    summary = expected(record)
    page = await open_record_file(pages, server, tmp_path / "game.json", record)
    await page.keyboard.press("End")
    end = await shown(page)
    assert end["pad"] == [r["totals"] for r in summary["rounds"]]
    assert end["winner"] == summary["rounds"][-1]["trick_winners"][-1]

    broken = dict(record, rounds=[dict(record["rounds"][0], bids=[9, 0, 0, 0])])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    await page.set_input_files("#replay-file", str(path))
    error = page.locator(".replay-body .error")
    await error.wait_for()
    text = await error.inner_text()
    assert "round 1" in text
    assert "R6" in text
    assert "\n" not in text.strip()
    path = tmp_path / "text.json"
    path.write_text("not json {")
    await page.set_input_files("#replay-file", str(path))
    await page.get_by_text("This is not a Mino Dice game record").wait_for()


async def test_leaving_a_table_handing_the_seat_over_and_finding_it_again(
        server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base)
    await page.fill("#quick-name", "Ana")
    await page.click("#play-now")
    await page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[1]
    await page.locator(f"{BID}, {DIE}").first.wait_for()
    leave = await page.locator("#leave").bounding_box()
    assert leave is not None
    assert leave["x"] + leave["width"] <= PHONE["width"]  # in the menu, on the screen
    await page.click("#leave")
    await page.click("#stay")  # the confirmation: staying changes nothing
    assert page.url.endswith(f"/t/{table}")
    assert server.get(f"/api/tables/{table}")["players"][0]["autoplay"] is None
    await page.click("#leave")
    await page.click("#hand-over")
    await page.wait_for_url(f"{server.base}/")
    mine = page.locator(f".mine li[data-table='{table}']")
    await mine.wait_for()
    deadline = asyncio.get_running_loop().time() + GAME_TIMEOUT
    while server.get(f"/api/tables/{table}")["status"] != "finished":  # the bot plays on
        assert asyncio.get_running_loop().time() < deadline, "the stand-in did not finish"
        await asyncio.sleep(0.2)
    # The finished table, the seat still this device's: its header no longer offers to
    # leave (a seat kept, a bot playing for it: over), and it shares the replay, not the table.
    await page.add_init_script("Object.defineProperty(navigator, 'share', { value: undefined })")
    await page.goto(f"{server.base}/t/{table}")
    await page.locator("#replay-link").wait_for()
    assert await page.locator("#leave").count() == 0
    assert await page.locator("[data-key='invite']").count() == 0
    await page.click("[data-key='share-replay']")
    await page.locator(".toast-item", has_text=f"{server.base}/replay/{table}").wait_for()
    await page.goto(server.base)
    assert await overflowing(page) == []
    await mine.get_by_role("link").click()
    await page.wait_for_url(f"**/replay/{table}*")
    await page.locator(".replay-trick").wait_for()


async def test_analyse_shows_each_decision_beside_it(tmp_path: Path,
                                                                   pages: Pages) -> None:
    with servers(tmp_path, options=("--analysis-samples", "2")) as start:
        server = start()
        table = server.finished_bot_game(3)
        page = await pages.new(viewport=PHONE)
        await page.goto(f"{server.base}/replay/{table}#r2")
        await page.click("#analyse")
        await page.locator(".analysis-notes li").first.wait_for(timeout=120_000)
        analysis = server.get(f"/api/tables/{table}/analysis")["analysis"]
        names = analysis["players"]
        bids = {d["seat"]: d for d in analysis["decisions"]
                if d["kind"] == "bid" and d["round"] == 2}
        notes = await page.locator(".analysis-notes li").all_inner_texts()
        assert len(notes) == 3  # every seat's bid of round 2
        for seat, text in enumerate(notes):
            d = bids[seat]
            # each name isolated (an Arabic name swapped places with the number after it)
            assert text.startswith(f"\u2068{names[seat]}\u2069 bid {d['chosen']}:")
            # the page rounds as JavaScript's Math.round does: a half up (Python's round
            # would take 72.5 to 72)
            assert f"{math.floor(100 * d['make_chance_chosen'] + 0.5)}%" in text
            if d["chosen"] != d["best"]:
                assert f"Best: {d['best']}" in text
        await page.keyboard.press("ArrowRight")  # the first die of round 2
        first = (await page.locator(".analysis-notes li").all_inner_texts())[0]
        assert "rolled" in first or "no choice" in first
        summary = await page.locator(".analysis li[data-seat]").all_inner_texts()
        assert [s.split(":")[0] for s in summary] == [f"\u2068{n}\u2069" for n in names]
        assert await overflowing(page) == []

        # Each player's biggest mistakes link to their place; a player without one is
        # told so. Following a link moves within the page: the analysis stays as it is
        # (the page was built again, and the analysis asked for anew, at every link).
        await page.evaluate("document.querySelector('.analysis').dataset.kept = 'yes'")
        for s in analysis["summary"]:
            item = page.locator(f'.analysis li[data-seat="{s["seat"]}"]')
            shown_mistakes = [d for d in s["biggest_mistakes"] if d["mistake"]]
            links = item.locator("ul.mistakes a")
            assert await links.count() == len(shown_mistakes)
            if not shown_mistakes:
                assert "No mistake beyond the noise." in await item.inner_text()
            for j, d in enumerate(shown_mistakes):
                await links.nth(j).click()
                place = f'.replay-trick[data-round="{d["round"]}"][data-trick="{d["trick"] or 0}"]'
                await page.locator(place).wait_for()
                assert await page.locator(".analysis[data-kept='yes']").count() == 1

        # A German reader gets German numbers: a decimal comma (the analysis, kept now,
        # shows at once).
        german = await pages.new(viewport=PHONE, locale="de-DE")
        await german.goto(f"{server.base}/replay/{table}#r2")
        await german.locator(".analysis li[data-seat]").first.wait_for()
        summary = await german.locator(".analysis li[data-seat]").all_inner_texts()
        for s, text in zip(analysis["summary"], summary, strict=True):
            lost = re.match(re.escape(f"\u2068{s['player']}\u2069") + r": (-?\d+),(\d) ", text)
            assert lost, text
            assert abs(float(".".join(lost.groups())) - s["points_lost_per_round"]) < 0.051
        notes = await german.locator(".analysis-notes li").all_inner_texts()
        assert len(notes) == 3
        for text in notes:  # every figure: expected points (and points lost) with a comma
            assert re.search(r"\d,\d", text), text
            assert not re.search(r"\d\.\d", text), text


async def test_a_finished_table_links_to_its_replay_in_the_readers_language(server: LiveServer,
                                                     pages: Pages) -> None:
    table = server.finished_bot_game(3)
    names = server.get(f"/api/tables/{table}")["players"]
    page = await pages.new(viewport=PHONE, locale="de-DE")
    await page.goto(f"{server.base}/t/{table}")  # the finished table links to its replay
    await page.click("#replay-link")
    await page.wait_for_url(f"**/replay/{table}*")
    await page.locator(".replay-trick").wait_for()
    await page.goto(f"{server.base}/replay/{table}#r2t1")
    await page.locator(".replay-trick[data-trick='1']").wait_for()
    assert await page.locator("h1").inner_text() == "Wiederholung"
    caption = await page.locator(".replay-trick .caption").inner_text()
    winner = names[int(await page.locator(".replay-trick").get_attribute("data-winner") or -1)]
    assert caption.startswith(f"\u2068{winner['name']}\u2069 gewinnt den Stich")
    assert "Runde 2/8" in await page.locator("#replay-where").inner_text()


async def test_a_six_player_replay_fits_a_phone(server: LiveServer, pages: Pages) -> None:
    """Six seats' figures and dice on a 360-pixel screen: nothing reaches past its edge,
    at a round's bids and at the game's end."""
    table = server.finished_bot_game(6)
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/replay/{table}#r{rounds_for(6)}")
    await page.locator(".replay-trick").wait_for()
    assert (await shown(page))["round"] == rounds_for(6)
    assert await overflowing(page) == []
    await page.keyboard.press("End")
    assert await overflowing(page) == []


#: The words of each roll's label that lie on more than one line.
BROKEN_WORDS = """() => [...document.querySelectorAll(".replay-trick .rolls .label")]
  .flatMap((label) => {
    const text = label.firstChild;
    const broken = [];
    for (const m of text.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(m[0]);
    }
    return broken;
  })"""


async def test_a_replay_at_200_percent_text_keeps_names_and_whole_words(
        server: LiveServer, pages: Pages, tmp_path: Path) -> None:
    """Text at 200% on a phone, in Dutch, names of ten letters: the seats' figures pushed
    the names out of sight ("M..") and past the card's edge, and a roll's label broke
    inside a word where the row of rolls was full. Now the figures go below the name,
    and labels break between words."""
    table = server.finished_bot_game(4)
    record = server.get(f"/api/tables/{table}/record")
    record["players"] = ["Maximilian", "Bartholome", "Wilhelmina", "Anastasiya"]
    page = await open_record_file(pages, server, tmp_path / "game.json", record)
    await page.select_option("#lang", "nl")
    await page.evaluate("document.documentElement.style.fontSize = '200%'")
    labels = page.locator(".replay-trick .rolls .label")
    names = page.locator(".seat-line .name")
    checked = 0
    for _ in range(80):  # the first tricks with four dice on the table
        await page.locator("#replay-next").click()
        widths = await names.evaluate_all("(ns) => ns.map((n) => n.clientWidth / "
                                          "parseFloat(getComputedStyle(n).fontSize))")
        assert min(widths) >= 4, widths  # four letters of a name at least, in ems
        if await labels.count() == 4:
            assert await page.evaluate(BROKEN_WORDS) == []
            checked += 1
    assert checked >= 12
    assert await overflowing(page) == []


async def test_a_record_file_is_analysed_too(tmp_path: Path, pages: Pages) -> None:
    """A record opened from a file (a game of ``minodice play``, or one another program
    wrote) offers "Analyse" as a finished table does: the page sends it and shows the same
    notes; the server's answer is the same as the table's own analysis."""
    with servers(tmp_path, options=("--analysis-samples", "2")) as start:
        server = start()
        table = server.finished_bot_game(3)
        record = server.get(f"/api/tables/{table}/record")
        path = tmp_path / "game.json"
        path.write_text(json.dumps({**record, "note": "kept on my phone"}))
        page = await pages.new(viewport=PHONE)
        await page.goto(f"{server.base}/replay")
        await page.set_input_files("#replay-file", str(path))
        await page.locator(".replay-trick").wait_for()
        await page.click("#analyse")
        await page.locator(".analysis li[data-seat]").first.wait_for(timeout=120_000)
        summary = await page.locator(".analysis li[data-seat]").all_inner_texts()
        assert [s.split(":")[0] for s in summary] == [f"\u2068{n}\u2069" for n in record["players"]]
        notes = await page.locator(".analysis-notes li").all_inner_texts()
        assert len(notes) == 3  # round 1's bids, beside the first step
        # A link to a place (a mistake's) moves within the file's replay: the file and its
        # analysis stay (the page used to start again and ask for a file).
        await page.evaluate("location.hash = '#r2'")
        await page.locator(".replay-trick[data-round='2']").wait_for()
        assert await page.locator(".analysis li[data-seat]").count() == 3
        assert len(await page.locator(".analysis-notes li").all_inner_texts()) == 3
        # in another language, the file's analysis is shown again (asked for by its id)
        await page.select_option("#lang", "de")
        await expect(page.locator(".analysis li[data-seat]")).to_have_count(3)
        await page.select_option("#lang", "en")
        await expect(page.locator(".analysis li[data-seat]")).to_have_count(3)
        assert httpx.post(f"{server.base}/api/tables/{table}/analysis",
                          timeout=10).status_code in (200, 202)
        for _ in range(600):
            job = server.get(f"/api/tables/{table}/analysis")
            if job["status"] == "done":
                break
            await asyncio.sleep(0.2)
        bids = sorted((d for d in job["analysis"]["decisions"]
                       if d["kind"] == "bid" and d["round"] == 1), key=lambda d: d["seat"])
        for text, d in zip(notes, bids, strict=True):
            assert text.startswith(f"\u2068{record['players'][d['seat']]}\u2069 bid {d['chosen']}:")
            assert f"{math.floor(100 * d['make_chance_chosen'] + 0.5)}%" in text
        assert await overflowing(page) == []



async def test_a_record_played_by_the_open_rules_replays_by_them(
        server: LiveServer, pages: Pages, tmp_path: Path) -> None:
    """A record of a game played with RULES.md's open points otherwise (its
    ``rule_options``: a fixed start player, no colour after a special lead) is checked and
    replayed by them, trick by trick as the engine does; without them it breaks the rules
    (round 2 is not started by round 1's start player under the default)."""
    options = RuleOptions(StartRule.FIXED, SpecialLead.NO_COLOUR)
    state = play_random_game(
        GameConfig(4, load_dice_set("mino"), Variant.STANDARD, 2, options), random.Random(11))
    record = export_record(state, ["Ana", "Ben", "Cleo", "Dara"])
    summary = expected(record)
    assert {r["starter"] for r in summary["rounds"]} == {2}
    page = await open_record_file(pages, server, tmp_path / "house.json", record)
    winners, pads = await step_through(page, summary)
    assert winners == [r["trick_winners"] for r in summary["rounds"]]
    assert pads == [r["totals"] for r in summary["rounds"]]
    error = page.locator(".replay-body .error")
    for name, changed, place in (("plain", None, "round 2"),
                                 ("start", {"start": "fixed"}, "round 3, trick 1, roll 3")):
        path = tmp_path / f"{name}.json"
        other = {k: v for k, v in record.items() if k != "rule_options"}
        if changed is not None:  # the same game, its colour rule the default: R9 refuses it
            other["rule_options"] = changed
        path.write_text(json.dumps(other))
        await page.set_input_files("#replay-file", str(path))
        await expect(error).to_contain_text(place)


async def test_a_files_replay_steps_at_once_follows_links_and_stays(
        server: LiveServer, pages: Pages, tmp_path: Path) -> None:
    """A record file's replay: the arrow keys step at once after the file is chosen (the
    file box kept them); a link to a place goes there every time (the address never named
    the place shown, so the same link twice did nothing); another language, or Back from
    another page, shows the file again at its place (the page asked for a file anew)."""
    table = server.finished_bot_game(3)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(server.get(f"/api/tables/{table}/record")))
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/replay")
    await page.focus("#replay-file")  # as after choosing in the file dialog
    await page.set_input_files("#replay-file", str(path))
    await page.locator(".replay-trick").wait_for()
    where = page.locator("#replay-where")
    await page.keyboard.press("ArrowRight")
    await expect(where).to_contain_text("Trick 1/1 (2/")
    for _ in range(2):  # the same link twice, steps apart
        await page.evaluate("location.hash = '#r2'")
        await expect(where).to_contain_text("Round 2/")
        await expect(where).to_contain_text("Bids")
        await page.keyboard.press("ArrowRight")
        await page.keyboard.press("ArrowRight")
        await expect(where).to_contain_text("Trick 1/2")
    assert page.url.endswith("/replay#r2t1d2")
    await page.evaluate("location.hash = '#r99'")  # no such place: the address names the shown
    await expect(page).to_have_url(re.compile(r"/replay#r2t1d2$"))
    await page.select_option("#lang", "de")
    await expect(where).to_contain_text("Runde 2/")
    await expect(where).to_contain_text("Stich 1/2")
    await page.select_option("#lang", "en")
    await page.click("#nav .menu")
    await page.get_by_role("link", name="About").click()
    await page.locator(".about").wait_for()
    await page.go_back()
    await expect(where).to_contain_text("Trick 1/2")
    await expect(page.locator(".replay-trick[data-round='2']")).to_have_count(1)


async def test_a_page_left_before_its_answers_came_is_not_drawn_over_the_next(
        server: LiveServer, pages: Pages) -> None:
    """On a slow network a page left before it was drawn (its script or its data still on
    the way) was drawn over the page moved to, under that page's address."""
    table = server.finished_bot_game(3)
    page = await pages.new(viewport={"width": 1280, "height": 900})  # the links in sight

    async def slowly(route: Any) -> None:
        await asyncio.sleep(1.5)
        await route.continue_()

    await page.route("**/static/replay.js", slowly)
    await page.route(f"**/api/tables/{table}", slowly)
    await page.goto(server.base + "/about")
    await page.locator(".about").wait_for()
    for start, to, heading in ((f"/replay/{table}#r2", "Score pad", "Score pad"),
                               (f"/t/{table}", "About", "About Mino Dice")):
        await page.evaluate(f"history.pushState({{}}, '', '{start}');"
                            "dispatchEvent(new PopStateEvent('popstate'))")
        await page.get_by_role("link", name=to, exact=True).click()
        await expect(page.locator("h1")).to_have_text(heading)
        await page.wait_for_timeout(2500)  # what was asked for the page left has come
        assert await page.locator("h1").inner_text() == heading
        assert await page.locator(".replay-trick, .table-main").count() == 0
        assert page.url.endswith("/pad" if to == "Score pad" else "/about")


async def test_the_replay_of_no_table_leads_back_to_the_lobby(server: LiveServer,
                                                             pages: Pages) -> None:
    """It offered "Back to the table", to the same table that is not there."""
    page = await pages.new(viewport=PHONE)
    await page.goto(f"{server.base}/replay/nosuchtable")
    await page.get_by_role("link", name="Back to the lobby").click()
    await page.locator(".quick").wait_for()
    assert await page.get_by_role("link", name="Back to the table").count() == 0


async def test_a_file_still_opening_when_the_page_is_left_takes_no_keys(
        server: LiveServer, pages: Pages, tmp_path: Path) -> None:
    """A file's replay still opening (its dice set on the way) when the page was left was
    made all the same, unseen: it took the arrow, Home and End keys from every page after,
    until a reload."""
    table = server.finished_bot_game(3)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(server.get(f"/api/tables/{table}/record")))
    page = await pages.new(viewport={"width": 1280, "height": 900})  # the links in sight

    async def slowly(route: Any) -> None:
        await asyncio.sleep(2)
        await route.continue_()

    await page.route("**/api/dice/**", slowly)
    await page.goto(f"{server.base}/replay")
    async with page.expect_response("**/api/dice/**"):  # left before the dice set came
        await page.set_input_files("#replay-file", str(path))
        await page.get_by_role("link", name="About", exact=True).click()
        await page.locator(".about").wait_for()
    await page.wait_for_timeout(500)  # (what the replay made of it, if anything)
    prevented = await page.evaluate("""() => ['End', 'Home', 'ArrowRight'].map((key) => {
        const e = new KeyboardEvent('keydown', { key, cancelable: true, bubbles: true });
        document.body.dispatchEvent(e);
        return e.defaultPrevented; })""")
    assert prevented == [False, False, False]
    assert page.url.endswith("/about")


async def test_another_language_keeps_the_place_on_the_page(server: LiveServer,
                                                            pages: Pages) -> None:
    """The page was emptied at once and drawn again: a reader far down it was taken back
    to its top."""
    page = await pages.new(viewport={"width": 800, "height": 600})
    await page.goto(f"{server.base}/about")
    await page.locator(".about .dice, .about h2").first.wait_for()
    await page.evaluate("window.scrollTo(0, 1000)")
    down = await page.evaluate("window.scrollY")
    assert down > 500
    await page.select_option("#lang", "de")
    await expect(page.locator("h1")).to_have_text("Über Mino Dice")
    assert abs(await page.evaluate("window.scrollY") - down) < 50
