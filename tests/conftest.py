"""Fixtures for the tests of every folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import settings

from program_starts import program_starts
from services import Postgres, Redis, ServiceMissingError, postgres_server, redis_server

T = TypeVar("T")

# Tests check behaviour, not wall-clock time: hypothesis's deadline (200 ms an example by
# default) fails an example that a busy machine ran late (seen under make check's two
# workers beside other processes: 737 ms for a 21 ms example). The test modules' own
# settings, imported after this, take every other value from this profile.
settings.register_profile("minodice", deadline=None)
settings.load_profile("minodice")


@pytest.fixture
def trace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the traced outside bots write to (tests/plugins/traced_bots.py; their
    processes inherit the variable); read it with :func:`bot_trace.stopped_in_its_sleep`."""
    path = tmp_path / "trace"
    monkeypatch.setenv("MINODICE_TEST_TRACE", str(path))
    return path


#: What ``make check`` (``-m "not slow"``) leaves to ``make test``: folders whose every
#: test runs a real server, browser or terminal, files of whole games, processes and
#: command lines, and single long tests elsewhere (measured with ``--durations``).
SLOW_FOLDERS = ("online", "browser", "tui", "conformance", "cluster")
SLOW_FILES = ("test_compiled.py", "test_tournament.py", "test_sandbox.py", "test_saves.py",
              "test_cli.py", "test_golden.py", "test_trace.py", "test_bots.py")
SLOW_TESTS = ("test_r9_custom_dice_set_specials_respected_one_after_another",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests above ``slow`` (others may mark themselves)."""
    tests = Path(__file__).parent
    for item in items:
        path = Path(str(item.path))
        if not path.is_relative_to(tests):
            continue
        parts = path.relative_to(tests).parts
        if (parts[0] in SLOW_FOLDERS or path.name in SLOW_FILES
                or item.name.split("[")[0] in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test not marked ``slow`` that starts the ``minodice`` program fails: ``make check``
    runs it, and a real program costs most of a second a start. It runs the command
    in-process (tests/command.py), or the test is marked ``slow`` if it needs the real
    program (its entry point, real standard streams, a memory limit, signals)."""
    if item.get_closest_marker("slow") is not None:
        return (yield)
    with program_starts() as started:
        result = yield
    if started:
        pytest.fail(f"a test not marked slow started the minodice program {len(started)} "
                    f"time(s), first as {' '.join(started[0])[:300]!r}: run the command "
                    "in-process (tests/command.py), or mark the test slow",
                    pytrace=False)
    return result


@pytest.fixture(scope="session")
def postgres_service() -> Iterator[Postgres]:
    """One PostgreSQL server for the session (started only if a test asks for it); a
    missing binary fails the test with how to install it (never a silent skip)."""
    yield from _running(postgres_server)


@pytest.fixture
def postgres_url(postgres_service: Postgres) -> str:
    """The URL of a fresh, empty PostgreSQL database of this test's own."""
    return postgres_service.new_database()


@pytest.fixture(scope="session")
def redis_service() -> Iterator[Redis]:
    """One redis-server for the session (started only if a test asks for it)."""
    yield from _running(redis_server)


def _running(start: Callable[[], AbstractContextManager[T]]) -> Iterator[T]:
    """A service started by ``start`` for as long as the fixture lasts; a missing binary
    fails the test with how to install it (never a silent skip)."""
    try:
        context = start()
        server = context.__enter__()
    except ServiceMissingError as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        context.__exit__(None, None, None)
