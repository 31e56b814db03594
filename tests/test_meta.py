"""One source for each constant: the page and the score pad get them from the server.

Rounds per player count (R2), bot levels, editions with their titles and symbols are stated
once in Python (the rules, the bot registry, the dice sets, the catalogue's titles); the
server sends them as ``GET /api/meta`` and as the ES module ``/meta.js`` that the page's
scripts import. Here: what is served equals the engine's, and no static file (nor another
Python module) states one of them again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import minodice
from minodice.bots.loading import make_bot
from minodice.bots.protocol import BUILTIN_BOTS, builtin_factories
from minodice.cli.common import LEVELS, Edition
from minodice.core.dice import BUILTIN_DICE_SETS, load_dice_set
from minodice.core.rules import MAX_PLAYERS, MIN_PLAYERS, rounds_for
from minodice.i18n.words import EDITION_TITLES
from minodice.server.app import create_app
from minodice.server.botpool import BotPool
from minodice.server.room import Settings
from minodice.server.store import Store
from minodice.server.web import STATIC, minified

PACKAGE = Path(minodice.__file__).resolve().parent
EXPORT = re.compile(r"^export const ([A-Z_]+) = (.*);$")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    pool = BotPool(workers=1)
    store = Store.sqlite(tmp_path / "tables.sqlite3")
    try:
        yield TestClient(create_app(store, Settings(bot_delay=0), pool))
    finally:
        pool.close()
        store.close()


def _module_values(text: str) -> dict[str, Any]:
    """``export const NAME = JSON;`` lines of ``/meta.js`` as ``{NAME: value}``."""
    values = {}
    for line in text.splitlines():
        if line.startswith("//") or not line.strip():
            continue
        match = EXPORT.match(line)
        assert match, f"not an exported constant: {line!r}"
        values[match[1]] = json.loads(match[2])
    return values


def _engines() -> dict[str, Any]:
    """The constants as the engine states them, in the JSON the page receives."""
    return {
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "rounds": {str(n): rounds_for(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)},
        "levels": list(BUILTIN_BOTS),
        "editions": [{"name": name, "title": EDITION_TITLES[name],
                      "symbols": list(load_dice_set(name).symbols)}
                     for name in BUILTIN_DICE_SETS],
    }


def test_the_served_constants_are_the_engines(client: TestClient) -> None:
    answer = client.get("/api/meta")
    assert answer.status_code == 200
    assert answer.json() == _engines()
    assert answer.json()["rounds"] == {"3": 8, "4": 8, "5": 7, "6": 6}  # R2, as RULES.md says

    module = client.get("/meta.js")
    assert module.status_code == 200
    assert module.headers["content-type"].startswith("text/javascript")
    assert _module_values(module.text) == {k.upper(): v for k, v in _engines().items()}

    schema = client.get("/openapi.json").json()
    answer_schema = schema["paths"]["/api/meta"]["get"]["responses"]["200"]["content"]
    assert answer_schema["application/json"]["schema"] == {"$ref": "#/components/schemas/GameMeta"}


def test_every_served_level_and_edition_is_one_the_server_accepts(client: TestClient) -> None:
    """The lists the page offers are the lists the server takes, and each one works."""
    meta = client.get("/api/meta").json()
    assert set(builtin_factories()) == set(meta["levels"])
    for level in meta["levels"]:
        assert callable(make_bot(level).act)
    for edition in meta["editions"]:
        dice = client.get(f"/api/dice/{edition['name']}")
        assert dice.status_code == 200
        assert dice.json()["title"] == edition["title"]  # one title, in English, for both
        # the title is a catalogue message: the page gets its translation with the others
        for lang in ("de", "nl", "pt", "es"):
            assert edition["title"] in client.get(f"/api/i18n/{lang}").json()["messages"]
    levels = meta["levels"]
    created = client.post("/api/tables", json={
        "players": meta["max_players"], "edition": meta["editions"][-1]["name"],
        "bots": [None] + [levels[i % len(levels)] for i in range(meta["max_players"] - 1)]})
    assert created.status_code == 201, created.text
    refused = client.post("/api/tables", json={"players": meta["max_players"] + 1})
    assert refused.status_code == 400


# Tables the page once restated: a rounds table, the bot levels, the editions and their
# titles, the player counts. Each pattern matches the form such a copy takes in JavaScript.
RESTATED_IN_JS = {
    "R2 rounds table": re.compile(r"\b3\s*:\s*8\s*,\s*4\s*:\s*8"),
    "bot levels": re.compile(r"""["'](?:random|easy|medium|hard|expert)["']\s*:\s*_\(|"""
                             r"""\[\s*["'](?:random|easy|medium|hard|expert)["']\s*,"""),
    "edition names": re.compile(r"""value:\s*["'](?:mino|skull-king)["']|"""
                                r"""\b(?:mino|["']skull-king["'])\s*:\s*\["""),
    # ("Mino Dice" alone is also the site's name, in its header: only a title table counts)
    "edition titles": re.compile(r"""["']Skull King – The Dice Game["']|"""
                                 r"""\bmino["']?\s*:\s*["']Mino Dice["']"""),
    "player counts": re.compile(r"\[\s*3\s*,\s*4\s*,\s*5\s*,\s*6\s*\]"),
}


@pytest.mark.parametrize("script", sorted(p.name for p in STATIC.glob("*.js")))
def test_no_script_restates_a_served_constant(script: str) -> None:
    text = (STATIC / script).read_text("utf-8")
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    found = {what: pattern.search(code) for what, pattern in RESTATED_IN_JS.items()}
    restated = {what: m[0] for what, m in found.items() if m is not None}
    assert not restated, f"{script} restates {restated}: import it from /meta.js"


def test_the_patterns_find_the_old_copies() -> None:
    """The check above is worth something: each pattern finds the copy it was made for."""
    old = {
        "R2 rounds table": "export const ROUNDS = { 3: 8, 4: 8, 5: 7, 6: 6 };",
        "bot levels": '["easy", "medium", "hard", "random"].map((b) => b)',
        "edition names": 'h("option", { value: "mino" }, _("Mino Dice"))',
        "edition titles": 'const TITLES = { mino: "Mino Dice" };',
        "edition titles ": '_("Skull King – The Dice Game")',
        "player counts": "[3, 4, 5, 6].map((n) => n)",
    }
    for what, line in old.items():
        assert RESTATED_IN_JS[what.strip()].search(line), what


# Python: each constant has one home; these are the forms a second statement would take.
PYTHON_HOMES = {
    "R2 rounds table": (re.compile(r"\b3\s*:\s*8\s*,\s*4\s*:\s*8"), "core/rules.py"),
    "bot levels": (re.compile(r"""Literal\[\s*["'](?:random|easy|medium|hard|expert)["']"""),
                   "bots/protocol.py"),
    "editions": (re.compile(r"""Literal\[\s*["'](?:mino|skull-king)["']"""), "core/dice.py"),
    "edition titles": (re.compile(r"""N_\(\s*["']Mino Dice["']\)"""), "i18n/words.py"),
}


def test_python_states_each_constant_in_one_module() -> None:
    for what, (pattern, home) in PYTHON_HOMES.items():
        where = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                       if pattern.search(p.read_text("utf-8")))
        assert where == [home], f"{what} stated in {where}; its one home is {home}"


def test_the_command_lines_choices_are_the_cores() -> None:
    """Typer needs an enum for the edition option; it must list the core's editions."""
    assert tuple(e.value for e in Edition) == BUILTIN_DICE_SETS
    assert all(level in LEVELS.split(", ") for level in BUILTIN_BOTS)


def test_scripts_and_styles_travel_compressed(client: TestClient) -> None:
    """A phone asks with ``Accept-Encoding: gzip`` and gets each script and style sheet
    compressed, byte for byte the minified file once unpacked; the API's answers are
    not."""
    for path in sorted(STATIC.iterdir()):
        if path.suffix not in (".js", ".css") or path.stat().st_size < 500:
            continue
        answer = client.get(f"/static/{path.name}", headers={"accept-encoding": "gzip"})
        assert answer.status_code == 200, path.name
        assert answer.headers.get("content-encoding") == "gzip", path.name
        assert answer.content == minified(path), path.name
    api = client.get("/api/meta", headers={"accept-encoding": "gzip"})
    assert api.status_code == 200
    assert "content-encoding" not in api.headers


#: The page's budget for all its scripts and styles, as served (before compression): 150 KB
#: until 2026-12-05, when the score pad and odds pages came to keep the keyboard's focus and
#: say each change aloud, and large text its own layouts (152.4 KB served, 54.4 KB gzipped:
#: benchmarks/page.py).
PAGE_BUDGET = 160_000


def test_all_scripts_and_styles_weigh_at_most_160_kb_as_served(client: TestClient) -> None:
    """Every script and style sheet the site serves (``static/``, ``/meta.js``), as a
    browser gets it (asking for gzip, as browsers do) once unpacked: within the budget,
    and smaller than the files (they are minified; the service worker at the root too)."""
    served, files = 0, 0
    paths = [f"/static/{p.name}" for p in sorted(STATIC.iterdir()) if p.suffix in (".js", ".css")]
    for path in [*paths, "/meta.js"]:
        answer = client.get(path, headers={"accept-encoding": "gzip"})
        assert answer.status_code == 200, path
        assert answer.headers["content-type"].startswith(("text/javascript", "text/css")), path
        served += len(answer.content)  # httpx unpacks: the bytes the page's scripts get
        if path.startswith("/static/"):
            files += (STATIC / path.removeprefix("/static/")).stat().st_size
    assert served <= PAGE_BUDGET, f"{served} bytes served, the budget is {PAGE_BUDGET}"
    assert served < 0.9 * files
    assert client.get("/sw.js").content == client.get("/static/sw.js").content


def test_a_minified_file_is_revalidated_by_its_etag(client: TestClient) -> None:
    """A browser that has the file asks again with its ETag and gets 304, no body."""
    first = client.get("/static/table.js")
    etag = first.headers["etag"]
    again = client.get("/static/table.js", headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert client.get("/static/table.js", headers={"if-none-match": '"other"'}).content \
        == first.content
