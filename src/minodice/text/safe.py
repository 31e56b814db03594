"""Text a person typed, made safe to print: shown literally, never obeyed by a terminal.

A name or a chat line may hold terminal escape sequences (``ESC ]0;…BEL`` retitles a
window, ``ESC [2J`` clears it). Printed raw they act; escaped they are just text.

>>> printable("Ana\\x1b[2J")
'Ana\\\\x1b[2J'
>>> printable("Zoë ✓")
'Zoë ✓'
"""

from __future__ import annotations

import unicodedata


def printable(text: str) -> str:
    """``text`` with control and format characters written as escapes (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(
        ch if ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs")
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text)
