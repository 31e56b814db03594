"""About shows every die of both editions: its count in the set and its six faces, as the
server's dice sets (the engine's data files) give them, on a phone without sideways
scrolling."""

from __future__ import annotations

import pytest

from live_server import LiveServer

from .conftest import Pages
from .pages import overflowing

pytestmark = pytest.mark.asyncio(loop_scope="session")

SHOWN = """() => [...document.querySelectorAll(".dice-set")].map((set) => ({
  edition: set.dataset.edition,
  kinds: [...set.querySelectorAll("li[data-kind]")].map((li) => ({
    name: li.dataset.kind, count: Number(li.dataset.count),
    faces: [...li.querySelectorAll(".faces svg title")].map((t) => t.textContent),
    label: li.querySelector(".faces").getAttribute("aria-label"),
  })),
}))"""


async def test_about_shows_every_die_with_its_faces_and_count(server: LiveServer,
                                                             pages: Pages) -> None:
    page = await pages.new(viewport={"width": 360, "height": 640})
    await page.goto(f"{server.base}/about")
    await page.locator(".dice-set[data-edition='skull-king'] li").first.wait_for()
    shown = await page.evaluate(SHOWN)
    assert [s["edition"] for s in shown] == ["mino", "skull-king"]
    for seen in shown:
        dice = server.get(f"/api/dice/{seen['edition']}")
        assert [(k["name"], k["count"]) for k in seen["kinds"]] == \
            [(k["name"], k["count"]) for k in dice["kinds"]]
        for kind, want in zip(seen["kinds"], dice["kinds"], strict=True):
            assert kind["faces"] == [f"{want['name']}: {f}" for f in want["faces"]]
            assert kind["label"].endswith(", ".join(str(f) for f in want["faces"]))
    assert await overflowing(page) == []


LABELS = """() => [...document.querySelectorAll(".dice-set")].map((set) => ({
  edition: set.dataset.edition,
  labels: [...set.querySelectorAll("li[data-kind] .kind-name svg text")].map((t) => t.textContent),
}))"""


@pytest.mark.parametrize("lang", ["en", "de", "nl", "pt", "es"])
async def test_the_letters_on_blank_dice_tell_every_kind_apart(server: LiveServer,
                                                               pages: Pages, lang: str) -> None:
    """A die shown without a face carries its kind's first letters: as many as it takes to
    tell it from every other kind of its set, in the reader's language (the 2016 set's
    black and blue both begin with "bl")."""
    page = await pages.new(viewport={"width": 360, "height": 640})
    await page.goto(f"{server.base}/about")
    await page.evaluate("(lang) => localStorage.setItem('minodice.lang', lang)", lang)
    await page.reload()
    await page.locator(".dice-set[data-edition='skull-king'] li").first.wait_for()
    for seen in await page.evaluate(LABELS):
        labels = seen["labels"]
        assert len(labels) >= 4, seen
        assert all(len(label) >= 2 for label in labels), seen
        assert len(set(labels)) == len(labels), seen
