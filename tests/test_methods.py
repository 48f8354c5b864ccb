"""CONTRACT section 3: params of every method, and the behaviour of
message/send, tasks/get and tasks/cancel."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from magisterium_a2a.server.clock import ManualClock
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.protocol import Message, Task, TaskStatus, TextPart
from magisterium_a2a.server.taskjson import BuiltTask
from tests.support import Harness, harness, send_params

GOOD = send_params("hi")["message"]


def with_message(**changes: Any) -> dict[str, Any]:
    message = copy.deepcopy(GOOD)
    for key, value in changes.items():
        if value is ...:
            message.pop(key, None)
        else:
            message[key] = value
    return {"message": message}


INVALID_SEND_PARAMS: list[tuple[str, Any, str]] = [
    ("params missing", None, "params"),
    ("params an array", [GOOD], "params"),
    ("message missing", {}, "message"),
    ("message not an object", {"message": "hi"}, "message"),
    ("role missing", with_message(role=...), "message.role"),
    ("role agent", with_message(role="agent"), "message.role"),
    ("role other", with_message(role="system"), "message.role"),
    ("messageId missing", with_message(messageId=...), "message.messageId"),
    ("messageId empty", with_message(messageId=""), "message.messageId"),
    ("messageId a number", with_message(messageId=5), "message.messageId"),
    ("kind missing", with_message(kind=...), "message.kind"),
    ("kind task", with_message(kind="task"), "message.kind"),
    ("parts missing", with_message(parts=...), "message.parts"),
    ("parts empty", with_message(parts=[]), "message.parts"),
    ("parts an object", with_message(parts={"kind": "text", "text": "x"}), "message.parts"),
    ("part without kind", with_message(parts=[{"text": "x"}]), "message.parts[0]"),
    ("part kind unknown", with_message(parts=[{"kind": "image"}]), "message.parts[0]"),
    ("text part without text", with_message(parts=[{"kind": "text"}]), "message.parts[0].text"),
    (
        "text not a string",
        with_message(parts=[{"kind": "text", "text": 1}]),
        "message.parts[0].text",
    ),
    (
        "data not an object",
        with_message(parts=[{"kind": "data", "data": [1]}]),
        "message.parts[0].data",
    ),
    ("file without file", with_message(parts=[{"kind": "file"}]), "message.parts[0].file"),
    (
        "part metadata a list",
        with_message(parts=[{"kind": "text", "text": "x", "metadata": []}]),
        "message.parts[0].metadata",
    ),
    ("metadata a string", with_message(metadata="echo"), "message.metadata"),
    ("skillId a number", with_message(metadata={"skillId": 3}), "message.metadata.skillId"),
    ("contextId a number", with_message(contextId=3), "message.contextId"),
    ("taskId a number", with_message(taskId=3), "message.taskId"),
    ("referenceTaskIds a string", with_message(referenceTaskIds="t"), "message.referenceTaskIds"),
    ("extensions a string", with_message(extensions="e"), "message.extensions"),
    ("configuration a string", {**with_message(), "configuration": "x"}, "configuration"),
]


@pytest.mark.parametrize(
    ("params", "field"),
    [pytest.param(p, f, id=name) for name, p, f in INVALID_SEND_PARAMS],
)
async def test_message_send_param_violations(h: Harness, params: Any, field: str) -> None:
    token = await h.token()
    response = await h.call("message/send", params, token, req_id=11)
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == 11
    assert body["error"]["code"] == -32602
    assert body["error"]["message"] == "Invalid params"
    assert body["error"]["data"]["field"] == field


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("tasks/get", None, "params"),
        ("tasks/get", {}, "id"),
        ("tasks/get", {"id": 5}, "id"),
        ("tasks/get", {"id": ""}, "id"),
        ("tasks/get", {"id": "t", "historyLength": -1}, "historyLength"),
        ("tasks/get", {"id": "t", "historyLength": "2"}, "historyLength"),
        ("tasks/get", {"id": "t", "historyLength": 1.5}, "historyLength"),
        ("tasks/get", {"id": "t", "historyLength": True}, "historyLength"),
        ("tasks/cancel", None, "params"),
        ("tasks/cancel", {}, "id"),
        ("tasks/cancel", {"id": ["t"]}, "id"),
    ],
)
async def test_task_method_param_violations(
    h: Harness, method: str, params: Any, field: str
) -> None:
    response = await h.call(method, params, await h.token())
    assert response.status_code == 200
    error = response.json()["error"]
    assert error["code"] == -32602
    assert error["data"]["field"] == field


async def test_invalid_params_never_count_against_the_limit(h: Harness) -> None:
    token = await h.token()
    for _ in range(20):
        response = await h.call("message/send", with_message(role="agent"), token)
        assert response.json()["error"]["code"] == -32602
        assert (await h.send(token, skill="nope")).json()["error"]["code"] == -32002
    assert (await h.send(token)).json()["result"]["status"]["state"] == "completed"


async def test_optional_fields_are_accepted(h: Harness) -> None:
    params = with_message(
        taskId="client-chosen",
        referenceTaskIds=["a", "b"],
        extensions=["urn:x"],
        contextId="ctx-1",
        parts=[
            {"kind": "text", "text": "hi", "metadata": {"lang": "en"}},
            {"kind": "data", "data": {"k": [1, None]}},
            {
                "kind": "file",
                "file": {"uri": "https://example.org/a.pdf", "mimeType": "application/pdf"},
            },
            {"kind": "file", "file": {"bytes": "aGVsbG8=", "name": "a.txt"}},
        ],
    )
    params["configuration"] = {"blocking": True, "acceptedOutputModes": ["text/plain"]}
    response = await h.call("message/send", params, await h.token())
    task = response.json()["result"]
    assert task["contextId"] == "ctx-1"
    assert task["id"] != "client-chosen"
    user = task["history"][0]
    assert user["taskId"] == task["id"]
    assert user["referenceTaskIds"] == ["a", "b"]
    assert user["parts"][1] == {"kind": "data", "data": {"k": [1, None]}}


async def test_send_get_roundtrip_and_history_length(h: Harness) -> None:
    token = await h.token()
    task = (await h.send(token, "round trip")).json()["result"]
    got = (await h.call("tasks/get", {"id": task["id"]}, token)).json()["result"]
    assert got == task
    for n, expected in [
        (0, []),
        (1, task["history"][-1:]),
        (2, task["history"]),
        (9, task["history"]),
    ]:
        trimmed = await h.call("tasks/get", {"id": task["id"], "historyLength": n}, token)
        assert trimmed.json()["result"]["history"] == expected


async def test_tasks_are_private_to_their_user(h: Harness) -> None:
    alice, bob = await h.token(user="alice"), await h.token(user="bob")
    alice_again = await h.token(user="alice")
    task = (await h.send(alice)).json()["result"]
    assert (await h.call("tasks/get", {"id": task["id"]}, bob)).json()["error"]["code"] == -32001
    assert (await h.call("tasks/cancel", {"id": task["id"]}, bob)).json()["error"]["code"] == -32001
    got = await h.call("tasks/get", {"id": task["id"]}, alice_again)
    assert got.json()["result"]["id"] == task["id"]


async def test_unknown_task_is_32001(h: Harness) -> None:
    token = await h.token()
    for method in ("tasks/get", "tasks/cancel"):
        body = (await h.call(method, {"id": "nope"}, token, req_id=4)).json()
        assert body["id"] == 4
        assert body["error"]["code"] == -32001
        assert body["error"]["message"] == "Task not found"


async def test_cancel_of_terminal_task_is_invalid_state_transition(h: Harness) -> None:
    token = await h.token()
    for skill in ("echo", "explode"):
        task = (await h.send(token, skill=skill)).json()["result"]
        body = (await h.call("tasks/cancel", {"id": task["id"]}, token)).json()
        assert body["error"]["code"] == -32602
        assert body["error"]["message"] == "Invalid state transition"
        still = (await h.call("tasks/get", {"id": task["id"]}, token)).json()["result"]
        assert still["status"]["state"] == task["status"]["state"]


async def test_cancel_of_a_non_terminal_task_cancels_it(h: Harness) -> None:
    token = await h.token(user="carol")
    working = Task(
        kind="task",
        id="w-1",
        context_id="c-1",
        status=TaskStatus(state="working"),
        history=[
            Message(
                kind="message",
                role="user",
                message_id="m",
                parts=[TextPart(kind="text", text="x")],
            )
        ],
    )
    await h.runtime.store.save("carol", BuiltTask("w-1", "c-1", "working", working.to_json()))
    canceled = (await h.call("tasks/cancel", {"id": "w-1"}, token)).json()["result"]
    assert canceled["status"]["state"] == "canceled"
    stored = (await h.call("tasks/get", {"id": "w-1"}, token)).json()["result"]
    assert stored["status"]["state"] == "canceled"
    again = (await h.call("tasks/cancel", {"id": "w-1"}, token)).json()
    assert again["error"]["message"] == "Invalid state transition"


async def test_task_expires_after_ttl(settings: Settings) -> None:
    clock = ManualClock(1_800_000_000.0)
    async with harness(settings.model_copy(update={"task_ttl_seconds": 60}), clock=clock) as h:
        token = await h.token()
        task = (await h.send(token)).json()["result"]
        clock.advance(59)
        assert "result" in (await h.call("tasks/get", {"id": task["id"]}, token)).json()
        clock.advance(1)
        assert (await h.call("tasks/get", {"id": task["id"]}, token)).json()["error"][
            "code"
        ] == -32001


class TestSkillOutcomes:
    async def test_unexpected_exception_is_a_failed_task_without_internals(
        self, h: Harness
    ) -> None:
        response = await h.send(await h.token(), skill="explode")
        assert response.status_code == 200
        task = response.json()["result"]
        assert task["status"]["state"] == "failed"
        assert task["artifacts"] == []
        status_message = task["status"]["message"]
        assert status_message["role"] == "agent"
        assert status_message["kind"] == "message"
        text = status_message["parts"][0]["text"]
        assert "explode" in text
        assert "hunter2" not in response.text
        assert "Traceback" not in response.text
        assert task["history"][-1] == status_message

    async def test_skill_error_message_reaches_the_client(self, h: Harness) -> None:
        task = (await h.send(await h.token(), skill="refuse")).json()["result"]
        assert task["status"]["state"] == "failed"
        assert task["status"]["message"]["parts"] == [
            {"kind": "text", "text": "The test skill refused this request."}
        ]

    async def test_no_artifacts_is_a_failed_task(self, h: Harness) -> None:
        task = (await h.send(await h.token(), skill="empty")).json()["result"]
        assert task["status"]["state"] == "failed"
        assert "invalid result" in task["status"]["message"]["parts"][0]["text"]

    async def test_a_hanging_skill_fails_at_the_timeout(self, settings: Settings) -> None:
        async with harness(settings.model_copy(update={"skill_timeout_seconds": 0.05})) as h:
            task = (await h.send(await h.token(), skill="hang")).json()["result"]
        assert task["status"]["state"] == "failed"
        assert "did not answer within 0.05 seconds" in task["status"]["message"]["parts"][0]["text"]

    async def test_context_groups_one_users_tasks_only(self, h: Harness) -> None:
        alice, bob = await h.token(user="alice"), await h.token(user="bob")
        first = (await h.send(alice, context_id="shared")).json()["result"]
        second = (await h.send(alice, skill="earlier", context_id="shared")).json()["result"]
        assert second["artifacts"][0]["parts"][0]["data"]["taskIds"] == [first["id"]]
        bobs = (await h.send(bob, skill="earlier", context_id="shared")).json()["result"]
        assert bobs["artifacts"][0]["parts"][0]["data"]["taskIds"] == []
        third = (await h.send(alice, skill="earlier", context_id="shared")).json()["result"]
        assert third["artifacts"][0]["parts"][0]["data"]["taskIds"] == [first["id"], second["id"]]


async def test_a_cheap_skill_that_has_to_wait_runs_again_under_the_deadline(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cheap skill's first step runs without the deadline's timer; one that has to
    wait after all is run again, whole, under the deadline, and still answers."""
    import asyncio
    from collections.abc import Sequence

    import httpx
    from asgi_lifespan import LifespanManager

    from magisterium_a2a.plugin import Artifact, FunctionSkill, SkillContext, text_part
    from magisterium_a2a.plugin import Message as PluginMessage
    from magisterium_a2a.server.main import create_app
    from magisterium_a2a.server.registry import SkillRegistry
    from tests.support import families, rpc_body

    runs = {"quick": 0, "waits": 0, "hangs": 0}
    timers: list[float] = []
    timeout = asyncio.timeout

    def counted(delay: float | None) -> asyncio.Timeout:
        timers.append(delay or 0.0)
        return timeout(delay)

    monkeypatch.setattr(asyncio, "timeout", counted)

    def answering(skill_id: str, wait: float | None) -> FunctionSkill:
        async def handle(message: PluginMessage, context: SkillContext) -> Sequence[Artifact]:
            runs[skill_id] += 1
            if wait is not None:
                await asyncio.sleep(wait)
            return [context.artifact("answer", [text_part(skill_id)])]

        return FunctionSkill(
            id=skill_id, name=skill_id, description="-", handler=handle, cheap=True
        )

    def registry(env: object) -> SkillRegistry:
        return SkillRegistry(
            [answering("quick", None), answering("waits", 0), answering("hangs", 3600)]
        )

    quick_settings = settings.model_copy(update={"skill_timeout_seconds": 0.05, "dev_mode": True})
    app = create_app(quick_settings, registry_factory=registry, plugin_settings=families(settings))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:

            async def send(skill: str) -> dict[str, Any]:
                answer = await client.post(
                    "/api/v1/a2a",
                    json=rpc_body("message/send", send_params("x", skill)),
                    headers={"Authorization": "Bearer demo-pro"},
                )
                result: dict[str, Any] = answer.json()["result"]
                return result

            quick = await send("quick")
            assert quick["status"]["state"] == "completed"
            assert (runs["quick"], timers) == (1, [])
            waits = await send("waits")
            assert waits["artifacts"][0]["parts"][0]["text"] == "waits"
            assert (runs["waits"], timers) == (2, [0.05])
            hangs = await send("hangs")
    assert hangs["status"]["state"] == "failed"
    assert "did not answer within 0.05 seconds" in hangs["status"]["message"]["parts"][0]["text"]
    assert runs["hangs"] == 2
