"""A2A 1.0 beside the hosted v0.3 dialect on the one endpoint: version
negotiation, the 1.0 operations and data model (ProtoJSON of a2a.proto), the
1.0 errors, and one task store read through both dialects."""

from __future__ import annotations

import base64
import itertools
from typing import Any

import httpx
import pytest

from magisterium_a2a.server.clock import ManualClock, iso_timestamp
from magisterium_a2a.server.config import Settings
from magisterium_a2a.server.dialects import version_parameter
from tests.support import Harness, harness, send_params, validate_definition

V1 = {"A2A-Version": "1.0"}
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
_ids = itertools.count(1)


def message(text: str = "hello", skill: str | None = "echo", **fields: Any) -> dict[str, Any]:
    sent: dict[str, Any] = {
        "messageId": f"m1-{next(_ids)}",
        "role": "ROLE_USER",
        "parts": [{"text": text}],
        **fields,
    }
    if skill is not None:
        sent["metadata"] = {"skillId": skill}
    return sent


async def call(
    h: Harness,
    method: str,
    params: Any,
    token: str | None,
    version: str | None = "1.0",
    req_id: int | str = 1,
) -> httpx.Response:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": req_id, "method": method}
    if params is not None:
        body["params"] = params
    headers = {} if version is None else {"A2A-Version": version}
    return await h.post(body, token, headers)


async def send(h: Harness, token: str, **fields: Any) -> dict[str, Any]:
    response = await call(h, "SendMessage", {"message": message(**fields)}, token)
    assert response.status_code == 200, response.text
    task: dict[str, Any] = response.json()["result"]["task"]
    return task


def error_of(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert "result" not in body, body
    error: dict[str, Any] = body["error"]
    return error


def info(error: dict[str, Any]) -> dict[str, Any]:
    """The error's google.rpc.ErrorInfo, which A2A 1.0 puts first in ``data``."""
    first: dict[str, Any] = error["data"][0]
    assert first["@type"] == ERROR_INFO
    return first


# --- version negotiation -----------------------------------------------------------


async def test_the_header_chooses_the_dialect(h: Harness) -> None:
    token = await h.token()
    v1 = await call(h, "GetTask", {"id": "nope"}, token, "1.0")
    patch = await call(h, "GetTask", {"id": "nope"}, token, "1.0.7")
    major = await call(h, "GetTask", {"id": "nope"}, token, " 1 ")
    # Without the header, or with an empty one or 0.3, it is the hosted dialect.
    for version in (None, "", "0.3", "0.3.0"):
        hosted = await call(h, "GetTask", {"id": "nope"}, token, version)
        assert error_of(hosted) == {
            "code": -32601,
            "message": "Method not found",
            "data": {"method": "GetTask"},
        }
        legacy = await call(h, "tasks/get", {"id": "nope"}, token, version)
        assert error_of(legacy) == {
            "code": -32001,
            "message": "Task not found",
            "data": {"id": "nope"},
        }
    for answer in (v1, patch, major):
        error = error_of(answer)
        assert (error["code"], error["message"]) == (-32001, "Task not found")
        assert info(error) == {
            "@type": ERROR_INFO,
            "reason": "TASK_NOT_FOUND",
            "domain": "a2a-protocol.org",
            "metadata": {"taskId": "nope"},
        }
    # The hosted dialect's names are not 1.0 methods.
    assert error_of(await call(h, "tasks/get", {"id": "x"}, token))["code"] == -32601


@pytest.mark.parametrize("version", ["2.0", "1.1", "0.2", "one", "1.0, 0.3", "1.0.0.0"])
async def test_an_unsupported_version_is_refused_as_1_0_says(h: Harness, version: str) -> None:
    token = await h.token()
    response = await call(h, "SendMessage", {"message": message()}, token, version, req_id="r-9")
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == "r-9"
    assert body["error"]["code"] == -32009
    assert info(body["error"])["reason"] == "VERSION_NOT_SUPPORTED"
    assert info(body["error"])["metadata"]["supportedVersions"] == "1.0, 0.3"
    # Before authentication: a client that cannot be understood learns why first.
    anonymous = await call(h, "GetTask", {"id": "x"}, None, version)
    assert anonymous.status_code == 200 and error_of(anonymous)["code"] == -32009
    assert len(await h.runtime.redis.keys("*task*")) == 0
    assert 'outcome="-32009"' in h.runtime.metrics.render().decode()


# A2A 1.0, section 3.6.1: the version as a request parameter instead of the header.


@pytest.mark.parametrize(
    ("query", "version"),
    [
        (b"", None),
        (b"foo=bar", None),
        (b"A2A-Version=1.0", "1.0"),
        (b"a2a-version=1.0", "1.0"),
        (b"x=1&A2A-VERSION=1.0.2&y", "1.0.2"),
        (b"A2A%2DVersion=1%2E0", "1.0"),
        (b"A2A-Version=1.0&A2A-Version=0.3", "1.0"),
        (b"A2A-Version=", ""),
        (b"A2A-Version", ""),
        (b"A2A-Version=+1.0+", " 1.0 "),
        (b"A2A-Version=%FF", "\ufffd"),
        (b"A2A-Versions=1.0", None),
    ],
)
def test_the_version_parameter_is_read_from_the_query(query: bytes, version: str | None) -> None:
    assert version_parameter(query) == version


async def post_with_query(
    h: Harness, query: str, method: str, params: Any, token: str | None, headers: Any = None
) -> httpx.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    if token is not None:
        all_headers["Authorization"] = f"Bearer {token}"
    return await h.client.post(f"/api/v1/a2a?{query}", json=body, headers=all_headers)


async def test_the_version_parameter_chooses_the_dialect_without_the_header(h: Harness) -> None:
    token = await h.token()
    v1 = await post_with_query(h, "A2A-Version=1.0", "SendMessage", {"message": message()}, token)
    assert v1.json()["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    task_id = v1.json()["result"]["task"]["id"]
    got = await post_with_query(h, "a2a-version=1.0.3", "GetTask", {"id": task_id}, token)
    assert got.json()["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
    for query in ("A2A-Version=", "A2A-Version=0.3", "other=1.0"):
        hosted = await post_with_query(h, query, "tasks/get", {"id": task_id}, token)
        assert hosted.json()["result"]["status"]["state"] == "completed", query
    refused = await post_with_query(h, "A2A-Version=%FF", "GetTask", {"id": task_id}, None)
    assert refused.status_code == 200
    assert info(error_of(refused))["reason"] == "VERSION_NOT_SUPPORTED"
    unsupported = await post_with_query(h, "A2A-Version=2.0", "GetTask", {"id": task_id}, token)
    assert error_of(unsupported)["code"] == -32009


async def test_the_header_wins_over_the_version_parameter(h: Harness) -> None:
    token = await h.token()
    task_id = (await send(h, token))["id"]
    # An empty header is 0.3 (section 3.6.2), given, and so it wins too.
    for header in ("0.3", ""):
        hosted = await post_with_query(
            h, "A2A-Version=1.0", "tasks/get", {"id": task_id}, token, {"A2A-Version": header}
        )
        assert hosted.json()["result"]["status"]["state"] == "completed", header
    v1 = await post_with_query(h, "A2A-Version=0.3", "GetTask", {"id": task_id}, token, V1)
    assert v1.json()["result"]["status"]["state"] == "TASK_STATE_COMPLETED"
    refused = await post_with_query(
        h, "A2A-Version=1.0", "GetTask", {"id": task_id}, token, {"A2A-Version": "9.9"}
    )
    assert error_of(refused)["code"] == -32009


async def test_the_card_and_the_other_verbs_read_the_version_parameter(h: Harness) -> None:
    hosted = (await h.client.get("/.well-known/agent-card.json")).json()
    v1 = (await h.client.get("/.well-known/agent-card.json", headers=V1)).json()
    assert hosted != v1
    by_query = await h.client.get("/.well-known/agent-card.json?A2A-Version=1.0")
    assert by_query.json() == v1
    legacy_path = await h.client.get("/.well-known/agent.json?a2a-version=1.0")
    assert legacy_path.json() == v1
    header_wins = await h.client.get(
        "/.well-known/agent-card.json?A2A-Version=1.0", headers={"A2A-Version": "0.3"}
    )
    assert header_wins.json() == hosted
    get = await h.client.get("/api/v1/a2a?A2A-Version=1.0")
    assert get.status_code == 405
    assert info(error_of(get))["reason"] == "INVALID_REQUEST"
    hosted_get = await h.client.get("/api/v1/a2a?A2A-Version=1.0", headers={"A2A-Version": ""})
    assert error_of(hosted_get) == {"code": -32600, "message": "Invalid request: use POST"}


# --- the operations ----------------------------------------------------------------


async def test_send_returns_the_finished_task_in_1_0_form(h: Harness) -> None:
    token = await h.token()
    response = await call(h, "SendMessage", {"message": message("ave", contextId="c-1")}, token)
    assert response.status_code == 200
    assert response.headers["x-ratelimit-remaining"]
    task = response.json()["result"]["task"]
    assert list(task) == ["id", "contextId", "status", "artifacts", "history", "metadata"]
    assert task["contextId"] == "c-1"
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["status"]["timestamp"].endswith("Z")
    assert task["artifacts"][0]["parts"] == [{"text": "ave"}]
    assert task["artifacts"][0]["artifactId"].startswith("art_")
    user, agent = task["history"]
    assert (user["role"], agent["role"]) == ("ROLE_USER", "ROLE_AGENT")
    assert user["taskId"] == agent["taskId"] == task["id"]
    assert user["metadata"] == {"skillId": "echo"}
    assert agent["parts"] == [{"text": "ave"}]
    assert task["metadata"] == {"skillId": "echo"}
    assert "kind" not in str(task)


async def test_one_store_a_task_reads_through_both_dialects(
    h: Harness, schema: dict[str, Any]
) -> None:
    token = await h.token()
    through_v1 = await send(h, token, text="one")
    hosted = (await h.call("tasks/get", {"id": through_v1["id"]}, token)).json()["result"]
    validate_definition(schema, "Task", hosted)
    assert hosted["kind"] == "task" and hosted["status"]["state"] == "completed"
    assert hosted["history"][0]["parts"] == [{"kind": "text", "text": "one"}]
    through_v03 = (await h.send(token, "two")).json()["result"]
    v1 = (await call(h, "GetTask", {"id": through_v03["id"]}, token)).json()["result"]
    assert v1["id"] == through_v03["id"] and v1["status"]["state"] == "TASK_STATE_COMPLETED"
    assert v1["history"][0]["parts"] == [{"text": "two"}]
    assert v1["status"]["timestamp"] == through_v03["status"]["timestamp"]
    # And back: reading through 1.0 changed nothing the hosted dialect serves.
    again = await h.call("tasks/get", {"id": through_v03["id"]}, token)
    assert again.json()["result"] == through_v03


async def test_history_length(h: Harness) -> None:
    token = await h.token()
    task = await send(h, token)

    async def history(**params: Any) -> list[str] | None:
        got = (await call(h, "GetTask", {"id": task["id"], **params}, token)).json()["result"]
        return None if "history" not in got else [m["role"] for m in got["history"]]

    assert await history() == ["ROLE_USER", "ROLE_AGENT"]
    assert await history(historyLength=5) == ["ROLE_USER", "ROLE_AGENT"]
    assert await history(historyLength=1) == ["ROLE_AGENT"]
    assert await history(historyLength=0) is None
    bad = error_of(await call(h, "GetTask", {"id": task["id"], "historyLength": -1}, token))
    assert bad["code"] == -32602
    assert bad["data"][1]["fieldViolations"][0]["field"] == "historyLength"
    # SendMessage's configuration.historyLength trims the task it returns.
    params = {"message": message(), "configuration": {"historyLength": 1}}
    sent = (await call(h, "SendMessage", params, token)).json()["result"]["task"]
    assert [m["role"] for m in sent["history"]] == ["ROLE_AGENT"]


async def test_return_immediately_gets_the_finished_task(h: Harness) -> None:
    """A deviation from A2A 1.0, section 3.2.2 (non-blocking mode returns at once,
    the task in progress): the flag is read and ignored, the task is finished."""
    token = await h.token()
    params = {"message": message(), "configuration": {"returnImmediately": True}}
    task = (await call(h, "SendMessage", params, token)).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert task["artifacts"][0]["parts"] == [{"text": "hello"}]
    polled = (await call(h, "GetTask", {"id": task["id"]}, token)).json()["result"]
    assert polled["status"] == task["status"]
    params["configuration"] = {"returnImmediately": "yes"}
    refused = error_of(await call(h, "SendMessage", params, token))
    assert refused["code"] == -32602
    assert refused["data"][1]["fieldViolations"][0]["field"] == "configuration.returnImmediately"


async def test_a_failed_skill_is_a_failed_task(h: Harness) -> None:
    token = await h.token()
    task = await send(h, token, skill="refuse")
    assert task["status"]["state"] == "TASK_STATE_FAILED"
    assert task["status"]["message"]["role"] == "ROLE_AGENT"
    assert task["status"]["message"]["parts"] == [{"text": "The test skill refused this request."}]
    assert task["artifacts"] == []


async def test_cancel_is_refused_for_a_finished_task(h: Harness) -> None:
    token = await h.token()
    task = await send(h, token)
    error = error_of(await call(h, "CancelTask", {"id": task["id"]}, token))
    assert (error["code"], error["message"]) == (-32002, "Task cannot be canceled")
    assert info(error) == {
        "@type": ERROR_INFO,
        "reason": "TASK_NOT_CANCELABLE",
        "domain": "a2a-protocol.org",
        "metadata": {"taskId": task["id"], "state": "completed"},
    }
    assert error_of(await call(h, "CancelTask", {"id": "nope"}, token))["code"] == -32001
    # The same refusal in the hosted dialect keeps the hosted code.
    hosted = (await h.call("tasks/cancel", {"id": task["id"]}, token)).json()["error"]
    assert (hosted["code"], hosted["message"]) == (-32602, "Invalid state transition")


async def test_a_message_for_an_existing_task(h: Harness) -> None:
    token = await h.token()
    task = await send(h, token)
    follow_up = {"message": message(taskId=task["id"])}
    error = error_of(await call(h, "SendMessage", follow_up, token))
    assert error["code"] == -32004
    assert "takes no more messages" in error["message"]
    assert info(error)["metadata"] == {"taskId": task["id"], "contextId": task["contextId"]}
    unknown = error_of(await call(h, "SendMessage", {"message": message(taskId="nope")}, token))
    assert unknown["code"] == -32001
    other = await h.token(user="someone-else")
    assert error_of(await call(h, "SendMessage", follow_up, other))["code"] == -32001


async def test_the_extended_card_needs_a_token(h: Harness) -> None:
    token = await h.token()
    card = (await call(h, "GetExtendedAgentCard", None, token)).json()["result"]
    public = (await h.client.get("/.well-known/agent-card.json", headers=V1)).json()
    assert card == public
    assert card["capabilities"]["extendedAgentCard"] is True
    anonymous = await call(h, "GetExtendedAgentCard", None, None)
    assert anonymous.status_code == 401
    assert error_of(anonymous)["code"] == -31401
    assert anonymous.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("method", "code"),
    [
        ("SendStreamingMessage", -32004),
        ("SubscribeToTask", -32004),
        ("CreateTaskPushNotificationConfig", -32003),
        ("GetTaskPushNotificationConfig", -32003),
        ("ListTaskPushNotificationConfigs", -32003),
        ("DeleteTaskPushNotificationConfig", -32003),
    ],
)
async def test_what_the_card_declares_off_is_refused(h: Harness, method: str, code: int) -> None:
    token = await h.token()
    error = error_of(await call(h, method, {"id": "t", "taskId": "t"}, token))
    assert error["code"] == code


async def test_a_push_configuration_on_send_is_refused(h: Harness) -> None:
    token = await h.token()
    config = {"taskPushNotificationConfig": {"url": "https://client.example/hook"}}
    params = {"message": message(), "configuration": config}
    assert error_of(await call(h, "SendMessage", params, token))["code"] == -32003
    assert await h.runtime.redis.keys("*:task:*") == []


# --- ListTasks -----------------------------------------------------------------------


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(1_800_000_000.0)


@pytest.fixture(params=["embedded", pytest.param("redis", marks=pytest.mark.redis)])
async def timed(request: pytest.FixtureRequest, settings: Settings, clock: ManualClock) -> Any:
    """A server whose clock moves only when told, on the embedded store or the real Redis."""
    if request.param == "redis":
        settings = request.getfixturevalue("redis_settings")
    async with harness(settings.model_copy(update={"task_ttl_seconds": 3600}), clock=clock) as h:
        yield h


async def list_tasks(h: Harness, token: str, **params: Any) -> dict[str, Any]:
    response = await call(h, "ListTasks", params, token)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


async def test_list_is_the_owners_newest_first_paged_by_token(
    timed: Harness, clock: ManualClock
) -> None:
    h = timed
    token = await h.token(user="ada")
    ids = []
    for n in range(5):
        ids.append(
            (await send(h, token, text=f"t{n}", contextId="even" if n % 2 == 0 else "odd"))["id"]
        )
        clock.advance(1)
    other = await h.token(user="bob")
    await send(h, other)
    everything = await list_tasks(h, token)
    assert [t["id"] for t in everything["tasks"]] == ids[::-1]
    assert (everything["totalSize"], everything["pageSize"], everything["nextPageToken"]) == (
        5,
        5,
        "",
    )
    # Artifacts only when asked for; history as GetTask has it.
    assert "artifacts" not in everything["tasks"][0]
    assert len(everything["tasks"][0]["history"]) == 2

    seen: list[str] = []
    token_of_page = None
    while True:
        params: dict[str, Any] = {"pageSize": 2}
        if token_of_page:
            params["pageToken"] = token_of_page
        page = await list_tasks(h, token, **params)
        assert page["totalSize"] == 5 and page["pageSize"] == len(page["tasks"])
        seen += [t["id"] for t in page["tasks"]]
        token_of_page = page["nextPageToken"]
        if not token_of_page:
            break
    assert seen == ids[::-1]

    even = await list_tasks(h, token, contextId="even", pageSize=1)
    assert (even["totalSize"], [t["id"] for t in even["tasks"]]) == (3, [ids[4]])
    assert even["nextPageToken"]
    rest = await list_tasks(h, token, contextId="even", pageToken=even["nextPageToken"])
    assert [t["id"] for t in rest["tasks"]] == [ids[2], ids[0]]
    since = iso_timestamp(1_800_000_003.0)
    recent = await list_tasks(h, token, statusTimestampAfter=since)
    assert [t["id"] for t in recent["tasks"]] == [ids[4], ids[3]]
    trimmed = await list_tasks(h, token, historyLength=0, includeArtifacts=True, pageSize=1)
    assert "history" not in trimmed["tasks"][0]
    assert trimmed["tasks"][0]["artifacts"][0]["parts"] == [{"text": "t4"}]
    assert (await list_tasks(h, other))["totalSize"] == 1
    assert (await list_tasks(h, token, contextId="nobody"))["tasks"] == []


async def test_list_filters_by_state(timed: Harness, clock: ManualClock) -> None:
    h = timed
    token = await h.token()
    ok = await send(h, token, contextId="c")
    clock.advance(1)
    failed = await send(h, token, skill="refuse", contextId="c")
    clock.advance(1)
    elsewhere = await send(h, token, skill="refuse", contextId="d")
    done = await list_tasks(h, token, status="TASK_STATE_COMPLETED")
    assert [t["id"] for t in done["tasks"]] == [ok["id"]]
    not_ok = await list_tasks(h, token, status="TASK_STATE_FAILED")
    assert [t["id"] for t in not_ok["tasks"]] == [elsewhere["id"], failed["id"]]
    both = await list_tasks(h, token, status=4, contextId="c")  # a ProtoJSON enum number
    assert (both["totalSize"], [t["id"] for t in both["tasks"]]) == (1, [failed["id"]])
    working = await list_tasks(h, token, status="TASK_STATE_WORKING")
    assert (working["tasks"], working["totalSize"], working["nextPageToken"]) == ([], 0, "")
    assert (await list_tasks(h, token, status="TASK_STATE_UNSPECIFIED"))["totalSize"] == 3
    # What the JS SDK's generated code writes for a status left unset.
    assert (await list_tasks(h, token, status="UNRECOGNIZED"))["totalSize"] == 3


async def test_list_forgets_what_expired(timed: Harness, clock: ManualClock) -> None:
    h = timed
    token = await h.token()
    first = await send(h, token)
    clock.advance(1800)
    second = await send(h, token)
    assert (await list_tasks(h, token))["totalSize"] == 2
    clock.advance(1800)
    listed = await list_tasks(h, token)
    assert [t["id"] for t in listed["tasks"]] == [second["id"]]
    assert listed["totalSize"] == 1
    assert error_of(await call(h, "GetTask", {"id": first["id"]}, token))["code"] == -32001


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": 101}, "pageSize"),
        ({"pageSize": "10"}, "pageSize"),
        ({"status": "TASK_STATE_RUNNING"}, "status"),
        ({"historyLength": -5}, "historyLength"),
        ({"pageToken": "not-ours"}, "pageToken"),
        ({"statusTimestampAfter": "yesterday"}, "statusTimestampAfter"),
        ({"tenant": "acme"}, "tenant"),
    ],
)
async def test_list_refuses_bad_params(h: Harness, params: dict[str, Any], field: str) -> None:
    token = await h.token()
    error = error_of(await call(h, "ListTasks", params, token))
    assert (error["code"], error["message"]) == (-32602, "Invalid parameters")
    assert info(error)["reason"] == "INVALID_PARAMS"
    assert error["data"][1]["@type"] == BAD_REQUEST
    assert error["data"][1]["fieldViolations"][0]["field"] == field


# --- the data model in and out -------------------------------------------------------


async def test_parts_of_every_kind(h: Harness) -> None:
    token = await h.token()
    raw = base64.urlsafe_b64encode(b"\xfb\xff binary").decode().rstrip("=")
    parts = [
        {"text": "words", "metadata": {"lang": "la"}},
        {"data": {"id": "rerum-novarum"}},
        {"raw": raw, "mediaType": "application/octet-stream", "filename": "b.bin"},
        {"url": "https://example.org/a.pdf", "mediaType": "application/pdf"},
    ]
    params = {"message": {**message(), "parts": parts}}
    task = (await call(h, "SendMessage", params, token)).json()["result"]["task"]
    standard = base64.b64encode(b"\xfb\xff binary").decode()
    assert task["history"][0]["parts"] == [
        {"text": "words", "metadata": {"lang": "la"}},
        {"data": {"id": "rerum-novarum"}},
        {"raw": standard, "filename": "b.bin", "mediaType": "application/octet-stream"},
        {"url": "https://example.org/a.pdf", "mediaType": "application/pdf"},
    ]
    hosted = (await h.call("tasks/get", {"id": task["id"]}, token)).json()["result"]
    assert hosted["history"][0]["parts"][2] == {
        "kind": "file",
        "file": {"bytes": standard, "mimeType": "application/octet-stream", "name": "b.bin"},
    }
    assert hosted["history"][0]["parts"][3]["file"] == {
        "uri": "https://example.org/a.pdf",
        "mimeType": "application/pdf",
    }


async def test_proto_field_names_and_enum_numbers_are_read_too(h: Harness) -> None:
    token = await h.token()
    sent = {
        "message_id": "snake",
        "role": 1,
        "parts": [{"text": "x"}],
        "context_id": "ctx",
        "metadata": {"skillId": "echo"},
    }
    task = (await call(h, "SendMessage", {"message": sent}, token)).json()["result"]["task"]
    assert task["contextId"] == "ctx" and task["history"][0]["messageId"] == "snake"
    got = (await call(h, "GetTask", {"id": task["id"], "history_length": 0}, token)).json()
    assert "history" not in got["result"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"role": "ROLE_AGENT"}, "message.role"),
        ({"role": "user"}, "message.role"),
        ({"parts": []}, "message.parts"),
        ({"parts": [{"data": [1, 2]}]}, "message.parts[0].data"),
        ({"parts": [{"raw": "***"}]}, "message.parts[0].raw"),
        ({"parts": [{"text": "a", "url": "https://x"}]}, "message.parts[0]"),
        ({"parts": [{"mediaType": "text/plain"}]}, "message.parts[0]"),
        ({"messageId": ""}, "message.messageId"),
    ],
)
async def test_bad_messages_name_the_field(h: Harness, change: dict[str, Any], field: str) -> None:
    token = await h.token()
    error = error_of(await call(h, "SendMessage", {"message": {**message(), **change}}, token))
    assert error["code"] == -32602
    assert error["data"][1]["fieldViolations"][0]["field"] == field
    assert await h.runtime.redis.keys("*:task:*") == []


# --- errors that keep the hosted HTTP statuses ------------------------------------


async def test_auth_plan_and_limit_errors(settings: Settings) -> None:
    limited = settings.model_copy(update={"limit_default_per_minute": 1})
    async with harness(limited) as h:
        token = await h.token()
        await send(h, token)
        refused = await call(h, "SendMessage", {"message": message()}, token)
        free = await call(h, "GetTask", {"id": "x"}, await h.token("free"))
        anonymous = await call(h, "GetTask", {"id": "x"}, None)
        unknown_skill = await call(h, "SendMessage", {"message": message(skill="nope")}, token)
    assert refused.status_code == 429
    error = error_of(refused)
    assert (error["code"], error["message"]) == (-31429, "Rate limit exceeded")
    delay = int(refused.headers["retry-after"])
    assert info(error)["metadata"] == {"retryAfter": str(delay)}
    assert error["data"][1] == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo",
        "retryDelay": f"{delay}s",
    }
    assert free.status_code == 403 and error_of(free)["code"] == -31403
    assert info(error_of(free))["reason"] == "PLAN_REQUIRED"
    assert anonymous.status_code == 401 and error_of(anonymous)["code"] == -31401
    assert refused.headers["access-control-allow-origin"] == "*"
    skill = error_of(unknown_skill)
    assert (skill["code"], info(skill)["reason"]) == (-32602, "SKILL_NOT_FOUND")
    assert info(skill)["metadata"] == {"skillId": "nope"}


async def test_envelope_errors_and_batches(h: Harness) -> None:
    token = await h.token()
    parse = await h.post(b"{nope", token, V1)
    error = error_of(parse)
    assert (error["code"], error["message"]) == (-32700, "Invalid JSON payload")
    assert info(error)["reason"] == "PARSE_ERROR"
    invalid = await h.post({"jsonrpc": "2.0", "method": "GetTask", "id": {"bad": 1}}, token, V1)
    assert error_of(invalid)["code"] == -32600
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message()}},
        {"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "nope"}},
        {"jsonrpc": "2.0", "id": 3, "method": "message/send", "params": send_params()},
    ]
    answers = (await h.post(batch, token, V1)).json()
    assert answers[0]["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert answers[1]["error"]["code"] == -32001
    assert answers[2]["error"]["code"] == -32601
    too_big = await h.post(b" " * (h.settings.max_body_bytes + 1), token, V1)
    assert too_big.status_code == 413
    assert info(error_of(too_big))["metadata"] == {"maxBytes": str(h.settings.max_body_bytes)}


# --- the card and CORS -----------------------------------------------------------------


async def test_one_card_two_forms(h: Harness) -> None:
    hosted = await h.client.get("/.well-known/agent-card.json")
    v1 = await h.client.get("/.well-known/agent.json", headers=V1)
    assert hosted.headers["vary"] == v1.headers["vary"] == "A2A-Version"
    card, card_v1 = hosted.json(), v1.json()
    endpoint = h.settings.endpoint_url
    interfaces = [
        {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
    ]
    assert card["supportedInterfaces"] == card_v1["supportedInterfaces"] == interfaces
    assert card["securityRequirements"] == card_v1["securityRequirements"]
    assert card["securityRequirements"][0] == {"schemes": {"bearer": {}}}
    assert card["protocolVersion"] == "0.3.0" and "protocolVersion" not in card_v1
    assert card_v1["securitySchemes"]["bearer"] == {
        "httpAuthSecurityScheme": {
            "scheme": "bearer",
            "description": card["securitySchemes"]["bearer"]["description"],
        }
    }
    assert card_v1["capabilities"] == {
        "streaming": False,
        "pushNotifications": False,
        "extendedAgentCard": True,
    }
    assert card_v1["skills"] == card["skills"]
    other = await h.client.get("/.well-known/agent-card.json", headers={"A2A-Version": "7.1"})
    assert other.json() == card


async def test_only_the_1_0_card_declares_the_extended_card(h: Harness) -> None:
    """GetExtendedAgentCard is a 1.0 operation, and the 1.0 card declares it. The
    hosted card keeps the contract's capabilities exactly (CONTRACT.md section 9),
    and declares no v0.3 extended card either: the hosted dialect has no
    ``agent/getAuthenticatedExtendedCard``, which a v0.3 client would then call."""
    token = await h.token()
    hosted = (await h.client.get("/.well-known/agent-card.json")).json()
    assert "extendedAgentCard" not in hosted["capabilities"]
    assert "supportsAuthenticatedExtendedCard" not in hosted
    v03 = await call(h, "agent/getAuthenticatedExtendedCard", None, token, version=None)
    assert error_of(v03)["code"] == -32601
    v1 = (await h.client.get("/.well-known/agent-card.json", headers=V1)).json()
    extended = (await call(h, "GetExtendedAgentCard", None, token)).json()["result"]
    assert v1["capabilities"]["extendedAgentCard"] is extended["capabilities"]["extendedAgentCard"]
    assert extended["capabilities"]["extendedAgentCard"] is True


async def test_other_verbs_are_refused_in_the_clients_dialect(h: Harness) -> None:
    v1 = await h.client.get("/api/v1/a2a", headers=V1)
    hosted = await h.client.get("/api/v1/a2a")
    assert v1.status_code == hosted.status_code == 405
    assert v1.headers["allow"] == "POST, OPTIONS"
    assert (error_of(v1)["code"], info(error_of(v1))["reason"]) == (-32600, "INVALID_REQUEST")
    assert error_of(hosted) == {"code": -32600, "message": "Invalid request: use POST"}


async def test_preflights_allow_the_a2a_headers(h: Harness) -> None:
    origin = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    asked = {**origin, "Access-Control-Request-Headers": "authorization, content-type, a2a-version"}
    endpoint = await h.client.options("/api/v1/a2a", headers=asked)
    assert endpoint.status_code == 204
    allowed = endpoint.headers["access-control-allow-headers"]
    assert allowed == "Content-Type, Authorization, A2A-Version, A2A-Extensions"
    plain = await h.client.options("/api/v1/a2a", headers=origin)
    assert plain.headers["access-control-allow-headers"] == "Content-Type, Authorization"
    card = await h.client.options(
        "/.well-known/agent-card.json",
        headers={**origin, "Access-Control-Request-Headers": "a2a-version"},
    )
    assert card.status_code == 204
    assert card.headers["access-control-allow-origin"] == "*"
    assert "A2A-Version" in card.headers["access-control-allow-headers"]


# --- the test mode speaks both -----------------------------------------------------------

ADMIN = "admin-token-for-tests-0123456789"


@pytest.fixture
async def t(settings: Settings) -> Any:
    test_mode = settings.model_copy(update={"test_mode": True, "admin_token": ADMIN})
    async with harness(test_mode) as running:
        yield running


async def scenario(h: Harness, **spec: Any) -> httpx.Response:
    return await h.client.post(
        "/_test/scenarios", json=spec, headers={"Authorization": f"Bearer {ADMIN}"}
    )


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (-32001, 200),
        (-32002, 200),
        (-32003, 200),
        (-32004, 200),
        (-32009, 200),
        (-32603, 200),
        (-31401, 401),
        (-31403, 403),
        (-31429, 429),
    ],
)
async def test_forced_errors_by_their_1_0_codes(t: Harness, code: int, status: int) -> None:
    token = await t.token()
    added = await scenario(t, kind="error", token=token, code=code, version="1.0", retryAfter=9)
    assert added.status_code == 200, added.text
    response = await call(t, "SendMessage", {"message": message()}, token)
    assert response.status_code == status
    assert error_of(response)["code"] == code
    if code == -31429:
        assert response.headers["retry-after"] == "9"
    assert (await call(t, "SendMessage", {"message": message()}, token)).status_code == 200


async def test_a_scenario_is_for_the_operation_in_either_dialect(t: Harness) -> None:
    token = await t.token()
    await scenario(t, kind="error", token=token, code=-32603, method="tasks/get", count=2)
    await scenario(t, kind="error", token=token, code=-32002, version="1.0", method="CancelTask")
    assert error_of(await call(t, "GetTask", {"id": "x"}, token))["code"] == -32603
    assert error_of(await t.call("tasks/get", {"id": "x"}, token))["code"] == -32603
    # The forced error is the server's own: each dialect writes it its way.
    hosted = error_of(await t.call("tasks/cancel", {"id": "x"}, token))
    assert (hosted["code"], hosted["message"]) == (-32602, "Invalid state transition")
    await scenario(t, kind="fail", token=token, skill="echo")
    failed = await send(t, token)
    assert failed["status"]["state"] == "TASK_STATE_FAILED"


async def test_bad_1_0_scenarios_are_clear(t: Harness) -> None:
    token = await t.token()
    refused = await scenario(t, kind="error", token=token, code=-32005, version="1.0")
    assert refused.status_code == 422
    assert "A2A 1.0" in refused.text
    assert (await scenario(t, kind="error", token=token, code=-1, version="2.0")).status_code == 422


async def test_an_expired_task_leaves_the_list(t: Harness) -> None:
    token = await t.token()
    kept, gone = await send(t, token), await send(t, token)
    expired = await t.client.post(
        "/_test/tasks/expire",
        json={"token": token, "taskId": gone["id"]},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert expired.status_code == 200
    listed = await list_tasks(t, token)
    assert ([task["id"] for task in listed["tasks"]], listed["totalSize"]) == ([kept["id"]], 1)
