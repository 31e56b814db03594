"""The load processes of ``benchmarks/server.py`` stand for clients on other machines and
run below the server they measure (``--load-nice``). Where the scheduler groups processes
by session (autogroups), a nice value weighs only inside its session: a niced load process
must stay in the benchmark's session (the server has its own), or its nice value does
nothing and each load process weighs as much as the server."""

from __future__ import annotations

import os
import subprocess
import sys

from benchmark_scripts import load_benchmark

bench = load_benchmark("server")

SLEEP = [sys.executable, "-c", "import time; time.sleep(30)"]


def test_a_niced_load_process_stays_in_the_benchmarks_session_in_a_group_of_its_own(
) -> None:
    child = subprocess.Popen(["nice", "-n", "10", *SLEEP], **bench.load_session(10))
    try:
        assert os.getsid(child.pid) == os.getsid(0)  # our session: its nice value counts
        assert os.getpgid(child.pid) == child.pid    # stopped with its process group
        assert os.getpgid(child.pid) != os.getpgid(0)
    finally:
        child.kill()
        child.wait()


def test_a_load_process_at_the_servers_priority_has_a_session_of_its_own() -> None:
    child = subprocess.Popen(SLEEP, **bench.load_session(0))
    try:
        assert os.getsid(child.pid) == child.pid
    finally:
        child.kill()
        child.wait()
