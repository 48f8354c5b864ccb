"""Slow and vanishing clients on every route (review round 2, N3), against real
servers: one read deadline for every route (408 with ``Connection: close``), a
client that goes away is one short log line, and a flood of slow bodies under
1,024 file descriptors does not stop the server answering others."""

from __future__ import annotations

import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.support import rpc_body, server_process
from tests.test_hardening import _trickle

pytestmark = pytest.mark.subprocess

ADMIN = "admin-token-for-deadline-tests"
FORM = b"Content-Type: application/x-www-form-urlencoded\r\n"
JSON = b"Content-Type: application/json\r\n"
SLOW_BODIES = {
    "/oauth/token": FORM,
    "/oauth/register": JSON,
    "/oauth/authorize": FORM,
    "/oauth/revoke": FORM,
    "/_test/clock": JSON + f"Authorization: Bearer {ADMIN}\r\n".encode(),
    "/api/v1/a2a": JSON + b"Authorization: Bearer demo-pro\r\n",
}


def _head(path: str, extra: bytes, length: int) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: {length}\r\n".encode()
        + extra
        + b"\r\n"
    )


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {
        "A2A_DEV_MODE": "1",
        "A2A_TEST_MODE": "1",
        "A2A_ADMIN_TOKEN": ADMIN,
        "A2A_DATA_DIR": str(tmp_path / "data"),
        **more,
    }


def test_every_route_cuts_off_a_slow_body(tmp_path: Path) -> None:
    with server_process(_env(tmp_path, A2A_READ_TIMEOUT_SECONDS="1"), tmp_path) as server:

        def slow(path: str) -> bytes:
            # Four bytes a second: 100 s for the body; the deadline is 1 s.
            return _trickle(server.port, _head(path, SLOW_BODIES[path], 400), b"{" + b" " * 399)

        with ThreadPoolExecutor(len(SLOW_BODIES)) as pool:
            answers = dict(zip(SLOW_BODIES, pool.map(slow, SLOW_BODIES), strict=True))
    for path, answer in answers.items():
        assert answer.startswith(b"HTTP/1.1 408"), (path, answer[:200])
        assert b"connection: close" in answer.lower(), path
        assert b"x-content-type-options: nosniff" in answer.lower(), path
    assert b'"code":-32600' in answers["/api/v1/a2a"]
    assert b'"error":"invalid_request"' in answers["/oauth/token"]


def _abort(port: int, path: str, extra: bytes) -> None:
    """Half a body, then the connection closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(_head(path, extra, 1000) + b"grant_type=")


def test_a_client_that_goes_away_is_one_short_log_line(tmp_path: Path) -> None:
    aborted = 20
    with server_process(_env(tmp_path), tmp_path) as server:
        before = len(server.log().encode())
        for i in range(aborted):
            path = ("/oauth/token", "/oauth/register", "/oauth/authorize")[i % 3]
            _abort(server.port, path, SLOW_BODIES[path])
        # Wait (bounded) until the server has noticed every one.
        give_up = time.monotonic() + 20
        while server.log().count("client went away") < aborted and time.monotonic() < give_up:
            time.sleep(0.05)
        # A request after them: each abort has been handled before it is answered.
        assert httpx.get(f"{server.base_url}/healthz", timeout=10).status_code == 200
        grown = server.log().encode()[before:]
    lines = grown.decode().splitlines()
    assert "Traceback" not in grown.decode()
    assert len([line for line in lines if "client went away" in line]) == aborted
    assert len(lines) == aborted, lines[:5]
    assert max(len(line) for line in lines) < 300
    print(f"log bytes per aborted POST: {len(grown) / aborted:.0f}")


# --- 1,050 slow bodies against 1,024 file descriptors -----------------------------


class Trickler:
    """Many connections each sending a form body a byte at a time, from a thread."""

    def __init__(self, port: int, count: int) -> None:
        self.port = port
        self.count = count
        self.sockets: list[socket.socket] = []
        self.closed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._drip, daemon=True)

    def open(self) -> None:
        head = _head("/oauth/token", FORM, 100_000)
        for _ in range(self.count):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            sock.sendall(head + b"g")
            sock.setblocking(False)
            self.sockets.append(sock)
        self._thread.start()

    def _drip(self) -> None:
        while not self._stop.wait(0.3):
            alive = []
            for sock in self.sockets:
                try:
                    sock.send(b"r")
                    if sock.recv(1, socket.MSG_PEEK) == b"":
                        raise ConnectionResetError
                except BlockingIOError:
                    alive.append(sock)  # nothing to read: still open
                except OSError:
                    sock.close()
                    self.closed += 1
                else:
                    alive.append(sock)
            self.sockets = alive

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        for sock in self.sockets:
            sock.close()


def test_health_and_endpoint_answer_through_a_flood_of_slow_bodies(tmp_path: Path) -> None:
    """``ulimit -n 1024`` and 1,050 connections trickling bodies to /oauth/token
    (the read deadline left at 30 s): the server keeps answering others."""
    wrapper = tmp_path / "python-1024"
    wrapper.write_text(f'#!/bin/sh\nulimit -n 1024 || exit 1\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    env = {"A2A_DEV_MODE": "1", "A2A_DATA_DIR": str(tmp_path / "data")}
    with server_process(env, tmp_path, python=str(wrapper)) as server:
        limits = Path(f"/proc/{server.process.pid}/limits").read_text()
        assert any(
            line.startswith("Max open files") and line.split()[3] == "1024"
            for line in limits.splitlines()
        )
        flood = Trickler(server.port, 1050)
        try:
            flood.open()
            answered = []
            with httpx.Client(timeout=10) as client:
                for i in range(5):
                    health = client.get(f"{server.base_url}/healthz")
                    call = client.post(
                        f"{server.base_url}/api/v1/a2a",
                        json=rpc_body("tasks/get", {"id": f"no-such-task-{i}"}),
                        headers={"Authorization": "Bearer demo-pro"},
                    )
                    answered.append((health.status_code, call.status_code, call.json()))
            still_trickling = len(flood.sockets)
        finally:
            flood.stop()
        log = server.log()
    assert all(h == 200 and c == 200 for h, c, _ in answered), answered
    assert all(body["error"]["code"] == -32001 for _, _, body in answered)
    # The flood was real: most of it still open while the others were answered,
    # and the server never ran out of descriptors.
    assert still_trickling > 700
    assert "out of system resource" not in log
    assert "closing the oldest unfinished requests" in log
