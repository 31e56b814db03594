"""Rules the test suite keeps to (tests/conftest.py): a test not marked ``slow`` starts no
``minodice`` program, watched by tests/program_starts.py, which sees every start of the
program and nothing else; and no test fails for being slow on a busy machine."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from command import in_process
from program_starts import program_starts, starts_the_program


@pytest.mark.parametrize("argv", [
    [sys.executable, "-m", "minodice", "replay", "game.json"],
    [sys.executable, "-m", "minodice.cli", "advise", "--hand", "red"],
    ["python3", "-X", "utf8", "-m", "minodice"],
    ["/work/.venv/bin/minodice", "serve"],
    ["minodice"],
])
def test_the_programs_command_lines_are_recognised(argv: list[str]) -> None:
    assert starts_the_program(argv)


@pytest.mark.parametrize("argv", [
    [],
    [sys.executable, "-c", "import minodice"],
    [sys.executable, "-m", "minodice_bots"],
    [sys.executable, "-m", "pytest", "-m", "not slow", "minodice"],
    [sys.executable, "tests/plugins/outside_bot.py", "minodice"],
    ["/usr/bin/minodice-helper"],
])
def test_other_command_lines_are_not(argv: list[str]) -> None:
    assert not starts_the_program(argv)


def test_a_start_is_recorded_by_the_innermost_block() -> None:
    """``true`` stands in for the program (started with the program's arguments, it ends at
    once). The blocks here are inside the conftest's own, which records nothing of theirs,
    so this test is not failed by what it starts on purpose."""
    with program_starts() as outer:
        with program_starts() as inner:
            subprocess.run(["true", "-m", "minodice", "replay"], check=True)
            subprocess.run(["true", "-m", "pytest"], check=True)
        subprocess.run(["true", "-m", "minodice.cli"], check=True)
    assert inner == [["true", "-m", "minodice", "replay"]]
    assert outer == [["true", "-m", "minodice.cli"]]


def test_the_in_process_command_starts_no_program() -> None:
    with program_starts() as started:
        done = in_process("--version")
    assert done.returncode == 0
    assert done.stdout.startswith(b"minodice ")
    assert started == []


@settings(max_examples=2)
@given(st.integers())
def test_no_example_has_a_deadline(number: int) -> None:
    """Hypothesis's default deadline (200 ms an example) failed test_wire's examples on a
    busy machine; the suite's profile has none, and a test's own settings keep that."""
    default = settings.default
    assert default is not None
    assert default.deadline is None
    assert settings().deadline is None
    assert settings(max_examples=3).deadline is None
