"""The server's side of the replay viewer, the game analysis and handing a seat over
(server/replays.py): the analysis of a finished game runs on its own workers a round at a
time with progress, is computed once, is refused for a game still played and is limited
like the other heavy routes; a person's seat goes to the stand-in on request; the replay
page is served at its addresses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient

from minodice.core.record import parse_record, summarize
from minodice.server.app import Caps, create_app
from minodice.server.botpool import BotPool
from minodice.server.replays import Analyses, decisions_per_round
from minodice.server.room import Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool

T = TypeVar("T")


class CountingPool(BotPool):
    """The analysis's workers, in a thread of this process: counts its jobs (no worker
    processes: the analysis code is the same, only where it runs differs)."""

    def __init__(self) -> None:  # no processes: no super().__init__
        self.jobs: list[tuple[Any, ...]] = []

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        self.jobs.append(args)
        return await asyncio.to_thread(fn, *args)

    def close(self) -> None:
        return None


@pytest.fixture
def analysis_pool() -> CountingPool:
    return CountingPool()


@pytest.fixture
def client(tmp_path: Path, analysis_pool: CountingPool) -> Iterator[TestClient]:
    caps = Caps(advice_burst=3, advice_rate=0.001, refusal_delay=0.0)
    app = create_app(Store.sqlite(tmp_path / "t.db"), Settings(bot_delay=0, grace=3600.0),
                     InProcessPool(0), http_rate=1e9, http_burst=1e9, caps=caps,
                     analyses=Analyses(analysis_pool, samples=3, running=10))
    with TestClient(app) as test_client:
        yield test_client


def wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60  # a hang guard, not a measure
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen"
        time.sleep(0.02)


def finished_table(client: TestClient, players: int = 3) -> str:
    table: str = client.post("/api/tables", json={"players": players,
                                                  "bots": ["easy"] * players}).json()["table"]
    wait_until(lambda: client.get(f"/api/tables/{table}").json()["status"] == "finished",
               "the bots' game")
    return table


def test_the_analysis_of_a_finished_game_shows_progress_and_is_computed_once(
        client: TestClient, analysis_pool: CountingPool) -> None:
    table = finished_table(client)
    assert client.get(f"/api/tables/{table}/analysis").status_code == 404  # never asked
    record = client.get(f"/api/tables/{table}/record").json()
    per_round = decisions_per_round(record)
    started = client.post(f"/api/tables/{table}/analysis")
    assert started.status_code in (200, 202)
    assert started.json()["total"] == sum(per_round)
    seen: list[dict[str, Any]] = []

    def done() -> bool:
        answer = client.get(f"/api/tables/{table}/analysis").json()
        seen.append(answer)
        return bool(answer["status"] == "done")

    wait_until(done, "the analysis")
    assert all(a["status"] in ("running", "done") for a in seen)
    assert [a["done"] for a in seen] == sorted(a["done"] for a in seen)  # never backwards
    result = seen[-1]
    assert result["done"] == result["total"]
    analysis = result["analysis"]
    rounds = len(record["rounds"])
    assert len(analysis_pool.jobs) == rounds  # one job a round, on the analysis's workers
    assert analysis["players"] == record["players"]
    bids = [d for d in analysis["decisions"] if d["kind"] == "bid"]
    assert sorted((d["round"], d["seat"]) for d in bids) == \
        [(r, s) for r in range(1, rounds + 1) for s in range(3)]
    for d in bids:
        assert d["chosen"] == str(record["rounds"][d["round"] - 1]["bids"][d["seat"]])
        assert d["loss"] >= 0
    rolls = [d for d in analysis["decisions"] if d["kind"] == "roll"]
    assert rolls
    for d in rolls:
        trick = record["rounds"][d["round"] - 1]["tricks"][d["trick"] - 1]
        assert d["chosen"] == next(r["die"] for r in trick if r["player"] == d["seat"])
    assert [s["seat"] for s in analysis["summary"]] == [0, 1, 2]

    again = client.post(f"/api/tables/{table}/analysis")
    assert again.status_code == 200
    assert again.json()["analysis"] == analysis
    assert len(analysis_pool.jobs) == rounds  # kept, not computed again


def test_a_restarted_server_gives_the_kept_analysis_without_computing_it(
        tmp_path: Path) -> None:
    """The analysis is kept in the store: a new server on the same database answers at
    once with the same result, and its workers do nothing."""
    settings = Settings(bot_delay=0, grace=3600.0)

    def server(pool: CountingPool) -> TestClient:
        return TestClient(create_app(Store.sqlite(tmp_path / "t.db"), settings,
                                     InProcessPool(0), http_rate=1e9, http_burst=1e9,
                                     analyses=Analyses(pool, samples=3, running=10)))

    first_pool = CountingPool()
    with server(first_pool) as first:
        table = finished_table(first)
        first.post(f"/api/tables/{table}/analysis")
        wait_until(lambda: first.get(f"/api/tables/{table}/analysis").json()["status"]
                   == "done", "the analysis")
        analysis = first.get(f"/api/tables/{table}/analysis").json()
    assert first_pool.jobs

    second_pool = CountingPool()
    with server(second_pool) as second:
        kept = second.get(f"/api/tables/{table}/analysis")  # a GET finds it too
        assert kept.status_code == 200
        assert kept.json() == analysis
        again = second.post(f"/api/tables/{table}/analysis")
        assert again.status_code == 200
        assert again.json() == analysis
    assert second_pool.jobs == []  # nothing computed again

    other_pool = CountingPool()  # a server with other samples computes its own figures
    with TestClient(create_app(Store.sqlite(tmp_path / "t.db"), settings, InProcessPool(0),
                               http_rate=1e9, http_burst=1e9,
                               analyses=Analyses(other_pool, samples=4))) as other:
        assert other.get(f"/api/tables/{table}/analysis").status_code == 404
    assert other_pool.jobs == []


def test_the_analysis_is_refused_before_the_end_and_limited(client: TestClient) -> None:
    waiting = client.post("/api/tables", json={"players": 3, "bots": [None, "easy", "easy"]}
                          ).json()["table"]
    for method in ("POST", "GET"):
        refused = client.request(method, f"/api/tables/{waiting}/analysis")
        assert refused.status_code == 409
        assert refused.json()["error"]["code"] == "conflict"
    assert client.post("/api/tables/nosuchtable/analysis").status_code == 404
    tables = [finished_table(client) for _ in range(4)]
    answers = [client.post(f"/api/tables/{t}/analysis").status_code for t in tables]
    assert all(a in (200, 202) for a in answers[:3])
    assert answers[3] == 429  # the advisor's limit: 3 at once from one address


def test_a_record_sent_from_a_file_is_analysed_once_as_a_tables_record_would_be(
        client: TestClient, analysis_pool: CountingPool, tmp_path: Path) -> None:
    """``POST /api/analyses``: the replay viewer's file. The same game sent again (other
    notes, other spacing) is the same analysis, computed once; it equals the table's own
    analysis of that game; it is not kept in the store (nobody's uploads fill it)."""
    table = finished_table(client)
    record = client.get(f"/api/tables/{table}/record").json()
    rounds = len(record["rounds"])
    started = client.post("/api/analyses", content=json.dumps(record))
    assert started.status_code == 202, started.text
    key = started.json()["id"]
    assert key.startswith("upload-")
    assert started.json()["total"] == sum(decisions_per_round(record))
    wait_until(lambda: client.get(f"/api/analyses/{key}").json()["status"] == "done",
               "the analysis")
    done = client.get(f"/api/analyses/{key}").json()
    assert done["id"] == key
    assert len(analysis_pool.jobs) == rounds
    noted = {**record, "note": "from my phone", "fairness": None}
    again = client.post("/api/analyses", content=json.dumps(noted, indent=2).encode())
    assert again.status_code == 200
    assert again.json() == done
    assert len(analysis_pool.jobs) == rounds  # not computed again

    client.post(f"/api/tables/{table}/analysis")
    wait_until(lambda: client.get(f"/api/tables/{table}/analysis").json()["status"]
               == "done", "the table's analysis")
    assert client.get(f"/api/tables/{table}/analysis").json()["analysis"] == done["analysis"]
    with contextlib.closing(sqlite3.connect(tmp_path / "t.db")) as db:
        assert db.execute("SELECT table_id FROM analyses").fetchall() == [(table,)]


def test_a_record_sent_for_analysis_that_is_not_one_is_refused_clearly(
        client: TestClient, analysis_pool: CountingPool) -> None:
    table = finished_table(client)
    record = client.get(f"/api/tables/{table}/record").json()
    broken = json.loads(json.dumps(record))
    broken["rounds"][0]["bids"][0] = 5  # more than the round's one trick
    bidding = {**record, "rounds": [{k: v for k, v in record["rounds"][0].items()
                                     if k in ("hands",)}]}
    for body, phrase in [(b"", "the record is empty"), (b"\xff\xfe", "UTF-8"),
                         (b"[1, 2", "not JSON"), (json.dumps(broken).encode(), "bid"),
                         (json.dumps(bidding).encode(), "no decision yet")]:
        refused = client.post("/api/analyses", content=body)
        assert refused.status_code == 400, (body[:40], refused.text)
        assert refused.json()["error"]["code"] == "bad_request"
        assert phrase in refused.json()["error"]["message"]
    huge = json.dumps({**record, "note": "x" * 70_000}).encode()
    assert client.post("/api/analyses", content=huge).status_code == 413
    assert client.post(f"/api/tables/{table}/seats",  # other bodies keep their small cap
                       json={"name": "x" * 5000}).status_code == 413
    for key in ("upload-0", table, "nosuch"):
        missing = client.get(f"/api/analyses/{key}")
        assert missing.status_code == 404
        assert "send the record again" in missing.json()["error"]["message"]
    assert analysis_pool.jobs == []


def test_record_uploads_are_one_at_a_time_per_address(client: TestClient) -> None:
    """Each new analysis costs minutes of a worker, and records that differ by a name are
    new analyses: one address has one running at a time (then 429); asking again for the
    one under way costs nothing, and a table's own analysis still starts meanwhile."""
    table = finished_table(client)
    record = client.get(f"/api/tables/{table}/record").json()

    def renamed(i: int) -> dict[str, Any]:
        return {**record, "players": [f"{p}{i}" for p in record["players"]]}

    first = client.post("/api/analyses", json=renamed(0))
    assert first.status_code == 202
    second = client.post("/api/analyses", json=renamed(1))
    if client.get(f"/api/analyses/{first.json()['id']}").json()["status"] == "running":
        assert second.status_code == 429, second.text
        assert "one record's analysis at a time" in second.json()["error"]["message"]
    assert client.post("/api/analyses", json=renamed(0)).status_code in (200, 202)
    assert client.post(f"/api/tables/{table}/analysis").status_code in (200, 202)


def test_a_person_hands_their_seat_to_the_stand_in(client: TestClient) -> None:
    table = client.post("/api/tables", json={"players": 3, "bots": [None, "easy", "easy"]}
                        ).json()["table"]
    seat = client.post(f"/api/tables/{table}/seats",
                       json={"name": "Ana", "client_seed": "ana"}).json()
    assert seat["seat"] == 0
    info = client.get(f"/api/tables/{table}").json()
    assert info["status"] == "playing"
    assert info["players"][0]["autoplay"] is None  # her grace period is an hour
    stranger = client.post(f"/api/tables/{table}/away", json={"token": "x" * 30})
    assert stranger.status_code == 403
    handed = client.post(f"/api/tables/{table}/away", json={"token": seat["token"]})
    assert handed.status_code == 200, handed.text
    wait_until(lambda: client.get(f"/api/tables/{table}").json()["status"] == "finished",
               "the stand-in's game")
    record = client.get(f"/api/tables/{table}/record").json()
    loaded = parse_record(json.dumps(record))
    assert summarize(loaded.state, loaded.players)["complete"]
    again = client.post(f"/api/tables/{table}/away", json={"token": seat["token"]})
    assert again.status_code == 409  # the game is over


@pytest.mark.parametrize("path", ["/replay", "/replay/abc123"])
def test_the_replay_page_is_served(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    assert '<script type="module" src="/static/app.js">' in answer.text


def test_a_table_by_the_open_rules_plays_and_records_by_them(client: TestClient) -> None:
    """``"rule_options"`` when a table is made: its views and info say so, its game is
    played by them (one start player for every round) and its record keeps them. A
    default table's views and record do not name them, its info says null."""
    options = {"start": "fixed", "special_lead": "no-colour"}
    table = client.post("/api/tables", json={"players": 3, "bots": ["easy"] * 3,
                                             "rule_options": options}).json()["table"]
    wait_until(lambda: client.get(f"/api/tables/{table}").json()["status"] == "finished",
               "the bots' game")
    info = client.get(f"/api/tables/{table}").json()
    assert info["rule_options"] == options
    record = client.get(f"/api/tables/{table}/record").json()
    assert record["rule_options"] == options
    summary = summarize(parse_record(json.dumps(record)).state, record["players"])
    assert len({r["starter"] for r in summary["rounds"]}) == 1
    half = client.post("/api/tables", json={"players": 3, "bots": ["easy"] * 3,
                                            "rule_options": {"start": "fixed"}}).json()
    half_info = client.get(f"/api/tables/{half['table']}").json()
    assert half_info["rule_options"] == {"start": "fixed", "special_lead": "first-number"}
    plain = finished_table(client)
    assert client.get(f"/api/tables/{plain}").json()["rule_options"] is None
    assert "rule_options" not in client.get(f"/api/tables/{plain}/record").json()
    for wrong in ({"start": "left"}, {"special_lead": True}, "fixed"):
        refused = client.post("/api/tables", json={"players": 3, "rule_options": wrong})
        assert refused.status_code == 400, wrong
        assert refused.json()["error"]["code"] == "bad_request"
