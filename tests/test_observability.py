"""Metrics, the request log and request ids."""

from __future__ import annotations

import logging
import re
from typing import Any

import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from magisterium_a2a.server.config import Settings
from tests.support import Harness, rpc_body, send_params


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def count(
    metrics: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    return metrics.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_metrics_count_the_calls(h: Harness) -> None:
    token, free = await h.token(), await h.token("free")
    for _ in range(3):
        await h.send(token)
    await h.send(token, skill="explode")
    for _ in range(3):
        await h.send(token, skill="echo_expensive")
    await h.call("tasks/get", {"id": "missing"}, token)
    await h.call("tasks/get", {"id": "x"}, free)
    await h.call("no/such", {}, token)
    await h.send(token, skill="nope")
    await h.post(b"{")
    await h.post(
        [rpc_body("tasks/get", {"id": "a"}, 1), rpc_body("tasks/get", {"id": "b"}, 2)], token
    )

    response = await h.client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    m = samples(response.text)
    total = "a2a_requests_total"
    assert count(m, total, method="message/send", skill="echo", outcome="completed") == 3
    assert count(m, total, method="message/send", skill="explode", outcome="failed") == 1
    assert count(m, total, method="message/send", skill="echo_expensive", outcome="completed") == 2
    assert count(m, total, method="message/send", skill="echo_expensive", outcome="-32003") == 1
    assert count(m, total, method="tasks/get", skill="-", outcome="-32001") == 3
    assert count(m, total, method="tasks/get", skill="-", outcome="-32005") == 1
    assert count(m, total, method="other", skill="-", outcome="-32601") == 1
    assert count(m, total, method="message/send", skill="other", outcome="-32002") == 1
    assert count(m, total, method="-", skill="-", outcome="-32700") == 1
    assert count(m, "a2a_rate_limited_total", bucket="expensive") == 1
    assert count(m, "a2a_rate_limited_total", bucket="default") == 0
    histogram = count(m, "a2a_request_duration_seconds_count", method="message/send", skill="echo")
    assert histogram == 3


async def test_store_errors_are_counted(h: Harness) -> None:
    from redis.exceptions import ConnectionError as RedisConnectionError

    async def down(*args: object, **kwargs: object) -> None:
        raise RedisConnectionError("gone")

    token = await h.token()
    h.runtime.store.get_json = down  # type: ignore[method-assign]
    assert (await h.call("tasks/get", {"id": "x"}, token)).json()["error"]["code"] == -32603
    m = samples((await h.client.get("/metrics")).text)
    assert count(m, "a2a_store_errors_total") == 1


async def test_one_log_line_per_call_without_secrets(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    token = await h.token(user="logged-user")
    caplog.set_level(logging.INFO, logger="magisterium_a2a.requests")
    response = await h.call("message/send", send_params("a very private question"), token, req_id=5)
    records = [r for r in caplog.records if r.name == "magisterium_a2a.requests"]
    assert len(records) == 1
    record = records[0]
    assert record.__dict__["request_id"] == response.headers["x-request-id"]
    assert record.__dict__["user"] == "logged-user"
    assert record.__dict__["method"] == "message/send"
    assert record.__dict__["skill"] == "echo"
    assert record.__dict__["outcome"] == "completed"
    assert record.__dict__["duration_ms"] >= 0
    text = record.getMessage() + repr(record.__dict__)
    assert token not in text
    assert "private question" not in text


async def test_request_id_is_echoed_or_made(h: Harness) -> None:
    given = await h.post(rpc_body("tasks/get", {"id": "x"}), headers={"X-Request-ID": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    made = await h.post(rpc_body("tasks/get", {"id": "x"}), headers={"X-Request-ID": "bad id\n"})
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])
    assert "X-Request-ID" in made.headers["access-control-expose-headers"]
    assert "X-RateLimit-Remaining" in made.headers["access-control-expose-headers"]


async def test_a_call_is_counted_after_its_answer_is_written(settings: Settings) -> None:
    """The metrics and the log line come after the answer's last write (http.py): a
    client waiting for each answer does not wait for them."""
    from asgi_lifespan import LifespanManager

    from bench.asgi_client import Client
    from magisterium_a2a.server.main import create_app
    from tests.support import families

    seen: list[tuple[str, int, bool]] = []
    app = create_app(
        settings.model_copy(update={"dev_mode": True}), plugin_settings=families(settings)
    )
    async with LifespanManager(app) as manager:
        metrics = app.state.runtime.metrics
        observe = metrics.observe
        client = Client(manager.app, "demo-pro")

        def observed(call: Any) -> None:
            # What the client had been sent when the call was observed.
            seen.append((call.method, client.status, bool(client.body)))
            observe(call)

        metrics.observe = observed
        await client.post(orjson.dumps(rpc_body("message/send", send_params("hi", "echo"))))
    assert seen == [("message/send", 200, True)]
