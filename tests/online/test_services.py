"""The tests' own database servers (tests/services.py): they answer on 127.0.0.1 only,
and run as an unprivileged user when the tests run as root (PostgreSQL refuses root).
(A restart keeping its data: tests/online/test_postgres_server.py.)"""

from __future__ import annotations

import os
import socket

import psycopg

from services import Postgres, Redis


def owner_of(port: int) -> int | None:
    """The uid of the process listening on 127.0.0.1:``port`` (from /proc/net/tcp)."""
    wanted = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as table:
        for line in list(table)[1:]:
            fields = line.split()
            if fields[1] == wanted and fields[3] == "0A":  # LISTEN
                return int(fields[7])
    return None


def test_redis_answers_on_the_loopback_only(redis_service: Redis) -> None:
    with socket.create_connection(("127.0.0.1", redis_service.port), 5) as sock:
        sock.sendall(b"PING\r\n")
        assert sock.recv(64) == b"+PONG\r\n"
    uid = owner_of(redis_service.port)
    assert uid is not None, "not listening on 127.0.0.1"
    if os.geteuid() == 0:
        assert uid != 0


def test_postgres_answers_as_an_unprivileged_user(postgres_service: Postgres) -> None:
    with psycopg.connect(postgres_service.new_database(), connect_timeout=5) as conn:
        assert conn.execute("SELECT current_setting('listen_addresses')").fetchone() == (
            "127.0.0.1",)
    uid = owner_of(postgres_service.port)
    assert uid is not None
    if os.geteuid() == 0:
        assert uid != 0

