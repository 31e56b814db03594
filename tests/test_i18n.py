"""Translations: every message on screen is translated in every catalogue."""

from __future__ import annotations

import io

import pytest
from babel.messages.pofile import read_po

from minodice.core.dice import load_dice_set
from minodice.core.rules import DEFAULT_RULE_OPTIONS, RuleOptions, SpecialLead, StartRule
from minodice.i18n import LANGUAGES, catalogue_text, language_from_env, translator
from minodice.i18n.catalogue import extract_catalog, missing
from minodice.i18n.rules import house_rules_paragraph
from minodice.i18n.words import Words


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


def test_the_rules_screen_names_a_tables_house_rules_in_its_language() -> None:
    """The terminal's rules screen opens with RULES.md's open points where a table plays
    them otherwise (its other paragraphs tell the defaults), in the page's words."""
    words = Words(translator("de"), load_dice_set("mino"))
    assert house_rules_paragraph(words, DEFAULT_RULE_OPTIONS) is None
    fixed = house_rules_paragraph(words, RuleOptions(start=StartRule.FIXED))
    assert fixed is not None
    assert "Immer derselbe" in fixed
    assert "Startspieler der späteren Runden" in fixed
    no_colour = house_rules_paragraph(words, RuleOptions(special_lead=SpecialLead.NO_COLOUR))
    assert no_colour is not None
    assert "Keine Farbe" in no_colour
