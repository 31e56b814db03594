"""``minodice analyse``: a finished (or stopped) game's decisions, weighed seat by seat."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer
from rich.cells import cell_len

from minodice.bots.analysis import NOISE_POINTS, SIGNIFICANCE, Analysis, analyse_game
from minodice.cli.common import app, check_range, check_seed, progress_bar
from minodice.cli.records import exit_invalid_record, read_record_text
from minodice.core.errors import InvalidRecordError
from minodice.core.record import LoadedRecord, export_record, load_record, parse_record
from minodice.core.state import GameState
from minodice.text.safe import fit_cells, json_text, printable


def render_analysis(analysis: Analysis) -> str:
    """The summary per player, then each player's biggest mistakes, for a person."""
    names = [printable(s.player) for s in analysis.summaries]
    width = max(6, min(40, max((cell_len(n) for n in names), default=6)))
    worlds = sorted({d.samples for d in analysis.decisions})
    rounds = analysis.summaries[0].rounds if analysis.summaries else 0
    weighed = (f"{worlds[0]}" if len(worlds) == 1 else f"{worlds[0]} to {worlds[-1]}"
               if worlds else "no")
    lines = [
        "Expected round points lost by each player's choices, from what that player could "
        "see at the time.",
        f"Each choice weighed in {weighed} sampled worlds (seed {analysis.seed}); where "
        "another choice looked better, both were weighed again on fresh worlds.",
        f"A mistake loses more than {NOISE_POINTS:g} points, and more than "
        f"{SIGNIFICANCE:g} standard errors of that measure.",
    ]
    if not analysis.finished:
        lines.append(f"The record stops before the game's end: {rounds} "
                     f"round{'' if rounds == 1 else 's'} analysed.")
    lines += [
        "",
        "lost: expected points lost in the game, and a round; of them in bids and in dice.",
        "bids high / low: mistaken bids above / below the best bid.",
        f"{'player':<{width}} {'decisions':>9} {'lost':>7} {'a round':>7} {'in bids':>7} "
        f"{'in dice':>7} {'bids high':>9} {'bids low':>8}",
    ]
    for name, s in zip(names, analysis.summaries, strict=True):
        lines.append(
            f"{fit_cells(name, width)} {s.decisions:>9} {s.points_lost:>7.1f} "
            f"{s.lost_per_round:>7.1f} {s.bid_points_lost:>7.1f} {s.roll_points_lost:>7.1f} "
            f"{s.bids_too_high:>9} {s.bids_too_low:>8}")
    for name, s in zip(names, analysis.summaries, strict=True):
        lines.append("")
        lines.append(f"{name}: biggest mistakes")
        if not s.mistakes:
            lines.append("  none beyond the noise")
        for d in s.mistakes:
            chosen, best = d.value(d.chosen), d.value(d.best)
            what = "bid" if d.kind == "bid" else "rolled"
            lines.append(
                f"  {d.where}: {what} {d.chosen} (expected {chosen.expected_score:+.1f}, "
                f"makes the bid {chosen.make_chance:.0%}); best {d.best} "
                f"(expected {best.expected_score:+.1f}, {best.make_chance:.0%}): "
                f"{d.loss:.1f} points lost (± {d.loss_se:.1f})")
    return "\n".join(lines) + "\n"


@app.command(short_help="Every decision of a game weighed from that player's own view: "
                   "its cost, the biggest mistakes, a summary per player.")
def analyse(
    file: Annotated[str, typer.Argument(help="A game record (JSON), or - for standard input.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
    samples: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--samples", help="Sampled worlds per choice, at most 10000 (default: "
                     "by the decision's size, 60 to 600; a choice weighed again against the "
                     "best gets up to 4 times as many; the time grows with it)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed: the same record and seed, "
                                      "the same analysis.")] = 0,
    show_hands: Annotated[
        bool, typer.Option("--show-hands", help="Analyse a round still being played too "
                           "(left out by default: its choices name dice that are still a "
                           "player's secret at a shared screen).")
    ] = False,
) -> None:
    """Every decision of a game, weighed from that player's own view: what the choice made
    was worth (expected round score, chance of making the bid) against the best one; the
    biggest mistakes and a summary per player."""
    if samples is not None:
        check_range("--samples", samples, 1, 10_000)
    check_seed(seed)
    try:
        loaded = parse_record(read_record_text(file))
    except InvalidRecordError as exc:
        exit_invalid_record("analyse", exc, as_json)
    in_play = _round_in_play(loaded.state)
    if in_play is not None and not show_hands:
        loaded = _without_the_round_in_play(loaded)
    if not any(log.bids is not None for log in loaded.state.rounds):
        why = ("no round was bid" if in_play is None or show_hands else
               f"round {in_play} is still being played and left out: --show-hands "
               "analyses it")
        exit_invalid_record("analyse", InvalidRecordError(
            f"the record has no decision to analyse ({why})"), as_json, what="")
    if sys.stderr.isatty():
        with progress_bar() as progress:
            task = progress.add_task("Analysing", total=None)

            def step(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            analysis = analyse_game(loaded.state, loaded.players, seed, samples, None, step)
    else:
        analysis = analyse_game(loaded.state, loaded.players, seed, samples)
    if as_json:
        typer.echo(json_text(analysis.to_json()))
    else:
        typer.echo(render_analysis(analysis), nl=False)
        if in_play is not None and not show_hands:
            typer.echo(f"\nRound {in_play} is still being played: it is left out, its "
                       "choices naming dice that are still secret (--show-hands analyses "
                       "it too).")


def _round_in_play(state: GameState) -> int | None:
    """The number of a round bid but not yet scored in a game not over, if any."""
    if state.is_terminal():
        return None
    for number, log in enumerate(state.rounds, start=1):
        if log.bids is not None and log.points is None:
            return number
    return None


def _without_the_round_in_play(loaded: LoadedRecord) -> LoadedRecord:
    """The record up to its last scored round (the round in play and any later bidding
    left out), read again as a record, which checks it."""
    record = export_record(loaded.state, loaded.players, loaded.extra)
    record["rounds"] = [r for r, log in zip(record["rounds"], loaded.state.rounds,
                                            strict=False) if log.points is not None]
    return load_record(record)

