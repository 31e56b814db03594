"""A real ``minodice serve`` process for the tests (tests/live_server.py): ``server``, one
for a module's tests, and ``start_server``, servers of a test's own. Their bot decisions
go to two worker processes; nobody goes on autoplay unless a test sets a short grace.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from live_server import LiveServer, StartServer, servers

OPTIONS = ("--bot-workers", "2")


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[StartServer]:
    """``start_server(db=None, port=None, grace=30.0)``: a server of this test's own."""
    with servers(tmp_path, grace=30.0, options=OPTIONS) as start:
        yield start


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One server shared by the tests of a module (grace 30 s: nobody goes on autoplay)."""
    with servers(tmp_path_factory.mktemp("live"), grace=30.0, options=OPTIONS) as start:
        yield start()
