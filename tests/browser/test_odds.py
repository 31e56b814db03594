"""The odds page (/odds) in a real Chromium, against the command line and the engine.

Dice are tapped in with the page's + buttons and the answer read off the page. Both the
page's answer and the reference are Monte Carlo estimates, so they are compared within
sampling error: a chance *p* estimated from *n* simulated rounds has the binomial
standard error sqrt(p(1 − p)/n); the page and the reference are independent, so their
difference has sqrt(p(1 − p)/n_page + p(1 − p)/n_ref), and the test allows four of those
(a false alarm about once in 16,000 comparisons), plus half a percent because the page
rounds to whole percents. Where *p* is near 0 or 1, *p* is taken as at least one
simulated round in *n* (one fluke of the page's few rounds must not fail the test).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import sys
from typing import TYPE_CHECKING, Any

import pytest
from playwright.async_api import expect

from live_server import LiveServer
from minodice.bots.odds import trick_odds
from minodice.core.dice import load_dice_set
from minodice.server.botpool import WEB_ADVICE_BUDGET, WEB_ADVICE_MAX_SAMPLES

from .conftest import Pages

if TYPE_CHECKING:
    from playwright.async_api import Page

pytestmark = pytest.mark.asyncio(loop_scope="session")

PLAYERS, ROUND, SEAT = 4, 5, 2
HAND = ["red", "red", "griffin", "gray", "purple"]
REFERENCE_SAMPLES = 4000   # simulated rounds per bid for `minodice advise` (the best: 1.5×)
TRICK_SAMPLES = 10_000     # simulated tricks for the Python reference of the trick odds
STANDARD_ERRORS = 4.0
ROUNDING = 0.005           # the page shows whole percents


def web_samples(players: int, round_no: int) -> int:
    """The advisor's rounds per bid for the web page (``botpool.advice_json``)."""
    return max(60, min(WEB_ADVICE_MAX_SAMPLES,
                       WEB_ADVICE_BUDGET // ((round_no + 1) * players * round_no)))


def wilson_margin(p: float, n: int, z: float = 1.96) -> float:
    """The farther end of the 95% Wilson interval from ``p`` (what the page shows as ±)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(p - (centre - half), centre + half - p)


def first_look(samples: int) -> int:
    """The rounds every bid gets (``advisor.advise``: the best three get ``samples`` more)."""
    return max(10, samples // 2)


def tolerance(p: float, n_page: int, n_ref: int) -> float:
    q = min(max(p, 1 / n_page), 1 - 1 / n_page)
    return STANDARD_ERRORS * math.sqrt(q * (1 - q) / n_page + q * (1 - q) / n_ref) + ROUNDING


async def tap_hand(page: Page, hand: list[str]) -> None:
    """Tap the dice behind the screen in with each kind's + button."""
    for kind in dict.fromkeys(hand):
        for _ in range(hand.count(kind)):
            await page.get_by_role("button", name=f"{kind}: one more", exact=True).click()
        shown = await page.locator(f'.odds-dice output[aria-label="{kind}"]').inner_text()
        assert shown == str(hand.count(kind)), kind


async def reference_advice() -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "minodice", "advise", "--players", str(PLAYERS),
        "--round", str(ROUND), "--seat", str(SEAT), "--hand", ",".join(HAND), "--json",
        "--samples", str(REFERENCE_SAMPLES), "--seed", "7",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    assert process.returncode == 0, err.decode()
    answer: dict[str, Any] = json.loads(out)
    return answer


async def test_bid_odds_match_minodice_advise(server: LiveServer, pages: Pages) -> None:
    """Red, red, griffin, gray, purple in round 5 of a 4-player game, two seats after the
    start player: each bid's "Makes it" on the page is `minodice advise`'s for the same
    hand, within sampling error."""
    reference_task = asyncio.create_task(reference_advice())
    page = await pages.new()
    await page.goto(server.base + "/odds")
    await page.locator("#odds-go").wait_for()
    assert await page.locator("#odds-go").is_disabled()  # no dice yet
    await tap_hand(page, HAND)
    await page.select_option("#odds-players", str(PLAYERS))
    await page.check(f"#odds-seat-{SEAT}")
    assert f"Round {ROUND}: {ROUND} dice behind your screen." in \
        await page.locator("main").inner_text()
    async with page.expect_response("**/api/advise") as asked:
        await page.get_by_role("button", name="Show the odds").click()
    served = await (await asked.value).json()
    answer = page.locator("#odds-answer")
    await answer.wait_for()

    rows = []
    margins = []
    for row in await answer.locator("tbody tr").all():
        cells = [await c.inner_text() for c in await row.locator("td").all()]
        chance = re.fullmatch(r"(\d+)%(?: ±(\d+))?", cells[1])
        assert chance, cells
        assert re.fullmatch(r"[+-]\d+\.\d", cells[2]), cells
        is_best = "best" in (await row.get_attribute("class") or "")
        rows.append((int(cells[0]), int(chance.group(1)) / 100, is_best))
        margins.append(int(chance.group(2) or 0))
    model = await answer.locator(".model").inner_text()
    found = re.search(r"(\d+) simulated rounds for the best bid", model)
    assert found, model
    best_page = int(found.group(1))
    samples = web_samples(PLAYERS, ROUND)
    assert best_page == first_look(samples) + samples
    best = [bid for bid, _p, is_best in rows if is_best]
    assert len(best) == 1
    assert f"Best bid: {best[0]}" in await answer.locator("h2").inner_text()
    # each chance with its margin of error: 95%, from the rounds that bid was simulated in
    for (_bid, _shown, _best), margin, bid in zip(rows, margins, served["bids"], strict=True):
        expected = 100 * wilson_margin(bid["make_chance"], bid["samples"])
        assert abs(margin - expected) <= 0.6, (bid, margin, expected)
    assert "± is the simulation's margin of error (95%)." in model

    reference = await reference_task
    assert [r["bid"] for r in reference["bids"]] == [bid for bid, _p, _b in rows] \
        == list(range(ROUND + 1))
    far = []
    for (bid, shown, is_best), ref in zip(rows, reference["bids"], strict=True):
        n_page = best_page if is_best else first_look(samples)
        n_ref = reference["samples"] if bid == reference["best_bid"] else \
            first_look(REFERENCE_SAMPLES)
        allowed = tolerance(ref["make_chance"], n_page, n_ref)
        if abs(shown - ref["make_chance"]) > allowed:
            far.append(f"bid {bid}: page {shown:.0%} ({n_page} rounds), advise "
                       f"{ref['make_chance']:.1%} ({n_ref} rounds), allowed ±{allowed:.1%}")
    assert not far, "\n".join(far)


async def test_trick_odds_and_the_follow_rule(server: LiveServer, pages: Pages) -> None:
    """During a trick: a red 6 rolled; each of the five dice's kinds gets a chance (the
    engine's model, within sampling error), and gray and purple, which R9 forbids while
    a red die is behind the screen, are marked."""
    dice_set = load_dice_set("mino")
    reference_task = asyncio.get_running_loop().run_in_executor(
        None, lambda: trick_odds(dice_set, PLAYERS, HAND, [("red", 6)],
                                 samples=TRICK_SAMPLES, seed=3))
    page = await pages.new()
    await page.goto(server.base + "/odds")
    await page.get_by_role("tab", name="During a trick").click()
    await tap_hand(page, HAND)
    await page.select_option("#odds-players", str(PLAYERS))
    assert "Nothing yet: you lead." in await page.locator("main").inner_text()
    await page.select_option("#odds-rolled-kind", "red")
    await page.select_option("#odds-rolled-face", "6")
    await page.get_by_role("button", name="Add", exact=True).click()
    await page.locator(".rolls .roll").wait_for()
    assert "Follow: red" in await page.locator("main").inner_text()
    async with page.expect_response("**/api/odds/trick") as asked:
        await page.get_by_role("button", name="Show the odds").click()
    served = await (await asked.value).json()
    answer = page.locator("#odds-answer")
    await answer.wait_for()

    shown: dict[str, tuple[float, str, bool]] = {}
    for row in await answer.locator("tbody tr").all():
        kind = await row.locator("th").inner_text()
        percent, note = [await c.inner_text() for c in await row.locator("td").all()]
        blocked = "blocked" in (await row.get_attribute("class") or "")
        # a die that may not be rolled is offered no chance at all
        found_chance = re.fullmatch(r"(\d+)%(?: ±(\d+))?", percent)
        assert percent == "—" if blocked else found_chance, percent
        if found_chance:
            chance = next(d["chance"] for d in served["dice"] if d["die"] == kind)
            expected = 100 * wilson_margin(chance, served["samples"])
            assert abs(int(found_chance.group(2) or 0) - expected) <= 0.6, (kind, percent)
        shown[kind] = (0.0 if blocked or not found_chance
                       else int(found_chance.group(1)) / 100, note, blocked)
    assert sorted(shown) == sorted(set(HAND))
    for kind, (_chance, note, blocked) in shown.items():
        illegal = kind in ("gray", "purple")
        assert blocked == illegal, kind
        assert note == ("✗ follow red" if illegal else ""), kind
    model = await answer.locator(".model").inner_text()
    found = re.search(r"the (\d+) players still to roll .*?; (\d+) simulated tricks", model)
    assert found, model
    assert int(found.group(1)) == PLAYERS - 2
    n_page = int(found.group(2))

    reference = await reference_task
    assert reference.follow == "red"
    assert set(reference.legal) == {"red", "griffin"}
    far = []
    for kind, (chance, _note, blocked) in shown.items():
        if blocked:
            continue
        p = reference.chances[kind]
        allowed = tolerance(p, n_page, TRICK_SAMPLES)
        if abs(chance - p) > allowed:
            far.append(f"{kind}: page {chance:.0%} ({n_page} tricks), engine {p:.1%}, "
                       f"allowed ±{allowed:.1%}")
    assert not far, "\n".join(far)
    assert shown["griffin"][0] > shown["red"][0] > 0


async def test_bid_odds_for_the_simplified_scoring(server: LiveServer, pages: Pages) -> None:
    """The scoring is a choice of the bid odds (R15 changes the best bid): the advisor is
    asked for the variant chosen, whose expected scores are never below 0 (no minus
    points), and the page remembers the choice."""
    page = await pages.new()
    await page.goto(server.base + "/odds")
    await page.locator("#odds-go").wait_for()
    await page.select_option("#odds-variant", "simplified")
    await tap_hand(page, HAND)
    async with page.expect_request("**/api/advise") as asked:
        await page.get_by_role("button", name="Show the odds").click()
    assert json.loads((await asked.value).post_data or "{}")["variant"] == "simplified"
    answer = page.locator("#odds-answer")
    await answer.wait_for()
    scores = [float(await row.locator("td").nth(2).inner_text())
              for row in await answer.locator("tbody tr").all()]
    assert len(scores) == ROUND + 1
    assert min(scores) >= 0, scores
    await page.reload()
    await page.locator("#odds-go").wait_for()
    assert await page.locator("#odds-variant").input_value() == "simplified"


async def test_on_a_phone_the_answer_comes_into_sight_and_a_refusal_says_why(
        server: LiveServer, pages: Pages) -> None:
    """A tester's phone (360×640): the answer opened below the screen, so "Show the odds"
    seemed to do nothing; a trick the server refused (a second minotaur) said only "The
    server refused this request."; a toast asked for again stacked a copy each time."""
    page = await pages.new(viewport={"width": 360, "height": 640}, is_mobile=True,
                           has_touch=True)
    await page.goto(server.base + "/odds")
    await tap_hand(page, ["red", "griffin", "gray"])
    await page.get_by_role("button", name="Show the odds").click()
    heading = page.locator("#odds-answer h2")
    await heading.wait_for()
    box = await heading.bounding_box()
    assert box is not None
    assert 0 <= box["y"] < 640, box  # on the screen, not below it
    assert await heading.evaluate("(e) => document.activeElement === e")

    # a minotaur held cannot be rolled too (the page offers it no more); a trick the
    # server refuses all the same (eight dice each for five others: not in the bag) says
    # why, in the reader's words
    await page.get_by_role("tab", name="During a trick").click()
    await page.select_option("#odds-players", "6")
    await page.get_by_role("button", name="minotaur: one more", exact=True).click()
    assert await page.locator('#odds-rolled-kind option[value="minotaur"]').is_disabled()
    await tap_hand(page, ["yellow"] * 4)  # (with the red, griffin and gray die above)
    await page.get_by_role("button", name="Show the odds").click()
    toast = page.locator(".toast-item", has_text="Not enough dice")
    await toast.wait_for()
    await page.get_by_role("button", name="Show the odds").click()  # refused again:
    await page.wait_for_function(  # the same toast, renewed, not a second one
        "() => !document.querySelector('#odds-go').disabled")
    assert await page.locator(".toast-item").count() == 1


async def test_the_house_rule_for_a_special_lead_is_asked_for_and_kept(
        server: LiveServer, pages: Pages) -> None:
    """RULES.md's open point R9 as a house rule: a minotaur led, then a red 6. By the
    default the red die sets the colour (gray and purple are blocked); with "no colour"
    the trick has none, every die may be rolled, the server is asked by that rule, and
    the page remembers it."""
    page = await pages.new()
    await page.goto(server.base + "/odds")
    await page.get_by_role("tab", name="During a trick").click()
    await tap_hand(page, HAND)
    await page.select_option("#odds-players", str(PLAYERS))
    for kind, face in (("minotaur", None), ("red", "6")):
        await page.select_option("#odds-rolled-kind", kind)
        if face is not None:
            await page.select_option("#odds-rolled-face", face)
        await page.get_by_role("button", name="Add", exact=True).click()
    await expect(page.locator(".rolls .roll")).to_have_count(2)
    assert "Follow: red" in await page.locator("main").inner_text()
    await page.click(".house-rules summary")
    await page.select_option("#odds-special-lead", "no-colour")
    main = await page.locator("main").inner_text()
    assert "Follow: red" not in main
    assert "No colour" in main
    async with page.expect_request("**/api/odds/trick") as asked:
        await page.get_by_role("button", name="Show the odds").click()
    assert json.loads((await asked.value).post_data or "{}")["special_lead"] == "no-colour"
    answer = page.locator("#odds-answer")
    await answer.wait_for()
    assert await answer.locator("tbody tr").count() == len(set(HAND))
    assert not await answer.locator("tbody tr.blocked").count()
    await page.reload()
    await page.locator("#odds-go").wait_for()
    assert await page.locator("#odds-special-lead").input_value() == "no-colour"


async def test_the_dice_are_kept_and_an_answer_is_only_for_what_is_asked(
        server: LiveServer, pages: Pages) -> None:
    """The dice chosen stay through a reload and another language (they were lost; the
    edition, players and seat stayed); an announced bid changed takes the answer for the
    old bids away (it stayed, as if it answered the new ones); fewer players leave as many
    dice rolled as the trick can hold (all stayed, and the server refused the question)."""
    page = await pages.new(viewport={"width": 360, "height": 640})
    await page.goto(server.base + "/odds")
    await tap_hand(page, ["red", "red", "griffin"])
    await page.get_by_role("button", name="Show the odds").click()
    await page.locator("#odds-answer").wait_for()
    await page.click("details:has(.announced) summary")
    await page.select_option("#odds-bid-1", "3")
    await expect(page.locator("#odds-answer")).to_have_count(0)
    assert await page.locator("#odds-bid-1").is_visible()  # the list stays open
    await page.reload()
    await expect(page.locator('.odds-dice output[aria-label="red"]')).to_have_text("2")
    assert await page.locator("#odds-bid-1").input_value() == "3"
    await page.select_option("#lang", "de")
    await expect(page.locator("#odds-go")).to_have_text("Chancen anzeigen")
    assert await page.locator('.odds-dice output[aria-label="Greif"]').inner_text() == "1"
    # fewer dice than the bid announced: the bid goes (it stayed, unseen, and the server
    # refused the question), also after a reload
    for _ in range(2):
        await page.get_by_role("button", name="rot: eins weniger", exact=True).click()
    await page.reload()
    async with page.expect_response("**/api/advise") as asked:
        await page.locator("#odds-go").click()
    assert (await asked.value).status == 200

    await page.select_option("#lang", "en")
    await page.get_by_role("tab", name="During a trick").click()
    await page.select_option("#odds-players", "6")
    for kind, face in (("red", "5"), ("red", "6"), ("yellow", "3"), ("yellow", "4"),
                       ("purple", "1")):
        await page.select_option("#odds-rolled-kind", kind)
        await page.select_option("#odds-rolled-face", face)
        await page.get_by_role("button", name="Add", exact=True).click()
    await expect(page.locator(".rolls .roll")).to_have_count(5)
    await page.select_option("#odds-players", "3")
    await expect(page.locator(".rolls .roll")).to_have_count(2)
    async with page.expect_response("**/api/odds/trick") as asked:
        await page.get_by_role("button", name="Show the odds").click()
    assert (await asked.value).status == 200
    await page.locator("#odds-answer").wait_for()


@pytest.mark.parametrize("kept", ["null", '{"players": 1e10, "mode": 7}', '{"edition": "gone"}',
                                  '{"players": "__proto__", "position": -1, "hand": [1]}'])
async def test_what_this_device_kept_cannot_break_the_page(server: LiveServer, pages: Pages,
                                                           kept: str) -> None:
    """The odds page reads its settings back from this device's storage, where anything may
    be (an older page's, a hand's): a null or a player count of 10^10 left it blank, an
    edition the server no longer has in a "Try again" for ever."""
    page = await pages.new(viewport={"width": 360, "height": 640})
    await page.add_init_script(f"localStorage.setItem('minodice.odds', {json.dumps(kept)})")
    await page.goto(server.base + "/odds")
    await expect(page.locator("#odds-go")).to_have_text("Show the odds")
    await tap_hand(page, ["red"])
    async with page.expect_response("**/api/advise") as asked:
        await page.locator("#odds-go").click()
    assert (await asked.value).status == 200
