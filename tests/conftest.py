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


#: Folders whose every test runs a real server, browser or terminal: ``slow``, so that
#: ``make check`` (``-m "not slow"``) leaves them to ``make test``.
SLOW_FOLDERS = ("online", "browser", "tui")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of :data:`SLOW_FOLDERS` ``slow`` (the others mark themselves)."""
    tests = Path(__file__).parent
    for item in items:
        path = Path(str(item.path))
        if path.is_relative_to(tests) and path.relative_to(tests).parts[0] in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
