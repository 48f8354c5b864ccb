"""CONTRACT section 4: the Task object, validated by the official a2a-sdk 0.3
models and by the A2A v0.3 JSON schema."""

from __future__ import annotations

import re
import uuid
from typing import Any

from a2a import types as sdk

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, send_params, validate_definition

ISO_MS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def is_uuid4(value: str) -> bool:
    return uuid.UUID(value).version == 4 and str(uuid.UUID(value)) == value


async def test_completed_task_shape(settings: Settings) -> None:
    clock = ManualClock(1_795_984_200.123)
    async with harness(settings, clock=clock) as h:
        params = send_params("Who wrote Rerum Novarum?")
        response = await h.call("message/send", params, await h.token(), req_id="abc")
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == "abc"
    task = body["result"]
    assert task["kind"] == "task"
    assert is_uuid4(task["id"])
    assert is_uuid4(task["contextId"])
    assert task["status"] == {"state": "completed", "timestamp": "2026-11-29T20:30:00.123Z"}
    assert task["metadata"] == {"skillId": "echo"}
    [artifact] = task["artifacts"]
    assert re.fullmatch(r"art_[0-9a-f]{32}", artifact["artifactId"])
    assert artifact["name"] == "echo"
    assert artifact["parts"] == [{"kind": "text", "text": "Who wrote Rerum Novarum?"}]
    user, agent = task["history"]
    assert user == {
        **params["message"],
        "taskId": task["id"],
        "contextId": task["contextId"],
    }
    assert agent["kind"] == "message"
    assert agent["role"] == "agent"
    assert is_uuid4(agent["messageId"])
    assert agent["taskId"] == task["id"]
    assert agent["contextId"] == task["contextId"]
    assert agent["parts"] == artifact["parts"]
    assert set(task) == {"kind", "id", "contextId", "status", "artifacts", "history", "metadata"}


async def test_failed_task_shape(h: Harness) -> None:
    task = (await h.send(await h.token(), skill="explode")).json()["result"]
    assert task["status"]["state"] == "failed"
    assert ISO_MS.match(task["status"]["timestamp"])
    assert task["artifacts"] == []
    message = task["status"]["message"]
    assert message["role"] == "agent"
    assert message["taskId"] == task["id"]
    assert message["parts"][0]["kind"] == "text"


async def test_every_task_response_validates_against_sdk_and_schema(
    h: Harness, schema: dict[str, Any]
) -> None:
    token = await h.token()
    sent: list[dict[str, Any]] = []
    for skill in ("echo", "explode", "refuse"):
        params = send_params(
            "x",
            skill,
            parts=[{"kind": "text", "text": "x"}, {"kind": "data", "data": {"a": None}}],
        )
        body = (await h.call("message/send", params, token)).json()
        validate_definition(schema, "SendMessageSuccessResponse", body)
        sdk.SendMessageSuccessResponse.model_validate(body)
        sdk.Task.model_validate(body["result"])
        sent.append(body["result"])
    for task in sent:
        body = (await h.call("tasks/get", {"id": task["id"], "historyLength": 1}, token)).json()
        validate_definition(schema, "GetTaskSuccessResponse", body)
        sdk.GetTaskSuccessResponse.model_validate(body)


async def test_error_responses_validate_against_schema(h: Harness, schema: dict[str, Any]) -> None:
    token = await h.token()
    bodies = [
        (await h.post(b"{")).json(),
        (await h.post({"jsonrpc": "2.0", "id": 1}, token)).json(),
        (await h.call("tasks/get", {"id": "x"}, None)).json(),
        (await h.call("nope", {}, token)).json(),
        (await h.call("tasks/get", {}, token)).json(),
        (await h.call("tasks/get", {"id": "x"}, token)).json(),
        (await h.send(token, skill="none")).json(),
    ]
    for body in bodies:
        validate_definition(schema, "JSONRPCErrorResponse", body)
        sdk.JSONRPCErrorResponse.model_validate(body)
