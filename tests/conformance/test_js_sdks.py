"""The official JavaScript SDK, ``@a2a-js/sdk``, both lines, from Node scripts
against a real server process: the 0.3.x line (native A2A v0.3) and the 1.x
line through its ``legacyCompat`` option. Each is installed once into its own
npm prefix under ``.cache/conformance/``, never into the repository root."""

from __future__ import annotations

import pytest

from magisterium_a2a.testing.pytest_plugin import MagisteriumServer
from tests.conformance.plan import PROBES, check_errors, check_happy_path, make_plan, run_probe
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
    assert report["card"] == {
        "protocolVersion": "0.3.0",
        "url": conformance_server.endpoint_url,
        "transport": transport,
    }
    check_happy_path(report, plan, STATES[line])
    check_errors(report, plan, error_types)
    for step in ("send_rate_limited", "send_bad_token", "send_free_plan", "cancel"):
        assert report[step]["data"] is not None, report[step]
