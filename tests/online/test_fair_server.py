"""The server's side of fair dice (PROTOCOL.md ``minodice-fair-2``): seats commit to their
seeds and reveal them once every seat has committed, a seat that does not reveal in time is
replaced and played by the stand-in, rematches get seeds and a host, and a seat's view is as
long whatever dice it holds."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from live_server import StartServer
from minodice.client import create_table, join, play
from minodice.core.dice import load_dice_set
from minodice.core.fair import SCHEME_2, FairnessError, seed_hash, verify_record
from minodice.core.rules import RuleOptions, SpecialLead, StartRule, Variant
from minodice.core.state import GameConfig
from minodice.play.table import FairChance, SeatSpec, Table
from minodice.server.app import create_app
from minodice.server.lobby import ApiError, Lobby
from minodice.server.protocol import TableFacts, dumps, view_message
from minodice.server.room import Room, Settings, options_of
from minodice.server.rows import TableSettings
from minodice.server.store import Store

from .test_hidden import InProcessPool


@pytest.fixture
async def lobby() -> AsyncIterator[Lobby]:
    """Bots decide at once; a person who is not connected is played by the stand-in at
    once (grace 0), so that a game of people who only joined over HTTP plays to its end."""
    store = Store("sqlite://")
    lobby = Lobby(store, InProcessPool(1), Settings(bot_delay=0, grace=0.0,
                                                    reveal_seconds=3600.0))
    yield lobby
    await lobby.close()
    store.close()


async def finished(room: Room) -> dict[str, Any]:
    for _ in range(3000):  # a hang guard: a whole game of bots takes well under a second
        if room.row.status == "finished":
            return room.record()
        await asyncio.sleep(0.01)
    raise AssertionError(f"the game did not finish: {room.row.status}")


def last_view(room: Room, seat: int | None) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(room.view_text(seat))["view"]
    return view


async def test_seats_commit_then_reveal_and_the_record_proves_it(lobby: Lobby) -> None:
    room, _host = await lobby.create(3, "mino", "standard", [None, None, "easy"], None, False)
    seeds = [secrets.token_hex(16), "ünïcode seed"]
    a, token_a, _ = await lobby.join(room.id, "Ana", None, None, seed_hash(seeds[0]))
    with pytest.raises(ApiError, match="once every seat is taken"):
        await lobby.reveal(room.id, token_a, seeds[0])  # nobody reveals before all commit
    b, token_b, _ = await lobby.join(room.id, "Ben", None, None, seed_hash(seeds[1]))
    assert room.row.status == "waiting"
    view = last_view(room, None)
    assert view["reveal"]["pending"] == [a, b]
    assert view["reveal"]["seed_hashes"] == [seed_hash(seeds[0]), seed_hash(seeds[1]),
                                             seed_hash("")]
    assert not any(s in json.dumps(view) for s in seeds)  # no seed before the game ends
    with pytest.raises(ApiError, match="does not match the hash"):
        await lobby.reveal(room.id, token_b, seeds[1] + "!")  # no second choice
    await lobby.reveal(room.id, token_a, seeds[0])
    await lobby.reveal(room.id, token_a, seeds[0])  # a reloaded page telling it twice
    assert last_view(room, None)["reveal"]["pending"] == [b]
    await lobby.reveal(room.id, token_b, seeds[1])
    assert room.row.status == "playing"
    record = await finished(room)
    fair = record["fairness"]
    assert fair["scheme"] == SCHEME_2
    assert fair["client_seeds"] == [*seeds, ""]
    assert fair["client_seed_hashes"] == view["reveal"]["seed_hashes"]
    assert fair["replaced"] == []
    assert fair["table"] == room.id
    assert verify_record(record).totals == tuple(record["totals"])
    assert last_view(room, a)["fairness"] == fair


async def ben_never_reveals(lobby: Lobby) -> tuple[Room, int]:
    """A table of Ana, Ben and a bot, both committed to seeds by hash; Ana reveals hers,
    Ben never does: once the short reveal period is over, the game starts. Returns the
    room and Ben's seat."""
    lobby.settings.reveal_seconds = 0.05
    lobby.settings.grace = 3600.0  # only the missing reveal may hand the seat to a bot
    room, _host = await lobby.create(3, "mino", "standard", [None, None, "random"], None, False)
    _a, token_a, _ = await lobby.join(room.id, "Ana", None, None, seed_hash("mine"))
    b, _token_b, _ = await lobby.join(room.id, "Ben", None, None, seed_hash("never told"))
    await lobby.reveal(room.id, token_a, "mine")
    for _ in range(500):
        if room.row.status != "waiting":
            break
        await asyncio.sleep(0.01)
    return room, b


async def test_a_seat_that_does_not_reveal_is_replaced_and_played_by_the_stand_in(
        lobby: Lobby) -> None:
    room, b = await ben_never_reveals(lobby)
    assert room.row.status == "playing"
    assert room.players()[b]["autoplay"] == "easy"
    assert room.players()[0]["autoplay"] is None
    assert room.driver is not None
    room.driver.stand_in_now(0)  # let Ana's seat be played too, to reach the record
    record = await finished(room)
    assert record["fairness"]["replaced"] == [b]
    assert record["fairness"]["client_seeds"][0] == "mine"
    assert verify_record(record).rolls > 0
    record["fairness"]["client_seeds"][b] = "never told"  # what a server cannot claim
    with pytest.raises(FairnessError, match="replaced"):
        verify_record(record)


async def test_a_replaced_seat_s_person_who_acts_takes_it_back(lobby: Lobby) -> None:
    """Ben, connected all along, never revealed his seed: the stand-in plays for him from
    the first deal, until he acts himself. Then it is his seat again (no autoplay), and
    the bots go on around him."""
    lobby.settings.bot_delay = 3600.0  # the stand-in waits; Ben acts first
    room, b = await ben_never_reveals(lobby)
    assert room.players()[b]["autoplay"] == "easy"
    assert room.table is not None
    assert room.driver is not None
    assert b in room.driver.waiting_for()
    await room.apply(b, room.table.legal(b)[0], room.table.current_turn())
    assert room.players()[b]["autoplay"] is None
    assert room.driver.bot_of(b) is None


async def test_plain_seeds_of_older_clients_still_play_at_once(lobby: Lobby) -> None:
    room, _host = await lobby.create(3, "skull-king", "standard", [None, None, "easy"], None, False)
    await lobby.join(room.id, "Ana", "an old client's seed")
    await lobby.join(room.id, "Ben", None)
    assert room.row.status == "playing"  # nothing to reveal: no waiting
    record = await finished(room)
    assert record["fairness"]["client_seeds"] == ["an old client's seed", "", ""]
    assert verify_record(record).scheme == SCHEME_2
    with pytest.raises(ApiError, match="not both"):
        await lobby.join(room.id, "Cleo", "x", None, seed_hash("x"))


async def test_a_rematch_has_seeds_and_a_host_who_can_start_it(lobby: Lobby) -> None:
    room, _host = await lobby.create(3, "mino", "standard", [None, None, "easy"], None, False)
    _a, token_a, _ = await lobby.join(room.id, "Ana", "a")
    _b, token_b, _ = await lobby.join(room.id, "Ben", "b")
    await finished(room)
    new, seat, token, host = await lobby.rematch(room.id, token_a, None,
                                                 seed_hash("ana again"))
    assert host, "whoever creates the rematch gets its host token"
    assert new.row.status == "waiting"
    # Ben never comes back: Ana's host token fills his seat and starts the game
    with pytest.raises(ApiError, match="host"):
        await lobby.start(new.id, token_b, "easy")  # Ben's old token is not a host's
    await lobby.start(new.id, host, "easy")
    assert new.reveals.active(), "the filled table waits for Ana's seed, committed by hash"
    deadline = new.reveals.deadline
    with pytest.raises(ApiError, match="starts once the seeds are revealed"):
        await lobby.start(new.id, host, "easy")
    assert new.reveals.deadline == deadline
    await lobby.reveal(new.id, token, "ana again")
    record = await finished(new)
    assert record["fairness"]["client_seeds"][seat] == "ana again"
    assert verify_record(record).rolls > 0


async def test_a_game_by_the_open_rules_verifies_and_its_rematch_keeps_them(
        lobby: Lobby) -> None:
    """RULES.md's open points played otherwise: the finished game's fair dice verify from
    its record (which names them), and its rematch plays by them too."""
    options = RuleOptions(StartRule.FIXED, SpecialLead.NO_COLOUR)
    room, _host = await lobby.create(3, "mino", "standard", [None, None, "easy"], None, False,
                                     options=options)
    _a, token_a, _ = await lobby.join(room.id, "Ana", "a")
    await lobby.join(room.id, "Ben", "b")
    record = await finished(room)
    assert record["rule_options"] == options.as_json()
    assert verify_record(record).rolls > 0
    new, _seat, _token, _host2 = await lobby.rematch(room.id, token_a, None,
                                                     seed_hash("ana again"))
    assert options_of(new.row) == options


async def test_any_player_back_at_a_rematch_can_start_it(lobby: Lobby) -> None:
    room, _host = await lobby.create(4, "mino", "standard", [None, None, None, "easy"], None, False)
    tokens = [(await lobby.join(room.id, name, name))[1] for name in ("Ana", "Ben", "Cleo")]
    await finished(room)
    new, _s, _t, host = await lobby.rematch(room.id, tokens[0], "ana 2")
    assert host
    _new, _seat, ben, again = await lobby.rematch(room.id, tokens[1], "ben 2")
    assert again is None  # one host token, given once
    await lobby.start(new.id, ben, "easy")  # Ana left, Cleo never came: Ben starts it
    record = await finished(new)
    assert record["fairness"]["client_seeds"] == ["ana 2", "ben 2", "", ""]


def test_the_http_routes(tmp_path: Path) -> None:
    app = create_app(Store.sqlite(tmp_path / "t.db"),
                     Settings(bot_delay=0, grace=3600.0, reveal_seconds=3600.0),
                     InProcessPool(2), http_rate=1e9, http_burst=1e9)
    with TestClient(app) as client:
        table = client.post("/api/tables", json={"players": 3, "bots": [None, None, "easy"]}
                            ).json()["table"]
        seats = [client.post(f"/api/tables/{table}/seats",
                             json={"name": n, "client_seed_hash": seed_hash(n * 3)}).json()
                 for n in ("Ana", "Ben")]
        info = client.get(f"/api/tables/{table}").json()
        assert info["status"] == "waiting"
        bad = client.post(f"/api/tables/{table}/reveal",
                          json={"token": seats[0]["token"], "client_seed": "nope"})
        assert bad.status_code == 400
        assert "does not match" in bad.json()["error"]["message"]
        stranger = client.post(f"/api/tables/{table}/reveal",
                               json={"token": "x" * 20, "client_seed": "AnaAnaAna"})
        assert stranger.status_code == 403
        for seat, name in zip(seats, ("Ana", "Ben"), strict=True):
            answer = client.post(f"/api/tables/{table}/reveal",
                                 json={"token": seat["token"], "client_seed": name * 3})
            assert answer.status_code == 200, answer.text
        assert client.get(f"/api/tables/{table}").json()["status"] == "playing"
        hashed = client.post(f"/api/tables/{table}/seats",
                             json={"name": "Late", "client_seed_hash": "zz"})
        assert hashed.status_code in (400, 409)


# -- a seat's view is as long whatever dice it holds ----------------------------------------


def _views(seed: int, players: int, edition: str) -> list[tuple[Any, int]]:
    """(what is public, length of a seat's view) at every decision of a random game."""
    rng = random.Random(seed)
    config = GameConfig(players, load_dice_set(edition), Variant.STANDARD, 0)
    names = [f"P{i}" for i in range(players)]
    table = Table(config, [SeatSpec(n, "random") for n in names],
                  FairChance(rng.randbytes(32)), "b")
    table.start()
    out = []
    while not table.is_over():
        for seat in range(players):
            facts = TableFacts("t", "playing", edition, "standard",
                               [{"name": n, "bot": "random", "connected": True,
                                 "autoplay": None} for n in names], None, "c" * 64,
                               table.to_act(), None, {})
            view = table.view(seat)
            spectator = dumps(view_message(facts, table.view(None), None, None, 1))
            mine = dumps(view_message(facts, view, seat, table.turn(seat), 1))
            public = (spectator, seat, table.turn(seat), view.has_bid, view.bids[seat])
            out.append((public, len(mine.encode())))
        acting = table.to_act()[0]
        table.act(acting, table.bot_decision(acting))
    return out


@pytest.mark.parametrize(("players", "edition"), [(3, "mino"), (4, "skull-king")])
def test_a_seat_view_is_as_long_whatever_dice_it_holds(players: int, edition: str) -> None:
    """Many deals that look the same from outside (the spectator's view, the seat's own
    bid): the seat's view must have the same length in all of them. Round 1 alone makes
    hundreds of such groups (the one die: minotaur, red, gray...)."""
    lengths: dict[Any, set[int]] = {}
    for seed in range(150):
        for public, length in _views(seed, players, edition):
            lengths.setdefault(public, set()).add(length)
    shared = [k for k in lengths if len(lengths[k]) > 1]
    assert not shared, f"{len(shared)} public moments have views of different lengths"
    groups = [k for k in lengths if '"round":1,' in k[0]]
    assert len(groups) >= players, "the test compares nothing"


async def test_the_python_client_commits_and_reveals(start_server: StartServer) -> None:
    """``minodice join``'s client: the seed's hash at join, the seed when the view asks."""
    server = start_server()
    created = await create_table(server.base, players=3, bots=[None, None, "random"])
    url = f"{server.base}/t/{created['table']}"
    tickets = [await join(url, name, commit=True) for name in ("Ana", "Ben")]
    assert server.get(f"/api/tables/{created['table']}")["status"] == "waiting"

    def decide(view: dict[str, Any]) -> str:
        return str(view["legal"][0])

    finals = await asyncio.wait_for(asyncio.gather(*(play(t, decide) for t in tickets)), 120)
    assert finals[0]["status"] == "finished"
    fair = server.get(f"/api/tables/{created['table']}/record")["fairness"]
    assert fair["client_seeds"][:2] == [t.seed for t in tickets]
    assert fair["replaced"] == []


async def test_a_restarted_server_still_waits_for_the_reveals(tmp_path: Path) -> None:
    """Killed while seeds are being revealed: started again, the table still waits for
    them (with a whole period again), and the reveal starts it."""
    path = tmp_path / "tables.db"
    settings = Settings(bot_delay=0, grace=3600.0, reveal_seconds=3600.0)
    store = Store.sqlite(path)
    first = Lobby(store, InProcessPool(3), settings)
    room, _host = await first.create(3, "mino", "standard", [None, None, "easy"], None, False)
    _a, token_a, _ = await first.join(room.id, "Ana", None, None, seed_hash("a"))
    _b, token_b, _ = await first.join(room.id, "Ben", None, None, seed_hash("b"))
    await first.reveal(room.id, token_a, "a")
    await first.close()
    store.close()
    store = Store.sqlite(path)
    again = Lobby(store, InProcessPool(3), settings)
    try:
        assert await again.resume_all() == 1
        resumed = again.room(room.id)
        assert resumed.reveals.active()
        assert last_view(resumed, None)["reveal"]["pending"] == [1]
        await again.reveal(room.id, token_b, "b")
        assert resumed.row.status == "playing"
        assert resumed.fairness().client_seeds == ("a", "b", "")
    finally:
        await again.close()
        store.close()


async def test_a_table_from_before_fair_2_plays_and_verifies_as_fair_1(lobby: Lobby) -> None:
    """A table stored by an older server (no ``fair`` in its settings) keeps its scheme."""
    room, _host = await lobby.create(3, "mino", "standard", [None, "easy", "easy"], None, False)
    old = {k: v for k, v in room.row.settings.stored().items() if k != "fair"}
    room.row.settings = TableSettings.load(old, 3)
    await lobby.join(room.id, "Ana", "old seed")
    record = await finished(room)
    assert record["fairness"] == {"scheme": "minodice-fair-1", "commit": room.row.commit,
                                  "server_seed": room.row.server_seed,
                                  "client_seeds": ["old seed", "", ""]}
    assert verify_record(record).scheme == "minodice-fair-1"


async def test_a_reveal_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    """The disk is full when the last seed is revealed: the answer says so, the table still
    waits for that seed, nobody was shown a start; told again once the disk has room, it
    starts."""
    from .test_write_faults import FlakyStore

    store = FlakyStore.sqlite(tmp_path / "tables.db")
    assert isinstance(store, FlakyStore)
    lobby = Lobby(store, InProcessPool(4), Settings(bot_delay=0, grace=3600.0,
                                                    reveal_seconds=3600.0))
    try:
        room, _host = await lobby.create(3, "mino", "standard", [None, None, "easy"], None,
                                         False)
        await lobby.join(room.id, "Ana", "plain")
        _b, token_b, _ = await lobby.join(room.id, "Ben", None, None, seed_hash("b"))
        seq = room.row.seq
        store.failing = True
        with pytest.raises(ApiError, match="cannot reach its storage"):
            await lobby.reveal(room.id, token_b, "b")
        assert room.reveals.active()
        assert room.row.seq == seq
        assert room.table is None
        store.failing = False
        await lobby.reveal(room.id, token_b, "b")
        assert room.row.status == "playing"
        assert room.fairness().client_seeds == ("plain", "b", "")
    finally:
        await lobby.close()
        store.close()


async def test_a_name_that_is_no_text_is_refused_before_it_reaches_the_key(
        lobby: Lobby) -> None:
    """Names are bound into the fair-2 key as UTF-8: a lone surrogate (valid JSON, no
    text) would make the last join fail inside the start; it is refused at the door."""
    room, _host = await lobby.create(3, "mino", "standard", [None, "easy", "easy"], None,
                                     False)
    with pytest.raises(ApiError, match="a name must be text"):
        await lobby.join(room.id, "Ana\ud800", "s")
    await lobby.join(room.id, "Ana", "s")
    assert room.row.status == "playing"
