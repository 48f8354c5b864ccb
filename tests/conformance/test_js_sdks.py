"""The official JavaScript SDK, ``@a2a-js/sdk``, both lines, from Node scripts
against a real server process: the 0.3.x line (native A2A v0.3), and the 1.x
line on its own (A2A 1.0, no compatibility layer) and, held to the card's v0.3
interface, through its ``legacyCompat`` option. Each is installed once into its
own npm prefix in the user's cache (``tests/conformance/toolchains.py``), never
into the repository root."""

from __future__ import annotations

from pathlib import Path

import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import (
    PROBES,
    V10_METHODS,
    check_errors,
    check_errors_v10,
    check_happy_path,
    make_plan,
    recorded_requests,
    run_probe,
)
from tests.conformance.toolchains import JS_SDK_03, JS_SDK_1X, node_script, npm_prefix

pytestmark = pytest.mark.subprocess

# The SDK's error class for each step. Both lines name -32001..-32005 after
# their meaning in A2A itself (this contract reuses the codes) and keep the
# server's code, message and data on the error; both read the JSON-RPC body
# of a 401, 403 or 429 answer and throw the error it names.
ERROR_TYPES_03 = {
    "cancel": "JSONRPCTransportError",
    "get_unknown": "TaskNotFoundJSONRPCError",
    "cancel_unknown": "TaskNotFoundJSONRPCError",
    "send_unknown_skill": "TaskNotCancelableJSONRPCError",
    "send_empty_parts": "JSONRPCTransportError",
    "send_rate_limited": "PushNotificationNotSupportedJSONRPCError",
    "send_bad_token": "UnsupportedOperationJSONRPCError",
    "send_free_plan": "ContentTypeNotSupportedJSONRPCError",
    "get_internal_error": "JSONRPCTransportError",
    "unknown_method": "JSONRPCTransportError",
}
ERROR_TYPES_1X = {
    "cancel": "JsonRpcRequestMalformedError",
    "get_unknown": "JsonRpcTaskNotFoundError",
    "cancel_unknown": "JsonRpcTaskNotFoundError",
    "send_unknown_skill": "JsonRpcTaskNotCancelableError",
    "send_empty_parts": "JsonRpcRequestMalformedError",
    "send_rate_limited": "JsonRpcPushNotificationNotSupportedError",
    "send_bad_token": "JsonRpcUnsupportedOperationError",
    "send_free_plan": "JsonRpcContentTypeNotSupportedError",
    "get_internal_error": "JsonRpcTransportError",
    "unknown_method": "JsonRpcRequestMalformedError",
}
# The 1.x line in A2A 1.0: the codes mean what 1.0 says; the hosted service's
# three (401, 403, 429) are no A2A error, so the SDK keeps them as transport errors.
ERROR_TYPES_1X_NATIVE = {
    "cancel": "JsonRpcTaskNotCancelableError",
    "get_unknown": "JsonRpcTaskNotFoundError",
    "cancel_unknown": "JsonRpcTaskNotFoundError",
    "send_unknown_skill": "JsonRpcRequestMalformedError",
    "send_empty_parts": "JsonRpcRequestMalformedError",
    "send_rate_limited": "JsonRpcTransportError",
    "send_bad_token": "JsonRpcTransportError",
    "send_free_plan": "JsonRpcTransportError",
    "get_internal_error": "JsonRpcTransportError",
    "unknown_method": "JsonRpcPushNotificationNotSupportedError",
}
LINES = {
    "0.3": (JS_SDK_03, "js_sdk_03.mjs", "_JsonRpcTransport", ERROR_TYPES_03),
    "1.x": (JS_SDK_1X, "js_sdk_1x.mjs", "_LegacyJsonRpcTransport", ERROR_TYPES_1X),
}
STATES = {
    "0.3": {"completed": "completed", "user": "user", "agent": "agent"},
    "1.x": {"completed": "TASK_STATE_COMPLETED", "user": "ROLE_USER", "agent": "ROLE_AGENT"},
}


@pytest.mark.parametrize("line", sorted(LINES))
def test_js_sdk(conformance_server: MagisteriumServer, line: str) -> None:
    package, script, transport, error_types = LINES[line]
    prefix = npm_prefix([package])
    plan = make_plan(conformance_server, f"js-sdk-{line}")
    report = run_probe(["node", str(node_script(prefix, PROBES / script))], plan, cwd=prefix)
    card = {"url": conformance_server.endpoint_url, "transport": transport}
    if line == "0.3":
        card["protocolVersion"] = "0.3.0"
    else:
        # Held to the card's v0.3 interface (the one it would otherwise pass over).
        card |= {"protocolVersion": "0.3", "interfaces": ["0.3"]}
    assert report["card"] == card
    check_happy_path(report, plan, STATES[line])
    check_errors(report, plan, error_types)
    for step in ("send_rate_limited", "send_bad_token", "send_free_plan", "cancel"):
        assert report[step]["data"] is not None, report[step]


def test_js_sdk_1x_speaks_1_0(
    conformance_server: MagisteriumServer, conformance_records: Path
) -> None:
    prefix = npm_prefix([JS_SDK_1X])
    plan = make_plan(conformance_server, "js-sdk-1.x-native", dialect="1.0")
    script = node_script(prefix, PROBES / "js_sdk_1x.mjs")
    report = run_probe(["node", str(script)], plan, cwd=prefix)
    assert report["card"] == {
        "protocolVersion": "1.0",
        "url": conformance_server.endpoint_url,
        "transport": "JsonRpcTransport",
        "interfaces": ["1.0", "0.3"],
    }
    check_happy_path(report, plan, STATES["1.x"])
    check_errors_v10(report, plan, ERROR_TYPES_1X_NATIVE)
    for step in ("send_rate_limited", "send_bad_token", "send_free_plan", "cancel"):
        assert report[step]["data"] is not None, report[step]

    first, second = report["send"]["task"]["id"], report["second"]["task"]["id"]
    for step in ("list", "list_context", "list_first_page", "list_second_page", "extended_card"):
        assert report[step]["ok"], report[step]
    listed = report["list"]["value"]
    assert [t["id"] for t in listed["tasks"]] == [second, first]
    assert (listed["totalSize"], listed["pageSize"], listed["nextPageToken"]) == (2, 2, "")
    assert [t["id"] for t in report["list_context"]["value"]["tasks"]] == [first]
    assert [t["id"] for t in report["list_first_page"]["value"]["tasks"]] == [second]
    assert [t["id"] for t in report["list_second_page"]["value"]["tasks"]] == [first]
    card = report["extended_card"]["value"]
    assert card["capabilities"]["extendedAgentCard"] is True

    sent = recorded_requests(conformance_records, report, plan)
    methods = [request["body"]["method"] for request in sent]
    assert {"SendMessage", "GetTask", "ListTasks", "CancelTask"} <= set(methods)
    assert set(methods) <= V10_METHODS
    assert {request["headers"].get("a2a-version") for request in sent} == {"1.0"}
