"""What building views costs: the server's hot path, a view for every seat at every change.

A table broadcasts after every change: one view for each seat and one for the spectators,
each built from that connection's ``SeatView`` and written as JSON, with the finished
rounds (``history``) encoded once a round and spliced in (what ``Room.view_text`` does).
This measures exactly that, through ``minodice.server.protocol``'s ``view_text``,
``history_message`` and ``dumps`` (names the module has had since before the typed
protocol, so the same script measures an older checkout too), over whole games of 3 to 6
players at every decision.

The reference, measured in the same run over the same views: the standard library's
``json.dumps`` of each view already built as a dict — the cost of writing the JSON alone
with it, whatever the server writes with. The ratio (build and write / write alone) is
what to compare between two versions; absolute times depend on the machine.

``--against OTHER/src/minodice/server/protocol.py`` also times another checkout's
``view_text`` (``git archive`` one) over the same views, interleaved with this one's in the
same run, and prints the ratio of the two: on a busy machine the times of separate runs
differ more than the versions do.

Run: ``python benchmarks/views.py [--games 8] [--repeat 5] [--against FILE]``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from minodice.core.view import SeatView
from minodice.play.table import Table, new_table
from minodice.server import protocol
from minodice.server.protocol import TableFacts, dumps, history_message, view_text

Moment = tuple[TableFacts, list[tuple[SeatView, int | None, str | None]], str]
# This round's finished tricks, built once for all the views of a moment as a room does
# (since the 1,000-table work; an older checkout builds them in every view).
round_tricks = getattr(protocol, "round_tricks", None)


def moments(games: int) -> list[Moment]:
    """Every moment of ``games`` random games: the facts, every connection's view and the
    history encoded once (as a room keeps it)."""
    out: list[Moment] = []
    for game in range(games):
        players = 3 + game % 4
        rng = random.Random(game)
        table: Table = new_table(players, [f"P{i}" for i in range(players)],
                                 ["random"], seed=game)
        while True:
            status: Literal["finished", "playing"] = (
                "finished" if table.is_over() else "playing")
            facts = TableFacts(
                "abcdefgh23", status, "mino", "standard",
                [{"name": n, "bot": None, "connected": True, "autoplay": None}
                 for n in table.names], 60, "c" * 64, table.to_act(), 1_700_000_000_000,
                {"advisor": True, "rematch": None, "public": False})
            seats: list[int | None] = [None, *range(players)]
            views = [(table.view(s), s, table.turn(s) if s is not None else None)
                     for s in seats]
            out.append((facts, views, dumps(history_message(views[0][0]))))
            if table.is_over():
                break
            seat = rng.choice(table.to_act())
            table.act(seat, rng.choice(table.legal(seat)))
    return out


def timed(work: Callable[[], int], repeat: int) -> tuple[float, int]:
    """The best of ``repeat`` runs, in seconds, and what the work counted."""
    best, count = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = work()
        best = min(best, time.perf_counter() - start)
    return best, count


def other_view_text(path: Path) -> Callable[..., str]:
    """``view_text`` of another checkout's protocol module (it imports the rest of the
    package from this one: the engine and the wire models the views are built from)."""
    spec = importlib.util.spec_from_file_location("other_protocol", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    found: Callable[..., str] = module.view_text
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout's src/minodice/server/protocol.py")
    args = parser.parse_args()
    data = moments(args.games)
    built: list[Any] = [json.loads(view_text(facts, v, s, t, 1, history))
                        for facts, views, history in data for v, s, t in views]

    def build() -> int:
        n = 0
        for facts, views, history in data:
            if round_tricks is None:
                for view, seat, turn in views:
                    n += len(view_text(facts, view, seat, turn, 1, history))
                continue
            tricks = round_tricks(views[0][0])
            for view, seat, turn in views:
                n += len(view_text(facts, view, seat, turn, 1, history, tricks))
        return n

    def write_only() -> int:  # the standard library's, whatever the server writes with
        return sum(len(json.dumps(message, ensure_ascii=False, separators=(",", ":")))
                   for message in built)

    ref, ref_bytes = timed(write_only, args.repeat)
    cost, cost_bytes = timed(build, args.repeat)
    views = len(built)
    print(f"{views} views ({args.games} games, every decision, every seat and a spectator)")
    print(f"reference, json.dumps of the built views: {ref / views * 1e6:.1f} µs a view "
          f"({ref_bytes} characters)")
    print(f"view_text (build and write):              {cost / views * 1e6:.1f} µs a view "
          f"({cost_bytes} characters)")
    print(f"ratio view_text / reference: {cost / ref:.2f}")
    if args.against is not None:
        other = other_view_text(args.against)

        def build_other() -> int:
            n = 0
            for facts, views, history in data:
                for view, seat, turn in views:
                    n += len(other(facts, view, seat, turn, 1, history))
            return n

        mine, theirs = float("inf"), float("inf")
        for _ in range(args.repeat):  # interleaved: both see the same load
            theirs = min(theirs, timed(build_other, 1)[0])
            mine = min(mine, timed(build, 1)[0])
        print(f"{args.against}: {theirs / views * 1e6:.1f} µs a view; this checkout: "
              f"{mine / views * 1e6:.1f} µs a view")
        print(f"ratio this checkout / {args.against.name} there: {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
