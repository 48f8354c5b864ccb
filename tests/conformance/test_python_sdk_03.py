"""The official Python SDK, 0.3 line (``a2a-sdk`` 0.3.x, native A2A v0.3),
against a real server process: send, get, cancel, and every error code the
contract defines, each surfacing as the SDK's own exception type."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientHTTPError, A2AClientJSONRPCError
from a2a.types import (
    GetTaskPushNotificationConfigParams,
    Message,
    Part,
    Role,
    Task,
    TaskIdParams,
    TaskQueryParams,
    TextPart,
)

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import STEPS, final_task, make_plan

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def plan(conformance_server: MagisteriumServer) -> dict[str, Any]:
    return make_plan(conformance_server, "python-sdk-0.3")


@contextlib.asynccontextmanager
async def sdk_client(plan: dict[str, Any], token: str) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {plan['tokens'][token]}"}
    async with httpx.AsyncClient(headers=headers, timeout=30) as http:
        card = await A2ACardResolver(http, plan["baseUrl"]).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        try:
            yield client
        finally:
            await client.close()


def message(
    plan: dict[str, Any], skill: str | None = None, parts: list[Part] | None = None
) -> Message:
    return Message(
        role=Role.user,
        message_id=f"py03-{skill}",
        parts=[Part(root=TextPart(text=plan["text"]))] if parts is None else parts,
        metadata={"skillId": skill or plan["skill"]},
    )


async def send(client: Client, outgoing: Message) -> Task:
    return final_task([event async for event in client.send_message(outgoing)])


async def test_send_get_cancel(plan: dict[str, Any]) -> None:
    async with sdk_client(plan, "pro") as client:
        card = await client.get_card()
        assert card.protocol_version == "0.3.0"
        assert card.url == f"{plan['baseUrl']}/api/v1/a2a"
        task = await send(client, message(plan))
        assert task.status.state.value == "completed"
        assert task.artifacts is not None
        assert [p.root.text for p in task.artifacts[0].parts] == [plan["text"]]  # type: ignore[union-attr]
        assert task.history is not None
        assert [m.role for m in task.history] == [Role.user, Role.agent]

        fetched = await client.get_task(TaskQueryParams(id=task.id, history_length=1))
        assert (fetched.id, fetched.context_id) == (task.id, task.context_id)
        assert fetched.history is not None
        assert [m.role for m in fetched.history] == [Role.agent]

        with pytest.raises(A2AClientJSONRPCError) as raised:
            await client.cancel_task(TaskIdParams(id=task.id))
    expected = STEPS["cancel"]
    assert raised.value.error.code == expected.code
    assert raised.value.error.message == expected.message
    assert raised.value.error.data == {"id": task.id, "state": "completed"}


Call = Callable[[Client, dict[str, Any]], Awaitable[Any]]

# Each error step: the token it runs with, and the SDK call that makes it.
ERROR_CALLS: dict[str, tuple[str, Call]] = {
    "get_unknown": ("pro", lambda c, p: c.get_task(TaskQueryParams(id=p["unknownTaskId"]))),
    "cancel_unknown": ("pro", lambda c, p: c.cancel_task(TaskIdParams(id=p["unknownTaskId"]))),
    "send_unknown_skill": ("pro", lambda c, p: send(c, message(p, p["unknownSkill"]))),
    "send_empty_parts": ("pro", lambda c, p: send(c, message(p, parts=[]))),
    "send_rate_limited": ("limited", lambda c, p: send(c, message(p))),
    "send_bad_token": ("bogus", lambda c, p: send(c, message(p))),
    "send_free_plan": ("free", lambda c, p: send(c, message(p))),
    "get_internal_error": ("internal", lambda c, p: c.get_task(TaskQueryParams(id="any"))),
    # Push notifications are a part of A2A this server does not offer.
    "unknown_method": (
        "pro",
        lambda c, p: c.get_task_callback(GetTaskPushNotificationConfigParams(id="any")),
    ),
}


@pytest.mark.parametrize("step", sorted(ERROR_CALLS))
async def test_error_codes_surface_as_sdk_errors(plan: dict[str, Any], step: str) -> None:
    token, call = ERROR_CALLS[step]
    expected = STEPS[step]
    async with sdk_client(plan, token) as client:
        with pytest.raises((A2AClientJSONRPCError, A2AClientHTTPError)) as raised:
            await call(client, plan)
    error = raised.value
    if expected.status == 200:
        # A JSON-RPC error in a 200 answer: the SDK hands over the error object.
        assert isinstance(error, A2AClientJSONRPCError)
        code, text, data = error.error.code, error.error.message, error.error.data
    else:
        # 401, 403 and 429: the SDK raises its HTTP error with the status, and
        # keeps the response, whose body is the JSON-RPC error.
        assert isinstance(error, A2AClientHTTPError)
        assert error.status_code == expected.status
        assert isinstance(error.__cause__, httpx.HTTPStatusError)
        response = error.__cause__.response
        body = response.json()["error"]
        code, text, data = body["code"], body["message"], body.get("data")
        if step == "send_rate_limited":
            assert 1 <= data["retryAfter"] <= 60
            assert response.headers["retry-after"] == str(data["retryAfter"])
    assert (code, text) == (expected.code, expected.message)
    if step == "send_empty_parts":
        assert data["field"] == "message.parts"
    if step == "send_unknown_skill":
        assert data == {"skillId": plan["unknownSkill"]}
