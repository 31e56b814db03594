"""A bot that plays a seat over the table protocol alone (docs/PROTOCOL.md): python
examples/protocol_bot.py http://127.0.0.1:8000/t/TABLE — it bids 1 and rolls its first
legal die. Needs only httpx and websockets."""
import asyncio, json, sys  # noqa: E401

import httpx, websockets  # noqa: E401


async def main(link: str) -> None:
    base, table = link.split("/t/")
    seat = httpx.post(f"{base}/api/tables/{table}/seats", json={"name": "Example bot"}).json()
    answered = None  # a view may come before the server has read our last action
    async with websockets.connect(f"ws{base[4:]}/ws/{table}?token={seat['token']}") as ws:
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] != "view":
                continue
            view = message["view"]
            if view["status"] == "finished":
                return print("totals:", view["totals"])
            if view["turn"] and view["legal"] and view["turn"] != answered:
                action = "bid 1" if "bid 1" in view["legal"] else view["legal"][0]
                await asyncio.sleep(0.1)  # the server reads at most 20 messages a second
                await ws.send(json.dumps({"type": "act", "turn": view["turn"], "action": action}))
                answered = view["turn"]


asyncio.run(main(sys.argv[1]))
