"""The event loop's own commits of a file SQLite (server/store.py's module docstring): a
move is written without the store's thread, writes exactly what the thread's SQLAlchemy
path writes (the fence included), and reaches the database file through the thread's
checkpoints; anything else, or a lock another process holds, still goes to the thread.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from minodice.server import store as store_module
from minodice.server.rows import Seat
from minodice.server.store import FencingError, Store, StoreError, Write

from .test_store import bid, new_row
from .test_write_faults import write_lock


class CountingStore(Store):
    """A real store that counts the transactions run on its thread."""

    on_thread = 0

    def _commit_all(self, jobs: list[Write]) -> None:
        self.on_thread += 1
        super()._commit_all(jobs)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[CountingStore]:
    opened = CountingStore.sqlite(tmp_path / "tables.sqlite3")
    try:
        yield opened
    finally:
        opened.close()


def test_a_tables_writes_are_committed_without_the_thread_and_others_with_it(
        store: CountingStore) -> None:
    """A new table, its moves and its seats are committed on the loop (the thread, busy
    with one of them, would hold every later move back: the module docstring); an
    analysis still goes to the thread."""
    row = replace(new_row(store), id="t-loop-made")

    async def go() -> None:
        await store.create_async(row)
        await store.save_async(row.id, [bid(0)], 0, seq=2)
        await store.save_async(row.id, [bid(1), bid(2)], 1, seq=3, status="finished")
        await store.save_async(row.id, [], 3, seq=4)  # a change of who is connected
        await store.save_async(row.id, [], 3, seq=5, seats=[Seat(name="Ann")] * 3)
        assert store.on_thread == 0
        await store.save_analysis_async(row.id, 7, None, {"players": []})
        assert store.on_thread == 1

    asyncio.run(go())
    loaded = store.load(row.id)
    assert loaded is not None
    assert (loaded.seq, loaded.events, loaded.status) == (5, 3, "finished")
    assert loaded.log == [bid(0), bid(1), bid(2)]
    assert [seat.name for seat in loaded.seats] == ["Ann"] * 3
    assert loaded.settings == row.settings
    assert loaded.server_seed == row.server_seed
    assert store.analysis(row.id, 7, None) == {"players": []}


def test_a_loop_transaction_that_fails_writes_none_of_its_jobs(store: CountingStore) -> None:
    """A batch mixing a plain save (sqlite3) and a SQLAlchemy job is one transaction: the
    second failing (a table's id taken) undoes the first, says whose fault it is, and the
    loop's connection commits the next batch."""
    row = new_row(store)

    with pytest.raises(StoreError) as failed:
        store._commit_here([store_module.Save(row.id, ['{"n": 0}'], 0, {"seq": 2}, 1),
                            store_module.Create(row)])
    assert not failed.value.shared  # one write's own (an integrity error)
    kept = store.load(row.id)
    assert kept is not None
    assert (kept.seq, kept.log) == (1, [])
    store._commit_here([store_module.Save(row.id, [], 0, {"seq": 2, "seats": kept.seats}, 1)])
    assert store.load(row.id).seq == 2  # type: ignore[union-attr]
    assert store.on_thread == 0


def test_a_lock_held_elsewhere_sends_the_move_to_the_thread_which_waits(
        tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite3"
    store = CountingStore.sqlite(db, busy_timeout=2.0)
    try:
        row = new_row(store)

        async def go() -> None:
            with write_lock(db):
                saving = asyncio.ensure_future(store.save_async(row.id, [bid(0)], 0, seq=2))
                await asyncio.sleep(0.05)
                assert not saving.done()
            await saving

        asyncio.run(go())
        assert store.on_thread == 1
        assert store.load(row.id).log == [bid(0)]  # type: ignore[union-attr]
    finally:
        store.close()


def test_the_loops_commits_reach_the_database_file_by_checkpoints(
        store: CountingStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's connection never checkpoints; the thread does, every CHECKPOINT_EVERY
    commits, so the WAL does not grow for ever and the file itself holds the moves."""
    monkeypatch.setattr(store_module, "CHECKPOINT_EVERY", 4)
    row = new_row(store)

    async def go() -> None:
        for n in range(4):
            await store.save_async(row.id, [bid(n)], n, seq=2 + n)

    asyncio.run(go())
    store._thread.submit(lambda: None).result()  # the checkpoint queued on the thread ran
    alone = tmp_path / "copy.sqlite3"
    shutil.copyfile(tmp_path / "tables.sqlite3", alone)  # the file without its WAL
    with sqlite3.connect(alone) as conn:
        assert conn.execute("SELECT count(*) FROM events").fetchone() == (4,)
        assert conn.execute("SELECT seq FROM tables WHERE id=?", (row.id,)).fetchone() == (5,)


# A save: (events, seq offset from the next, epoch, status or None).
saves = st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, 0, 0, -1, 1]),
                           st.sampled_from([1, 1, 2, 3]),
                           st.sampled_from([None, None, "finished"])),
                 min_size=1, max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(saves)
# A writer that goes on after a fenced save sends events the table already has under a seq
# that is next: both commit paths must refuse that save alone, the same way.
@example([(0, 0, 2, None), (0, 0, 1, None), (1, -1, 2, None), (0, 0, 1, None),
          (1, -1, 2, None)])
def test_the_loops_commit_writes_what_the_threads_writes(
        plan: list[tuple[int, int, int, str | None]]) -> None:
    """The same saves, queued together (group commits, fenced ones among them), give the
    same results and the same rows whether the loop or the thread commits them."""
    with tempfile.TemporaryDirectory() as tmp:
        loop_store = Store.sqlite(Path(tmp) / "loop.sqlite3")
        thread_store = Store.sqlite(Path(tmp) / "thread.sqlite3")
        thread_store._here_path = None  # as for a durable SQLite: every commit on the thread
        try:
            outcomes = [_play(s, plan) for s in (loop_store, thread_store)]
            assert outcomes[0] == outcomes[1]
        finally:
            loop_store.close()
            thread_store.close()


def _expected(plan: list[tuple[int, int, int, str | None]], epoch: int) -> list[str]:
    """What the saves of ``plan`` must give, one after the other in the order queued: the
    fence lets a save through only with the next seq and no older epoch, and a save whose
    events the log already has is refused alone (nothing of it written)."""
    stored_seq, stored_epoch, logged = 1, epoch, 0
    seq, events, results = 1, 0, []
    for n, offset, save_epoch, _status in plan:
        save_seq = seq + 1 + offset
        if save_seq != stored_seq + 1 or save_epoch < stored_epoch:
            results.append(f"fenced {stored_seq} {stored_epoch}")
        elif n and events < logged:
            results.append("refused")
        else:
            stored_seq, stored_epoch = save_seq, save_epoch
            logged = max(logged, events + n) if n else logged
            results.append("ok")
        if offset == 0:
            seq, events = seq + 1, events + n
    return results


def _play(store: Store, plan: list[tuple[int, int, int, str | None]]
          ) -> tuple[list[str], Any, list[Any]]:
    row = new_row(store)
    row_id = row.id

    async def go() -> list[str]:
        seq, events, results = 1, 0, []
        tasks = []
        for n, offset, epoch, status in plan:
            fields: dict[str, Any] = {"seq": seq + 1 + offset}
            if status is not None:
                fields["status"] = status
            logged = [bid(events + i) for i in range(n)]
            tasks.append(store.save_async(row_id, logged, events, epoch=epoch, **fields))
            if offset == 0:  # the writer believes it wrote: the next one follows it
                seq, events = seq + 1, events + n
        for outcome in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(outcome, FencingError):
                results.append(f"fenced {outcome.stored_seq} {outcome.stored_epoch}")
            elif isinstance(outcome, StoreError):  # refused alone: the plan's own clash
                assert not outcome.shared, outcome
                results.append("refused")
            else:
                assert not isinstance(outcome, BaseException), outcome
                results.append("ok")
        return results

    results = asyncio.run(go())
    assert results == _expected(plan, row.epoch)
    stored = store.row(row_id)
    assert stored is not None
    return (results, (stored.seq, stored.events, stored.epoch, stored.status),
            store.event_texts(row_id))
