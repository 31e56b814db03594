"""``minodice serve``, ``join`` and ``verify``: tables on a server, and checking their dice."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import re
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, Optional

import typer

from minodice.bots.loading import make_bot
from minodice.bots.protocol import BotError
from minodice.cli.common import LEVELS, app, check_float, check_range, data_folder, data_path
from minodice.cli.records import UnreadRecordError, read_record_text
from minodice.core.errors import InvalidRecordError
from minodice.core.fair import FairnessError, UnfinishedRecordError, verify_record
from minodice.core.names import NAME_MAX, has_surrogates, name_problem
from minodice.core.record import load_record, record_json
from minodice.text.safe import one_line, printable

log = logging.getLogger("minodice.server")

#: Seconds in a day: the longest a person may be away, a week the longest a waiting table
#: is kept (longer is a typo, and the timers handed such values fail or never fire).
DAY = 86400.0


def default_db() -> Path:
    """The embedded store: ``$MINODICE_DB``, else a SQLite file in the user's data folder."""
    return data_path("MINODICE_DB", "server.sqlite3")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--db", help="SQLite file for tables, or a PostgreSQL URL "
                     "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE) for several processes "
                     "(default: $MINODICE_DB or ~/.local/share/minodice/server.sqlite3)."),
    ] = None,
    log_format: Annotated[str, typer.Option(help="Log lines as text, or json: one JSON "
                                            "object a line, with table id and seq.")] = "text",
    log_level: Annotated[str, typer.Option(help="Least level logged: debug (also each "
                                           "person's action and its latency, tables made, "
                                           "loaded, started, finished and expired, seats "
                                           "taken, connections opened and closed), info, "
                                           "warning or error.")] = "info",
    bot_delay: Annotated[float, typer.Option(help="Seconds a bot waits before it acts, so "
                                             "that people can follow.")] = 0.8,
    grace: Annotated[float, typer.Option(help="Seconds a person may be away before a bot "
                                         "plays for them.")] = 60.0,
    bot_workers: Annotated[int, typer.Option(help="Worker processes for bot decisions.")] = 2,
    allow_origin: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--allow-origin", help="Another site whose pages may open WebSockets "
                     "here (e.g. https://example.org); repeatable."),
    ] = None,
    public_url: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--public-url", help="An address people open this server at (e.g. "
                     "https://dice.example.org), when it is not --host:--port; its pages "
                     "may open WebSockets. Repeatable."),
    ] = None,
    forwarded_allow_ips: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--forwarded-allow-ips", help="Comma-separated addresses of reverse "
                     "proxies whose X-Forwarded-For names the client (default: none; the "
                     "header is ignored)."),
    ] = None,
    http_rate: Annotated[float, typer.Option(help="Requests a second per client address "
                                             "(POST); more are refused.")] = 20.0,
    read_rate: Annotated[float, typer.Option(help="GET requests a second per client "
                                             "address (bursts of 6x).")] = 10.0,
    connect_rate: Annotated[float, typer.Option(help="WebSocket connections a second per "
                                                "client address (bursts of 20x).")] = 1.0,
    new_tables: Annotated[int, typer.Option(help="Tables one client address may create in "
                                            "10 minutes.")] = 60,
    all_tables_rate: Annotated[float, typer.Option(help="Tables all client addresses "
                                                   "together may create a second (bursts "
                                                   "of 10x).")] = 10.0,
    max_waiting: Annotated[int, typer.Option(help="Tables waiting for players, in all; "
                                             "more are refused (busy).")] = 1000,
    waiting_per_address: Annotated[int, typer.Option(help="Tables made from one client "
                                                     "address waiting for players at once; "
                                                     "more are refused.")] = 100,
    expire_waiting: Annotated[float, typer.Option(help="Minutes a waiting table is kept "
                                                  "that nobody joins (watching keeps none), "
                                                  "or that its people have all left.")
                              ] = 30.0,
    max_connections: Annotated[int, typer.Option(help="Open connections at most (fewer if "
                                                 "file descriptors run out first).")] = 10000,
    sockets_per_address: Annotated[int, typer.Option(help="WebSockets one client address "
                                                     "may hold open at once.")] = 200,
    request_timeout: Annotated[float, typer.Option(help="Seconds a client has to send a "
                                                   "whole request; then it is closed.")] = 10.0,
    advice_workers: Annotated[int, typer.Option(help="Worker processes of the bid advisor "
                                                "and trick odds (apart from the bots').")] = 1,
    analysis_workers: Annotated[int, typer.Option(help="Worker processes of the game "
                                                  "analysis (apart from the others).")] = 1,
    analysis_samples: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option(help="Simulated rounds per choice in a game's analysis (default: a "
                     "tenth of the most minodice analyse takes, for an answer in a minute)."),
    ] = None,
    durable: Annotated[bool, typer.Option(help="Survive power cuts too (SQLite "
                                          "synchronous=FULL; slower).")] = False,
    redis: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--redis", help="One of several processes sharing --db (PostgreSQL): "
                     "their Redis, redis://HOST:PORT/DB. Each table is played by one "
                     "process at a time; clients may connect to any."),
    ] = None,
    advertise_url: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--advertise-url", help="With --redis: the address the other processes "
                     "reach this one at (default: http://HOST:PORT)."),
    ] = None,
    lease_seconds: Annotated[float, typer.Option(help="With --redis: how long a table stays "
                                                 "with a process that stopped answering "
                                                 "before another takes it over.")] = 5.0,
) -> None:
    """Serve Mino Dice tables: people and bots play over HTTP and WebSockets."""
    import uvicorn
    from sqlalchemy.engine import make_url
    from uvicorn.config import LOGGING_CONFIG

    from minodice.server.app import Caps, create_app, normal_origin, site_origins
    from minodice.server.botpool import BotPool
    from minodice.server.claims import DatabaseInUseError, claim_postgresql, claim_sqlite
    from minodice.server.collector import FREEZE_EVERY
    from minodice.server.connections import (
        connection_cap,
        guarded_protocol,
        guarded_websocket_protocol,
        raise_descriptor_limit,
    )
    from minodice.server.ops import configure_logging
    from minodice.server.replays import ANALYSIS_TIMEOUT, WEB_ANALYSIS_SAMPLES, Analyses
    from minodice.server.room import Settings
    from minodice.server.store import Store, engine_url

    if not 0 < port < 65536:
        raise typer.BadParameter(f"{port} is not a port", param_hint="--port")
    check_float("--bot-delay", bot_delay, 0, 60)
    check_float("--grace", grace, 0, DAY)
    for name, count, most in (
            ("--bot-workers", bot_workers, 256), ("--advice-workers", advice_workers, 256),
            ("--analysis-workers", analysis_workers, 256),
            ("--analysis-samples", 1 if analysis_samples is None else analysis_samples,
             10_000),  # as minodice analyse --samples
            ("--new-tables", new_tables, 1_000_000), ("--max-waiting", max_waiting, 1_000_000),
            ("--waiting-per-address", waiting_per_address, 1_000_000),
            ("--max-connections", max_connections, 1_000_000),
            ("--sockets-per-address", sockets_per_address, 1_000_000)):
        check_range(name, count, 1, most)
    for name, value in (("--read-rate", read_rate), ("--connect-rate", connect_rate),
                        ("--all-tables-rate", all_tables_rate), ("--http-rate", http_rate)):
        check_float(name, value, 0, 1e6, above=True)
    check_float("--expire-waiting", expire_waiting, 0, 7 * DAY / 60, above=True)  # minutes
    check_float("--request-timeout", request_timeout, 0, 3600, above=True)
    check_float("--lease-seconds", lease_seconds, 0.5, 3600)
    for hint, addresses in (("--public-url", public_url), ("--allow-origin", allow_origin),
                            ("--advertise-url", [advertise_url] if advertise_url else [])):
        for address in addresses or ():
            if has_surrogates(address) or not normal_origin(address):
                raise typer.BadParameter(f"'{printable(address)}' is no http:// or https:// "
                                         "address (e.g. https://dice.example.org)",
                                         param_hint=hint)
    if redis is not None and not redis.startswith(("redis://", "rediss://", "unix://")):
        raise typer.BadParameter("a redis://HOST:PORT/DB URL", param_hint="--redis")
    db, named = db_option(db)
    url = database_url(db, named)
    if redis is not None and (url is None or url.startswith("sqlite")):
        # Several processes on SQLite files of their own would each serve tables the
        # others cannot read (forwarded to, then lost with their process).
        raise typer.BadParameter("needs a PostgreSQL --db", param_hint="--redis")
    if url is None:
        problem = db_folder_problem(Path(db) if db is not None else default_db())
        if problem is not None:
            raise typer.BadParameter(problem, param_hint=named)
    proxies = [p.strip() for p in (forwarded_allow_ips or "").split(",") if p.strip()]
    if log_format not in ("text", "json"):
        raise typer.BadParameter("text or json", param_hint="--log-format")
    levels = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
              "error": logging.ERROR}
    if log_level not in levels:
        raise typer.BadParameter(", ".join(levels), param_hint="--log-level")
    # From here on the server's lines are its log's: JSON lines with --log-format json
    # (an operator's log reader then parses each of them), a failure to start included.
    configure_logging(log_format, levels[log_level])

    def fail(message: str) -> NoReturn:
        """Cannot start: one line, exit 1 (an error log record in JSON)."""
        if log_format == "json":
            log.error(message)
        else:
            typer.echo(f"minodice serve: {message}", err=True)
        raise typer.Exit(1)

    busy = cannot_listen(host, port)
    if busy is not None:
        fail(f"cannot listen on {host}:{port}: {busy}")
    if redis is not None:
        unreachable = redis_unreachable(redis)
        if unreachable is not None:
            fail(f"Redis does not answer at {hidden_password(redis)}: {unreachable}")
    path: Path | str = Path(db) if db is not None and url is None else default_db()
    secret: str | None = None
    if url is not None:
        # Never a password in a message or a log.
        parsed = make_url(engine_url(url))
        path, secret = parsed.render_as_string(hide_password=True), parsed.password
    release: Callable[[], None] = lambda: None  # noqa: E731 - until the database is claimed
    try:
        # claimed first: a second server (a newer release, say) must not even upgrade it
        if url is None:
            release = claim_sqlite(made_folder(Path(path)))
        elif not url.startswith("sqlite"):
            release = claim_postgresql(engine_url(url), shared=redis is not None)
        store = Store(url, durable) if url is not None else Store.sqlite(Path(path), durable)
    except DatabaseInUseError as exc:
        release()
        fail(str(exc))
    except Exception as exc:  # a folder we may not write, a file that is no database,
        # a database server that does not answer, a wrong password
        release()
        fail(f"cannot open the database {path}: {failure_reason(exc, secret)}")
    caps = Caps(read_rate=read_rate, read_burst=read_rate * 6,
                tables_burst=new_tables, tables_rate=new_tables / 600,
                all_tables_rate=all_tables_rate, all_tables_burst=all_tables_rate * 10,
                max_waiting=max_waiting, waiting_per_address=waiting_per_address,
                expire_waiting=expire_waiting * 60,
                connect_rate=connect_rate, connect_burst=connect_rate * 20,
                sockets_per_address=sockets_per_address)
    origins = site_origins(host, port, (*(public_url or ()), *(allow_origin or ())))
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    shown_host = f"[{shown}]" if ":" in shown else shown
    application = create_app(store, Settings(bot_delay=bot_delay, grace=grace),
                             BotPool(bot_workers), origins, http_rate,
                             max(60.0, http_rate * 3), freeze_every=FREEZE_EVERY, caps=caps,
                             advice_pool=BotPool(advice_workers, queue=caps.advice_queue,
                                                 niceness=10),
                             analyses=Analyses(BotPool(analysis_workers, timeout=ANALYSIS_TIMEOUT,
                                                       queue=caps.advice_queue, niceness=10),
                                               samples=analysis_samples
                                               or WEB_ANALYSIS_SAMPLES),
                             redis_url=redis,
                             advertise_url=advertise_url or f"http://{shown_host}:{port}",
                             lease_ms=int(lease_seconds * 1000))
    connections = connection_cap(max_connections, raise_descriptor_limit())
    # Behind a proxy people open the public address, not this process's own.
    address = public_url[0].rstrip("/") if public_url else f"http://{shown_host}:{port}"
    if log_format == "json":
        # Nothing on stdout: a service manager collects both streams into one log.
        log.info("Mino Dice is ready at %s/ (API: %s/docs); tables are kept in %s",
                 address, address, path,
                 extra={"url": f"{address}/", "docs": f"{address}/docs", "store": str(path)})
    else:
        typer.echo(f"Mino Dice is ready: open {address}/ in your browser "
                   "(Ctrl+C stops the server).")
        typer.echo(f"API: {address}/docs · tables are kept in {path}", err=True)
    # No access log: WebSocket URLs carry seat tokens, and tokens belong in no log.
    # X-Forwarded-For only from the named proxies (uvicorn's default trusts 127.0.0.1: any
    # local process, or a proxy passing on what its clients claim, could pose as anyone).
    # Slow and half-open connections are closed, and capped (server/connections.py).
    # uvicorn stops gracefully on SIGTERM, then sends it again to the handler it found:
    # the default one ended the process there, before the claim's lock file was removed and
    # before multiprocessing let go of the pools' semaphores (its tracker then printed a
    # plain-text warning among the JSON log). Ours ends it as a stop asked for: exit 0.
    previous_term = signal.signal(signal.SIGTERM, stopped_by_signal)
    try:
        uvicorn.run(application, host=host, port=port, access_log=False, log_level="warning",
                    ws_max_size=65536, ws_ping_interval=20, ws_ping_timeout=20,
                    ws_per_message_deflate=False,  # views are small; CPU is the scarce thing
                    timeout_graceful_shutdown=5,  # open WebSockets must not hold a stop up
                    proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None,
                    http=guarded_protocol(request_timeout, connections,
                                          per_address=max(16, connections // 8)),
                    ws=guarded_websocket_protocol(),
                    timeout_keep_alive=5, backlog=2048,
                    # JSON logs: uvicorn's own lines go through the root logger's JSON handler.
                    log_config=None if log_format == "json" else LOGGING_CONFIG)
    except StoppedBySignal:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        release()


class StoppedBySignal(BaseException):
    """SIGTERM after uvicorn's graceful stop: the server ends as asked (a BaseException,
    as KeyboardInterrupt is: no `except Exception` on the way may take it for a failure)."""


def stopped_by_signal(signum: int, frame: object) -> None:
    raise StoppedBySignal


def default_seat_name(bot: str) -> str:
    """The name ``join`` seats a bot under when given none: its level or class and "bot",
    the class cut short to fit a name (a long class name was refused by the server, in
    words about a name the user never gave)."""
    label = bot.split(":")[-1].strip()
    if len(label) + 4 > NAME_MAX:
        label = label[:NAME_MAX - 5] + "…"
    return f"{label} bot"


def made_folder(path: Path) -> Path:
    """``path``, its folder made if missing (only the default's can be: see
    :func:`db_folder_problem`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def db_folder_problem(path: Path) -> str | None:
    """Why the SQLite file ``path`` cannot be made where it is named: its folder is missing
    or is no folder. Only minodice's own data folder (:func:`data_folder`, the default's)
    is made when missing: any other was named by hand, and a typo (``--db
    tabels/2026/t.db``) made a tree of folders and started on an empty database in it."""
    folder = path.parent
    try:
        if folder.is_dir() or folder == data_folder():
            return None
        if folder.exists():
            return f"{printable(str(folder))} is not a folder"
    except OSError:  # not ours to look at: opening the database says why, in one line
        return None
    return (f"the folder {printable(str(folder))} does not exist; make it first, or name a "
            "file in a folder that does")


def db_option(db: str | None) -> tuple[str | None, str]:
    """What the store is named by: ``--db``, else ``$MINODICE_DB`` (a file or a URL alike),
    else ``None`` (the default file); and the option to name in a refusal."""
    if db is not None:
        return sqlite_file_named(db), "--db"
    named = os.environ.get("MINODICE_DB") or None
    return (sqlite_file_named(named) if named is not None else None,
            "--db (from $MINODICE_DB)")


def sqlite_file_named(db: str) -> str:
    """``db``, or the file of a ``sqlite:///FILE`` URL as a plain name: a file is a file
    however it is named, so it gets a file's checks and its claim (a second server on it
    named by URL started beside the first). An in-memory database, or a URL with options,
    stays a URL."""
    from sqlalchemy.engine import make_url

    if not db.startswith("sqlite:///"):
        return db
    try:
        parsed = make_url(db)
    except Exception:  # said by database_url, which reads it again
        return db
    if parsed.query or not parsed.database or parsed.database == ":memory:":
        return db
    return parsed.database


def database_url(db: str | None, hint: str = "--db") -> str | None:
    """``--db`` as a database URL (PostgreSQL's, or SQLAlchemy's ``sqlite:///FILE``),
    ``None`` for a SQLite file named plainly. Anything else that looks like a URL
    (``mysql://``, ``postgresql:/one-slash``) is refused rather than taken for a file name,
    which would quietly create a folder named after it, password and all; so is a URL
    SQLAlchemy cannot read (a port that is no number, an ``@`` in the password), in words
    that never repeat it: it holds a password."""
    from sqlalchemy.engine import make_url

    from minodice.server.store import engine_url

    if db is None:
        return None
    if not db.strip():
        raise typer.BadParameter("empty: a SQLite file, or a PostgreSQL URL", param_hint=hint)
    form = "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    if db.startswith(("postgresql://", "postgres://", "sqlite://")):
        try:
            make_url(engine_url(db))
        except Exception:  # whatever SQLAlchemy makes of a malformed URL
            raise typer.BadParameter(
                f"not a database URL SQLAlchemy can read: {form}, where a password with "
                "@ : / or % is written %-encoded (@ as %40)", param_hint=hint) from None
        return db
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+:", db):
        raise typer.BadParameter(f"a SQLite file, or a PostgreSQL URL {form}", param_hint=hint)
    return None


def hidden_password(url: str) -> str:
    """``url`` with the password of its ``user:password@`` part shown as ``***``."""
    return re.sub(r"^([a-z0-9+.-]+://[^/@:]*:)[^/@]*@", r"\1***@", url, flags=re.IGNORECASE)


def failure_reason(exc: BaseException, secret: str | None) -> str:
    """Why a database would not open, in one line: the kind of error and the driver's own
    first line ("password authentication failed ...", "database ... does not exist",
    "Connection refused"), with the password blotted out should a driver ever echo it."""
    from minodice.server.migrations import SchemaError

    cause = getattr(exc, "orig", None) or exc.__cause__ or exc
    text = str(cause).strip().splitlines()
    reason = type(cause).__name__ + (f": {text[0]}" if text else "")
    if isinstance(cause, SchemaError):  # the store's own words, whole
        reason = str(cause)
    elif isinstance(cause, OSError) and cause.strerror:  # "Read-only file system (PATH)",
        # not "OSError: [Errno 30] ...": a folder the server may not write is a user's matter
        where = f" ({cause.filename})" if cause.filename else ""
        reason = f"{cause.strerror}{where}"
        if cause.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            reason += "; choose a folder the server may write (--db FILE)"
    if secret:
        reason = reason.replace(secret, "***")
    return one_line(reason)[:300]


def redis_unreachable(url: str) -> str | None:
    """Why Redis at ``url`` does not answer a ping within 3 s (``None``: it does), asked
    before the server starts, so that a Redis left stopped is one line, not the traceback
    of an application that failed to start."""
    import redis as redis_client

    client = redis_client.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    except redis_client.RedisError as exc:
        text = str(exc).strip().splitlines()
        return one_line(text[0] if text else type(exc).__name__)[:300]
    finally:
        client.close()
    return None


def cannot_listen(host: str, port: int) -> str | None:
    """Why a server could not listen on ``host:port`` (``None``: it can), checked before
    anything starts. uvicorn finds out only after the worker pools are up and leaves them
    to die in a traceback at exit; a second ``minodice serve`` on the same port is a common
    slip and deserves one line. (Another program may still take the port in between; then
    uvicorn's own error stands.)"""
    import errno
    import socket

    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    except (socket.gaierror, UnicodeError):
        return "no such address (see --host)"
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return "the port is in use (another server?); choose one with --port"
            if exc.errno == errno.EACCES:
                return "not allowed to use this port (below 1024?); choose one with --port"
            return exc.strerror or type(exc).__name__
    return None


@app.command()
def join(
    url: Annotated[str, typer.Argument(help="The table's link, http://HOST:PORT/t/TABLE.")],
    bot: Annotated[str, typer.Option("--bot", help="Who plays the seat: "
                                     f"{LEVELS}, file.py:Class or module:Class.")] = "hard",
    name: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--name", help="The seat's name (default: the bot's)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the result.")] = False,
) -> None:
    """Take a seat at a table on a server and let a local bot play it."""
    from minodice.client import ClientError, bot_decider
    from minodice.client import join as take_seat
    from minodice.client import play as play_seat

    if name is not None:  # the server's rule, before any request (no UTF-8, no request)
        name = name.strip()
        problem = name_problem(name)
        if problem is not None:
            raise typer.BadParameter(problem, param_hint="--name")
    try:
        engine_bot = make_bot(bot)
    except BotError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bot") from None

    def show(message: dict[str, Any]) -> None:
        if quiet:
            return
        if message.get("type") == "chat":
            typer.echo(f"[chat] {printable(str(message.get('name')))}: "
                       f"{printable(str(message.get('text')))}")
        elif message.get("type") == "error" and message.get("code") == "moved":
            # The client connects again by itself: not an order to the person.
            typer.echo("[server] the table moved to another server process; reconnecting",
                       err=True)
        elif message.get("type") == "error":
            typer.echo(f"[server] {printable(str(message.get('message')))}", err=True)

    async def run() -> dict[str, Any]:
        ticket = await take_seat(url, name or default_seat_name(bot), commit=True)
        if not quiet:
            typer.echo(f"seated as {printable(ticket.name)} (seat {ticket.seat + 1}) at "
                       f"{ticket.table}; playing with {bot}")
        return await play_seat(ticket, bot_decider(engine_bot), show,
                               on_connection=connection)

    def connection(back: bool) -> None:
        if not quiet:
            typer.echo("[connection] back; playing on" if back else
                       "[connection] lost; trying again until the server answers (Ctrl+C "
                       "stops)", err=True)

    try:
        final = asyncio.run(run())
    except ClientError as exc:
        typer.echo(f"minodice join: {exc}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    names = [printable(str(p["name"])) for p in final["players"]]
    totals = final["totals"]
    typer.echo("final: " + ", ".join(f"{n} {t}" for n, t in zip(names, totals, strict=True)))


@app.command(name="table", short_help="Inspect one table of a server's store: settings, "
             "seats, log, and whether the log still replays.")
def inspect_table(
    table_id: Annotated[str, typer.Argument(metavar="TABLE", help="The table's id (from its "
                                            "link /t/TABLE, or the server's log).")],
    db: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads this annotation at run time
        typer.Option("--db", help="The server's SQLite file, or its PostgreSQL URL "
                     "(postgresql://USER:PASSWORD@HOST:PORT/DATABASE; default: as "
                     "minodice serve)."),
    ] = None,
    events: Annotated[bool, typer.Option("--events", help="Also list the logged events, "
                                         "one JSON line each.")] = False,
) -> None:
    """Inspect one table of a server's store: its settings, seats and log, and whether the
    log still replays (exit 1 for a damaged table, one the server set aside)."""
    from datetime import UTC, datetime

    import sqlalchemy
    from sqlalchemy import make_url

    from minodice.server.room import rebuilt_table
    from minodice.server.store import Store, engine_url

    db, named = db_option(db)
    url = database_url(db, named)
    path: Path | str
    if url is not None:
        # Named without its password in every message, as minodice serve does.
        path = make_url(engine_url(url)).render_as_string(hide_password=True)
    else:
        path = Path(db) if db is not None else default_db()
        if not path.is_file():
            typer.echo(f"minodice table: no database at {path}", err=True)
            raise typer.Exit(1)
        # Looked at before SQLite opens it: opening would turn an empty file into a
        # database, and inspecting changes nothing.
        with path.open("rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                typer.echo(f"minodice table: {path} is not a SQLite database", err=True)
                raise typer.Exit(1)
    store: Store | None = None
    try:
        # Inspecting changes nothing: no migration, on a file or on a database server.
        store = (Store(url, upgrade=False) if url is not None
                 else Store.sqlite(Path(path), upgrade=False))
        # A database is only read on first use: read its list of tables here, so that a
        # server that does not answer or a file that is no database is a one-line refusal.
        names = sqlalchemy.inspect(store.engine).get_table_names()
    except Exception as exc:  # not a database, not readable, not answering
        if store is not None:
            store.close(checkpoint=False)
        secret = make_url(engine_url(url)).password if url is not None else None
        typer.echo(f"minodice table: cannot open the database {path}: "
                   f"{failure_reason(exc, secret)}", err=True)
        raise typer.Exit(1) from None
    if "tables" not in names:
        store.close(checkpoint=False)
        typer.echo(f"minodice table: {path} is not the database of a minodice server", err=True)
        raise typer.Exit(1)
    try:
        try:
            row = store.row(table_id)
        except ValueError as exc:  # its settings or seats are not what any release wrote
            typer.echo(f"table {printable(table_id)}: its row cannot be read")
            typer.echo(f"damaged: {one_line(str(exc))}")
            raise typer.Exit(1) from None
        if row is None:
            typer.echo(f"minodice table: no table {printable(table_id)!r} in {path}", err=True)
            raise typer.Exit(1)
        texts = store.event_texts(table_id)
        s = row.settings
        when = datetime.fromtimestamp(row.created_at / 1000, UTC).strftime("%Y-%m-%d %H:%M")
        typer.echo(f"table {row.id}: {row.status}, {s.players} players "
                   f"({s.edition}, {s.variant}), created {when} UTC")
        for i, seat in enumerate(row.seats):
            who = f"bot {seat.bot}" if seat.bot else "person"
            name = printable(seat.name) if seat.name else "(free)"
            typer.echo(f"  seat {i + 1}: {name} ({who})")
        typer.echo(f"log: {len(texts)} events, seq {row.seq}")
        problem = ""
        try:
            loaded = store.load(table_id)
            assert loaded is not None
            rebuilt_table(loaded)
        except Exception as exc:  # whatever the damage makes the load or replay raise
            problem = one_line(f"{type(exc).__name__}: {exc}")
        if not events:
            texts = []
        for text in texts:
            typer.echo(f"  {printable(text)}")
    finally:
        store.close()
    if problem:
        typer.echo(f"damaged: {problem}")
        raise typer.Exit(1)
    typer.echo("sound: the log replays to the table's state")


@app.command(short_help="Check a finished server game: its rules, scores, and every "
             "deal and roll against its revealed seeds.")
def verify(
    record_file: Annotated[str, typer.Argument(metavar="RECORD", help="A finished server "
                                               "game's record (or - for standard input).")],
) -> None:
    """Check a finished server game: its rules, scores, and every deal and roll against
    its revealed seeds."""
    try:
        data = record_json(read_record_text(record_file))
        load_record(data)
    except UnreadRecordError as exc:
        typer.echo(f"minodice verify: {one_line(str(exc))}", err=True)
        raise typer.Exit(1) from None
    except (ValueError, InvalidRecordError) as exc:
        typer.echo(f"minodice verify: invalid record: {one_line(str(exc))}", err=True)
        raise typer.Exit(1) from None
    if isinstance(data, dict) and "fairness" not in data:  # not unfair: not a server's game
        typer.echo('minodice verify: cannot check the dice: the record has no "fairness" '
                   "object (a minodice server's games have one; 'minodice replay' checks a "
                   "record's rules and scores)", err=True)
        raise typer.Exit(1)
    try:
        result = verify_record(data)
    except UnfinishedRecordError as exc:
        typer.echo(f"minodice verify: not vouched for: {one_line(str(exc))}", err=True)
        raise typer.Exit(1) from None
    except FairnessError as exc:
        typer.echo(f"minodice verify: NOT FAIR: {one_line(str(exc))}", err=True)
        raise typer.Exit(1) from None
    names = [printable(str(p)) for p in data["players"]]
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, result.totals, strict=True))
    # fair-1 records state no totals: the scores are computed, with nothing to compare
    scores = "the stated totals are right" if "totals" in data else "totals"
    typer.echo(f"fair: {result.deals} deals and {result.rolls} rolls follow from the revealed "
               f"seeds ({result.scheme}, commit {data['fairness']['commit'][:16]}…); every "
               f"rule followed; {scores}: {totals}")
