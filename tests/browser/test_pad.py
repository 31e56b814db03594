"""The score pad (/pad) in a real Chromium.

Its scoring is a second implementation of the engine's, in JavaScript (``pad-score.js``):
thousands of random rounds and hundreds of whole games played by the engine are scored by
the page's module and by the engine, and every figure must agree. Then a worked game of
eight rounds (``data/worked_pad.json``, figures worked out by hand) is entered through the
pad's buttons as a person would, corrected, reloaded, exported, imported, and scored
offline; and the pad is shown in German.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import random
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from playwright.async_api import expect

from live_server import LiveServer
from minodice.core.actions import Bid
from minodice.core.dice import GRIFFIN_ROLE, MERMAID_ROLE, MINOTAUR_ROLE, SYMBOL_BASE
from minodice.core.record import export_record, load_record, summarize
from minodice.core.rules import Variant, resolve_trick, round_points, rounds_for
from minodice.core.state import CHANCE, GameState

from .conftest import Pages
from .pages import visible_texts
from .test_languages import tr, untranslated

if TYPE_CHECKING:
    from playwright.async_api import Dialog, FilePayload, Page

pytestmark = pytest.mark.asyncio(loop_scope="session")

Json = dict[str, Any]

WORKED = json.loads((Path(__file__).parent / "data" / "worked_pad.json").read_text("utf-8"))
MINOTAUR = SYMBOL_BASE + MINOTAUR_ROLE
GRIFFIN = SYMBOL_BASE + GRIFFIN_ROLE
MERMAID = SYMBOL_BASE + MERMAID_ROLE
VARIANTS = ("standard", "simplified")

#: The page's scoring module, run on everything at once: ``bonusValue`` and
#: ``roundPoints`` per case, ``scoreGame``, ``checkRound`` and ``ranking`` per game, and
#: ``checkRound`` on the entries it must refuse.
SCORE = """async ({cases, games, checks}) => {
  const m = await import("/static/pad-score.js");
  return {
    rounds: m.ROUNDS,
    cases: cases.map((c) => {
      const value = m.bonusValue(c.griffins, c.mermaid);
      const result = m.roundPoints(c.bid, c.won, c.round, value, c.variant);
      return [value, result.points, result.bonus];
    }),
    games: games.map((g) => {
      const scored = m.scoreGame(g);
      return {
        scored,
        problems: g.rounds.map((r, i) => m.checkRound(i + 1, r, g.players.length, g.variant)),
        bidProblems: g.rounds.map((r, i) =>
          m.checkRound(i + 1, r, g.players.length, g.variant, "bids")),
        ranking: scored.length ? m.ranking(scored[scored.length - 1].totals) : [],
      };
    }),
    checks: checks.map((c) => m.checkRound(c.round, c.entry, c.players, c.variant, c.stage)),
  };
}"""


async def score_in_page(page: Page, server: LiveServer, cases: list[Json] | None = None,
                        games: list[Json] | None = None,
                        checks: list[Json] | None = None) -> Json:
    await page.goto(server.base + "/pad")
    await page.locator("#pad-start").wait_for()
    result: Json = await page.evaluate(SCORE, {"cases": cases or [], "games": games or [],
                                               "checks": checks or []})
    return result


# -- 1. the page's scoring against the engine's -----------------------------------------------


def random_cases(rng: random.Random, count: int) -> list[Json]:
    """Rounds of one player: both variants, 3–6 players, every round, bids of 0, exact
    bids and misses, griffin counts 0–3 and the mermaid bonus."""
    cases = []
    for _ in range(count):
        players = rng.randint(3, 6)
        r = rng.randint(1, rounds_for(players))
        bid = 0 if rng.random() < 0.25 else rng.randint(0, r)
        won = bid if rng.random() < 0.5 else rng.randint(0, r)
        griffins = rng.choice((0, 0, 1, 2, 3)) if rng.random() < 0.5 else 0
        mermaid = griffins == 0 and rng.random() < 0.25
        cases.append({"players": players, "round": r, "bid": bid, "won": won,
                      "griffins": griffins, "mermaid": mermaid,
                      "variant": rng.choice(VARIANTS)})
    return cases


def play_random_game(rng: random.Random) -> GameState:
    """A whole legal game played by the engine: random dice, and bids mostly by the dice's
    strength (so that many bids are made and their bonuses count)."""
    from minodice.bots.strength import strength_of

    players = rng.randint(3, 6)
    state = GameState.new(players=players, dice_set=rng.choice(("mino", "skull-king")),
                          variant=rng.choice(VARIANTS), first_starter=rng.randrange(players))
    strength = strength_of(state.dice_set)
    while not state.is_terminal():
        if state.current_player == CHANCE:
            state.apply_chance(state.sample_chance(rng))
            continue
        actions = state.legal_actions()
        if isinstance(actions[0], Bid) and rng.random() < 0.7:
            counts = state.hand(state.current_player).counts
            guess = int(strength.expected_tricks(counts, players) + 0.5)
            state.apply(Bid(max(0, min(state.round_no, guess))))
        else:
            state.apply(rng.choice(actions))
    return state


def pad_round(state: GameState, index: int) -> Json:
    """One finished round of the engine as the pad's entries (docs/PAD.md): the bids, the
    tricks won, and from the round's tricks who took the minotaur symbol with it (and how
    many griffin symbols that trick showed) or with a mermaid."""
    log = state.rounds[index]
    n = state.n
    assert log.bids is not None
    won = [log.winners.count(p) for p in range(n)]
    griffins = [0] * n
    mermaid = [False] * n
    for t, trick in enumerate(log.tricks):
        rolls = [(seat, code) for seat, _kind, code in trick]
        result = resolve_trick(rolls)
        assert result.winner == log.winners[t]
        codes = [code for _seat, code in rolls]
        winning = codes[result.winning_roll]
        if winning == MINOTAUR:
            griffins[result.winner] = codes.count(GRIFFIN)
        elif winning == MERMAID and MINOTAUR in codes:
            mermaid[result.winner] = True
    if state.variant is Variant.SIMPLIFIED:  # the pad has no bonus entries then (R15)
        griffins, mermaid = [0] * n, [False] * n
    elif log.bonus is not None:
        for p in range(n):  # the bonus the engine counted is the one these entries give
            if log.bids[p] == won[p]:
                assert log.bonus[p] == 30 * griffins[p] + 50 * mermaid[p], (index, p)
    return {"bids": list(log.bids), "won": won, "griffins": griffins, "mermaid": mermaid,
            "done": True}


def pad_game(state: GameState, names: list[str]) -> Json:
    return {"format": "minodice-pad", "version": 1, "id": "engine", "created": 0,
            "edition": state.dice_set.name, "variant": str(state.variant), "players": names,
            "rounds": [pad_round(state, i) for i in range(len(state.rounds))]}


async def test_round_points_match_the_engine(server: LiveServer, pages: Pages) -> None:
    """``roundPoints`` and ``bonusValue`` against ``round_points`` on 6,000 random rounds."""
    cases = random_cases(random.Random(20261130), 6000)
    page = await pages.new()
    result = await score_in_page(page, server, cases=cases)
    assert result["rounds"] == {str(n): rounds_for(n) for n in range(3, 7)}
    wrong = []
    for case, (value, points, bonus) in zip(cases, result["cases"], strict=True):
        expected_value = 30 * case["griffins"] + 50 * case["mermaid"]
        expected = round_points(case["bid"], case["won"], case["round"], expected_value,
                                Variant(case["variant"]))
        if (value, (points, bonus)) != (expected_value, expected):
            wrong.append(f"{case}: page {value}, {points}, {bonus}; engine {expected_value}, "
                         f"{expected}")
    assert not wrong, f"{len(wrong)} of {len(cases)} differ:\n" + "\n".join(wrong[:20])
    # the cases cover what they should
    made = [c for c in cases if c["bid"] == c["won"]]
    assert {c["players"] for c in cases} == {3, 4, 5, 6}
    assert {(c["players"], c["round"]) for c in cases} == {
        (n, r) for n in range(3, 7) for r in range(1, rounds_for(n) + 1)}
    for variant in VARIANTS:
        chosen = [c for c in made if c["variant"] == variant]
        assert {c["griffins"] for c in chosen} == {0, 1, 2, 3}
        assert any(c["mermaid"] for c in chosen)
        assert any(c["bid"] == 0 for c in chosen)
        assert any(c["bid"] == 0 and c["won"] > 0 and c["variant"] == variant for c in cases)


async def test_engine_games_score_alike(server: LiveServer, pages: Pages) -> None:
    """400 whole games played by the engine, entered as the pad stores them: ``scoreGame``
    gives the engine's points, bonuses and totals in every round (the engine's through
    its record: ``export_record``, ``load_record``, ``summarize``), ``ranking`` its
    winners, and ``checkRound`` accepts every real round."""
    rng = random.Random(7)
    games: list[Json] = []
    summaries: list[Json] = []
    for _ in range(400):
        state = play_random_game(rng)
        names = [f"P{p + 1}" for p in range(state.n)]
        loaded = load_record(export_record(state, names))
        summaries.append(summarize(loaded.state, loaded.players))
        games.append(pad_game(state, names))
    page = await pages.new()
    result = await score_in_page(page, server, games=games)
    bonuses = {"griffin": 0, "mermaid": 0}
    rounds = 0
    for number, (game, summary, got) in enumerate(zip(games, summaries, result["games"],
                                                      strict=True)):
        where = f"game {number} ({len(game['players'])} players, {game['variant']})"
        assert summary["complete"]
        assert got["problems"] == [[]] * len(game["rounds"]), where
        assert got["bidProblems"] == [[]] * len(game["rounds"]), where
        assert len(got["scored"]) == len(summary["rounds"]) == rounds_for(len(game["players"]))
        for entry, mine, engine in zip(game["rounds"], got["scored"], summary["rounds"],
                                       strict=True):
            rounds += 1
            assert mine["round"] == engine["round"], where
            assert mine["points"] == engine["points"], (where, engine["round"], entry)
            assert mine["bonus"] == engine["bonus"], (where, engine["round"], entry)
            assert mine["totals"] == engine["totals"], (where, engine["round"])
            for p, bonus in enumerate(engine["bonus"]):
                if bonus:
                    bonuses["mermaid" if entry["mermaid"][p] else "griffin"] += 1
        top = [o["player"] for o in got["ranking"] if o["winner"]]
        assert top == summary["winners"], where
        assert [o["total"] for o in got["ranking"]] == sorted(summary["totals"], reverse=True)
    assert {len(g["players"]) for g in games} == {3, 4, 5, 6}
    assert {(g["edition"], g["variant"]) for g in games} == {
        (e, v) for e in ("mino", "skull-king") for v in VARIANTS}
    assert rounds > 2500
    assert min(bonuses.values()) >= 20, bonuses


def refusals(rng: random.Random) -> list[tuple[Json, str, str]]:
    """Entries the pad must refuse, with the rule and message key it must name: written
    by hand, and real rounds of the engine's games spoilt in one way."""
    def entry(bids: list[int], won: list[int], griffins: list[int] | None = None,
              mermaid: list[bool] | None = None) -> Json:
        n = len(bids)
        return {"bids": bids, "won": won, "griffins": griffins or [0] * n,
                "mermaid": mermaid or [False] * n, "done": True}

    def check(r: int, e: Json, variant: str = "standard", stage: str = "scored") -> Json:
        return {"round": r, "entry": e, "players": len(e["bids"]), "variant": variant,
                "stage": stage}

    out = [
        (check(3, entry([1, 1, 1, 0], [1, 1, 0, 0])), "R11", "sum"),
        (check(3, entry([1, 1, 1, 0], [2, 1, 1, 0])), "R11", "sum"),
        (check(2, entry([0, 1, 1], [3, 0, 0])), "R11", "won"),
        (check(4, entry([1, 1, 1, 1], [2, 1, 1, 0], [2, 1, 0, 0])), "R14", "one-minotaur"),
        (check(4, entry([1, 1, 1, 1], [2, 1, 1, 0], [1, 0, 0, 0], [False, True, False, False])),
         "R14", "one-minotaur"),
        (check(4, entry([1, 1, 1, 1], [2, 1, 1, 0], None, [True, True, False, False])),
         "R14", "one-minotaur"),
        (check(4, entry([1, 1, 1, 0], [2, 1, 1, 0], [0, 0, 0, 2])), "R14", "bonus-no-trick"),
        (check(4, entry([1, 1, 1, 0], [2, 1, 1, 0], None, [False, False, False, True])),
         "R14", "bonus-no-trick"),
        (check(3, entry([1, 1, 1], [1, 1, 1], [3, 0, 0])), "R14", "griffins"),
        (check(3, entry([1, 1, 1, 0], [1, 1, 1, 0], [1, 0, 0, 0]), "simplified"),
         "R15", "simplified"),
        (check(3, entry([1, 1, 1, 0], [1, 1, 1, 0], None, [True, False, False, False]),
               "simplified"), "R15", "simplified"),
        (check(3, entry([4, 1, 1, 0], [1, 1, 1, 0])), "R6", "bid"),
        (check(3, entry([4, 1, 1, 0], [0, 0, 0, 0]), stage="bids"), "R6", "bid"),
        (check(5, entry([0, -1, 2, 1], [1, 1, 2, 1])), "R6", "bid"),
        (check(2, entry([1, 1, 0], [1, 1, 0], [-1, 0, 0])), "R14", "griffins"),
        (check(2, entry([1, 1, 0], [1, 1, 0], [0, -2, 0]), "simplified"), "R14", "griffins"),
    ]
    for _ in range(60):
        state = play_random_game(rng)
        for index in range(len(state.rounds)):
            base = pad_round(state, index)
            r, n = index + 1, state.n
            variant = str(state.variant)
            spoilt = json.loads(json.dumps(base))
            spoilt["won"][rng.randrange(n)] += 1
            out.append((check(r, spoilt, variant), "R11", "sum"))
            spoilt = json.loads(json.dumps(base))
            spoilt["bids"][rng.randrange(n)] = r + 1
            out.append((check(r, spoilt, variant, rng.choice(("bids", "scored"))), "R6", "bid"))
            winners = [p for p in range(n) if base["won"][p]]
            losers = [p for p in range(n) if not base["won"][p]]
            if variant == "simplified":
                spoilt = json.loads(json.dumps(base))
                spoilt["griffins"][rng.choice(winners)] = 1
                out.append((check(r, spoilt, variant), "R15", "simplified"))
                continue
            if losers:
                spoilt = json.loads(json.dumps(base))
                spoilt["griffins"] = [0] * n
                spoilt["mermaid"] = [False] * n
                if rng.random() < 0.5:
                    spoilt["griffins"][rng.choice(losers)] = rng.randint(1, min(3, n - 1))
                else:
                    spoilt["mermaid"][rng.choice(losers)] = True
                out.append((check(r, spoilt, variant), "R14", "bonus-no-trick"))
            if len(winners) >= 2:
                spoilt = json.loads(json.dumps(base))
                a, b = rng.sample(winners, 2)
                spoilt["griffins"] = [0] * n
                spoilt["mermaid"] = [False] * n
                spoilt["griffins"][a] = 1
                if rng.random() < 0.5:
                    spoilt["mermaid"][b] = True
                else:
                    spoilt["griffins"][b] = 2
                out.append((check(r, spoilt, variant), "R14", "one-minotaur"))
    return out


async def test_check_round_refuses_impossible_entries(server: LiveServer, pages: Pages) -> None:
    """Tricks not adding up (R11), two minotaur bonuses in a round or a bonus without a
    trick (R14), a bonus in the simplified variant (R15), a bid above the round (R6): each
    refused with its rule; and ``scoreGame`` stops at such a round."""
    cases = refusals(random.Random(11))
    broken = {"format": "minodice-pad", "version": 1, "id": "x", "created": 0,
              "edition": "mino", "variant": "standard", "players": ["A", "B", "C"],
              "rounds": [{"bids": [1, 0, 0], "won": [1, 0, 0], "griffins": [0, 0, 0],
                          "mermaid": [False, False, False], "done": True},
                         {"bids": [1, 1, 0], "won": [1, 0, 0], "griffins": [0, 0, 0],
                          "mermaid": [False, False, False], "done": True},
                         {"bids": [1, 1, 1], "won": [1, 1, 1], "griffins": [0, 0, 0],
                          "mermaid": [False, False, False], "done": True}]}
    page = await pages.new()
    result = await score_in_page(page, server, games=[broken],
                                 checks=[c for c, _rule, _key in cases])
    missed = []
    for (check, rule, key), problems in zip(cases, result["checks"], strict=True):
        if not any(p["rule"] == rule and p["key"] == key for p in problems):
            missed.append(f"{check} → {problems}, wanted {rule} {key}")
    assert not missed, f"{len(missed)} of {len(cases)} not refused:\n" + "\n".join(missed[:10])
    assert len(cases) > 1000
    assert [s["round"] for s in result["games"][0]["scored"]] == [1]
    assert result["games"][0]["problems"][1] == [{"rule": "R11", "key": "sum", "total": 1}]


# -- 2. a worked game through the pad's buttons ---------------------------------------------


async def test_worked_sheet_agrees_with_the_engine() -> None:
    """The hand-worked figures of ``data/worked_pad.json`` are the engine's."""
    def check(rounds: list[Json], totals: list[list[int]]) -> None:
        running = [0] * len(WORKED["players"])
        for r, entry in enumerate(rounds, 1):
            assert sum(entry["won"]) == r
            points = [round_points(b, w, r, 30 * g + 50 * m, Variant.STANDARD)[0]
                      for b, w, g, m in zip(entry["bids"], entry["won"], entry["griffins"],
                                            entry["mermaid"], strict=True)]
            assert points == entry["points"], r
            running = [t + p for t, p in zip(running, points, strict=True)]
            assert running == totals[r - 1], r

    check(WORKED["rounds"], [r["totals"] for r in WORKED["rounds"]])
    fix = WORKED["correction"]
    corrected = [fix if r == fix["round"] else entry
                 for r, entry in enumerate(WORKED["rounds"], 1)]
    check(corrected, fix["totals"])
    for ranking, totals in ((WORKED["ranking"], WORKED["rounds"][-1]["totals"]),
                            (fix["ranking"], fix["totals"][-1])):
        by_name = dict(zip(WORKED["players"], totals, strict=True))
        assert {name: total for _place, name, total in ranking} == by_name
        for place, _name, total in ranking:
            assert place == 1 + sum(t > total for t in totals)


async def set_stepper(page: Page, output: str, label: str, value: int) -> None:
    """Set a stepper (its ``output`` element and its label) to ``value`` with − and +."""
    shown = page.locator(output)
    current = int(await shown.inner_text())
    button = "one more" if value > current else "one less"
    for _ in range(abs(value - current)):
        await page.get_by_role("button", name=f"{label}: {button}", exact=True).click()
    assert await shown.inner_text() == str(value)


async def enter_round(page: Page, r: int, entry: Json, *, correcting: bool = False) -> None:
    """Enter one round as a person would: the bids, "Bids done", the tricks and the
    bonuses, "Score this round". A correction starts at the tricks (bids shown too)."""
    editor = page.locator(".pad-editor")
    assert f"Round {r} of 8" in await editor.locator("h2").inner_text()
    for p, name in enumerate(WORKED["players"]):
        await set_stepper(page, f"#bid-{p}", f"Bid of {name}", entry["bids"][p])
    if not correcting:
        assert await page.locator("#won-0").count() == 0
        await page.locator("#pad-next").click()
    for p, name in enumerate(WORKED["players"]):
        await set_stepper(page, f"#won-{p}", f"Tricks won by {name}", entry["won"][p])
        await page.select_option(f"#griffins-{p}", str(entry["griffins"][p]))
        box = page.locator(f"#mermaid-{p}")
        if await box.is_checked() != entry["mermaid"][p]:
            await box.click()
    assert f"Tricks entered: {r} of {r}." in await editor.inner_text()
    await page.locator("#pad-score").click()


async def sheet(page: Page) -> list[list[tuple[str, str, int]]]:
    """The score sheet as shown: per round, per player (bid/won, points, running total)."""
    rows = []
    for row in await page.locator(".pad-grid tbody tr").all():
        cells = []
        for cell in await row.locator("td:has(.bw)").all():
            cells.append((await cell.locator(".bw").inner_text(),
                          await cell.locator(".pts").inner_text(),
                          int(await cell.locator(".tot").inner_text())))
        rows.append(cells)
    return rows


def expected_sheet(rounds: list[Json], totals: list[list[int]]) -> list[list[tuple[str, str, int]]]:
    out = []
    for entry, running in zip(rounds, totals, strict=True):
        row = []
        for p in range(len(WORKED["players"])):
            points = entry["points"][p]
            bonus = 30 * entry["griffins"][p] + 50 * entry["mermaid"][p]
            made = entry["bids"][p] == entry["won"][p]
            text = ("+" if points > 0 else "") + str(points) + \
                (f" (Bonus {bonus})" if made and bonus else "")
            row.append((f"{entry['bids'][p]}/{entry['won'][p]}", text, running[p]))
        out.append(row)
    return out


async def final_ranking(page: Page) -> tuple[list[list[Any]], str]:
    final = page.locator(".final")
    await final.wait_for()
    rows = []
    for row in await final.locator("tbody tr").all():
        place, name, total = [await c.inner_text() for c in await row.locator("td, th").all()]
        rows.append([int(place), name, int(total)])
    # each name of a shared victory is isolated (U+2068 … U+2069: right-to-left names in a
    # row keep their order); read as a person reads it
    verdict = await final.locator(".verdict").inner_text()
    return rows, verdict.replace("\u2068", "").replace("\u2069", "")


async def stored_games(page: Page) -> Any:
    return json.loads(await page.evaluate("localStorage.getItem('minodice.pad.games') || '{}'"))


async def test_worked_game_through_the_pad(own_server: LiveServer, pages: Pages,
                                           tmp_path: Path) -> None:
    """Eight rounds entered with the pad's steppers, select and checkbox; the sheet and the
    shared victory; round 3 corrected and every later total recomputed; a reload keeps the
    game; JSON and CSV export, the JSON imported on another device, a bad file refused;
    and offline (service worker, no server), the same game still shows and scores."""
    server = own_server
    rounds, fix = WORKED["rounds"], WORKED["correction"]
    page = await pages.new()
    await page.goto(server.base + "/pad")
    for p, name in enumerate(WORKED["players"]):
        await page.fill(f"#pad-name-{p}", name)
    await page.select_option("#pad-edition", WORKED["edition"])
    await page.select_option("#pad-variant", WORKED["variant"])
    await page.locator("#pad-start").click()
    await page.locator("#bid-0").wait_for()
    assert "/pad?game=" in page.url

    # a refusal first: Ana bids 2 in round 1 (R6 lets the stepper stop at 1), tricks that
    # do not add up (R11)
    await page.get_by_role("button", name="Bid of Ana: one more", exact=True).click()
    await page.get_by_role("button", name="Bid of Ana: one more", exact=True).click()
    assert await page.locator("#bid-0").inner_text() == "1"
    await page.locator("#pad-next").click()
    await page.locator("#pad-score").click()
    assert "(R11)" in await page.locator(".problems").inner_text()
    await page.get_by_role("button", name="Back to bids").click()

    for r, entry in enumerate(rounds, 1):
        await enter_round(page, r, entry)
        await page.locator(f".pad-grid tbody tr:nth-child({r})").wait_for()
        assert await sheet(page) == expected_sheet(rounds[:r], [e["totals"] for e in rounds[:r]])
    ranking, verdict = await final_ranking(page)
    assert ranking == WORKED["ranking"]
    assert verdict == WORKED["verdict"]
    # (each name isolated; joined as the reader's language joins a list)
    assert "\u2068Ben\u2069 and \u2068Cleo\u2069" in await page.locator(".verdict").inner_text()

    # a correction left half-done (tricks adding up to 2, bids confirmed again) is not
    # kept: the sheet shows the scored figures meanwhile and after a reload
    await page.locator("#edit-3").click()
    await page.get_by_role("button", name="Tricks won by Ben: one less", exact=True).click()
    assert "Tricks entered: 2 of 3." in await page.locator(".pad-editor").inner_text()
    assert await sheet(page) == expected_sheet(rounds, [e["totals"] for e in rounds])
    await page.get_by_role("button", name="Back to bids").click()
    await page.locator("#pad-next").click()
    await page.reload()
    await page.locator(".final").wait_for()
    assert await sheet(page) == expected_sheet(rounds, [e["totals"] for e in rounds])

    # correct round 3: Cleo bid 2 and took Ben's trick
    corrected = [fix if r == fix["round"] else e for r, e in enumerate(rounds, 1)]
    await page.locator("#edit-3").click()
    await enter_round(page, 3, fix, correcting=True)
    await page.locator(".final").wait_for()
    assert await sheet(page) == expected_sheet(corrected, fix["totals"])
    assert await final_ranking(page) == (fix["ranking"], fix["verdict"])

    # a reload: still there (local storage)
    await page.reload()
    await page.locator(".final").wait_for()
    assert await sheet(page) == expected_sheet(corrected, fix["totals"])
    game_id = page.url.split("game=")[1]
    stored = (await stored_games(page))[game_id]
    assert stored["rounds"][2]["bids"] == fix["bids"]

    # export JSON: docs/PAD.md's format, no points
    async with page.expect_download() as info:
        await page.get_by_role("button", name="Export (JSON)").click()
    download = await info.value
    assert download.suggested_filename.endswith(".json")
    exported = json.loads(Path(await download.path()).read_text("utf-8"))
    assert list(exported) == ["format", "version", "id", "created", "edition", "variant",
                              "players", "rounds"]
    assert (exported["format"], exported["version"], exported["id"]) == \
        ("minodice-pad", 1, game_id)
    assert (exported["edition"], exported["variant"]) == ("mino", "standard")
    assert exported["players"] == WORKED["players"]
    assert isinstance(exported["created"], int)
    assert exported["created"] > 1.7e12
    assert exported["rounds"] == [
        {"bids": e["bids"], "won": e["won"], "griffins": e["griffins"],
         "mermaid": e["mermaid"], "done": True} for e in corrected]

    # export CSV: a row per round, each player's bid, won, bonus, points, running total
    async with page.expect_download() as info:
        await page.get_by_role("button", name="Export (CSV)").click()
    table = list(csv.reader(io.StringIO(Path(await (await info.value).path())
                                        .read_text("utf-8"))))
    assert table[0] == ["round"] + [f"{name} {what}" for name in WORKED["players"]
                                    for what in ("bid", "won", "bonus", "points", "total")]
    assert len(table) == 9
    for r, (row, entry) in enumerate(zip(table[1:], corrected, strict=True), 1):
        assert int(row[0]) == r
        for p in range(4):
            bid, won, bonus, points, total = map(int, row[1 + 5 * p:6 + 5 * p])
            made = entry["bids"][p] == entry["won"][p]
            assert (bid, won, points, total) == (entry["bids"][p], entry["won"][p],
                                                 entry["points"][p], fix["totals"][r - 1][p])
            assert bonus == (30 * entry["griffins"][p] + 50 * entry["mermaid"][p]) * made
    assert [int(table[-1][5 + 5 * p]) for p in range(4)] == fix["totals"][-1]

    # the JSON imported on another device: the same sheet and ranking
    other = await pages.new()
    await other.goto(server.base + "/pad")
    json_file = tmp_path / "game.json"
    json_file.write_text(json.dumps(exported), "utf-8")
    await other.set_input_files("#pad-import", json_file)
    await other.locator(".final").wait_for()
    assert other.url.endswith(f"/pad?game={game_id}")
    assert await sheet(other) == expected_sheet(corrected, fix["totals"])
    assert await final_ranking(other) == (fix["ranking"], fix["verdict"])

    # bad files: an error, nothing changes
    await other.goto(server.base + "/pad")
    before = await stored_games(other)
    spoilt = json.loads(json.dumps(exported))
    spoilt["id"] = "another"
    spoilt["rounds"][4]["won"][0] += 1  # round 5's tricks add up to 6 (R11)
    bad_files: list[tuple[str, bytes, str]] = [
        ("broken.json", b'{"format": "minodice-pad", "version": 1, ', "JSON"),
        ("rules.json", json.dumps(spoilt).encode(),
         "round 5: The tricks add up to 6, but in round 5 they must add up to 5 (R11)"),
        ("long.json", json.dumps({**exported, "id": "long", "players": [
            "Wolfeschlegelsteinhausenberger", *exported["players"][1:]]}).encode(),
         "a name is at most 24 characters, not 30"),
        ("other.json", json.dumps({"format": "minodice-record", "version": 1}).encode(),
         '"format" must be "minodice-pad"'),
    ]
    for name, payload, why in bad_files:
        file: FilePayload = {"name": name, "mimeType": "application/json", "buffer": payload}
        await other.set_input_files("#pad-import", files=[file])
        toast = other.locator(".toast-item", has_text=why)
        await toast.wait_for()
        assert (await toast.inner_text()).startswith("Not a score pad file:")
        assert other.url == server.base + "/pad"
        assert await stored_games(other) == before
        assert await other.locator("#pad-start").count() == 1
    assert list(before) == [game_id]

    # files the pad's own export would not write, read as the game they describe
    def game_file(name: str, rounds: list[Json]) -> list[FilePayload]:
        data = {**exported, "id": name, "rounds": rounds}
        return [{"name": f"{name}.json", "mimeType": "application/json",
                 "buffer": json.dumps(data).encode()}]

    scored = exported["rounds"]
    not_done = {**scored[1], "done": False}
    negative = {**scored[0], "griffins": [-2, 0, 0, 0]}  # Ana 1/1: no minus bonus (R14)
    for name, file_rounds, why in (("middle", [scored[0], not_done, scored[2]],
                                    "round 2 is not scored, round 3 is"),
                                   ("negative", [negative], "round 1: Ana: at most 3 other "
                                    "dice in a trick (R14)")):
        await other.set_input_files("#pad-import", files=game_file(name, file_rounds))
        await other.locator(".toast-item", has_text=why).wait_for()
        assert await stored_games(other) == before
    for name, file_rounds, heading in (("fresh", [], "Round 1 of 8 · Bids"),
                                       ("two", scored[:2], "Round 3 of 8 · Bids")):
        await other.goto(server.base + "/pad")
        await other.set_input_files("#pad-import", files=game_file(name, file_rounds))
        await other.locator(".pad-editor h2", has_text=heading).wait_for()
        assert await sheet(other) == expected_sheet(corrected[:len(file_rounds)],
                                                    fix["totals"][:len(file_rounds)])
        await other.reload()
        await other.locator(".pad-editor h2", has_text=heading).wait_for()

    # offline: once the service worker controls the page, neither the network (emulated
    # offline) nor the server (killed) is needed to show the game and score a round
    await page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    await page.reload()
    await page.locator(".final").wait_for()
    assert await page.evaluate("navigator.serviceWorker.controller !== null")
    await page.context.set_offline(True)
    server.kill9()
    await page.reload()
    await page.locator(".final").wait_for()
    assert await sheet(page) == expected_sheet(corrected, fix["totals"])
    await page.locator("#edit-3").click()  # back to round 3 as first entered
    await enter_round(page, 3, rounds[2], correcting=True)
    await page.locator(".final").wait_for()
    assert await sheet(page) == expected_sheet(rounds, [e["totals"] for e in rounds])
    assert await final_ranking(page) == (WORKED["ranking"], WORKED["verdict"])
    await page.reload()
    await page.locator(".final").wait_for()
    assert await final_ranking(page) == (WORKED["ranking"], WORKED["verdict"])


# -- 3. another language --------------------------------------------------------------------


async def test_the_pad_in_german(server: LiveServer, pages: Pages) -> None:
    """With German chosen on the device, the pad speaks German and the edition's words:
    Runde, Greif, Minotaurus (Mino Dice); Pirat and Skull King in the 2016 edition. No
    English message is left on the way."""
    served = server.get("/api/i18n/de")["messages"]
    page = await pages.new(locale="en-US")
    await page.goto(server.base + "/pad")
    await page.evaluate("localStorage.setItem('minodice.lang', 'de')")
    await page.reload()
    await page.locator("#pad-start").wait_for()
    assert await page.evaluate("document.documentElement.lang") == "de"
    seen = {"home": await visible_texts(page)}
    assert served["Score pad"] in seen["home"]
    # a file's problem is told in German too, in the words the pad uses while entering
    bad = stored_pad(["Ana", "Ben", "Cleo"], 1)
    bad["rounds"][0]["griffins"] = [5, 0, 0]
    bad_file: FilePayload = {"name": "bad.json", "mimeType": "application/json",
                             "buffer": json.dumps(bad).encode()}
    await page.set_input_files("#pad-import", files=[bad_file])
    problem = tr(served, "{name}: at most {k} other dice in a trick").format(name="Ana", k=2)
    why = tr(served, "round {n}: {problem}").format(n=1, problem=f"{problem} (R14)")
    told = tr(served, "Not a score pad file: {why}").format(why=why)
    assert "Runde 1" in told
    await page.locator(".toast-item", has_text=told).wait_for()
    for p, name in enumerate(["Ana", "Ben", "Cleo"]):
        await page.fill(f"#pad-name-{p}", name)
    await page.locator("#pad-start").click()
    await page.locator("#pad-next").click()
    await page.locator("#won-0").wait_for()
    seen["mino"] = await visible_texts(page)
    text = " ".join(seen["mino"])
    for word in ("Runde 1 von 8", "Greif", "Minotaurus", "Meerjungfrau"):
        assert word in text, word
    assert "griffin" not in text.lower()

    await page.goto(server.base + "/pad")
    for p, name in enumerate(["Ana", "Ben", "Cleo"]):
        await page.fill(f"#pad-name-{p}", name)
    await page.select_option("#pad-edition", "skull-king")
    await page.locator("#pad-start").click()
    await page.locator("#pad-next").click()
    await page.locator("#won-0").wait_for()
    seen["skull-king"] = await visible_texts(page)
    text = " ".join(seen["skull-king"])
    for word in ("Runde 1 von 8", "Pirat", "Skull King"):
        assert word in text, word
    for word in ("Greif", "Minotaurus"):
        assert word not in text, word
    problems = {problem for texts in seen.values() for problem in untranslated(texts, served)}
    assert not problems, "\n".join(sorted(problems))


# -- 4. a phone, a second tab, a reload, an odd file ---------------------------------------


def stored_pad(players: list[str], scored: int, game_id: str = "a1b2c3d4e5f6") -> Json:
    """A pad game as the device keeps it: ``scored`` rounds where everyone bid and took
    what fits, then the round being entered."""
    n = len(players)
    rounds = []
    for r in range(1, scored + 1):
        won = [r] + [0] * (n - 1)
        rounds.append({"bids": won, "won": won, "griffins": [0] * n, "mermaid": [False] * n,
                       "done": True})
    rounds.append({"bids": [0] * n, "won": [0] * n, "griffins": [0] * n,
                   "mermaid": [False] * n, "done": False})
    return {"format": "minodice-pad", "version": 1, "id": game_id, "created": 1764000000000,
            "players": players, "edition": "mino", "variant": "standard", "rounds": rounds,
            "rev": 1}


async def open_stored(page: Page, server: LiveServer, game: Json, lang: str = "en") -> None:
    await page.goto(server.base + "/pad")
    await page.evaluate("([games, lang]) => { localStorage.setItem('minodice.pad.games', games);"
                        " localStorage.setItem('minodice.lang', lang); }",
                        [json.dumps({game["id"]: game}), lang])
    await page.goto(server.base + f"/pad?game={game['id']}")
    await page.locator("#bid-0").wait_for()


async def test_a_phone_reaches_every_button_with_long_names(server: LiveServer,
                                                              pages: Pages) -> None:
    """At 390×844, in German, with six long names and five rounds on the sheet: every
    button of the round being entered lies on the screen (the page cannot be scrolled
    sideways), and the sheet scrolls inside its own box instead of widening the page."""
    names = ["Anna-Katharina", "Bartholomäus", "Christoph", "Dörte", "Emanuel", "Friederike"]
    page = await pages.new(viewport={"width": 390, "height": 844}, is_mobile=True,
                           has_touch=True)
    await open_stored(page, server, stored_pad(names, 5), lang="de")
    assert "Runde 6" in await page.locator(".pad-editor h2").inner_text()
    for button in await page.locator(".pad-editor button").all():
        box = await button.bounding_box()
        assert box is not None
        label = await button.inner_text()
        assert box["x"] >= 0, (label, box)
        assert box["x"] + box["width"] <= 390, (label, box)
    assert await page.evaluate("document.documentElement.scrollWidth") <= 390
    scroll = page.locator(".pad-grid .scroll")
    widths = await scroll.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert widths[0] > widths[1], widths  # the sheet is wider than the phone: it scrolls
    # ... and each round's number stays in sight as it does (a tester's phone found them
    # off the screen, or scrolled away from their round); its Correct button, the row's
    # last cell, is in sight scrolled to the end (kept in sight always, it hid the
    # players' columns: tests/browser/test_pad_odds_review.py)
    for where in (0, 10_000):
        await scroll.evaluate("(e, x) => { e.scrollLeft = x; }", where)
        if where:
            for button in await page.locator(".pad-grid button").all():
                box = await button.bounding_box()
                assert box is not None
                assert box["x"] + box["width"] <= 390, (where, box)
        first = await page.locator(".pad-grid tbody th").first.bounding_box()
        assert first is not None
        assert 0 <= first["x"] < 40, (where, first)
    card = await page.locator(".pad-grid").bounding_box()
    assert card is not None
    assert card["x"] + card["width"] <= 390
    await page.get_by_role("button", name="Ansage von Anna-Katharina: eins mehr").click()
    assert await page.locator("#bid-0").inner_text() == "1"


async def test_a_reload_keeps_the_tricks_and_bonuses_entered(server: LiveServer,
                                                              pages: Pages) -> None:
    """Bids done, then tricks and a bonus entered but not yet scored: a reload (a phone
    drops a tab in the background) shows them as they were, at the tricks."""
    names = ["Ana", "Ben", "Cleo", "Dan"]
    page = await pages.new()
    await open_stored(page, server, stored_pad(names, 2))
    await set_stepper(page, "#bid-0", "Bid of Ana", 1)
    await page.locator("#pad-next").click()
    await set_stepper(page, "#won-0", "Tricks won by Ana", 2)
    await set_stepper(page, "#won-1", "Tricks won by Ben", 1)
    await page.locator("#mermaid-1").click()
    await page.select_option("#griffins-0", "2")
    await page.reload()
    await page.locator("#won-0").wait_for()
    assert [await page.locator(f"#won-{p}").inner_text() for p in range(4)] == ["2", "1", "0", "0"]
    assert await page.locator("#bid-0").inner_text() == "1"
    assert await page.locator("#mermaid-1").is_checked()
    assert await page.locator("#griffins-0").input_value() == "2"
    await page.get_by_role("button", name="Back to bids").click()
    await page.reload()
    await page.locator("#pad-next").wait_for()
    assert await page.locator("#won-0").count() == 0


async def two_tabs(server: LiveServer, pages: Pages, game: Json) -> tuple[Page, Page]:
    """``game`` open in two tabs of one browser (one device: they share its storage)."""
    first = await pages.new()
    await open_stored(first, server, game)
    second = await first.context.new_page()
    second.on("pageerror", lambda error: pages.errors.append(f"{second.url}: {error}"))
    await second.goto(server.base + f"/pad?game={game['id']}")
    await second.locator("#bid-0").wait_for()
    return first, second


async def test_two_tabs_never_replace_each_others_rounds(server: LiveServer,
                                                          pages: Pages) -> None:
    """The same game open in two tabs: a round scored in one shows in the other. A save
    from a tab that missed the other's change is refused and shows the stored game, so
    no scored round is lost."""
    names = ["Ana", "Ben", "Cleo", "Dan"]
    game = stored_pad(names, 3)
    first, second = await two_tabs(server, pages, game)

    # round 4 scored in the first tab shows in the second
    await set_stepper(first, "#bid-0", "Bid of Ana", 4)
    await first.locator("#pad-next").click()
    await set_stepper(first, "#won-0", "Tricks won by Ana", 4)
    await first.locator("#pad-score").click()
    await second.get_by_text("changed in another tab").first.wait_for()
    assert "Round 5 of 8" in await second.locator(".pad-editor h2").inner_text()
    assert len(await second.locator(".pad-grid tbody tr").all()) == 4

    # a writer the second tab did not hear from (its event lost): its next entry is refused
    await second.evaluate("""() => {
        const all = JSON.parse(localStorage.getItem('minodice.pad.games'));
        const g = Object.values(all)[0];
        g.rounds[4] = {bids: [5, 0, 0, 0], won: [5, 0, 0, 0], griffins: [0, 0, 0, 0],
                       mermaid: [false, false, false, false], done: true};
        g.rounds.push({bids: [0, 0, 0, 0], won: [0, 0, 0, 0], griffins: [0, 0, 0, 0],
                       mermaid: [false, false, false, false], done: false});
        g.rev += 1;
        localStorage.setItem('minodice.pad.games', JSON.stringify(all));
    }""")
    await second.get_by_role("button", name="Bid of Ben: one more", exact=True).click()
    await second.get_by_text("Your last entry was not saved.").wait_for()
    assert "Round 6 of 8" in await second.locator(".pad-editor h2").inner_text()
    kept = (await stored_games(second))[game["id"]]
    assert [r["done"] for r in kept["rounds"]] == [True] * 5 + [False]
    assert kept["rounds"][5]["bids"] == [0, 0, 0, 0]


async def test_an_imported_games_id_is_safe_as_a_key_and_a_link(server: LiveServer,
                                                                 pages: Pages) -> None:
    """A hand-edited file whose ``id`` is ``__proto__``, empty or not link-safe is imported
    under a new id of its own; ``constructor`` (a name every object inherits) under its
    own; none of them asks about replacing a game the device does not have."""
    page = await pages.new()
    await page.goto(server.base + "/pad")
    await page.locator("#pad-start").wait_for()
    asked: list[str] = []

    async def dismiss(dialog: Dialog) -> None:
        asked.append(dialog.message)
        await dialog.dismiss()

    page.on("dialog", dismiss)
    for odd in ("__proto__", "constructor", "", "x&y=1"):
        game = stored_pad(["Ana", "Ben", "Cleo"], 1, game_id=odd)
        del game["rev"]
        await page.goto(server.base + "/pad")
        upload: FilePayload = {"name": "pad.json", "mimeType": "application/json",
                               "buffer": json.dumps(game).encode()}
        await page.set_input_files("#pad-import", files=[upload])
        await page.locator("#bid-0").wait_for()
        new_id = page.url.split("game=")[1]
        if odd == "constructor":
            assert new_id == odd
        else:
            assert new_id != odd, page.url
            assert len(new_id) == 12, page.url
        assert new_id in await stored_games(page)
    assert asked == []
    assert len(await stored_games(page)) == 4


async def test_a_pad_left_or_deleted_is_not_drawn_again(server: LiveServer,
                                                          pages: Pages) -> None:
    """The first tab leaves game A for the list of games: a change to A in a second tab
    does not draw A over the list. Back at A, A deleted in the second tab sends the first
    to the list with a word, and brings nothing back."""
    names = ["Ana", "Ben", "Cleo", "Dan"]
    game = stored_pad(names, 2)
    first, second = await two_tabs(server, pages, game)

    await first.get_by_role("link", name="All games").click()
    await first.locator("#pad-start").wait_for()
    await set_stepper(second, "#bid-0", "Bid of Ana", 2)  # A changes in the second tab
    await first.wait_for_timeout(300)
    assert await first.locator(".pad-editor").count() == 0
    assert await first.locator("#pad-start").count() == 1

    await first.get_by_role("link", name=", ".join(names)).click()
    await first.locator("#bid-0").wait_for()
    second.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
    await second.get_by_role("link", name="All games").click()
    await second.get_by_role("button", name="Delete").click()
    await first.get_by_text("This game was deleted in another tab or window.").wait_for()
    await first.locator("#pad-start").wait_for()
    assert game["id"] not in await stored_games(first)


async def test_a_device_that_cannot_save_keeps_the_entries_on_screen(server: LiveServer,
                                                                     pages: Pages) -> None:
    """Storage full or turned off: each entry stays on screen and the page says once that
    it could not save, instead of taking the next entry for another tab's change."""
    names = ["Ana", "Ben", "Cleo", "Dan"]
    page = await pages.new()
    await open_stored(page, server, stored_pad(names, 1))
    await page.evaluate("() => { Storage.prototype.setItem = () => { "
                        "throw new DOMException('full', 'QuotaExceededError'); }; }")
    await set_stepper(page, "#bid-0", "Bid of Ana", 2)
    await set_stepper(page, "#bid-1", "Bid of Ben", 1)
    warned = page.get_by_text("This device could not save it: its storage is full or turned off.")
    assert await warned.count() == 1
    assert await page.get_by_text("changed in another tab").count() == 0
    assert await page.locator("#bid-0").inner_text() == "2"


async def test_six_players_is_the_most_and_a_trick_holds_the_others_griffins(
        server: LiveServer, pages: Pages) -> None:
    """"Add a player" did nothing at six players, silently; with three players the bonus
    offered three griffins taken, which two other dice cannot be (R14)."""
    page = await pages.new()
    await page.goto(server.base + "/pad")
    add = page.locator("#pad-add-player")
    await add.click()
    assert await add.is_enabled()
    await add.click()
    assert await page.locator("#pad-name-5").count() == 1
    assert await add.is_disabled()
    # the keyboard goes on in the name just added, not lost with the button disabled
    assert await page.evaluate("document.activeElement.id") == "pad-name-5"
    await open_stored(page, server, stored_pad(["Ana", "Ben", "Cleo"], 1))
    await page.locator("#pad-next").click()
    await set_stepper(page, "#won-0", "Tricks won by Ana", 1)
    options = await page.locator("#griffins-0 option").all_inner_texts()
    assert options == ["0", "1", "2"]


async def test_a_correction_comes_into_sight_and_can_be_left_unchanged(
        server: LiveServer, pages: Pages) -> None:
    """On a phone, Correct reopened its round above the sheet, out of sight, and the only
    way out of a correction was to score it again (or reload)."""
    names = ["Ana", "Ben", "Cleo", "Dan"]
    page = await pages.new(viewport={"width": 360, "height": 640}, is_mobile=True,
                           has_touch=True)
    await open_stored(page, server, stored_pad(names, 3))
    before = await page.locator(".pad-grid tbody").inner_text()
    await page.locator("#edit-1").scroll_into_view_if_needed()
    await page.locator("#edit-1").click()
    heading = page.locator(".pad-editor h2")
    assert "Round 1 of 8" in await heading.inner_text()
    box = await heading.bounding_box()
    assert box is not None
    assert -1 <= box["y"] < 640, box  # (scrolled to its top, within a pixel)
    assert await heading.evaluate("(e) => document.activeElement === e")
    await set_stepper(page, "#won-0", "Tricks won by Ana", 0)
    await page.locator("#pad-keep").click()
    assert "Round 4 of 8" in await page.locator(".pad-editor h2").inner_text()
    assert await page.locator("#pad-keep").count() == 0
    assert await page.locator(".pad-grid tbody").inner_text() == before
    await page.reload()
    await page.locator("#bid-0").wait_for()
    assert await page.locator(".pad-grid tbody").inner_text() == before


async def test_leaving_with_a_correction_not_scored_asks_first(server: LiveServer,
                                                               pages: Pages) -> None:
    """A correction is kept apart until it is scored, and leaving the page dropped it
    without a word. Now a reload asks first (the browser's beforeunload), and so do the
    app's own links and Back (a confirm); unchanged, or left as it was, nothing asks."""
    page = await pages.new(viewport={"width": 360, "height": 640})
    await open_stored(page, server, stored_pad(["Ana", "Ben", "Cleo", "Dan"], 3))
    asked: list[str] = []
    leave = False

    async def stay(dialog: Dialog) -> None:
        asked.append(dialog.type)
        if dialog.type == "confirm":
            assert dialog.message == "Leave without scoring the correction of round 1?"
        await (dialog.accept() if leave else dialog.dismiss())  # else "Stay on page"

    page.on("dialog", stay)
    await page.locator("#edit-1").click()
    await page.reload()          # opened, nothing changed: nothing to lose
    await page.locator("#bid-0").wait_for()
    assert asked == []
    # to the list and back to the game in the app, so that Back stays in the app
    game = page.url.removeprefix(server.base)
    await page.get_by_role("link", name="All games").click()
    await page.locator(f'a[href="{game}"]').click()
    await page.locator("#edit-1").click()
    await set_stepper(page, "#won-0", "Tricks won by Ana", 0)
    with contextlib.suppress(PlaywrightTimeoutError):  # staying, the reload never ends
        await page.reload(timeout=3_000)
    assert asked == ["beforeunload"]
    assert "Round 1 of 8" in await page.locator(".pad-editor h2").inner_text()
    assert await page.locator("#won-0").inner_text() == "0"
    url = page.url
    await page.get_by_role("link", name="All games").click()   # the app's own link
    async with page.expect_event("dialog"):
        await page.evaluate("history.back()")                    # Back, within the app
    await expect(page.locator("#won-0")).to_have_text("0")
    assert asked == ["beforeunload", "confirm", "confirm"]
    assert page.url == url
    assert "Round 1 of 8" in await page.locator(".pad-editor h2").inner_text()
    assert await page.locator("#won-0").inner_text() == "0"
    await page.locator("#pad-keep").click()
    await page.reload()
    await page.locator("#bid-0").wait_for()
    assert asked == ["beforeunload", "confirm", "confirm"]
    await page.locator("#edit-1").click()       # changed again, and left on purpose
    await set_stepper(page, "#won-0", "Tricks won by Ana", 0)
    leave = True
    await page.get_by_role("link", name="All games").click()
    await page.locator(".pad-names").wait_for()
    assert asked[-1] == "confirm"


async def test_on_a_wide_screen_the_sheet_stands_beside_the_round(server: LiveServer,
                                                                   pages: Pages) -> None:
    """At 1280 px the title card held the left column alone and the sheet came below the
    round being entered, 1,500 px down (a tester's desktop)."""
    page = await pages.new(viewport={"width": 1280, "height": 900})
    await open_stored(page, server, stored_pad(["Ana", "Ben", "Cleo", "Dan", "Eva", "Finn"], 4))
    editor = await page.locator(".pad-editor").bounding_box()
    sheet = await page.locator(".pad-grid").bounding_box()
    assert editor is not None
    assert sheet is not None
    assert abs(sheet["y"] - editor["y"]) < 2, (editor, sheet)
    assert sheet["x"] >= editor["x"] + editor["width"], (editor, sheet)


async def test_another_language_keeps_a_correction_and_the_names_typed(server: LiveServer,
                                                                       pages: Pages) -> None:
    """The page is drawn again in the language chosen: a correction not yet scored, and
    names typed for a new game, were dropped without a word (a link or Back asks first)."""
    page = await pages.new(viewport={"width": 360, "height": 640})
    asked: list[str] = []
    page.on("dialog", lambda dialog: asked.append(dialog.message))
    await open_stored(page, server, stored_pad(["Ana", "Ben", "Cleo", "Dan"], 3))
    await set_stepper(page, "#bid-0", "Bid of Ana", 1)
    await page.locator("#pad-next").click()          # round 4 at its tricks
    await page.locator("#edit-1").click()
    await set_stepper(page, "#won-0", "Tricks won by Ana", 0)
    await page.select_option("#lang", "de")
    await expect(page.locator(".pad-editor h2")).to_contain_text("Runde 1 von 8")
    assert await page.locator("#won-0").inner_text() == "0"
    assert asked == []
    # scored, the pad goes back to round 4 where it was left: at its tricks (it went back
    # to the bids, and a reload showed the tricks)
    await page.locator("#pad-keep").click()
    await expect(page.locator(".pad-editor h2")).to_contain_text("Runde 4 von 8")
    await page.locator("#won-0").wait_for()
    assert await page.locator("#bid-0").inner_text() == "1"

    await page.get_by_role("link", name="Alle Spiele").click()
    await page.fill("#pad-name-0", "Ana")
    await page.fill("#pad-name-1", "Ben")
    await page.select_option("#pad-variant", "simplified")
    for lang in ("nl", "en"):
        await page.select_option("#lang", lang)
        await expect(page.locator("#pad-start")).to_have_text(
            "Start scoring" if lang == "en" else re.compile(r"^(?!Start scoring$)"))
        assert await page.input_value("#pad-name-0") == "Ana"
        assert await page.input_value("#pad-name-1") == "Ben"
        assert await page.input_value("#pad-name-2") == ""
        assert await page.input_value("#pad-variant") == "simplified"
    await page.goto(server.base + "/pad")  # another visit starts empty
    assert await page.input_value("#pad-name-0") == ""


async def test_a_link_to_a_game_not_on_this_device_says_so(server: LiveServer,
                                                          pages: Pages) -> None:
    """It showed the list of games without a word, under the game's address."""
    page = await pages.new(viewport={"width": 360, "height": 640})
    await page.goto(server.base + "/pad?game=abcdef123456")
    await page.get_by_text("This game is not on this device.").wait_for()
    await page.locator("#pad-name-0").wait_for()
    assert page.url == server.base + "/pad"
