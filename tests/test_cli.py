"""The `minodice` command line, end to end: `replay` (text and --json) on valid and broken
records, `simulate` (summary, bad options, saved records, determinism, progress bar).

Most cases run the real program in a subprocess (``python -m minodice.cli``); the many
broken-input cases also run in-process through Typer's CliRunner, which shows any
exception that escaped.
"""

from __future__ import annotations

import json
import os
import pty
import random
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from command import in_process
from examples import EXAMPLE_SUMMARY, example_record
from minodice.cli import app
from minodice.core.record import dumps_record, export_record, load_record, summarize
from minodice.core.state import CHANCE, GameState

Record = dict[str, Any]

EXAMPLE: Record = example_record()

R9_MESSAGE = "Ben must follow purple (R9): holds purple, rolled red"


def r9_breach() -> Record:
    """3 players, round 3, trick 2, roll 3: Ben holds purple and rolls red."""
    def rolls(*texts: str) -> list[Record]:
        out = []
        for text in texts:
            player, die, face = text.split()
            out.append({"player": int(player), "die": die,
                        "face": int(face) if face.isdigit() else face})
        return out
    return {
        "format": "minodice-record", "version": 1, "players": ["Ana", "Ben", "Cleo"],
        "rounds": [
            {"hands": [["red"], ["yellow"], ["purple"]], "bids": [1, 0, 0],
             "tricks": [rolls("0 red 5", "1 yellow 3", "2 purple 1")]},
            {"hands": [["gray", "gray"], ["yellow", "yellow"], ["purple", "purple"]],
             "bids": [0, 2, 0],
             "tricks": [rolls("1 yellow 5", "2 purple 3", "0 gray 1"),
                        rolls("1 yellow 4", "2 purple 2", "0 gray flag")]},
            {"hands": [["purple", "purple", "gray"], ["purple", "red", "red"],
                       ["red", "purple", "yellow"]],
             "bids": [1, 0, 2],
             "tricks": [rolls("2 red 7", "0 purple 1", "1 red 5"),
                        rolls("2 purple 3", "0 purple 2", "1 red 6")]},
        ],
    }


def cli(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``minodice ARGS`` as a user would (stderr is a pipe, not a terminal)."""
    # Standard streams in UTF-8, undecodable input bytes passed through (the default of
    # Python in the C.UTF-8 locale); test_stdin_that_is_not_utf8_under_strict_decoding
    # tries the strict decoding of other UTF-8 locales.
    full_env = dict(os.environ, PYTHONIOENCODING="utf-8:surrogateescape")
    full_env.pop("FORCE_COLOR", None)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "minodice.cli", *args], input=stdin,
                          capture_output=True, env=full_env, cwd=cwd, check=False,
                          timeout=300)


def write(path: Path, data: Record) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def random_record(players: int, seed: int) -> Record:
    rng = random.Random(seed)
    state = GameState.new(players=players)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
    return export_record(state, ["Ana", "Ben", "Cleo", "Dara", "Emil", "Fay"][:players])


# -- replay: valid records ------------------------------------------------------------------

def test_replay_text(tmp_path: Path) -> None:
    proc = cli("replay", str(write(tmp_path / "example.json", EXAMPLE)))
    assert proc.returncode == 0
    assert proc.stderr == b""
    out = proc.stdout.decode()
    assert "Round 1 · start player Ana" in out
    assert "Trick 1: Ana red→6, Ben griffin→griffin, Cleo gray→flag" in out
    assert "Ben wins" in out
    assert "bid 1, won 0: -10" in out
    assert "Game not finished" in out
    assert "Traceback" not in out


def test_replay_hides_the_hands_of_the_round_in_play_unless_asked(tmp_path: Path) -> None:
    """Round 3 is in play after its first trick: its hands are counted, not named, until
    ``--show-hands`` (a hot-seat save replayed between turns showed everyone's dice)."""
    data = r9_breach()
    del data["rounds"][2]["tricks"][1]
    path = write(tmp_path / "in-play.json", data)
    hidden = cli("replay", str(path)).stdout.decode()
    shown = cli("replay", "--show-hands", str(path)).stdout.decode()
    round_3 = hidden.split("Round 3 · ", 1)[1].split("Score table", 1)[0]
    assert round_3.count("drew 3 dice (2 not yet rolled)") == 3, round_3
    assert "replay --show-hands shows them" in round_3
    assert "Ana          drew purple, purple, gray" in shown
    # the finished rounds' hands are there either way
    assert hidden.split("Round 3 · ", 1)[0] == shown.split("Round 3 · ", 1)[0]
    assert "Ben          drew yellow, yellow" in hidden


def test_replay_json_equals_summarize(tmp_path: Path) -> None:
    for name, data in (("example", EXAMPLE), ("game", random_record(5, 1))):
        proc = cli("replay", "--json", str(write(tmp_path / f"{name}.json", data)))
        assert proc.returncode == 0
        assert proc.stderr == b""
        assert proc.stdout.count(b"\n") == 1  # one JSON object on one line
        loaded = load_record(data)
        assert json.loads(proc.stdout) == summarize(loaded.state, loaded.players)


def test_replay_json_of_the_documented_example(tmp_path: Path) -> None:
    proc = cli("replay", "--json", str(write(tmp_path / "example.json", EXAMPLE)))
    assert json.loads(proc.stdout) == EXAMPLE_SUMMARY


def test_replay_complete_game_names_the_winner(tmp_path: Path) -> None:
    data = random_record(4, 2)
    summary = json.loads(cli("replay", "--json", str(write(tmp_path / "g.json", data))).stdout)
    assert summary["complete"] is True
    assert summary["winners"]
    text = cli("replay", str(tmp_path / "g.json")).stdout.decode()
    names = [data["players"][i] for i in summary["winners"]]
    last = text.rstrip("\n").splitlines()[-1]
    assert last.startswith("Winner: " if len(names) == 1 else "Shared victory: ")
    assert all(name in last for name in names)


def test_replay_from_stdin() -> None:
    text = json.dumps(EXAMPLE).encode()
    proc = cli("replay", "-", stdin=text)
    assert proc.returncode == 0
    assert "Ben wins" in proc.stdout.decode()
    proc = cli("replay", "--json", "-", stdin=text)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["totals"] == [-10, -10, 10]


def test_replay_stdin_and_file_agree(tmp_path: Path) -> None:
    data = random_record(3, 3)
    path = tmp_path / "g.json"
    path.write_text(dumps_record(data), encoding="utf-8")
    assert cli("replay", str(path)).stdout == cli("replay", "-", stdin=path.read_bytes()).stdout


def test_replay_unicode_names(tmp_path: Path) -> None:
    data = json.loads(json.dumps(EXAMPLE))
    data["players"] = ["Zoë", "Øyvind", "李雷"]
    proc = cli("replay", "--json", str(write(tmp_path / "u.json", data)))
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["players"] == ["Zoë", "Øyvind", "李雷"]
    proc = cli("replay", str(tmp_path / "u.json"))
    assert "Øyvind wins" in proc.stdout.decode()


# -- replay: invalid records ----------------------------------------------------------------

def test_invalid_record_text(tmp_path: Path) -> None:
    proc = cli("replay", str(write(tmp_path / "bad.json", r9_breach())))
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert proc.stderr.decode() == (
        f"minodice replay: invalid record: round 3, trick 2, roll 3: {R9_MESSAGE}\n")


def test_invalid_record_json(tmp_path: Path) -> None:
    proc = cli("replay", "--json", str(write(tmp_path / "bad.json", r9_breach())))
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == {"error": {
        "round": 3, "trick": 2, "roll": 3, "rule": "R9", "message": R9_MESSAGE}}
    assert f"round 3, trick 2, roll 3: {R9_MESSAGE}" in proc.stderr.decode()


def test_invalid_record_from_stdin() -> None:
    proc = cli("replay", "--json", "-", stdin=json.dumps(r9_breach()).encode())
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["rule"] == "R9"


def test_invalid_record_without_place(tmp_path: Path) -> None:
    data = json.loads(json.dumps(EXAMPLE))
    data["players"] = ["Ana", "Ben"]
    proc = cli("replay", "--json", str(write(tmp_path / "bad.json", data)))
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert (error["round"], error["trick"], error["roll"], error["rule"]) == (
        None, None, None, "R1")
    assert error["message"] in proc.stderr.decode()


# Broken inputs of every sort: file contents, then paths that are not readable files.
BAD_TEXTS: dict[str, bytes] = {
    "empty": b"",
    "whitespace": b"  \n\t ",
    "truncated": json.dumps(EXAMPLE).encode()[:-7],
    "python-dict": str(EXAMPLE).encode(),
    "trailing-comma": b'{"format": "minodice-record",}',
    "array": b"[]",
    "string": b'"minodice-record"',
    "number": b"42",
    "null": b"null",
    "binary": bytes(range(256)),
    "latin-1": '{"players": ["Zoë"]}'.encode("latin-1"),
    "utf-16": json.dumps(EXAMPLE).encode("utf-16"),
    "deep-array": b"[" * 100_000 + b"]" * 100_000,
    "deep-object": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "nan-face": json.dumps(EXAMPLE).replace('"face": 6', '"face": NaN').encode(),
    "huge-face": json.dumps(EXAMPLE).replace('"face": 6', '"face": 1e999').encode(),
    "huge-int": json.dumps(EXAMPLE).replace('"face": 6', '"face": ' + "7" * 5000).encode(),
    "huge-int-extra": json.dumps({**EXAMPLE, "seed": 0}).replace(
        '"seed": 0', '"seed": ' + "1" * 10_000).encode(),
    "huge-player": json.dumps(EXAMPLE).replace('"player": 0', '"player": ' + "9" * 400)
    .encode(),
    "wrong-format": json.dumps({**EXAMPLE, "format": "pgn"}).encode(),
    "r9": json.dumps(r9_breach()).encode(),
    "no-rounds": json.dumps({k: v for k, v in EXAMPLE.items() if k != "rounds"}).encode(),
    "rounds-null": json.dumps({**EXAMPLE, "rounds": None}).encode(),
    "round-string": json.dumps({**EXAMPLE, "rounds": ["round 1"]}).encode(),
    "tricks-number": json.dumps({**EXAMPLE, "rounds": [
        {**EXAMPLE["rounds"][0], "tricks": 3}]}).encode(),
    "rolls-numbers": json.dumps({**EXAMPLE, "rounds": [
        {**EXAMPLE["rounds"][0], "tricks": [[1, 2, 3]]}]}).encode(),
}
BAD_PATHS = ["folder", "missing", "missing-dir"]
BAD_NAMES = [*BAD_TEXTS, *BAD_PATHS]


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("bad")
    paths = {}
    for name, content in BAD_TEXTS.items():
        paths[name] = tmp / f"{name}.json"
        paths[name].write_bytes(content)
    paths["folder"] = tmp / "a-folder"
    paths["folder"].mkdir()
    paths["missing"] = tmp / "no-such-file.json"
    paths["missing-dir"] = tmp / "no" / "such" / "dir.json"
    return paths


def assert_one_clean_error(code: int, stdout: str, stderr: str, as_json: bool,
                           unread: bool = False) -> None:
    """One line, status 1: "invalid record: WHY", or for a path nothing was read from
    (``unread``: a folder, no such file) only "cannot read PATH: WHY"."""
    assert code == 1, stderr
    assert "Traceback" not in stderr + stdout
    assert stderr.startswith("minodice replay: cannot read " if unread
                             else "minodice replay: invalid record: "), stderr
    assert stderr.count("\n") == 1  # one line
    if as_json:
        error = json.loads(stdout)["error"]
        assert set(error) == {"round", "trick", "roll", "rule", "message"}
        assert error["message"] in stderr
    else:
        assert stdout == ""


@pytest.mark.parametrize("name", BAD_NAMES)
def test_broken_input_is_one_clean_error(name: str, bad_inputs: dict[str, Path]) -> None:
    proc = cli("replay", "--json", str(bad_inputs[name]))
    assert_one_clean_error(proc.returncode, proc.stdout.decode(),
                           proc.stderr.decode("utf-8", "replace"), as_json=True,
                           unread=name in BAD_PATHS)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_broken_input_in_process(name: str, bad_inputs: dict[str, Path]) -> None:
    result = CliRunner().invoke(app, ["replay", str(bad_inputs[name])])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception)
    assert_one_clean_error(result.exit_code, result.stdout, result.stderr, as_json=False,
                           unread=name in BAD_PATHS)


@pytest.mark.parametrize("name", ["empty", "truncated", "binary", "utf-16", "deep-array",
                                  "huge-int", "r9"])
def test_broken_input_on_stdin(name: str) -> None:
    proc = cli("replay", "--json", "-", stdin=BAD_TEXTS[name])
    assert_one_clean_error(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                           proc.stderr.decode("utf-8", "replace"), as_json=True)


@pytest.mark.parametrize("command", ["replay", "analyse", "verify"])
def test_missing_file_and_folder_messages(bad_inputs: dict[str, Path], command: str) -> None:
    """No record read is said as such: not as an invalid record (as play --resume says)."""
    proc = cli(command, str(bad_inputs["missing"]))
    assert proc.returncode == 1
    assert proc.stderr.decode() == (f"minodice {command}: cannot read "
                                    f"{bad_inputs['missing']}: no such file\n")
    proc = cli(command, str(bad_inputs["folder"]))
    assert proc.returncode == 1
    assert proc.stderr.decode() == (f"minodice {command}: cannot read "
                                    f"{bad_inputs['folder']}: it is a folder\n")


def test_a_record_saved_with_a_byte_order_mark_replays(tmp_path: Path) -> None:
    """Some Windows editors start UTF-8 with a byte-order mark; it is not the record's."""
    plain = cli("replay", "--json", str(write(tmp_path / "plain.json", EXAMPLE)))
    marked = tmp_path / "bom.json"
    marked.write_bytes(b"\xef\xbb\xbf" + json.dumps(EXAMPLE).encode())
    proc = cli("replay", "--json", str(marked))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == plain.stdout
    twice = tmp_path / "two-marks.json"  # one mark is the file's; a second is the text's
    twice.write_bytes(b"\xef\xbb\xbf" * 2 + json.dumps(EXAMPLE).encode())
    proc = cli("replay", str(twice))
    assert proc.returncode == 1
    assert "not JSON" in proc.stderr.decode()
    assert "Traceback" not in proc.stderr.decode()


def test_an_empty_path_is_named_as_such() -> None:
    proc = cli("replay", "--json", "")
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        "minodice replay: no file given: the record's path is empty\n")
    error = json.loads(proc.stdout)["error"]
    assert error["message"] == "no file given: the record's path is empty"


def test_errors_quote_the_record_s_values_as_json(tmp_path: Path) -> None:
    proc = cli("replay", str(write(tmp_path / "null.json", {**EXAMPLE, "dice_set": None})))
    assert proc.returncode == 1
    assert "unknown dice set null;" in proc.stderr.decode()
    proc = cli("replay", str(write(tmp_path / "v.json", {**EXAMPLE, "variant": "Simple"})))
    assert 'unknown variant "Simple";' in proc.stderr.decode()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs Linux's /dev/full")
@pytest.mark.parametrize("command", [["replay"], ["replay", "--json"],
                                     ["analyse", "--samples", "2"]])
def test_output_that_cannot_be_written_is_one_line(tmp_path: Path, command: list[str]) -> None:
    """A full disk is the machine's problem: one line and status 1, not a traceback (and
    not a second one from the interpreter's last flush)."""
    path = write(tmp_path / "game.json", random_record(3, 1))
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "minodice.cli", *command, str(path)],
                              stdout=full, stderr=subprocess.PIPE, check=False, timeout=300)
    assert proc.returncode == 1
    assert proc.stderr.decode() == "minodice: cannot write the output: No space left on device\n"


def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """``minodice replay … | head -c0``: the closed pipe ends the command, with no message."""
    path = write(tmp_path / "game.json", random_record(6, 2))
    proc = subprocess.Popen([sys.executable, "-m", "minodice.cli", "replay", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.close()  # the reader leaves before the replay is written
    error = proc.stderr.read()
    assert proc.wait(timeout=300) in (0, 1)
    assert b"Traceback" not in error
    assert error == b""


def test_replay_without_a_file_is_a_usage_error() -> None:
    proc = cli("replay")
    assert proc.returncode == 2
    assert b"Traceback" not in proc.stderr
    assert b"Missing argument" in proc.stderr


# -- simulate ------------------------------------------------------------------------------

def test_simulate_prints_a_summary() -> None:
    proc = cli("simulate", "--players", "3", "--games", "5", "--seed", "1")
    assert proc.returncode == 0
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == ("Simulated 5 games: 3 random players, dice set mino, variant standard, "
                        "seed 1")
    assert lines[1].startswith("Time: ")
    assert lines[2].startswith("Mean score per seat: seat 1: ")
    assert "seat 3: " in lines[2]
    assert "seat 4" not in lines[2]
    assert lines[3].startswith("Bids made: ")
    assert lines[3].endswith(f"of {5 * 8 * 3}")  # 5 games × 8 rounds × 3 bids


def test_simulate_json_agrees_with_its_records(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    proc = cli("simulate", "-n", "5", "-g", "7", "-s", "3", "--edition", "skull-king",
               "--variant", "simplified", "--save-records", str(folder), "--json")
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert (out["players"], out["games"], out["seed"], out["edition"], out["variant"]) == (
        5, 7, 3, "skull-king", "simplified")
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == [f"game-{i:04d}.json" for i in range(1, 8)]
    finals, bids, made = [], 0, 0
    for f in files:
        data = json.loads(f.read_text(encoding="utf-8"))
        assert (data["dice_set"], data["variant"], len(data["players"])) == (
            "skull-king", "simplified", 5)
        summary = summarize(load_record(data).state, data["players"])
        assert summary["complete"] is True
        finals.append(summary["totals"])
        for rnd in summary["rounds"]:
            bids += 5
            made += sum(b == w for b, w in zip(rnd["bids"], rnd["tricks_won"], strict=True))
    means = [round(sum(t[i] for t in finals) / 7, 2) for i in range(5)]
    assert out["mean_scores"] == means
    assert out["bid_success"] == round(made / bids, 4)


def test_the_open_rules_from_the_command_line(tmp_path: Path) -> None:
    """``--start`` and ``--special-lead`` (RULES.md's open points, R5 and R9) reach the
    games and their records; ``replay`` reads them back; a wrong value is refused."""
    folder = tmp_path / "games"
    proc = in_process("simulate", "-n", "4", "-g", "3", "-s", "5", "--start", "fixed",
                      "--special-lead", "no-colour", "--save-records", str(folder), "--json")
    assert proc.returncode == 0, proc.stderr
    options = {"start": "fixed", "special_lead": "no-colour"}
    assert json.loads(proc.stdout)["rule_options"] == options
    for f in sorted(folder.iterdir()):
        assert json.loads(f.read_text(encoding="utf-8"))["rule_options"] == options
        replayed = json.loads(in_process("replay", "--json", str(f)).stdout)
        assert len({r["starter"] for r in replayed["rounds"]}) == 1  # R5: fixed
    bots = in_process("simulate", "-n", "3", "-g", "1", "--bots", "easy", "--start", "fixed",
                      "--json")
    assert bots.returncode == 0, bots.stderr
    assert json.loads(bots.stdout)["rule_options"]["start"] == "fixed"
    played = in_process("tournament", "--bots", "random", "-g", "3", "-s", "1",
                        "--special-lead", "no-colour", "--json")
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["rule_options"]["special_lead"] == "no-colour"
    helped = in_process("play", "--help").stdout.decode()
    assert "--start" in helped
    assert "--special-lead" in helped
    wrong = in_process("simulate", "--special-lead", "none")
    assert wrong.returncode == 2
    assert b"first-number" in wrong.stderr
    assert b"Traceback" not in wrong.stderr
    broken = write(tmp_path / "broken.json", {**random_record(3, 1), "rule_options": "fixed"})
    refused = in_process("replay", str(broken))
    assert refused.returncode == 1
    assert b"rule_options" in refused.stderr
    assert b"Traceback" not in refused.stderr


def test_saved_records_replay(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    proc = cli("simulate", "--players", "6", "--games", "3", "--seed", "4",
               "--save-records", str(folder))
    assert proc.returncode == 0
    assert f"Records saved in {folder}/" in proc.stdout.decode()
    files = sorted(folder.glob("*.json"))
    assert len(files) == 3
    for f in files:
        replayed = cli("replay", str(f))
        assert replayed.returncode == 0, replayed.stderr.decode()
        assert replayed.stdout.decode().rstrip("\n").splitlines()[-1].startswith(
            ("Winner: ", "Shared victory: "))
        summary = json.loads(cli("replay", "--json", str(f)).stdout)
        assert summary["complete"] is True
        assert len(summary["rounds"]) == 6


def test_records_of_seats_playing_the_same_bot_replay(tmp_path: Path) -> None:
    """Before: two seats of one bot were both named after it, and replay refused the
    record (R1: names are distinct)."""
    folder = tmp_path / "games"
    proc = cli("simulate", "--players", "3", "--games", "1", "--seed", "2", "--bots",
               "easy,random,easy", "--save-records", str(folder))
    assert proc.returncode == 0, proc.stderr.decode()
    (record,) = folder.glob("*.json")
    assert json.loads(record.read_text())["players"] == ["easy (1)", "random", "easy (3)"]
    replayed = cli("replay", str(record))
    assert replayed.returncode == 0, replayed.stderr.decode()


def test_save_records_creates_nested_folders(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    assert cli("simulate", "-g", "2", "--save-records", str(folder)).returncode == 0
    assert len(list(folder.iterdir())) == 2


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    def run(folder: str, seed: str) -> dict[str, bytes]:
        proc = cli("simulate", "-n", "4", "-g", "6", "-s", seed, "--save-records",
                   str(tmp_path / folder))
        assert proc.returncode == 0
        return {p.name: p.read_bytes() for p in sorted((tmp_path / folder).iterdir())}

    first, second, other = run("one", "42"), run("two", "42"), run("three", "43")
    assert len(first) == 6
    assert first == second
    assert first != other
    assert all(first[name] != other[name] for name in first)


def test_games_of_a_run_do_not_depend_on_the_run_length(tmp_path: Path) -> None:
    cli("simulate", "-g", "2", "-s", "5", "--save-records", str(tmp_path / "short"))
    cli("simulate", "-g", "4", "-s", "5", "--save-records", str(tmp_path / "long"))
    for name in ("game-0001.json", "game-0002.json"):
        assert (tmp_path / "short" / name).read_bytes() == (tmp_path / "long" / name).read_bytes()


@pytest.mark.parametrize(("args", "hint"), [
    (["--players", "7"], "--players"),
    (["--players", "2"], "--players"),
    (["--players", "x"], "--players"),
    (["--games", "0"], "--games"),
    (["--games", "-1"], "--games"),
    (["--edition", "foo"], "--edition"),
    (["--variant", "foo"], "--variant"),
    (["--seed", "one"], "--seed"),
    (["--bogus"], "--bogus"),
])
def test_simulate_bad_options(args: list[str], hint: str) -> None:
    proc = cli("simulate", *args)
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert "Traceback" not in err
    assert "Usage: " in err
    assert hint in err
    assert proc.stdout == b""


def test_save_records_onto_a_file_is_a_usage_error(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("keep me", encoding="utf-8")
    proc = cli("simulate", "-g", "1", "--save-records", str(target))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr.decode()
    assert "--save-records" in proc.stderr.decode()
    assert target.read_text(encoding="utf-8") == "keep me"


def test_no_progress_bar_when_stderr_is_not_a_terminal() -> None:
    proc = cli("simulate", "--games", "400", "--seed", "6")
    assert proc.returncode == 0
    assert proc.stderr == b""
    assert b"\x1b" not in proc.stdout
    assert proc.stdout.startswith(b"Simulated 400 games")
    proc = cli("simulate", "--games", "400", "--seed", "6", "--json")
    assert proc.stderr == b""
    assert proc.stdout.count(b"\n") == 1
    assert json.loads(proc.stdout)["games"] == 400


def test_progress_bar_stays_off_stdout_when_stderr_is_a_terminal() -> None:
    # The progress bar is shown when stderr is a terminal; whatever it draws must go
    # there, so that `minodice simulate --json > out.json` gives a clean file.
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "minodice.cli", "simulate", "--games", "1500", "--seed", "7",
         "--json"], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    drawn: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                return
            if not chunk:
                return
            drawn.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out, _ = proc.communicate(timeout=300)
    reader.join(timeout=10)
    os.close(master)
    assert proc.returncode == 0
    assert json.loads(out)["games"] == 1500
    assert out.startswith(b"{"), out[:80]
    assert out.count(b"\n") == 1


# -- replay never shows a traceback, whatever the bytes on stdin -------------------------------

def test_stdin_that_is_not_utf8_under_strict_decoding() -> None:
    # With a strict UTF-8 standard input (PYTHONIOENCODING=utf-8, as on most desktops
    # with a UTF-8 locale) bytes that are not UTF-8 must still give a clean error.
    proc = cli("replay", "-", stdin=b"\xff\xfe{}", env={"PYTHONIOENCODING": "utf-8:strict"})
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert err.startswith("minodice replay: invalid record: ")


def test_demo_is_deterministic() -> None:
    first = cli("demo", "--seed", "5")
    assert first.returncode == 0
    assert first.stdout.startswith(b"Demo game, seed 5")
    assert first.stdout == cli("demo", "--seed", "5").stdout
    assert first.stdout != cli("demo", "--seed", "6").stdout


def test_demo_prints_the_command_that_replays_it_with_its_options() -> None:
    """The command the demo prints gives the same game: it names every option that was not
    its default (it named only the seed, which dealt another game)."""
    options = ["--players", "3", "--edition", "skull-king", "--start", "fixed"]
    first = cli("demo", "--seed", "7", *options).stdout.decode()
    hint = first.splitlines()[0]
    assert hint == ("Demo game, seed 7 (minodice demo --seed 7 --players 3 --edition "
                    "skull-king --start fixed replays it)")
    again = hint.split("(", 1)[1].removesuffix(" replays it)").split()[2:]
    assert cli("demo", *again).stdout.decode() == first


@pytest.mark.parametrize("args", [
    ["simulate"], ["demo"], ["advise", "--hand", "red"], ["tournament", "--bots", "easy"],
    ["analyse", "no-such-record.json"], ["play"],
])
@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_every_command_takes_the_same_seeds(args: list[str], seed: str) -> None:
    """0 to 2**63 - 1 everywhere (a fresh tournament seed has 63 bits): ``-1`` was taken by
    some commands and refused by others."""
    proc = cli(*args, "--seed", seed)
    assert proc.returncode == 2, proc.stderr
    assert b"Invalid value for --seed" in proc.stderr
    assert b"Traceback" not in proc.stderr


@given(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,60}", fullmatch=True))
def test_join_seats_a_bot_under_a_name_the_server_takes(class_name: str) -> None:
    """Given no --name, join names the seat after the bot: a long class name is cut short
    (the server refused it, in words about a name the user never gave)."""
    from minodice.cli.online import default_seat_name
    from minodice.core.names import name_problem

    name = default_seat_name(f"mybot.py:{class_name}")
    assert name_problem(name) is None
    assert name.endswith(" bot")
    assert name.startswith(class_name[:10])
    assert default_seat_name("hard") == "hard bot"


def test_the_speed_of_slow_games_is_shown_in_seconds_a_game() -> None:
    from minodice.cli.records import speed

    assert speed(955.4) == "955 games/s"
    assert speed(2.25) == "2.2 games/s"
    assert speed(1 / 9.4) == "9.4 s a game"  # was "0 games/s"
    assert speed(0.0) == "too fast to time"


# -- the user's data folder: one rule for the server's database and the games ------------------


def test_default_db_and_games_dir_share_the_xdg_data_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from minodice.cli.online import default_db
    from minodice.cli.play import default_games_dir

    monkeypatch.delenv("MINODICE_DB", raising=False)
    monkeypatch.delenv("MINODICE_GAMES", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db() == tmp_path / "data" / "minodice" / "server.sqlite3"
    assert default_games_dir() == tmp_path / "data" / "minodice" / "games"
    home_share = tmp_path / "home" / ".local" / "share" / "minodice"
    # unset, empty or relative (which the XDG specification says to ignore): ~/.local/share
    for value in (None, "", "relative/data"):
        if value is None:
            monkeypatch.delenv("XDG_DATA_HOME")
        else:
            monkeypatch.setenv("XDG_DATA_HOME", value)
        assert default_db() == home_share / "server.sqlite3", value
        assert default_games_dir() == home_share / "games", value
    monkeypatch.setenv("MINODICE_DB", "elsewhere/tables.sqlite3")
    monkeypatch.setenv("MINODICE_GAMES", "/tmp/my games")
    assert default_db() == Path("elsewhere/tables.sqlite3")
    assert default_games_dir() == Path("/tmp/my games")


# -- numbers, paths and links a careless hand may give any command --------------------------

@pytest.mark.parametrize("args", [
    ["simulate", "--time-limit", "nan"],
    ["simulate", "--time-limit", "inf"],
    ["simulate", "--games", "1" + "0" * 30],
    ["tournament", "--bots", "random", "--time-limit", "1e308"],
    ["tournament", "--bots", "random", "--games", "1" + "0" * 30],
    ["serve", "--lease-seconds", "inf"],
    ["serve", "--expire-waiting", "1e15"],
    ["serve", "--bot-delay", "nan"],
    ["serve", "--grace", "nan"],
    ["serve", "--read-rate", "inf"],
    ["serve", "--db", ""],
    ["play", "--delay", "nan"],
    ["play", "--resume", ""],
    ["simulate", "--save-records", ""],
    ["advise", "--hand", " , "],
    ["advise", "--hand", "red", "--samples", "1" + "0" * 30],
    ["serve", "--analysis-samples", "1000000"],
    ["serve", "--bot-workers", "100000"],
    ["serve", "--public-url", "notaurl"], ["serve", "--allow-origin", "ftp://example.org"],
    ["serve", "--advertise-url", "10.0.0.2:8000"], ["serve", "--public-url", "http://h\udcff/"],
])
def test_numbers_past_any_sense_and_empty_names_are_usage_errors(args: list[str]) -> None:
    """``nan`` and ``inf`` parse as numbers and an empty path as the current folder; each
    would fail far from its option, hang, or act on a place nobody named."""
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert b"Traceback" not in proc.stderr
    assert b"Invalid value" in proc.stderr


@pytest.mark.parametrize("link", ["http://127.0.0.1:99999/t/abc", "http://[::1/t/a",
                                  "http:///t/abc", "http://127.0.0.1:9/t/a\udcff"])
def test_join_refuses_a_broken_link_in_one_line(link: str) -> None:
    proc = cli("join", link, "--bot", "random")
    assert proc.returncode == 1
    assert proc.stderr.decode().endswith("is not a table link (http://HOST:PORT/t/TABLE)\n")
    assert proc.stderr.count(b"\n") == 1


def test_table_refuses_a_file_that_is_no_database_and_keeps_it(tmp_path: Path) -> None:
    proc = cli("table", "abc", "--db", "mysql://x")
    assert proc.returncode == 2
    assert b"PostgreSQL URL" in proc.stderr
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n", "utf-8")
    proc = cli("table", "abc", "--db", str(other))
    assert proc.returncode == 1
    assert proc.stderr.decode() == f"minodice table: {other} is not a SQLite database\n"
    assert other.read_text("utf-8") == "my notes\n"
    empty = tmp_path / "empty.sqlite3"
    empty.write_bytes(b"")
    proc = cli("table", "abc", "--db", str(empty))
    assert proc.returncode == 1
    assert empty.read_bytes() == b""  # not made into a database by looking
    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (text)")
    before = foreign.read_bytes()
    proc = cli("table", "abc", "--db", str(foreign))
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        f"minodice table: {foreign} is not the database of a minodice server\n")
    assert foreign.read_bytes() == before  # nor its journal changed


def test_a_named_pipe_nobody_writes_to_reads_as_empty_rather_than_waits(tmp_path: Path) -> None:
    pipe = tmp_path / "game.json"
    os.mkfifo(pipe)
    for command in ("replay", "verify"):
        proc = cli(command, str(pipe))
        assert proc.returncode == 1
        assert b"invalid record: " in proc.stderr


def test_a_pipe_with_a_writer_is_read_as_a_file() -> None:
    """``minodice replay /dev/stdin`` and ``<(...)``: a pipe that has a writer is read."""
    record = json.dumps(random_record(3, 4)).encode()
    proc = cli("replay", "--json", "/dev/stdin", stdin=record)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == cli("replay", "--json", "-", stdin=record).stdout


def test_games_refuses_a_file_for_its_folder(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("x", "utf-8")
    proc = cli("games", "--games-dir", str(other))
    assert proc.returncode == 1
    assert proc.stderr.decode() == f"minodice games: {other} is not a folder\n"


def test_closed_standard_output_is_an_error_not_silence() -> None:
    proc = subprocess.run([sys.executable, "-m", "minodice.cli", "simulate", "--games", "1"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False,
                          timeout=300, close_fds=True,
                          preexec_fn=lambda: os.close(1))
    assert proc.returncode == 1
    assert proc.stderr == b"minodice: cannot write the output: standard output is closed\n"


def test_the_command_list_shows_each_command_in_whole_sentences() -> None:
    """``minodice --help`` lists each command by its ``short_help`` or the first paragraph
    of its docstring, whose line breaks it keeps: a docstring wrapped in the source showed
    as a sentence broken off mid-line."""
    import typer.core
    import typer.main

    group = typer.main.get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    ctx = group.context_class(group, info_name="minodice")
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        shown = command.short_help or (command.help or "").strip().split("\n\n")[0]
        assert shown, name
        assert "\n" not in shown, (name, shown)


@pytest.mark.parametrize(("option", "value", "names"), [
    ("--edition", "skullking", "mino, skull-king"),
    ("--variant", "simple", "standard, simplified"),
    ("--start", "clockwise", "rotate, fixed"),
    ("--special-lead", "none", "first-number, no-colour"),
])
def test_a_misspelt_choice_is_refused_in_plain_words(option: str, value: str,
                                                    names: str) -> None:
    """As --lang's: Typer's own conversion of an enum said "Value error, ..." (pydantic's)."""
    proc = cli("simulate", "--games", "1", option, value)
    assert proc.returncode == 2
    said = " ".join(proc.stderr.decode().replace("│", " ").split())
    assert f"Invalid value for '{option}': '{value}' is not one of {names}" in said
    assert "Value error" not in said


def test_no_help_offers_a_value_for_a_flag() -> None:
    """Typer 0.29 wrote "<bool>" after every flag ("--force <bool>"): a user typed
    "--force true" and was refused. No command's help does (pyproject keeps Typer below)."""
    runner = CliRunner()
    commands = [c.name for c in app.registered_commands if c.name]
    for command in ["", *commands, "replay", "analyse", "simulate", "tournament", "play"]:
        result = runner.invoke(app, [*([command] if command else []), "--help"],
                               env={"COLUMNS": "120"})
        assert result.exit_code == 0, (command, result.output)
        assert "<bool>" not in result.output, (command, result.output)
