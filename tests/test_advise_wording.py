"""``minodice advise`` says exactly what it did: how many rounds it simulated for which bids.

The advisor looks at every bid first, then gives the three most promising more rounds
(bots/advisor.py). Its help and its closing sentence must say so with the real numbers:
these tests count the rounds actually simulated and compare.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest
from typer.testing import CliRunner

from minodice.bots import advisor
from minodice.bots.advisor import advise
from minodice.bots.search import evaluate_bids as real
from minodice.cli import app
from minodice.cli.reports import render_advice


def count_rounds(monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    """How many rounds the advisor simulates for each bid, counted as it runs."""
    counts: dict[int, int] = {}

    def counting(view: Any, rng: Any, n: int, candidates: Sequence[int] | None = None,
                 **kwargs: Any) -> Any:
        result = real(view, rng, n, candidates, **kwargs)
        for bid in result.bids:
            counts[bid] = counts.get(bid, 0) + result.samples
        return result

    monkeypatch.setattr(advisor, "evaluate_bids", counting)
    return counts


def counted_advice(monkeypatch: pytest.MonkeyPatch, players: int, round_no: int, hand: str,
                   samples: int | None) -> tuple[str, dict[int, int]]:
    """The advice's text, and how many rounds were simulated for each bid."""
    counts = count_rounds(monkeypatch)
    return render_advice(advise(players, round_no, 0, hand, samples=samples, seed=1)), counts


HANDS = {1: "griffin", 2: "red,gray", 3: "red,griffin,gray", 5: "red,red,griffin,gray,purple"}


@pytest.mark.parametrize(("round_no", "samples"), [
    (5, None), (5, 1), (5, 7), (5, 20), (5, 21), (5, 33), (3, 60), (2, 45), (1, None),
    (3, 19),
])
def test_the_sentence_gives_the_rounds_simulated(monkeypatch: pytest.MonkeyPatch,
                                                 round_no: int, samples: int | None) -> None:
    text, counts = counted_advice(monkeypatch, 4, round_no, HANDS[round_no], samples)
    sentence = " ".join(text.split("\n\n")[-1].split())
    numbers = sorted(set(counts.values()))
    if len(numbers) == 1:  # every bid went on to the second look
        (each,) = numbers
        found = re.search(r"Simulated rounds: (\d+) for every bid\.", sentence)
        assert found, sentence
        assert int(found[1]) == each
    else:
        few, many = numbers
        contenders = sorted(b for b, c in counts.items() if c == many)
        assert len(contenders) == 3
        found = re.search(r"Simulated rounds: (\d+) for every bid, (\d+) in all for each of "
                          r"the most promising \(([\d, ]+)\)", sentence)
        assert found, sentence
        assert int(found[1]) == few
        assert int(found[2]) == many
        assert [int(b) for b in found[3].split(", ")] == contenders
    assert "per bid" not in sentence


@pytest.mark.parametrize(("round_no", "samples"), [(5, None), (5, 21), (3, 60), (1, None)])
def test_the_table_and_the_json_give_the_rounds_of_each_bid(
        monkeypatch: pytest.MonkeyPatch, round_no: int, samples: int | None) -> None:
    """The terminal table's sentence and ``--json`` (and so the web pages) say it too."""
    from minodice.core.dice import load_dice_set
    from minodice.i18n import translator
    from minodice.i18n.words import Words
    from minodice.tui.render import advice_basis

    counts = count_rounds(monkeypatch)
    advice = advise(4, round_no, 0, HANDS[round_no], samples=samples, seed=1)
    data = advice.to_json()
    assert {b["bid"]: b["samples"] for b in data["bids"]} == counts  # type: ignore[attr-defined]
    sentence = advice_basis(Words(translator("en"), load_dice_set("mino")), advice)
    numbers = sorted(set(counts.values()))
    assert f"From {numbers[0]} simulated rounds for every bid" in sentence
    if len(numbers) == 2:
        bids = ", ".join(str(b) for b in sorted(b for b, c in counts.items() if c == numbers[1]))
        assert f"and {numbers[1]} in all for each of the most promising ({bids})" in sentence
    assert "per bid" not in sentence


def test_the_help_says_what_samples_means() -> None:
    result = CliRunner().invoke(app, ["advise", "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
    assert "half" in text
    assert "three most promising" in text
    # The default (60 to 1000) and what the table can then show: 90 to 1500 for the best.
    assert "60 to 1000" in text
    assert "90 to 1500" in text
