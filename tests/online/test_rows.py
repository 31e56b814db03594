"""A stored table's settings and seats are typed (server/rows.py): a row written by any
release loads — whatever fields it lacks take the one default each has, a key this release
does not know is ignored — and the server serves it; a row no release wrote is refused in
one sentence, and the lobby sets that table aside."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert

from minodice.core.fair import SCHEME_1, SCHEME_2, seed_hash
from minodice.server.lobby import ID_ALPHABET, ApiError, Lobby
from minodice.server.room import Room, Settings
from minodice.server.rows import Seat, TableSettings
from minodice.server.store import Store, tables

from .test_hidden import InProcessPool

# A whole row of the release of 2026-11-30 (a waiting fair-2 table, one seat taken and
# committed, one held for a rematch's player, a bot), plus a key no release knows.
OLD_SETTINGS: dict[str, Any] = {
    "players": 3, "edition": "skull-king", "variant": "standard", "first_starter": 2,
    "turn_seconds": 45, "advisor": False, "fair": SCHEME_2, "rematch_of": "abcdefghij",
    "colour": "green"}
OLD_SEATS: list[dict[str, Any]] = [
    {"name": "Ana", "bot": None, "token_hash": "a" * 64, "client_seed": None,
     "seed_hash": seed_hash("x"), "replaced": False, "colour": "green"},
    {"name": None, "bot": None, "client_seed": "", "held_for": "b" * 64},
    {"name": "Hilda", "bot": "easy", "client_seed": "", "replaced": False},
]

_ids = iter(range(10**9))


@pytest.fixture(scope="module")
def store() -> Iterator[Store]:
    opened = Store("sqlite://")
    try:
        yield opened
    finally:
        opened.close()


def _store_raw(store: Store, stored_settings: Any, stored_seats: Any) -> str:
    """A row as an older release (or damage) left it: its JSON as given, not as we write."""
    table_id = "r" + "".join(ID_ALPHABET[int(d)] for d in f"{next(_ids):09d}")
    with store.engine.begin() as conn:
        conn.execute(insert(tables).values(
            id=table_id, created_at=0, status="waiting", public=False,
            settings=stored_settings, seats=stored_seats, host_token_hash="h" * 64,
            server_seed="ab" * 32, commit="c" * 64, seq=1, events=0, rematch=None, epoch=1))
    return table_id


def _subset(whole: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.sets(st.sampled_from(sorted(whole))).map(
        lambda keys: {k: whole[k] for k in keys})


def _default(model: type[TableSettings] | type[Seat], key: str) -> Any:
    return model.model_fields[key].default


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])
@given(old_settings=_subset(OLD_SETTINGS),
       old_seats=st.tuples(*(_subset(seat) for seat in OLD_SEATS)))
def test_any_subset_of_an_old_rows_fields_loads_with_the_defaults(
        store: Store, old_settings: dict[str, Any],
        old_seats: tuple[dict[str, Any], ...]) -> None:
    table_id = _store_raw(store, old_settings, list(old_seats))
    row = store.row(table_id)
    assert row is not None
    for key in TableSettings.model_fields:
        got = getattr(row.settings, key)
        if key in old_settings:
            assert got == old_settings[key], key
        elif key == "players":
            assert got == len(old_seats)  # a row without it has as many as its seats
        else:
            assert got == _default(TableSettings, key), key
    assert row.settings.fair in (SCHEME_1, SCHEME_2)
    for stored, seat in zip(old_seats, row.seats, strict=True):
        for key in Seat.model_fields:
            want = stored[key] if key in stored else _default(Seat, key)
            assert getattr(seat, key) == want, key
    # What the store writes back is every field, and only the known ones.
    assert set(row.settings.stored()) == set(TableSettings.model_fields)
    assert all(set(seat.stored()) == set(Seat.model_fields) for seat in row.seats)
    # The room serves it: the facts every view and the lobby's answers are built from.
    room = Room(row, store, InProcessPool(), Settings())
    info = room.info()
    assert info["advisor"] is old_settings.get("advisor", True)
    assert info["turn_seconds"] == old_settings.get("turn_seconds")
    assert info["edition"] == old_settings.get("edition", "mino")
    assert info["seats_free"] == sum(1 for s in old_seats if s.get("name") is None)
    assert room.reveals.pending() == [
        i for i, s in enumerate(old_seats)
        if s.get("name") is not None and "client_seed" in s and s["client_seed"] is None]


def test_a_written_row_reads_back_as_written(store: Store) -> None:
    """Settings and seats go to their JSON columns whole and come back equal."""
    table_id = _store_raw(store, OLD_SETTINGS, OLD_SEATS)
    row = store.row(table_id)
    assert row is not None
    again = store.row(_store_raw(store, row.settings.stored(), [s.stored() for s in row.seats]))
    assert again is not None
    assert (again.settings, again.seats) == (row.settings, row.seats)
    assert json.loads(json.dumps(again.settings.stored())) == again.settings.stored()


@pytest.mark.parametrize(("stored_settings", "stored_seats", "why"), [
    ([1, 2], [], "settings are not a JSON object"),
    ({"players": 3}, {"name": "Ana"}, "seats are not a JSON list"),
    ({"players": 1}, ["Ana"], "a seat of the table is not a JSON object"),
    ({"players": "three"}, [], "players"),
    ({"players": 1}, [{"name": 7}], "name"),
])
def test_a_row_no_release_wrote_is_refused_in_a_sentence(
        store: Store, stored_settings: Any, stored_seats: Any, why: str) -> None:
    table_id = _store_raw(store, stored_settings, stored_seats)
    with pytest.raises(ValueError, match=why):
        store.row(table_id)
    lobby = Lobby(store, InProcessPool(), Settings())
    with pytest.raises(ApiError) as refused:
        lobby.room(table_id)
    assert refused.value.code == "damaged"
    assert table_id in lobby.damaged
