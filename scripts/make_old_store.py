"""How ``tests/data/store-2026-11-30.sqlite3`` was written: with the release of 2026-11-30
(commit 053c96c, before the store was versioned), so that the upgrade test starts from a
database that release really wrote. Run it against that release's source, e.g.

    git worktree add /tmp/old 053c96c
    PYTHONPATH=/tmp/old/src .venv/bin/python scripts/make_old_store.py store.sqlite3

It writes a finished game (four people), a game in play (skull-king, simplified, five
seats with two bots, a turn clock, the advisor off, a bid made in a round still being bid)
and a table waiting for two more people.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path
from typing import Any


class Pool:
    """Bots decided in this process (the release's pool interface)."""

    workers = 0

    async def warm_up(self) -> None:
        return None

    async def decide(self, spec: str, view: Any) -> Any:
        from minodice.bots.protocol import make_bot

        return make_bot(spec).act(view, view.legal_actions, random.Random(1))

    def close(self) -> None:
        return None


async def main(path: Path) -> None:
    from minodice.server.lobby import Lobby
    from minodice.server.room import Settings
    from minodice.server.store import Store

    store = Store.sqlite(path)
    lobby = Lobby(store, Pool(), Settings(bot_delay=0, grace=3600))  # type: ignore[arg-type]
    rng = random.Random(2026)
    room, _ = lobby.create(4, "mino", "standard", None, None, True)  # type: ignore[misc]
    for i, name in enumerate(["Ana", "Ben", "Cy", "Dee"]):
        await lobby.join(room.id, name, f"seed{i}")
    table = room.table
    while not table.is_over():
        seat = table.to_act()[0]
        async with room.lock:
            room.apply(seat, rng.choice(table.legal(seat)))
    room2, _ = lobby.create(5, "skull-king", "simplified",  # type: ignore[misc]
                            [None, "easy", None, "hard", None], 60, False, False)
    for name in ["Eva", "Finn", "Gus"]:
        await lobby.join(room2.id, name, None)
    table2 = room2.table
    steps = 0
    while steps < 40 or not table2.current_turn().endswith("-bid"):
        seat = table2.to_act()[0]
        async with room2.lock:
            room2.apply(seat, rng.choice(table2.legal(seat)))
        steps += 1
    seat = table2.to_act()[0]
    async with room2.lock:
        room2.apply(seat, table2.legal(seat)[0])
    room3, _ = lobby.create(3, "mino", "standard", None, None, True)  # type: ignore[misc]
    await lobby.join(room3.id, "Hal", "abc")
    print(room.id, room2.id, room3.id)
    await lobby.close()
    store.close()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
