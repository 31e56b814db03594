"""What the browser page needs besides the protocol: its files, its words, the dice.

The page is static (HTML, CSS, ES modules in ``static/``, no build step). Its translations
are served from the same gettext catalogues as the terminal's, so there is one source of
every translated word; the dice sets come from the engine's own data files, and the game's
constants (rounds per player count, bot levels, editions and their titles) from the one
place each is stated in Python (:func:`game_meta`), as JSON and as an ES module the page
and the score pad import (:func:`meta_module`), so that no script restates them.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import mimetypes
import os
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import formatdate
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import rcssmin
import rjsmin
from babel.messages.pofile import read_po
from pydantic import BaseModel, Field
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Scope

from minodice.bots.protocol import BUILTIN_BOTS
from minodice.core.dice import BUILTIN_DICE_SETS, load_dice_set
from minodice.core.rules import MAX_PLAYERS, MIN_PLAYERS, rounds_for
from minodice.i18n import catalogue_text
from minodice.i18n.words import EDITION_TITLES

STATIC = Path(__file__).resolve().parent / "static"

#: The page loads only its own scripts, styles and connections: whatever a person typed
#: and the server relays can never run as code there, even if shown wrongly.
PAGE_HEADERS = {
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


#: How each kind of file is made smaller for the wire. Comments and whitespace only: the
#: files in ``static/`` stay the readable source (the page has no build step), and what a
#: browser gets is the same code, about three quarters of the bytes (the budget for all
#: scripts and styles is 150 KB as served, before compression).
MINIFIERS: dict[str, Callable[[str], str]] = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}


@dataclass(frozen=True)
class Minified:
    """A script or style sheet as served: minified, and gzipped once for every browser
    that accepts it (compressing it anew for each request cost the server more than all
    the rest of serving it, on a page's first view of 15 files)."""

    body: bytes
    gzipped: bytes
    etag: str


@lru_cache(maxsize=128)
def _minified(path: Path, version: tuple[int, int]) -> Minified:
    body = MINIFIERS[path.suffix](path.read_text("utf-8")).encode()
    return Minified(body, gzip.compress(body, 9, mtime=0),
                    hashlib.sha256(body).hexdigest()[:32])


def minified_file(path: Path, stat: os.stat_result | None = None) -> Minified:
    """``path`` (a script or a style sheet) as served: made once per version of the file
    (its modification time and size), so an edited file is served anew."""
    stat = stat or path.stat()
    return _minified(path, (stat.st_mtime_ns, stat.st_size))


def minified(path: Path) -> bytes:
    """The minified text of ``path``, as a browser gets it once unpacked."""
    return minified_file(path).body


class MinifiedFiles(StaticFiles):
    """``static/``, its scripts and styles minified (:data:`MINIFIERS`) and gzipped, all
    of them at start-up (the first visitor waits for none), each with an ETag of what is
    sent; other files as they are."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory=directory)
        for path in directory.iterdir():
            if path.suffix in MINIFIERS:
                minified_file(path)

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result,
                      scope: Scope, status_code: int = 200) -> Response:
        path = Path(full_path)
        if path.suffix not in MINIFIERS:
            return super().file_response(full_path, stat_result, scope, status_code)
        served = minified_file(path, stat_result)
        request = Headers(scope=scope)
        packed = "gzip" in request.get("accept-encoding", "")
        headers = {"etag": f'"{served.etag}{"-gz" if packed else ""}"',
                   "last-modified": formatdate(stat_result.st_mtime, usegmt=True),
                   "vary": "Accept-Encoding"}
        if self.is_not_modified(Headers(headers), request):
            return NotModifiedResponse(Headers(headers))
        if packed:
            headers["content-encoding"] = "gzip"
        return Response(served.gzipped if packed else served.body, status_code, headers,
                        mimetypes.guess_type(path.name)[0] or "text/plain")


@cache
def catalogue_messages(lang: str) -> dict[str, str | list[str]]:
    """``msgid → translation`` of one catalogue (plural entries: ``[one, other]``)."""
    catalog = read_po(io.StringIO(catalogue_text(lang)), locale=lang)
    out: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, str):
            if isinstance(message.string, str) and message.string:
                out[message.id] = message.string
        else:
            strings = [str(s) for s in message.string] if message.string else []
            if all(strings):
                out[str(message.id[0])] = strings
    return out


@cache
def dice_set_json(edition: str) -> dict[str, Any]:
    """A dice set for the page: symbols, and kinds in bag order with counts and faces;
    its title in English as ``/api/meta`` gives it (the page translates it), not the
    title the box was first published under."""
    ds = load_dice_set(edition)
    return {
        "name": ds.name,
        "title": EDITION_TITLES.get(ds.name, ds.title),
        "symbols": list(ds.symbols),
        "kinds": [{"name": k.name, "count": k.count, "colour": k.colour, "special": k.special,
                   "faces": [f.record_value for f in k.faces]} for k in ds.kinds],
    }


class EditionMeta(BaseModel):
    """One edition as the page offers it."""

    name: str = Field(description="the dice set's name, as in records and requests")
    title: str = Field(description="its title in English; the page shows the catalogue's "
                       "translation of it")
    symbols: list[str] = Field(description="its three symbols' names, by role: the "
                               "minotaur's, the griffin's, the mermaid's")


class GameMeta(BaseModel):
    """``GET /api/meta``: the constants the page and the score pad need, from the engine."""

    min_players: int
    max_players: int
    rounds: dict[int, int] = Field(description="R2: the rounds of a game by player count")
    levels: list[str] = Field(description="the server's bot levels, weakest first")
    editions: list[EditionMeta]


@cache
def game_meta() -> GameMeta:
    """Each constant read from its one source: the rules, the bot registry, the dice sets
    and the edition titles of the catalogues."""
    return GameMeta(
        min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
        rounds={n: rounds_for(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)},
        levels=list(BUILTIN_BOTS),
        editions=[EditionMeta(name=name, title=EDITION_TITLES[name],
                              symbols=list(load_dice_set(name).symbols))
                  for name in BUILTIN_DICE_SETS])


@cache
def meta_module() -> str:
    """:func:`game_meta` as an ES module (``/meta.js``): ``export const ROUNDS = {...};``
    and so on, one upper-case name per field. A module rather than a request, so that the
    score pad, which works offline, gets it like its other scripts (and the service
    worker keeps it like them)."""
    lines = ["// The game's constants, written by the server from the engine's own",
             "// (minodice.server.web.game_meta; also GET /api/meta). Import them; never restate."]
    for name, value in game_meta().model_dump(mode="json").items():
        lines.append(f"export const {name.upper()} = {json.dumps(value)};")
    return "\n".join(lines) + "\n"
