"""The garbage collector, kept from stopping every table at once.

CPython's full collection walks every object it tracks. A server with 1,000 tables and
4,000 WebSockets tracks some 700,000 (games, connections and their coroutines), and a
full collection took 0.6-0.8 s every 17-25 s there (``benchmarks/server.py`` at 1,000
tables, timed with ``gc.callbacks``), during which no table moves. Almost all of those
objects live as long as their table or connection; each collection found a few hundred
dead ones.

So the server freezes what is alive every ``freeze_every`` seconds (``gc.freeze``: the
automatic collections no longer walk it; a young collection first, so that the young dead
are not frozen with the living). The automatic full collections then walk a few seconds'
worth of new objects: 40-70 ms at 1,000 tables instead of 600-800 ms. Once every
``sweep_every`` seconds everything is unfrozen and collected whole, so that cycles that
died while frozen (a closed connection's, say) are reclaimed after all: one long pause a
quarter of an hour instead of one every 17-25 s. ``freeze_every=0`` leaves the collector as
Python has it.

Why every second (:data:`FREEZE_EVERY`): between two freezes every move's survivors (the
table's new state) pile up unfrozen, and each middle-generation collection walks them. At
1,000 tables it took 32 ms with a freeze every 5 s and 20 ms with one every second, the
collections' p99 fell from 65-80 to 47 ms and an idle client's ``GET /`` p99 from 41-55 to
32-38 ms, at the same CPU an action (three runs, ``benchmarks/cluster_bench.py --compare``,
``benchmarks/results/cluster-2026-12-02-s10-freeze-1000.txt``). A freeze itself only splices
lists; what costs is the middle-generation collection before it. Freezing more often keeps no more
garbage for the sweep: a move makes no cyclic garbage (a test:
``test_moves_make_no_cyclic_garbage``), and what does — a closed connection's objects —
lived for minutes, frozen either way.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("minodice.server")

FREEZE_EVERY = 1.0    # seconds between freezes of what is alive
SWEEP_EVERY = 900.0   # seconds between whole collections of everything


def sweep() -> int:
    """Collect everything, frozen or not, then freeze the survivors; the objects freed."""
    gc.unfreeze()
    freed = gc.collect()
    gc.freeze()
    return freed


async def keep_collections_short(freeze_every: float = FREEZE_EVERY,
                                 sweep_every: float = SWEEP_EVERY,
                                 clock: Callable[[], float] = time.monotonic) -> None:
    """Run until cancelled (the server's lifetime); see the module docstring."""
    if freeze_every <= 0:
        return
    last_sweep = clock()
    sweep()
    try:
        while True:
            await asyncio.sleep(freeze_every)
            if clock() - last_sweep >= sweep_every:
                started = clock()
                freed = sweep()
                last_sweep = clock()
                log.debug("whole collection: %d objects freed in %.0f ms", freed,
                          (last_sweep - started) * 1000)
            else:
                gc.collect(1)  # the young dead first: frozen, they would wait for a sweep
                gc.freeze()
    finally:
        gc.unfreeze()  # a server stopped in a test leaves the collector as it found it
