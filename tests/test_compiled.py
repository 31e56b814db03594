"""The optional compiled core (``make compiled``) plays exactly the pure engine's games.

The fixture uses ``build/compiled`` if it is a build of the current source, and otherwise
builds the core with mypyc into a temporary folder (``scripts/compile_core.py``, 10 to 20
seconds). ``tests/test_trace.py`` then runs as a script in both engines over 40 seeded
games of every set-up — 640 games, driven every way its modes drive them — and the two
digests must be equal. Skipped, with the reason, only where no compiled core can be built
(no mypyc or no C compiler): the default install never needs one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "compile_core.py"
TRACE = ROOT / "tests" / "test_trace.py"
GAMES = 40


def run(args: list[str], pythonpath: Path | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, check=False, timeout=900)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a compiled build of the current source."""
    if run([str(SCRIPT), "--check"], None).returncode == 0:
        return ROOT / "build" / "compiled"
    out = tmp_path_factory.mktemp("compiled") / "core"
    proc = run([str(SCRIPT), "--out", str(out)], None)
    if proc.returncode != 0 and "cannot build the compiled core" in proc.stderr:
        pytest.skip(proc.stderr.strip())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_the_engine_there_is_compiled(compiled: Path) -> None:
    proc = run(["-c", "import minodice.core.state as s, minodice.core.tables as t; "
                "print(s.__file__); print(t.__file__)"], compiled)
    assert proc.returncode == 0, proc.stderr
    files = proc.stdout.split()
    assert all(Path(f).is_relative_to(compiled) and not f.endswith(".py") for f in files), files


def test_the_compiled_core_plays_the_same_games(compiled: Path) -> None:
    fast = run([str(TRACE), str(GAMES)], compiled)
    assert fast.returncode == 0, fast.stderr
    pure = run([str(TRACE), str(GAMES)], None)
    assert pure.returncode == 0, pure.stderr
    assert fast.stdout == pure.stdout
