"""Commands on games and records: ``replay``, ``simulate``, ``demo``."""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer

from minodice.bots.loading import make_bot
from minodice.bots.protocol import BotError
from minodice.cli.common import (
    LEVELS,
    MAX_SIMULATED_GAMES,
    MAX_TIME_LIMIT,
    Edition,
    EditionOpt,
    PlayersOpt,
    RecordsFolder,
    SpecialLeadOpt,
    SpecialLeadOption,
    StartOpt,
    StartOption,
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
)
from minodice.core.dice import load_dice_set
from minodice.core.errors import InvalidRecordError
from minodice.core.record import LoadedRecord, export_record, parse_record, summarize
from minodice.core.rules import RuleOptions, Variant
from minodice.core.state import GameConfig, GameState
from minodice.files import UnreadableError, read_capped, read_text
from minodice.play.match import distinct_names, play_bot_game
from minodice.play.simulate import SimulationSummary, game_rng, play_random_game, simulate
from minodice.text.replay import render_replay
from minodice.text.safe import json_text, one_line, printable


class UnreadRecordError(InvalidRecordError):
    """No record was read (no such file, a folder, no permission, no path): said as such,
    not as an invalid record; a script reading ``--json`` gets the same error object."""


def read_record_text(file: str) -> str:
    """A record's text from a file or standard input (``-``), read up to 16 MB; every
    problem is an :class:`InvalidRecordError` with one line saying it."""
    if not file:
        raise UnreadRecordError("no file given: the record's path is empty")
    try:
        if file == "-":
            return read_capped(sys.stdin.buffer, "standard input")
        return read_text(Path(file))
    except UnreadableError as exc:
        raise UnreadRecordError(str(exc)) from None
    except ValueError as exc:  # read, but no text of a record (not UTF-8, too large)
        raise InvalidRecordError(str(exc)) from None


def exit_invalid_record(command: str, exc: InvalidRecordError, as_json: bool,
                        what: str = "invalid record: ") -> NoReturn:
    """Say why the record is refused (on standard error; with ``--json`` also as RECORD.md's
    error object on standard output, for a script reading it) and exit with status 1.

    What the record says is shown, never obeyed: escapes, long numbers by length."""
    if isinstance(exc, UnreadRecordError):
        what = ""
    typer.echo(f"minodice {command}: {what}{one_line(str(exc))}", err=True)
    if as_json:
        error = exc.to_json()
        inner = error["error"]
        assert isinstance(inner, dict)
        inner["message"] = one_line(exc.message)
        typer.echo(json_text(error))
    raise typer.Exit(1)


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="A game record (JSON), or - for standard input.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the computed result as JSON (RECORD.md).")
    ] = False,
    show_hands: Annotated[
        bool, typer.Option("--show-hands", help="Show the hands of a round still being "
                           "played too (hidden by default: at a shared screen they are "
                           "the other players' secret).")
    ] = False,
) -> None:
    """Check a game record and show the game: hands, bids, rolls, trick winners, scores."""
    try:
        loaded: LoadedRecord = parse_record(read_record_text(file))
    except InvalidRecordError as exc:
        exit_invalid_record("replay", exc, as_json)
    if as_json:
        typer.echo(json_text(summarize(loaded.state, loaded.players)))
    else:
        typer.echo(render_replay(loaded.state, loaded.players, show_hands=show_hands),
                   nl=False)
        stopped = loaded.extra.get("stopped")
        if isinstance(stopped, str) and not loaded.state.is_terminal():
            # a tournament's or simulation's game a bot stopped: why, in its own words
            typer.echo(f"Stopped: {one_line(stopped)}")


@app.command(name="simulate")
def simulate_cmd(
    players: PlayersOpt = 4,
    games: Annotated[int, typer.Option("--games", "-g", help="Number of games.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed; the same seed, the same "
                                      "games.")] = 0,
    edition: EditionOpt = Edition.mino,
    variant: VariantOpt = VariantOption.standard,
    start_rule: StartOpt = StartOption.rotate,
    special_lead: SpecialLeadOpt = SpecialLeadOption.first_number,
    save_records: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--save-records", parser=non_empty_path, help="Write one record per "
                     "game into this folder (game-0001.json, …); records already there are "
                     "kept unless --force."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="With --save-records: replace "
                                        "records of the same names.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    bots: Annotated[
        str, typer.Option("--bots", help="Comma-separated bots, one per seat or one for all: "
                          f"{LEVELS}, file.py:Class or module:Class.")
    ] = "random",
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds a bot may take "
                                              "for one decision.")] = 10.0,
) -> None:
    """Play many games (between random legal players by default) and summarise them."""
    check_range("--players", players, 3, 6)
    check_range("--games", games, 1, MAX_SIMULATED_GAMES)
    check_seed(seed)
    check_float("--time-limit", time_limit, 0, MAX_TIME_LIMIT, above=True)
    seats = lineup(bots, players)
    folder = (RecordsFolder("simulate", save_records, games, force)
              if save_records is not None else None)
    dice_set = load_dice_set(edition.value)
    options = rule_options(start_rule, special_lead)
    summary = SimulationSummary(players)
    runs: Iterator[GameState]
    names = [f"Bot {i + 1}" for i in range(players)]

    def record(index: int, state: GameState) -> dict[str, Any]:
        return export_record(state, names, {"seed": seed, "game": index + 1})

    def save(index: int, state: Any) -> None:
        if folder is not None:
            folder.write(index, record(index, state))

    if set(seats) == {"random"}:
        runs = simulate(players, games, seed, dice_set, Variant(variant.value), on_game=save,
                        options=options)
    else:
        names = distinct_names(seats)  # a record's players are distinct (R1)
        runs = _bot_games(seats, games, seed, edition.value, variant.value, save, record,
                          folder, as_json, time_limit, options)
    start = time.perf_counter()
    if sys.stderr.isatty():
        with progress_bar() as progress:
            task = progress.add_task("Simulating", total=games)
            step = max(1, games // 200)
            for state in runs:
                summary.add(state)
                if summary.games % step == 0:
                    progress.update(task, completed=summary.games)
    else:
        for state in runs:
            summary.add(state)
    summary.seconds = time.perf_counter() - start
    if as_json:
        typer.echo(json.dumps({
            "players": players, "games": games, "seed": seed, "edition": edition.value,
            "variant": variant.value, "rule_options": options.as_json(),
            "seconds": round(summary.seconds, 3),
            "games_per_second": round(summary.games_per_second, 1),
            "mean_scores": [round(m, 2) for m in summary.mean_scores],
            "bid_success": round(summary.bid_success, 4),
        }))
        return
    who = ("random players" if set(seats) == {"random"}
           else "seats: " + printable(",".join(seats)))
    typer.echo(f"Simulated {games} game{'' if games == 1 else 's'}: {players} {who}, "
               f"dice set {edition.value}, variant {variant.value}, seed {seed}"
               + ("" if options.is_default else f", rules {options}"))
    typer.echo(f"Time: {summary.seconds:.2f} s ({speed(summary.games_per_second)})")
    means = " · ".join(f"seat {i + 1}: {m:.1f}" for i, m in enumerate(summary.mean_scores))
    typer.echo(f"Mean score per seat: {means}")
    typer.echo(f"Bids made: {summary.bid_success:.1%} of {summary.bids:,}")
    if save_records is not None:
        typer.echo(f"Records saved in {printable(str(save_records))}/")


def _bot_games(seat_bots: list[str], games: int, seed: int, edition: str, variant: str,
               on_game: Callable[[int, GameState], None],
               record: Callable[[int, GameState], dict[str, Any]],
               folder: RecordsFolder | None, as_json: bool,
               time_limit: float, options: RuleOptions) -> Iterator[GameState]:
    """Games between the bots of ``seat_bots`` (seats as given), for ``simulate``."""
    for index in range(games):
        rng = game_rng(seed, index)
        config = GameConfig(len(seat_bots), load_dice_set(edition), Variant(variant),
                            rng.randrange(len(seat_bots)), options)
        try:
            state, _ = play_bot_game(config, [make_bot(b) for b in seat_bots], seat_bots, seed,
                                     index, f"{seed}:{index}", time_limit)
        except BotError as exc:
            stopped = exc.in_game(index, seed)
            if exc.game_so_far is not None:  # kept for the bot's author
                stopped.record = record(index, exc.game_so_far) | {"stopped": str(stopped)}
            # (its parts are escaped where they came from: the seed stays whole to copy)
            exit_bot_stopped("simulate", stopped, seed, folder, as_json)
        on_game(index, state)
        yield state


def speed(games_per_second: float) -> str:
    """How fast the games went, in a unit that shows it: "955 games/s", or for bots that
    think, "9.4 s a game" (not "0 games/s")."""
    if games_per_second >= 10:
        return f"{games_per_second:,.0f} games/s"
    if games_per_second >= 1:
        return f"{games_per_second:.1f} games/s"
    return f"{1 / games_per_second:,.1f} s a game" if games_per_second > 0 else "too fast to time"


@app.command()
def demo(
    players: PlayersOpt = 4,
    seed: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--seed", "-s", help="Seed (default: a fresh one, printed)."),
    ] = None,
    edition: EditionOpt = Edition.mino,
    variant: VariantOpt = VariantOption.standard,
    start_rule: StartOpt = StartOption.rotate,
    special_lead: SpecialLeadOpt = SpecialLeadOption.first_number,
) -> None:
    """Simulate one game between random players and replay it on screen."""
    check_range("--players", players, 3, 6)
    if seed is None:
        seed = secrets.randbelow(10**6)
    check_seed(seed)
    rng = game_rng(seed, 0)
    config = GameConfig(players, load_dice_set(edition.value), Variant(variant.value),
                        rng.randrange(players), rule_options(start_rule, special_lead))
    state = play_random_game(config, rng)
    names = ["Ana", "Ben", "Cleo", "Dara", "Emil", "Fay"][:players]
    # The command that replays it names every option that was not its default.
    again = " ".join(["minodice demo", f"--seed {seed}"] + [
        f"{option} {value}" for option, value, default in (
            ("--players", players, 4), ("--edition", edition.value, Edition.mino.value),
            ("--variant", variant.value, VariantOption.standard.value),
            ("--start", start_rule.value, StartOption.rotate.value),
            ("--special-lead", special_lead.value, SpecialLeadOption.first_number.value))
        if value != default])
    typer.echo(f"Demo game, seed {seed} ({again} replays it)\n")
    typer.echo(render_replay(state, names), nl=False)
