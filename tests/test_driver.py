"""The game driver on a fake clock: deadlines, grace, stand-ins, failing bots and failing
writes, each shown by moving time by hand (no test here sleeps or reads a clock)."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator, Sequence
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minodice.bots.protocol import BotError
from minodice.core.actions import Action, Bid
from minodice.core.errors import IllegalActionError
from minodice.core.view import SeatView
from minodice.play.driver import (
    RANDOM,
    STOP,
    BotDecided,
    BotFailed,
    Clocks,
    CommitFailed,
    Crashed,
    DeadlineArmed,
    DeadlineExpired,
    Driver,
    DriverError,
    DriverEvent,
    FakeScheduler,
    OnBotError,
    SeatAway,
    SeatBack,
    StandingIn,
)
from minodice.play.runners import (
    Decision,
    DecisionRequest,
    InProcessRunner,
    PerSeatRunner,
    checked,
)
from minodice.play.table import (
    PRIMARY,
    BidMade,
    Event,
    FairChance,
    GameOver,
    Table,
    event_from_json,
    event_to_json,
    new_table,
)

E = TypeVar("E")


class Log:
    def __init__(self) -> None:
        self.events: list[DriverEvent] = []

    def __call__(self, event: DriverEvent) -> None:
        self.events.append(event)

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]


def unstarted(humans: Sequence[str], bots: Sequence[str] = ("random",),
              players: int = 3, seed: int = 4) -> Table:
    """A table not dealt yet (the driver deals it, through its commit hook if any)."""
    dealt = new_table(players, humans, bots, seed=seed)
    return Table(dealt.config, dealt.seats, dealt.chance, dealt.bot_seed)


def driver_for(table: Table, clocks: Clocks, **options: object) -> tuple[Driver, FakeScheduler,
                                                                          Log]:
    scheduler, log = FakeScheduler(), Log()
    driver = Driver(table, InProcessRunner(), scheduler=scheduler, clocks=clocks,
                    stand_in="random", listeners=[log], **options)  # type: ignore[arg-type]
    return driver, scheduler, log


async def elapse(driver: Driver, clock: FakeScheduler, seconds: float) -> None:
    """Let ``seconds`` pass, timer after timer, the driver's tasks running in between (a
    timer set while time passes fires too if it is due)."""
    target = clock.now() + seconds
    await driver.settle()
    while (due := clock.pending()) and due[0] <= target:
        clock.advance(due[0] - clock.now())
        await driver.settle()
    clock.advance(target - clock.now())
    await driver.settle()


# -- the clock ---------------------------------------------------------------------------------


async def test_a_clock_running_out_plays_the_stand_in_for_the_person() -> None:
    table = unstarted(["Ana"])
    driver, clock, log = driver_for(table, Clocks(turn_seconds=30))
    await driver.start()
    await driver.settle()
    assert driver.waiting_for() == [0]  # the bots have bid; Ana has not
    assert driver.deadline == 30
    await elapse(driver, clock, 29.5)
    assert driver.waiting_for() == [0]
    assert not log.of(DeadlineExpired)
    await elapse(driver, clock, 1)
    assert log.of(DeadlineExpired) == [DeadlineExpired("1-bid", (0,))]
    assert BotDecided in {type(e) for e in log.events if getattr(e, "seat", None) == 0}
    assert table.round_no == 1
    assert table.view(0).bids[0] is not None  # all bids in, so revealed
    # The person is not turned into a bot: the next decision of theirs waits again.
    assert driver.kind(0).value == "person"


async def test_all_bids_share_one_deadline() -> None:
    table = unstarted(["Ana", "Ben"])
    driver, clock, log = driver_for(table, Clocks(turn_seconds=30))
    await driver.start()
    await driver.settle()
    assert sorted(driver.waiting_for()) == [0, 1]
    clock.advance(10)
    await driver.act(0, table.legal(0)[0], turn="1-bid")
    await driver.settle()
    assert driver.deadline == 30  # Ana's bid did not start a new clock for Ben
    assert [e.turn for e in log.of(DeadlineArmed)] == ["1-bid"]
    await elapse(driver, clock, 20)
    assert log.of(DeadlineExpired) == [DeadlineExpired("1-bid", (1,))]
    assert table.current_turn() != "1-bid"
    armed = log.of(DeadlineArmed)[-1]
    assert isinstance(armed, DeadlineArmed)
    assert armed.at == 60  # the next decision's own deadline


async def test_a_stale_or_foreign_decision_is_refused_and_changes_nothing() -> None:
    table = unstarted(["Ana"])
    driver, _, _ = driver_for(table, Clocks())
    await driver.start()
    await driver.settle()
    before = table.snapshot()
    with pytest.raises(DriverError, match="turn 7-bid is over"):
        await driver.act(0, table.legal(0)[0], turn="7-bid")
    with pytest.raises(DriverError, match="does not wait for seat 2"):
        await driver.act(1, Bid(0))
    with pytest.raises(IllegalActionError):
        await driver.act(0, Bid(99))
    assert table.snapshot() == before


# -- an owner that shows every move (the terminal) ---------------------------------------------


async def spin(until: object = None, turns: int = 2000) -> None:
    """Let the loop and the bots' threads run a while (``until()`` true ends it early)."""
    for _ in range(turns):
        if callable(until) and until():
            return
        await asyncio.sleep(0.001)


async def test_pace_lets_one_bot_decide_at_a_time_and_people_meanwhile_go_first() -> None:
    table = unstarted(["Ana"], players=3)
    gate = asyncio.Event()

    async def pace() -> None:
        await gate.wait()
        gate.clear()

    driver, _, log = driver_for(table, Clocks(), pace=pace)
    await driver.start()
    await spin(turns=50)
    assert table.decisions == 0  # the bots wait for their owner
    await driver.act(0, Bid(1))
    assert table.decisions == 1
    gate.set()
    await spin(lambda: table.decisions == 2)
    await spin(turns=50)
    assert table.decisions == 2  # one bot, one opening
    gate.set()
    await spin(lambda: table.decisions == 3)
    assert [e.seat for e in log.of(BidMade)] == [0, 1, 2]
    assert [e.seat for e in log.of(BotDecided)] == [1, 2]  # after Ana, in the game's order
    driver.close()


class _Buggy:
    """A runner with a bug of ours in it (no bot's failure)."""

    def decide(self, request: DecisionRequest) -> Decision:
        raise ZeroDivisionError("a bug in the runner")

    async def decide_async(self, request: DecisionRequest) -> Decision:
        raise ZeroDivisionError("a bug in the runner")

    def close(self) -> None:
        pass


async def test_a_bug_that_ends_a_driver_task_is_reported_not_lost() -> None:
    table = unstarted(["Ana"], players=3)
    log = Log()
    driver = Driver(table, _Buggy(), scheduler=FakeScheduler(), listeners=[log])
    await driver.start()
    await driver.act(0, Bid(0))
    await driver.settle()
    (crashed,) = log.of(Crashed)
    assert isinstance(crashed.error, ZeroDivisionError)
    assert crashed.error.__traceback__ is not None  # for the owner's bug log
    assert not log.of(BotFailed)  # not blamed on a bot
    assert table.decisions == 1  # the bots' moves were not made; the game waits
    assert driver.failure is None


# -- presence ---------------------------------------------------------------------------------


async def test_grace_after_a_disconnection_then_the_stand_in_plays_until_the_person_is_back(
) -> None:
    table = unstarted(["Ana"])
    driver, clock, log = driver_for(table, Clocks(grace=60, bot_delay=1))
    await driver.start()
    await elapse(driver, clock, 5)
    assert driver.waiting_for() == [0]
    driver.away(0)
    assert log.of(SeatAway) == [SeatAway(0, 65)]
    await elapse(driver, clock, 59)
    assert driver.waiting_for() == [0]
    assert not log.of(StandingIn)
    driver.back(0)  # back within the grace period: nothing happens
    await elapse(driver, clock, 10)
    assert driver.waiting_for() == [0]
    assert not log.of(StandingIn)

    driver.away(0)
    await elapse(driver, clock, 60)
    assert log.of(StandingIn) == [StandingIn(0, "random")]
    clock.advance(1)  # the pause before a bot acts
    await driver.settle()
    assert 0 not in driver.waiting_for()  # the stand-in bid for Ana
    for _ in range(200):  # the stand-in goes on playing Ana's decisions
        if 0 in driver.waiting_for():
            break
        await elapse(driver, clock, 1)
    decided = [e for e in log.of(BotDecided) if e.seat == 0]
    assert len(decided) >= 1
    driver.back(0)
    assert log.of(SeatBack)[-1] == SeatBack(0)
    for _ in range(200):  # now the game waits for Ana again
        await elapse(driver, clock, 1)
        if 0 in driver.waiting_for() or table.is_over():
            break
    assert 0 in driver.waiting_for() or table.is_over()
    await elapse(driver, clock, 100)
    assert len([e for e in log.of(BotDecided) if e.seat == 0]) == len(decided)


# -- bots -------------------------------------------------------------------------------------


class HangingBot:
    """Its first decision waits until released (far longer than allowed); the others are
    quick."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        self.release.wait(60)
        return legal[0]

    def on_event(self, event: DriverEvent) -> None:
        if isinstance(event, BotFailed):
            self.release.set()  # the thread left behind ends; the bot answers from now on


@pytest.fixture
def hanging() -> Iterator[HangingBot]:
    bot = HangingBot()
    yield bot
    bot.release.set()


async def test_a_bot_timing_out_is_named_and_the_server_plays_a_random_move(
        hanging: HangingBot) -> None:
    table = unstarted([], bots=("slowpoke", "random", "random"))
    runner = InProcessRunner({(0, "slowpoke"): hanging})
    log = Log()
    driver = Driver(table, runner, scheduler=FakeScheduler(), time_limit=0.05,
                    on_bot_error=RANDOM, fallback_rng=random.Random(1),
                    listeners=[log, hanging.on_event])
    await driver.start()
    while not table.is_over():
        await driver.settle()
    failed = log.of(BotFailed)
    assert len(failed) == 1
    first = failed[0]
    assert isinstance(first, BotFailed)
    assert first.fallback is not None
    assert first.error == "bot 'slowpoke' (seat 1) took longer than 0.05 s for one decision"
    assert log.of(GameOver)


class _TalkingFailure:
    """Fails as an outside bot does, with what it printed (its own dice, here) kept."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        error = BotError("bot 'talker' (seat 1) raised RuntimeError: no")
        error.said = "; its last output: my dice: red, gray"
        raise error


@pytest.mark.parametrize("on_error", [RANDOM, STOP])
async def test_a_table_is_told_a_bot_failed_but_not_what_it_printed(
        on_error: OnBotError) -> None:
    """The error that stops a run quotes what the bot printed, for its author; the people
    at a table are told which bot failed and why, never its output (its dice, say)."""
    table = unstarted([], bots=("talker", "random", "random"))
    runner = InProcessRunner({(0, "talker"): _TalkingFailure()})
    log = Log()
    driver = Driver(table, runner, scheduler=FakeScheduler(), on_bot_error=on_error,
                    fallback_rng=random.Random(1), listeners=[log])
    await driver.start()
    while not table.is_over() and driver.failure is None:
        await driver.settle()
    failed = log.of(BotFailed)
    assert failed
    for event in failed:
        assert isinstance(event, BotFailed)
        assert event.error == "bot 'talker' (seat 1) raised RuntimeError: no"
    if on_error is STOP:
        assert driver.failure is not None
        assert str(driver.failure).endswith("; its last output: my dice: red, gray")


class _WorkerLike:
    """Answers as the server's bot workers do: the view goes out when asked, the answer
    comes back later and is checked then (:func:`checked`). Its first answer waits until
    released: a stand-in still thinking while its person comes back and acts."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.release = asyncio.Event()

    def decide(self, request: DecisionRequest) -> Decision:
        return Decision(checked(request, request.view.legal_actions[0]), 0.0)

    async def decide_async(self, request: DecisionRequest) -> Decision:
        view = request.view  # sent to the worker
        if not self.asked.is_set():
            self.asked.set()
            await self.release.wait()
        return Decision(checked(request, view.legal_actions[0]), 0.0)

    def close(self) -> None:
        pass


async def test_a_stand_in_s_late_answer_is_dropped_and_the_bots_play_on() -> None:
    """The stand-in is asked Ben's bid; Ben, back, bids himself and Ana bids while it
    thinks. Its answer, legal for the decision it was asked, is dropped as stale: it is
    not checked against Ben's next decision (none: he has bid), no random move is played
    for him, and the bot after it bids, so that the game goes on (it used to wait for that
    bot until someone came or went: the random move drawn from Ben's legal actions, none,
    ended the driver's pump)."""
    table = unstarted(["Ana", "Ben"], bots=("random",), players=3)
    runner = _WorkerLike()
    log = Log()
    driver = Driver(table, runner, scheduler=FakeScheduler(), stand_in="easy",
                    listeners=[log], on_bot_error=RANDOM)
    await driver.start()
    driver.stand_in_now(1)
    driver.kick()
    await spin(runner.asked.is_set)
    assert runner.asked.is_set()
    await driver.act(1, Bid(0))  # Ben is back and bids himself
    await driver.act(0, Bid(1))
    assert driver.waiting_for() == [2]
    runner.release.set()
    await spin(lambda: 2 not in driver.waiting_for())
    await driver.settle()
    assert not log.of(BotFailed)
    assert not log.of(Crashed)
    # Ben's answer came and was not used; then the bot bid (and the stand-in, still in
    # Ben's seat, plays on with it until only Ana's decision is left)
    assert [e.seat for e in log.of(BotDecided)][:2] == [1, 2]
    assert table.decisions >= 3
    assert table.snapshot()["rounds"][0]["bids"][:2] == [1, 0]
    assert driver.waiting_for() == [0]


async def test_a_person_back_in_their_seat_is_not_overtaken_by_the_stand_in() -> None:
    """The stand-in's answer for Ben waits for the lock behind Ana's slow write; Ben comes
    back and bids himself meanwhile. His bid is the one played: the stand-in's, though
    still legal and for the same turn, is dropped, since it no longer plays his seat."""
    table = unstarted(["Ana", "Ben"], bots=("random",), players=3)
    writing = asyncio.Event()
    writing.set()

    async def commit(_work: Table, _events: list[Event]) -> None:
        await writing.wait()

    runner = _WorkerLike()
    driver = Driver(table, runner, scheduler=FakeScheduler(), commit=commit, stand_in="easy",
                    listeners=[Log()], on_bot_error=RANDOM)
    await driver.start()
    driver.stand_in_now(1)
    driver.kick()
    await spin(runner.asked.is_set)
    writing.clear()
    ana = asyncio.ensure_future(driver.act(0, Bid(1)))  # her write is slow
    await spin(turns=10)
    runner.release.set()  # the stand-in's bid for Ben now waits for the lock
    await spin(turns=10)
    driver.back(1)  # Ben is here and bids himself
    ben = asyncio.ensure_future(driver.act(1, Bid(1)))
    await spin(turns=10)
    writing.set()
    await ana
    await ben
    await spin(lambda: not driver.waiting_for() or driver.waiting_for() == [0])
    assert table.snapshot()["rounds"][0]["bids"][:2] == [1, 1]


def test_a_bot_timing_out_stops_a_tournament_game() -> None:
    table = unstarted([], bots=("slowpoke", "random", "random"))
    driver = Driver(table, InProcessRunner({(0, "slowpoke"): _Spinning()}), time_limit=0.05)
    with pytest.raises(BotError, match=r"bot 'slowpoke' \(seat 1\) took longer than 0.05 s"):
        driver.run()
    assert driver.failure is not None
    assert driver.waiting_for() == []


class _Spinning:
    """Never returns and swallows ordinary exceptions (the Unix timer still stops it)."""

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        while True:
            try:
                threading.Event().wait(0.01)
            except Exception:  # a bot that tries to ignore being stopped
                continue


class _Misbehaving:
    def __init__(self, how: str) -> None:
        self.how = how

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if self.how == "raise":
            raise RuntimeError("gives up")
        if self.how == "exit":
            raise SystemExit(3)
        if self.how == "text":
            return "bid 1"  # type: ignore[return-value]
        return Bid(99)


@settings(max_examples=20, deadline=None)
@given(how=st.sampled_from(["raise", "exit", "text", "illegal"]), seat=st.integers(0, 2))
def test_every_misbehaviour_is_one_bot_error_naming_bot_and_seat(how: str, seat: int) -> None:
    table = unstarted([], bots=("random",))
    spec = table.seats[seat].bot
    assert spec is not None
    runners = {seat: InProcessRunner({(seat, spec): _Misbehaving(how)})}
    driver = Driver(table, PerSeatRunner(runners, InProcessRunner()))
    with pytest.raises(BotError) as info:
        driver.run()
    message = str(info.value)
    assert message.startswith(f"bot {spec!r} (seat {seat + 1}) ")
    assert {"raise": "raised RuntimeError: gives up", "exit": "tried to exit",
            "text": "returned the str 'bid 1', not an action: act(view, legal, rng) returns "
                    "one of the Bid or Roll objects in legal (here: bid 0, bid 1)",
            "illegal": "returned Bid(99), which is not legal"}[how] in message


def test_the_decision_request_builds_no_view_for_a_runner_that_needs_none(
        monkeypatch: pytest.MonkeyPatch) -> None:
    table = new_table(3, [], ["random"], seed=2)
    views: list[int | None] = []
    real_view = table.view
    def counted(seat: int | None) -> SeatView:
        views.append(seat)
        return real_view(seat)

    monkeypatch.setattr(table, "view", counted)
    request = DecisionRequest(0, "random", table, random.Random(0))
    assert request.legal == table.legal(0)
    assert views == []
    assert request.view.seat == 0
    assert request.view is request.view  # built once
    assert views == [0]


# -- writes -----------------------------------------------------------------------------------


class FlakyStore:
    """A commit hook that refuses the first ``failures`` writes."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.written: list[list[Event]] = []

    async def __call__(self, fork: Table, events: list[Event]) -> None:
        if self.failures:
            self.failures -= 1
            raise OSError("disk full")
        self.written.append(events)


async def test_a_person_s_move_whose_write_fails_leaves_the_table_unchanged() -> None:
    table = unstarted(["Ana", "Ben"], bots=("random",))
    store = FlakyStore(0)
    driver, _, _ = driver_for(table, Clocks(), commit=store)
    await driver.start()
    await driver.settle()
    before, decisions = table.snapshot(), table.decisions
    store.failures = 1
    with pytest.raises(OSError, match="disk full"):
        await driver.act(0, table.legal(0)[0])
    assert table.snapshot() == before
    assert table.decisions == decisions
    await driver.act(0, table.legal(0)[0])  # sent again: written this time
    assert table.decisions == decisions + 1


async def test_a_bot_s_move_whose_write_fails_is_tried_again_later() -> None:
    table = unstarted([], bots=("random",))
    store = FlakyStore(0)
    driver, clock, log = driver_for(table, Clocks(retry_after=2), commit=store)
    await driver.start()
    assert len(store.written) == 1  # the deal, written
    assert table.started
    driver.close()  # the bots would otherwise play on; start again with a failing store
    table = unstarted([], bots=("random",))
    store = FlakyStore(1)
    driver, clock, log = driver_for(table, Clocks(retry_after=2), commit=store)
    with pytest.raises(OSError, match="disk full"):
        await driver.start()
    assert not table.started
    await driver.start()
    store.failures = 1
    await driver.settle()
    assert log.of(CommitFailed)
    written = len(store.written)
    assert table.decisions == 0  # the failed move left no trace
    await elapse(driver, clock, 1.9)
    assert len(store.written) == written
    assert table.decisions == 0
    await elapse(driver, clock, 0.2)
    while not table.is_over():
        await driver.settle()
    assert table.decisions > 0
    assert log.of(GameOver)
    driver.close()


@pytest.mark.parametrize(("how", "what"), [
    ("raise", "raised RuntimeError: gives up"),
    ("illegal", "returned Bid(99), which is not legal here"),
])
def test_a_bot_asked_at_the_table_has_the_same_guard(how: str, what: str) -> None:
    """``Table.bot_decision`` (the terminal's way of asking) fails as every runner does."""
    table = new_table(3, ["Ana"], ["random"], seed=2)
    with pytest.raises(BotError) as info:
        table.bot_decision(1, _Misbehaving(how))
    assert str(info.value).startswith(f"bot 'random' (seat 2) {what}")


async def test_a_server_s_log_written_through_the_commit_hook_replays_to_the_same_game(
) -> None:
    """What the server's room will do: a fair stream, a write per change, people whose
    clock runs out; the log written replays to the very game the driver played."""
    key = bytes(range(32))

    def fair_table() -> Table:
        dealt = new_table(4, ["Ana", "Ben"], ["random", "easy"], seed=1)
        return Table(dealt.config, dealt.seats, FairChance(key), "b")

    log: list[dict[str, object]] = []

    async def write(fork: Table, events: list[Event]) -> None:
        log.extend(event_to_json(e) for e in events if isinstance(e, PRIMARY))

    table = fair_table()
    driver, clock, _ = driver_for(table, Clocks(turn_seconds=10, bot_delay=0.5), commit=write)
    await driver.start()
    for _ in range(2000):
        if table.is_over():
            break
        await elapse(driver, clock, 5)
    assert table.is_over()
    again = fair_table()
    again.replay([event_from_json(e) for e in log])
    assert again.record() == table.record()


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(["wait", "away", "back", "act"]),
                                st.integers(0, 1), st.floats(0, 40)), max_size=30),
       seed=st.integers(0, 2**16))
def test_whatever_people_do_and_however_time_passes_the_game_ends_and_its_log_replays(
        steps: list[tuple[str, int, float]], seed: int) -> None:
    """People coming and going, acting or not, at any moments: every deadline is the
    current decision's, the game always finishes, and what was written replays to it."""
    import asyncio

    from minodice.play.simulate import UniformRunner

    async def play() -> None:
        dealt = new_table(3, ["Ana", "Ben"], ["random"], seed=seed)
        table = Table(dealt.config, dealt.seats, FairChance(seed.to_bytes(32, "big")), "b")
        written: list[dict[str, object]] = []

        async def write(fork: Table, events: list[Event]) -> None:
            written.extend(event_to_json(e) for e in events if isinstance(e, PRIMARY))

        clock = FakeScheduler()
        driver = Driver(table, UniformRunner(), scheduler=clock, commit=write,
                        clocks=Clocks(turn_seconds=30, grace=20, bot_delay=1),
                        bot_rng=lambda seat: random.Random(seed + seat))
        await driver.start()
        for what, seat, seconds in steps:
            if what == "wait":
                await elapse(driver, clock, seconds)
            elif what == "away":
                driver.away(seat)
            elif what == "back":
                driver.back(seat)
            elif seat in driver.waiting_for():
                await driver.act(seat, table.legal(seat)[0])
            if driver.waiting_for():
                assert driver.deadline is not None
                assert clock.now() <= driver.deadline <= clock.now() + 30
        for _ in range(3000):
            if table.is_over():
                break
            await elapse(driver, clock, 10)
        assert table.is_over()
        again = Table(table.config, table.seats, FairChance(seed.to_bytes(32, "big")), "b")
        again.replay([event_from_json(e) for e in written])
        assert again.record() == table.record()
        driver.close()

    asyncio.run(play())
