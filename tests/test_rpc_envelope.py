"""CONTRACT section 2: every check of POST /api/v1/a2a, in order, with code,
HTTP status and id echo."""

from __future__ import annotations

import json
from typing import Any

import pytest

from magisterium_a2a.server.config import Settings
from tests.support import Harness, harness, rpc_body, send_params


def error_of(response: Any) -> dict[str, Any]:
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert "result" not in body
    return body


async def test_body_over_limit_is_413_before_parsing(settings: Settings) -> None:
    async with harness(settings.model_copy(update={"max_body_bytes": 2048})) as h:
        response = await h.post(b"{" + b" " * 4096, token=None)
    assert response.status_code == 413
    body = error_of(response)
    assert body["id"] is None
    assert body["error"]["code"] == -32600


async def test_body_over_limit_without_content_length_is_413(settings: Settings) -> None:
    async def chunks() -> Any:
        for _ in range(4):
            yield b" " * 1024

    async with harness(settings.model_copy(update={"max_body_bytes": 2048})) as h:
        response = await h.client.post("/api/v1/a2a", content=chunks())
    assert response.status_code == 413
    assert error_of(response)["error"]["code"] == -32600


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"",
        b'{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "\xff"}}',
        b'{"jsonrpc": "2.0", "id": NaN, "method": "tasks/get"}',
        b"[" * 5000 + b"]" * 5000,
    ],
    ids=["truncated", "empty", "not-utf8", "nan", "deep-nesting"],
)
async def test_parse_error_is_32700_with_null_id(h: Harness, raw: bytes) -> None:
    response = await h.post(raw)
    assert response.status_code == 200
    body = error_of(response)
    assert body["id"] is None
    assert body["error"]["code"] == -32700
    assert body["error"]["message"] == "Parse error"


def data_nested(depth: int) -> dict[str, Any]:
    """A message/send whose one data part nests ``depth`` objects."""
    data: Any = 1
    for _ in range(depth):
        data = {"n": data}
    return send_params(parts=[{"kind": "data", "data": data}])


# The data part's first object sits 6 levels into the body (envelope, params,
# message, parts, part, data), so 123 objects make a body exactly 128 deep.
async def test_body_nested_to_the_limit_is_stored_and_echoed(h: Harness) -> None:
    token = await h.token()
    sent = data_nested(123)
    response = await h.call("message/send", sent, token)
    task = response.json()["result"]
    assert task["artifacts"][0]["parts"] == sent["message"]["parts"]
    fetched = await h.call("tasks/get", {"id": task["id"]}, token)
    assert fetched.json()["result"] == task


@pytest.mark.parametrize("depth", [124, 300, 700])
async def test_body_nested_past_the_limit_is_a_parse_error(h: Harness, depth: int) -> None:
    """Deep enough to parse, too deep to store: refused before any skill runs."""
    token = await h.token()
    response = await h.call("message/send", data_nested(depth), token)
    assert response.status_code == 200
    body = error_of(response)
    assert body["id"] is None
    assert body["error"]["code"] == -32700
    assert body["error"]["data"] == {"reason": "nested deeper than 128 levels"}
    assert (await h.send(token)).status_code == 200


@pytest.mark.parametrize(
    ("request_body", "echo"),
    [
        ("just a string", None),
        (42, None),
        ({"id": 7, "method": "tasks/get"}, 7),
        ({"jsonrpc": "1.0", "id": 7, "method": "tasks/get"}, 7),
        ({"jsonrpc": 2.0, "id": "a", "method": "tasks/get"}, "a"),
        ({"jsonrpc": "2.0", "id": 7}, 7),
        ({"jsonrpc": "2.0", "id": 7, "method": 12}, 7),
        ({"jsonrpc": "2.0", "method": "tasks/get"}, None),
        ({"jsonrpc": "2.0", "id": None, "method": "tasks/get"}, None),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "tasks/get"}, None),
        ({"jsonrpc": "2.0", "id": True, "method": "tasks/get"}, None),
        ({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tasks/get"}, None),
    ],
)
async def test_invalid_envelope_is_32600(h: Harness, request_body: Any, echo: Any) -> None:
    token = await h.token()
    response = await h.post(request_body, token)
    assert response.status_code == 200
    body = error_of(response)
    assert body["error"]["code"] == -32600
    assert body["id"] == echo


async def test_envelope_is_checked_before_auth(h: Harness) -> None:
    response = await h.post({"jsonrpc": "2.0", "id": 3}, token=None)
    assert response.status_code == 200
    assert error_of(response)["error"]["code"] == -32600


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Bearer a b",
        "Token abc",
        "Bearer unknown",
    ],
)
async def test_bad_authorization_is_401(h: Harness, header: str | None) -> None:
    headers = {} if header is None else {"Authorization": header}
    response = await h.client.post(
        "/api/v1/a2a", content=json.dumps(rpc_body("tasks/get", {"id": "x"}, "r1")), headers=headers
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    body = error_of(response)
    assert body["id"] == "r1"
    assert body["error"]["code"] == -32004
    assert body["error"]["message"] == "Unauthorized"


async def test_expired_token_is_401(h: Harness) -> None:
    token = await h.token(expires_in=-1)
    response = await h.call("tasks/get", {"id": "x"}, token)
    assert response.status_code == 401
    assert error_of(response)["error"]["code"] == -32004


async def test_revoked_token_is_401(h: Harness) -> None:
    from magisterium_a2a.server.identity import hash_token

    token = await h.token()
    assert (await h.call("tasks/get", {"id": "x"}, token)).json()["error"]["code"] == -32001
    await h.tokens.delete(hash_token(token))
    response = await h.call("tasks/get", {"id": "x"}, token)
    assert response.status_code == 401


async def test_free_plan_is_403_even_for_unknown_methods(h: Harness) -> None:
    token = await h.token("free")
    for method in ("message/send", "tasks/get", "no/such"):
        response = await h.call(method, send_params(), token, req_id=9)
        assert response.status_code == 403
        body = error_of(response)
        assert body["id"] == 9
        assert body["error"]["code"] == -32005
        assert body["error"]["message"] == "Paid plan required"


@pytest.mark.parametrize("plan", ["pro", "organization", "enterprise"])
async def test_paid_plans_pass(h: Harness, plan: Any) -> None:
    token = await h.token(plan)
    response = await h.send(token)
    assert response.status_code == 200
    assert response.json()["result"]["status"]["state"] == "completed"


async def test_unknown_method_is_32601_after_auth(h: Harness) -> None:
    assert (await h.call("tasks/list", {}, None)).status_code == 401
    token = await h.token()
    response = await h.call("tasks/list", {}, token, req_id="q")
    assert response.status_code == 200
    body = error_of(response)
    assert body["id"] == "q"
    assert body["error"]["code"] == -32601


async def test_unknown_skill_is_32002(h: Harness) -> None:
    token = await h.token()
    response = await h.send(token, skill="no_such_skill")
    assert response.status_code == 200
    body = error_of(response)
    assert body["error"]["code"] == -32002
    assert body["error"]["message"] == "Skill not found"
    assert body["id"] == 1


async def test_missing_skill_id_defaults_to_catholic_qa(h: Harness) -> None:
    token = await h.token()
    response = await h.send(token, skill=None)
    assert error_of(response)["error"] == {
        "code": -32002,
        "message": "Skill not found",
        "data": {"skillId": "catholic_qa"},
    }


async def test_unexpected_fault_is_32603_without_details(settings: Settings) -> None:
    async with harness(settings) as h:
        token = await h.token()

        async def broken(*args: Any, **kwargs: Any) -> None:
            raise ConnectionError("redis://:s3cret@10.0.0.5:6379 unreachable")

        h.runtime.store.save = broken  # type: ignore[method-assign]
        h.runtime.store.admit_and_save = broken  # type: ignore[method-assign]
        response = await h.send(token)
        assert (await h.send(token, skill="earlier")).json()["error"]["code"] == -32603
    assert response.status_code == 200
    body = error_of(response)
    assert body["error"] == {"code": -32603, "message": "Internal error"}
    assert "s3cret" not in response.text


async def test_other_verbs_are_405(h: Harness) -> None:
    for verb in ("GET", "PUT", "DELETE", "PATCH"):
        response = await h.client.request(verb, "/api/v1/a2a")
        assert response.status_code == 405
        assert response.headers["allow"] == "POST, OPTIONS"
        assert response.json()["error"]["code"] == -32600


class TestBatch:
    async def test_each_element_answered_in_order(self, h: Harness) -> None:
        token = await h.token()
        batch = [
            rpc_body("message/send", send_params("one"), 1),
            {"jsonrpc": "2.0", "method": "x"},
            rpc_body("nope", {}, "three"),
            rpc_body("tasks/get", {"id": "missing"}, 4),
            5,
        ]
        response = await h.post(batch, token)
        assert response.status_code == 200
        answers = response.json()
        assert [a["id"] for a in answers] == [1, None, "three", 4, None]
        assert answers[0]["result"]["status"]["state"] == "completed"
        assert [a.get("error", {}).get("code") for a in answers[1:]] == [
            -32600,
            -32601,
            -32001,
            -32600,
        ]

    async def test_all_unauthenticated_is_401(self, h: Harness) -> None:
        batch = [rpc_body("tasks/get", {"id": "a"}, 1), rpc_body("tasks/get", {"id": "b"}, 2)]
        response = await h.post(batch, token="wrong")
        assert response.status_code == 401
        assert [a["error"]["code"] for a in response.json()] == [-32004, -32004]

    async def test_partly_unauthenticated_is_200(self, h: Harness) -> None:
        batch = [rpc_body("tasks/get", {"id": "a"}, 1), {"jsonrpc": "2.0"}]
        response = await h.post(batch, token="wrong")
        assert response.status_code == 200
        assert [a["error"]["code"] for a in response.json()] == [-32004, -32600]

    async def test_empty_batch_is_32600(self, h: Harness) -> None:
        response = await h.post([], await h.token())
        assert response.status_code == 200
        body = response.json()
        assert body["id"] is None
        assert body["error"]["code"] == -32600

    async def test_batch_over_cap_is_32600(self, settings: Settings) -> None:
        async with harness(settings.model_copy(update={"max_batch": 3})) as h:
            batch = [rpc_body("tasks/get", {"id": str(i)}, i) for i in range(4)]
            response = await h.post(batch, await h.token())
        assert response.status_code == 200
        assert response.json()["error"]["code"] == -32600
