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
from minodice.core.errors import InvalidRecordError
from minodice.core.fair import (
    SCHEME_2,
    Binding,
    DiceMismatchError,
    Fairness,
    FairnessError,
    FairStream,
    UnfinishedRecordError,
    commitment,
    deal,
    first_starter,
    game_key,
    replacement_seed,
    roll,
    seed_hash,
    verify_record,
)
from minodice.core.record import load_record
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
    result = verify_record(record)
    assert result.rolls == sum(len(t) for rnd in record["rounds"] for t in rnd["tricks"])
    assert result.scheme == "minodice-fair-1"


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
    assert "every rule followed; totals: P0 " in result.output
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
    # a record of another program (simulate's, a hand-written one) is not "NOT FAIR": it
    # has nothing to check the dice against, and says where its rules are checked
    plain = tmp_path / "plain.json"
    record = fair_game()[0]
    del record["fairness"]
    plain.write_text(json.dumps(record), "utf-8")
    result = runner.invoke(app, ["verify", str(plain)])
    assert result.exit_code == 1
    assert result.output.startswith('minodice verify: cannot check the dice: the record has '
                                    'no "fairness" object'), result.output
    assert "NOT FAIR" not in result.output


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


# -- minodice-fair-2: committed seeds, a key bound to the game, the whole record checked ----


class Reference2(Reference):
    """PROTOCOL.md's fair-2 key and stream, as plainly as they are written."""

    def __init__(self, server_seed: bytes, client_seeds: list[str], table: str,
                 edition: str, variant: str, players: list[str]) -> None:
        message = json.dumps(["minodice-fair-2", table, edition, variant, players,
                              client_seeds], separators=(",", ":"), ensure_ascii=False)
        self.key = hmac.new(server_seed, message.encode(), hashlib.sha256).digest()
        self.i = 0
        self.buffer = b""

    def next_x(self) -> int:
        while len(self.buffer) < 8:
            block = hmac.new(self.key, ("minodice-fair-2:" + str(self.i)).encode(),
                             hashlib.sha256).digest()
            self.buffer += block
            self.i += 1
        x, self.buffer = int.from_bytes(self.buffer[:8], "big"), self.buffer[8:]
        return x


@given(st.binary(min_size=32, max_size=32),
       st.lists(st.text(max_size=8), min_size=3, max_size=6),
       st.sampled_from(["mino", "skull-king"]), st.integers(1, 6), st.text(min_size=1))
@settings(max_examples=60, deadline=None)
def test_fair_2_follows_the_protocol_text(server_seed: bytes, client_seeds: list[str],
                                          edition: str, r: int, name: str) -> None:
    players = [f"{name} {i}" for i in range(len(client_seeds))]
    ref = Reference2(server_seed, client_seeds, "tbl", edition, "standard", players)
    fair = Fairness("", server_seed, tuple(client_seeds), SCHEME_2)
    ours = FairStream(fair.key(Binding("tbl", edition, "standard", tuple(players))), SCHEME_2)
    ds = load_dice_set(edition)
    assert [sorted(h.names()) for h in deal(ours, ds, len(players), r)] == ref.deal(
        edition, len(players), r)
    for kind in ds.kinds:
        assert roll(ours, ds, kind.name).name == ref.roll(edition, kind.name)
    # the start player and a replaced seat's seed follow from the server seed alone
    label = hmac.new(server_seed, b"minodice-fair-2:first-starter", hashlib.sha256).digest()
    starter = Reference(b"", [])
    starter.key = label
    starter.next_x = Reference2.next_x.__get__(starter)  # type: ignore[method-assign]
    assert first_starter(server_seed, len(players)) == starter.draw(len(players))
    assert replacement_seed(server_seed, 2) == hmac.new(
        server_seed, b"minodice-fair-2:replace:2", hashlib.sha256).hexdigest()[:32]


def fair2_game(players: int = 4, edition: str = "mino", seed: int = 1,
               replaced: tuple[int, ...] = (), starter_moved: bool = False) -> dict[str, Any]:
    """A finished fair-2 game as a server records it (``starter_moved``: as a server that
    chose another start player than its seed fixes would)."""
    rng = random.Random(seed)
    server_seed = rng.randbytes(32)
    seeds = [f"{rng.getrandbits(64):016x}" for _ in range(players)]
    hashes = [seed_hash(s) for s in seeds]
    for seat in replaced:
        seeds[seat] = replacement_seed(server_seed, seat)
    names = [f"P{i}" for i in range(players)]
    fair = Fairness(commitment(server_seed), server_seed, tuple(seeds), SCHEME_2,
                    f"t{seed}able", tuple(hashes), replaced)
    config = GameConfig(players, load_dice_set(edition), Variant.STANDARD,
                        (first_starter(server_seed, players) + starter_moved) % players)
    key = fair.key(Binding(fair.table, edition, "standard", tuple(names)))
    table = Table(config, [SeatSpec(n, "random") for n in names],
                  FairChance(key, scheme=SCHEME_2), "b")
    table.start()
    while not table.is_over():
        seat = table.to_act()[0]
        table.act(seat, table.bot_decision(seat))
    record = table.record({"fairness": fair.to_json(),
                           "totals": list(table.view(None).totals)})
    return json.loads(json.dumps(record))  # type: ignore[no-any-return]


@pytest.mark.parametrize(("players", "edition", "replaced"),
                         [(3, "mino", ()), (4, "skull-king", (1,)), (6, "mino", (0, 5))])
def test_a_fair_2_game_verifies(players: int, edition: str, replaced: tuple[int, ...]) -> None:
    record = fair2_game(players, edition, replaced=replaced)
    result = verify_record(record)
    assert result.scheme == "minodice-fair-2"
    assert list(result.totals) == record["totals"]
    assert result.rolls == sum(len(t) for rnd in record["rounds"] for t in rnd["tricks"])


def other_bid(record: dict[str, Any]) -> dict[str, Any]:
    """A bid changed to another the rules allow: the record still loads, the scores move."""
    bad = copy.deepcopy(record)
    rnd = bad["rounds"][3]
    rnd["bids"][0] = (rnd["bids"][0] + 1) % 5
    return bad


def fair2_tampered(change: str) -> dict[str, Any]:
    record = fair2_game(seed=7)
    bad = copy.deepcopy(record)
    if change == "renamed":
        bad["players"][1] = "Mallory"
    elif change == "other table":
        bad["fairness"]["table"] = "elsewhere"
    elif change == "bid":
        bad = other_bid(record)
    elif change == "bid and totals":
        bad = other_bid(record)
        bad.pop("totals")
    elif change == "truncated":
        bad["rounds"] = bad["rounds"][:-1]
    elif change == "last trick cut":
        bad["rounds"][-1]["tricks"][-1] = bad["rounds"][-1]["tricks"][-1][:2]
    elif change == "seed not committed":
        bad["fairness"]["client_seeds"][2] = "a seed chosen later"
    elif change == "hash swapped":
        bad["fairness"]["client_seed_hashes"][2] = seed_hash("a seed chosen later")
    elif change == "replaced by choice":
        bad["fairness"]["replaced"] = [2]
    elif change == "first starter":
        bad = fair2_game(seed=7, starter_moved=True)
    elif change == "unheld minotaurs":
        # three rolls of round 8 become minotaur dice nobody held (the faces kept)
        for trick in bad["rounds"][7]["tricks"][:3]:
            trick[0].update(die="minotaur", face="minotaur")
    return bad


@pytest.mark.parametrize(("change", "message"), [
    ("renamed", "round 1"),
    ("other table", "round 1"),
    ("bid", "totals"),
    ("bid and totals", "totals"),
    ("truncated", "not finished"),
    ("last trick cut", "not finished"),
    ("seed not committed", "P2's revealed seed does not match"),
    ("hash swapped", "P2's revealed seed does not match"),
    ("replaced by choice", "P2's seed was replaced"),
    ("first starter", "first start player"),
    ("unheld minotaurs", "against the rules"),
])
def test_fair_2_tampering_is_caught(change: str, message: str) -> None:
    with pytest.raises(FairnessError, match=message):
        verify_record(fair2_tampered(change))


def test_a_face_changed_is_named_where_it_is_though_the_rules_break_later() -> None:
    """A face changed so that its trick goes to another player breaks the rules only at
    the next trick (someone else leads): verify names the face the seeds do not roll, not
    the lead that follows from it."""
    record = fair2_game(seed=5)
    dice = load_dice_set("mino")
    for r, rnd in enumerate(record["rounds"], start=1):
        for t, trick in enumerate(rnd["tricks"][:-1], start=1):
            for q, entry in enumerate(trick):
                for face in dice.kind(entry["die"]).faces:
                    bad = copy.deepcopy(record)
                    place = bad["rounds"][r - 1]["tricks"][t - 1]
                    place[q]["face"] = int(face.name) if face.name.isdigit() else face.name
                    try:
                        load_record(bad)
                    except InvalidRecordError as exc:
                        if (exc.round, exc.trick) > (r, t):
                            with pytest.raises(DiceMismatchError,
                                               match=f"round {r}, trick {t}, roll {q + 1}"):
                                verify_record(bad)
                            return
    pytest.fail("no face change that breaks a later trick's lead was found")


def test_wrong_totals_are_shown_whole_however_large() -> None:
    record = fair2_game(seed=5)
    record["totals"] = [10**50, 100, 1, 5]
    with pytest.raises(FairnessError,
                       match=r"the record's totals \[a number of 51 digits, 100, 1, 5\] are"):
        verify_record(record)


def test_a_cut_fair_1_record_is_refused() -> None:
    """fair-1 records keep verifying, but only whole: a cut one proves nothing."""
    record, _ = fair_game(seed=3)
    record["rounds"][-1]["tricks"] = record["rounds"][-1]["tricks"][:-1]
    with pytest.raises(UnfinishedRecordError, match="not finished"):
        verify_record(record)
    # the dice it has are checked all the same: a face changed in it (to another face of
    # that die, so that the rules still hold) is not fair
    first = record["rounds"][0]["tricks"][0][0]
    faces = [f.name for f in load_dice_set("mino").kind(first["die"]).faces]
    other = next(f for f in faces if f != str(first["face"]))
    first["face"] = int(other) if other.isdigit() else other
    load_record(record)  # within the rules
    with pytest.raises(DiceMismatchError, match="round 1, trick 1, roll 1"):
        verify_record(record)


def test_verify_command_refuses_in_one_line(tmp_path: Path) -> None:
    """A 1 MB name, JSON nested a million deep, a changed bid, a cut record: each one
    line on standard error, exit 1, no traceback."""
    runner = CliRunner()
    huge, _ = fair_game(seed=3)
    huge["players"][0] = "x" * 1_000_000
    cases = {
        "huge name": (json.dumps(huge), "NOT FAIR: player 1's name must be 1 to 32"),
        "nested": ("[" * 1_000_000 + "]" * 1_000_000, "invalid record: nested too deeply"),
        "bid": (json.dumps(fair2_tampered("bid")), "NOT FAIR: the record's totals"),
        "cut": (json.dumps(fair2_tampered("truncated")),
                "not vouched for: the 7 deals and"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text, "utf-8")
        result = runner.invoke(app, ["verify", str(path)])
        assert result.exit_code == 1, name
        assert message in result.output, (name, result.output[:300])
        assert "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1, name
        assert len(result.output) < 400, name
    for text, message in (cases["nested"], ("[1, 2", "invalid record: not JSON")):
        path = tmp_path / "broken.json"
        path.write_text(text, "utf-8")
        # the same words from every command that reads records (they read it alike)
        for command in ("verify", "replay", "analyse"):
            result = runner.invoke(app, [command, str(path)])
            assert result.exit_code == 1, command
            assert message in result.output, (command, result.output[:300])
    good = tmp_path / "good.json"
    good.write_text(json.dumps(fair2_game(seed=7)), "utf-8")
    result = runner.invoke(app, ["verify", str(good)])
    assert result.exit_code == 0, result.output
    assert "(minodice-fair-2, commit" in result.output
    assert "the stated totals are right: P0 " in result.output
