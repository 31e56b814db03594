"""Commands for bots: ``tournament`` and the bid advisor ``advise``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from minodice.bots.advisor import AdviceError
from minodice.bots.advisor import advise as advise_bid
from minodice.bots.protocol import BotError
from minodice.cli.common import (
    LEVELS,
    MAX_TIME_LIMIT,
    MAX_TOURNAMENT_GAMES,
    Edition,
    EditionOpt,
    PlayersOpt,
    RecordsFolder,
    SpecialLeadOpt,
    SpecialLeadOption,
    StartOpt,
    StartOption,
    Terminated,
    VariantOpt,
    VariantOption,
    app,
    check_float,
    check_range,
    check_seed,
    exit_bot_stopped,
    lineup,
    non_empty_path,
    progress_bar,
    rule_options,
    terminate_as_interrupt,
)
from minodice.cli.reports import render_advice, render_tournament
from minodice.play.tournament import (
    TournamentSpec,
    fresh_seed,
    paired_differences,
    run_games,
    summarize_games,
)
from minodice.text.safe import printable


@app.command()
def tournament(
    bots: Annotated[str, typer.Option("--bots", help="Comma-separated bots, one per seat or one "
                                      "for all: "
                                      f"{LEVELS}, file.py:Class or module:Class.")],
    players: PlayersOpt = 4,
    games: Annotated[int, typer.Option("--games", "-g", help="Number of games.")] = 100,
    seed: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--seed", "-s", help="Seed: the same seed, the same tournament "
                     "(default: a fresh one, printed; a bot cannot guess it)."),
    ] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Processes to use.")] = 1,
    edition: EditionOpt = Edition.mino,
    variant: VariantOpt = VariantOption.standard,
    start_rule: StartOpt = StartOption.rotate,
    special_lead: SpecialLeadOpt = SpecialLeadOption.first_number,
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds a bot may take "
                                              "for one decision.")] = 10.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    ray: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        # The backslash keeps the help's Rich markup from taking [research] for a tag.
        typer.Option("--ray", metavar="ADDRESS", help="Play on a Ray cluster: its address, "
                     "'auto' (the cluster this machine is in) or 'local' (Ray started here "
                     "with --workers CPUs); the same results. Needs minodice\\[research]."),
    ] = None,
    save_records: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--save-records", parser=non_empty_path, help="Write each game's record "
                     "into this folder as it ends (game-0001.json, …, in game order: 'minodice "
                     "replay', 'analyse' and 'play --resume' read them); records already "
                     "there are kept unless --force."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="With --save-records: replace "
                                        "records of the same names.")] = False,
) -> None:
    """Bots against bots: rotated seats, duplicate deals, statistics per bot."""
    check_range("--players", players, 3, 6)
    check_range("--games", games, 1, MAX_TOURNAMENT_GAMES)
    check_range("--workers", workers, 1, 64)
    check_float("--time-limit", time_limit, 0, MAX_TIME_LIMIT, above=True)
    seats = lineup(bots, players)
    if seed is None:
        seed = fresh_seed()
    check_seed(seed)
    folder = (RecordsFolder("tournament", save_records, games, force)
              if save_records is not None else None)
    options = rule_options(start_rule, special_lead)
    spec = TournamentSpec(players, tuple(seats), games, seed, edition.value, variant.value,
                          time_limit, records=folder is not None, options=options)
    on_record = folder.write if folder is not None else None
    try:
        with terminate_as_interrupt():
            if sys.stderr.isatty():
                with progress_bar(own_thread=False) as progress:
                    task = progress.add_task("Playing", total=games)
                    results = run_games(
                        spec, workers,
                        lambda done: progress.update(task, completed=done, refresh=True), ray,
                        on_record)
            else:
                results = run_games(spec, workers, ray_address=ray, on_record=on_record)
    except BotError as exc:
        exit_bot_stopped("tournament", exc, seed, folder, as_json)
    except KeyboardInterrupt as exc:
        # The workers are ended already; the interpreter's own exit would run the process
        # pool's exit hook, which in Python 3.11 can print a traceback of its closed pipe.
        how = "stopped (SIGTERM)" if isinstance(exc, Terminated) else "interrupted"
        typer.echo(f"minodice tournament: {how} (seed {seed}); records written so far "
                   "are kept", err=True)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(143 if isinstance(exc, Terminated) else 130)
    stats = summarize_games(results)
    pairs = paired_differences(results)
    if as_json:
        typer.echo(json.dumps({
            "players": players, "games": games, "seed": seed, "edition": edition.value,
            "variant": variant.value, "rule_options": options.as_json(),
            "deals": max(s.deals for s in stats),
            "bots": [s.to_json() for s in stats], "pairs": [p.to_json() for p in pairs]}))
    else:
        typer.echo(render_tournament(stats, games, players, pairs, seed))
        if folder is not None:
            typer.echo(f"Records saved in {printable(str(folder.folder))}/")


@app.command()
def advise(
    hand: Annotated[str, typer.Option("--hand", help="Your dice, comma-separated, e.g. "
                                      "red,red,griffin,gray,purple.")],
    players: PlayersOpt = 4,
    round_no: Annotated[int, typer.Option("--round", "-r", show_default=False,
                                          help="Round number (default: the number of dice "
                                          "in --hand).")] = 0,
    seat: Annotated[int, typer.Option("--seat", help="Your position after the round's start "
                                      "player: 0 if you start.")] = 0,
    edition: EditionOpt = Edition.mino,
    variant: VariantOpt = VariantOption.standard,
    samples: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--samples", help="Simulated rounds (at most 100000): every bid gets "
                     "half this many "
                     "(at least 10) for a first look, then the three most promising this many "
                     "more. Default: by the round's size, 60 to 1000 (so the best bid rests "
                     "on 90 to 1500 rounds)."),
    ] = None,
    seed: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--seed", "-s", help="Seed, for the same answer every time."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the advice as JSON.")] = False,
) -> None:
    """Bid advice for the physical game: odds of every bid for the dice behind your screen."""
    if samples is not None:
        check_range("--samples", samples, 1, 100_000)
    if seed is not None:
        check_seed(seed)
    dice = len([p for p in hand.split(",") if p.strip()])
    if dice == 0:
        raise typer.BadParameter("no dice given: name the dice behind your screen, "
                                 "e.g. red,gray,griffin", param_hint="--hand")
    if round_no == 0:
        round_no = dice
    try:
        advice = advise_bid(players, round_no, seat, hand, edition.value, variant.value,
                            samples, seed)
    except AdviceError as exc:
        typer.echo(f"minodice advise: {exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(advice.to_json()))
    else:
        typer.echo(render_advice(advice))
