"""The server offers the ``expert`` level (its bots decide like every level's, in the pool)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from minodice.server.app import create_app
from minodice.server.room import Settings
from minodice.server.store import Store

from .test_hidden import InProcessPool


def test_the_server_offers_the_expert_level(tmp_path: Path) -> None:
    app = create_app(Store.sqlite(tmp_path / "tables.db"), Settings(bot_delay=0, grace=3600.0),
                     InProcessPool(0))
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.post("/api/tables", json={"players": 3,
                                                  "bots": [None, "expert", "expert"]})
        assert answer.status_code == 201, answer.text
        info = client.get(f"/api/tables/{answer.json()['table']}").json()
        assert [p["bot"] for p in info["players"]] == [None, "expert", "expert"]
        refused = client.post("/api/tables", json={"players": 3,
                                                   "bots": [None, "grandmaster", None]})
        assert refused.status_code == 400
