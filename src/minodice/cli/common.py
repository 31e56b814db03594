"""What every ``minodice`` command shares: the Typer app, option types, checks.

Every user mistake ends in a one-line error and a non-zero exit status, never a traceback:
Typer/Click handle wrong options (exit 2); each command turns its own errors into a clear
message.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional, TypeVar

import typer
from rich.console import Console
from rich.progress import Progress

from minodice import __version__
from minodice.bots.loading import load_bot_factory
from minodice.bots.protocol import BUILTIN_BOTS, BotError
from minodice.cli.starting import commands_take_interrupts
from minodice.core.record import dumps_record
from minodice.core.rules import RuleOptions, SpecialLead, StartRule
from minodice.play.saves import write_atomic
from minodice.text.safe import printable

app = typer.Typer(
    name="minodice",
    help="Mino Dice: rules engine, records, simulation, bots and bid advice.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


#: The most games one run may ask for: past these, a typo that would run for ever.
MAX_SIMULATED_GAMES = 100_000_000
MAX_TOURNAMENT_GAMES = 10_000_000

#: The longest a bot may be given for one decision (an hour: anything longer is a typo).
MAX_TIME_LIMIT = 3600.0


#: The bot levels, for the options' help (from the bots' one registry).
LEVELS = ", ".join(BUILTIN_BOTS)


class Edition(StrEnum):
    """The dice set: ``mino`` (current edition) or ``skull-king`` (2016).

    Typer needs an enum for a choice; this one must name exactly the core's
    :data:`~minodice.core.dice.BUILTIN_DICE_SETS` (tests/test_meta.py checks it).
    """

    mino = "mino"
    skull_king = "skull-king"


class VariantOption(StrEnum):
    standard = "standard"
    simplified = "simplified"


class StartOption(StrEnum):
    """R5's open point (:class:`~minodice.core.rules.StartRule`)."""

    rotate = "rotate"
    fixed = "fixed"


class SpecialLeadOption(StrEnum):
    """R9's open point (:class:`~minodice.core.rules.SpecialLead`)."""

    first_number = "first-number"
    no_colour = "no-colour"


def rule_options(start: StartOption, special_lead: SpecialLeadOption) -> RuleOptions:
    """The game's :class:`~minodice.core.rules.RuleOptions` from the two options."""
    return RuleOptions(StartRule(start.value), SpecialLead(special_lead.value))


ChoiceT = TypeVar("ChoiceT", bound=StrEnum)


def choice_of(kind: type[ChoiceT]) -> dict[str, Any]:
    """An enum option's parser and metavar: a value it does not name is refused in the
    words of the other options ("'x' is not one of a, b"; Typer's own conversion put
    pydantic's "Value error, " before it)."""
    names = [member.value for member in kind]

    def parse(value: str | ChoiceT) -> ChoiceT:
        if isinstance(value, kind):
            return value
        try:
            return kind(value)
        except ValueError:
            raise typer.BadParameter(f"{printable(str(value))!r} is not one of "
                                     f"{', '.join(names)}") from None

    return {"parser": parse, "metavar": f"<{'|'.join(names)}>"}


# The options several commands share, declared once.
PlayersOpt = Annotated[int, typer.Option("--players", "-n", help="Players, 3 to 6.")]
EditionOpt = Annotated[Edition, typer.Option(help="Dice set.", **choice_of(Edition))]
VariantOpt = Annotated[VariantOption, typer.Option(help="Scoring variant.",
                                                   **choice_of(VariantOption))]
StartOpt = Annotated[StartOption, typer.Option(
    "--start", help="Who starts rounds 2 on (R5): rotate, the next player clockwise "
    "(default), or fixed, round 1's start player every round.", **choice_of(StartOption))]
SpecialLeadOpt = Annotated[SpecialLeadOption, typer.Option(
    "--special-lead", help="A trick a special die leads (R9): first-number, the first "
    "number die rolled sets the colour (default), or no-colour, none to follow.",
    **choice_of(SpecialLeadOption))]


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
    """Mino Dice: rules engine, records, bots, advice and play."""
    commands_take_interrupts()


def data_path(variable: str, name: str) -> Path:
    """``$variable`` if it is set, else ``name`` in :func:`data_folder`."""
    explicit = os.environ.get(variable)
    if explicit:
        return Path(explicit)
    return data_folder() / name


def data_folder() -> Path:
    """minodice's folder of the user's data folder: ``$XDG_DATA_HOME``, else
    ``~/.local/share`` (a relative ``$XDG_DATA_HOME`` is ignored, as the XDG base
    directory specification asks). The one folder minodice makes when it is missing: any
    other is named by the user, who may have mistyped it."""
    data = os.environ.get("XDG_DATA_HOME", "")
    base = Path(data) if os.path.isabs(data) else Path.home() / ".local" / "share"
    return base / "minodice"


def progress_bar(own_thread: bool = True) -> Progress:
    """A progress bar on standard error, gone when done (shown only on a terminal).
    Without ``own_thread`` it is drawn only when updated with ``refresh=True``: a
    thread started before a tournament's workers could take a Ctrl-C meant for the
    command and drop it (:func:`minodice.play.tournament._interrupts_to_this_process_only`)."""
    return Progress(console=Console(stderr=True), transient=True, auto_refresh=own_thread)


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``) during a long run: ended as Ctrl-C ends it."""


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated`, a KeyboardInterrupt: the run's own Ctrl-C path
    ends its worker processes and keeps what it wrote. Its default ended this process
    alone, and the workers played on with no parent, holding the output pipe open (a
    reader of it waited for them)."""
    def terminated(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def check_range(name: str, value: int, low: int, high: int | None = None) -> None:
    if value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        raise typer.BadParameter(f"{value} is not {bound}", param_hint=name)


#: The largest seed a command takes: 63 bits, as many as a fresh tournament seed has
#: (:func:`minodice.play.tournament.fresh_seed`), so that every seed printed is taken back.
SEED_LIMIT = 2**63 - 1


def check_seed(seed: int) -> None:
    """One rule for every command's ``--seed``: 0 to :data:`SEED_LIMIT` (a negative seed
    was taken by some commands and refused by others)."""
    check_range("--seed", seed, 0, SEED_LIMIT)


def non_empty_path(value: str | Path) -> Path:
    """A path option's parser: an empty name is refused rather than read as ``.`` (the
    current folder), which would save into, or read, a place nobody named."""
    if not str(value).strip():
        raise typer.BadParameter("empty: give a file or folder name")
    return Path(value)


def check_float(name: str, value: float, low: float, high: float,
                above: bool = False) -> None:
    """A number of seconds, minutes or a rate: finite and within [``low``, ``high``] (above
    ``low`` with ``above``). ``nan`` and ``inf`` parse as floats, and a clock or a timer
    handed one fails far from the option that caused it (or never fires at all)."""
    too_low = value <= low if above else value < low
    if not math.isfinite(value) or too_low or value > high:
        shown = f"{value:.10g} is not "
        raise typer.BadParameter(
            shown + (f"more than {low:.10g} and at most {high:.10g}" if above
                     else f"between {low:.10g} and {high:.10g}"), param_hint=name)


def lineup(bots: str, players: int, seats: str = "players") -> list[str]:
    """One bot per seat from ``--bots``: a single name fills every seat."""
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise typer.BadParameter(
            f"{len(names)} bots for {players} {seats}: give one per seat, or one for all",
            param_hint="--bots")
    try:
        for name in set(names):
            load_bot_factory(name)
    except BotError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots") from None
    return names


class RecordsFolder:
    """Where ``--save-records`` writes one record per game (``game-0001.json``, …), for
    ``simulate`` and ``tournament`` alike.

    Made before the first game is played, so that a folder that cannot be written, or
    records already there (without ``--force``), stop the run before any work is lost;
    a record that appears during the run is still never replaced without ``--force``."""

    def __init__(self, command: str, folder: Path, games: int, force: bool) -> None:
        self.command = command
        self.folder = folder
        self.force = force
        self.digits = max(4, len(str(games)))
        if folder.exists() and not folder.is_dir():
            raise typer.BadParameter(f"{folder} exists and is not a folder",
                                     param_hint="--save-records")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise typer.BadParameter(f"cannot create {folder}: {exc.strerror}",
                                     param_hint="--save-records") from None
        if not force:
            taken = [p for p in map(self.path, range(games)) if p.exists()]
            if taken:
                more = (f" (and {len(taken) - 1} more of this run's names)" if len(taken) > 1
                        else "")
                typer.echo(f"minodice {command}: {printable(str(taken[0]))} exists{more}; add "
                           "--force to replace, or choose another folder", err=True)
                raise typer.Exit(1)

    def path(self, index: int) -> Path:
        return self.folder / f"game-{index + 1:0{self.digits}d}.json"

    def write(self, index: int, record: dict[str, Any]) -> None:
        path = self.path(index)
        try:
            write_atomic(path, dumps_record(record), replace=self.force, private=False)
        except FileExistsError:
            typer.echo(f"minodice {self.command}: {printable(str(path))} appeared during the "
                       "run and was kept; add --force to replace it", err=True)
            raise typer.Exit(1) from None
        except OSError as exc:
            typer.echo(f"minodice {self.command}: cannot write {printable(str(path))}: "
                       f"{exc.strerror or exc}", err=True)
            raise typer.Exit(1) from None


def exit_bot_stopped(command: str, error: BotError, seed: int,
                     folder: RecordsFolder | None, as_json: bool) -> NoReturn:
    """A run a bot stopped: the game it stopped written with the records (its author's only
    view of the position) or how to keep it, one line on standard error, with ``--json``
    also an error object on standard output for a script, and exit status 1. A failure in
    a game names its game and seed already; one before any game (loading), the seed."""
    kept: Path | None = None
    if error.game_index is None:
        where = ""
    elif folder is None:
        where = "; --save-records FOLDER keeps the game so far"
    elif error.record is None:
        where = ""
    else:
        folder.write(error.game_index, error.record)
        kept = folder.path(error.game_index)
        where = f"; the game so far: {printable(str(kept))}"
    run = "" if error.game_index is not None else f" (seed {seed})"
    typer.echo(f"minodice {command}: {error}{run}{where}", err=True)
    if as_json:
        typer.echo(json.dumps({"error": {
            "message": printable(str(error)),
            "game": None if error.game_index is None else error.game_index + 1,
            "seed": seed, "record": None if kept is None else str(kept)}},
            ensure_ascii=False))
    raise typer.Exit(1)
