"""``deploy/``: Debian's nginx with ``deploy/nginx/minodice.conf`` in front of two
``minodice serve`` processes started by ``deploy/systemd/minodice@.service``'s own command
lines (its ExecStart and its ExecStartPost readiness wait, as systemd would run them with
the environment file's variables).

What the config promises is checked through the real nginx: ``/readyz`` answers through it,
WebSockets are upgraded (a frame comes back through nginx from either process), ``/static``
comes from nginx's cache the second time, ``/metrics`` answers the local network, and a
killed process is skipped (every request still answered). The parts of the config a test
must change (the port nginx listens on, the processes' ports, the cache folder) are
replaced, and each replacement is checked to have happened, so the file's shape is pinned.

Debian's ``nginx`` is installed by ``make test`` (scripts/ensure_services.sh); without it
these tests fail with how to get it, never skip.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services import free_port

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "deploy" / "nginx" / "minodice.conf"
UNIT = ROOT / "deploy" / "systemd" / "minodice@.service"
ENV_FILE = ROOT / "deploy" / "systemd" / "minodice.env"
TIMEOUT = 60.0


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK)
                                      else None)
    if found is None:
        pytest.fail("nginx is not installed: run `make test` (it installs Debian's nginx) or "
                    "`apt-get install nginx`")
    return found


# -- the systemd unit's command lines ---------------------------------------------------------


def unit_command(key: str, port: int) -> list[str]:
    """The unit's ``key=`` command line for instance ``port``, as systemd splits it: lines
    joined at a trailing backslash, ``%i`` the instance, ``$$`` a ``$`` for the shell."""
    joined = re.sub(r"\\\n\s*", " ", UNIT.read_text())
    line = next(x for x in joined.splitlines() if x.startswith(f"{key}="))
    return shlex.split(line[len(key) + 1:].replace("%i", str(port)).replace("$$", "$"))


def env_file() -> dict[str, str]:
    """The environment file's variables (KEY=value lines; # comments)."""
    found = {}
    for line in ENV_FILE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            found[key.strip()] = value
    return found


def test_the_environment_file_names_what_the_unit_reads() -> None:
    unit = UNIT.read_text()
    variables = env_file()
    for name in re.findall(r"\$\$\{?(MINODICE_[A-Z_]+)", unit):
        assert name in variables, name
    assert "EnvironmentFile=/etc/minodice/minodice.env" in unit
    assert variables["MINODICE_DB"].startswith("postgresql://")


def test_systemd_reads_the_unit_without_a_complaint(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:  # said in the test report, not hidden: systemd is not on every CI
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    instance = tmp_path / "minodice@8001.service"
    shutil.copy(UNIT, instance)
    done = subprocess.run([analyze, "verify", "--man=no", str(instance)],
                          capture_output=True, text=True, timeout=60, check=False)
    # verify exits 0 even for a line it ignores; what it says is the verdict
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "", done.stderr


@contextlib.contextmanager
def unit_instance(port: int, folder: Path,
                  options: str = "") -> Iterator[subprocess.Popen[bytes]]:
    """One ``minodice@PORT`` instance: its ExecStart in the background, then its
    ExecStartPost, which must say it is ready (exit 0). ``options``: more of serve's."""
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, **env_file(),
           "MINODICE_BIN": str(bin_dir / "minodice"), "MINODICE_PYTHON": sys.executable,
           "MINODICE_DB": str(folder / f"{port}.sqlite3"), "MINODICE_REDIS": "",
           "MINODICE_OPTIONS": "--forwarded-allow-ips 127.0.0.1 --bot-workers 1 "
                               f"--advice-workers 1 --analysis-workers 1 {options}"}
    log = (folder / f"{port}.log").open("wb")
    process = subprocess.Popen(unit_command("ExecStart", port), env=env, stdout=log,
                               stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        ready = subprocess.run(unit_command("ExecStartPost", port), env=env, timeout=TIMEOUT,
                               check=False, capture_output=True)
        assert ready.returncode == 0, (folder / f"{port}.log").read_text()[-2000:]
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)
        log.close()


# -- nginx --------------------------------------------------------------------------------------


def rendered_config(listen: int, upstreams: list[int], folder: Path) -> str:
    """deploy/nginx/minodice.conf with this test's ports and cache folder."""
    text = NGINX_CONF.read_text()
    servers = re.findall(r"^ *server 127\.0\.0\.1:\d+ [^;]*;\n", text, re.MULTILINE)
    assert len(servers) >= 2, "the upstream lists one process a line"
    options = servers[0].strip().split(maxsplit=2)[2]
    lines = "".join(f"    server 127.0.0.1:{port} {options}\n" for port in upstreams)
    text = text.replace("".join(servers), lines)
    assert text.count("listen 80;") == 1
    text = text.replace("listen 80;", f"listen 127.0.0.1:{listen};")
    assert "/var/cache/nginx/minodice" in text
    assert text.count("/var/log/nginx/error.log") == 1  # the WebSockets' own
    text = text.replace("/var/log/nginx/error.log", str(folder / "ws-error.log"))
    return text.replace("/var/cache/nginx/minodice", str(folder / "cache"))


def main_config(folder: Path, site: str) -> Path:
    """A whole nginx.conf of the test's own (its pid, logs and temporary files in
    ``folder``) that includes the site's config in its http block, as Debian's does."""
    (folder / "minodice.conf").write_text(site)
    temp = "".join(f"    {kind}_temp_path {folder / kind};\n"
                   for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
    conf = folder / "nginx.conf"
    conf.write_text(f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\n"
                    f"error_log {folder / 'error.log'};\n"
                    "events { worker_connections 256; }\n"
                    f"http {{\n{temp}    include {folder / 'minodice.conf'};\n}}\n")
    return conf


@pytest.fixture
def nginx_folder() -> Iterator[Path]:
    """nginx's folder: one its workers may enter and write (they run as nobody when the
    tests run as root, and pytest's own folders are root's only)."""
    folder = Path(tempfile.mkdtemp(prefix="minodice-nginx-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_nginx_accepts_the_config(nginx_folder: Path) -> None:
    conf = main_config(nginx_folder, rendered_config(free_port(), [free_port(), free_port()],
                                                     nginx_folder))
    done = subprocess.run([nginx_binary(), "-t", "-q", "-e", "stderr", "-c", str(conf)],
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr


@contextlib.contextmanager
def running_nginx(conf: Path, port: int) -> Iterator[None]:
    process = subprocess.Popen([nginx_binary(), "-e", "stderr", "-c", str(conf), "-g",
                                "daemon off;"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            with contextlib.suppress(httpx.TransportError):
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2, trust_env=False)
                break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)
        yield
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


async def ws_first_message(url: str) -> dict[str, object]:
    from websockets.asyncio.client import connect

    async with connect(url, open_timeout=TIMEOUT, proxy=None) as ws:
        raw = await asyncio.wait_for(ws.recv(), TIMEOUT)
    message: dict[str, object] = json.loads(raw)
    return message


def test_nginx_in_front_of_two_unit_instances(tmp_path: Path, nginx_folder: Path) -> None:
    ports = [free_port(), free_port()]
    listen = free_port()
    conf = main_config(nginx_folder, rendered_config(listen, ports, nginx_folder))
    base = f"http://127.0.0.1:{listen}"
    with unit_instance(ports[0], tmp_path), unit_instance(ports[1], tmp_path) as second, \
            running_nginx(conf, listen), httpx.Client(base_url=base, timeout=TIMEOUT,
                                                      trust_env=False) as http:
        for _ in range(4):  # round robin: both processes answer, both are ready
            ready = http.get("/readyz")
            assert ready.status_code == 200, ready.text
            assert ready.json()["status"] == "ready"

        # A WebSocket is upgraded through nginx and frames come back (from each process:
        # an unknown table is refused in a message, then the socket closed).
        for _ in range(2):
            message = asyncio.run(ws_first_message(f"ws://127.0.0.1:{listen}/ws/nosuchtable"))
            assert message["type"] == "error"
            assert message["code"] == "not_found"

        # /static: compressed by the server, kept by nginx, served from its cache again.
        script = "/static/app.js"
        first = http.get(script, headers={"Accept-Encoding": "gzip"})
        assert first.status_code == 200
        assert first.headers["content-encoding"] == "gzip"
        again = http.get(script, headers={"Accept-Encoding": "gzip"})
        assert again.headers["x-cache-status"] == "HIT"
        assert again.content == first.content

        assert "minodice_action_latency_seconds" in http.get("/metrics").text

        # A process dies: nginx sends every request to the one left.
        os.killpg(second.pid, signal.SIGKILL)
        second.wait(10)
        for _ in range(6):
            answer = http.get("/healthz")
            assert answer.status_code == 200
            assert answer.json() == {"status": "alive"}


def test_nginx_names_each_websockets_client_and_logs_no_token(tmp_path: Path,
                                                              nginx_folder: Path) -> None:
    """A WebSocket through nginx counts against its client's address, not nginx's (its
    location sets headers of its own, and nginx then passes on none of the server's), and
    nginx's error log never holds a seat's token: here one of the two processes is down,
    so nginx fails to reach it for some WebSockets and says so."""
    live, dead, listen = free_port(), free_port(), free_port()
    site = rendered_config(listen, [dead, live], nginx_folder)
    assert "max_fails=3 " in site
    # nginx keeps trying the process down (every other request), never taking it out
    conf = main_config(nginx_folder, site.replace("max_fails=3 ", "max_fails=0 "))
    secret = "tokenthatmustneverbelogged0123456789"

    async def sockets() -> None:
        from websockets.asyncio.client import connect

        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{live}", timeout=TIMEOUT,
                                     trust_env=False) as http:
            made = await http.post("/api/tables", json={"players": 3})
            table = made.json()["table"]

        async def ws_from(address: str, query: str = "") -> dict[str, object]:
            ws = await connect(f"ws://127.0.0.1:{listen}/ws/{table}{query}", proxy=None,
                               local_addr=(address, 0), open_timeout=TIMEOUT)
            opened.append(ws)
            message: dict[str, object] = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
            return message

        opened: list[Any] = []
        try:
            # a seat's token in the URL (not a seat's: refused, the socket closed), sent
            # until nginx has tried the process that is down for some of them
            for _ in range(4):
                await ws_from("127.0.0.4", f"?token={secret}")
            assert (await ws_from("127.0.0.2"))["type"] == "view"  # held open
            assert (await ws_from("127.0.0.3"))["type"] == "view"  # another client
            refused = await ws_from("127.0.0.2")  # the same client again: its one socket
            assert (refused["type"], refused["code"]) == ("error", "busy")
        finally:
            for ws in opened:
                await ws.close()

    with unit_instance(live, tmp_path, "--sockets-per-address 1"), \
            running_nginx(conf, listen):
        asyncio.run(sockets())
        for _ in range(2):  # HTTP's failures to reach it are logged: the log is on
            assert httpx.get(f"http://127.0.0.1:{listen}/healthz", timeout=TIMEOUT,
                             trust_env=False).status_code == 200
    logged = "".join(path.read_text(errors="replace")
                     for path in nginx_folder.glob("*.log"))
    assert "connect() failed" in logged  # nginx did fail to reach the process down
    assert secret not in logged
