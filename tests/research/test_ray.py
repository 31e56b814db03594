"""Tournaments on Ray: the same results as on this machine, for the same seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from minodice.bots.protocol import BotError
from minodice.play.match import GameResult
from minodice.play.tournament import TournamentSpec, run_games

ray = pytest.importorskip("ray", reason="the research extra is not installed "
                          "(pip install -e '.[research]', or make research-test)")

# Each test starts a real Ray instance (tens of seconds here): make check leaves them out.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE_FILE = "tests/plugins/outside_bot.py:FirstLegalBot"


def outcome(results: list[GameResult]) -> list[tuple[Any, ...]]:
    """Everything about the games except the clock."""
    return [(r.index, r.seat_bots, r.totals, r.winners, r.bids_made, r.bids, r.made_by_round)
            for r in results]


@pytest.fixture(scope="module")
def local_ray() -> Any:
    """A local Ray instance of 2 CPUs for this module's tests, stopped after them."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             _node_ip_address="127.0.0.1")
    yield ray
    ray.shutdown()


def test_a_tournament_on_ray_is_the_local_tournament(local_ray: Any) -> None:
    spec = TournamentSpec(4, ("medium", "easy", "random", OUTSIDE_FILE), 12, 42)
    here = run_games(spec)
    progress: list[int] = []
    there = run_games(spec, workers=2, on_progress=progress.append, ray_address="auto")
    assert [r.index for r in there] == list(range(12))
    assert outcome(there) == outcome(here)
    assert progress[-1] == 12
    assert progress == sorted(progress)


def test_records_of_a_tournament_on_ray_are_the_local_records(local_ray: Any) -> None:
    spec = TournamentSpec(3, ("medium", "easy", "random"), 6, 7, records=True)
    here: dict[int, dict[str, Any]] = {}
    there: dict[int, dict[str, Any]] = {}
    local = run_games(spec, on_record=here.__setitem__)
    remote = run_games(spec, workers=2, ray_address="auto", on_record=there.__setitem__)
    assert sorted(there) == list(range(6))
    assert there == here
    assert all(r.record is None for r in remote)
    assert outcome(remote) == outcome(local)


def test_a_broken_bot_on_ray_is_named(local_ray: Any) -> None:
    spec = TournamentSpec(3, ("random", "easy", "tests/plugins/broken_bots.py:RaisingBot"), 3, 1)
    with pytest.raises(BotError, match=r"broken_bots\.py:RaisingBot"):
        run_games(spec, workers=2, ray_address="auto")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "minodice.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_tournament_cli_with_ray_local_gives_the_same_report() -> None:
    args = ("tournament", "--players", "3", "--bots", "easy,random,medium", "--games", "6",
            "--seed", "9", "--json", "--workers", "2")
    reports = []
    for extra in ((), ("--ray", "local")):
        done = cli(*args, *extra)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        reports.append([{k: v for k, v in bot.items() if not k.startswith("decision_ms")}
                        for bot in data["bots"]])
    assert reports[0] == reports[1]


def test_without_ray_the_option_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    spec = TournamentSpec(3, ("random", "random", "random"), 3, 1)
    with pytest.raises(BotError, match=r"--ray needs Ray: pip install 'minodice\[research\]'"):
        run_games(spec, ray_address="auto")
