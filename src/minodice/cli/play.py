"""``minodice play``: Mino Dice in the terminal, against bots or around one screen."""

from __future__ import annotations

import json
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from minodice.bots.protocol import BotError
from minodice.cli.common import (
    Edition,
    EditionOpt,
    PlayersOpt,
    VariantOpt,
    VariantOption,
    app,
    check_range,
    lineup,
)
from minodice.core.errors import InvalidRecordError
from minodice.core.record import parse_record
from minodice.files import read_text
from minodice.i18n import LANGUAGES, language_from_env, translator
from minodice.play.table import Table, TableError, new_table


def default_games_dir() -> Path:
    """Where finished and saved games go: ``$MINODICE_GAMES``, else the XDG data folder."""
    explicit = os.environ.get("MINODICE_GAMES")
    if explicit:
        return Path(explicit)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "minodice" / "games"


# Table.restore says "it ..." of the record; a resumed file says the same of its path.
_RESTORE_SUBJECTS = (("not a valid game record", "{path} is not a valid game record"),
                     ("it was not saved", "{path} was not saved"),
                     ("it names an outside bot", "{path} names an outside bot"))


def resume_table(path: Path, trust_bots: bool = False) -> Table:
    """The game saved in ``path``, ready to continue exactly where it stopped.

    Refuses a finished game (it is for ``minodice replay``), a file not saved by ``play``
    and, unless ``trust_bots``, one naming an outside bot (code). Every refusal is a
    :class:`TableError` whose sentence names the file.
    """
    try:
        text = read_text(path)
    except ValueError as exc:
        raise TableError(str(exc)) from None
    try:
        loaded = parse_record(text)
    except InvalidRecordError as exc:
        raise TableError(f"{path} is not a valid game record: {exc}") from None
    if loaded.state.is_terminal():
        raise TableError(f"{path} is a finished game; show it with: minodice replay {path}")
    try:
        return Table.restore(json.loads(text), trust_bots=trust_bots)
    except TableError as exc:
        message = str(exc)
        for start, subject in _RESTORE_SUBJECTS:
            if message.startswith(start):
                message = subject.format(path=path) + message[len(start):]
                break
        else:
            message = f"{path}: {message}"
        raise TableError(message) from None


@app.command()
def play(
    players: PlayersOpt = 4,
    name: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--name", help="Your name; give it again for each person at this "
                     "screen (hot seat)."),
    ] = None,
    bots: Annotated[str, typer.Option("--bots", help="The bots' levels, one for all or one "
                                      "per bot seat: random, easy, medium, hard.")] = "easy",
    edition: EditionOpt = Edition.mino,
    variant: VariantOpt = VariantOption.standard,
    lang: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--lang", help="Language: en, de, nl, pt or es (default: the locale)."),
    ] = None,
    seed: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--seed", "-s", help="Seed, to play the same dice again."),
    ] = None,
    resume: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--resume", help="Continue a saved game (a record file); players, bots, "
                     "edition and seed then come from the record."),
    ] = None,
    games_dir: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--games-dir", help="Folder for saved games (default: "
                     "$MINODICE_GAMES or ~/.local/share/minodice/games)."),
    ] = None,
    delay: Annotated[float, typer.Option("--delay", help="Seconds per bot move and roll "
                                         "animation; 0 for none.")] = 0.6,
    trust_bots: Annotated[bool, typer.Option("--trust-bots", help="With --resume: also load "
                                             "outside bots the record names (code!).")] = False,
) -> None:
    """Play Mino Dice in the terminal: you against bots, or several people at one screen."""
    language = lang or language_from_env(os.environ)
    if language not in LANGUAGES:
        raise typer.BadParameter(f"{language!r} is not one of {', '.join(LANGUAGES)}",
                                 param_hint="--lang")
    if delay < 0:
        raise typer.BadParameter("must be 0 or more", param_hint="--delay")
    folder = games_dir or default_games_dir()
    if resume is None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise typer.BadParameter(f"cannot use {folder} for saved games: "
                                     f"{exc.strerror}", param_hint="--games-dir") from None
        if not folder.is_dir():
            raise typer.BadParameter(f"{folder} is not a folder", param_hint="--games-dir")
    try:
        if resume is not None:
            table = resume_table(resume, trust_bots)
            save_path = resume
        else:
            check_range("--players", players, 3, 6)
            user = os.environ.get("USER", "").strip()
            default_name = user.capitalize() if user and user != "root" else (
                translator(language).gettext("Player"))
            people = name or [default_name]
            if len(people) > players:
                raise typer.BadParameter(f"{len(people)} people for {players} seats",
                                         param_hint="--name")
            levels = lineup(bots, players - len(people), "bot seats") if len(
                people) < players else []
            game_seed = seed if seed is not None else secrets.randbelow(10**9)
            table = new_table(players, people, levels or ["easy"], edition.value,
                              variant.value, game_seed)
            for seat, spec in enumerate(table.seats):
                if not spec.is_human:
                    table.bot(seat)  # make every bot now: one that fails says so before play
            stamp = time.strftime("%Y%m%d-%H%M%S")
            save_path = folder / f"game-{stamp}-{game_seed}.json"
    except (TableError, BotError) as exc:
        typer.echo(f"minodice play: {exc}", err=True)
        raise typer.Exit(1) from None
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        typer.echo("minodice play: needs a terminal (use minodice simulate or tournament for "
                   "games without one)", err=True)
        raise typer.Exit(1)
    from minodice.tui.app import TableApp

    screen = TableApp(table, language, save_path, delay)
    screen.run()
    _ = translator(language).gettext
    if screen.exit_note:
        typer.echo(screen.exit_note)
    elif table.is_over():
        typer.echo(_("Game record saved: {path} (show it with: minodice replay {path})").format(
            path=save_path))
