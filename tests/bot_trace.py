"""What the traced outside bots (tests/plugins/traced_bots.py) leave behind, read without a
clock. The ``trace`` fixture (tests/conftest.py) names the file they write to.
"""

from __future__ import annotations

from pathlib import Path

TRACED = "tests/plugins/traced_bots.py"


def stopped_in_its_sleep(trace: Path) -> bool:
    """The traced slow bot started and never ended a decision: it was stopped at its
    limit, not waited for (its 5 s sleep would have ended first)."""
    words = trace.read_text(encoding="utf-8").split() if trace.exists() else []
    return "start" in words and "end" not in words
