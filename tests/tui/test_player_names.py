"""``minodice play --name``: names without the blanks around them, no two alike, in a new
game names an online table would seat (at most 24 characters, no control characters) and
always text — each refusal a one-line usage error (status 2, as for any bad option), before
the terminal is even needed and before any file is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from command import in_process


def play(tmp_path: Path, *names: str) -> tuple[int, str]:
    args = [part for name in names for part in ("--name", name)]
    done = in_process("play", *args, "--games-dir", str(tmp_path / "games"))
    return done.returncode, one_text(done.stderr.decode("utf-8"))


def one_text(error: str) -> str:
    """The error's words as one line: Rich wraps its box at the terminal's width."""
    return " ".join(error.replace("│", " ").split())


@pytest.mark.parametrize("names", [("Ana", "Ana "), ("Ana", " Ana"), ("\tAna", "Ana")])
def test_names_alike_once_stripped_are_refused(tmp_path: Path, names: tuple[str, ...]) -> None:
    code, error = play(tmp_path, *names)
    assert code == 2, error
    assert "Invalid value for --name" in error
    assert "'Ana' is given twice" in error


def test_a_name_longer_than_24_is_refused_in_one_line(tmp_path: Path) -> None:
    code, error = play(tmp_path, "L" * 300)
    assert code == 2, error
    assert "a name is 1 to 24 characters" in error
    assert "L" * 17 not in error  # the name is quoted short, the message one line
    assert "Traceback" not in error


@pytest.mark.parametrize(("name", "why"), [
    ("A\udcffna", "not UTF-8"),  # what Python makes of the bytes b"A\xffna" on a command line
    ("A\x1b[2Jna", "control characters"), ("\u200d", "visible"),
])
def test_a_name_no_table_would_seat_is_refused_before_anything_is_written(
        tmp_path: Path, name: str, why: str) -> None:
    code, error = play(tmp_path, name)
    assert code == 2, error
    assert why in error
    assert "Traceback" not in error
    assert not (tmp_path / "games").exists() or not any((tmp_path / "games").iterdir())


def test_a_resumed_game_refuses_a_name_that_is_no_text() -> None:
    import typer

    from minodice.cli.play import player_names

    with pytest.raises(typer.BadParameter, match="not UTF-8"):
        player_names(["A\udcffna"], new_game=False)


def test_join_refuses_a_name_no_table_would_seat_before_it_connects() -> None:
    done = in_process("join", "http://127.0.0.1:9/t/abcdefgh", "--name", "A\udcffna")
    error = one_text(done.stderr.decode("utf-8"))
    assert done.returncode == 2, error
    assert "not UTF-8" in error
    assert "--name" in error
    assert "Traceback" not in error


def test_a_game_file_that_cannot_be_written_leaves_no_lock(tmp_path: Path) -> None:
    """Whatever stops the first save (here text no file can hold), the game's lock goes
    with it: a lock left behind would say a session holds a game that does not exist."""
    from minodice.play.saves import GameFile

    with pytest.raises(UnicodeEncodeError):
        GameFile.create(tmp_path, "A\udcffna")
    assert list(tmp_path.iterdir()) == []


def test_a_name_of_24_and_names_with_blanks_pass(tmp_path: Path) -> None:
    """They get as far as the terminal (the tests have none)."""
    for names in (("L" * 24,), (" Ana ", "Ben")):
        code, error = play(tmp_path, *names)
        assert code == 1, error
        assert "needs a terminal" in error


def test_the_names_are_stripped() -> None:
    from minodice.cli.play import player_names

    assert player_names([" Ana ", "Ben\t"]) == ["Ana", "Ben"]
    # A resumed record's names are its own (a server's may be longer): only stripped.
    assert player_names(["x" * 30], new_game=False) == ["x" * 30]
