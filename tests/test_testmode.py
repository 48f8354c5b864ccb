"""The test mode (issue: integration-test target): scenarios, clock, expiry,
reset, determinism and recording, over the /_test/ API."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, send_params

ADMIN = "admin-token-for-tests-0123456789"
EXPECTED_STATUS = {-32003: 429, -32004: 401, -32005: 403}


def with_test_mode(settings: Settings, **extra: Any) -> Settings:
    return settings.model_copy(update={"test_mode": True, "admin_token": ADMIN, **extra})


@pytest.fixture
async def t(settings: Settings) -> AsyncIterator[Harness]:
    async with harness(with_test_mode(settings)) as running:
        yield running


async def admin(h: Harness, method: str, path: str, body: Any = None, **kw: Any) -> Any:
    response = await h.client.request(
        method, f"/_test{path}", json=body, headers={"Authorization": f"Bearer {ADMIN}"}, **kw
    )
    assert response.status_code == 200, response.text
    return response.json()


async def scenario(h: Harness, **spec: Any) -> str:
    result: str = (await admin(h, "POST", "/scenarios", spec))["id"]
    return result


async def test_api_is_absent_without_test_mode(h: Harness) -> None:
    assert (await h.client.post("/_test/reset")).status_code == 404


def test_test_mode_needs_an_admin_token(settings: Settings) -> None:
    with pytest.raises(ValueError, match="A2A_ADMIN_TOKEN"):
        Settings(_env_file=None, test_mode=True, admin_token="short")  # type: ignore[call-arg]


async def test_api_needs_the_admin_token(t: Harness) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": ADMIN}):
        response = await t.client.post("/_test/reset", headers=headers)
        assert response.status_code == 401


@pytest.mark.parametrize(
    "code", [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005]
)
async def test_forced_error_answers_with_its_code_and_status(t: Harness, code: int) -> None:
    token = await t.token()
    await scenario(t, kind="error", token=token, code=code, retryAfter=7)
    response = await t.send(token)
    assert response.status_code == EXPECTED_STATUS.get(code, 200)
    error = response.json()["error"]
    assert error["code"] == code
    assert response.json()["id"] == 1
    if code == -32003:
        assert error["data"] == {"retryAfter": 7}
        assert response.headers["retry-after"] == "7"
    assert response.headers["access-control-allow-origin"] == "*"
    assert (await t.send(token)).status_code == 200


async def test_count_method_and_skill_filters(t: Harness) -> None:
    token, other = await t.token(), await t.token()
    await scenario(t, kind="error", token=token, code=-32603, count=2, method="tasks/get")
    await scenario(t, kind="error", token=token, code=-32002, skill="echo_expensive")
    assert (await t.send(token)).status_code == 200
    assert (await t.send(other, skill="echo_expensive")).status_code == 200
    assert (await t.send(token, skill="echo_expensive")).json()["error"]["code"] == -32002
    assert (await t.send(token, skill="echo_expensive")).status_code == 200
    codes = [
        (await t.call("tasks/get", {"id": "x"}, token)).json()["error"]["code"] for _ in range(3)
    ]
    assert codes == [-32603, -32603, -32001]
    assert await admin(t, "GET", "/scenarios", params={"token": token}) == {"scenarios": []}


async def test_pending_scenarios_are_listed(t: Harness) -> None:
    token = await t.token()
    first = await scenario(t, kind="error", token=token, code=-32001, count=3)
    await t.call("tasks/get", {"id": "x"}, token)
    listed = (await admin(t, "GET", "/scenarios", params={"token": token}))["scenarios"]
    assert [(s["id"], s["count"], s["code"]) for s in listed] == [(first, 2, -32001)]
    assert "token" not in listed[0]


async def test_fail_makes_a_failed_task(t: Harness) -> None:
    token = await t.token()
    await scenario(t, kind="fail", token=token, message="The model is down.")
    task = (await t.send(token)).json()["result"]
    assert task["status"]["state"] == "failed"
    assert task["status"]["message"]["parts"][0]["text"] == "The model is down."
    assert task["artifacts"] == []
    await scenario(t, kind="fail", token=token, skill="echo_expensive")
    assert (await t.send(token)).json()["result"]["status"]["state"] == "completed"
    failed = (await t.send(token, skill="echo_expensive")).json()["result"]
    assert "forced by the test mode" in failed["status"]["message"]["parts"][0]["text"]


async def test_latency_is_added(t: Harness) -> None:
    token = await t.token()
    await scenario(t, kind="latency", token=token, latencyMs=150)
    started = time.monotonic()
    assert (await t.send(token)).status_code == 200
    assert time.monotonic() - started >= 0.15


async def test_latency_then_error(t: Harness) -> None:
    token = await t.token()
    await scenario(t, kind="latency", token=token, latencyMs=1)
    await scenario(t, kind="error", token=token, code=-32603)
    assert (await t.send(token)).json()["error"]["code"] == -32603


async def test_expire_task_now(t: Harness) -> None:
    token = await t.token()
    task = (await t.send(token)).json()["result"]
    assert await admin(t, "POST", "/tasks/expire", {"token": token, "taskId": task["id"]}) == {
        "expired": True
    }
    assert (await t.call("tasks/get", {"id": task["id"]}, token)).json()["error"]["code"] == -32001
    again = await t.client.post(
        "/_test/tasks/expire",
        json={"token": token, "taskId": task["id"]},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert again.status_code == 404


async def test_clock_crosses_rate_windows_and_ttls(t: Harness) -> None:
    token = await t.token()
    task = (await t.send(token)).json()["result"]
    for _ in range(14):
        await t.send(token)
    limited = await t.send(token)
    assert limited.status_code == 429
    before = (await admin(t, "GET", "/clock"))["epoch"]
    moved = await admin(t, "POST", "/clock", {"advance": 61})
    assert moved["epoch"] - before == pytest.approx(61, abs=1)
    assert (await t.send(token)).status_code == 200
    assert "result" in (await t.call("tasks/get", {"id": task["id"]}, token)).json()
    await admin(t, "POST", "/clock", {"advance": 86400})
    assert (await t.call("tasks/get", {"id": task["id"]}, token)).json()["error"]["code"] == -32001


async def test_clock_set_to_a_date(t: Harness) -> None:
    result = await admin(t, "POST", "/clock", {"now": "2027-03-19T08:00:00Z"})
    assert result["now"].startswith("2027-03-19T08:00:0")
    task = (await t.send(await t.token())).json()["result"]
    assert task["status"]["timestamp"].startswith("2027-03-19T08:00:0")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"now": "yesterday"},
        {"now": 1, "advance": 1},
    ],
)
async def test_bad_clock_requests_are_clear_errors(t: Harness, body: dict[str, Any]) -> None:
    response = await t.client.post(
        "/_test/clock", json=body, headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert response.status_code == 422
    assert "detail" in response.json()


@pytest.mark.parametrize(
    "body",
    [
        b'{"now": 1e20}',
        b'{"now": -1}',
        b'{"now": "0001-01-01T00:00:00Z"}',
        b'{"now": "9999-06-01T00:00:00Z"}',
        b'{"now": 1e400}',
        b'{"advance": 1e308}',
        b'{"advance": -1e308}',
        b'{"advance": Infinity}',
        b'{"advance": NaN}',
    ],
)
async def test_a_clock_no_timestamp_can_show_is_refused_and_changes_nothing(
    t: Harness, body: bytes
) -> None:
    headers = {"Authorization": f"Bearer {ADMIN}", "Content-Type": "application/json"}
    await admin(t, "POST", "/clock", {"now": "2027-03-19T08:00:00Z"})
    response = await t.client.post("/_test/clock", content=body, headers=headers)
    assert response.status_code == 422, response.text
    assert "detail" in response.json()
    assert (await admin(t, "GET", "/clock"))["now"].startswith("2027-03-19T08:00:0")
    task = (await t.send(await t.token())).json()["result"]
    assert task["status"]["timestamp"].startswith("2027-03-19T08:00:0")


async def test_the_clock_stops_at_the_year_9999(t: Harness) -> None:
    await admin(t, "POST", "/clock", {"now": "9998-12-31T00:00:00Z"})
    past_the_end = await t.client.post(
        "/_test/clock", json={"advance": 2 * 86400}, headers={"Authorization": f"Bearer {ADMIN}"}
    )
    assert past_the_end.status_code == 422
    assert "9999" in past_the_end.json()["detail"]
    last_minute = await admin(t, "POST", "/clock", {"advance": 86400 - 60})
    assert last_minute["now"].startswith("9998-12-31T23:59:0")
    task = (await t.send(await t.token())).json()["result"]
    assert task["status"]["timestamp"].startswith("9998-12-31T23:59:0")
    # The clock runs on from what was set: on a slow machine the store's round trip
    # between setting it and reading it back takes more than a millisecond.
    assert (await admin(t, "POST", "/clock", {"now": 0}))["now"].startswith("1970-01-01T00:00:0")


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "error", "code": -32099},
        {"kind": "error"},
        {"kind": "latency"},
        {"kind": "explode"},
        {"kind": "fail", "count": 0},
        {"kind": "fail", "color": "red"},
    ],
)
async def test_bad_scenarios_are_clear_errors(t: Harness, spec: dict[str, Any]) -> None:
    response = await t.client.post(
        "/_test/scenarios",
        json={"token": "x", **spec},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert response.status_code == 422


async def test_reset_forgets_everything_but_tokens(t: Harness) -> None:
    token = await t.token()
    task = (await t.send(token)).json()["result"]
    for _ in range(14):
        await t.send(token)
    await scenario(t, kind="error", token=token, code=-32603)
    await admin(t, "POST", "/clock", {"advance": 3600})
    assert (await admin(t, "POST", "/reset"))["deleted"] > 0
    assert abs((await admin(t, "GET", "/clock"))["epoch"] - time.time()) < 5
    assert (await t.call("tasks/get", {"id": task["id"]}, token)).json()["error"]["code"] == -32001
    for _ in range(15):
        assert (await t.send(token)).status_code == 200


async def test_tokens_are_issued_by_the_api(t: Harness) -> None:
    issued = await admin(t, "POST", "/tokens", {"plan": "enterprise", "perMinute": 1, "user": "u1"})
    assert issued["user"] == "u1"
    assert (await t.send(issued["token"])).status_code == 200
    assert (await t.send(issued["token"])).status_code == 429
    free = await admin(t, "POST", "/tokens", {"plan": "free"})
    assert (await t.send(free["token"])).status_code == 403


async def test_scenarios_hold_across_processes(redis_settings: Settings) -> None:
    configured = with_test_mode(redis_settings)
    async with harness(configured) as first, harness(configured) as second:
        token = await first.token()
        await scenario(first, kind="error", token=token, code=-32005, count=2)
        await admin(first, "POST", "/clock", {"advance": 7200})
        assert (await second.send(token)).status_code == 403
        assert (await first.send(token)).status_code == 403
        task = (await second.send(token)).json()["result"]
        assert (await admin(second, "GET", "/clock"))["epoch"] > time.time() + 7000
        assert task["status"]["timestamp"] > time.strftime(
            "%Y-%m-%dT%H", time.gmtime(time.time() + 7000)
        )


async def deterministic_run(settings: Settings, record: Path | None = None) -> list[Any]:
    configured = with_test_mode(
        settings, deterministic=True, deterministic_seed=42, record_dir=record
    )
    bodies = []
    async with harness(configured) as h:
        token = (await admin(h, "POST", "/tokens", {"plan": "pro", "user": "snap"}))["token"]
        for skill in ("echo", "explode", "echo"):
            response = await h.call("message/send", send_params("same", skill), token)
            bodies.append(response.json())
        await admin(h, "POST", "/reset")
        bodies.append((await h.call("message/send", send_params("same"), token)).json())
    return bodies


async def test_deterministic_mode_gives_identical_responses(
    tmp_path: Path, settings: Settings
) -> None:
    def stable(bodies: list[Any]) -> list[Any]:
        for body in bodies:
            for message in body["result"]["history"]:
                if message["role"] == "user":
                    message.pop("messageId")
        return bodies

    first = stable(
        await deterministic_run(settings.model_copy(update={"data_dir": tmp_path / "a"}))
    )
    second = stable(
        await deterministic_run(settings.model_copy(update={"data_dir": tmp_path / "b"}))
    )
    assert first == second
    assert first[0]["result"]["status"]["timestamp"] == "2026-01-01T00:00:00.000Z"
    assert first[0]["result"]["id"] != first[2]["result"]["id"]
    assert first[3]["result"]["id"] == first[0]["result"]["id"]


async def test_recording_writes_pairs_without_tokens(tmp_path: Path, settings: Settings) -> None:
    await deterministic_run(settings, record=tmp_path / "rec")
    files = sorted((tmp_path / "rec").glob("*.json"))
    assert len(files) == 4
    assert all(f.name.endswith("-message_send.json") for f in files)
    pair = json.loads(files[0].read_text())
    assert pair["request"]["body"]["method"] == "message/send"
    assert pair["request"]["headers"]["authorization"] == "<redacted>"
    assert pair["response"]["status"] == 200
    assert pair["response"]["body"]["result"]["kind"] == "task"
    assert "mag_" not in "".join(f.read_text() for f in files)


async def test_recording_keeps_an_unparsable_body_as_text(
    tmp_path: Path, settings: Settings
) -> None:
    record = tmp_path / "rec"
    deep = b'{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":' + b"[" * 300 + b"]" * 300
    async with harness(with_test_mode(settings, record_dir=record)) as h:
        response = await h.post(deep + b"}", await h.token())
        assert response.json()["error"]["code"] == -32700
        assert (await h.post(b"\xff", await h.token())).json()["error"]["code"] == -32700
    pairs = [json.loads(f.read_text()) for f in sorted(record.glob("*.json"))]
    assert [p["request"]["body"] for p in pairs] == [(deep + b"}").decode(), "\ufffd"]
    assert [p["response"]["body"]["error"]["code"] for p in pairs] == [-32700, -32700]
