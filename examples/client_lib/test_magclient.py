"""The client library's own tests, using only the magisterium-a2a pytest plugin."""

from __future__ import annotations

import pytest
from magclient import MagisteriumClient, PlanRequired, RateLimited, TaskNotFound

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer


def client(server: MagisteriumServer, token: str, **kw: object) -> MagisteriumClient:
    return MagisteriumClient(server.endpoint_url, token, **kw)  # type: ignore[arg-type]


def test_happy_path(magisterium: MagisteriumServer) -> None:
    mag = client(magisterium, magisterium.tokens["pro"])
    task = mag.send("Rerum Novarum", skill="document_search")
    assert task["status"]["state"] == "completed"
    assert mag.task(task["id"])["id"] == task["id"]


def test_rate_limit_is_waited_out_by_moving_the_clock(magisterium: MagisteriumServer) -> None:
    token = magisterium.issue_token("enterprise", perMinute=1)
    waited: list[float] = []

    def sleep(seconds: float) -> None:
        waited.append(seconds)
        magisterium.advance_clock(seconds)

    mag = client(magisterium, token, sleep=sleep)
    mag.send("first", skill="document_search")
    magisterium.force_error(token, -32003, retry_after=5)
    assert mag.send("second", skill="document_search")["status"]["state"] == "completed"
    assert waited == [5, 55]


def test_rate_limit_error_surfaces_when_retries_run_out(magisterium: MagisteriumServer) -> None:
    token = magisterium.tokens["pro"]
    magisterium.force_error(token, -32003, retry_after=9, count=2)
    mag = client(magisterium, token, sleep=lambda s: None, max_retries=1)
    with pytest.raises(RateLimited) as raised:
        mag.send("x", skill="document_search")
    assert raised.value.retry_after == 9


def test_failed_task(magisterium: MagisteriumServer) -> None:
    token = magisterium.tokens["pro"]
    magisterium.fail_skill(token, message="The answer engine is unavailable.")
    task = client(magisterium, token).send("What is grace?", skill="document_search")
    assert task["status"]["state"] == "failed"
    assert MagisteriumClient.text_of(task) == "The answer engine is unavailable."


def test_expired_task(magisterium: MagisteriumServer) -> None:
    token = magisterium.tokens["pro"]
    mag = client(magisterium, token)
    task = mag.send("grace", skill="document_search")
    magisterium.expire_task(token, task["id"])
    with pytest.raises(TaskNotFound):
        mag.task(task["id"])


def test_tasks_expire_after_a_day(magisterium: MagisteriumServer) -> None:
    mag = client(magisterium, magisterium.tokens["organization"])
    task = mag.send("grace", skill="document_search")
    magisterium.advance_clock(24 * 3600)
    with pytest.raises(TaskNotFound):
        mag.task(task["id"])


def test_plan_error(magisterium: MagisteriumServer) -> None:
    with pytest.raises(PlanRequired):
        client(magisterium, magisterium.tokens["free"]).send("x", skill="document_search")
