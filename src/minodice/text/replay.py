"""A game shown to a person as plain text: hands, bids, every roll, who won each trick and
why, each round's score breakdown and the score table (``minodice replay``).

Plain text, no colour and no terminal tricks, so that the output is the same in a pipe,
in a golden file and on screen. Names are what people typed: control characters in them
are written as escapes (:func:`~minodice.text.safe.printable`), never sent raw.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

from minodice.core.rules import resolve_trick, starter_of_round
from minodice.core.state import GameState, Phase
from minodice.i18n import translator
from minodice.i18n.words import Words
from minodice.text.safe import pad_cells, printable


def _join(names: Sequence[str], values: Sequence[object]) -> str:
    return " · ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


def render_replay(state: GameState, names: Sequence[str], *, show_hands: bool = False) -> str:
    """The whole game so far as text, ending with the score table and the result.

    The hands of a round still being played are left out (each seat's dice not yet rolled
    are counted, not named) unless ``show_hands``: a hot-seat game's save replayed between
    two turns would otherwise show every player the others' dice. A finished round's hands
    are shown, as they are at the table once its dice are all rolled.
    """
    names = [printable(n) for n in names]
    ds = state.dice_set
    words = Words(translator("en"), ds)
    out: list[str] = []
    out.append(
        f"{words.title()} · {state.n} players: {', '.join(names)} · dice set {ds.name} · "
        f"variant {state.variant.value} · {state.n_rounds} rounds"
        # RULES.md's open points, only where the game played them otherwise
        + ("" if state.config.options.is_default else f" · rules {state.config.options}")
    )
    config = state.config
    for index, log in enumerate(state.rounds):
        r = index + 1
        if log is state.rounds[-1] and state.phase is Phase.DRAW:
            break
        out.append("")
        starter = starter_of_round(config.first_starter, r, state.n, config.options.start)
        out.append(f"Round {r} · start player {names[starter]}")
        in_play = log.points is None and not show_hands
        for seat in range(state.n):
            hand = ds.hand_of_key(log.hands[seat])
            if in_play:
                rolled = sum(1 for trick in log.tricks for s, _, _ in trick if s == seat)
                drawn = len(hand.names())
                out.append(f"  {pad_cells(names[seat], 12)} drew {drawn} "
                           f"{'die' if drawn == 1 else 'dice'} ({drawn - rolled} not yet rolled)")
            else:
                out.append(f"  {pad_cells(names[seat], 12)} drew {', '.join(hand.names())}")
        if in_play:
            out.append("  (hands hidden while the round is played; replay --show-hands "
                       "shows them)")
        if log.bids is None:
            out.append("  Bids: not all in yet")
            continue
        out.append(f"  Bids: {_join(names, log.bids)}")
        for t_index, trick in enumerate(log.tricks):
            if not trick:
                continue
            rolls = ", ".join(
                f"{names[seat]} {ds.kinds[kind].name}→{ds.face_of_code(code).name}"
                for seat, kind, code in trick
            )
            out.append(f"  Trick {t_index + 1}: {rolls}")
            if len(trick) < state.n:
                out.append("           (trick in progress)")
                continue
            result = resolve_trick([(seat, code) for seat, _, code in trick])
            why = words.reason(result, trick[result.winning_roll][2])
            out.append(f"           {names[result.winner]} wins: {why}")
        if log.points is None or log.bonus is None:
            continue
        won = [0] * state.n
        for w in log.winners:
            won[w] += 1
        out.append("  Score:")
        for seat in range(state.n):
            bonus = log.bonus[seat]
            extra = f" (bonus {_signed(bonus)})" if bonus else ""
            out.append(
                f"    {pad_cells(names[seat], 12)} bid {log.bids[seat]}, won {won[seat]}: "
                f"{_signed(log.points[seat])}{extra}"
            )
    out.append("")
    out.append(render_score_table(state, names))
    return "\n".join(out) + "\n"


def render_score_table(state: GameState, names: Sequence[str]) -> str:
    """The score pad: running totals after each round, then the result."""
    names = [printable(n) for n in names]
    width = max(8, *(cell_len(n) + 1 for n in names))
    header = "Round ".ljust(8) + "".join(pad_cells(n, width, right=True) for n in names)
    lines = ["Score table", header]
    for index, log in enumerate(state.rounds):
        if log.points is None or log.totals is None:
            break
        cells = "".join(str(total).rjust(width) for total in log.totals)
        lines.append(f"{index + 1:<8}{cells}")
    lines.append("Total".ljust(8) + "".join(str(t).rjust(width) for t in state.totals))
    if state.is_terminal():
        top = state.winners()
        if len(top) == 1:
            lines.append(f"Winner: {names[top[0]]} with {state.totals[top[0]]}")
        else:
            shared = ", ".join(names[s] for s in top)
            lines.append(f"Shared victory: {shared} with {state.totals[top[0]]}")
    else:
        lines.append(f"Game not finished: round {state.round_no} of {state.n_rounds}")
    return "\n".join(lines)
