"""``minodice analyse``: a finished (or stopped) game's decisions, weighed seat by seat."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from minodice.bots.analysis import NOISE_POINTS, Analysis, analyse_game
from minodice.cli.common import app, check_range, progress_bar
from minodice.cli.records import exit_invalid_record, read_record_text
from minodice.core.errors import InvalidRecordError
from minodice.core.record import parse_record
from minodice.text.safe import json_text, printable


def render_analysis(analysis: Analysis) -> str:
    """The summary per player, then each player's biggest mistakes, for a person."""
    lines = [
        "Expected round points lost by each player's choices, from what that player could "
        "see at the time",
        f"(seed {analysis.seed}; a choice within {NOISE_POINTS:g} points of the best is "
        "not counted as a mistake)",
        "",
        f"{'player':<20} {'decisions':>9} {'lost':>8} {'per round':>9} {'bids':>8} "
        f"{'dice':>8} {'too high':>8} {'too low':>7}",
    ]
    for s in analysis.summaries:
        lines.append(
            f"{printable(s.player)[:20]:<20} {s.decisions:>9} {s.points_lost:>8.1f} "
            f"{s.lost_per_round:>9.1f} {s.bid_points_lost:>8.1f} {s.roll_points_lost:>8.1f} "
            f"{s.bids_too_high:>8} {s.bids_too_low:>7}")
    for s in analysis.summaries:
        lines.append("")
        lines.append(f"{printable(s.player)}: biggest mistakes")
        if not s.mistakes:
            lines.append("  none above the noise")
        for d in s.mistakes:
            chosen, best = d.value(d.chosen), d.value(d.best)
            what = "bid" if d.kind == "bid" else "rolled"
            lines.append(
                f"  {d.where}: {what} {d.chosen} (expected {chosen.expected_score:+.1f}, "
                f"makes the bid {chosen.make_chance:.0%}); best {d.best} "
                f"(expected {best.expected_score:+.1f}, {best.make_chance:.0%}): "
                f"{d.loss:.1f} points lost")
    return "\n".join(lines) + "\n"


@app.command()
def analyse(
    file: Annotated[str, typer.Argument(help="A game record (JSON), or - for standard input.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
    samples: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--samples", help="Simulated rounds per choice, at most 10000 (default: "
                     "by the decision's size, 60 to 600; the time grows with it)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed: the same record and seed, "
                                      "the same analysis.")] = 0,
) -> None:
    """Every decision of a game: the expected round score and chance of making the bid of
    the choice made against the best one, from that player's own view; the biggest
    mistakes and a summary per player."""
    if samples is not None:
        check_range("--samples", samples, 1, 10_000)
    if seed < 0:
        raise typer.BadParameter(f"{seed} is not 0 or more", param_hint="--seed")
    try:
        loaded = parse_record(read_record_text(file))
    except InvalidRecordError as exc:
        exit_invalid_record("analyse", exc, as_json)
    if not any(log.bids is not None for log in loaded.state.rounds):
        exit_invalid_record("analyse", InvalidRecordError(
            "the record has no decision to analyse (no round was bid)"), as_json, what="")
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

