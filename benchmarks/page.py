"""The page's weight and the first view of a table, in a real Chromium on a real server.

Weight: the bytes of every script and style sheet in ``server/static`` (the page loads
them all on a table): as files, as served (minified; the budget is 160 KB) and as they
travel (the served bytes gzipped).

First view: a fresh browser context (empty cache and storage: a friend's link opened for
the first time) loads ``/t/ID`` of a table whose seat is already this device's (the seat's
token put into its storage before the page's scripts run) and waits until the table with
its bid buttons is drawn; the time is the page's own clock from the navigation's start
(``performance.now()``). The reference, measured in the same run, is the lobby's first view
(until its "Play now" button is drawn): the table's time is also printed as a ratio to it,
since these machines are shared and noisy.

Run: ``python benchmarks/page.py [--runs 15]``. Needs Playwright and Chromium, like the
browser tests (``/usr/bin/chromium`` or ``MINODICE_CHROMIUM``).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from live_server import servers  # noqa: E402
from minodice.server.web import STATIC, minified  # noqa: E402

CHROMIUM = os.environ.get("MINODICE_CHROMIUM", "/usr/bin/chromium")


def weight(served: bool = True, compressed: bool = False) -> int:
    """Bytes of every script and style sheet: as files, or as the server sends them
    (minified; and gzipped, for a browser that accepts it)."""
    files = [p for p in STATIC.iterdir() if p.suffix in (".js", ".css")]
    bodies = [minified(p) if served else p.read_bytes() for p in files]
    return sum(len(gzip.compress(b)) if compressed else len(b) for b in bodies)


async def first_views(runs: int) -> tuple[list[float], list[float]]:
    from playwright.async_api import async_playwright

    lobby: list[float] = []
    table: list[float] = []
    with servers(Path(tempfile.mkdtemp()), grace=30.0) as start:
        server = start()
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM,
                                                       args=["--no-sandbox"])
            for _ in range(runs):
                context = await browser.new_context(viewport={"width": 360, "height": 640})
                page = await context.new_page()
                await page.goto(server.base + "/")
                await page.locator("#play-now").wait_for()
                lobby.append(await page.evaluate("performance.now()"))
                await context.close()

                created = server.post("/api/tables", {"players": 4,
                                                      "bots": [None, "easy", "easy", "easy"]})
                seat = server.post(f"/api/tables/{created['table']}/seats",
                                   {"name": "Ana", "client_seed": "benchmark"})
                context = await browser.new_context(viewport={"width": 360, "height": 640})
                stored = json.dumps({"seat": seat["seat"], "token": seat["token"]})
                await context.add_init_script(
                    f"localStorage.setItem('minodice.seat.{created['table']}', {stored!r});")
                page = await context.new_page()
                await page.goto(f"{server.base}/t/{created['table']}")
                await page.locator(".bid-button").first.wait_for()
                table.append(await page.evaluate("performance.now()"))
                await context.close()
            await browser.close()
    return lobby, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    print(f"scripts and styles: {weight(served=False) / 1000:.1f} KB as files, "
          f"{weight() / 1000:.1f} KB as served (minified; budget 160 KB), "
          f"{weight(compressed=True) / 1000:.1f} KB gzipped on the wire")
    lobby, table = asyncio.run(first_views(args.runs))
    ref = statistics.median(lobby)
    for name, times in (("lobby (reference)", lobby), ("table, first view", table)):
        med = statistics.median(times)
        worst = max(times)
        print(f"{name:20} median {med:6.0f} ms  max {worst:6.0f} ms  "
              f"ratio to the lobby {med / ref:4.2f}  ({len(times)} cold loads)")


if __name__ == "__main__":
    main()
