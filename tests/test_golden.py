"""Golden files: the current program reproduces every stored `minodice replay` output.

The files in ``tests/golden`` are written by ``tests/golden/regenerate.py``. Each record
``NAME.json`` comes with the exact standard output of ``minodice replay NAME.json``
(``NAME.txt``) and of ``minodice replay --json NAME.json`` (``NAME.summary.json``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minodice.core.record import dumps_record, parse_record, summarize

GOLDEN = Path(__file__).parent / "golden"
RECORDS = sorted(
    p for p in GOLDEN.glob("*.json")
    if not p.name.endswith(".summary.json") and not p.name.startswith(".")
)
NAMES = [p.name.removesuffix(".json") for p in RECORDS]


def replay(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "minodice.cli", "replay", *args],
                          capture_output=True, env=env, check=False, timeout=120)


def test_the_golden_set_is_complete() -> None:
    # Seeded games for 3, 4, 5 and 6 players, both editions and both variants, an
    # unfinished game and the hand-written bonus record; each with both outputs.
    assert len(RECORDS) >= 6
    for name in NAMES:
        assert (GOLDEN / f"{name}.txt").is_file(), name
        assert (GOLDEN / f"{name}.summary.json").is_file(), name
    records = [json.loads(p.read_text(encoding="utf-8")) for p in RECORDS]
    assert {len(r["players"]) for r in records} == {3, 4, 5, 6}
    assert {r["dice_set"] for r in records} == {"mino", "skull-king"}
    assert {r["variant"] for r in records} == {"standard", "simplified"}
    summaries = [json.loads((GOLDEN / f"{n}.summary.json").read_bytes()) for n in NAMES]
    assert any(s["complete"] for s in summaries)
    assert any(not s["complete"] for s in summaries)


@pytest.mark.parametrize("name", NAMES)
def test_replay_text_is_unchanged(name: str) -> None:
    proc = replay(str(GOLDEN / f"{name}.json"))
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    assert proc.stdout == (GOLDEN / f"{name}.txt").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_replay_json_is_unchanged(name: str) -> None:
    proc = replay("--json", str(GOLDEN / f"{name}.json"))
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stderr == b""
    assert proc.stdout == (GOLDEN / f"{name}.summary.json").read_bytes()


@pytest.mark.parametrize("name", NAMES)
def test_golden_summary_agrees_with_the_library(name: str) -> None:
    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    loaded = parse_record(text)
    expected = json.loads((GOLDEN / f"{name}.summary.json").read_bytes())
    assert summarize(loaded.state, loaded.players) == expected


@pytest.mark.parametrize("name", NAMES)
def test_golden_record_is_in_the_written_form(name: str) -> None:
    # The stored record is exactly what dumps_record writes for it.
    text = (GOLDEN / f"{name}.json").read_text(encoding="utf-8")
    assert dumps_record(json.loads(text)) == text


def test_golden_files_are_up_to_date() -> None:
    # The seeded games are still the same games (same seed, same game, across versions)
    # and the script would write exactly the stored files.
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run([sys.executable, str(GOLDEN / "regenerate.py"), "--check"],
                          capture_output=True, env=env, check=False, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
