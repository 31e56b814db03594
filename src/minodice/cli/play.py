"""``minodice play``: Mino Dice in the terminal, against bots or around one screen."""

from __future__ import annotations

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
from minodice.i18n import LANGUAGES, language_from_env, translator
from minodice.play.session import Session, SessionError, new_session


def default_games_dir() -> Path:
    """Where finished and saved games go: ``$MINODICE_GAMES``, else the XDG data folder."""
    explicit = os.environ.get("MINODICE_GAMES")
    if explicit:
        return Path(explicit)
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "minodice" / "games"


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
            session = Session.resume(resume, trust_bots)
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
            session = new_session(players, people, levels or ["easy"], edition.value,
                                  variant.value, seed if seed is not None
                                  else secrets.randbelow(10**9))
            stamp = time.strftime("%Y%m%d-%H%M%S")
            save_path = folder / f"game-{stamp}-{session.seed}.json"
    except (SessionError, BotError) as exc:
        typer.echo(f"minodice play: {exc}", err=True)
        raise typer.Exit(1) from None
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        typer.echo("minodice play: needs a terminal (use minodice simulate or tournament for "
                   "games without one)", err=True)
        raise typer.Exit(1)
    from minodice.tui.app import TableApp

    table = TableApp(session, language, save_path, delay)
    table.run()
    _ = translator(language).gettext
    if table.exit_note:
        typer.echo(table.exit_note)
    elif session.is_over():
        typer.echo(_("Game record saved: {path} (show it with: minodice replay {path})").format(
            path=save_path))
