"""The per-address token buckets (server/app.py ``Limits``): a flood from more addresses
than the buckets kept no longer gives every client a fresh burst."""

from __future__ import annotations

from minodice.server.app import Limits
from minodice.server.connections import client_address


def test_a_client_over_its_burst_stays_refused_while_many_others_come() -> None:
    limits = Limits(rate=0.0001, burst=3, clients=100)
    assert [limits.allow("flooder") for _ in range(4)] == [True, True, True, False]
    for i in range(1000):  # ten times the buckets kept, each asking once
        limits.allow(f"10.0.{i // 250}.{i % 250}")
        if i % 50 == 0:  # the flooder keeps asking: its bucket stays among the kept
            assert not limits.allow("flooder")
    assert not limits.allow("flooder")
    assert len(limits._buckets) <= 100


def test_an_ipv6_home_is_one_client() -> None:
    limits = Limits(rate=0.0001, burst=2)
    addresses = [f"2001:db8:aa:bb::{i:x}" for i in range(1, 6)]
    answers = [limits.allow(client_address({"client": (a, 40000)})) for a in addresses]
    assert answers == [True, True, False, False, False]
    assert limits.allow(client_address({"client": ("2001:db8:aa:cc::1", 40000)}))
