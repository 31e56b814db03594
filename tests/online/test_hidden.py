"""Hidden information on the server, property-tested (PROTOCOL.md "The view", STYLE 15).

Hypothesis plays whole games through the server's own :class:`Lobby` and :class:`Room`, in
this process and without a network: bots, scripted people who sometimes send wrong or
illegal actions, connections that drop and come back, spectators. Every message any
connection receives is checked, at the moment it is sent, against the full game state
(``room.table._state``): a seat sees exactly its own dice, no other seat's dice of the
round before they are rolled (in any field, or anywhere in the raw text), no other seat's
bid before all are in, and exactly the engine's legal actions.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import random
import re
import secrets
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar
from unittest.mock import patch

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import minodice.server.lobby as lobby_module
from minodice.bots.loading import make_bot
from minodice.bots.protocol import Bot
from minodice.core.actions import Action, Bid, Roll
from minodice.core.dice import load_dice_set
from minodice.core.state import Phase
from minodice.core.view import SeatView
from minodice.play.runners import decide_in_worker
from minodice.server.botpool import BotPool
from minodice.server.lobby import Lobby
from minodice.server.protocol import (
    ERROR_CODES,
    Act,
    Chat,
    seat_view_from_message,
    view_message,
)
from minodice.server.room import Room, Settings
from minodice.server.store import Store

EDITIONS = ("mino", "skull-king")
VARIANTS = ("standard", "simplified")
KIND_NAMES = {k.name for e in EDITIONS for k in load_dice_set(e).kinds}
# an unknown kind's error lists every kind of the set: that names nobody's dice
ALL_KINDS = tuple(", ".join(k.name for k in load_dice_set(e).kinds) for e in EDITIONS)
CHAT_LINES = ("gg", "hello", "well rolled", "oops", "🎲")


# -- fakes ---------------------------------------------------------------------------------

T = TypeVar("T")


class InProcessPool(BotPool):
    """The real pool's interface, deciding in this process with ``make_bot(spec).act``.

    Why not the real :class:`BotPool`: its workers are processes seeded from ``secrets``, so
    a failing Hypothesis example could not be replayed or shrunk, and each example would
    pay for process round trips. This fake is seeded; the decisions are the same bots'.
    (One test below still plays a game through the real pool.)
    """

    def __init__(self, seed: int = 0) -> None:  # no worker processes: no super().__init__
        self.workers = 0
        self.timeout = 0.0
        self.failures = 0
        self.rng = random.Random(seed)
        self.bots: dict[str, Bot] = {}

    async def warm_up(self) -> None:
        return None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """A job of the pool's, here; a bot's decision is seeded from this pool's
        generator (the server seeds it from the OS), so that an example replays."""
        if fn is decide_in_worker:
            spec, seat_view, _seed = args
            args = (spec, seat_view, int(self.rng.random() * 2**64))
        return fn(*args)

    async def decide(self, spec: str, seat_view: SeatView) -> Action:
        bot = self.bots.get(spec)
        if bot is None:
            bot = self.bots[spec] = make_bot(spec)
        action = bot.act(seat_view, seat_view.legal_actions, random.Random(self.rng.random()))
        assert action in seat_view.legal_actions
        return action

    def close(self) -> None:
        return None


class FakeSecrets:
    """Stands in for the module ``secrets`` inside ``lobby.py`` (server seed, first starter,
    table id, tokens), drawn from a seeded generator so that an example replays exactly."""

    compare_digest = staticmethod(secrets.compare_digest)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def token_bytes(self, n: int = 32) -> bytes:
        return self.rng.randbytes(n)

    def token_urlsafe(self, n: int = 32) -> str:
        return base64.urlsafe_b64encode(self.rng.randbytes(n)).rstrip(b"=").decode()

    def randbelow(self, n: int) -> int:
        return self.rng.randrange(n)

    def choice(self, seq: str) -> str:
        return self.rng.choice(seq)


class Probe:
    """Checks every message of every connection of one room against the full state."""

    def __init__(self) -> None:
        self.room: Room | None = None
        self.failures: list[str] = []
        self.messages = 0
        self.history: dict[int, Any] = {}   # finished rounds' entries, as first seen
        # (decisions, seat) -> other seats' unrolled dice, as multisets and as text
        self.forbidden: dict[tuple[int, int | None], tuple[list[Counter[str]], list[str]]] = {}

    def fail_if_any(self) -> None:
        assert not self.failures, self.failures[0]


class FakeConn:
    """A connection as the room sees it (``seat``, ``send``) that checks what it is sent."""

    def __init__(self, probe: Probe, seat: int | None) -> None:
        self.probe = probe
        self.seat = seat
        self.inbox: list[dict[str, Any]] = []
        self.last_view: dict[str, Any] | None = None
        self.last_seq = 0
        self.sent: str | None = None        # the action text of the last act this sent
        self.answered: list[str] = []       # turns this connection answered

    def send(self, text: str) -> None:
        # Room code may call this from a bot task that swallows exceptions: failures are
        # recorded, and the driver raises them.
        self.probe.messages += 1
        try:
            message = check_message(self.probe, self, text)
        except AssertionError as exc:
            self.probe.failures.append(f"{exc} — seat {self.seat}: {text[:600]}")
            return
        self.inbox.append(message)
        if message["type"] == "view":
            self.last_view = message["view"]


# -- the checks ----------------------------------------------------------------------------


def check_message(probe: Probe, conn: FakeConn, text: str) -> dict[str, Any]:
    room = probe.room
    assert room is not None
    text.encode("utf-8")  # what goes on the wire is UTF-8 (no lone surrogates)
    message = json.loads(text)
    assert isinstance(message, dict)
    kind = message.get("type")
    if kind == "view":
        check_view(room, conn, message)
    elif kind == "error":
        check_error(room, conn, message)
    else:
        assert kind == "chat", f"unknown message type {kind!r}"
        assert set(message) == {"type", "seat", "name", "text", "at"}
    check_no_hidden_dice(probe, conn.seat, message)
    return message


def check_view(room: Room, conn: FakeConn, message: dict[str, Any]) -> None:
    view = message["view"]
    seat = conn.seat
    n = room.row.settings.players
    assert message["seq"] == room.row.seq
    assert message["seq"] > conn.last_seq, "seq did not grow"
    conn.last_seq = message["seq"]
    assert view["you"] == seat
    assert view["status"] == room.row.status
    assert len(view["players"]) == n
    assert view["commit"] == room.row.commit
    assert "server_seed" not in json.dumps(view) or room.row.status == "finished"
    table = room.table
    if table is None or room.row.status == "waiting":
        assert view["phase"] == "waiting"
        assert view["hand"] == []
        assert view["bids"] == [None] * n
        assert view["legal"] == []
        assert view["turn"] is None
        assert view["history"] == []
        return
    state = table._state
    ds = state.dice_set
    playing = room.row.status == "playing"
    assert playing == (state.phase is not Phase.OVER)
    assert view["phase"] == {Phase.BID: "bid", Phase.PLAY: "play", Phase.OVER: "finished"}[
        state.phase]
    assert view["round"] == state.round_no
    # the hand: exactly this seat's dice now; nothing for a spectator
    if seat is None:
        assert view["hand"] == []
        assert view["legal"] == []
    else:
        assert view["hand"] == state.hand(seat).names()
        assert view["hand"] == [k.name for k in sorted(state.hand(seat).kinds(),
                                                       key=lambda k: k.index)]
    assert view["hand_sizes"] == [len(state.hand(s)) for s in range(n)]
    # legal actions and turns
    to_act = table.to_act()
    assert view["to_act"] == to_act
    if seat is not None and playing:
        assert view["legal"] == [str(a) for a in state.legal_actions(seat)]
    else:
        assert view["legal"] == []
    if seat is not None and playing and seat in to_act:
        assert view["turn"] is not None
        assert view["turn"] == table.current_turn()
    else:
        assert view["turn"] is None
    if playing and room.row.settings.turn_seconds:
        assert isinstance(view["deadline"], int)
    else:
        assert view["deadline"] is None
    # bids: secret until all are in (R6)
    all_in = state.rounds[-1].bids is not None
    for s in range(n):
        real = state.bids[s]
        if all_in:
            assert view["bids"][s] == real
        elif s == seat:
            assert view["bids"][s] == (real if real >= 0 else None)
        else:
            assert view["bids"][s] is None, f"seat {s}'s bid shown before all are in"
        if state.phase is Phase.BID:
            assert view["has_bid"][s] == (real >= 0)
    # only finished rounds in the history, and those exactly
    finished = [log for log in state.rounds if log.points is not None]
    assert len(view["history"]) == len(finished)
    for i, (past, log) in enumerate(zip(view["history"], finished, strict=True)):
        assert past["round"] == i + 1
        assert past["hands"] == [ds.hand_of_key(k).names() for k in log.hands]
        assert past["bids"] == log.bids
        assert past["points"] == log.points
        assert past["totals"] == log.totals
    # the trick in progress
    if state.phase is Phase.PLAY:
        rolls = [{"seat": s, "die": ds.kinds[k].name, "face": ds.face_of_code(c).record_value}
                 for s, k, c in state.trick]
        assert view["trick"] == rolls
    assert view["totals"] == state.totals


def _forbidden_hands(room: Room, seat: int | None) -> list[list[str]]:
    """Other seats' dice of the current round not yet rolled: their hands now, and the hands
    they were dealt (which hold the unrolled ones)."""
    table = room.table
    if table is None or not table.started:
        return []
    state = table._state
    ds = state.dice_set
    log = state.rounds[-1]
    if log.points is not None:  # the round is over: every die was rolled in the open
        return []
    out = []
    for s in range(state.n):
        if s == seat or not state.hands[s]:
            continue
        out.append(state.hand(s).names())
        out.append(ds.hand_of_key(log.hands[s]).names())
    return out


def _walk(obj: Any, path: tuple[Any, ...], lists: list[tuple[tuple[Any, ...], list[str]]],
          strings: list[str]) -> None:
    """Every list of die-kind names (with where it is) and every string in ``obj``."""
    if isinstance(obj, str):
        strings.append(obj)
    elif isinstance(obj, list):
        if obj and all(isinstance(x, str) and x in KIND_NAMES for x in obj):
            lists.append((path, obj))
        for i, item in enumerate(obj):
            if not isinstance(item, int | float | bool | None):
                _walk(item, (*path, i), lists, strings)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            strings.append(key)
            if not isinstance(value, int | float | bool | None):
                _walk(value, (*path, key), lists, strings)


def _allowed_path(path: tuple[Any, ...]) -> bool:
    """Where die-kind lists belong: the seat's own hand (checked exactly in check_view) and
    the hands of finished rounds (checked there against the round logs)."""
    return path == ("view", "hand") or (len(path) == 5 and path[:2] == ("view", "history")
                                        and path[3] == "hands")


def _forms(hand: list[str]) -> list[str]:
    """How a list of dice could be written in a JSON text or in a sentence."""
    out = []
    for order in (hand, sorted(hand)):
        out += ['["' + '", "'.join(order) + '"]', '["' + '","'.join(order) + '"]',
                "['" + "', '".join(order) + "']"]  # JSON, compact JSON, Python
        if len(order) >= 2:
            out += [",".join(order), ", ".join(order)]
    return out


def _without_full_lists(text: str) -> str:
    for listing in ALL_KINDS:
        text = text.replace(listing, "")
    return text


def check_no_hidden_dice(probe: Probe, seat: int | None, message: dict[str, Any]) -> None:
    """No other seat's unrolled dice anywhere: not as a list in any field (in any order),
    not written in any string, not in the raw JSON text."""
    room = probe.room
    assert room is not None
    key = (room.table.decisions if room.table is not None else -1, seat)
    cached = probe.forbidden.get(key)
    if cached is None:
        hands = _forbidden_hands(room, seat)
        cached = probe.forbidden[key] = ([Counter(h) for h in hands],
                                         sorted({f for h in hands for f in _forms(h)}))
    counters, forms = cached
    if not counters:
        return
    body = message
    if message.get("type") == "view":
        # A finished round's entry never changes: scanned in full when first seen (just
        # after its round ended), then only compared with that.
        view = dict(message["view"])
        history = view.pop("history")
        fresh = []
        for i, entry in enumerate(history):
            seen = probe.history.get(i)
            if seen is None:
                probe.history[i] = entry
                fresh.append(entry)
            else:
                assert entry == seen, f"finished round {i + 1} changed"
        view["history"] = fresh
        body = {**message, "view": view}
    lists: list[tuple[tuple[Any, ...], list[str]]] = []
    strings: list[str] = []
    _walk(body, (), lists, strings)
    for path, kinds in lists:
        if not _allowed_path(path):
            assert Counter(kinds) not in counters, f"another seat's dice at {path}"
    joined = _without_full_lists("\x00".join(strings))
    for form in forms:
        assert form not in joined, f"another seat's dice {form} in a string"
    # the raw JSON text, without the two places where kind lists belong
    if body is not message:
        view = dict(body["view"])
        view["hand"] = []
        view["history"] = [{**entry, "hands": []} for entry in view["history"]]
        body = {**body, "view": view}
    raw = _without_full_lists(json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    for form in forms:
        assert form not in raw, f"another seat's dice {form} in the raw text"


def check_error(room: Room, conn: FakeConn, message: dict[str, Any]) -> None:
    assert set(message) == {"type", "code", "message", "rule"}
    assert message["code"] in ERROR_CODES
    assert isinstance(message["message"], str)
    assert message["rule"] is None or re.fullmatch(r"R\d+", message["rule"])
    assert "Traceback" not in message["message"]
    # The only die kinds an error may name: those of the action sent, and the colour to
    # follow (public). The list of all the set's kinds (an unknown kind) names no hand.
    table = room.table
    if table is None:
        return
    state = table._state
    ds = state.dice_set
    text = message["message"].replace("(" + ", ".join(k.name for k in ds.kinds) + ")", "")
    text = text.replace("(try 'bid 2' or 'roll red')", "")  # the same hint for everyone
    text = text.replace(f"the {ds.name} set", "the set")  # a set may share a kind's name
    allowed = {k for k in KIND_NAMES if conn.sent and re.search(rf"\b{re.escape(k)}\b",
                                                                 conn.sent.lower())}
    if state.phase is Phase.PLAY and state.follow >= 0:
        allowed.add(ds.kinds[state.follow].colour)
    named = {k for k in KIND_NAMES if re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", text)}
    assert named <= allowed, f"the error names dice {named - allowed}"


# -- the driver ----------------------------------------------------------------------------


class LogTrap(logging.Handler):
    """Errors the room logs (a bot pump that failed swallows the exception)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def settle(room: Room, probe: Probe) -> None:
    """Let the bots' tasks run until the room waits for a person (or is over)."""
    for _ in range(30_000):  # a hang guard of 30 s and more: writes run on their own thread
        await asyncio.sleep(0.001)
        if not room.busy():
            probe.fail_if_any()
            return
    raise AssertionError("the bots never settled")


async def send_act(room: Room, conn: FakeConn, turn: str, action: str) -> dict[str, Any]:
    """Send one act; returns the answer this connection got (exactly one message)."""
    before = len(conn.inbox)
    conn.sent = action
    await room.on_act(conn, Act(turn, action))
    conn.sent = None
    conn.probe.fail_if_any()
    assert len(conn.inbox) == before + 1, "an act got no answer, or more than one"
    return conn.inbox[-1]


async def mischief(room: Room, probe: Probe, rng: random.Random, conns: dict[int, FakeConn],
                   spectators: list[FakeConn]) -> None:
    """One wrong message, refused with the right code, changing nothing."""
    table = room.table
    assert table is not None
    state = table._state
    ds = state.dice_set
    to_act = table.to_act()
    current = table.current_turn()
    assert current is not None
    seq, decisions = room.row.seq, table.decisions
    choice = rng.randrange(9)
    acting = [conns[s] for s in to_act if s in conns]
    idle = [c for s, c in conns.items() if s not in to_act]
    expected: tuple[str, ...]
    if choice == 0 and spectators:
        conn, turn, action, expected = rng.choice(spectators), current, "bid 0", ("forbidden",)
    elif choice == 1 and idle:
        conn = rng.choice(idle)
        turn, action, expected = current, "bid 0", ("not_your_turn", "stale")
    elif choice == 2 and any(c.answered for c in conns.values()):
        conn = rng.choice([c for c in conns.values() if c.answered])
        turn, action = rng.choice(conn.answered), "bid 0"
        expected = ("stale", "not_your_turn")
    elif choice == 3 and acting:
        conn, turn = rng.choice(acting), current
        if state.phase is Phase.BID:
            action = f"bid {state.round_no + 1 + rng.randrange(3)}"
        else:
            action = "bid 0"
        expected = ("illegal",)
    elif choice == 4 and acting:
        conn, turn = rng.choice(acting), current
        assert conn.seat is not None
        legal = state.legal_actions(conn.seat)
        wrong = [a for a in (*(Roll(k) for k in ds.kinds), *(Bid(b) for b in range(9)))
                 if a not in legal]
        action, expected = str(rng.choice(wrong)), ("illegal",)
    elif choice == 5 and acting:
        conn, turn = rng.choice(acting), current
        action = rng.choice(["dance", "roll dragon", "bid x", "bid -1", "roll", "bid ²",
                             "bid 1 2", "", "r" * 300])
        expected = ("bad_message",)
    elif choice == 6 and acting:
        conn, action = rng.choice(acting), "bid 0"
        turn = rng.choice(["99-bid", "nonsense", "1-1", "", "1-2-3-4", f"{state.round_no}-9-9"])
        expected = ("bad_message",)
    elif choice == 7:
        everyone = [*conns.values(), *spectators]
        conn = rng.choice(everyone)
        before = [len(c.inbox) for c in everyone]
        await room.on_chat(conn, Chat(rng.choice(CHAT_LINES)))
        if conn.seat is None:
            assert conn.inbox[-1]["code"] == "forbidden"
        else:
            assert all(len(c.inbox) == b + 1 for c, b in zip(everyone, before, strict=True))
            assert all(c.inbox[-1]["type"] == "chat" for c in everyone)
        assert room.row.seq == seq
        return
    else:
        return
    answer = await send_act(room, conn, turn, action)
    assert answer["type"] == "error", answer
    assert answer["code"] in expected, (answer, expected)
    event(f"refused: {answer['code']}")
    assert room.row.seq == seq, "a refused message changed the table"
    assert table.decisions == decisions


async def play_game(params: dict[str, Any]) -> Probe:
    rng = random.Random(params["seed"])
    players: int = params["players"]
    probe = Probe()
    store = Store("sqlite://")
    lobby = Lobby(store, InProcessPool(params["seed"]), Settings(bot_delay=0, grace=3600.0))
    trap = LogTrap()
    logger = logging.getLogger("minodice.server")
    logger.addHandler(trap)
    try:
        with patch.object(lobby_module, "secrets", FakeSecrets(rng)):
            bots: list[str | None] = list(params["bots"])
            room, host = await lobby.create(players, params["edition"], params["variant"], bots,
                                      params["turn_seconds"], False)
            probe.room = room
            spectators = [FakeConn(probe, None) for _ in range(params["spectators"])]
            for spectator in spectators:
                await room.connect(spectator)
            conns: dict[int, FakeConn] = {}
            people = [i for i, b in enumerate(bots) if b is None]
            joining = people[: len(people) - params["left_empty"]]
            for i in joining:
                seat, _token, _name = await lobby.join(room.id, f"P{i}", f"seed{i}")
                conns[seat] = FakeConn(probe, seat)
                await room.connect(conns[seat])
            if room.row.status == "waiting":
                await lobby.start(room.id, host, rng.choice(["random", "easy"]))
            await drive(room, probe, rng, conns, spectators, params)
            seq = room.row.seq
            for conn in conns.values():  # every turn of a finished game is over
                assert (await send_act(room, conn, "1-bid", "bid 0"))["code"] == "stale"
                assert (await send_act(room, conn, "x", "bid 0"))["code"] == "bad_message"
            assert room.row.seq == seq
        assert room.row.status == "finished"
        assert not trap.records, trap.records[0].getMessage()
    finally:
        logger.removeHandler(trap)
        await lobby.close()
        store.close()
    probe.fail_if_any()
    return probe


async def drive(room: Room, probe: Probe, rng: random.Random, conns: dict[int, FakeConn],
                spectators: list[FakeConn], params: dict[str, Any]) -> None:
    away: dict[int, FakeConn] = {}  # seats whose person left (a stand-in plays for them)
    for _ in range(5_000):
        await settle(room, probe)
        table = room.table
        assert table is not None
        if room.row.status == "finished":
            return
        if rng.random() < params["mischief"]:
            await mischief(room, probe, rng, conns, spectators)
        if rng.random() < params["churn"]:
            await churn(room, probe, rng, conns, spectators, away)
            continue
        mine = [s for s in table.to_act() if s in conns]
        if not mine:
            if away:  # only absent people are asked: one comes back
                seat = rng.choice(sorted(away))
                conns[seat] = away.pop(seat)
                await room.connect(conns[seat])
                continue
            raise AssertionError(f"the game waits for {table.to_act()}, nobody acts")
        conn = conns[rng.choice(mine)]
        view = conn.last_view
        assert view is not None
        assert view["turn"] is not None
        assert view["legal"]
        action = rng.choice(view["legal"])
        decisions = table.decisions
        answer = await send_act(room, conn, view["turn"], action)
        assert answer["type"] == "view", answer
        assert table.decisions == decisions + 1
        conn.answered.append(view["turn"])
    raise AssertionError("the game did not end")


async def churn(room: Room, probe: Probe, rng: random.Random, conns: dict[int, FakeConn],
                spectators: list[FakeConn], away: dict[int, FakeConn]) -> None:
    """Connections come and go: a person leaves (a stand-in bot plays after the grace
    period, simulated by running its end at once) or reloads; a spectator arrives."""
    what = rng.randrange(4)
    if what == 0 and conns:
        seat = rng.choice(sorted(conns))
        conn = conns.pop(seat)
        await room.disconnect(conn)
        assert room.driver is not None
        room.driver.stand_in_now(seat)  # what the end of the grace period does
        event("a stand-in played for an absent person")
        away[seat] = FakeConn(probe, seat)
        away[seat].answered = conn.answered
    elif what == 1 and away:
        seat = rng.choice(sorted(away))
        conns[seat] = away.pop(seat)
        await room.connect(conns[seat])
    elif what == 2 and conns:
        seat = rng.choice(sorted(conns))
        old = conns[seat]
        new = FakeConn(probe, seat)
        new.answered = old.answered
        await room.connect(new)          # a second tab, then the first one closes
        await room.disconnect(old)
        conns[seat] = new
        assert new.last_view is not None
    else:
        spectator = FakeConn(probe, None)
        await room.connect(spectator)
        spectators.append(spectator)


@st.composite
def games(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(3, 6))
    bots = draw(st.lists(st.sampled_from([None, None, "random", "easy"]), min_size=players,
                         max_size=players))
    people = sum(b is None for b in bots)
    return {
        "players": players,
        "edition": draw(st.sampled_from(EDITIONS)),
        "variant": draw(st.sampled_from(VARIANTS)),
        "bots": bots,
        "left_empty": draw(st.integers(0, min(1, people))),
        "spectators": draw(st.integers(1, 2)),
        "turn_seconds": draw(st.sampled_from([None, None, 30])),
        "mischief": draw(st.sampled_from([0.0, 0.1, 0.3])),
        "churn": draw(st.sampled_from([0.0, 0.02, 0.08])),
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=games())
def test_every_message_hides_what_it_must(params: dict[str, Any]) -> None:
    probe = asyncio.run(play_game(params))
    assert probe.messages > 0


def test_a_game_through_the_real_bot_pool() -> None:
    """The same checks once with the real worker-process pool (not seeded: one game)."""

    async def run() -> Probe:
        probe = Probe()
        store = Store("sqlite://")
        pool = BotPool(workers=1)
        lobby = Lobby(store, pool, Settings(bot_delay=0, grace=3600.0))
        try:
            room, _host = await lobby.create(4, "skull-king", "standard",
                                       [None, "easy", "random", None], None, False)
            probe.room = room
            spectator = FakeConn(probe, None)
            await room.connect(spectator)
            conns: dict[int, FakeConn] = {}
            for name in ("Ana", "Bo"):
                seat, _token, _name = await lobby.join(room.id, name, None)
                conns[seat] = FakeConn(probe, seat)
                await room.connect(conns[seat])
            rng = random.Random(7)
            for _ in range(5_000):
                for _ in range(1000):  # the pool answers from another process
                    await asyncio.sleep(0.002 if room.busy() else 0)
                    if not room.busy():
                        break
                probe.fail_if_any()
                if room.row.status == "finished":
                    break
                table = room.table
                assert table is not None
                seat = next(s for s in table.to_act() if s in conns)
                view = conns[seat].last_view
                assert view is not None
                assert view["turn"] is not None
                answer = await send_act(room, conns[seat], view["turn"],
                                        rng.choice(view["legal"]))
                assert answer["type"] == "view"
            assert room.row.status == "finished"
            assert pool.failures == 0
        finally:
            await lobby.close()
            pool.close()
            store.close()
        return probe

    probe = asyncio.run(run())
    probe.fail_if_any()


# -- views survive the trip through a message ----------------------------------------------


async def _round_trips(players: int, edition: str, variant: str, seed: int,
                       every: int) -> int:
    rng = random.Random(seed)
    store = Store("sqlite://")
    lobby = Lobby(store, InProcessPool(seed), Settings(bot_delay=0, grace=3600.0))
    checked = 0
    try:
        with patch.object(lobby_module, "secrets", FakeSecrets(rng)):
            room, _host = await lobby.create(players, edition, variant, None, None, False)
            for i in range(players):
                await lobby.join(room.id, f"P{i}", None)
        table = room.table
        assert table is not None
        step = 0
        while True:
            if step % every == 0 or table.is_over():
                for seat in [None, *range(players)]:
                    message = json.loads(room.view_text(seat))
                    assert seat_view_from_message(message["view"]) == table.view(seat), (
                        seat, step)
                    # The history spliced in as text once a round: the same message.
                    turn = table.turn(seat) if seat is not None else None
                    plain = view_message(room.facts(), table.view(seat), seat, turn,
                                         room.row.seq)
                    assert message == json.loads(json.dumps(plain))
                    checked += 1
            if table.is_over():
                break
            seat = rng.choice(table.to_act())
            await room.apply(seat, rng.choice(table.legal(seat)))
            step += 1
    finally:
        await lobby.close()
        store.close()
    return checked


@settings(max_examples=20, deadline=None)
@given(players=st.integers(3, 6), edition=st.sampled_from(EDITIONS),
       variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1),
       every=st.sampled_from([1, 4, 9]))
def test_view_message_round_trip(players: int, edition: str, variant: str, seed: int,
                                 every: int) -> None:
    assert asyncio.run(_round_trips(players, edition, variant, seed, every)) > players
