"""Regression tests for the outside review's findings: bounded stored messages,
log lines safe from client strings, no redirect built from the Host header,
read deadlines for slow clients, and a guarded /metrics."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import orjson
import pytest
from pydantic import SecretStr

from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, rpc_body, send_params, server_process


def _error(response: Any) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    return body["error"]


async def test_a_message_past_the_stored_size_bound_is_invalid_params(h: Harness) -> None:
    token = await h.token()
    limit = h.settings.max_message_bytes
    refused = await h.send(token, "x" * 1_000_000)
    assert refused.status_code == 200
    error = _error(refused)
    assert error["code"] == -32602
    assert error["data"]["field"] == "message"
    assert str(limit) in error["data"]["reason"]
    # Just under the bound is stored and answered whole.
    text = "y" * (limit - 400)
    accepted = (await h.send(token, text)).json()["result"]
    assert accepted["artifacts"][0]["parts"][0]["text"] == text
    stored = (await h.call("tasks/get", {"id": accepted["id"]}, token)).json()["result"]
    assert stored["history"][0]["parts"][0]["text"] == text


async def test_a_refused_large_message_does_not_count_against_the_limit(h: Harness) -> None:
    token = await h.token(per_minute=1)
    assert _error(await h.send(token, "x" * 100_000))["code"] == -32602
    assert "result" in (await h.send(token, "small")).json()


async def test_client_strings_are_clipped_and_escaped_in_log_lines(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    method = "m" * 500_000 + "\n2026-12-01 INFO forged line"
    skill = "s" * 10_000 + "\r\nforged"
    token = await h.token()
    with caplog.at_level(logging.INFO, logger="magisterium_a2a.requests"):
        await h.post(rpc_body(method, {}))
        await h.call("message/send", send_params("hi", skill), token)
    lines = [r for r in caplog.records if r.name == "magisterium_a2a.requests"]
    assert len(lines) == 2
    for record in lines:
        message = record.getMessage()
        assert "\n" not in message and "\r" not in message
        assert len(message) < 400
        assert len(str(getattr(record, "method", ""))) < 200
        assert len(str(getattr(record, "skill", ""))) < 200
    assert "chars)" in lines[0].getMessage()
    assert "\\r\\nforged" not in lines[1].getMessage()  # clipped away before the tail


async def test_the_slash_form_is_not_redirected_to_the_clients_host(h: Harness) -> None:
    token = await h.token()
    response = await h.client.post(
        "/api/v1/a2a/",
        content=orjson.dumps(rpc_body("message/send", send_params("hi"))),
        headers={"Authorization": f"Bearer {token}", "Host": "evil.example"},
    )
    assert response.status_code == 404
    assert "location" not in response.headers


async def test_metrics_can_ask_for_a_bearer_token(settings: Settings) -> None:
    guarded = settings.model_copy(update={"metrics_token": SecretStr("metrics-secret-1234")})
    async with harness(guarded) as h:
        assert (await h.client.get("/metrics")).status_code == 401
        wrong = await h.client.get("/metrics", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        right = await h.client.get(
            "/metrics", headers={"Authorization": "Bearer metrics-secret-1234"}
        )
        assert right.status_code == 200
        assert b"a2a_requests_total" in right.content
    for unset in (None, SecretStr("")):
        open_settings = settings.model_copy(update={"metrics_token": unset})
        async with harness(open_settings) as open_metrics:
            assert (await open_metrics.client.get("/metrics")).status_code == 200


def _trickle(port: int, head: bytes, drip: bytes) -> bytes:
    """Send ``head``, then ``drip`` a byte at a time, paced, until the server
    answers or closes; all it sent back (b"" when it closed without a word)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head)
        sock.settimeout(0.25)
        received = b""
        try:
            for byte in drip:
                try:
                    received = sock.recv(65536)
                except TimeoutError:
                    sock.sendall(bytes([byte]))
                    continue
                return received + _rest(sock) if received else received
        except (ConnectionResetError, BrokenPipeError):
            return received
        raise AssertionError("the server never cut the slow client off")


def _rest(sock: socket.socket) -> bytes:
    """What else the server sends before it closes (a head and its body may come apart)."""
    sock.settimeout(10)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


@pytest.mark.subprocess
def test_slow_clients_are_cut_off(tmp_path: Path) -> None:
    env = {"A2A_DEV_MODE": "1", "A2A_READ_TIMEOUT_SECONDS": "1", "A2A_DATA_DIR": str(tmp_path)}
    with server_process(env, tmp_path) as server:
        body_head = (
            b"POST /api/v1/a2a HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer demo-pro\r\n"
            b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n"
        )
        # A body at four bytes a second would take 100 s; the server answers after 1 s.
        answer = _trickle(server.port, body_head, b"{" + b" " * 399)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert b'"code":-32600' in answer
        assert b"connection: close" in answer.lower()
        # Headers that never end: the connection is closed.
        assert _trickle(server.port, b"POST /api/v1/a2a HTTP/1.1\r\n", b"X" * 400) == b""
