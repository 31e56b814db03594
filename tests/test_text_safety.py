"""Text from a record never takes over the terminal, and no record is too big or too
numeric to get one short, clear error."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from command import as_program, in_process
from examples import example_record
from minodice.files import MAX_RECORD_BYTES
from minodice.text.replay import render_replay
from minodice.text.safe import printable

Record = dict[str, Any]

TITLE = "Ana\x1b]0;pwned\x07"   # retitles the window
CLEAR = "Ben\x1b[2J\x1b[H"      # clears the screen
BIDI = "Cleo\u202e"             # turns the rest of the line around


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """``minodice ARGS`` in this process (tests/command.py); the real program is checked by
    test_the_program_writes_the_bytes_the_command_writes_in_process."""
    return in_process(*args, stdin=stdin)


def run_program(*args: str, memory: int) -> subprocess.CompletedProcess[bytes]:
    """``python -m minodice ARGS`` as a real program whose address space is ``memory``
    bytes: a limit only a process of its own can have."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "minodice", *args], capture_output=True,
                          env=env, timeout=120, check=False, preexec_fn=limit)


def write(path: Path, data: Record | str) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def named(*names: str) -> Record:
    data = example_record()
    data["players"] = list(names)
    return data


# -- control characters ------------------------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_replay_escapes_control_characters_in_names(tmp_path: Path, as_json: bool) -> None:
    path = write(tmp_path / "g.json", named(TITLE, CLEAR, BIDI))
    proc = run("replay", *(["--json"] if as_json else []), str(path))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode("utf-8")
    for bad in ("\x1b", "\x07", "\u202e"):
        assert bad not in out
    if not as_json:
        assert "Ana\\x1b]0;pwned\\x07" in out
        assert "Cleo\\u202e" in out
    else:
        assert json.loads(out)["players"] == [TITLE, CLEAR, BIDI]  # the data, exact


def test_a_name_s_joiners_show_as_joiners_and_nothing_else_that_is_invisible() -> None:
    """The joiners a seated name may hold (core/names.py) move no cursor: a terminal shows
    "👩‍💻" as the page does. A zero-width space or a direction override still shows as
    its escape, as every control character does."""
    coder, flag, persian = "👩\u200d💻", "🏴\U000e0067\U000e0062\U000e007f", "می\u200cخواهم"
    for name in (coder, flag, persian):
        assert printable(name) == name
    assert printable("Ana\u200bBen") == "Ana\\u200bBen"
    assert printable(coder + BIDI) == coder + "Cleo\\u202e"
    assert printable(coder + TITLE) == coder + "Ana\\x1b]0;pwned\\x07"


def test_an_error_naming_a_player_escapes_the_name(tmp_path: Path) -> None:
    data = named(TITLE, CLEAR, "Cleo")
    data["rounds"][0]["hands"][1] = ["no-such-die"]
    proc = run("replay", str(write(tmp_path / "bad.json", data)))
    assert proc.returncode == 1
    err = proc.stderr.decode("utf-8")
    assert "\x1b" not in err
    assert "\\x1b[2J" in err


def test_render_replay_escapes_every_name() -> None:
    from minodice.core.record import load_record

    loaded = load_record(named(TITLE, CLEAR, BIDI))
    text = render_replay(loaded.state, loaded.players)
    assert "\x1b" not in text
    assert printable(TITLE) in text


# -- too big -------------------------------------------------------------------------------------


@pytest.mark.slow  # a real program: only a process of its own has a memory limit
def test_replay_dev_zero_ends_with_a_clear_error() -> None:
    proc = run_program("replay", "/dev/zero", memory=1 << 30)
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, err[-500:]
    assert "Traceback" not in err
    assert "MemoryError" not in err
    assert err.count("\n") == 1
    assert "16 MB" in err


def test_replay_dev_zero_in_process_reads_no_more_than_the_cap() -> None:
    proc = run("replay", "/dev/zero")
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1, err[-500:]
    assert err.count("\n") == 1
    assert "16 MB" in err


def test_a_record_on_stdin_is_capped_too() -> None:
    proc = run("replay", "-", stdin=b" " * (MAX_RECORD_BYTES + 10))
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1
    assert "16 MB" in err
    assert err.count("\n") == 1


def test_resume_of_a_huge_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as fh:
        fh.truncate(MAX_RECORD_BYTES + 1)
    proc = run("play", "--resume", str(path))
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 1
    assert "16 MB" in err
    assert "Traceback" not in err


# -- huge numbers ----------------------------------------------------------------------------------


def huge(kind: str) -> str:
    text = json.dumps(example_record())
    if kind == "digits-100000":
        return text.replace('"face": 6', '"face": ' + "7" * 100_000)
    if kind == "digits-4000":
        return text.replace('"face": 6', '"face": ' + "7" * 4000)
    if kind == "bid-10**400":
        data = example_record()
        data["rounds"][0]["bids"][0] = 10**400
        return json.dumps(data)
    if kind == "player-10**400":
        return text.replace('"player": 0', '"player": ' + "9" * 401)
    if kind == "first-starter":
        data = example_record()
        data["first_starter"] = -(10**400)
        return json.dumps(data)
    raise AssertionError(kind)


KINDS = ["digits-100000", "digits-4000", "bid-10**400", "player-10**400", "first-starter"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("as_json", [False, True])
def test_a_huge_number_gives_a_short_error(tmp_path: Path, kind: str, as_json: bool) -> None:
    path = write(tmp_path / "n.json", huge(kind))
    proc = run("replay", *(["--json"] if as_json else []), str(path))
    err = proc.stderr.decode("utf-8")
    out = proc.stdout.decode("utf-8")
    assert proc.returncode == 1
    assert err.count("\n") == 1
    assert len(err) < 300, err
    assert "0" * 30 not in err + out
    assert "7" * 30 not in err + out
    assert "9" * 30 not in err + out
    assert "set_int_max_str_digits" not in err  # Python's advice, not for a person
    if as_json:
        message = json.loads(out)["error"]["message"]
        assert message in err


# -- the real program -------------------------------------------------------------------------


@pytest.mark.slow  # real programs, ~1 s each: the cases above run the command in-process
def test_the_program_writes_the_bytes_the_command_writes_in_process(tmp_path: Path) -> None:
    """``python -m minodice``: its exit status and the bytes of its standard streams (a
    name's escapes, a huge number's short error, a capped standard input) are those of the
    in-process runs the other tests make."""
    names = write(tmp_path / "g.json", named(TITLE, CLEAR, BIDI))
    number = write(tmp_path / "n.json", huge("digits-100000"))
    for args, stdin in ((("replay", str(names)), None),
                        (("replay", "--json", str(names)), None),
                        (("replay", "--json", str(number)), None),
                        (("replay", "-"), b" " * (MAX_RECORD_BYTES + 10))):
        program = as_program(*args, stdin=stdin)
        inside = in_process(*args, stdin=stdin)
        assert (program.returncode, program.stdout, program.stderr) == (
            inside.returncode, inside.stdout, inside.stderr), args
    assert program.returncode == 1
    assert b"16 MB" in program.stderr


# -- long garbage: every place that shows a record's error says it in one short line ---------------


def garbage(kind: str) -> str:
    """A record of about 100,000 characters whose broken part its error message quotes."""
    data = example_record()
    if kind == "die":
        data["rounds"][0]["hands"][0] = ["x" * 100_000]
    elif kind == "dice-set":
        data["dice_set"] = "q" * 100_000
    elif kind == "variant":  # line breaks and escapes too
        data["variant"] = "v\n\x1b[2J" * 20_000
    elif kind == "face":
        data["rounds"][0]["tricks"][0][0]["face"] = "z" * 100_000
    elif kind == "not-json":
        return "{" + "garbage\n" * 12_500
    else:
        raise AssertionError(kind)
    return json.dumps(data)


GARBAGE = ["die", "dice-set", "variant", "face", "not-json"]
SHORT = 300  # text.safe.one_line's limit


def short_line(message: str, cut: bool) -> None:
    """``message`` is one printable line of at most about SHORT characters, which says so
    (ends with "…") if ``cut``."""
    line = message.removesuffix("\n").rstrip()
    assert "\n" not in line, message[:500]
    assert len(line) <= SHORT + 40, f"{len(line)} characters"
    assert printable(line) == line, line[:500]
    assert line.endswith("…") == cut, line[-100:]


@pytest.mark.parametrize("kind", GARBAGE)
def test_garbage_is_a_short_error_everywhere(tmp_path: Path, kind: str) -> None:
    """``replay`` (text and --json), ``verify``, ``play --resume``, ``games``, restoring a
    table, and a saved game's listing: before, ``verify`` cut the message without saying
    so, and a table's restore and the saved game's ``problem`` carried all of it."""
    from typer.testing import CliRunner

    from minodice.cli import app
    from minodice.play.saves import read_saved_game
    from minodice.play.table import Table, TableError

    text = garbage(kind)
    assert len(text) >= 100_000
    cut = kind != "not-json"  # its error quotes nothing of the record
    path = write(tmp_path / "broken.json", text)
    runner = CliRunner()
    for args in (["replay", str(path)], ["replay", "--json", str(path)],
                 ["verify", str(path)], ["play", "--resume", str(path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, (args, result.stderr[:500])
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert result.stderr.startswith(f"minodice {args[0]}: "), result.stderr[:200]
        short_line(result.stderr, cut)
        if "--json" in args:
            short_line(json.loads(result.stdout)["error"]["message"], cut)
    listing = runner.invoke(app, ["games", "--games-dir", str(tmp_path)])
    assert listing.exit_code == 0, listing.stderr[:500]
    row = next(line for line in listing.stdout.splitlines() if "cannot be read" in line)
    short_line(row.split("cannot be read: ", 1)[1].rsplit(str(path), 1)[0], cut)
    problem = read_saved_game(path).problem
    assert problem
    short_line(problem, cut)
    if kind != "not-json":
        with pytest.raises(TableError) as info:
            Table.restore(json.loads(text))
        short_line(str(info.value), cut)


def test_wide_names_keep_the_replays_columns_in_line() -> None:
    """A name in Chinese characters or emoji takes two terminal columns a character, and the
    score table, padded by characters, went out of line."""
    from rich.cells import cell_len

    from minodice.core.record import load_record
    from minodice.text.safe import fit_cells, pad_cells

    data = example_record()
    data["players"] = ["日本語", "👩‍👩‍👧", "Cleo"][: len(data["players"])] + data["players"][3:]
    loaded = load_record(data)
    text = render_replay(loaded.state, loaded.players, show_hands=True)
    table = text[text.index("Score table"):].splitlines()[1:]
    rows = [line for line in table if line.startswith(("Round", "Total")) or line[:1].isdigit()]
    assert len({cell_len(line.rstrip()) for line in rows}) == 1, rows
    drew = [line for line in text.splitlines() if " drew " in line]
    assert len({cell_len(line.split(" drew ")[0]) for line in drew}) == 1, drew
    assert pad_cells("日本", 5) == "日本 "
    assert pad_cells("日本", 5, right=True) == " 日本"
    assert fit_cells("日本語", 5) == "日本 "
