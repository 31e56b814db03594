"""Write the JSON Schemas of the WebSocket messages into docs/PROTOCOL.md.

    python scripts/protocol_schemas.py            # rewrite the document's schema section
    python scripts/protocol_schemas.py --check    # exit 1 (and say so) if it is out of date

The schemas come from the models the server builds its messages with
(:mod:`minodice.wire.schema`), the same the server publishes at ``/api/schema``;
tests/test_wire.py fails when the document does not show what this writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from minodice.wire.schema import with_schemas

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "PROTOCOL.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check, change nothing")
    args = parser.parse_args()
    text = DOCUMENT.read_text("utf-8")
    wanted = with_schemas(text)
    if args.check:
        if wanted != text:
            print(f"{DOCUMENT.name} is out of date: run python scripts/protocol_schemas.py")
            return 1
        return 0
    if wanted != text:
        DOCUMENT.write_text(wanted, "utf-8")
        print(f"{DOCUMENT.name}: schema section written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
