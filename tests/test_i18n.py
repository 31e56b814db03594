"""Translations: every message on screen is translated in every catalogue."""

from __future__ import annotations

import io

import pytest
from babel.messages.pofile import read_po

from minodice.i18n import LANGUAGES, catalogue_text, language_from_env, translator
from minodice.i18n.catalogue import extract_catalog, missing


def test_every_screen_message_is_translated_in_every_language() -> None:
    template = extract_catalog()
    assert len(template) > 50  # the extraction found the screen's messages
    assert missing(template) == []


def test_the_check_fails_when_a_catalogue_misses_a_string() -> None:
    template = extract_catalog()
    template.add("A message nobody has translated yet {name}")
    problems = missing(template)
    assert len(problems) == len(LANGUAGES) - 1
    assert all("A message nobody has translated" in p for p in problems)


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_catalogues_have_no_fuzzy_or_empty_entries(lang: str) -> None:
    catalog = read_po(io.StringIO(catalogue_text(lang)), locale=lang)
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), message.id


@pytest.mark.parametrize(("lang", "words"), [
    ("de", {"minotaur": "Minotaurus", "griffin": "Greif", "mermaid": "Meerjungfrau"}),
    ("nl", {"griffin": "griffioen", "mermaid": "zeemeermin"}),
    ("pt", {"griffin": "grifo", "mermaid": "sereia"}),
    ("es", {"griffin": "grifo", "mermaid": "sirena"}),
])
def test_the_games_own_words(lang: str, words: dict[str, str]) -> None:
    """The names the game's published descriptions use in each language."""
    tr = translator(lang)
    for source, expected in words.items():
        assert tr.gettext(source).lower() == expected.lower()


def test_plural_forms() -> None:
    de = translator("de")
    one = de.ngettext("Round {n}: everyone draws {n} die.",
                      "Round {n}: everyone draws {n} dice.", 1)
    many = de.ngettext("Round {n}: everyone draws {n} die.",
                       "Round {n}: everyone draws {n} dice.", 3)
    assert one != many


def test_language_from_the_locale() -> None:
    assert language_from_env({"LANG": "de_DE.UTF-8"}) == "de"
    assert language_from_env({"LC_ALL": "pt_BR.UTF-8", "LANG": "de_DE.UTF-8"}) == "pt"
    assert language_from_env({"LANGUAGE": "es:en"}) == "es"
    assert language_from_env({"LANG": "C.UTF-8"}) == "en"
    assert language_from_env({"LANG": "ja_JP.UTF-8"}) == "en"
    assert language_from_env({}) == "en"


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language"):
        translator("xx")
