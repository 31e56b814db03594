"""Fit the play-out policy that imitates the search (issue 19, :mod:`minodice.bots.learned`).

    python scripts/fit_play_policy.py [--games 200] [--seed 1] [--bot expert] [--workers 2]

Plays ``--games`` four-player games of ``--bot`` against itself (every deal and every
bot's random numbers from ``--seed``: the same seed writes the same file) and records, at
every roll with more than one legal die, the :data:`~minodice.bots.learned.FEATURES` of
each legal die and the die the search rolled. It fits a conditional logit (the chance of
rolling a die is proportional to exp(weights · its features); Newton's method with a
small ridge) on the games but the last fifth, and reports on those held-out games how
often the fitted policy, and the expected-score policy it refines, roll the die the search
rolled. It writes ``src/minodice/bots/data/play-policy.json`` (``--out`` elsewhere), which
the package ships.
"""

from __future__ import annotations

import argparse
import json
import random
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from minodice.bots.learned import FEATURES, LearnedPlayPolicy, table_context
from minodice.bots.loading import make_bot
from minodice.bots.protocol import BotError
from minodice.bots.strength import ExpectedScorePolicy, strength_of
from minodice.core.actions import Roll
from minodice.core.dice import load_dice_set
from minodice.core.rules import Variant
from minodice.core.state import GameConfig, GameState, decision_seats
from minodice.core.view import view

OUT = Path(__file__).resolve().parent.parent / "src/minodice/bots/data/play-policy.json"
PLAYERS = 4

#: One decision: the features of each legal die, the index of the die rolled, and the
#: index of the die the expected-score policy would have rolled.
Decision = tuple[list[tuple[float, ...]], int, int]


def play(bot_name: str, seed: int, game: int) -> list[Decision]:
    """Game ``game`` of ``bot_name`` against itself, and its recorded decisions."""
    ds = load_dice_set("mino")
    strength = strength_of(ds)
    # Only its features are used: weights of zeros change nothing.
    features = LearnedPlayPolicy(strength, PLAYERS, [0.0] * len(FEATURES))
    plain = ExpectedScorePolicy(strength, PLAYERS)
    bots = [make_bot(bot_name) for _ in range(PLAYERS)]
    rng = random.Random(f"fit-play-policy:{seed}:{game}")
    state = GameState(GameConfig(PLAYERS, ds, Variant.STANDARD, game % PLAYERS))
    decisions: list[Decision] = []
    for seat in decision_seats(state, rng):
        legal = state.legal_actions(seat)
        action = bots[seat].act(view(state, seat), legal, rng) if len(legal) > 1 else legal[0]
        if isinstance(action, Roll) and len(legal) > 1:
            kinds = state.legal_kinds()
            rolled = state.rolled
            row = strength.p_win_row(state.symbol_mask, state.best_number, rolled == 0,
                                     PLAYERS - 1 - rolled)
            tricks_left = state.round_no - len(state.rounds[-1].winners)
            later_needing, table_need = table_context(state.bids, state.tricks_won, seat,
                                                      PLAYERS, rolled, tricks_left)
            hand, bid, won = state.hands[seat], state.bids[seat], state.tricks_won[seat]
            rows = features.features(kinds, hand, row, bid, won, state.round_no,
                                     later_needing, table_need, rolled == 0)
            chosen = kinds.index(action.kind.index)
            es = kinds.index(plain.choose(kinds, hand, row, bid, won, state.round_no))
            decisions.append((rows, chosen, es))
        state.apply(action, seat=seat)
    return decisions


def arrays(decisions: list[Decision]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features (decisions × most dice × features, zero-padded), the mask of real dice,
    and the index rolled."""
    width = max(len(d[0]) for d in decisions)
    x = np.zeros((len(decisions), width, len(FEATURES)))
    mask = np.zeros((len(decisions), width), dtype=bool)
    for i, (rows, _, _) in enumerate(decisions):
        x[i, :len(rows)] = rows
        mask[i, :len(rows)] = True
    return x, mask, np.array([d[1] for d in decisions])


def fit(x: np.ndarray, mask: np.ndarray, y: np.ndarray, ridge: float = 1.0,
        steps: int = 30) -> np.ndarray:
    """The conditional logit's weights by Newton's method (the log-likelihood is concave,
    the ridge makes it strictly so)."""
    n, _, d = x.shape
    w = np.zeros(d)
    rows = np.arange(n)
    for _ in range(steps):
        scores = np.where(mask, x @ w, -np.inf)
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("nj,njd->nd", p, x)
        grad = (x[rows, y] - mean).sum(axis=0) - ridge * w
        second = np.einsum("nj,njd,nje->de", p, x, x) - mean.T @ mean
        step = np.linalg.solve(second + ridge * np.eye(d), grad)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return w


def agreement(w: np.ndarray, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> float:
    """How often the die with the highest weighted features is the one rolled."""
    scores = np.where(mask, x @ w, -np.inf)
    return float((scores.argmax(axis=1) == y).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", default="expert")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.games < 5:
        parser.error("--games must be at least 5 (a fifth of them is held out)")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    try:
        make_bot(args.bot)  # a wrong --bot is told here, not as a worker's traceback
    except BotError as exc:
        parser.error(f"--bot: {exc}")
    with ProcessPoolExecutor(args.workers) as pool:
        games = list(pool.map(play, [args.bot] * args.games, [args.seed] * args.games,
                              range(args.games)))
    held = max(1, args.games // 5)
    train = [d for g in games[:-held] for d in g]
    test = [d for g in games[-held:] for d in g]
    x, mask, y = arrays(train)
    w = fit(x, mask, y)
    tx, tmask, ty = arrays(test)
    learned = agreement(w, tx, tmask, ty)
    plain = sum(d[1] == d[2] for d in test) / len(test)
    data = {
        "about": f"the search's rolls in {args.games} self-play games of four {args.bot} "
                 f"bots, seed {args.seed} (scripts/fit_play_policy.py); held out: the last "
                 f"{held} games",
        "features": list(FEATURES),
        "weights": [round(float(v), 5) for v in w],
        "decisions": {"train": len(train), "held_out": len(test)},
        "held_out_agreement": {"learned": round(learned, 4),
                               "expected_score_policy": round(plain, 4)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
