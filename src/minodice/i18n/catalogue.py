"""Extracting the messages of the screens and checking the catalogues against them.

Used by ``scripts/i18n.py`` and by the tests: a catalogue that misses a message, leaves it
untranslated or fuzzy, or drops a ``{placeholder}`` fails the check.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from minodice.i18n import LANGUAGES, catalogue_text

PACKAGE = Path(__file__).resolve().parent.parent
LOCALES = Path(__file__).resolve().parent / "locales"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
SOURCES = ("tui", "cli", "i18n", "server/static")  # the parts that put words on screen
METHODS = [("**.py", "python"), ("**.js", "javascript")]
_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def extract_catalog() -> Catalog:
    """Every message marked in the screen code, as a template catalogue."""
    catalog = Catalog(project="minodice", domain="minodice")
    for folder in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
                PACKAGE / folder, method_map=METHODS, keywords=KEYWORDS):
            catalog.add(message, None, [(f"{folder}/{filename}", lineno)],
                        auto_comments=comments, context=context)
    return catalog


def write_template(path: Path) -> None:
    with path.open("wb") as fh:
        write_po(fh, extract_catalog(), width=100, omit_header=False)


def missing(template: Catalog) -> list[str]:
    """Problems of the shipped catalogues against ``template``: one line each."""
    problems = []
    for lang in LANGUAGES:
        if lang == "en":
            continue
        catalog = read_po(io.StringIO(catalogue_text(lang)), locale=lang)
        for message in template:
            if not message.id:
                continue
            found = catalog.get(message.id)
            key = message.id if isinstance(message.id, str) else message.id[0]
            if found is None:
                problems.append(f"{lang}: missing {key!r}")
                continue
            strings = [str(t or "") for t in (
                found.string if isinstance(found.string, tuple | list) else (found.string,))]
            if found.fuzzy or not all(strings):
                problems.append(f"{lang}: untranslated or fuzzy {key!r}")
                continue
            ids = [str(i) for i in (
                message.id if isinstance(message.id, tuple | list) else (message.id,))]
            wanted = set(_PLACEHOLDER.findall(" ".join(ids)))
            for text in strings:
                if set(_PLACEHOLDER.findall(text)) != wanted:
                    problems.append(f"{lang}: placeholders differ in {key!r}")
    return problems


def update_catalogues() -> None:
    """Merge the current template into every LANG.po, keeping existing translations."""
    template = extract_catalog()
    for lang in LANGUAGES:
        if lang == "en":
            continue
        path = LOCALES / f"{lang}.po"
        catalog = (read_po(io.StringIO(path.read_text("utf-8")), locale=lang)
                   if path.exists() else Catalog(locale=lang, domain="minodice"))
        catalog.update(template, no_fuzzy_matching=True)
        with path.open("wb") as fh:
            write_po(fh, catalog, width=100, ignore_obsolete=True)
