"""What an operator watches (issue #17): ``/healthz``, ``/readyz``, Prometheus ``/metrics``
(tables, connections, actions, the server-side latency of an action, bot queues and
decision times), in this process on the real app.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from typer.testing import CliRunner

from live_server import free_port
from minodice.cli import app as cli_app
from minodice.play.table import new_table
from minodice.server.app import Caps, create_app
from minodice.server.botpool import BotPool
from minodice.server.lobby import Lobby
from minodice.server.ops import registry_for
from minodice.server.room import Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool
from .test_live import Conn
from .test_live import acted as decisions_in


def metrics(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``, by name and labels."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.text)
            for s in family.samples}


def app_on(store: Store, pool: BotPool | None = None) -> Any:
    return create_app(store, Settings(bot_delay=0, grace=3600.0), pool or InProcessPool(2),
                      caps=Caps(expire_waiting=10.0**12), advice_pool=InProcessPool(1))


def test_alive_and_ready_and_unready_when_the_schema_is_not_current(tmp_path: Path) -> None:
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    with TestClient(app_on(store)) as client:
        alive = client.get("/healthz")
        assert (alive.status_code, alive.json()) == (200, {"status": "alive"})
        ready = client.get("/readyz")
        assert (ready.status_code, ready.json()["status"]) == (200, "ready")
        # An older release's schema (another process has not upgraded it yet, or someone
        # downgraded it): not ready, and why.
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE alembic_version SET version_num = 'r0002'"))
        unready = client.get("/readyz")
        assert unready.status_code == 503
        assert unready.json()["status"] == "unready"
        assert "r0002" in unready.json()["store"]
        assert client.get("/healthz").status_code == 200  # alive all the same
        # Operators' endpoints are not part of the game's API.
        paths = client.get("/openapi.json").json()["paths"]
        assert not {"/healthz", "/readyz", "/metrics"} & set(paths)


def test_unready_while_the_disk_of_a_sqlite_store_is_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk refused every move ("unavailable") while /readyz said ready: an
    operator's monitor saw nothing wrong. It says why now, and is ready once there is room."""
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    free = [0]
    real = shutil.disk_usage
    folder = tmp_path.absolute()

    def disk_usage(path: Any) -> Any:
        if Path(path) == folder:
            return usage(10**9, 10**9 - free[0], free[0])
        return real(path)

    monkeypatch.setattr(shutil, "disk_usage", disk_usage)
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    with TestClient(app_on(store)) as client:
        unready = client.get("/readyz")
        assert unready.status_code == 503
        assert unready.json()["store"] == ("the disk of the database is full (0 bytes free): "
                                           "moves cannot be saved")
        free[0] = 10**8
        assert client.get("/readyz").status_code == 200


def test_metrics_count_tables_connections_actions_and_their_latency(tmp_path: Path) -> None:
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    with TestClient(app_on(store)) as client:
        before = metrics(client)
        assert before[("minodice_tables", (("status", "playing"),))] == 0
        assert before[("minodice_connections", ())] == 0
        assert ("minodice_bot_queue", (("pool", "bots"),)) in before
        assert ("minodice_bot_queue", (("pool", "advice"),)) in before
        table = client.post("/api/tables", json={"players": 3, "bots": [None, "random",
                                                                          "random"]}).json()
        seat = client.post(f"/api/tables/{table['table']}/seats", json={"name": "Ana"}).json()
        client.post(f"/api/tables/{table['table']}/start",
                    json={"token": table["host_token"]})
        acted = 0
        answered = None
        pending: dict[str, Any] | None = None
        with client.websocket_connect(f"/ws/{table['table']}?token={seat['token']}") as ws:
            while acted < 6:
                message = pending or ws.receive_json()
                pending = None
                if message["type"] != "view" or message["view"]["turn"] in (None, answered):
                    continue
                view = message["view"]
                ws.send_json({"type": "act", "turn": view["turn"],
                              "action": view["legal"][0]})
                answered = view["turn"]
                acted += 1
                while pending is None:  # until the view that shows it (it may ask again)
                    answer = ws.receive_json()
                    assert answer["type"] != "error", answer
                    if answer["type"] == "view" and answer["seq"] > message["seq"]:
                        pending = answer
            during = metrics(client)
        # The server hears of the close a moment after the client made it: read until it
        # has (the gauge must come down, and nothing else ends this loop).
        for _ in range(200):
            after = metrics(client)
            if after[("minodice_connections", ())] == 0:
                break
            time.sleep(0.01)

    def delta(name: str, labels: tuple[tuple[str, str], ...] = ()) -> float:
        return during[(name, labels)] - before.get((name, labels), 0.0)

    assert during[("minodice_tables", (("status", "playing"),))] == 1
    assert during[("minodice_connections", ())] == 1
    assert after[("minodice_connections", ())] == 0
    # Every person's action is one latency sample; bots' actions count as actions too.
    assert delta("minodice_action_latency_seconds_count") == acted
    assert pending is not None
    assert delta("minodice_actions_total") >= decisions_in(pending["view"]) > acted
    assert 0 < delta("minodice_action_latency_seconds_sum") < acted * 5.0
    assert during[("minodice_action_latency_seconds_bucket", (("le", "+Inf"),))] >= acted


async def test_bot_decisions_are_timed_and_the_queue_is_counted() -> None:
    """The real pool (a worker process): each decision is one sample of the histogram;
    jobs beyond the workers wait, and the gauge shows them while they do."""
    view = new_table(4, ["Ana"], ["random"], seed=3).view(0)
    pool = BotPool(workers=1, timeout=30.0)
    registry = registry_for(Lobby(Store("sqlite://"), pool, Settings()), {"bots": pool})

    def sample(name: str, labels: dict[str, str] | None = None) -> float:
        value = registry.get_sample_value(name, labels)
        return 0.0 if value is None else value

    try:
        await pool.warm_up()
        before = sample("minodice_bot_decision_seconds_count")
        decisions = [asyncio.ensure_future(pool.decide("random", view)) for _ in range(5)]
        await asyncio.sleep(0)  # they all ask; one worker: four wait
        waiting = sample("minodice_bot_queue", {"pool": "bots"})
        await asyncio.gather(*decisions)
        assert waiting == 4
        assert sample("minodice_bot_queue", {"pool": "bots"}) == 0
        assert sample("minodice_bot_decision_seconds_count") - before == 5
    finally:
        pool.close()


def test_the_tables_bot_decisions_are_timed(tmp_path: Path) -> None:
    """A table's bots decide through the room's runner, not ``BotPool.decide``: before,
    the histogram the README documents stayed at 0 however many bots played."""
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    with TestClient(app_on(store)) as client:
        before = metrics(client).get(("minodice_bot_decision_seconds_count", ()), 0.0)
        table = client.post("/api/tables", json={"players": 3, "bots": ["random"] * 3}
                            ).json()["table"]
        deadline = time.monotonic() + 60  # a hang guard
        while client.get(f"/api/tables/{table}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        record = client.get(f"/api/tables/{table}/record").json()
        decisions = sum(len(r["bids"]) + sum(len(t) for t in r["tricks"])
                        for r in record["rounds"])
        after = metrics(client)[("minodice_bot_decision_seconds_count", ())]
        assert after - before >= decisions


def test_serve_says_a_read_only_folder_in_words(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """It said "OSError: [Errno 30] Read-only file system: '...'" (Python's words). A real
    read-only mount needs root, so the claim's lock file is refused as one refuses it."""
    import errno

    import minodice.server.claims as claims

    lock = tmp_path / ".games.db.lock"

    def refused(path: Path, wait: float | None = None) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(lock))

    monkeypatch.setattr(claims, "claim_sqlite", refused)
    result = CliRunner().invoke(cli_app, ["serve", "--db", str(tmp_path / "games.db"),
                                          "--port", str(free_port())])
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"minodice serve: cannot open the database {tmp_path / 'games.db'}: Read-only file "
        f"system ({lock}); choose a folder the server may write (--db FILE)")


def test_serve_names_an_unreachable_database_in_one_line_without_its_password() -> None:
    runner = CliRunner()
    result = runner.invoke(cli_app, ["serve", "--db",
                                     "postgresql://ana:s3cret-pw@127.0.0.1:1/minodice"])
    assert result.exit_code == 1
    assert "cannot open the database postgresql+psycopg://ana:***@127.0.0.1:1/minodice: " \
        "OperationalError" in result.output
    assert "s3cret-pw" not in result.output
    assert "Traceback" not in result.output
    wrong = runner.invoke(cli_app, ["serve", "--log-format", "xml"])
    assert wrong.exit_code == 2
    assert "text or json" in wrong.output


def test_serve_on_a_port_in_use_says_so_in_one_line_and_opens_nothing(tmp_path: Path) -> None:
    """A second server on a taken port: one line, exit 1, no traceback, no database made
    (uvicorn alone failed after the worker pools started, which died in a traceback)."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = tmp_path / "server.sqlite3"
        result = CliRunner().invoke(cli_app, ["serve", "--port", str(port), "--db", str(db)])
    assert result.exit_code == 1
    assert result.output == (f"minodice serve: cannot listen on 127.0.0.1:{port}: the port "
                             "is in use (another server?); choose one with --port\n")
    assert not db.exists()
    bad = CliRunner().invoke(cli_app, ["serve", "--host", "no-such-host.invalid"])
    assert bad.exit_code == 1
    assert "no such address (see --host)" in bad.output



def test_serve_refuses_what_only_looks_like_a_database_url(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``mysql://`` or a PostgreSQL URL with one slash used to be taken for a SQLite file's
    name: the server started on a new folder named after it and printed it, password and
    all. Now: one line, exit 2, nothing made, no password."""
    monkeypatch.chdir(tmp_path)
    for db in ("mysql://ana:s3cret-pw@127.0.0.1/minodice",
               "postgresql:/ana:s3cret-pw@127.0.0.1:5432/minodice"):
        result = CliRunner().invoke(cli_app, ["serve", "--db", db])
        assert result.exit_code == 2, result.output
        assert "a SQLite file, or a PostgreSQL URL" in result.output
        assert "s3cret-pw" not in result.output
        assert "Traceback" not in result.output
    # A URL SQLAlchemy cannot read (an @ in the password, a port that is no number) was a
    # traceback that showed part of the password.
    for db in ("postgresql://ana:s3cret@pw:x@127.0.0.1:5432/minodice",
               "postgresql://ana:s3cret-pw@127.0.0.1:5432x/minodice"):
        for command in ("serve", "table"):
            args = [command, "--db", db] if command == "serve" else [command, "t", "--db", db]
            result = CliRunner().invoke(cli_app, args)
            assert result.exit_code == 2, result.output
            assert "not a database URL SQLAlchemy can read" in result.output
            assert "s3cret" not in result.output
            assert result.exception is None or isinstance(result.exception, SystemExit)
    assert list(tmp_path.iterdir()) == []


def test_a_database_url_in_the_environment_is_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """``$MINODICE_DB`` names the store as ``--db`` does: a PostgreSQL URL there was taken
    for a file's name, and refused as a folder that does not exist, password and all."""
    monkeypatch.setenv("MINODICE_DB", "postgresql://ana:s3cret-pw@127.0.0.1:1/minodice")
    served = CliRunner().invoke(cli_app, ["serve"])
    assert served.exit_code == 1, served.output
    assert "cannot open the database postgresql+psycopg://ana:***@127.0.0.1:1/minodice" \
        in served.output
    inspected = CliRunner().invoke(cli_app, ["table", "abc"])
    assert inspected.exit_code == 1, inspected.output
    assert "cannot open the database postgresql+psycopg://ana:***@127.0.0.1:1/minodice" \
        in inspected.output
    for result in (served, inspected):
        assert "s3cret-pw" not in result.output
        assert "Traceback" not in result.output
    monkeypatch.setenv("MINODICE_DB", "mysql://ana:s3cret-pw@127.0.0.1/minodice")
    refused = CliRunner().invoke(cli_app, ["serve"])
    assert refused.exit_code == 2
    assert "--db (from $MINODICE_DB)" in refused.output
    assert "s3cret-pw" not in refused.output


def test_serve_with_redis_needs_postgresql_and_a_redis_that_answers(tmp_path: Path) -> None:
    """Several processes on SQLite files of their own would serve tables the others cannot
    read; a Redis left stopped was an application's start-up traceback."""
    on_sqlite = CliRunner().invoke(cli_app, ["serve", "--db", str(tmp_path / "s.sqlite3"),
                                             "--redis", "redis://127.0.0.1:1/0"])
    assert on_sqlite.exit_code == 2
    assert "needs a PostgreSQL --db" in on_sqlite.output
    assert not (tmp_path / "s.sqlite3").exists()
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    stopped = CliRunner().invoke(cli_app, [
        "serve", "--db", "postgresql://ana:s3cret-pw@127.0.0.1:1/minodice",
        "--redis", f"redis://:r3dis-pw@127.0.0.1:{port}/0"])
    assert stopped.exit_code == 1
    assert f"Redis does not answer at redis://:***@127.0.0.1:{port}/0: " in stopped.output
    assert "s3cret-pw" not in stopped.output
    assert "r3dis-pw" not in stopped.output
    assert "Traceback" not in stopped.output
    assert "ready" not in stopped.output


def test_serve_refuses_a_database_in_a_folder_that_does_not_exist(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A typo in ``--db`` (or ``$MINODICE_DB``) made its whole tree of folders and started
    on an empty database there: now a usage error naming the folder, nothing made. (Its
    port is taken: were it not refused, the server would stop there, not run.)"""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for db, env, said in (
                ("tabels/2026/t.db", {}, "the folder tabels/2026 does not exist"),
                ("a-file/t.db", {}, "a-file is not a folder"),
                (None, {"MINODICE_DB": "tabels/t.db"}, "the folder tabels does not exist")):
            result = CliRunner().invoke(
                cli_app, ["serve", "--port", port, *(["--db", db] if db else [])], env=env)
            assert result.exit_code == 2, result.output
            shown = " ".join(result.output.replace("│", " ").split())  # out of its box
            assert said in shown, shown
            assert ("(from $MINODICE_DB)" in shown) == (db is None)
            assert "Traceback" not in shown
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def served_lines(stream: bytes) -> list[dict[str, Any]]:
    """Each line of a server's output, parsed: the test fails on one that is no JSON."""
    lines = []
    for line in stream.decode().splitlines():
        try:
            lines.append(json.loads(line))
        except ValueError:
            pytest.fail(f"a line that is no JSON: {line!r}")
    return lines


async def test_serve_with_json_logs_writes_only_json_lines_and_debug_tells_more(
        tmp_path: Path) -> None:
    """``--log-format json``: every line ``minodice serve`` writes is a JSON log record
    on stderr, its "ready" line included (it was plain text on both streams), and nothing
    is written on stdout. ``--log-level debug`` adds tables' and connections' comings and
    goings, never a token nor a decision's content. With no ``--db`` and no
    ``$MINODICE_DB`` its database goes in the user's data folder, made as needed."""
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if k != "MINODICE_DB"}
    env.update(XDG_DATA_HOME=str(data), HOME=str(tmp_path / "home"))
    port = free_port()
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "minodice", "serve", "--port", str(port), "--bot-workers",
             "1", "--bot-delay", "0", "--log-format", "json", "--log-level", "debug"],
            stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, env=env,
            start_new_session=True)
    secrets: list[str] = []
    try:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=20) as http:
            deadline = time.monotonic() + 60  # a hang guard
            while True:
                assert proc.poll() is None, err.read_text()
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get("/readyz")).status_code == 200:
                        break
                assert time.monotonic() < deadline, err.read_text()
                await asyncio.sleep(0.1)
            table = (await http.post("/api/tables", json={
                "players": 3, "bots": [None, "random", "random"]})).json()
            seat = (await http.post(f"/api/tables/{table['table']}/seats",
                                    json={"name": "Ana"})).json()
            secrets += [table["host_token"], seat["token"]]
            ws = f"ws://127.0.0.1:{port}/ws/{table['table']}"
            watcher = await Conn.open(ws)
            ana = await Conn.open(f"{ws}?token={seat['token']}")
            view = await ana.my_turn()
            action = await ana.answer(view, random.Random(1))
            await ana.next_view(lambda v: v["turn"] != view["turn"])
            await ana.close()
            await watcher.close()
            # the server hears of the closes: waited for in its log (a fixed pause was too
            # short on a busy machine)
            while b"a connection closed (spectator; 0 open)" not in err.read_bytes():
                assert time.monotonic() < deadline + 60, err.read_text()
                await asyncio.sleep(0.1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGINT)  # as Ctrl+C: its lines to the end
        try:
            proc.wait(timeout=30)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    assert out.read_bytes() == b""
    records = served_lines(err.read_bytes())
    messages = [str(r["message"]) for r in records]
    ready = next(r for r in records if r["message"].startswith("Mino Dice is ready at"))
    assert (ready["level"], ready["url"]) == ("INFO", f"http://127.0.0.1:{port}/")
    assert ready["store"] == str(data / "minodice" / "server.sqlite3")
    assert (data / "minodice" / "server.sqlite3").is_file()  # the default folder: made
    tid = table["table"]
    for wanted in (f"table {tid} created: 3 seats, 2 of them bots, private",
                   f"table {tid}: seat 0 taken", f"table {tid} is playing now",
                   f"table {tid}: a connection opened (spectator; 1 open)",
                   f"table {tid}: a connection opened (seat 0; 2 open)",
                   f"table {tid}: a connection closed (seat 0; 1 open)",
                   "action applied"):
        assert wanted in messages, (wanted, messages)
    assert all(r.get("table") == tid for r in records if tid in r["message"])
    text = err.read_text()
    assert not any(secret in text for secret in secrets)
    assert action not in text  # a decision's content is the table's, not the log's
    assert "Traceback" not in text


async def started_json_server(tmp_path: Path, start_new_session: bool = False
                              ) -> tuple[subprocess.Popen[bytes], int, Path]:
    """``minodice serve`` on ``tmp_path/t.db`` with two bot workers and JSON logs (its
    stderr in ``tmp_path/stderr``), once it is ready: its process, port and log."""
    port = free_port()
    err = tmp_path / "stderr"
    with err.open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "minodice", "serve", "--port", str(port), "--db",
             str(tmp_path / "t.db"), "--bot-workers", "2", "--log-format", "json"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=start_new_session)
    try:
        async with httpx.AsyncClient(timeout=5) as http:
            deadline = time.monotonic() + 60  # a hang guard
            while True:
                assert proc.poll() is None, err.read_text()
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                        return proc, port, err
                assert time.monotonic() < deadline, err.read_text()
                await asyncio.sleep(0.02)
    except BaseException:
        proc.kill()
        raise


async def test_ctrl_c_while_the_bot_workers_start_writes_no_traceback(tmp_path: Path) -> None:
    """The bot workers start once the server is ready, and each took a second or more to
    import its modules before it ignored Ctrl+C: a Ctrl+C then (sent to the whole process
    group, as a terminal does) printed a KeyboardInterrupt traceback from every worker,
    plain text among the JSON log lines. The server still ends as asked."""
    proc, _port, err = await started_json_server(tmp_path, start_new_session=True)
    try:
        os.killpg(proc.pid, signal.SIGINT)  # while the workers import
        assert proc.wait(timeout=30) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    lines = err.read_bytes().splitlines()
    assert lines
    for line in lines:
        assert line.startswith(b"{"), line
        assert json.loads(line), line


async def test_a_server_stopped_by_sigterm_ends_cleanly_and_lets_go_of_its_database(
        tmp_path: Path) -> None:
    """SIGTERM (a service manager's stop): uvicorn stops gracefully, then sent the signal
    again to the default handler, which ended the process before its claim's lock file was
    removed (left beside the database) and before the bot pools' semaphores were let go
    (multiprocessing's tracker printed a plain-text warning among the JSON lines). Now it
    ends as asked, exit 0, with nothing left and nothing but JSON said."""
    proc, port, err = await started_json_server(tmp_path)
    try:
        async with httpx.AsyncClient(timeout=5) as http:
            answer = await http.post(f"http://127.0.0.1:{port}/api/tables",
                                     json={"players": 3, "bots": ["easy"] * 3})
            assert answer.status_code == 201, answer.text
        assert (tmp_path / ".t.db.lock").exists()
        await asyncio.sleep(2)  # the workers up and playing
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
    time.sleep(0.5)  # the resource tracker, a process of its own, speaks as it ends
    assert not (tmp_path / ".t.db.lock").exists()
    for line in err.read_bytes().splitlines():
        assert line.startswith(b"{"), line


def test_serve_with_json_logs_says_why_it_cannot_start_in_json(tmp_path: Path) -> None:
    """A failure to start is a log record too (an error), not a plain line."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "minodice", "serve", "--port", str(port), "--db",
             str(tmp_path / "t.db"), "--log-format", "json"],
            capture_output=True, timeout=120, check=False)
    assert proc.returncode == 1
    assert proc.stdout == b""
    [record] = served_lines(proc.stderr)
    assert record["level"] == "ERROR"
    assert record["message"].startswith(f"cannot listen on 127.0.0.1:{port}: the port is in use")


@pytest.mark.parametrize(("args", "said"), [
    (["--port", "abc"], "usage error: Invalid value for '--port': "),
    (["--read-rate", "nan"], "usage error: Invalid value for --read-rate: nan is not "),
    (["--no-such-option"], "usage error: No such option: --no-such-option"),
])
def test_a_usage_error_with_json_logs_is_a_json_log_record(args: list[str], said: str) -> None:
    """Typer's boxed text among a service manager's JSON lines: now one record, exit 2."""
    for form in (["--log-format", "json"], ["--log-format=json"]):
        proc = subprocess.run([sys.executable, "-m", "minodice", "serve", *form, *args],
                              capture_output=True, timeout=120, check=False)
        assert proc.returncode == 2, proc.stderr
        assert proc.stdout == b""
        [record] = served_lines(proc.stderr)
        assert record["level"] == "ERROR"
        assert record["message"].startswith(said), record


def test_a_second_server_on_one_database_is_refused_naming_the_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second server on a SQLite file started without a word, loaded its unfinished
    tables and served them stale (its players told only "try again"): now it is refused
    before it opens the file, naming the process that holds it. A server killed outright
    lets go of it (its lock is the operating system's)."""
    import minodice.server.claims as claims
    from live_server import servers

    monkeypatch.setattr(claims, "CLAIM_WAIT", 0.5)
    with servers(tmp_path) as start:
        first = start()
        assert first.proc is not None
        table = first.post("/api/tables", {"players": 3})["table"]
        before = (tmp_path / "db1.sqlite3").read_bytes()
        second = CliRunner().invoke(cli_app, ["serve", "--port", str(free_port()),
                                              "--db", str(first.db)])
        assert second.exit_code == 1, second.output
        assert second.output == (
            f"minodice serve: another minodice serve (process {first.proc.pid}) is using the "
            f"database {first.db}: stop it first, or give this one a database of its own "
            "(--db)\n")
        # the same file named as SQLAlchemy's URL is the same file (it was let in)
        # (a process of its own: one let in would serve until the time-out)
        by_url = subprocess.run(
            [sys.executable, "-m", "minodice", "serve", "--port", str(free_port()), "--db",
             f"sqlite:///{first.db}"],
            capture_output=True, text=True, timeout=60, check=False)
        assert by_url.returncode == 1, by_url.stderr
        assert by_url.stderr == second.output
        assert (tmp_path / "db1.sqlite3").read_bytes() == before
        assert first.get(f"/api/tables/{table}")["status"] == "waiting"  # untouched
        first.kill9()
        again = start(db=first.db)  # the lock died with its process
        assert again.get(f"/api/tables/{table}")["status"] == "waiting"


def test_join_says_when_its_server_is_gone_and_when_it_is_back(tmp_path: Path) -> None:
    """``minodice join`` tries again and again while its server is gone (a restart), and
    said nothing meanwhile: a person watching took the silence for a slow game. Now it
    says the connection is lost, once, and that it is back; the game is then played on."""
    from live_server import servers

    def wait_for(text: str, file: Path, what: str) -> None:
        deadline = time.monotonic() + 60  # a hang guard
        while text not in file.read_text():
            assert join.poll() is None, file.read_text()
            assert time.monotonic() < deadline, f"{what}: {file.read_text()}"
            time.sleep(0.05)

    out, err = tmp_path / "join.out", tmp_path / "join.err"
    with servers(tmp_path, options=("--bot-delay", "0.15")) as start:
        server = start()
        table = server.post("/api/tables", {"players": 3, "bots": ["easy", "easy", None]})[
            "table"]
        with out.open("wb") as out_file, err.open("wb") as err_file:
            join = subprocess.Popen(
                [sys.executable, "-m", "minodice", "join", f"{server.base}/t/{table}",
                 "--bot", "random"], stdin=subprocess.DEVNULL, stdout=out_file,
                stderr=err_file)
        try:
            wait_for("seated as", out, "not seated")
            time.sleep(1)  # the game under way
            server.kill9()
            wait_for("[connection] lost", err, "the loss not said")
            time.sleep(1)  # several tries meanwhile
            server.start()
            assert join.wait(timeout=120) == 0, err.read_text()
        finally:
            with contextlib.suppress(ProcessLookupError):
                join.kill()
    said = err.read_text().splitlines()
    assert said.count("[connection] lost; trying again until the server answers (Ctrl+C "
                      "stops)") == 1, said
    assert said.count("[connection] back; playing on") == 1, said
    assert out.read_text().splitlines()[-1].startswith("final: ")
