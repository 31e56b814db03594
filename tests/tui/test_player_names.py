"""``minodice play --name``: names without the blanks around them, no two alike, at most 24
characters in a new game (as at the online tables) — each refusal a one-line usage error
(status 2, as for any bad option), before the terminal is even needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from command import in_process


def play(tmp_path: Path, *names: str) -> tuple[int, str]:
    args = [part for name in names for part in ("--name", name)]
    done = in_process("play", *args, "--games-dir", str(tmp_path / "games"))
    return done.returncode, done.stderr.decode("utf-8")


@pytest.mark.parametrize("names", [("Ana", "Ana "), ("Ana", " Ana"), ("\tAna", "Ana")])
def test_names_alike_once_stripped_are_refused(tmp_path: Path, names: tuple[str, ...]) -> None:
    code, error = play(tmp_path, *names)
    assert code == 2, error
    assert "Invalid value for --name" in error
    assert "'Ana' is given twice" in error


def test_a_name_longer_than_24_is_refused_in_one_line(tmp_path: Path) -> None:
    code, error = play(tmp_path, "L" * 300)
    assert code == 2, error
    assert "longer than 24 characters" in error
    assert "L" * 17 not in error  # the name is quoted short, the message one line
    assert "Traceback" not in error


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
