"""Which characters a person's name may hold: one rule for the server that seats a name
(:func:`minodice.server.lobby.clean_name`), the terminal that starts a game with it
(``minodice play --name``) and the check of a server's records
(:func:`minodice.core.fair.check_names`), so that a name one takes the others accept."""

from __future__ import annotations

import unicodedata

#: The longest name a person may take, in code points (a server's second "Ana" becomes
#: "Ana 2", so a record may hold a little more: :data:`minodice.core.fair.NAME_MAX`).
NAME_MAX = 24

#: Letters and symbols that show as nothing (Hangul fillers, the braille blank): a name of
#: them alone would be a blank name.
BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


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


#: Why a name that is no text is refused (a command line in another encoding than UTF-8).
NOT_TEXT = "a name must be text (it holds bytes that are not UTF-8)"


def name_problem(name: str) -> str | None:
    """Why a person cannot take ``name`` (already trimmed), as a sentence, or ``None``.

    It is shown literally everywhere, so nothing is taken out of it: it is refused if it
    is empty or too long, holds control characters, is no text (a lone surrogate: bytes of
    a command line that were not UTF-8, which no file or message could hold) or has nothing
    visible."""
    if not name or len(name) > NAME_MAX:
        return f"a name is 1 to {NAME_MAX} characters"
    if any(map(control, name)):
        return "a name may not hold control characters"
    if has_surrogates(name):
        return NOT_TEXT
    categories = [unicodedata.category(c) for c in name]
    if not any(cat[0] in "LNPS" and c not in BLANKS
               for c, cat in zip(name, categories, strict=True)):
        return "a name needs a visible letter, digit or symbol"
    return None


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate: Python's stand-in for bytes that were not
    UTF-8 (a command line or file name in another encoding), which no UTF-8 file, URL or
    message can carry."""
    return any("\ud800" <= c <= "\udfff" for c in text)
