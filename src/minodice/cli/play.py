"""``minodice play``: Mino Dice in the terminal, against bots or around one screen; and
``minodice games``: the games saved so far.

A game is never lost: the games folder is checked before play, a new game gets a file of
its own at once, the session holds it (a second session on it is refused), and every save
is atomic (see :mod:`minodice.play.saves`). The command printed after play runs as printed.
"""

from __future__ import annotations

import os
import secrets
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, NoReturn, Optional

import typer

from minodice.bots.protocol import BotError, located_spec
from minodice.cli.common import (
    LEVELS,
    Edition,
    EditionOpt,
    PlayersOpt,
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
    data_path,
    lineup,
    non_empty_path,
    rule_options,
)
from minodice.core.errors import InvalidRecordError
from minodice.core.names import NAME_MAX, NOT_TEXT, has_surrogates, name_problem, shown_name
from minodice.core.record import dumps_record, parse_record, record_json
from minodice.core.rules import RuleOptions
from minodice.files import read_text
from minodice.i18n import LANGUAGES, language_from_env, translator
from minodice.play import saves
from minodice.play.saves import GameFile, SaveError
from minodice.play.table import Table, TableError, another_game, new_table
from minodice.text.safe import one_line, printable
from minodice.tui.render import COLUMN_HEADERS

GamesDirOpt = Annotated[
    Optional[Path],  # noqa: UP045 - Typer reads this annotation at run time
    typer.Option("--games-dir", parser=non_empty_path, help="Folder for saved games "
                 "(default: $MINODICE_GAMES or ~/.local/share/minodice/games)."),
]


def default_games_dir() -> Path:
    """Where finished and saved games go: ``$MINODICE_GAMES``, else the XDG data folder."""
    return data_path("MINODICE_GAMES", "games")


def shell_command() -> str:
    """How to run this minodice again from a shell, exactly as printed: the absolute path
    of the running ``minodice`` script, else this Python with ``-m minodice`` (``minodice``
    itself may not be on the PATH, as after ``make play``)."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if (script is not None and script.name.startswith("minodice") and script.is_file()
            and os.access(script, os.X_OK)):
        return shlex.quote(os.path.abspath(script))
    return f"{shlex.quote(sys.executable)} -m minodice"


def default_player_name(lang: str, user: str | None) -> str:
    """The name of the person at the screen when none is given: the login name if it is a
    fit name, else "You" in ``lang``; never a column header of the table in any language
    (a player called "Player" would sit under the header "Player")."""
    headers = {translator(code).gettext(h).casefold() for code in LANGUAGES
               for h in COLUMN_HEADERS}
    candidates = []
    login = (user or "").strip()
    if login and login != "root" and login.isprintable() and len(login) <= 20:
        candidates.append(login.capitalize())
    you = translator(lang).gettext("You")
    candidates += [you, f"{you} 1"]
    return next(c for c in candidates if c.casefold() not in headers)


def player_names(names: Sequence[str], new_game: bool = True) -> list[str]:
    """The ``--name`` values as the players are called: without the blanks around them,
    none empty, no two alike (not even as shown, by the server's rule: "Ana" and "ana", or
    "Ana" with an invisible joiner, are one name to a reader), always text (a command line
    in another encoding than UTF-8 gives names no save could hold) and, in a new game, a
    name a server would seat (:func:`~minodice.core.names.name_problem`: at most
    :data:`~minodice.core.names.NAME_MAX` characters, which the table at 80×24 shows whole;
    a resumed record's names are its own). A usage error (``BadParameter``) says which name
    is wrong and why."""
    cleaned: list[str] = []
    for raw in names:
        person = raw.strip()
        shown = printable(person if len(person) <= 16 else person[:15] + "…")  # one line
        if not person:
            raise typer.BadParameter("a name cannot be empty", param_hint="--name")
        problem = name_problem(person) if new_game else (
            NOT_TEXT if has_surrogates(person) else None)
        if problem is not None:
            raise typer.BadParameter(f"'{shown}': {problem}", param_hint="--name")
        if shown_name(person) in {shown_name(c) for c in cleaned}:
            raise typer.BadParameter(f"'{shown}' is given twice", param_hint="--name")
        cleaned.append(person)
    return cleaned


# Table.restore says "it ..." of the record; a resumed file says the same of its path.
_RESTORE_SUBJECTS = (("not a valid game record", "{path} is not a valid game record"),
                     ("it was not saved", "{path} was not saved"),
                     ("it names an outside bot", "{path} names an outside bot"))


def resume_table(path: Path, trust_bots: bool = False, people: Sequence[str] | None = None,
                 bots: str = "easy") -> Table:
    """The game saved in ``path``, ready to continue exactly where it stopped.

    Refuses a finished game (it is for ``minodice replay``) and, unless ``trust_bots``, one
    naming an outside bot (code). A record another program wrote (``simulate``, a server,
    any program that writes RECORD.md) does not say who plays which seat: ``people`` names
    the players who sit at this screen, ``bots`` the levels of the others (one for all or
    one each), and its dice to come are drawn afresh. Every refusal is a
    :class:`TableError` whose sentence names the file.
    """
    try:
        text = read_text(path)
    except ValueError as exc:
        raise TableError(one_line(str(exc))) from None
    try:
        loaded = parse_record(text)
    except InvalidRecordError as exc:
        raise TableError(f"{path} is not a valid game record: {one_line(str(exc))}") from None
    if loaded.state.is_terminal():  # first: no seating makes it playable
        raise TableError(f"{path} is a finished game; show it with: {shell_command()} "
                         f"replay {shlex.quote(str(path))}")
    data = record_json(text)
    seats: list[str | None] | None = None
    if not isinstance(data.get("session"), dict):
        if not people:
            names = ", ".join(printable(p) for p in loaded.players)
            raise TableError(f"{path} was not saved by minodice play, so it does not say who "
                             f"plays which seat: give yours with --name (its players: "
                             f"{names}); the others are played by the --bots levels")
        seats = _seats_of_record(path, loaded.players, people, bots)
    try:
        # bots named on the command line are the user's own choice, as in a new game
        return Table.restore(data, trust_bots=trust_bots or seats is not None, seat_bots=seats,
                             seed=secrets.randbelow(10**9))
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
        typer.Option("--name", help=f"Your name (at most {NAME_MAX} characters); give it "
                     "again for each person at this screen (hot seat)."),
    ] = None,
    bots: Annotated[str, typer.Option("--bots", help="The bots, one for all or one per bot "
                                      f"seat: {LEVELS}, or an outside bot, file.py:Class or "
                                      "module:Class (its code runs as you).")] = "easy",
    edition: EditionOpt = Edition.mino,
    variant: VariantOpt = VariantOption.standard,
    start: StartOpt = StartOption.rotate,
    special_lead: SpecialLeadOpt = SpecialLeadOption.first_number,
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
        typer.Option("--resume", parser=non_empty_path, help="Continue a saved game (a "
                     "record file); players, bots, edition and seed then come from the "
                     "record. A record another program wrote: --name says which of its "
                     "players sit here, --bots plays the others."),
    ] = None,
    continue_last: Annotated[bool, typer.Option(
        "--continue", help="Continue the newest unfinished game of the games folder "
        "(see minodice games).")] = False,
    games_dir: GamesDirOpt = None,
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
    check_float("--delay", delay, 0, 60)
    if seed is not None:
        check_seed(seed)
    if name is not None:
        name = player_names(name, new_game=resume is None and not continue_last)
    if continue_last and resume is not None:
        raise typer.BadParameter("give --resume FILE or --continue, not both",
                                 param_hint="--continue")
    folder = (games_dir or default_games_dir()).absolute()
    command = shell_command()
    game: GameFile | None = None
    try:
        if continue_last:
            newest = saves.newest_unfinished(folder)
            if newest is None:
                # an unfinished record another program wrote is listed by `games` but
                # says nobody's seat: it is resumed by name, not continued
                other = next((g for g in saves.list_games(folder) if not g.problem
                              and not g.finished and not g.resumable), None)
                hint = ("" if other is None else
                        f"; the record {printable(str(other.path))} (not saved by minodice "
                        f"play) goes on with: {command} play --resume "
                        f"{printable(shlex.quote(str(other.path)))} --name YOUR-NAME")
                fail(f"no unfinished game in {folder}; start one with: {command} play{hint}")
            resume = newest.path
        if resume is not None:
            resume = resume.absolute()
            # A record another program wrote stays as it is: the game goes on in a new
            # file of the games folder (a save never replaces a file it did not write).
            foreign = _written_elsewhere(resume)
            if resume.exists() and not foreign:
                game = GameFile.open(resume)  # held before it is read: nobody saves meanwhile
            table = resume_table(resume, trust_bots, name, bots)
            saves.check_folder(folder if foreign else resume.parent)
        else:
            saves.check_folder(folder)
            table = _new_table(players, name, bots, edition, variant, seed, language,
                               rule_options(start, special_lead))
    except SaveError as exc:
        _close(game)
        hint = "" if isinstance(exc, saves.GameInUseError) else (
            "; choose another folder with --games-dir" if resume is None else
            "; copy the file to a folder you can write to and resume the copy")
        fail(one_line(str(exc)) + hint)
    except (TableError, BotError) as exc:
        _close(game)
        fail(one_line(str(exc)))
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        _close(game)
        fail("needs a terminal (use minodice simulate or tournament for games without one)")
    if game is None:
        try:
            game = GameFile.create(folder, dumps_record(table.snapshot()))
        except SaveError as exc:
            fail(one_line(str(exc)) + "; choose another folder with --games-dir")
    from minodice.tui.app import TableApp

    _ = translator(language).gettext
    while True:
        screen = TableApp(table, language, game, delay, command)
        try:
            screen.run()
        finally:
            screen.close_games()
        if screen.unsaved:
            _tell(f"minodice play: {screen.exit_note}", screen.hung_up, err=True)
            raise typer.Exit(1)
        if screen.exit_note:
            _tell(screen.exit_note, screen.hung_up)
        elif table.is_over() and screen.save_path is not None:
            path = shlex.quote(str(screen.save_path))
            _tell(_("Game record saved: {path} (show it with: {command})").format(
                path=screen.save_path, command=f"{command} replay {path}"), screen.hung_up)
        if screen.return_code:
            raise typer.Exit(screen.return_code)
        if not screen.again:
            return
        # A new game at the same seats, saved next to the last one; a fresh seed (never
        # --seed again: that would deal the same game).
        table = another_game(table, secrets.randbelow(10**9))
        where = screen.save_path.parent if screen.save_path is not None else folder
        try:
            game = GameFile.create(where, dumps_record(table.snapshot()))
        except SaveError as exc:
            fail(one_line(str(exc)) + "; choose another folder with --games-dir")


def _tell(message: str, hung_up: bool, err: bool = False) -> None:
    """Print the note after play; after a hang-up (SIGHUP, SIGTERM) the terminal may be
    gone, and the game is saved all the same: then a note nobody can read is no error."""
    try:
        typer.echo(message, err=err)
    except OSError:
        if not hung_up:
            raise
        stream = sys.stderr if err else sys.stdout
        try:  # what is still buffered goes nowhere at exit, rather than failing again
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):
            pass


def fail(message: str, command: str = "play") -> NoReturn:
    typer.echo(f"minodice {command}: {message}", err=True)
    raise typer.Exit(1)


def _close(game: GameFile | None) -> None:
    if game is not None:
        game.close()


def _written_elsewhere(path: Path) -> bool:
    """Whether ``path`` holds a record that ``play`` did not save (no session): one that
    cannot be read counts as ours, and :func:`resume_table` says what is wrong with it."""
    try:
        data = record_json(read_text(path))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and not isinstance(data.get("session"), dict)


def _seats_of_record(path: Path, players: Sequence[str], people: Sequence[str],
                     bots: str) -> list[str | None]:
    """Who plays each seat of a record without a session: the ``people`` by name, the
    others by the ``bots`` levels in seat order."""
    for person in people:
        if person not in players:
            names = ", ".join(printable(p) for p in players)
            raise TableError(f"{printable(person)} is not a player of {path} (its players: "
                             f"{names})")
    others = [p for p in players if p not in people]
    try:
        levels = iter(lineup(bots, len(others), "other seats") if others else [])
    except typer.BadParameter as exc:
        raise TableError(f"--bots: {exc.message}") from None
    return [None if p in people else next(levels) for p in players]


def _new_table(players: int, name: list[str] | None, bots: str, edition: Edition,
               variant: VariantOption, seed: int | None, language: str,
               options: RuleOptions) -> Table:
    check_range("--players", players, 3, 6)
    people = name or [default_player_name(language, os.environ.get("USER"))]
    if len(people) > players:
        raise typer.BadParameter(f"{len(people)} people for {players} seats",
                                 param_hint="--name")
    levels = [located_spec(level) for level in
              lineup(bots, players - len(people), "bot seats")] if len(people) < players else []
    game_seed = seed if seed is not None else secrets.randbelow(10**9)
    table = new_table(players, people, levels or ["easy"], edition.value, variant.value,
                      game_seed, options=options)
    for seat, spec in enumerate(table.seats):
        if not spec.is_human:
            table.bot(seat)  # make every bot now: one that fails says so before play
    return table


@app.command()
def games(games_dir: GamesDirOpt = None) -> None:
    """The saved games, newest first: when, which round, who plays, and the file."""
    folder = (games_dir or default_games_dir()).absolute()
    command = shell_command()
    if folder.exists() and not folder.is_dir():
        fail(f"{printable(str(folder))} is not a folder", "games")
    found = saves.list_games(folder)
    if not found:
        typer.echo(f"No saved games in {printable(str(folder))}. Start one with: "
                   f"{command} play")
        return
    typer.echo(f"Saved games in {printable(str(folder))}, newest first:")
    for game in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.modified))
        if game.problem:
            what = f"cannot be read: {one_line(game.problem, 120)}"
        else:
            where = ("finished" if game.finished else
                     f"round {game.round_no}/{game.rounds}")
            what = f"{where:<11}  {printable(', '.join(game.players))}"
            if not game.resumable and not game.finished:
                what += " (a record, not saved by minodice play)"
        typer.echo(f"  {when}  {what}  {printable(str(game.path))}")
    if any(g.can_continue for g in found):
        typer.echo(f"Continue the newest unfinished game with: {command} play --continue"
                   + ("" if games_dir is None else
                      f" --games-dir {shlex.quote(str(folder))}"))
