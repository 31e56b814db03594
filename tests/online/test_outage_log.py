"""An outage retried twice a second is logged when it begins, every 30 s while it lasts
and when it ends — not on every try (a Redis restart was 120 lines a minute a process)."""

from __future__ import annotations

import logging

import pytest

from minodice.server.cluster import OUTAGE_LOG_EVERY, Outage


def test_an_outage_is_told_when_it_begins_while_it_lasts_and_when_it_ends(
        caplog: pytest.LogCaptureFixture) -> None:
    now = [100.0]
    outage = Outage("the cluster's channels", clock=lambda: now[0])
    outage.over()  # nothing was down: nothing to say
    with caplog.at_level(logging.WARNING, logger="minodice.server"):
        for _ in range(int(OUTAGE_LOG_EVERY * 2.5 * 2)):  # 75 s of tries, two a second
            outage.still("ConnectionError")
            now[0] += 0.5
        outage.over()
        outage.over()
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "the cluster's channels are down: ConnectionError",
        "the cluster's channels are still down after 30 s: ConnectionError",
        "the cluster's channels are still down after 60 s: ConnectionError",
        "the cluster's channels are back after 75 s",
    ]
