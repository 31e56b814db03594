"""The ``minodice`` command line (Typer): replay and check records, simulate games, demo.

Every user mistake ends in a one-line error and a non-zero exit status, never a traceback:
Typer/Click handle wrong options (exit 2), and record problems exit 1 with the error of
RECORD.md.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import Progress

from minodice import __version__
from minodice.bots.advisor import AdviceError
from minodice.bots.advisor import advise as advise_bid
from minodice.bots.protocol import BotError, load_bot_factory, make_bot
from minodice.core.dice import load_dice_set
from minodice.core.errors import InvalidRecordError
from minodice.core.record import LoadedRecord, dumps_record, export_record, parse_record, summarize
from minodice.core.rules import Variant
from minodice.core.state import GameConfig, GameState
from minodice.play.match import play_bot_game
from minodice.play.simulate import SimulationSummary, game_rng, play_random_game, simulate
from minodice.play.tournament import TournamentSpec, run_games, summarize_games
from minodice.text.replay import render_replay
from minodice.text.tables import render_advice, render_tournament

app = typer.Typer(
    name="minodice",
    help="Mino Dice: rules engine, records, simulation, bots and bid advice.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Edition(StrEnum):
    """The dice set: ``mino`` (current edition) or ``skull-king`` (2016)."""

    mino = "mino"
    skull_king = "skull-king"


class VariantOption(StrEnum):
    standard = "standard"
    simplified = "simplified"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"minodice {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        Optional[bool],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Mino Dice: rules engine, game records and simulation."""


def _read_record_text(file: str) -> str:
    if file == "-":
        try:
            return sys.stdin.buffer.read().decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidRecordError("cannot read standard input: not UTF-8 text") from None
    path = Path(file)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidRecordError(f"cannot read {file}: no such file") from None
    except IsADirectoryError:
        raise InvalidRecordError(f"cannot read {file}: it is a folder") from None
    except UnicodeDecodeError:
        raise InvalidRecordError(f"cannot read {file}: not UTF-8 text") from None
    except OSError as exc:
        raise InvalidRecordError(f"cannot read {file}: {exc.strerror}") from None


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="A game record (JSON), or - for standard input.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the computed result as JSON (RECORD.md).")
    ] = False,
) -> None:
    """Check a game record and show the game: hands, bids, rolls, trick winners, scores."""
    try:
        loaded: LoadedRecord = parse_record(_read_record_text(file))
    except InvalidRecordError as exc:
        typer.echo(f"minodice replay: invalid record: {exc}", err=True)
        if as_json:
            typer.echo(json.dumps(exc.to_json(), ensure_ascii=False))
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(summarize(loaded.state, loaded.players), ensure_ascii=False))
    else:
        typer.echo(render_replay(loaded.state, loaded.players), nl=False)


def _progress() -> Progress:
    """A progress bar on standard error, gone when done (shown only on a terminal)."""
    return Progress(console=Console(stderr=True), transient=True)


def _check_range(name: str, value: int, low: int, high: int | None = None) -> None:
    if value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise typer.BadParameter(f"{value} is not {bound}", param_hint=name)


@app.command(name="simulate")
def simulate_cmd(
    players: Annotated[int, typer.Option("--players", "-n", help="Players, 3 to 6.")] = 4,
    games: Annotated[int, typer.Option("--games", "-g", help="Number of games.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed; the same seed, the same "
                                      "games.")] = 0,
    edition: Annotated[Edition, typer.Option(help="Dice set.")] = Edition.mino,
    variant: Annotated[VariantOption, typer.Option(help="Scoring variant.")] = (
        VariantOption.standard),
    save_records: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--save-records", help="Write one record per game into this folder."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    bots: Annotated[
        str, typer.Option("--bots", help="Comma-separated bots, one per seat or one for all: "
                          "random, easy, medium, hard, file.py:Class or module:Class.")
    ] = "random",
) -> None:
    """Play many games (between random legal players by default) and summarise them."""
    _check_range("--players", players, 3, 6)
    _check_range("--games", games, 1)
    lineup = _lineup(bots, players)
    if save_records is not None:
        if save_records.exists() and not save_records.is_dir():
            raise typer.BadParameter(f"{save_records} exists and is not a folder",
                                     param_hint="--save-records")
        try:
            save_records.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise typer.BadParameter(f"cannot create {save_records}: {exc.strerror}",
                                     param_hint="--save-records") from None
    dice_set = load_dice_set(edition.value)
    summary = SimulationSummary(players)
    runs: Iterator[GameState]
    names = [f"Bot {i + 1}" for i in range(players)]
    digits = max(4, len(str(games)))

    def save(index: int, state: Any) -> None:
        if save_records is None:
            return
        record = export_record(state, names, {"seed": seed, "game": index})
        (save_records / f"game-{index + 1:0{digits}d}.json").write_text(
            dumps_record(record), encoding="utf-8")

    if set(lineup) == {"random"}:
        runs = simulate(players, games, seed, dice_set, Variant(variant.value), on_game=save)
    else:
        names = lineup
        runs = _bot_games(lineup, games, seed, edition.value, variant.value, save)
    start = time.perf_counter()
    if sys.stderr.isatty():
        with _progress() as progress:
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
            "variant": variant.value, "seconds": round(summary.seconds, 3),
            "games_per_second": round(summary.games_per_second, 1),
            "mean_scores": [round(m, 2) for m in summary.mean_scores],
            "bid_success": round(summary.bid_success, 4),
        }))
        return
    who = "random players" if set(lineup) == {"random"} else "seats: " + ",".join(lineup)
    typer.echo(f"Simulated {games} games: {players} {who}, dice set {edition.value}, "
               f"variant {variant.value}, seed {seed}")
    typer.echo(f"Time: {summary.seconds:.2f} s ({summary.games_per_second:,.0f} games/s)")
    means = " · ".join(f"seat {i + 1}: {m:.1f}" for i, m in enumerate(summary.mean_scores))
    typer.echo(f"Mean score per seat: {means}")
    typer.echo(f"Bids made: {summary.bid_success:.1%} of {summary.bids:,}")
    if save_records is not None:
        typer.echo(f"Records saved in {save_records}/")


def _lineup(bots: str, players: int) -> list[str]:
    """One bot per seat from ``--bots``: a single name fills every seat."""
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise typer.BadParameter(
            f"{len(names)} bots for {players} players: give one per seat, or one for all",
            param_hint="--bots")
    try:
        for name in set(names):
            load_bot_factory(name)
    except BotError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots") from None
    return names


def _bot_games(lineup: list[str], games: int, seed: int, edition: str, variant: str,
               on_game: Callable[[int, GameState], None]) -> Iterator[GameState]:
    """Games between the bots of ``lineup`` (seats as given), for ``simulate``."""
    for index in range(games):
        rng = game_rng(seed, index)
        config = GameConfig(len(lineup), load_dice_set(edition), Variant(variant),
                            rng.randrange(len(lineup)))
        try:
            state, _ = play_bot_game(config, [make_bot(b) for b in lineup], lineup, seed,
                                     index, f"{seed}:{index}", time_limit=60.0)
        except BotError as exc:
            typer.echo(f"minodice simulate: {exc}", err=True)
            raise typer.Exit(1) from None
        on_game(index, state)
        yield state


@app.command()
def tournament(
    bots: Annotated[str, typer.Option("--bots", help="Comma-separated bots, one per seat: "
                                      "random, easy, medium, hard, file.py:Class or "
                                      "module:Class.")],
    players: Annotated[int, typer.Option("--players", "-n", help="Players, 3 to 6.")] = 4,
    games: Annotated[int, typer.Option("--games", "-g", help="Number of games.")] = 100,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed: the same seed, the same "
                                      "tournament.")] = 0,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Processes to use.")] = 1,
    edition: Annotated[Edition, typer.Option(help="Dice set.")] = Edition.mino,
    variant: Annotated[VariantOption, typer.Option(help="Scoring variant.")] = (
        VariantOption.standard),
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds a bot may take "
                                              "for one decision.")] = 10.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """Bots against bots: rotated seats, duplicate deals, statistics per bot."""
    _check_range("--players", players, 3, 6)
    _check_range("--games", games, 1)
    _check_range("--workers", workers, 1, 64)
    if time_limit <= 0:
        raise typer.BadParameter("must be positive", param_hint="--time-limit")
    lineup = _lineup(bots, players)
    spec = TournamentSpec(players, tuple(lineup), games, seed, edition.value, variant.value,
                          time_limit)
    try:
        if sys.stderr.isatty():
            with _progress() as progress:
                task = progress.add_task("Playing", total=games)
                results = run_games(spec, workers,
                                    lambda done: progress.update(task, completed=done))
        else:
            results = run_games(spec, workers)
    except BotError as exc:
        typer.echo(f"minodice tournament: {exc}", err=True)
        raise typer.Exit(1) from None
    stats = summarize_games(results)
    if as_json:
        typer.echo(json.dumps({
            "players": players, "games": games, "seed": seed, "edition": edition.value,
            "variant": variant.value, "bots": [s.to_json() for s in stats]}))
    else:
        typer.echo(render_tournament(stats, games, players))


@app.command()
def advise(
    hand: Annotated[str, typer.Option("--hand", help="Your dice, comma-separated, e.g. "
                                      "red,red,griffin,gray,purple.")],
    players: Annotated[int, typer.Option("--players", "-n", help="Players, 3 to 6.")] = 4,
    round_no: Annotated[int, typer.Option("--round", "-r", help="Round number.")] = 0,
    seat: Annotated[int, typer.Option("--seat", help="Your position after the round's start "
                                      "player: 0 if you start.")] = 0,
    edition: Annotated[Edition, typer.Option(help="Dice set.")] = Edition.mino,
    variant: Annotated[VariantOption, typer.Option(help="Scoring variant.")] = (
        VariantOption.standard),
    samples: Annotated[int, typer.Option("--samples", help="Simulated rounds per bid.")] = 60,
    seed: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--seed", "-s", help="Seed, for the same answer every time."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the advice as JSON.")] = False,
) -> None:
    """Bid advice for the physical game: odds of every bid for the dice behind your screen."""
    _check_range("--samples", samples, 1)
    if round_no == 0:
        round_no = len([p for p in hand.split(",") if p.strip()])
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


@app.command()
def demo(
    players: Annotated[int, typer.Option("--players", "-n", help="Players, 3 to 6.")] = 4,
    seed: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--seed", "-s", help="Seed (default: a fresh one, printed)."),
    ] = None,
    edition: Annotated[Edition, typer.Option(help="Dice set.")] = Edition.mino,
    variant: Annotated[VariantOption, typer.Option(help="Scoring variant.")] = (
        VariantOption.standard),
) -> None:
    """Simulate one game between random players and replay it on screen."""
    _check_range("--players", players, 3, 6)
    if seed is None:
        seed = secrets.randbelow(10**6)
    rng = game_rng(seed, 0)
    config = GameConfig(players, load_dice_set(edition.value), Variant(variant.value),
                        rng.randrange(players))
    state = play_random_game(config, rng)
    names = ["Ana", "Ben", "Cleo", "Dara", "Emil", "Fay"][:players]
    typer.echo(f"Demo game, seed {seed} (minodice demo --seed {seed} replays it)\n")
    typer.echo(render_replay(state, names), nl=False)


def run() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    run()
