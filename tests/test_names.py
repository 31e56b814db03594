"""A person's name at an online table (:func:`minodice.server.lobby.clean_name`): emoji
joined by a zero-width joiner are names as people type them on phones; what could disguise
a name (direction overrides, zero-width spaces, nothing visible at all) is refused."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from minodice.core.fair import FairnessError, check_names
from minodice.core.names import NAME_MAX, shown_name
from minodice.server.lobby import ApiError, clean_name

SCOTLAND = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


@pytest.mark.parametrize("name", [
    "👩\u200d💻 Ana", "🏳️\u200d🌈", "👨\u200d👩\u200d👧\u200d👦🎲 Oma Gertrud 😀", SCOTLAND,
    "می\u200cخواهم", "Zoë<b>", "x\u0301", "Ana" * 8,
])
def test_names_people_type_are_taken_as_typed(name: str) -> None:
    assert clean_name(f"  {name} ") == name


@pytest.mark.parametrize(("name", "why"), [
    ("", "1 to 24"), ("   ", "1 to 24"), ("x" * 25, "1 to 24"),
    ("a\u202eb", "control"), ("\u200bAna", "control"), ("A\ufeffna", "control"),
    ("A\x1bna", "control"), ("An\na", "control"), ("A\u2028B", "control"),
    ("\u200d", "visible"), ("\u200c\u200d", "visible"), ("\u0301", "visible"),
    ("\u3164", "visible"), ("\u2800\u2800", "visible"), ("\uffa0 \u115f", "visible"),
    ("\ud800x", "not UTF-8"),
])
def test_names_that_could_disguise_themselves_are_refused(name: str, why: str) -> None:
    with pytest.raises(ApiError) as refused:
        clean_name(name)
    assert refused.value.status == 400
    assert why in refused.value.message


@given(st.text(max_size=30))
def test_an_accepted_name_is_trimmed_short_visible_and_holds_no_control(text: str) -> None:
    try:
        name = clean_name(text)
    except ApiError:
        return
    assert name == text.strip()
    assert 1 <= len(name) <= NAME_MAX
    categories = [unicodedata.category(c) for c in name]
    assert not {"Cc", "Cs", "Zl", "Zp"} & set(categories)
    assert all(c in "\u200c\u200d" or "\U000e0020" <= c <= "\U000e007f"
               for c, cat in zip(name, categories, strict=True) if cat == "Cf")
    assert any(cat[0] in "LNPS" and c not in "\u115f\u1160\u3164\uffa0\u2800"
               for c, cat in zip(name, categories, strict=True))


def test_names_that_show_alike_are_one_name_to_the_reader() -> None:
    """A joiner may stand anywhere in a name (it is typed so): the seat's name is then
    told apart as the lobby does for two "Bob"s ("Bob 2")."""
    assert shown_name("Bob\u200d") == shown_name("B\u200co\u200db") == shown_name("bob")
    assert shown_name("Bob\U000e0041") == shown_name("Bob")
    assert shown_name("Bob") != shown_name("Rob")


@given(st.text(max_size=30))
@example("👩\u200d💻 Ben")
@example("Bob\U000e0041")
def test_a_name_the_server_seats_passes_the_check_of_its_records(text: str) -> None:
    """``minodice verify`` called a record "NOT FAIR" for a name the server had seated
    ("👩\u200d💻 Ben": a joiner): both now read one rule (``minodice.core.names``)."""
    try:
        name = clean_name(text)
    except ApiError:
        return
    assert check_names([name, "Ana", "Ben"]) == [name, "Ana", "Ben"]


def test_an_emoji_name_joined_by_a_joiner_passes_the_check_of_its_records() -> None:
    assert check_names(["👩\u200d💻 Ben", "Zoë<b>", SCOTLAND])
    with pytest.raises(FairnessError, match="control characters"):
        check_names(["a\u202eb", "Ana", "Ben"])


def test_the_terminal_refuses_two_names_a_reader_cannot_tell_apart() -> None:
    """A joiner shows as nothing in the terminal now (as on the page): "Ana" and "Ana"
    with a joiner or a tag were two players that looked like one."""
    import typer

    from minodice.cli.play import player_names

    for twin in ("Ana\u200d", "Ana\U000e0041", "ana"):
        with pytest.raises(typer.BadParameter, match="is given twice"):
            player_names(["Ana", twin])
    assert player_names(["👩\u200d💻 Ana", "Ben"]) == ["👩\u200d💻 Ana", "Ben"]
