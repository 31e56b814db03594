"""The flood benchmark's probe asks for its tables as a client would: a flood of new tables
fills the server's allowance for everyone (``503 busy``, by design), which the probe waits
out instead of failing the measure (it did, in CI, when its game ended during that flood)."""

from __future__ import annotations

import asyncio

import httpx

from benchmark_scripts import load_benchmark

floods = load_benchmark("floods")


def test_a_refused_new_table_is_counted_and_asked_again() -> None:
    answers = [httpx.Response(503, headers={"retry-after": "0"},
                              json={"error": {"code": "busy", "message": "too many"}}),
               httpx.Response(429, headers={"retry-after": "0"}, json={}),
               httpx.Response(201, json={"table": "abc123"})]
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return answers[len(asked) - 1]

    async def run() -> str:
        probe = floods.Probe("http://test")
        async with httpx.AsyncClient(base_url="http://test",
                                     transport=httpx.MockTransport(answer)) as http:
            table = await probe._new_table(http)
        assert probe.errors == {"new table refused: 503": 1, "new table refused: 429": 1}
        return str(table)

    assert asyncio.run(run()) == "abc123"
    assert asked == ["/api/tables"] * 3
