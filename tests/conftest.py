"""Fixtures for the tests of every folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the traced outside bots write to (tests/plugins/traced_bots.py; their
    processes inherit the variable); read it with :func:`bot_trace.stopped_in_its_sleep`."""
    path = tmp_path / "trace"
    monkeypatch.setenv("MINODICE_TEST_TRACE", str(path))
    return path
