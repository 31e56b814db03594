"""Translations: gettext catalogues (``locales/LANG.po``) for en, de, nl, pt and es.

The catalogues are kept as ``.po`` text in the package and compiled in memory with Babel
on first use, so there is no build step and no stale ``.mo`` file. English is the source
language. The game's own words come from its published descriptions in each language
(Minotaurus, Greif, Meerjungfrau, Stich, Ansage; griffioen, zeemeermin, slag, bod; grifo,
sereia, truque, aposta; grifo, sirena, baza, apuesta).

>>> tr = translator("de")
>>> tr.gettext("Round")
'Runde'
>>> language_from_env({"LANG": "nl_NL.UTF-8"})
'nl'
"""

from __future__ import annotations

import gettext
import io
from collections.abc import Mapping
from functools import cache
from importlib import resources

LANGUAGES = ("en", "de", "nl", "pt", "es")
LANGUAGE_NAMES = {"en": "English", "de": "Deutsch", "nl": "Nederlands", "pt": "Português",
                  "es": "Español"}
DOMAIN = "minodice"


def catalogue_text(lang: str) -> str:
    """The ``.po`` source of ``lang`` shipped in the package."""
    return resources.files("minodice.i18n").joinpath("locales", f"{lang}.po").read_text("utf-8")


@cache
def translator(lang: str = "en") -> gettext.NullTranslations:
    """The translations of ``lang`` (English: the identity)."""
    if lang == "en":
        return gettext.NullTranslations()
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(io.StringIO(catalogue_text(lang)), locale=lang, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def language_from_env(environ: Mapping[str, str]) -> str:
    """The language the locale asks for (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else en."""
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(var, "")
        for part in value.split(":"):
            code = part.split(".")[0].split("_")[0].split("-")[0].lower()
            if code in LANGUAGES:
                return code
            if code in ("c", "posix"):
                break
    return "en"
