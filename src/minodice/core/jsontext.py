"""JSON read strictly: the one reading of JSON text that every reader of the project shares
(records, the table protocol's messages, the API's bodies).

Python's ``json`` reads ``NaN`` and ``Infinity``, which are no JSON (RFC 8259), and takes
the last of a key given twice in one object, where other readers take the first or refuse:
two programs would then read two different messages out of one text (a record's game, or
``{"type": "act", …, "type": "chat"}``). Both are refused here, as :class:`ValueError`.

>>> loads_strict('{"a": 1}')
{'a': 1}
>>> loads_strict('{"a": 1, "a": 2}')
Traceback (most recent call last):
ValueError: the key "a" twice in one object
>>> loads_strict('[NaN]')
Traceback (most recent call last):
ValueError: NaN is no JSON number
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def refuse_constant(name: str) -> Any:
    """``parse_constant`` for :func:`json.loads`: ``NaN``, ``Infinity``, ``-Infinity``."""
    raise ValueError(f"{name} is no JSON number")


def one_of_each_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` for :func:`json.loads`: an object whose keys are distinct."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = json.dumps(key, ensure_ascii=False)
                raise ValueError(f"the key {shown} twice in one object")
            seen.add(key)
    return found


def loads_strict(text: str, parse_int: Callable[[str], Any] | None = None) -> Any:
    """The JSON value of ``text``; :class:`ValueError` (``json.JSONDecodeError`` among
    them) for text that is no JSON, :class:`RecursionError` for nesting past ``json``'s
    limit."""
    return json.loads(text, parse_int=parse_int, parse_constant=refuse_constant,
                      object_pairs_hook=one_of_each_key)
