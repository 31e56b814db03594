"""The client's bot answers through the runners' guard: a failing bot is named, never a
traceback or an illegal answer sent to the server."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from minodice.bots.loading import make_bot
from minodice.client import ClientError, bot_decider
from minodice.core.actions import Action, Bid
from minodice.core.view import SeatView
from minodice.play.driver import RANDOM
from minodice.play.table import new_table
from minodice.server.protocol import TableFacts, view_message
from minodice.wire.shapes import PlayerDict


def bidding_view() -> dict[str, Any]:
    table = new_table(4, ["Ana"], ["random"], seed=3)
    players: list[PlayerDict] = [{"name": n, "bot": None, "connected": True, "autoplay": None}
                                 for n in table.names]
    facts = TableFacts("t", "playing", "mino", "standard", players,
                       None, "c", table.to_act(), None, {})
    message = view_message(facts, table.view(0), 0, table.turn(0), 1)
    view: dict[str, Any] = dict(message["view"])
    return view


class Raising:
    name = "raiser"

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        raise RuntimeError("no idea")


class Illegal:
    name = "cheat"

    def act(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return Bid(99)


async def test_a_bot_s_answer_is_one_of_the_legal_ones() -> None:
    view = bidding_view()
    answer = await bot_decider(make_bot("easy"), random.Random(1))(view)
    assert answer in view["legal"]


@pytest.mark.parametrize(("bot", "why"), [
    (Raising(), "bot 'raiser' (seat 1) raised RuntimeError: no idea"),
    (Illegal(), "bot 'cheat' (seat 1) returned Bid(99), which is not legal here"),
])
async def test_a_failing_bot_is_named_and_nothing_is_sent(bot: Any, why: str) -> None:
    with pytest.raises(ClientError) as info:
        await bot_decider(bot, random.Random(1))(bidding_view())
    assert str(info.value).startswith(why)


async def test_a_failing_bot_may_be_replaced_by_a_random_legal_answer() -> None:
    view = bidding_view()
    answer = await bot_decider(Illegal(), random.Random(1), on_bot_error=RANDOM)(view)
    assert answer in view["legal"]
