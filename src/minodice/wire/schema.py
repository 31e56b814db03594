"""The JSON Schemas of the WebSocket messages, generated from the models.

Served at ``GET /api/schema`` (an index) and ``GET /api/schema/NAME.json``, and written into
``docs/PROTOCOL.md`` by ``scripts/protocol_schemas.py``: one source, so what the server
publishes, what the document shows and what the server sends cannot drift apart (the tests
check real traffic against these schemas, and the document against :func:`schemas_markdown`).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from minodice.wire.messages import (
    ActMessage,
    ChatMessage,
    ChatSend,
    ClientMessage,
    ErrorMessage,
    ServerMessage,
    ViewMessage,
)

#: The address of the index; each schema is at ``SCHEMA_PATH/NAME.json``.
SCHEMA_PATH = "/api/schema"

#: name → (what it is, its type). ``server-message`` and ``client-message`` are the unions
#: a reader validates against; the others are their members.
SCHEMAS: dict[str, tuple[str, Any]] = {
    "server-message": ("any message the server sends", ServerMessage),
    "view": ("server → client: the connection's view", ViewMessage),
    "error": ("server → client: a refused message", ErrorMessage),
    "chat": ("server → client: a chat line", ChatMessage),
    "client-message": ("any message a client sends", ClientMessage),
    "act": ("client → server: an action", ActMessage),
    "chat-send": ("client → server: a chat line", ChatSend),
}

BEGIN = "<!-- schemas: begin (written by scripts/protocol_schemas.py; do not edit) -->"
END = "<!-- schemas: end -->"


@cache
def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the message ``name``; ``KeyError`` if none."""
    title, kind = SCHEMAS[name]
    schema = TypeAdapter(kind).json_schema(mode="serialization")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              "$id": f"{SCHEMA_PATH}/{name}.json", **schema}
    schema.setdefault("title", name)
    schema.setdefault("description", title)
    return schema


def schema_index() -> dict[str, str]:
    """name → the address of its schema."""
    return {name: f"{SCHEMA_PATH}/{name}.json" for name in SCHEMAS}


def schemas_markdown() -> str:
    """The schemas as ``docs/PROTOCOL.md`` shows them, between :data:`BEGIN` and :data:`END`."""
    parts = [BEGIN, ""]
    for name, (title, _kind) in SCHEMAS.items():
        text = json.dumps(json_schema(name), indent=1, ensure_ascii=False)
        parts += [f"<details><summary><code>{name}</code>: {title} "
                  f"(<code>{SCHEMA_PATH}/{name}.json</code>)</summary>", "",
                  "```json", text, "```", "", "</details>", ""]
    parts.append(END)
    return "\n".join(parts)


def with_schemas(document: str) -> str:
    """``document`` with its schema section replaced by :func:`schemas_markdown` (added at
    the end when it has none)."""
    start, end = document.find(BEGIN), document.find(END)
    if start < 0 or end < start:
        return document.rstrip("\n") + "\n\n## Message schemas\n\n" + schemas_markdown() + "\n"
    return document[:start] + schemas_markdown() + document[end + len(END):]
