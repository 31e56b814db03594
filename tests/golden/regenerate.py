"""Regenerate the golden files of ``tests/test_golden.py``.

    python tests/golden/regenerate.py           # (re)write every golden file
    python tests/golden/regenerate.py --check   # compare instead of writing; exit 1 on a change

For each case this writes ``NAME.json`` (a game record), ``NAME.txt`` (what
``minodice replay NAME.json`` prints) and ``NAME.summary.json`` (what
``minodice replay --json NAME.json`` prints). The records are seeded random games (every
player count, both editions, both variants, one game stopped in the middle of a trick) and
one hand-written record whose tricks exercise every bonus of R14.

The outputs are produced by running the real command, so a golden file is exactly what a
user sees. Review the diff after regenerating: a change in a golden file is a change in
behaviour.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from minodice.core.dice import load_dice_set
from minodice.core.record import dumps_record, export_record
from minodice.core.rules import Variant
from minodice.core.state import CHANCE, GameConfig, GameState, Phase
from minodice.play.simulate import play_random_game

HERE = Path(__file__).resolve().parent
NAMES = ["Ana", "Ben", "Cleo", "Dara", "Emil", "Fay"]
SOURCE = "tests/golden/regenerate.py"

Record = dict[str, Any]


def seeded_game(players: int, dice_set: str, variant: str, seed: str) -> Record:
    """A whole game between random legal players, from a string seed (stable across Pythons)."""
    rng = random.Random(seed)
    config = GameConfig(players, load_dice_set(dice_set), Variant(variant),
                        rng.randrange(players))
    state = play_random_game(config, rng)
    return export_record(state, NAMES[:players], {"source": SOURCE, "seed": seed})


def stopped_game(players: int, dice_set: str, variant: str, seed: str, round_no: int,
                 rolls: int) -> Record:
    """A random game stopped in round ``round_no``, in its second trick, after ``rolls`` rolls."""
    rng = random.Random(seed)
    state = GameState(GameConfig(players, load_dice_set(dice_set), Variant(variant),
                                 rng.randrange(players)))
    while not (state.round_no == round_no and state.phase is Phase.PLAY
               and state.trick_number() == 2 and len(state.trick) == rolls):
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
        else:
            actions = state.legal_actions()
            state.apply(actions[int(rng.random() * len(actions))])
    return export_record(state, NAMES[:players], {"source": SOURCE, "seed": seed})


def _roll(text: str) -> Record:
    player, die, face = text.split()
    return {"player": int(player), "die": die, "face": int(face) if face.isdigit() else face}


def _round(hands: str, bids: list[int], *tricks: str) -> Record:
    """A round in short notation: hands ``"red gray | griffin | ..."``, tricks
    ``"0 red 6, 1 griffin griffin, 2 gray flag"`` (player, die, face per roll)."""
    return {
        "hands": [hand.split() for hand in hands.split("|")],
        "bids": bids,
        "tricks": [[_roll(r) for r in trick.split(",")] for trick in tricks],
    }


def bonus_record() -> Record:
    """Hand-written: 3 players, 5 rounds, every R14 case. Totals [310, 110, 10] (worked below).

    Round 1 (Ana starts): minotaur beats two griffins, Ana's bid 1 is right: 20 + 60 bonus.
    Round 2 (Ben starts): all three symbols, the mermaid (Ana) wins and the minotaur showed:
    +50; Ana also wins trick 2 (5 is highest): bid 2 right, 40 + 50.
    Round 3 (Cleo starts): Ana's minotaur beats two griffins (+60 earned), but Ana bids 2 and
    wins 1 trick: -10 and no bonus (R14: only for an exact bid).
    Round 4 (Ana starts): Ana's mermaid wins while the minotaur shows a flag: no bonus;
    trick 4 is a tie on 5 that the later roll (Ana) wins.
    Round 5 (Ben starts): mermaid beats minotaur (+50 for Ana, bid 3 right: 60 + 50); in
    trick 3 a gray die showing a flag sets the colour to follow (gray), and trick 5 is a tie
    on 1 that the later roll wins.
    """
    return {
        "format": "minodice-record",
        "version": 1,
        "dice_set": "mino",
        "variant": "standard",
        "players": ["Ana", "Ben", "Cleo"],
        "first_starter": 0,
        "source": SOURCE,
        "note": "hand-written: every bonus of R14",
        "rounds": [
            _round("minotaur | griffin | griffin", [1, 0, 0],
                   "0 minotaur minotaur, 1 griffin griffin, 2 griffin griffin"),
            _round("mermaid red | minotaur yellow | griffin mermaid", [2, 0, 0],
                   "1 minotaur minotaur, 2 griffin griffin, 0 mermaid mermaid",
                   "0 red 5, 1 yellow 3, 2 mermaid flag"),
            _round("minotaur griffin red | griffin mermaid purple | griffin gray gray",
                   [2, 2, 0],
                   "2 griffin griffin, 0 minotaur minotaur, 1 griffin griffin",
                   "0 red 7, 1 mermaid mermaid, 2 gray flag",
                   "1 purple 2, 2 gray 1, 0 griffin flag"),
            _round("mermaid yellow yellow purple | minotaur red purple gray"
                   " | red red yellow gray", [2, 1, 0],
                   "0 mermaid mermaid, 1 minotaur flag, 2 red 7",
                   "0 yellow 4, 1 red 6, 2 yellow 3",
                   "1 purple 1, 2 gray 7, 0 purple 3",
                   "2 red 5, 0 yellow 5, 1 gray 1"),
            _round("mermaid red red yellow purple | minotaur griffin red gray gray"
                   " | purple purple yellow yellow gray", [3, 1, 2],
                   "1 minotaur minotaur, 2 purple 2, 0 mermaid mermaid",
                   "0 red 6, 1 red 7, 2 yellow 5",
                   "1 griffin flag, 2 gray flag, 0 red 5",
                   "0 yellow 3, 1 gray flag, 2 yellow 4",
                   "2 purple 1, 0 purple 1, 1 gray flag"),
        ],
    }


CASES: dict[str, Callable[[], Record]] = {
    "game-3p-mino-standard": lambda: seeded_game(3, "mino", "standard", "golden:3"),
    "game-4p-skull-king-standard": lambda: seeded_game(4, "skull-king", "standard", "golden:4"),
    "game-5p-mino-simplified": lambda: seeded_game(5, "mino", "simplified", "golden:5"),
    "game-6p-skull-king-simplified": lambda: seeded_game(
        6, "skull-king", "simplified", "golden:6"),
    "unfinished-4p-mino-mid-trick": lambda: stopped_game(
        4, "mino", "standard", "golden:unfinished", round_no=5, rolls=2),
    "bonuses-3p-mino": bonus_record,
}


def run_replay(record_path: Path, *options: str) -> bytes:
    """Standard output of ``minodice replay [OPTIONS] RECORD``, which must exit 0."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "minodice.cli", "replay", *options, str(record_path)],
        capture_output=True, env=env, check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"replay {record_path} failed:\n{proc.stderr.decode()}")
    return proc.stdout


def golden_files(name: str) -> dict[Path, bytes]:
    """The golden files of one case, computed now: record, replay text, replay JSON."""
    record = dumps_record(CASES[name]()).encode("utf-8")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name}.json"
        path.write_bytes(record)
        return {
            HERE / f"{name}.json": record,
            HERE / f"{name}.txt": run_replay(path),
            HERE / f"{name}.summary.json": run_replay(path, "--json"),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the files on disk instead of writing them")
    args = parser.parse_args()
    changed = []
    for name in CASES:
        for path, content in golden_files(name).items():
            if args.check:
                if not path.exists() or path.read_bytes() != content:
                    changed.append(path.name)
            else:
                path.write_bytes(content)
                print(f"wrote {path.relative_to(HERE.parent.parent)}")
    if changed:
        print("golden files out of date: " + ", ".join(changed), file=sys.stderr)
        print("run `python tests/golden/regenerate.py` and review the diff", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
