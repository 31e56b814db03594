"""Remake docs/screenshots/: a game on a phone (360×640), as a visitor meets it.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--seed 7]

Starts ``minodice serve`` on a free port with a database of its own, plays a game against
three bots in Debian's Chromium (``/usr/bin/chromium``, or ``$MINODICE_CHROMIUM``) and
takes the lobby, a bid, a trick, the end of a round, the final ranking and the replay
with its analysis. Decisions are random from ``--seed``; the dice come from the server's
secure generator, so each run shows another game. The PNGs are 1× and palette-quantised
by Chromium's encoder as it is (a few tens of KB each).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.async_api import Page, async_playwright

ROOT = Path(__file__).resolve().parent.parent
PHONE = {"width": 360, "height": 640}
BID = ".bid-button"
DIE = ".die-button:not([disabled])"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "minodice", "serve", "--port", str(port), "--db",
         str(folder / "db.sqlite3"), "--bot-delay", "0.2", "--analysis-samples", "20"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/api/tables", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("the server did not start")
        time.sleep(0.1)


async def shot(page: Page, out: Path, name: str) -> None:
    await page.wait_for_timeout(300)  # animations settle
    path = out / f"{name}.png"
    await page.screenshot(path=str(path))
    print(f"{path}: {path.stat().st_size // 1024} KB")


async def decide(page: Page, rng: random.Random) -> str:
    """Click a random bid or legal die; "final" once the game is over."""
    await page.locator(f"{BID}, {DIE}, .final").first.wait_for(timeout=60_000)
    if await page.locator(".final").count():
        return "final"
    kind = "bid" if await page.locator(BID).count() else "roll"
    buttons = await page.locator(BID if kind == "bid" else DIE).element_handles()
    if not buttons:
        return "again"
    choice = rng.choice(buttons)
    try:
        await choice.click(timeout=5_000)
        await choice.wait_for_element_state("hidden", timeout=20_000)
    except Exception:  # the view changed under the click: look again
        return "again"
    return kind


async def main(out: Path, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        proc, base = start_server(Path(folder))
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path=os.environ.get("MINODICE_CHROMIUM", "/usr/bin/chromium"),
                    args=["--no-sandbox", "--disable-gpu"])
                context = await browser.new_context(viewport=PHONE, device_scale_factor=1,
                                                    locale="en-GB", color_scheme="light",
                                                    reduced_motion="reduce")
                page = await context.new_page()
                await page.goto(base)
                await page.fill("#quick-name", "Ana")
                await shot(page, out, "lobby")
                await page.click("#play-now")
                await page.wait_for_url("**/t/*")
                table = page.url.rsplit("/", 1)[1]
                taken: set[str] = set()
                while True:
                    await page.locator(f"{BID}, {DIE}, .final").first.wait_for(timeout=60_000)
                    round_no = await page.evaluate(
                        "() => (document.querySelector('.table-head')?.textContent"
                        ".match(/(\\d+)\\//) || [0, 0])[1]")
                    if int(round_no) >= 3:
                        if "bidding" not in taken and await page.locator(BID).count():
                            taken.add("bidding")
                            await shot(page, out, "bidding")
                        if ("trick" not in taken and await page.locator(DIE).count()
                                and await page.locator(".trick .rolls li").count() >= 2):
                            taken.add("trick")
                            await shot(page, out, "trick")
                    if (int(round_no) >= 4 and "round-end" not in taken
                            and await page.locator("section.summary").count()):
                        taken.add("round-end")
                        await page.locator("section.summary").scroll_into_view_if_needed()
                        await shot(page, out, "round-end")
                    if await decide(page, rng) == "final":
                        break
                missing = {"bidding", "trick", "round-end"} - taken
                if missing:  # a selector the page no longer has: said, not an old picture
                    raise SystemExit(f"screenshots: never saw {', '.join(sorted(missing))}")
                await page.locator(".final").scroll_into_view_if_needed()
                await page.locator("#fairness.ok").wait_for(timeout=30_000)
                await shot(page, out, "final")
                await page.goto(f"{base}/replay/{table}#r5t3")
                await page.locator(".replay-trick").wait_for()
                await page.click("#analyse")
                await page.keyboard.press("ArrowRight")
                await page.keyboard.press("ArrowRight")
                await page.locator(".analysis-notes li").first.wait_for(timeout=300_000)
                await page.evaluate("() => document.querySelector('.replay-nav').scrollIntoView()")
                await shot(page, out, "replay")
                await browser.close()
        finally:
            proc.kill()
            proc.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    asyncio.run(main(args.out, args.seed))
