"""Which characters a person's name may hold: one rule for the server that seats a name
(:func:`minodice.server.lobby.clean_name`) and for the check of its records
(:func:`minodice.core.fair.check_names`), so that a name one takes the other accepts."""

from __future__ import annotations

import unicodedata


def joiner(char: str) -> bool:
    """An invisible character a name may hold: the zero-width joiner and non-joiner (emoji
    such as "👩‍💻" and "🏳️‍🌈" are joined by the first; Persian and Indic names need the
    second) and the tags that spell a region's flag ("🏴󠁧󠁢󠁳󠁣󠁴󠁿"). Every other format
    character (direction overrides, zero-width spaces, byte-order marks) could disguise a
    name, and is refused."""
    return char in "\u200c\u200d" or "\U000e0020" <= char <= "\U000e007f"


def control(char: str) -> bool:
    """A character no name holds: a control or line separator, or a format character that
    is no :func:`joiner`."""
    category = unicodedata.category(char)
    return category in ("Cc", "Zl", "Zp") or (category == "Cf" and not joiner(char))


def shown_name(name: str) -> str:
    """A name as a reader tells it from another: without its invisible joiners and tags,
    and without regard to case ("Bob", "bob" and "Bob\u200d" would be taken for one). Two
    seats' names never have the same (the server numbers the second, the terminal refuses
    it), as the terminal shows joiners as they are."""
    return "".join(c for c in name if not joiner(c)).casefold()
