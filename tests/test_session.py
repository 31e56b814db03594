"""Sessions at the table: saving and resuming, and what a resumed record may not do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from minodice.play.session import Session, SessionError, new_session


def play_some(session: Session, decisions: int) -> None:
    for _ in range(decisions):
        seat = session.waiting_for()[0]
        action = (session.state.legal_actions(seat)[0] if session.seats[seat].is_human
                  else session.bot_decision(seat))
        session.apply(seat, action)


def saved(tmp_path: Path, decisions: int = 20) -> Path:
    session = new_session(4, ["Ana"], ["easy"], seed=4)
    play_some(session, decisions)
    path = tmp_path / "game.json"
    session.save(path)
    return path


def test_resume_keeps_the_records_other_keys(tmp_path: Path) -> None:
    path = saved(tmp_path)
    data = json.loads(path.read_text("utf-8"))
    data["note"] = "shared by Ana"
    path.write_text(json.dumps(data), "utf-8")
    session = Session.resume(path)
    play_some(session, 3)
    session.save(path)
    assert json.loads(path.read_text("utf-8"))["note"] == "shared by Ana"


def test_resume_does_not_run_outside_bots_named_in_a_record(tmp_path: Path) -> None:
    path = saved(tmp_path)
    marker = tmp_path / "ran"
    plugin = tmp_path / "evil.py"
    plugin.write_text(f"open({str(marker)!r}, 'w').write('x')\nclass X:\n"
                      "    def act(self, view, legal, rng):\n        return legal[0]\n")
    data = json.loads(path.read_text("utf-8"))
    data["session"]["bots"][1] = f"{plugin}:X"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(SessionError, match="outside bot"):
        Session.resume(path)
    assert not marker.exists()
    Session.resume(path, trust_bots=True)  # the person said they trust it
    assert marker.exists()


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("session"), "no session data"),
    (lambda d: d["session"].update(seed="x"), "damaged"),
    (lambda d: d["session"].update(bots=["easy"]), "damaged"),
])
def test_resume_refuses_records_it_cannot_seat(tmp_path: Path, change: object,
                                               message: str) -> None:
    path = saved(tmp_path)
    data = json.loads(path.read_text("utf-8"))
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(SessionError, match=message):
        Session.resume(path)


def test_resume_refuses_a_finished_game_without_touching_it(tmp_path: Path) -> None:
    session = new_session(3, ["Ana"], ["random"], seed=2)
    while not session.is_over():
        play_some(session, 1)
    path = tmp_path / "done.json"
    session.save(path)
    before = path.read_bytes()
    with pytest.raises(SessionError, match="finished game"):
        Session.resume(path)
    assert path.read_bytes() == before
