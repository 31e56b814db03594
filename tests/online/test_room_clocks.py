"""The server's clocks on a fake one: a decision's deadline, the grace period after a
person leaves, a bot that times out, a write that fails and is tried again, the reveal's
end. Time moves only when told (``FakeScheduler.advance``): no test sleeps, and each says
exactly when a thing happens — not before, and at that moment (the live server's tests
keep one of each, by the order of events).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

import pytest

import minodice.server.room as room_module
from minodice.core.fair import seed_hash
from minodice.play.driver import FakeScheduler
from minodice.play.runners import decide_in_worker
from minodice.server.lobby import Lobby
from minodice.server.room import Room, Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool
from .test_write_faults import FlakyStore

T = TypeVar("T")
START = 1_000_000.0  # the fake clock's seconds at the start


class Conn:
    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.sent: list[dict[str, Any]] = []

    def send(self, text: str) -> None:
        self.sent.append(json.loads(text))

    def view(self) -> dict[str, Any]:
        views = [m["view"] for m in self.sent if m["type"] == "view"]
        assert views, "no view was sent"
        last: dict[str, Any] = views[-1]
        return last


class SlowPool(InProcessPool):
    """Its bots' decisions run past the pool's time limit (what the real pool answers
    with ``TimeoutError`` after replacing the worker)."""

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        if fn is decide_in_worker:
            raise TimeoutError
        return fn(*args)


def make_lobby(store: Store, clock: FakeScheduler, pool: InProcessPool | None = None,
               **settings: Any) -> Lobby:
    values: dict[str, Any] = {"bot_delay": 0.0, "grace": 60.0, "reveal_seconds": 20.0}
    values.update(settings)
    return Lobby(store, pool or InProcessPool(5),
                 Settings(scheduler=clock, clock=clock.now, **values))


@pytest.fixture
def clock() -> FakeScheduler:
    return FakeScheduler(START)


@pytest.fixture
async def store() -> AsyncIterator[FlakyStore]:
    store = FlakyStore("sqlite://")
    yield store
    store.close()


async def two_people(lobby: Lobby, turn_seconds: int | None = None
                     ) -> tuple[Room, Conn, Conn]:
    """Ana and Ben (connected) and a random bot; the game dealt."""
    room, _host = await lobby.create(3, "mino", "standard", [None, None, "random"],
                                     turn_seconds, False)
    await lobby.join(room.id, "Ana", None)
    await lobby.join(room.id, "Ben", None)
    ana, ben = Conn(0), Conn(1)
    await room.connect(ana)
    await room.connect(ben)
    await room.settle()
    assert room.row.status == "playing"
    return room, ana, ben


async def advance(room: Room, clock: FakeScheduler, seconds: float) -> None:
    clock.advance(seconds)
    await room.settle()


async def test_the_clock_runs_out_at_the_deadline_and_the_stand_in_bids(
        store: FlakyStore, clock: FakeScheduler) -> None:
    lobby = make_lobby(store, clock)
    try:
        room, ana, ben = await two_people(lobby, turn_seconds=30)
        table = room.table
        assert table is not None
        view = ana.view()
        assert view["turn"] == "1-bid"
        assert view["deadline"] == int((START + 30) * 1000)  # armed at the deal
        assert ben.view()["deadline"] == view["deadline"]  # bids share one deadline
        await advance(room, clock, 29.9)
        assert table.decisions == 1  # only the bot bid: the people still have 0.1 s
        await advance(room, clock, 0.1)
        assert table.decisions >= 3, "the stand-in did not bid for the people at the deadline"
        after = ana.view()
        assert after["has_bid"][:2] == [True, True]
        # A clock is no absence: nobody is shown as played by the stand-in.
        assert [p["autoplay"] for p in after["players"]] == [None, None, None]
        # The next decision has a deadline of its own, from the moment it began.
        if after["turn"] is not None:
            assert after["deadline"] == int((START + 30 + 30) * 1000)
    finally:
        await lobby.close()


async def test_the_stand_in_plays_for_a_person_away_after_the_grace_period(
        store: FlakyStore, clock: FakeScheduler) -> None:
    lobby = make_lobby(store, clock)
    try:
        room, ana, ben = await two_people(lobby)
        table = room.table
        assert table is not None
        await room.disconnect(ana)
        assert ben.view()["players"][0]["connected"] is False
        await advance(room, clock, 59.9)
        assert ben.view()["players"][0]["autoplay"] is None
        assert not table.view(None).has_bid[0], "the stand-in bid within the grace period"
        seq = room.row.seq
        await advance(room, clock, 0.1)
        assert ben.view()["players"][0]["autoplay"] == "easy"
        assert room.row.seq > seq  # written (the presence change), then shown
        assert table.view(None).has_bid[0], "the stand-in did not play for Ana"
        assert 0 not in table.to_act()  # Ben is waited for; Ana is not
        back = Conn(0)
        await room.connect(back)
        assert back.view()["players"][0]["autoplay"] is None
        assert ben.view()["players"][0]["autoplay"] is None
    finally:
        await lobby.close()


async def test_a_grace_period_runs_from_the_join_not_from_the_deal(
        store: FlakyStore, clock: FakeScheduler) -> None:
    """Ana and Ben take their seats and never connect: the stand-in plays for each a grace
    period after they joined (Ana's runs on though the game was dealt later)."""
    lobby = make_lobby(store, clock)
    try:
        room, _host = await lobby.create(3, "mino", "standard", [None, None, "random"],
                                         None, False)
        await lobby.join(room.id, "Ana", None)
        clock.advance(40.0)
        await lobby.join(room.id, "Ben", None)  # the deal; nobody ever connects
        watcher = Conn(None)
        await room.connect(watcher)
        await room.settle()
        await advance(room, clock, 19.9)
        assert watcher.view()["players"][0]["autoplay"] is None
        await advance(room, clock, 0.1)
        assert [p["autoplay"] for p in watcher.view()["players"][:2]] == ["easy", None]
        await advance(room, clock, 39.9)  # Ben's grace runs from his join
        assert watcher.view()["players"][1]["autoplay"] is None
        await advance(room, clock, 0.1)
        assert watcher.view()["players"][1]["autoplay"] == "easy"
    finally:
        await lobby.close()


async def test_a_stand_in_that_cannot_be_written_waits_another_grace_period(
        store: FlakyStore, clock: FakeScheduler) -> None:
    lobby = make_lobby(store, clock)
    try:
        room, ana, ben = await two_people(lobby)
        table = room.table
        assert table is not None
        await room.disconnect(ana)
        store.failing = True
        await advance(room, clock, 60.0)
        store.failing = False
        assert ben.view()["players"][0]["autoplay"] is None
        assert not table.view(None).has_bid[0], "a stand-in nobody was shown played"
        await advance(room, clock, 59.9)
        assert not table.view(None).has_bid[0]
        await advance(room, clock, 0.1)
        assert ben.view()["players"][0]["autoplay"] == "easy"
        assert table.view(None).has_bid[0]
    finally:
        await lobby.close()


async def test_a_bot_that_times_out_plays_at_random_and_the_game_goes_on(
        store: FlakyStore, clock: FakeScheduler) -> None:
    pool = SlowPool(3)
    lobby = make_lobby(store, clock, pool)
    try:
        room, _host = await lobby.create(3, "mino", "standard", ["easy", "hard", "random"],
                                         None, False)
        await lobby.maybe_start_new(room)
        await room.settle()
        assert room.row.status == "finished"
        assert room.table is not None
        assert room.table.is_over()
        assert pool.failures == room.table.decisions  # every decision a random one
    finally:
        await lobby.close()


async def test_a_bot_move_that_cannot_be_written_is_tried_again_a_second_later(
        store: FlakyStore, clock: FakeScheduler, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(room_module, "RETRY_AFTER", 1.0)
    lobby = make_lobby(store, clock, bot_delay=0.5)
    try:
        room, _host = await lobby.create(3, "mino", "standard", ["easy", "easy", "easy"],
                                         None, False)
        store.failing = True
        await lobby.maybe_start_new(room)
        assert room.row.status == "waiting"  # its start could not be written
        store.failing = False
        await room.connect(Conn(None))  # the stranded table starts at the next connection
        await room.settle()
        table = room.table
        assert table is not None
        assert table.decisions == 0  # each bot waits bot_delay first
        await advance(room, clock, 0.5)
        assert table.decisions == 1
        store.failing = True
        await advance(room, clock, 0.5)
        assert table.decisions == 1, "a move was taken that was not written"
        seq = room.row.seq
        await advance(room, clock, 0.75)
        store.failing = False
        assert table.decisions == 1
        assert room.row.seq == seq
        await advance(room, clock, 0.25)  # the retry, a second after the failed write...
        assert table.decisions == 1
        await advance(room, clock, 0.5)  # ... and its bot's pause: written
        assert table.decisions == 2
        assert room.row.seq == seq + 1
        while room.row.status != "finished":
            await advance(room, clock, 0.5)
        stored = store.load(room.id)
        assert stored is not None
        reloaded = Room(stored, store, lobby.pool, lobby.settings)
        assert reloaded.table is not None
        assert reloaded.table.is_over()
    finally:
        await lobby.close()


async def test_seeds_not_revealed_in_time_are_replaced_at_the_deadline(
        store: FlakyStore, clock: FakeScheduler) -> None:
    lobby = make_lobby(store, clock)
    try:
        room, _host = await lobby.create(3, "mino", "standard", [None, None, "random"],
                                         None, False)
        _a, token_a, _ = await lobby.join(room.id, "Ana", None, None, seed_hash("a"))
        await lobby.join(room.id, "Ben", None, None, seed_hash("b"))
        await lobby.reveal(room.id, token_a, "a")
        ana = Conn(0)
        await room.connect(ana)
        assert ana.view()["reveal"]["deadline"] == int((START + 20) * 1000)
        await advance(room, clock, 19.9)
        assert room.row.status == "waiting"
        await advance(room, clock, 0.1)
        assert room.row.status == "playing"
        assert ana.view()["players"][1]["autoplay"] == "easy"  # Ben's seat, from the start
        assert ana.view()["players"][0]["autoplay"] is None
        assert room.fairness().replaced == (1,)
    finally:
        await lobby.close()


async def test_an_expired_table_is_written_with_a_new_seq(
        store: FlakyStore, clock: FakeScheduler) -> None:
    """The lobby writes through the room: expiring a table uses the next ``seq`` like
    every other change of it (it used to write the status past the room)."""
    lobby = make_lobby(store, clock)
    lobby.expire_waiting = 100.0
    try:
        room, _host = await lobby.create(3, "mino", "standard", None, None, False)
        seq = room.row.seq
        clock.advance(100.0)
        assert await lobby.expire_abandoned() == 1
        stored = store.load(room.id)
        assert stored is not None
        assert (stored.status, stored.seq) == ("expired", seq + 1)
    finally:
        await lobby.close()
