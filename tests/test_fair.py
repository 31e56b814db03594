"""Fair dice (``minodice-fair-1``): the stream, deals and rolls against an independent
reading of PROTOCOL.md, records that verify, and every kind of tampering caught."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from minodice.cli import app
from minodice.core.dice import load_dice_set
from minodice.core.fair import (
    FairnessError,
    FairStream,
    commitment,
    deal,
    game_key,
    roll,
    verify_record,
)
from minodice.core.rules import Variant
from minodice.core.state import GameConfig
from minodice.play.table import FairChance, ReplayError, SeatSpec, Table

# -- an independent implementation, written from PROTOCOL.md's words alone ---------------

BAGS = {
    "mino": [("minotaur", 1), ("griffin", 3), ("mermaid", 2), ("red", 7), ("yellow", 7),
             ("purple", 8), ("gray", 8)],
    "skull-king": [("skull-king", 1), ("pirate", 3), ("mermaid", 2), ("black", 7), ("blue", 7),
                   ("red", 8), ("yellow", 8)],
}
FACES = {
    "minotaur": ["minotaur"] * 4 + ["flag"] * 2, "griffin": ["griffin"] * 4 + ["flag"] * 2,
    "mermaid": ["mermaid"] * 4 + ["flag"] * 2, "red": ["5", "5", "6", "6", "7", "7"],
    "yellow": ["3", "3", "4", "4", "5", "5"], "purple": ["1", "1", "2", "2", "3", "3"],
    "gray": ["flag", "flag", "flag", "1", "1", "7"],
    "skull-king": ["skull-king"] * 4 + ["flag"] * 2, "pirate": ["pirate"] * 4 + ["flag"] * 2,
    "black": ["5", "5", "6", "6", "7", "7"], "blue": ["3", "3", "4", "4", "5", "5"],
}
SK_FACES = {"red": ["1", "1", "2", "2", "3", "3"], "yellow": ["flag", "flag", "flag", "1", "1",
                                                              "7"]}


class Reference:
    """PROTOCOL.md steps 3–5, as plainly as they are written."""

    def __init__(self, server_seed: bytes, client_seeds: list[str]) -> None:
        self.key = hashlib.sha256(server_seed + b"|" + "|".join(client_seeds).encode()).digest()
        self.i = 0
        self.buffer = b""

    def next_x(self) -> int:
        while len(self.buffer) < 8:
            block = hmac.new(self.key, ("minodice-fair-1:" + str(self.i)).encode(),
                             hashlib.sha256).digest()
            self.buffer += block
            self.i += 1
        x, self.buffer = int.from_bytes(self.buffer[:8], "big"), self.buffer[8:]
        return x

    def draw(self, m: int) -> int:
        while True:
            x = self.next_x()
            if x < (2**64 // m) * m:
                return x % m

    def deal(self, edition: str, players: int, r: int) -> list[list[str]]:
        bag = [kind for kind, count in BAGS[edition] for _ in range(count)]
        for i in range(len(bag) - 1, 0, -1):
            j = self.draw(i + 1)
            bag[i], bag[j] = bag[j], bag[i]
        return [sorted(bag[p * r:(p + 1) * r]) for p in range(players)]

    def roll(self, edition: str, kind: str) -> str:
        faces = SK_FACES[kind] if edition == "skull-king" and kind in SK_FACES else FACES[kind]
        return faces[self.draw(6)]


@given(st.binary(min_size=32, max_size=32),
       st.lists(st.text(max_size=8), min_size=3, max_size=6),
       st.sampled_from(["mino", "skull-king"]), st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_deals_and_rolls_follow_the_protocol_text(server_seed: bytes, client_seeds: list[str],
                                                 edition: str, r: int) -> None:
    players = len(client_seeds)
    ref = Reference(server_seed, client_seeds)
    ours = FairStream(game_key(server_seed, client_seeds))
    ds = load_dice_set(edition)
    assert [sorted(h.names()) for h in deal(ours, ds, players, r)] == ref.deal(
        edition, players, r)
    for kind in ds.kinds:
        assert roll(ours, ds, kind.name).name == ref.roll(edition, kind.name)


def test_draw_rejects_the_top_of_the_range() -> None:
    """A word at or above (2**64 // m) * m is skipped, not folded (no modulo bias)."""

    class Fixed(FairStream):
        def __init__(self, words: list[int]) -> None:
            super().__init__(b"k")
            self.words = words

        def _word(self) -> int:
            self.position += 1
            return self.words.pop(0)

    top = (2**64 // 6) * 6
    assert Fixed([top, top + 1, 13]).draw(6) == 13 % 6
    assert Fixed([top - 1]).draw(6) == (top - 1) % 6


def test_commitment_is_sha256_of_the_seed() -> None:
    seed = bytes(range(32))
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()


# -- whole games on a fair table, and their records ---------------------------------------


def fair_game(players: int = 4, edition: str = "mino", seed: int = 1,
              client_seeds: tuple[str, ...] = ()) -> tuple[dict[str, Any], Table]:
    rng = random.Random(seed)
    server_seed = rng.randbytes(32)
    seeds = list(client_seeds) or [f"{rng.getrandbits(64):016x}" for _ in range(players)]
    config = GameConfig(players, load_dice_set(edition), Variant.STANDARD, 0)
    seats = [SeatSpec(f"P{i}", "random") for i in range(players)]
    table = Table(config, seats, FairChance(game_key(server_seed, seeds)), "b")
    table.start()
    while not table.is_over():
        seat = table.to_act()[0]
        table.act(seat, table.bot_decision(seat))
    record = table.record({"fairness": {
        "scheme": "minodice-fair-1", "commit": commitment(server_seed),
        "server_seed": server_seed.hex(), "client_seeds": seeds}})
    return json.loads(json.dumps(record)), table


@pytest.mark.parametrize(("players", "edition"), [(3, "mino"), (4, "skull-king"), (6, "mino")])
def test_a_fair_game_verifies(players: int, edition: str) -> None:
    record, _ = fair_game(players, edition)
    rolls = verify_record(record)
    assert rolls == sum(len(t) for rnd in record["rounds"] for t in rnd["tricks"])


def tampered(change: str) -> dict[str, Any]:
    record, _ = fair_game(seed=3)
    bad = copy.deepcopy(record)
    if change == "face":
        roll0 = bad["rounds"][2]["tricks"][1][0]
        faces = [f for f in FACES[roll0["die"]] if f != str(roll0["face"])]
        roll0["face"] = int(faces[0]) if faces[0].isdigit() else faces[0]
    elif change == "hand":
        hands = bad["rounds"][4]["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
        if sorted(hands[0]) == sorted(record["rounds"][4]["hands"][0]):
            hands[0][0] = "minotaur" if hands[0][0] != "minotaur" else "red"
    elif change == "server_seed":
        bad["fairness"]["server_seed"] = "00" * 32
    elif change == "client_seed":
        bad["fairness"]["client_seeds"][2] = "mine"
    elif change == "commit":
        bad["fairness"]["commit"] = "ab" * 32
    elif change == "missing":
        del bad["fairness"]
    return bad


@pytest.mark.parametrize(("change", "message"), [
    ("face", "round 3, trick 2, roll 1"),
    ("hand", "round 5"),
    ("server_seed", "commitment"),
    ("client_seed", "round 1"),
    ("commit", "commitment"),
    ("missing", "fairness"),
])
def test_tampering_is_caught(change: str, message: str) -> None:
    with pytest.raises(FairnessError, match=message):
        verify_record(tampered(change))


def test_verify_command(tmp_path: Path) -> None:
    runner = CliRunner()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(fair_game()[0]), "utf-8")
    result = runner.invoke(app, ["verify", str(good)])
    assert result.exit_code == 0, result.output
    assert "fair: 8 deals" in result.output
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered("face")), "utf-8")
    result = runner.invoke(app, ["verify", str(bad)])
    assert result.exit_code == 1
    assert "NOT FAIR: round 3, trick 2, roll 1" in result.output
    assert "Traceback" not in result.output
    for text in ("not json", '{"format": "minodice-record"}'):
        broken = tmp_path / "broken.json"
        broken.write_text(text, "utf-8")
        result = runner.invoke(app, ["verify", str(broken)])
        assert result.exit_code == 1
        assert "invalid record" in result.output
    result = runner.invoke(app, ["verify", str(tmp_path / "missing.json")])
    assert result.exit_code == 1
    assert "no such file" in result.output


def test_a_fair_table_replays_its_log_and_notices_a_forged_one() -> None:
    from minodice.play.table import PRIMARY, Rolled

    record, table = fair_game(seed=5)
    log = [e for e in table_log(table) if isinstance(e, PRIMARY)]
    fresh = Table(table.config, table.seats, FairChance(key_of(record)), "b")
    fresh.replay(log)
    assert fresh.record() == table.record()
    forged = list(log)
    index = next(i for i, e in enumerate(forged) if isinstance(e, Rolled))
    event = forged[index]
    assert isinstance(event, Rolled)
    other = next(f.name for f in load_dice_set("mino").kind(event.kind).faces
                 if f.name != event.face)
    forged[index] = Rolled(event.seat, event.kind, other)
    with pytest.raises(ReplayError):
        Table(table.config, table.seats, FairChance(key_of(record)), "b").replay(forged)


def key_of(record: dict[str, Any]) -> bytes:
    fair = record["fairness"]
    return game_key(bytes.fromhex(fair["server_seed"]), fair["client_seeds"])


def table_log(table: Table) -> list[Any]:
    """The primary events of a finished table, rebuilt from its record."""
    from minodice.play.table import BidMade, Dealt, Rolled

    events: list[Any] = []
    record = table.record()
    for r, rnd in enumerate(record["rounds"], start=1):
        events.append(Dealt(r, tuple(tuple(h) for h in rnd["hands"])))
        events.extend(BidMade(s, b) for s, b in enumerate(rnd["bids"]))
        for trick in rnd["tricks"]:
            events.extend(Rolled(e["player"], e["die"], str(e["face"])) for e in trick)
    return events
