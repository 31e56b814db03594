"""Text a person typed, made safe to print: shown literally, never obeyed by a terminal.

A name or a chat line may hold terminal escape sequences (``ESC ]0;…BEL`` retitles a
window, ``ESC [2J`` clears it). Printed raw they act; escaped they are just text. The same
goes for what a file says about itself in an error message, which may also hold a number
of 100,000 digits: :func:`one_line` says how long it is instead.

>>> printable("Ana\\x1b[2J")
'Ana\\\\x1b[2J'
>>> printable("Zoë ✓")
'Zoë ✓'
>>> one_line("Ana bid " + "1" + "0" * 400)
'Ana bid 100000… (a number of 401 digits)'
>>> json_text({"players": ["Ana\\u202e"]})
'{"players": ["Ana\\\\u202e"]}'
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from rich.cells import cell_len, set_cell_size

from minodice.core.names import joiner

_UNSAFE = ("Cc", "Cf", "Zl", "Zp", "Cs")
_LONG_NUMBER = re.compile(r"\d{16,}")
# Python's own sentence for a number too long to read (it advises a Python call).
_PYTHON_INT_LIMIT = re.compile(
    r"Exceeds the limit \((\d+) digits\) for integer string conversion[^;]*: "
    r"value has (\d+) digits; use sys\.set_int_max_str_digits\(\) to increase the limit")


def printable(text: str) -> str:
    """``text`` with control and format characters written as escapes (``\\x1b``), but for
    the joiners a name may hold (:func:`~minodice.core.names.joiner`): they move no cursor,
    and a name the server seated shows as its page shows it ("👩‍💻", not "👩\\u200d💻")."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch == " " or unicodedata.category(ch) not in _UNSAFE or joiner(ch)
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text)


def one_line(message: str, limit: int = 300) -> str:
    """An error message as one short printable line: escapes for control characters, a
    long number said by its length, and at most ``limit`` characters."""
    message = _PYTHON_INT_LIMIT.sub(r"a number of \2 digits (at most \1)", message)
    message = _LONG_NUMBER.sub(
        lambda m: f"{m.group()[:6]}… (a number of {len(m.group())} digits)", message)
    message = printable(message)
    return message if len(message) <= limit else message[:limit - 1] + "…"


def _unsafe(ch: str) -> bool:
    return unicodedata.category(ch) in _UNSAFE


def json_text(data: Any) -> str:
    """``data`` as one line of JSON, readable (not ASCII-only) but with every control and
    format character escaped, so that printing it never moves the terminal."""
    text = json.dumps(data, ensure_ascii=False)
    if text.isprintable():
        return text
    return "".join(_escape_char(ch) if _unsafe(ch) else ch for ch in text)


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def pad_cells(text: str, width: int, right: bool = False) -> str:
    """``text`` filled with spaces to ``width`` columns of a terminal, on the right (or on
    the left with ``right``): a wide character (CJK, most emoji) takes two columns, so
    ``str.ljust`` left a table with such a name out of line."""
    room = " " * max(0, width - cell_len(text))
    return room + text if right else text + room


def fit_cells(text: str, width: int) -> str:
    """``text`` in exactly ``width`` columns: cut (never inside a wide character) or
    filled with spaces."""
    return set_cell_size(text, width)
