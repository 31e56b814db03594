"""Keep the translation catalogues in step with the source.

    python scripts/i18n.py extract   # write src/minodice/i18n/locales/minodice.pot
    python scripts/i18n.py update    # merge new messages into every LANG.po (untranslated)
    python scripts/i18n.py check     # list messages a catalogue misses (exit 1 if any)

The same extraction runs in the test suite (tests/test_i18n.py), so a string added to the
screen without translations fails CI.
"""

from __future__ import annotations

import sys

from minodice.i18n.catalogue import LOCALES, extract_catalog, missing, write_template


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "extract":
        write_template(LOCALES / "minodice.pot")
        return 0
    if command == "update":
        from minodice.i18n.catalogue import update_catalogues

        update_catalogues()
        return 0
    if command == "check":
        problems = missing(extract_catalog())
        for line in problems:
            print(line)
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
