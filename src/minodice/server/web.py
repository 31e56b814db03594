"""What the browser page needs besides the protocol: its files, its words, the dice.

The page is static (HTML, CSS, ES modules in ``static/``, no build step). Its translations
are served from the same gettext catalogues as the terminal's, so there is one source of
every translated word; the dice sets come from the engine's own data files.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

from minodice.core.dice import load_dice_set
from minodice.i18n import catalogue_text

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
    """A dice set for the page: symbols, and kinds in bag order with counts and faces."""
    ds = load_dice_set(edition)
    return {
        "name": ds.name,
        "title": ds.title,
        "symbols": list(ds.symbols),
        "kinds": [{"name": k.name, "count": k.count, "colour": k.colour, "special": k.special,
                   "faces": [f.record_value for f in k.faces]} for k in ds.kinds],
    }
