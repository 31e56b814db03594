"""How the page looks and reads: screenshots of a table in the middle of a game on a phone
(360×640) and a desktop (1280×800), kept for people to look at, and axe-core's
accessibility check of the lobby, a table (bidding and rolling), a finished table and the
about page, in light and dark colours.

The screenshots go to ``$MINODICE_SCREENSHOTS`` or ``tests/browser/screenshots/``
(git-ignored). axe-core is vendored in ``vendor/`` for these tests only; the page's
Content-Security-Policy (script-src 'self') would refuse it, so its contexts bypass CSP.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from live_server import LiveServer

from .conftest import Pages
from .pages import BID, DIE, decide, overflowing, play_until_mid_trick

if TYPE_CHECKING:
    from playwright.async_api import Page, ViewportSize

pytestmark = pytest.mark.asyncio(loop_scope="session")

HERE = Path(__file__).resolve().parent
AXE = HERE / "vendor" / "axe.min.js"
PHONE: ViewportSize = {"width": 360, "height": 640}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}


def screenshots() -> Path:
    folder = Path(os.environ.get("MINODICE_SCREENSHOTS") or HERE / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def shoot(page: Page, name: str) -> Path:
    path = screenshots() / name
    await page.screenshot(path=str(path), full_page=True, animations="disabled")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return path


async def quick_game(page: Page, server: LiveServer) -> None:
    await page.goto(server.base + "/")
    await page.fill("#quick-name", "Ana")
    await page.locator("#play-now").click()
    await page.locator(BID).first.wait_for()


async def touch_targets(page: Page) -> list[str]:
    """Buttons a finger cannot hit: less than 44 px high (WCAG 2.5.5's size)."""
    small: list[str] = await page.evaluate("""() => [...document.querySelectorAll(
        "main button, main .button")].filter((b) => b.checkVisibility()).map((b) => [b,
        b.getBoundingClientRect()]).filter(([, r]) => r.height < 43.5).map(([b, r]) =>
        `${b.className || b.tagName} "${b.textContent.trim()}": ${Math.round(r.height)} px`)""")
    return small


async def test_the_table_in_the_middle_of_a_game_on_a_phone_and_a_desktop(
        server: LiveServer, pages: Pages) -> None:
    page = await pages.new(viewport=PHONE)
    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    lobby = await shoot(page, "lobby-phone.png")
    assert await overflowing(page) == []

    await quick_game(page, server)
    await play_until_mid_trick(page, random.Random(5), min_round=3)
    await page.locator(".toolbar button[aria-pressed]").nth(1).click()  # the score pad
    await page.locator(".pad").wait_for()
    phone = await shoot(page, "table-phone.png")
    assert await overflowing(page) == [], "the table is wider than a 360 px phone"
    assert await touch_targets(page) == []
    for button in await page.locator(f"{DIE}, .toolbar button").all():
        box = await button.bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= PHONE["width"]

    await page.emulate_media(color_scheme="dark")
    dark = await shoot(page, "table-phone-dark.png")
    await page.emulate_media(color_scheme="light")

    await page.set_viewport_size(DESKTOP)
    desktop = await shoot(page, "table-desktop.png")
    assert await overflowing(page) == []
    play = await page.locator(".play").bounding_box()
    pad = await page.locator(".pad").bounding_box()
    assert play is not None
    assert pad is not None
    assert pad["x"] > play["x"] + play["width"] - 1, "a desktop gets two columns"
    for button in await page.locator(".toolbar button, .toolbar .button").all():
        box = await button.bounding_box()
        assert box is not None
        assert box["height"] < 60, "toolbar buttons stretched to the height of their row"
    for path in (lobby, phone, dark, desktop):
        assert path.stat().st_size > 5_000, path


# -- axe-core -----------------------------------------------------------------------------


async def axe(page: Page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now."""
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.add_script_tag(path=str(AXE))
    violations: list[dict[str, Any]] = await page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ["violations"] });
        return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ") + ": " + n.failureSummary) }));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(v["nodes"][:5])
            for v in violations if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_no_serious_accessibility_violations(scheme: str, server: LiveServer,
                                                   pages: Pages) -> None:
    page = await pages.new(bypass_csp=True, color_scheme=scheme)
    found: dict[str, list[str]] = {}

    await page.goto(server.base + "/")
    await page.locator("#play-now").wait_for()
    found["lobby"] = await axe(page)

    await quick_game(page, server)
    await page.locator(".toolbar button[aria-pressed]").nth(0).click()  # faces
    await page.locator(".faces").first.wait_for()
    await page.locator(".toolbar button[aria-pressed]").nth(1).click()  # score pad
    await page.locator(".pad").wait_for()
    found["table, bidding"] = await axe(page)
    rng = random.Random(6)
    assert await decide(page, rng) == "bid"
    await page.locator(DIE).first.wait_for()
    found["table, rolling"] = await axe(page)
    await play_until_mid_trick(page, rng, min_round=2)
    found["table, mid-trick"] = await axe(page)

    await page.goto(f"{server.base}/t/{server.finished_bot_game(3)}")
    await page.locator("#fairness.ok").wait_for()
    found["finished table"] = await axe(page)

    await page.goto(server.base + "/about")
    await page.locator("#rules ~ p").first.wait_for()
    found["about"] = await axe(page)

    problems = [f"{where}: {v}" for where, violations in found.items() for v in violations]
    assert not problems, "axe-core found serious or critical violations:\n" + "\n".join(
        problems)
