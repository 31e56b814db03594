"""The README's research examples run as written (the OpenSpiel one used ``np`` without
importing it: a new user's first run was a NameError)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the research extra is not installed "
                    "(pip install -e '.[research]', or make research-test)")

README = Path(__file__).parents[2] / "README.md"


def research_examples() -> list[str]:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.S)
    return [b for b in blocks if "minodice.envs" in b or "minodice.vector" in b]


def test_the_readme_shows_the_three_research_interfaces() -> None:
    examples = research_examples()
    assert len(examples) == 3
    assert any("pyspiel" in e for e in examples)


@pytest.mark.parametrize("index", range(3))
def test_a_research_example_of_the_readme_runs_as_written(index: int) -> None:
    # Written for people; fewer ISMCTS simulations here, so that a game ends in seconds:
    # the example itself, every line of it, runs.
    code = research_examples()[index].replace("max_simulations=100", "max_simulations=2")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
